#!/bin/sh
# Live: `kprof script` prints perf script's text. The same workload recorded by perf and by
# kprof prints sample lines of the same layout, field by field, and the same frames (symbol
# and DSO) on the hot stacks; kprof's text collapsed to folded stacks, by stackcollapse-perf.pl
# when it is installed ($STACKCOLLAPSE or on PATH) or else by its rules in awk, gives the
# stacks `kprof report --folded` gives.
. "$top_srcdir/tests/live/lib.sh"
require_perf_events

"$KPROF" record -g -e cpu-clock -c 1000000 -o "$WORK/k.kprof" -- "$SPLIT" 1 >/dev/null 2>&1
"$KPROF" script -i "$WORK/k.kprof" >"$WORK/k.txt"
check "kprof script prints samples" grep -q ' cpu-clock: $' "$WORK/k.txt"

# The layout of a sample line, with its values blanked: digits are 9, the comm is C, and the
# tid T where it is printed as perf prints it (%5d: right-aligned in 5 places, or as wide as
# it is), TID? where not. The two recordings' tids can differ in width (the suite starts
# thousands of processes: the pids may wrap at pid_max between them), their layouts not.
shape() {
	awk '/^$/ || /^\t/ { next }
	{ line = $0; sub(/^ *[^ ]+ /, "C ", line)
	  if (match(line, /^C +[0-9]+ /)) {
		t = substr(line, 3, RLENGTH - 3); d = t; gsub(/ /, "", d)
		line = (length(t) == (length(d) < 5 ? 5 : length(d)) ? "C T" : "C TID?") \
			substr(line, RLENGTH)
	  }
	  gsub(/[0-9]/, "9", line); print line }' "$1"
}

nk=$(grep -c ' cpu-clock: $' "$WORK/k.txt")
if [ -z "$PERF" ]; then
	skips 3 "perf is not installed (the Debian package linux-perf)"
elif ! "$PERF" record -B -N --sample-cpu -g -e cpu-clock -c 1000000 -o "$WORK/p.data" \
	-- "$SPLIT" 1 >/dev/null 2>&1; then
	skips 3 "perf record cannot record here"
else
	"$PERF" script -i "$WORK/p.data" >"$WORK/p.txt" 2>/dev/null
	shape "$WORK/p.txt" | sort -u >"$WORK/p.shapes"
	# each kprof sample line has a layout perf printed too (tids of another width aside)
	same=$(shape "$WORK/k.txt" | grep -cxFf "$WORK/p.shapes")
	check "sample lines in perf's layout: $same of $nk" \
		awk -v s="$same" -v n="$nk" 'BEGIN { exit !(n > 0 && s * 100 >= 99 * n) }'
	# a frame line: a tab, the address in 16 columns, the symbol, the DSO in parentheses
	frame_re='^	[ 0-9a-f]{16} ([^ ]+\+0x[0-9a-f]+|\[unknown\]) \(([^()]+|inlined)\)$'
	badp=$(grep '^	' "$WORK/p.txt" | grep -cvE "$frame_re")
	badk=$(grep '^	' "$WORK/k.txt" | grep -vE "$frame_re" | head -3)
	check "frame lines in perf's layout (perf's own: $badp outside it)" \
		[ -z "$badk" -a "$badp" -eq 0 ]
	[ -z "$badk" ] || echo "# not in perf's layout: $badk"

	# frames by (DSO, address): the names agree but where kprof names what perf leaves
	# [unknown], and at a return address that ends its function, which perf names by the next
	# symbol (offset 0) where kprof looks the call up. Inlined frames perf 6.1 does not show.
	names() {
		awk '/^\t/ && !/ \(inlined\)$/ { print $NF "@" $1, $2 }' "$1" | sort -u
	}
	names "$WORK/k.txt" >"$WORK/k.names"
	names "$WORK/p.txt" >"$WORK/p.names"
	join "$WORK/k.names" "$WORK/p.names" | awk '
		{ k = $2; p = $3; sub(/\+0x[0-9a-f]+$/, "", k); o = p; sub(/\+0x[0-9a-f]+$/, "", p) }
		k == p { same++; next }
		p == "[unknown]" { unknown++; next }
		o ~ /\+0x0$/ { boundary++; next }
		{ other++; if (other <= 3) print "# differs: " $0 > "/dev/stderr" }
		END { printf "%d %d %d %d\n", same, unknown, boundary, other }' >"$WORK/cmp" \
		2>"$WORK/cmp.diag"
	read -r same unknown boundary other <"$WORK/cmp"
	cat "$WORK/cmp.diag"
	check "frames at the same addresses named alike: $same, $unknown perf leaves [unknown], $boundary at a function's end, $other otherwise" \
		[ "$same" -gt 0 -a "$other" -eq 0 ]
fi

# folded stacks, as flame graph tools collapse perf script text
collapse() {
	sc=${STACKCOLLAPSE:-$(command -v stackcollapse-perf.pl)}
	if [ -n "$sc" ]; then
		perl "$sc" "$1"
		return
	fi
	collapse_script "$1" period
}
collapse "$WORK/k.txt" | awk '{ $NF = $NF / 1000000; print }' | sort >"$WORK/k.script.folded"
# the report's names for what has no symbol ("libc.so.6+0x12") as collapsed ("[libc.so.6]"),
# and C++ names without their parameters
"$KPROF" report -i "$WORK/k.kprof" --folded --weight samples |
	awk '{ n = split($1, f, ";"); s = f[1]
		for (i = 2; i <= n; i++) {
			x = f[i]; if (sub(/\+0x[0-9a-f]+$/, "", x)) { sub(/.*\//, "", x); x = "[" x "]" }
			if (x !~ /\(anonymous namespace\)/) sub(/\(.*/, "", x); s = s ";" x
		}
		c[s] += $2 } END { for (s in c) print s, c[s] }' | sort >"$WORK/k.report.folded"
check "script | collapse gives the stacks of report --folded ($(wc -l <"$WORK/k.report.folded") stacks, $nk samples)" \
	cmp -s "$WORK/k.script.folded" "$WORK/k.report.folded"
diff "$WORK/k.script.folded" "$WORK/k.report.folded" | head -5 | sed 's/^/# /'

# -F: perf's rules for what a list selects and how the layout follows
"$KPROF" script -i "$WORK/k.kprof" -F comm,tid,period,event | head -1 >"$WORK/f1"
check "-F without ip: one line a sample, the comm padded to 16" \
	grep -qE '^ {0,15}split +[0-9]+ +[0-9]+ cpu-clock: $' "$WORK/f1"
"$KPROF" script -i "$WORK/k.kprof" -F comm,ip,sym | grep '^	' >"$WORK/f2"
check "-F comm,ip,sym: frames without offsets or DSOs" \
	sh -c "[ -s '$WORK/f2' ] && ! grep -vqE '^	 *[0-9a-f]+ [^ +]+( \(inlined\))?\$' '$WORK/f2'"
"$KPROF" script -i "$WORK/k.kprof" -F -period,+pid | head -1 >"$WORK/f3"
# perf's layout: the seconds right-aligned in five places (more on a machine up for over 27.7
# hours), so one space or several before them
check "-F -period,+pid: the defaults changed" \
	grep -qE '^split +[0-9]+/[0-9]+ +\[[0-9]{3}\] +[0-9]+\.[0-9]{6}: cpu-clock: $' "$WORK/f3"

# Times and CPUs of every width, which a live recording shows only on the machine it ran on:
# a recording whose clock starts at 0 s (CPU [000]), 8483 s (a machine up for hours) and
# 123456 s (up for days), printed by kprof script and, converted, by perf script itself
for t0 in 0 8483920190000 123456789012345; do
	"$top_builddir/tests/golden/mkfixture" "$WORK/t.kprof" --t0 $t0
	secs=$(awk -v t=$t0 'BEGIN { printf "%d", t / 1e9 }')
	"$KPROF" script -i "$WORK/t.kprof" | grep -v '^	' >"$WORK/t.k"
	"$KPROF" script -i "$WORK/t.kprof" -F -period,+pid | grep -v '^	' >"$WORK/t.kf"
	# perf's rule (builtin-script.c): "%5lu.%06lu: " after the "[%03d] " of the CPU
	check "clock at ${secs} s: the seconds right-aligned in five places, as perf prints them" \
		awk -v s=$secs 'BEGIN { want = sprintf("%5d.", s) }
			/^$/ { next }
			{ n++; if (index($0, "] " want) && $3 ~ /^\[[0-9][0-9][0-9]\]$/) ok++ }
			END { exit !(n == 33 && ok == n) }' "$WORK/t.k"
	check "clock at ${secs} s: -F -period,+pid keeps that layout" \
		grep -qE '^ *tiny +4242/4242 +\[000\] +[0-9]+\.[0-9]{6}: cpu-clock: $' "$WORK/t.kf"
	if [ -n "$PERF" ] && "$KPROF" convert --to perf -i "$WORK/t.kprof" -o "$WORK/t.data" \
		>/dev/null 2>&1; then
		"$PERF" script -i "$WORK/t.data" 2>/dev/null | grep -v '^	' >"$WORK/t.p"
		"$PERF" script -i "$WORK/t.data" -F -period,+pid 2>/dev/null | grep -v '^	' >"$WORK/t.pf"
		check "clock at ${secs} s: the sample lines are perf script's, with and without -F" \
			sh -c "[ -s '$WORK/t.p' ] && cmp -s '$WORK/t.k' '$WORK/t.p' && cmp -s '$WORK/t.kf' '$WORK/t.pf'"
	else
		skip "clock at ${secs} s: no perf, or its perf.data could not be written"
	fi
done
"$KPROF" script -i "$WORK/k.kprof" -F comm,sym >/dev/null 2>"$WORK/f4"
check "-F sym without ip is refused" sh -c "[ $? -eq 1 ] && grep -q 'needs the ip field' '$WORK/f4'"
"$KPROF" script -i "$WORK/k.kprof" -F comm,bogus >/dev/null 2>&1
check "-F with no such field is a usage error" [ $? -eq 2 ]
"$KPROF" script -i "$WORK/k.kprof" --raw >"$WORK/raw"
"$KPROF" script -i "$WORK/k.kprof" -D >"$WORK/dump"
check "--raw (-D) dumps the records" \
	sh -c "grep -q ' callchain: \\[' '$WORK/raw' && grep -q ' MMAP2 ' '$WORK/raw' && cmp -s '$WORK/raw' '$WORK/dump'"

# The same perf.data printed by perf script and by kprof script (inline frames left out: this
# perf shows none): the sample lines equal, the event named as perf names it (its default
# event, cycles, falls back to cpu-clock with perf's modifiers, "cpu-clock:ppp"), and the
# frames equal but where kprof names what perf leaves [unknown] (counted)
if [ -n "$PERF" ] && [ -s "$WORK/p.data" ] &&
	"$PERF" record -B -N --sample-cpu -g -c 1000000 -o "$WORK/pd.data" -- "$SPLIT" 1 \
		>/dev/null 2>&1; then
	"$PERF" script -i "$WORK/pd.data" >"$WORK/p.txt" 2>/dev/null
	"$KPROF" script --no-inline -i "$WORK/pd.data" >"$WORK/kp.txt" 2>"$WORK/kp.err"
	pev=$(awk 'NF && !/^\t/ { print $(NF); exit }' "$WORK/p.txt")
	kev=$(awk 'NF && !/^\t/ { print $(NF); exit }' "$WORK/kp.txt")
	check "the event as perf script names it: '$kev' (perf: '$pev')" [ -n "$pev" -a "$kev" = "$pev" ]
	read -r same total framesok named <<EOF2
$(awk '
	function flush() { if (line != "") { n[f]++; s[f, n[f]] = line; fr[f, n[f]] = frames } line = frames = "" }
	FNR == 1 { if (NR != 1) flush(); f = NR == FNR ? 0 : 1 }
	/^$/ { flush(); next }
	/^\t/ { frames = frames "\n" $0; next }
	{ l = $0; sub(/: *$/, ":", l); line = l }
	END {
		flush()
		for (i = 1; i <= n[1] && i <= n[0]; i++) {
			if (s[0, i] != s[1, i]) continue
			same++
			a = split(fr[0, i], ka, "\n"); b = split(fr[1, i], pa, "\n"); bad = a != b
			for (j = 2; j <= a && !bad; j++)
				if (ka[j] != pa[j] && pa[j] !~ /\[unknown\]/) bad = 1
				else if (ka[j] != pa[j]) named++
			ok += !bad
		}
		print same + 0, n[1] + 0, ok + 0, named + 0
	}' "$WORK/kp.txt" "$WORK/p.txt")
EOF2
	check "script of perf's own perf.data: $same of $total sample lines as perf script prints them (at least 99%)" \
		[ "$total" -gt 100 -a $((same * 100)) -ge $((total * 99)) ]
	check "...and $framesok with perf's frames ($named frames named that perf leaves [unknown])" \
		[ $((framesok * 100)) -ge $((total * 99)) ]
else
	skips 3 "no perf.data of perf's to compare with"
fi

done_testing
