#!/bin/sh
# Live: the scheduler's view, held to the workloads' own clocks and to perf sched.
# report --latency on tests/workloads/phases (one() on 1 thread, then four() on 4 threads at
# once, the same CPU time): one() weighs as many times more against four() in the latency
# profile than in the CPU profile as four()'s threads ran at once (2 on 2 idle CPUs, 4 on 4),
# by the time some thread of each phase ran (the union of its threads' stretches on a CPU,
# from their own checkpoints) and their CPU times, within 10%;
# --stats' histogram gives the time 2 threads or more ran at once as the workload's sweep does;
# and a recording without switch records is refused.
# kprof sched (root) on tests/workloads/pinned (a CPU hog and a sleeper pinned to one CPU):
# timehist -s gives the hog's run time and its CPU time, its scheduling delay and its wall time
# less its CPU time (it never sleeps), the sleeper's run time and CPU time, its sleep and its
# clock around its sleeps, each within 5%; on the same recording converted to perf.data, perf
# sched latency's switches, average and longest delay are latency's, perf sched timehist's
# lines of both tasks timehist's (time, CPU, task, wait, run; perf 6.1 counts no delay after a
# preemption there), and perf sched map's grid map's; and the usage errors.
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
lat=$(ratio "$(weight "$WORK/lat.folded" one)" "$(weight "$WORK/lat.folded" four)")
cpu=$(ratio "$(weight "$WORK/cpu.folded" one)" "$(weight "$WORK/cpu.folded" four)")
got=$(ratio "$lat" "$cpu")
want=$(ratio "$(ratio "$(val "$WORK/ph.out" one_run_ns)" "$(val "$WORK/ph.out" four_run_ns)")" \
	"$(ratio "$(val "$WORK/ph.out" one_cpu_ns)" "$(val "$WORK/ph.out" four_cpu_ns)")")
# (the ratio of the two profiles, not the latency weights alone: cpu-clock's samples and the
# threads' CPU clocks part by a few % on a loaded VM, alike in both profiles)
# (10%: beside other load the switch records and the samples of four()'s threads part from
# their clocks by up to 7% more, measured 1.155 against 1.082 once; 1 thread against 2 still
# part by 50%)
check "--latency: one() on 1 thread against four() on 4 weighs ${got:-no} times what it weighs in the CPU profile ($lat against $cpu), four()'s threads running ${want:-no} at once by their own clocks (10%)" \
	within 10 "$got" "$want"
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

# --- kprof sched -----------------------------------------------------------------------------
if [ "$(id -u)" -ne 0 ]; then
	skips 11 "kprof sched records tracepoints of every CPU: root"
	done_testing
	exit
fi
W="$top_builddir/tests/workloads/pinned"
"$KPROF" sched timehist -S -o "$WORK/s.kprof" -- "$W" >"$WORK/s.out" 2>"$WORK/s.err"
check "sched timehist -S -o records every CPU while the command runs ($?)" \
	sh -c "grep -q '^hog_tid=' '$WORK/s.out' && [ -s '$WORK/s.kprof' ]"
hog=$(val "$WORK/s.out" hog_tid) sl=$(val "$WORK/s.out" sleeper_tid)
# summary TID COLUMN: a column of timehist's summary row of TID, ms as ns (columns: 2 runs,
# 3 run time, 4 longest run, 5 sleep, 6 iowait, 7 preempted, 8 delays, 9 delay, 10 longest,
# 11 unsure: around the task's switch-ins that were not recorded, where the run time may
# count that much too much and the waits and delays that much too little)
summary() {
	awk -v t="$1" -v c="$2" '$1 ~ "\\[" t "/" && NF == 11 { printf "%.0f", $c * 1e6 }' "$WORK/s.out"
}
# holds TID COLUMN WANT WHAT: WANT is within 5% of the column, given what is unsure
holds() {
	u=$(summary "$1" 11) g=$(summary "$1" "$2")
	if [ "$2" = 3 ]; then
		check "$4: $g ns, and $u ns unsure, against the clock's $3 ns (5%)" covers 5 "$((g - u))" "$u" "$3"
	else
		check "$4: $g ns, and $u ns unsure, against the clock's $3 ns (5%)" covers 5 "$g" "$u" "$3"
	fi
}
hog_cpu=$(val "$WORK/s.out" hog_cpu_ns)
holds "$hog" 3 "$hog_cpu" "the hog's run time, its CPU clock"
# the hog's last wait may come after its clock stopped, on the way to its exit, where a busy
# machine's other tasks preempt it: that wait (its last line's sch delay) is unsure
last=$(awk -v t="$hog" '$3 ~ "\\[" t "/" && NF == 6 { d = $5 } END { printf "%.0f", d * 1e6 }' "$WORK/s.out")
g=$(summary "$hog" 9) u=$(summary "$hog" 11) want=$(( $(val "$WORK/s.out" hog_wall_ns) - hog_cpu ))
check "the hog's scheduling delay, its wall time less its CPU time: $g ns, and $u ns unsure and its last wait $last ns, against the clock's $want ns (5%)" \
	covers 5 "$((g - last))" "$((u + last))" "$want"
holds "$sl" 3 "$(val "$WORK/s.out" sleeper_cpu_ns)" "the sleeper's run time, its CPU clock"
holds "$sl" 5 "$(val "$WORK/s.out" sleeper_sleep_ns)" "the sleeper's sleep, its clock around its sleeps"
"$KPROF" sched latency -i "$WORK/s.kprof" >"$WORK/lat.out" 2>"$WORK/lat.err"
"$KPROF" sched map -i "$WORK/s.kprof" >"$WORK/map.out" 2>"$WORK/map.err"
if command -v perf >/dev/null 2>&1 && "$KPROF" convert --to perf -i "$WORK/s.kprof" -o "$WORK/s.data" >/dev/null 2>&1; then
	perf sched latency -i "$WORK/s.data" >"$WORK/plat.out" 2>/dev/null
	perf sched timehist -i "$WORK/s.data" >"$WORK/pth.out" 2>/dev/null
	perf sched map -i "$WORK/s.data" >"$WORK/pmap.out" 2>/dev/null
	# lat OUT NAME: the switches, average and longest delay and when, of NAME's row
	lat() { awk -v n="$2:" 'index($1, n) == 1 { sub(/^[^|]*\|[^|]*\|/, ""); print }' "$1"; }
	for t in kp-hog kp-sleeper; do
		k=$(lat "$WORK/lat.out" $t) p=$(lat "$WORK/plat.out" $t)
		check "perf sched latency of the same events: $t's switches and delays are latency's (${k%%|*}|${k#*|})" \
			[ -n "$k" ] && [ "$k" = "$p" ]
	done
	# the workload's lines of perf's timehist (time, CPU, task, wait, run) found in kprof's:
	# perf 6.1 loses a task at its exit (":-1[-1/PID]": its last line), and counts no delay
	# after a preemption; its lines of other tasks differ by their names where the recording
	# has no COMM of them (kprof takes sched_switch's prev_comm) or they exited
	rows() { awk -v a="[$hog/" -v b="[$sl/" 'NR > 3 && NF >= 6 && (index($3, a) || index($3, b)) { print $1, $2, $3, $4, $6 }' "$1" | sort; }
	rows "$WORK/pth.out" >"$WORK/pth.rows"
	rows "$WORK/s.out" >"$WORK/th.rows"
	n=$(wc -l <"$WORK/pth.rows") missing=$(comm -23 "$WORK/pth.rows" "$WORK/th.rows" | wc -l)
	check "perf sched timehist: its $n lines of the hog and the sleeper (time, CPU, task, wait, run) are timehist's, $missing missing" \
		sh -c "[ $n -gt 10 ] && [ $missing -eq 0 ]"
	# the map's grid (which task each CPU runs, switch by switch): perf names a task again
	# after some exits and COMM records
	squeeze() { sed 's/ *$//; s/  */ /g; s/ secs .*/ secs/' "$1"; }
	squeeze "$WORK/map.out" >"$WORK/map.sq"
	squeeze "$WORK/pmap.out" >"$WORK/pmap.sq"
	check "perf sched map: its $(wc -l <"$WORK/pmap.sq") lines are map's (the task on each CPU by its short name)" \
		cmp -s "$WORK/map.sq" "$WORK/pmap.sq"
else
	skips 4 "perf is not installed, or the recording does not convert"
fi

"$KPROF" sched >/dev/null 2>"$WORK/e1"; r1=$?
"$KPROF" sched nosuch -i "$WORK/s.kprof" >/dev/null 2>"$WORK/e2"; r2=$?
"$KPROF" sched latency -s -i "$WORK/s.kprof" >/dev/null 2>"$WORK/e3"; r3=$?
"$KPROF" sched map -i "$WORK/s.kprof" -- true >/dev/null 2>"$WORK/e4"; r4=$?
check "usage errors, status 2: no view ($r1), an unknown one ($r2), another view's option ($r3), -i with a command ($r4)" \
	sh -c "[ $r1 -eq 2 ] && [ $r2 -eq 2 ] && [ $r3 -eq 2 ] && [ $r4 -eq 2 ] &&
		grep -q 'record, latency, timehist or map' '$WORK/e1' && grep -q \"no view 'nosuch'\" '$WORK/e2'"
"$KPROF" sched latency -i "$WORK/ph.kprof" >"$WORK/nosw" 2>"$WORK/nosw.err"
check "a recording without sched:sched_switch fails (status $?), saying how to record one" \
	sh -c "[ $? -eq 1 ] && grep -q 'has no sched:sched_switch events' '$WORK/nosw.err' && grep -q 'hint: record them with: kprof sched record' '$WORK/nosw.err'"

done_testing
