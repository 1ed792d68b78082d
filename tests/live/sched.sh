#!/bin/sh
# Live: the scheduler's view, held to the workloads' own clocks.
# report --latency on tests/workloads/phases (one() on 1 thread, then four() on 4 threads at
# once, the same CPU time): the latency-weighted share of one() against four() is the ratio of
# the time some thread of each phase ran (the union of its threads' stretches on a CPU, from
# their own checkpoints) within 5%, where the CPU profile's is their CPU times' (the 1-thread
# phase weighs as many times more as the 4 threads ran at once: 2 on 2 idle CPUs, 4 on 4);
# --stats' histogram gives the time 2 threads or more ran at once as the workload's sweep does;
# and a recording without switch records is refused.
KPROF_PRIVATE_MOUNTS=1 # the tracepoints may mount tracefs: keep that mount inside this test
. "$top_srcdir/tests/live/lib.sh"
require_perf_events

val() { sed -n "s/^$2=//p" "$1" | head -1; }
# weight FOLDED FUNC: the weight of the folded stacks through FUNC
weight() { awk -v f="$2" '{ s = ";" $0; sub(/ [0-9.]+$/, ";", s) } index(s, ";" f ";") { w += $NF } END { print w + 0 }' "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b }'; }

# --- report --latency ------------------------------------------------------------------------
P="$top_builddir/tests/workloads/phases"
"$KPROF" record --latency -g -o "$WORK/ph.kprof" -- "$P" >"$WORK/ph.out" 2>"$WORK/ph.err"
check "record --latency succeeds, saying how many switch records it took" \
	grep -q "^kprof: latency: [1-9][0-9]* switch records" "$WORK/ph.err"
"$KPROF" report -i "$WORK/ph.kprof" --latency --folded >"$WORK/lat.folded" 2>/dev/null
"$KPROF" report -i "$WORK/ph.kprof" --folded >"$WORK/cpu.folded" 2>/dev/null
got=$(ratio "$(weight "$WORK/lat.folded" one)" "$(weight "$WORK/lat.folded" four)")
want=$(ratio "$(val "$WORK/ph.out" one_run_ns)" "$(val "$WORK/ph.out" four_run_ns)")
check "--latency: one() on 1 thread weighs ${got:-nothing} times four() on 4, the ratio of the time each phase ran ($want, the threads' own clocks; 5%)" \
	within 5 "$got" "$want"
cgot=$(ratio "$(weight "$WORK/cpu.folded" one)" "$(weight "$WORK/cpu.folded" four)")
cwant=$(ratio "$(val "$WORK/ph.out" one_cpu_ns)" "$(val "$WORK/ph.out" four_cpu_ns)")
check "... where CPU time weighs one() ${cgot:-nothing} times four(), their CPU times' $cwant (5%)" \
	within 5 "$cgot" "$cwant"
"$KPROF" report -i "$WORK/ph.kprof" --latency --stats --flat >"$WORK/lat.stats" 2>&1
check "--latency's header says how the samples are weighed" \
	grep -q "divided by the threads of its process then running (--latency)" "$WORK/lat.stats"
# the time with 2 threads or more at once: only four() has them
got=$(awk '/^#  +[0-9]+\+? threads?: / { n = $2; sub(/\+/, "", n); if (n >= 2) s += $4 } END { printf "%.4f", s }' "$WORK/lat.stats")
want=$(sed -n 's/^par_\([0-9]*\)_ns=//p' "$WORK/ph.out" | awk '{ s += $1 } END { print s + 0 }')
want=$(awk -v o="$(val "$WORK/ph.out" par_1_ns)" -v a="$want" 'BEGIN { printf "%.4f", (a - o) / 1e9 }')
check "--stats: ${got:-no} s with 2 threads or more running, the workload's sweep $want s (5% or 2 ms)" \
	awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(g != "" && (d <= 0.002 || d <= 0.05 * w)) }'
"$KPROF" record -g -o "$WORK/plain.kprof" -- "$P" 5 1 >/dev/null 2>&1
"$KPROF" report -i "$WORK/plain.kprof" --latency >"$WORK/nolat" 2>"$WORK/nolat.err"
check "--latency of a recording without switch records fails (status $?), saying how to record one" \
	sh -c "[ $? -eq 1 ] && [ ! -s '$WORK/nolat' ] && grep -q 'hint: record with: kprof record --latency' '$WORK/nolat.err'"
"$KPROF" report -i "$WORK/ph.kprof" --latency --weight samples >/dev/null 2>"$WORK/lat.usage"
check "--latency with --weight samples is a usage error ($?)" \
	sh -c "[ $? -eq 2 ] && grep -q -- '--latency divides each sample' '$WORK/lat.usage'"

done_testing
