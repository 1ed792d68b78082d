#!/bin/sh
# Live: --call-graph dwarf on code built without frame pointers: stacks unwound from the copied
# registers and user stack reach main, keep the two paths apart, and split as the truth does;
# the same binary with -g (frame pointers) does not, which shows the test can fail.
. "$top_srcdir/tests/live/lib.sh"
require_perf_events
NOFP="$top_builddir/tests/workloads/split-nofp"

reach_main() { # FOLDED: the share of samples whose stack holds main
	awk '{ t += $NF; if ($0 ~ /;main;/) m += $NF } END { printf "%.2f", t ? 100 * m / t : 0 }' "$1"
}

"$KPROF" record --call-graph dwarf -o "$WORK/d.kprof" -- "$NOFP" 1 >/dev/null 2>"$WORK/d.err"
check "record --call-graph dwarf succeeds" [ $? -eq 0 ]
"$KPROF" report -i "$WORK/d.kprof" --folded >"$WORK/d.folded"
m=$(reach_main "$WORK/d.folded")
check "DWARF-unwound stacks reach main in ${m}% of samples (at least 99)" \
	awk -v m="$m" 'BEGIN { exit !(m >= 99) }'
check "work_a through via_left is its own stack" grep -q ";main;via_left;work_a [0-9]*\$" "$WORK/d.folded"
check "work_a through via_right is its own stack" grep -q ";main;via_right;work_a [0-9]*\$" "$WORK/d.folded"
"$KPROF" report -i "$WORK/d.kprof" --flat --color never >"$WORK/d.flat"
for fw in work_a:60 work_b:30 work_c:10; do
	f=${fw%:*}; want=${fw#*:}
	got=$(awk -v f="$f" '$NF == f { sub("%", "", $1); print $1; exit }' "$WORK/d.flat")
	check "$f: self ${got:-none}% against the true $want% (within 2 points)" \
		awk -v g="${got:-0}" -v w="$want" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= 2) }'
done

# clock_gettime runs in the vDSO: its frames are named, and unwinding goes on through them
v=$(grep -c "__vdso_clock_gettime" "$WORK/d.folded")
if [ "$v" -gt 0 ]; then
	check "vDSO frames are named and unwound through to main ($v stacks)" \
		sh -c "! grep '__vdso_clock_gettime' '$WORK/d.folded' | grep -vq ';main;cpu_ns;'"
else
	skip "no sample fell in the vDSO this time"
fi
"$KPROF" report -i "$WORK/d.kprof" --flat --stats >"$WORK/d.stats"
failed=$(sed -n 's/^# DWARF unwinding: [0-9]* samples with a stack copy, \([0-9]*\) .*/\1/p' "$WORK/d.stats")
check "--stats counts the stacks that did not unwind (${failed:-none}, under 1%)" \
	[ -n "$failed" -a "${failed:-40}" -lt 40 ]
"$KPROF" record -g -o "$WORK/f.kprof" -- "$NOFP" 1 >/dev/null 2>&1
"$KPROF" report -i "$WORK/f.kprof" --folded >"$WORK/f.folded"
m=$(reach_main "$WORK/f.folded")
check "with -g alone the same binary's stacks are broken: ${m}% reach main" \
	awk -v m="$m" 'BEGIN { exit !(m < 50) }'

# a 200-deep recursion with a 64 KiB copy unwinds to the bottom; threads unwind to their start
WORK_NOFP="$top_builddir/tests/workloads/work-nofp"
"$KPROF" record --call-graph dwarf,65528 -o "$WORK/deep.kprof" -- "$WORK_NOFP" deep 1500 200 >/dev/null 2>&1
"$KPROF" report -i "$WORK/deep.kprof" --folded >"$WORK/deep.folded"
m=$(reach_main "$WORK/deep.folded")
depth=$(awk -F';' '{ if (NF > d) d = NF } END { print d + 0 }' "$WORK/deep.folded")
check "a 200-deep recursion is unwound to main in ${m}% of samples ($depth frames deep)" \
	awk -v m="$m" -v d="$depth" 'BEGIN { exit !(m >= 99 && d > 200) }'
"$KPROF" record --call-graph dwarf -o "$WORK/thr.kprof" -- "$WORK_NOFP" threads 2 1000 >/dev/null 2>&1
"$KPROF" report -i "$WORK/thr.kprof" --folded >"$WORK/thr.folded"
t=$(awk '{ t += $NF; if ($0 ~ /;(thread_main|main);/) m += $NF } END { printf "%.2f", t ? 100 * m / t : 0 }' "$WORK/thr.folded")
check "two threads unwind to their start (thread_main or main) in ${t}% of samples" \
	awk -v m="$t" 'BEGIN { exit !(m >= 99) }'

"$KPROF" record --call-graph dwarf,4096 -o "$WORK/s.kprof" -- "$NOFP" 0.2 >/dev/null 2>&1
check "--call-graph dwarf,4096 records" sh -c "'$KPROF' script -i '$WORK/s.kprof' --stats | grep -q '^# samples: [1-9]'"
"$KPROF" record --call-graph dwarf -o "$WORK/ch.kprof" -- "$WORK_NOFP" children 2 1000 >/dev/null 2>&1
"$KPROF" report -i "$WORK/ch.kprof" --folded >"$WORK/ch.folded"
c=$(awk '{ t += $NF; if ($0 ~ /;children;/) m += $NF } END { printf "%.2f", t ? 100 * m / t : 0 }' "$WORK/ch.folded")
check "forked children unwind through their parent's image to children() in ${c}% of samples" \
	awk -v m="$c" 'BEGIN { exit !(m >= 95) }'

# a copy too small for the recursion: the stacks end early, and --stats says why
"$KPROF" record --call-graph dwarf,512 -o "$WORK/small.kprof" -- "$WORK_NOFP" deep 500 200 >/dev/null 2>&1
"$KPROF" report -i "$WORK/small.kprof" --flat --stats >"$WORK/small.stats"
n=$("$KPROF" script -i "$WORK/small.kprof" | grep -c " cpu-clock: ")
c=$(sed -n 's/^#   stacks that ended early: \([0-9]*\) needed more than the stack copy.*/\1/p' "$WORK/small.stats")
check "with a 512-byte copy, --stats says the copy ran out (${c:-none} of $n stacks)" \
	[ "${c:-0}" -gt $((n * 9 / 10)) ]
"$KPROF" record --call-graph dwarf,100 -o "$WORK/x.kprof" -- true >/dev/null 2>&1
check "a stack size that is not a multiple of 8 is a usage error" [ $? -eq 2 ]
"$KPROF" record --call-graph lbr -o "$WORK/x.kprof" -- true >/dev/null 2>"$WORK/x.err"
check "an unknown call-graph mode names the known ones" grep -q "known: fp, dwarf" "$WORK/x.err"

done_testing
