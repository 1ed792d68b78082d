#!/bin/sh
# Live: the two unwinders of `--unwinder` (libdw, libunwind) on the same --keep-stacks
# recordings: each reaches main, the two agree sample by sample, and both pass a function
# without CFI through its frame pointer.
. "$top_srcdir/tests/live/lib.sh"
require_perf_events
NOFP="$top_builddir/tests/workloads/split-nofp"
NOCFI="$top_builddir/tests/workloads/nocfi"
LIBS="libdw libunwind"

at_least() { awk -v g="$1" -v w="$2" 'BEGIN { exit !(g >= w) }'; }

"$KPROF" record --call-graph dwarf --keep-stacks -o "$WORK/d.kprof" -- "$NOFP" 1 >/dev/null 2>&1
check "record --call-graph dwarf --keep-stacks succeeds" [ $? -eq 0 ]
for lib in $LIBS; do
	"$KPROF" report -i "$WORK/d.kprof" --unwinder "$lib" --folded --stats \
		>"$WORK/$lib.folded" 2>"$WORK/$lib.stats"
	check "$lib: report succeeds" [ $? -eq 0 ]
	m=$(reach_main "$WORK/$lib.folded")
	check "$lib: stacks reach main in ${m}% of samples (at least 99)" at_least "$m" 99
	check "$lib: work_a through via_left is its own stack" \
		grep -q ";main;via_left;work_a [0-9]*\$" "$WORK/$lib.folded"
	n=$(sed -n 's/^# DWARF unwinding: \([0-9]*\) samples with a stack copy.*/\1/p' \
		"$WORK/$lib.stats")
	check "$lib: --stats counts the samples it unwound (${n:-none})" [ "${n:-0}" -gt 1000 ]
	check "$lib: --stats says why stacks ended early" \
		grep -q "^#   stacks that stopped before their thread.s entry: " "$WORK/$lib.stats"
	"$KPROF" script -i "$WORK/d.kprof" --raw --unwinder "$lib" >"$WORK/$lib.all"
	check "$lib: script succeeds" [ $? -eq 0 ]
	grep " cpu-clock: " "$WORK/$lib.all" >"$WORK/$lib.script"
done

# the same samples in the same order, line by line: a line is the same when its chain is
agree=$(awk 'NR == FNR { a[FNR] = $0; n = FNR; next }
	{ m = FNR; if (a[FNR] == $0) same++ }
	END { printf "%.2f %d %d", (n == m && n) ? 100 * same / n : 0, n, m }' \
	"$WORK/libdw.script" "$WORK/libunwind.script")
set -- $agree
check "libdw and libunwind give the same stack for $1% of $2 samples (at least 99)" \
	sh -c "[ '$2' -eq '$3' ] && [ '$2' -gt 1000 ] && awk 'BEGIN { exit !($1 >= 99) }'"
for lib in $LIBS; do
	deep=$(awk 'sub(/.*\[user\]/, "") && NF > 3 { d++ }
		END { printf "%.2f", NR ? 100 * d / NR : 0 }' "$WORK/$lib.script")
	check "$lib: script shows more than 3 user frames for ${deep}% of samples (at least 90)" \
		at_least "$deep" 90
done

# nocfi_spin has a frame pointer and no CFI: the check that it is so can fail too
"$KPROF" record --call-graph dwarf --keep-stacks -o "$WORK/n.kprof" -- "$NOCFI" 1 >/dev/null 2>&1
check "record of the no-CFI workload succeeds" [ $? -eq 0 ]
if command -v readelf >/dev/null; then
	addr=$(readelf -sW "$NOCFI" | awk '$NF == "nocfi_spin" { print $2; exit }')
	fdes=0 covered=0
	for r in $(readelf -wf "$NOCFI" 2>/dev/null |
		sed -n 's/.* FDE .*pc=\([0-9a-f]*\)\.\.\([0-9a-f]*\).*/\1:\2/p'); do
		fdes=$((fdes + 1))
		[ $((0x${addr:-0})) -ge $((0x${r%:*})) ] && [ $((0x${addr:-0})) -lt $((0x${r#*:})) ] &&
			covered=$((covered + 1))
	done
	check "nocfi_spin (0x${addr:-?}) is in none of the $fdes FDEs of .eh_frame and .debug_frame" \
		[ -n "$addr" -a "$fdes" -gt 0 -a "$covered" -eq 0 ]
else
	skip "readelf is not installed"
fi
for lib in $LIBS; do
	"$KPROF" report -i "$WORK/n.kprof" --unwinder "$lib" --folded >"$WORK/n-$lib.folded"
	check "$lib: report of the no-CFI workload succeeds" [ $? -eq 0 ]
	through=$(awk '/;nocfi_spin( |;)/ { n += $NF; if (/;main;outer;nocfi_spin( |;)/) t += $NF }
		END { printf "%.2f %d", n ? 100 * t / n : 0, n }' "$WORK/n-$lib.folded")
	set -- $through
	check "$lib: $1% of $2 samples in or under nocfi_spin unwind through it to main (min 99)" \
		sh -c "[ '$2' -gt 1000 ] && awk 'BEGIN { exit !($1 >= 99) }'"
	check "$lib: samples in nocfi_spin itself and in inner below it" sh -c \
		"grep -q ';nocfi_spin [0-9]*\$' '$WORK/n-$lib.folded' &&
		 grep -q ';nocfi_spin;inner [0-9]*\$' '$WORK/n-$lib.folded'"
done

"$KPROF" report -i "$WORK/d.kprof" --unwinder frobnicate >/dev/null 2>"$WORK/bad.err"
check "an unknown --unwinder is a usage error" [ $? -eq 2 ]
check "the error names the known unwinders" grep -q "known: libdw, libunwind" "$WORK/bad.err"

done_testing
