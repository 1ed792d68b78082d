#!/bin/sh
# Live: --call-graph dwarf on programs as Debian ships them, against perf on the same
# workloads: stripped gzip (no symbol table), python3 and sqlite3 (PLT stubs, aliased libc
# functions). Stacks reach __libc_start_call_main as often as perf's do and are as deep, and the
# hottest functions carry perf's names; a stripped binary's functions are named after their
# FDEs (sub_HEX@DSO), one row each. Then the same workload stripped, with and without
# -rdynamic, gives the same stacks and each function its true share, and a binary without CFI
# is said to truncate them, its frames keeping their offsets.
. "$top_srcdir/tests/live/lib.sh"
require_perf_events
EXPORT="$top_builddir/tests/workloads/split-export"
RDYN="$top_builddir/tests/workloads/split-export-rdynamic"
NOFRAME="$top_builddir/tests/workloads/noframe"

. "$top_srcdir/tests/live/stacks.sh"
at_least() { awk -v g="$1" -v w="$2" 'BEGIN { exit !(g >= w) }'; }

# ktop FILE N MIN / ptop FILE N MIN: the N hottest user-space functions by self samples, at MIN%
# or more each, one name a line, from `kprof report --flat --sort dso,sym` and `perf report
# --sort dso,sym`. Kernel functions are left out (which ones interrupts hit differs from run to
# run), and so are rarer ones: a frame outside every symbol and FDE is a single address, which
# must hold 5% to count (one instruction's share varies more between runs than a function's).
# perf's unnamed 0x...OFF in DSO is named as kprof names the function holding it, sub_HEX@DSO
# after the FDE that readelf finds around it in FDES (fdes_of), its rows summed; else DSO+0xOFF.
ktop() {
	awk -v min="$3" '/^ +[0-9.]+% +[0-9.]+% +[0-9]+ / && $4 != "[kernel.kallsyms]" {
		p = $1; sub("%", "", p)
		sub(/^ +[0-9.]+% +[0-9.]+% +[0-9]+ +[^ ]+ +/, "")
		if (p + 0 < min || (min > 0 && /\+0x[0-9a-f]+$/ && p + 0 < 5)) next
		print }' "$1" | head -n "$2"
}
ptop() {
	awk -v min="$3" -v fdes="$4" '
	function hex(s,   i, v) { v = 0; s = tolower(s); sub(/^0x/, "", s)
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v }
	BEGIN { while ((getline l <fdes) > 0) { n++; split(l, f, " ")
		fd[n] = f[1]; fo[n] = hex(f[2]); fe[n] = hex(f[3]); fv[n] = f[4] } }
	/^ +[0-9.]+%/ && $2 != "[kernel.kallsyms]" {
		p = $1; sub("%", "", p)
		dso = $2; $1 = $2 = $3 = ""; sub(/^ +/, "")
		if ($0 ~ /^0x[0-9a-f]+$/) {
			a = hex($0); name = ""
			for (i = 1; i <= n && name == ""; i++)
				if (fd[i] == dso && a >= fo[i] && a < fe[i]) name = "sub_" fv[i] "@" dso
			if (name == "") {
				if (min > 0 && p + 0 < 5) next
				sub(/^0x0*/, ""); name = dso "+0x" $0
			}
			$0 = name
		}
		if (!($0 in t)) o[++k] = $0
		t[$0] += p }
	END { for (i = 1; i <= k; i++) if (t[o[i]] >= min) printf "%s %s\n", t[o[i]], o[i] }' "$1" |
		sort -s -k1,1gr | cut -d' ' -f2- | head -n "$2"
}

# fdes_of FLAT: "DSO START END HEX" for each FDE of the binaries whose functions kprof's flat
# report FLAT (with --stats) names sub_HEX@DSO, from readelf: START and END file offsets, HEX
# the ELF address of the start
fdes_of() {
	for path in $(sed -n 's/^#   \(\/[^:]*\): [0-9]* frames.*/\1/p' "$1" | sort -u); do
		dso=${path##*/}
		grep -q " sub_[0-9a-f]*@$dso\$" "$1" || continue
		delta=$(readelf -lW "$path" | awk '$1 == "LOAD" && / R?W?E / { print $3, $2; exit }')
		readelf --debug-dump=frames "$path" 2>/dev/null | awk -v dso="$dso" -v d="$delta" '
			function hex(s,   i, v) { v = 0; s = tolower(s); sub(/^0x/, "", s)
				for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
				return v }
			BEGIN { split(d, x, " "); delta = hex(x[1]) - hex(x[2]) }
			$4 == "FDE" { split(substr($6, 4), r, /\.\./); s = hex(r[1]); e = hex(r[2])
				v = r[1]; sub(/^0+/, "", v)
				printf "%s %x %x %s\n", dso, s - delta, e - delta, v }'
	done
}

# run_both NAME CMD...: CMD recorded with DWARF stacks by kprof and by perf, and reported;
# perf's stack copies are $perf_copy bytes where set, else its default
run_both() {
	name=$1; shift
	"$KPROF" record --call-graph dwarf -o "$WORK/$name.kprof" -- "$@" >/dev/null 2>"$WORK/$name.rec"
	check "$name: kprof record --call-graph dwarf succeeds" [ $? -eq 0 ]
	"$KPROF" report -i "$WORK/$name.kprof" --folded --weight samples --no-inline --annotate \
		>"$WORK/$name.folded" \
		2>/dev/null
	"$KPROF" report -i "$WORK/$name.kprof" --flat --sort dso,sym --no-inline --color never \
		--stats >"$WORK/$name.flat" 2>/dev/null
	# perf is the reference, not the subject: a run of its that recorded nothing (seen once
	# in a busy suite, with no message kept) is run again, and what it said is kept
	for try in 1 2; do
		"$PERF" record -q -F 4000 --call-graph "dwarf${perf_copy:+,$perf_copy}" -o "$WORK/$name.data" -- "$@" \
			>/dev/null 2>"$WORK/$name.perr"
		"$PERF" script -i "$WORK/$name.data" -F ip,sym,dso --no-inline \
			>"$WORK/$name.script" 2>>"$WORK/$name.perr"
		[ -s "$WORK/$name.script" ] && break
	done
	"$PERF" report -i "$WORK/$name.data" --no-children --stdio --sort dso,sym -g none \
		2>/dev/null | grep -v '^#' >"$WORK/$name.perf"
}

# compare NAME MIN [RE]: kprof's stacks against perf's, where perf's reach the entry in at least
# MIN%; with RE, only the stacks through a function matching it, in both
compare() {
	n=$1 min=$2
	set -- $(kstats "$WORK/$n.folded" "${3:-}") $(pstats "$WORK/$n.script" "${3:-}")
	kr=$1 kd=$2 kn=$3 pr=$4 pd=$5 pn=$6
	set -- "$n"
	[ "$pn" -gt 0 ] || echo "# perf recorded nothing twice: $(head -3 "$WORK/$n.perr" | tr '\n' ' ')"
	check "$name: $kr% of kprof's $kn stacks reach __libc_start_call_main, perf's $pr% of $pn" \
		awk -v k="$kr" -v p="$pr" -v kn="$kn" -v pn="$pn" -v min="$min" \
		'BEGIN { exit !(kn >= 500 && pn >= 500 && p >= min && k >= p - 1) }'
	check "$name: mean depth $kd user frames, perf's $pd (within 10%)" within 10 "$kd" "$pd"
	fdes_of "$WORK/$1.flat" >"$WORK/$1.fdes"
	ktop "$WORK/$1.flat" 10 1 >"$WORK/$1.ktop"
	ptop "$WORK/$1.perf" 10 1 "$WORK/$1.fdes" >"$WORK/$1.ptop"
	ktop "$WORK/$1.flat" 100000 0 >"$WORK/$1.kall"
	ptop "$WORK/$1.perf" 100000 0 "$WORK/$1.fdes" >"$WORK/$1.pall"
	missing=$(grep -vxF -f "$WORK/$1.pall" "$WORK/$1.ktop" | head -3 | tr '\n' ' ')
	check "$name: kprof's hottest functions ($(wc -l <"$WORK/$1.ktop")) all have perf's names${missing:+ (not in perf: $missing)}" \
		[ -z "$missing" -a -s "$WORK/$1.ktop" ]
	missing=$(grep -vxF -f "$WORK/$1.kall" "$WORK/$1.ptop" | head -3 | tr '\n' ' ')
	check "$name: perf's hottest functions ($(wc -l <"$WORK/$1.ptop")) are all in kprof's report${missing:+ (not in kprof: $missing)}" \
		[ -z "$missing" -a -s "$WORK/$1.ptop" ]
}

if [ -z "$PERF" ] || ! "$PERF" record -q -o "$WORK/probe.data" -- true >/dev/null 2>&1; then
	skip_all "perf record is not available here, and these tests compare against it"
fi

# gzip: a stripped PIE, no .symtab and no function in .dynsym, only .eh_frame
seq 1 1500000 >"$WORK/numbers"
run_both gzip gzip -9 -c "$WORK/numbers"
compare gzip 99
check "gzip: no warning of truncated stacks" sh -c "! grep -q 'stop before' '$WORK/gzip.rec'"
# its own functions, which no symbol names, are one row each, named after their FDE's start
bad=$(awk 'FILENAME == ARGV[1] { if ($1 == "gzip") s["sub_" $4 "@gzip"] = 1; next }
	/^ +[0-9.]+% +[0-9.]+% +[0-9]+ +gzip / && !($5 in s) && $5 !~ /@plt$/ { print $5 }' \
	"$WORK/gzip.fdes" "$WORK/gzip.flat" | head -3 | tr '\n' ' ')
kgz=$(grep -c '^ *[0-9.]*% *[0-9.]*% *[0-9]* *gzip ' "$WORK/gzip.flat")
pgz=$(grep -c '^ *[0-9.]*% *gzip ' "$WORK/gzip.perf")
check "gzip: its $kgz rows are functions at the start of an FDE, sub_HEX@gzip${bad:+ (not: $bad)}" \
	[ -z "$bad" -a "$kgz" -gt 0 ]
check "gzip: $kgz rows of its own, perf's $pgz of single addresses" [ "$kgz" -lt "$pgz" ]

# python3: Debian's interpreter, its functions exported in .dynsym
run_both python3 /usr/bin/python3 -c '
def fib(n): return n if n < 2 else fib(n - 1) + fib(n - 2)
fib(33)'
# only the stacks through the interpreter's loop: on a busy machine more samples fall in
# python3's start-up, before the entry, and the two runs' shares of it differ (a busy suite saw
# kprof 97.83% and perf 99.01% of all stacks)
compare python3 97 '^_PyEval_EvalFrameDefault$'


# sqlite3: the library's calls through its PLT, and libc's aliased allocator
if command -v sqlite3 >/dev/null; then
	cat >"$WORK/q.sql" <<'EOF'
CREATE TABLE t(a TEXT, b INT);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 300000)
	INSERT INTO t SELECT hex(randomblob(20)), x FROM c;
CREATE INDEX ti ON t(a);
SELECT count(*), sum(length(a || b)) FROM t GROUP BY b % 7;
EOF
	# its stacks are deeper than perf's default 8 KiB copy, not than kprof's 32 KiB: perf is
	# given that too, and the query's stacks (through sqlite3_step; start-up's, in ld.so, end
	# at _start) reach main
	perf_copy=32768
	run_both sqlite3 sqlite3 :memory: ".read $WORK/q.sql"
	perf_copy=
	compare sqlite3 99 '^sqlite3_step$'
	check "sqlite3: the recorder says nothing of stacks stopping early" \
		sh -c "! grep -q 'stop before' '$WORK/sqlite3.rec'"
	check "sqlite3: malloc is named malloc, as perf names it" \
		sh -c "grep -qx malloc '$WORK/sqlite3.kall' && ! grep -qx __libc_malloc '$WORK/sqlite3.kall'"
	plt=$(grep -c '@plt$' "$WORK/sqlite3.kall")
	check "sqlite3: $plt PLT stubs are named SYM@plt" [ "$plt" -ge 3 ]
	# every stub perf shows at 1% or more (20 samples: rarer ones come and go), kprof names too
	awk '/^ +[0-9.]+%/ { p = $1; sub("%", "", p); if (p >= 1 && $NF ~ /@plt$/) print $NF }' \
		"$WORK/sqlite3.perf" >"$WORK/sqlite3.pplt"
	missing=$(grep -vxF -f "$WORK/sqlite3.kall" "$WORK/sqlite3.pplt" | tr '\n' ' ')
	check "sqlite3: each stub perf names ($(wc -l <"$WORK/sqlite3.pplt")) kprof names${missing:+ (not: $missing)}" \
		[ -z "$missing" ]
else
	skips 8 "sqlite3 is not installed (contrib/setup.sh --check installs it)"
fi

# --- the same program stripped, without and with -rdynamic: the same stacks --------------
strip --strip-all -o "$WORK/split-stripped" "$EXPORT"
strip --strip-all -o "$WORK/split-rdyn-stripped" "$RDYN"
for v in stripped rdyn-stripped; do
	"$KPROF" record --call-graph dwarf -o "$WORK/$v.kprof" -- "$WORK/split-$v" 1 >"$WORK/$v.out" 2>/dev/null
	"$KPROF" report -i "$WORK/$v.kprof" --folded --no-inline --annotate --weight samples >"$WORK/$v.folded" 2>/dev/null
done
# the stripped binary's functions are named after their FDEs, sub_HEX@split-stripped, HEX the
# ELF address of their start: the one the unstripped build's symbol has (strip removes only
# symbols and debug sections), so nm names them
nm -S --defined-only "$EXPORT" | awk '$3 ~ /^[tT]$/ { v = $1; sub(/^0+/, "", v); print v, $2, $4 }' \
	>"$WORK/syms"
awk 'NR == FNR { n["sub_" $1 "@split-stripped"] = $3; next }
	{ c = $NF; s = $0; sub(/ [0-9]+$/, "", s); m = split(s, f, ";"); out = "split"
	  for (i = 2; i <= m; i++) out = out ";" (f[i] in n ? n[f[i]] : f[i])
	  t[out] += c }
	END { for (s in t) print s, t[s] }' "$WORK/syms" "$WORK/stripped.folded" >"$WORK/stripped.named"
sed 's/^[^;]*;/split;/' "$WORK/rdyn-stripped.folded" >"$WORK/rdyn.named"
for v in stripped rdyn; do
	set -- $(kstats "$WORK/$v.named")
	m=$(reach_main "$WORK/$v.named")
	check "split stripped ($v): stacks reach main in $m% of $3 samples (at least 99), $2 frames deep" \
		at_least "$m" 99
done
# each run's work functions hold their true shares, from that run's own clocks (a busy machine
# changes the split between two runs, so the two recordings are not held to each other's) ...
for v in stripped rdyn; do
	o=$v; [ $v = rdyn ] && o=rdyn-stripped
	for f in work_a work_b work_c; do
		got=$(awk -v f="$f" '{ t += $NF; if ($0 ~ ";" f "(;| )") g += $NF }
			END { printf "%.2f", t ? 100 * g / t : 0 }' "$WORK/$v.named")
		want=$(truth_of "$f" "$WORK/$o.out")
		check "split stripped ($v): $f on ${got}% of the stacks against the true ${want:-none}% (within $SHARE_POINTS points)" \
			awk -v g="$got" -v w="${want:--100}" -v m=$SHARE_POINTS 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= m) }'
	done
done
# ... and the two have the same stacks: each one holding 2% of either profile is in the other
diffs=$(awk 'NR == FNR { a[substr($0, 1, length($0) - length($NF) - 1)] += $NF; ta += $NF; next }
	{ s = substr($0, 1, length($0) - length($NF) - 1); b[s] += $NF; tb += $NF }
	END { for (s in a) u[s] = 1; for (s in b) u[s] = 1
		for (s in u) { x = 100 * a[s] / ta; y = 100 * b[s] / tb
			if ((x >= 2 || y >= 2) && (x == 0 || y == 0)) printf "%s %.1f/%.1f; ", s, x, y } }' \
	"$WORK/stripped.named" "$WORK/rdyn.named")
check "stripped with and without -rdynamic: the same stacks${diffs:+ ($diffs)}" \
	[ -z "$diffs" ]
check "...and work_a through via_left is one of them" \
	grep -q "^split;.*;main;via_left;work_a [0-9]*\$" "$WORK/stripped.named"
# its flat report: one row per function, at exactly the address nm gives it, no row of a single
# address inside one (the offsets of split-stripped+0xOFF are the unstripped build's too) ...
"$KPROF" report -i "$WORK/stripped.kprof" --flat --no-inline --weight samples --stats \
	>"$WORK/stripped.flat" 2>/dev/null
delta=$(readelf -lW "$EXPORT" | awk '$1 == "LOAD" && / R?W?E / { print $3, $2; exit }')
delta=$(( ${delta% *} - ${delta#* } ))
bad=$(awk -v delta="$delta" '
	function hex(s,   i, v) { v = 0; s = tolower(s); sub(/^0x/, "", s)
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v }
	NR == FNR { a[++k] = hex($1); z[k] = hex($2); n["sub_" $1 "@split-stripped"] = 1; next }
	!/^ +[0-9.]+% +[0-9.]+% +[0-9]+ / { next }
	$4 ~ /^sub_.*@split-stripped$/ && !($4 in n) { print $4 }
	$4 ~ /^split-stripped\+0x/ { off = hex(substr($4, 16)) + delta
		for (j = 1; j <= k; j++) if (off >= a[j] && off < a[j] + z[j]) print $4 }' \
	"$WORK/syms" "$WORK/stripped.flat" | head -3 | tr '\n' ' ')
rows=$(grep -c '^ *[0-9.]*% .* sub_[0-9a-f]*@split-stripped$' "$WORK/stripped.flat")
check "split stripped: its $rows rows are functions at their symbol's address, sub_HEX@split-stripped${bad:+ (not: $bad)}" \
	[ -z "$bad" -a "$rows" -ge 5 ]
# ... holding its true share, self and callees (total) ...
for f in work_a work_b work_c; do
	got=$(awk -v f="$f" 'NR == FNR { if ($3 == f) n = "sub_" $1 "@split-stripped"; next }
		$4 == n { sub("%", "", $2); print $2 }' "$WORK/syms" "$WORK/stripped.flat")
	want=$(truth_of "$f" "$WORK/stripped.out")
	check "split stripped, flat: $f's row totals ${got:-none}% against the true ${want:-none}% (within $SHARE_POINTS points)" \
		awk -v g="${got:--100}" -v w="${want:--100}" -v m=$SHARE_POINTS 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= m) }'
done
# ... annotated over its FDE's range, the function's bytes as nm has them ...
set -- $(awk '$3 == "work_a" { print $1, $2 }' "$WORK/syms")
"$KPROF" annotate -i "$WORK/stripped.kprof" "sub_$1@split-stripped" >"$WORK/stripped.ann" 2>&1
range=$(printf '0x%x-0x%x (%d bytes)' "0x$1" $((0x$1 + 0x$2)) $((0x$2)))
check "split stripped: annotate sub_$1@split-stripped (work_a) disassembles $range" \
	sh -c "grep -q '^## sub_$1@split-stripped in .*, $range' '$WORK/stripped.ann' &&
		grep -q '^[ 0-9.%]* $1: ' '$WORK/stripped.ann'"
# ... and --stats counts its frames as named by their FDE, not as unnamed
set -- $(sed -n 's/^#   [^ ]*\/split-stripped: \([0-9]*\) frames, \([0-9]*\) unnamed, \([0-9]*\) named by their unwind table.s FDE.*/\1 \2 \3/p' \
	"$WORK/stripped.flat")
check "split stripped, --stats: ${3:-no} of its ${1:-0} frames named by their FDE (over 90%), ${2:-?} unnamed (under 1%)" \
	awk -v n="${1:-0}" -v u="${2:-1}" -v f="${3:-0}" 'BEGIN { exit !(n > 0 && f * 10 > n * 9 && u * 100 < n) }'

# --- a binary without CFI: the stacks stop in it, and the recording says so ---------------
strip --strip-all -o "$WORK/noframe" "$NOFRAME" # also the .debug_frame that -g leaves
"$KPROF" record --call-graph dwarf -o "$WORK/nocfi.kprof" -- "$WORK/noframe" 0.5 >/dev/null 2>"$WORK/nocfi.rec"
check "no CFI: the recorder's summary says the stacks stop early" \
	grep -q "^kprof: warning: [0-9.]*% of [0-9]* DWARF stacks stop before their thread's entry: .*no usable CFI" "$WORK/nocfi.rec"
check "...and names the binary" grep -q "^kprof: warning: they stop in [^ ]*/noframe: " "$WORK/nocfi.rec"
check "...with the fix" grep -q "^hint: .*-dbgsym.*noframe" "$WORK/nocfi.rec"
"$KPROF" report -i "$WORK/nocfi.kprof" --tree >"$WORK/nocfi.tree" 2>/dev/null
check "no CFI: the report's header says it in its first lines" \
	sh -c "head -4 '$WORK/nocfi.tree' | grep -q '^# warning: [0-9.]*% of [0-9]* DWARF stacks stop before'"
"$KPROF" report -i "$WORK/nocfi.kprof" --flat --stats >"$WORK/nocfi.stats" 2>/dev/null
check "no CFI: --stats breaks the stops down by binary" \
	grep -q "^#     [^ ]*/noframe: [0-9]* stack copy too small, [1-9][0-9]* no usable CFI" "$WORK/nocfi.stats"
# (its start-up code, from crt1.o, has FDEs: a sample there may name such a function)
starts=$(readelf --debug-dump=frames "$WORK/noframe" | awk '$4 == "FDE" { v = substr($6, 4); sub(/\.\..*/, "", v); sub(/^0+/, "", v); printf " %s", v }')
bad=$(awk -v starts="$starts " '/^ +[0-9.]+% +[0-9.]+% +[0-9]+ / && $NF ~ /@noframe$/ {
		v = $NF; sub(/^sub_/, "", v); sub(/@noframe$/, "", v); if (index(starts, " " v " ") == 0) print $NF }' \
	"$WORK/nocfi.stats" | head -3 | tr '\n' ' ')
top=$(awk '/^ +[0-9.]+% +[0-9.]+% +[0-9]+ / && $NF ~ /noframe/ { print $NF; exit }' "$WORK/nocfi.stats")
check "no CFI: its hottest frame keeps its offset ($top), and no FDE names code outside one${bad:+ ($bad)}" \
	sh -c "echo '$top' | grep -q '^noframe+0x[0-9a-f]*\$' && [ -z '$bad' ]"
"$KPROF" report -i "$WORK/nocfi.kprof" --folded >/dev/null 2>"$WORK/nocfi.err"
check "no CFI: folded output says it on stderr" grep -q "^kprof: warning: .*stop before their thread's entry" "$WORK/nocfi.err"
# its CFI in a separate debug file beside it, as a -dbgsym package gives it: whole stacks again
mkdir -p "$WORK/dbg"
objcopy --only-keep-debug "$NOFRAME" "$WORK/dbg/noframe.debug"
objcopy --strip-all --add-gnu-debuglink="$WORK/dbg/noframe.debug" "$NOFRAME" "$WORK/dbg/noframe"
"$KPROF" record --call-graph dwarf -o "$WORK/dbg.kprof" -- "$WORK/dbg/noframe" 0.5 >/dev/null 2>"$WORK/dbg.rec"
"$KPROF" report -i "$WORK/dbg.kprof" --folded >"$WORK/dbg.folded" 2>/dev/null
m=$(reach_main_from "$WORK/dbg.folded" '^spin')
check "no CFI but a debug file's .debug_frame: stacks through spin() reach main in $m% (at least 99)" at_least "$m" 99
check "...through spin(), named from the debug file" grep -q ";main;spin[^;]* [0-9]*\$" "$WORK/dbg.folded"
check "...and nothing is said to be truncated" sh -c "! grep -q 'stop before' '$WORK/dbg.rec'"
"$KPROF" report -i "$WORK/stripped.kprof" --tree 2>/dev/null | head -5 >"$WORK/whole.head"
check "whole stacks: no such warning" sh -c "! grep -q 'stop before' '$WORK/whole.head'"

done_testing
