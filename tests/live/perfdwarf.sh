#!/bin/sh
# Live: perf's own `perf record --call-graph dwarf` files, unwound by kprof at report time.
# On one perf.data, the stacks of `kprof report --folded` against those of perf script,
# collapsed by stackcollapse-perf.pl's rules: as many reach __libc_start_call_main (within 1
# point), as deep (within 5%), and the ten hottest stacks the same, on a program built without
# frame pointers and on Debian's gzip and python3, with both unwinders; on sqlite3, whose stacks
# outgrow an 8 KiB copy, as deep as perf's and reaching the entry as often, or more; perf's -z
# and pipe-mode files as well; `kprof script` (at perf script's addresses) and `kprof convert
# --to kprof` give the same stacks; and a file of short stack copies (dwarf,512) says its stacks
# were cut, as kprof's own file does.
# Both tools read the same file, so the thresholds do not depend on how busy the machine is.
. "$top_srcdir/tests/live/lib.sh"
. "$top_srcdir/tests/live/stacks.sh"

PERF=${PERF:-perf}
NOFP="$top_builddir/tests/workloads/split-nofp"
WORK_NOFP="$top_builddir/tests/workloads/work-nofp"
command -v "$PERF" >/dev/null 2>&1 || skip_all "perf is not installed (the Debian package linux-perf)"
# -N: no build-id cache written under ~/.debug
precord() { out=$1; shift; "$PERF" record -q -N -F 1000 -o "$out" "$@"; }
if ! precord "$WORK/probe.data" --call-graph dwarf -- true >"$WORK/probe.out" 2>&1; then
	skip_all "perf record --call-graph dwarf cannot record here: $(grep -v '^$' "$WORK/probe.out" | head -1)"
fi

# collapse SCRIPT: perf script's text as stackcollapse-perf.pl collapses it (its rules in awk,
# as in perfscript.sh), one count a sample. The -1 perf prints where a stack copy ran out
# (the return address 0 minus one, ffffffffffffffff) is no frame and is left out.
collapse() {
	collapse_script "$1" samples
}
# kfolded: kprof's folded stacks on stdin with the collapsed names: what has no symbol
# ("gzip+0x4308", or the function its FDE delimits, "sub_4300@gzip") as "[gzip]", as perf's
# unnamed addresses collapse, C++ names without their parameters
kfolded() {
	awk '{ n = split($1, f, ";"); s = f[1]
		for (i = 2; i <= n; i++) {
			x = f[i]; if (sub(/\+0x[0-9a-f]+$/, "", x) || sub(/^sub_[0-9a-f]+@/, "", x)) { sub(/.*\//, "", x); x = "[" x "]" }
			if (x !~ /\(anonymous namespace\)/) sub(/\(.*/, "", x); s = s ";" x
		}
		c[s] += $NF } END { for (s in c) print s, c[s] }'
}
# aliases PSCRIPT KSCRIPT: "PERF-NAME KPROF-NAME" for the functions the two tools name
# differently (libc's __libc_start_main_impl, which kprof calls __libc_start_main@@GLIBC_2.34),
# from the frames of perf script and kprof script at the same place of the same sample, in the
# same binary at the same address (perf shows a return address minus one, kprof as it is; perf
# 6.1 shows the function of a binary with debug info as an "(inlined)" frame of its DWARF
# name); a name kept only where each perf name has one kprof name
aliases() {
	awk '
	function hex(s,   i, v) { v = 0; for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
	function name(line,   sym, dso) { sym = line; sub(/^\t *[0-9a-f]+ /, "", sym); sub(/ \([^()]*\)$/, "", sym)
		sub(/\+0x[0-9a-f]+$/, "", sym); dso = line; sub(/.* \(/, "", dso); sub(/\)$/, "", dso)
		if (sym == "[unknown]" && dso != "[unknown]") { sub(/.*\//, "", dso); sym = "[" dso "]" }
		if (sym !~ /\(anonymous namespace\)/) sub(/\(.*/, "", sym); return sym }
	FNR == 1 { f++; smp = 0 }
	/^$/ { next }
	!/^\t/ { smp++; j = 0; next }
	{ j++; a = $1; d = $NF
	  if (f == 1) { pa[smp, j] = a; pd[smp, j] = d; pn[smp, j] = name($0); next }
	  if (!((smp, j) in pa) || (pd[smp, j] != d && pd[smp, j] != "(inlined)")) next
	  if (pa[smp, j] != a && (length(a) > 12 || hex(a) - hex(pa[smp, j]) != 1)) next
	  p = pn[smp, j]; k = name($0)
	  if (p in to && to[p] != k) bad[p] = 1; to[p] = k }
	END { for (p in to) if (!(p in bad) && to[p] != p) print p, to[p] }' "$1" "$2"
}
# renamed ALIASES FOLDED: FOLDED with the names of ALIASES replaced
renamed() {
	awk 'FILENAME == ARGV[1] { to[$1] = $2; next }
		{ c = $NF; s = substr($0, 1, length($0) - length(c) - 1); n = split(s, f, ";"); o = f[1]
		  for (i = 2; i <= n; i++) o = o ";" (f[i] in to ? to[f[i]] : f[i]); print o, c }' "$1" "$2"
}
# top10 FOLDED: the ten hottest stacks, ties by name; a stack of one sample is not hot (one
# odd start-up sample in ld.so otherwise decides the tenth place among ties)
top10() { awk '$NF > 1' "$1" | sort -t ' ' -k2,2nr -k1,1 | head -10; }

# unwound NAME FILE LIBS: kprof's stacks of perf's FILE against perf script's, with each
# unwinder of LIBS
unwound() {
	n=$1 f=$2 libs=$3
	"$PERF" script -i "$f" >"$WORK/$n.ptxt" 2>/dev/null
	"$PERF" script -i "$f" -F ip,sym,dso --no-inline >"$WORK/$n.pscript" 2>/dev/null
	set -- $(pstats "$WORK/$n.pscript")
	pr=$1 pd=$2 pn=$3
	collapse "$WORK/$n.ptxt" >"$WORK/$n.pcol"
	for lib in $libs; do
		"$KPROF" report -i "$f" --unwinder $lib --folded --weight samples --no-inline \
			--annotate >"$WORK/$n.$lib.ann" 2>/dev/null
		set -- $(kstats "$WORK/$n.$lib.ann")
		kr=$1 kd=$2 kn=$3
		echo "# $n ($lib): reach __libc_start_call_main kprof $kr% perf $pr%, mean depth kprof $kd perf $pd, samples $kn/$pn"
		check "$n ($lib): $kr% of $kn stacks reach __libc_start_call_main, perf's $pr% of $pn (within 1 point)" \
			awk -v k="$kr" -v p="$pr" -v kn="$kn" -v pn="$pn" \
			'BEGIN { d = k - p; exit !(kn >= 100 && pn >= 100 && d <= 1 && d >= -1) }'
		check "$n ($lib): mean depth $kd user frames, perf's $pd (within 5%)" within 5 "$kd" "$pd"
		"$KPROF" report -i "$f" --unwinder $lib --folded --weight samples 2>/dev/null |
			kfolded >"$WORK/$n.$lib.kcol"
		"$KPROF" script -i "$f" --unwinder $lib >"$WORK/$n.$lib.ktxt" 2>/dev/null
		aliases "$WORK/$n.ptxt" "$WORK/$n.$lib.ktxt" >"$WORK/$n.$lib.alias"
		renamed "$WORK/$n.$lib.alias" "$WORK/$n.pcol" >"$WORK/$n.$lib.pren"
		top10 "$WORK/$n.$lib.pren" >"$WORK/$n.$lib.ptop"
		top10 "$WORK/$n.$lib.kcol" >"$WORK/$n.$lib.ktop"
		check "$n ($lib): the ten hottest stacks are perf's ($(wc -l <"$WORK/$n.$lib.alias") names aliased)" \
			sh -c "[ -s '$WORK/$n.$lib.ktop' ] && cmp -s '$WORK/$n.$lib.ktop' '$WORK/$n.$lib.ptop'"
		diff "$WORK/$n.$lib.ptop" "$WORK/$n.$lib.ktop" | head -6 | cut -c 1-300 | sed 's/^/# /'
	done
}

# --- a program without frame pointers, gzip and python3 as Debian ships them -------------
precord "$WORK/nofp.data" --call-graph dwarf -- "$NOFP" 0.5 >/dev/null 2>&1
unwound split-nofp "$WORK/nofp.data" "libdw libunwind"
"$KPROF" report -i "$WORK/nofp.data" --folded >/dev/null 2>"$WORK/nofp.err"
check "split-nofp: no warning of stacks that stop early" \
	sh -c "! grep -q 'stop before' '$WORK/nofp.err'"

seq 1 1500000 >"$WORK/numbers"
precord "$WORK/gzip.data" --call-graph dwarf -- gzip -9 -c "$WORK/numbers" >/dev/null 2>&1
unwound gzip "$WORK/gzip.data" "libdw libunwind"
check "gzip: no frame in an anonymous mapping (perf's //anon is data, not code)" \
	sh -c "! grep -q '//anon' '$WORK/gzip.libdw.kcol'"

if [ -x /usr/bin/python3 ]; then
	precord "$WORK/py.data" --call-graph dwarf -- /usr/bin/python3 -c '
import json
s = 0
for i in range(150000): s += len(json.dumps({"a": i, "b": [i] * 3}))' >/dev/null 2>&1
	unwound python3 "$WORK/py.data" "libdw libunwind"
else
	skips 6 "Debian's /usr/bin/python3 is not installed"
fi

# sqlite3: under .read, the shell's command handler has a 6 KiB frame, so an 8 KiB copy ends in
# it for nearly every stack; where a copy ends decides each stack's depth, and kprof's are as
# deep as perf's on the same file, and reach the entry as often, or more (a tenth of a second)
if command -v sqlite3 >/dev/null 2>&1; then
	cat >"$WORK/q.sql" <<'EOF'
CREATE TABLE t(a TEXT, b INT);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 60000)
	INSERT INTO t SELECT hex(randomblob(20)), x FROM c;
CREATE INDEX ti ON t(a);
SELECT count(*), sum(length(a || b)) FROM t GROUP BY b % 7;
EOF
	precord "$WORK/sqlite3.data" -F 4000 --call-graph dwarf -- \
		sqlite3 :memory: ".read $WORK/q.sql" >/dev/null 2>&1
	unwound sqlite3 "$WORK/sqlite3.data" libdw
	check "sqlite3: kprof's stacks as deep as perf's ($kd frames, $pd) and reaching __libc_start_call_main as often ($kr%, $pr%)" \
		awk -v kd="$kd" -v pd="$pd" -v kr="$kr" -v pr="$pr" 'BEGIN { exit !(kd >= pd && kr >= pr) }'
else
	skips 4 "sqlite3 is not installed (contrib/setup.sh --check installs it)"
fi

# --- the other commands on the same file ---------------------------------------------------
# kprof script's text collapsed gives what report --folded gives
collapse "$WORK/split-nofp.libdw.ktxt" | sort >"$WORK/kscript.col"
sort "$WORK/split-nofp.libdw.kcol" >"$WORK/kreport.col"
check "kprof script of perf's file: its stacks collapsed are report --folded's" \
	sh -c "[ -s '$WORK/kreport.col' ] && cmp -s '$WORK/kscript.col' '$WORK/kreport.col'"
# ...and prints perf script's frames: the same addresses, a sample's return addresses minus
# one (the call's last byte) as perf shows what its unwinder found, whatever each names them
# (99%: a sample perf's unwinder gives up on, kprof's may not)
addrs() { awk '/^$/ { if (h != "") print h a; h = ""; next } /^\t *ffffffffffffffff / { next }
	/^\t/ { a = a " " $1; next } { h = $1 " " $3; a = "" } END { if (h != "") print h a }' "$1"; }
addrs "$WORK/split-nofp.ptxt" >"$WORK/p.addrs"
addrs "$WORK/split-nofp.libdw.ktxt" >"$WORK/k.addrs"
same=$(awk 'NR == FNR { a[FNR] = $0; next } $0 == a[FNR] { n++ } END { print n + 0 }' \
	"$WORK/p.addrs" "$WORK/k.addrs")
total=$(wc -l <"$WORK/p.addrs")
check "kprof script of perf's file: $same of $total samples with perf script's frame addresses" \
	[ "$total" -ge 100 -a $((same * 100)) -ge $((total * 99)) ]
# convert --to kprof unwinds the copies into the .kprof
"$KPROF" convert --to kprof -i "$WORK/nofp.data" -o "$WORK/nofp.kprof" >/dev/null 2>&1
"$KPROF" report -i "$WORK/nofp.kprof" --folded --weight samples 2>/dev/null | kfolded |
	sort >"$WORK/conv.col"
check "convert --to kprof: the .kprof has the same stacks" cmp -s "$WORK/conv.col" "$WORK/kreport.col"
# an export: the flame graph holds main's frame as often
"$KPROF" report -i "$WORK/nofp.data" --svg --no-js -o "$WORK/nofp.svg" 2>/dev/null
check "the flame graph of perf's file has its frames under main" \
	grep -q '<title>__libc_start_call_main (' "$WORK/nofp.svg"

# --- perf's compressed (-z) and pipe-mode files -------------------------------------------
precord "$WORK/z.data" -z --call-graph dwarf -- "$NOFP" 0.3 >/dev/null 2>&1
unwound perf-z "$WORK/z.data" libdw
"$PERF" record -q -N -F 1000 -o - --call-graph dwarf -- "$NOFP" 0.3 >"$WORK/pipe.data" 2>/dev/null
unwound pipe "$WORK/pipe.data" libdw

# --- copies too short for the stack: the truncation said, as for kprof's own --------------
precord "$WORK/short.data" --call-graph dwarf,512 -- "$WORK_NOFP" deep 500 200 >/dev/null 2>&1
"$KPROF" record -F 1000 --call-graph dwarf,512 --keep-stacks -o "$WORK/short.kprof" -- \
	"$WORK_NOFP" deep 500 200 >/dev/null 2>&1
for f in short.data short.kprof; do
	"$KPROF" report -i "$WORK/$f" --folded >/dev/null 2>"$WORK/$f.err"
	"$KPROF" report -i "$WORK/$f" --flat --stats >"$WORK/$f.stats" 2>/dev/null
	# the warning's words, its figures blanked, up to its first reason: a sample that falls
	# in the program's start or exit can add a rarer one to either file
	grep -E "stop before|^hint:" "$WORK/$f.err" | sed 's/[0-9][0-9.]*/N/g; s/\(too small\), .*/\1/' \
		>"$WORK/$f.words"
done
n=$("$KPROF" script -i "$WORK/short.data" --raw | grep -c " cpu-clock")
c=$(sed -n "s/^#   stacks that stopped before their thread's entry: [0-9]*: \([0-9]*\) stack copy too small.*/\1/p" "$WORK/short.data.stats")
check "dwarf,512: --stats says the copy ran out (${c:-none} of $n stacks)" [ "${c:-0}" -gt $((n * 9 / 10)) ]
check "dwarf,512: the warning says the copy was too small, and how to record a larger one" \
	sh -c "grep -q 'stack copy too small' '$WORK/short.data.err' && grep -q '^hint: record with --call-graph dwarf,65528' '$WORK/short.data.err'"
check "dwarf,512: ...in the words it has for kprof's own file" \
	sh -c "[ -s '$WORK/short.data.words' ] && cmp -s '$WORK/short.data.words' '$WORK/short.kprof.words'"
diff "$WORK/short.kprof.words" "$WORK/short.data.words" | head -8 | sed 's/^/# /'

done_testing
