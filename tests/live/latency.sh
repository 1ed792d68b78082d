#!/bin/sh
# Live: kprof latency against tests/workloads/syscalls' own clocks: a uprobe/uretprobe pair on
# spin_for() (200 us 30 times, 1 ms 10 times) and the nanosleep tracepoints (1, 5 and 20 ms):
# counts exact, p50, p90, p99 and max between what the calls were asked to take and what the
# workload's clocks around them measured (5% or 50 us more), the slowest's call
# chain, the flame graph's total; block I/O of dd keyed by dev,sector and run-queue latency
# keyed by pid/next_pid (-a) as runqlat measures it: from a wakeup or a preemption to the run,
# by the task that waited (never the idle task, swapper); one event as START and END (the
# time off the CPU); a kernel lock's contention (--pair lock: a thread waits 10 ms for a pipe's
# mutex that another holds, 5 times): 5 waits, each inside the waiter's clock around it, the longest within 5%,
# with their waiting stack; --linear, --by, -o/-i; a SIGKILL mid-run leaves nothing in
# $TMPDIR; what a pair that never paired says (an event that never fired, the system call glibc makes
# instead, -a for ENDs in interrupts, the key), status 1; and the errors of a bad key or --by
# field, an unknown event (status 2), an --svg that cannot be written (before anything runs),
# and of a recording without the pair's events.
KPROF_PRIVATE_MOUNTS=1 # tracepoints may mount tracefs: keep that mount inside this test
. "$top_srcdir/tests/live/lib.sh"
require_perf_events
[ "$(id -u)" -eq 0 ] || skip_all "tracepoints and probes need root"

W="$top_builddir/tests/workloads/syscalls"
val() { sed -n "s/^$2=//p" "$1" | head -1; }
# pct LIST P: the P-th percentile of a comma-separated sorted list, nearest rank
pct() { echo "$1" | tr , '\n' | awk -v p="$2" '{ v[NR] = $1 } END { r = int(p / 100 * NR + 0.999999999); if (r < 1) r = 1; print v[r] }'; }
# reported OUT NAME: kprof's figure NAME (p50, p90, p99, max) in ns
reported() {
	sed -n "s/.* $2 \([0-9.]*\) \(ms\|us\).*/\1 \2/p" "$1" | awk '{ print ($2 == "ms" ? $1 * 1e6 : $1 * 1e3) }'
}
# between GOT LO HI: LO - 10 us <= GOT <= HI + 5% or 50 us, whichever is larger. A call takes at
# least what it was asked (LO); the workload's clocks around it (HI) also hold the time before
# the probe or tracepoint fires and after the return, which a preemption on a busy machine
# lengthens, so kprof's figure may be well below HI, never above it
between() { awk -v g="$1" -v lo="$2" -v hi="$3" 'BEGIN { t = hi * 0.05; if (t < 50000) t = 50000
	exit !(g != "" && g >= lo - 10000 && g <= hi + t) }'; }
pairs() { sed -n 's/.*: \([0-9]*\) pairs of .*/\1/p' "$1"; }
# follow OUT: the histogram of OUT has rows "[lo, hi) : count", each lo the hi of the row before,
# so that no duration is in two rows (bpftrace's labels; the last of --linear may be "[lo, ...)")
follow() {
	awk '/^ *\[[0-9]+, ([0-9]+|\.\.\.)\) : / { lo = $1; hi = $2; gsub(/[[,]/, "", lo); sub(/\)/, "", hi)
		if (n++ && lo != prev) bad = 1; prev = hi } END { exit !(n && !bad) }' "$1"
}

# holds TAG OUT LIST: kprof's percentiles of OUT against the workload's lists LIST_ns (what its
# clocks measured) and LIST_asked_ns (what the calls were asked to take)
holds() {
	for p in p50 p90 p99 max; do
		q=${p#p}; [ "$p" = max ] && q=100
		got=$(reported "$2" $p)
		lo=$(pct "$(val "$2" "$3_asked_ns")" "$q") hi=$(pct "$(val "$2" "$3_ns")" "$q")
		check "$1: $p ${got:-none} ns, between the $lo ns asked and the workload's $hi ns (5% or 50 us)" \
			between "$got" "$lo" "$hi"
	done
}

# --- a function under a uprobe and a uretprobe: what funclatency does --------------------
"$KPROF" latency --pair "uprobe:$W:spin_for/uretprobe:$W:spin_for" --top 3 --svg "$WORK/u.svg" \
	-- "$W" >"$WORK/u.out" 2>"$WORK/u.err"
check "latency of spin_for (uprobe/uretprobe) succeeds" grep -q "pairs of uprobe:" "$WORK/u.out"
check "40 pairs, the workload's 40 calls ($(pairs "$WORK/u.out")), keyed by tid and nested" \
	sh -c "[ '$(pairs "$WORK/u.out")' = 40 ] && grep -q 'keyed by tid (an END closes its thread' '$WORK/u.out'"
holds spin_for "$WORK/u.out" spins
chain=$(awk '/^# the 3 slowest/ { s = 1; next } s && /^        / { print $1 }' "$WORK/u.out" | head -2 | paste -sd' ' -)
check "the slowest spin_for's call chain, leaf first: ${chain:-none}" [ "$chain" = "spin_for main" ]
check "the log2 histogram's rows are [lo, hi) us, each starting where the one before ended" \
	follow "$WORK/u.out"
total=$(sed -n 's/.*data-total="\([0-9]*\)".*/\1/p' "$WORK/u.svg" | head -1)
sum=$(val "$WORK/u.out" spins_ns | tr , '\n' | awk '{ s += $1 } END { print s }')
asked=$(val "$WORK/u.out" spins_asked_ns | tr , '\n' | awk '{ s += $1 } END { print s }')
check "--svg: a flame graph of the STARTs weighted by duration, ${total:-no} ns in all, between the $asked ns asked and the spins' $sum ns" \
	between "${total:-0}" "$asked" "$sum"
check "...well-formed" xmllint --noout "$WORK/u.svg"

# --- a system call's two tracepoints ----------------------------------------------------------
"$KPROF" latency --pair syscalls:sys_enter_nanosleep/syscalls:sys_exit_nanosleep --linear 1000 \
	--by comm -o "$WORK/n.kprof" -- "$W" >"$WORK/n.out" 2>"$WORK/n.err"
check "nanosleep's tracepoints: 35 pairs, the workload's 35 ($(pairs "$WORK/n.out"))" \
	[ "$(pairs "$WORK/n.out")" = 35 ]
holds nanosleep "$WORK/n.out" sleeps
rows=$(awk '/^ *\[[0-9]+, [0-9]+\) : / { s += $4 } END { print s + 0 }' "$WORK/n.out")
check "--linear 1000: buckets of 1000 us that hold the 35 ($rows)" \
	sh -c "[ '$rows' = 35 ] && grep -q '^ *\[1000, 2000) : ' '$WORK/n.out'"
check "...each row starting where the one before ended" follow "$WORK/n.out"
check "--by comm: the workload's 35, by its command" \
	grep -qE '^  syscalls +35 ' "$WORK/n.out"
"$KPROF" latency --pair syscalls:sys_enter_nanosleep/syscalls:sys_exit_nanosleep -i "$WORK/n.kprof" \
	>"$WORK/i.out" 2>/dev/null
check "-i reads the recording -o kept: the same 35 pairs and percentiles" \
	sh -c "[ \"\$(grep '^# p50' '$WORK/n.out')\" = \"\$(grep '^# p50' '$WORK/i.out')\" ] && [ '$(pairs "$WORK/i.out")' = 35 ]"

# --- block I/O, keyed by dev,sector: what biolatency does -----------------------------------
f=$(mktemp /var/tmp/kprof-latency.XXXXXX)
"$KPROF" latency --pair block:block_rq_issue/block:block_rq_complete -a \
	-- dd if=/dev/zero of="$f" bs=64k count=50 oflag=direct >"$WORK/b.out" 2>"$WORK/b.err"
rm -f "$f"
n=$(pairs "$WORK/b.out")
check "block_rq_issue/complete of 50 direct writes: keyed by dev,sector, ${n:-no} pairs (50 or more)" \
	sh -c "grep -q 'keyed by dev,sector' '$WORK/b.out' && [ '${n:-0}' -ge 50 ]"

# --- run-queue latency, keyed by pid/next_pid: what runqlat does -----------------------------
# the workload's sleeps, and two copies of a CPU-bound program on one CPU, which never sleep:
# each waits on the run queue only when the other preempts it
cp "$(command -v yes)" "$WORK/kp-preempted"
"$KPROF" latency --pair sched:sched_wakeup/sched:sched_switch -a --top 1 --by comm -o "$WORK/r.kprof" \
	-- sh -c "taskset -c 0 '$WORK/kp-preempted' >/dev/null & a=\$!
		taskset -c 0 '$WORK/kp-preempted' >/dev/null & b=\$!
		echo \$a \$b >'$WORK/r.pids'; '$W' 10 0 1 >/dev/null; sleep 0.2; kill \$a \$b" \
	>"$WORK/r.out" 2>"$WORK/r.err"
n=$(pairs "$WORK/r.out")
check "sched_wakeup/sched_switch: keyed by pid/next_pid, ${n:-no} pairs, the workload's 7 sleeps woken at least" \
	sh -c "grep -q 'keyed by pid/next_pid (a second START of a key replaces' '$WORK/r.out' && [ '${n:-0}' -ge 7 ]"
# byval OUT NAME: the pairs of NAME in the --by table of OUT
byval() { awk -v n="$2" '/^# by / { t = 1; next } t && /^$/ { t = 0 } t && $1 == n { print $2 }' "$1"; }
sw=$(byval "$WORK/r.out" swapper)
check "runqlat --by comm: the task that waited, never the idle task that woke it (swapper: ${sw:-no} pairs)" \
	sh -c "grep -q '^# by comm' '$WORK/r.out' && ! grep -q '^  swapper' '$WORK/r.out'"
# the truth, from the events as kprof script prints them: runqlat's pairing, a wait from a
# task's wakeup (pid) or from its switch out still runnable (prev_state R, or R+), to its switch
# in (next_pid); each switch ends a wait before it starts one
read -r pa pb <"$WORK/r.pids"
"$KPROF" script -F event,trace -i "$WORK/r.kprof" 2>/dev/null | awk '
	function f(k) { return substr($0, index($0, " " k "=") + length(k) + 2) }
	function v(k) { s = f(k); sub(/ .*/, "", s); return s }
	$1 ~ /^sched:sched_wakeup(_new)?:$/ { comm[v("pid")] = v("comm"); at[v("pid")] = 1 }
	$1 == "sched:sched_switch:" { n = v("next_pid"); p = v("prev_pid")
		if (at[n]) { w[comm[n]]++; w[n]++; at[n] = 0 }
		if (v("prev_state") ~ /^R\+?$/ && p != 0) { comm[p] = v("prev_comm"); at[p] = 1; r[p]++ } }
	END { for (k in w) print "waits", k, w[k]; for (k in r) print "preempts", k, r[k] }' >"$WORK/r.truth"
truth() { awk -v w="$1" -v k="$2" '$1 == w && $2 == k { print $3 }' "$WORK/r.truth"; }
na=$(truth preempts "$pa") nb=$(truth preempts "$pb")
nc=$(truth waits kp-preempted) np=$(byval "$WORK/r.out" kp-preempted)
check "runqlat covers preemption: two CPU-bound tasks on one CPU, preempted ${na:-0} and ${nb:-0} times, waited ${np:-no} times by their comm, as runqlat pairs them (${nc:-none})" \
	sh -c "[ '${na:-0}' -ge 2 ] && [ '${nb:-0}' -ge 2 ] && [ '${np:-0}' = '${nc:-none}' ] &&
		grep -q '^# and the STARTs of .*preempted), by prev_pid, as runqlat' '$WORK/r.out'"
"$KPROF" latency --pair sched:sched_wakeup/sched:sched_switch --by pid -i "$WORK/r.kprof" >"$WORK/rp.out" 2>&1
wa=$(byval "$WORK/rp.out" "$pa") wb=$(byval "$WORK/rp.out" "$pb")
check "--by pid: the task that waited, each preempted one's waits ($pa: ${wa:-none}, $pb: ${wb:-none}), as runqlat pairs them ($(truth waits "$pa"), $(truth waits "$pb"))" \
	sh -c "[ '${wa:-0}' = '$(truth waits "$pa")' ] && [ '${wb:-0}' = '$(truth waits "$pb")' ]"
"$KPROF" latency --pair sched:sched_switch/sched:sched_switch --key prev_pid/next_pid -i "$WORK/r.kprof" \
	>"$WORK/off.out" 2>&1
n=$(pairs "$WORK/off.out")
check "one event as START and END (sched_switch by prev_pid/next_pid, the time off the CPU): ${n:-no} pairs" \
	[ "${n:-0}" -gt 0 ]

# --- a kernel lock's contention: the named pair "lock" --------------------------------------
# tests/workloads/contend: each round a thread holds a pipe's mutex for 10 ms (its copy faults
# on a userfaultfd page the program supplies late) while wait_behind() writes to the pipe
C="$top_builddir/tests/workloads/contend"
"$KPROF" latency --pair lock --by flags --top 5 -- "$C" >"$WORK/lk.out" 2>"$WORK/lk.err"
if [ $? -eq 77 ]; then
	skips 4 "userfaultfd is not permitted here: $(grep contend: "$WORK/lk.err")"
else
	n=$(pairs "$WORK/lk.out")
	check "--pair lock: lock:contention_begin/end by tid,lock_addr, the first begin counting: ${n:-no} pairs, the workload's 5 waits at least" \
		sh -c "grep -q 'pairs of lock:contention_begin and lock:contention_end, keyed by tid,lock_addr (the first START of a key counts' '$WORK/lk.out' && [ '${n:-0}' -ge 5 ]"
	# the 5 longest pairs against the workload's 5 waits, longest first: each pair lies inside
	# its write (5% or 50 us more), and holds at least half of it (the waiter may come late
	# to a held mutex on a busy machine: the waits are its clock's, not the 10 ms held)
	got=$(awk '/^  [0-9.]+ (ms|us) from / { print ($2 == "ms" ? $1 * 1e6 : $1 * 1e3) }' "$WORK/lk.out" | sort -rn | paste -sd' ' -)
	want=$(val "$WORK/lk.out" waits_ns | tr , '\n' | sort -rn | paste -sd' ' -)
	check "... the 5 longest (${got:-none} ns) each within the workload's clock around its wait, longest first ($want ns)" \
		awk -v g="$got" -v w="$want" 'BEGIN { ng = split(g, a, " "); nw = split(w, b, " ")
			if (ng != 5 || nw != 5) exit 1
			for (i = 1; i <= 5; i++) { m = b[i] * 0.05; if (m < 50000) m = 50000
				if (a[i] + 0 > b[i] + m || a[i] * 2 < b[i] + 0) exit 1 }
			exit 0 }'
	max=$(reported "$WORK/lk.out" max)
	check "... the longest ${max:-none} ns, the workload's clock around its longest wait ${want%% *} ns (5%)" \
		within 5 "$max" "${want%% *}"
	chain=$(awk '/^# the 5 slowest/ { s = 1; next } s && /^  [0-9]/ { n++ } s && n == 1 && /^        / { print $1 }' "$WORK/lk.out" | paste -sd' ' -)
	check "... the slowest's waiting stack: the mutex, the pipe's write, wait_behind (${chain:-none})" \
		sh -c "echo '$chain' | grep -q 'mutex_lock.* anon_pipe_write .*wait_behind main'"
fi

# --- SIGKILLed while the command runs: nothing of its recording is left in $TMPDIR ------------
mkdir "$WORK/tmp"
TMPDIR="$WORK/tmp" "$KPROF" latency --pair syscalls:sys_enter_nanosleep/syscalls:sys_exit_nanosleep \
	-- sh -c "echo started; until [ -e '$WORK/go' ]; do sleep 0.05; done" >"$WORK/k9.out" 2>&1 &
kill_once_said $! "$WORK/k9.out" started
touch "$WORK/go"
check "SIGKILLed ($kos_rc) while the command runs: nothing left in \$TMPDIR ($(ls -A "$WORK/tmp" | head -3 | paste -sd' ' -))" \
	sh -c "[ $kos_rc -eq 137 ] && [ -z \"\$(ls -A '$WORK/tmp')\" ]"

# --- no pair at all: said, why, status 1, no histogram ---------------------------------------
# the workload's nanosleep exits, each the START of the time to the next one, the END of the last
"$KPROF" latency --pair syscalls:sys_exit_nanosleep/syscalls:sys_exit_nanosleep -i "$WORK/n.kprof" \
	>"$WORK/x.out" 2>&1
check "START and END one event: each sample ends one pair and starts the next, 34 of the 35 exits ($(pairs "$WORK/x.out"))" \
	[ "$(pairs "$WORK/x.out")" = 34 ]
# no_pairs TAG ERR... : status 1 ($rc), 0 pairs in $WORK/z.out, no histogram, each line of ERR
# in $WORK/z.err as it is, and no sanitizer error
no_pairs() {
	tag=$1
	shift
	ok=1
	[ $rc -eq 1 ] && [ "$(pairs "$WORK/z.out")" = 0 ] && ! grep -q usecs "$WORK/z.out" &&
		! grep -q 'runtime error\|Sanitizer' "$WORK/z.err" || ok=
	for line; do grep -qxF "$line" "$WORK/z.err" || ok=; done
	if [ -n "$ok" ]; then pass "$tag: status 1, said"; else fail "$tag: status 1 ($rc), said" "$(cat "$WORK/z.err")"; fi
}
"$KPROF" latency --pair syscalls:sys_enter_nanosleep/syscalls:sys_exit_nanosleep --key rqtp/ret \
	-i "$WORK/n.kprof" >"$WORK/z.out" 2>"$WORK/z.err"
rc=$?
no_pairs "keys that never meet (rqtp/ret)" \
	"kprof: no pairs: 35 STARTs and 35 ENDs, but no END's key met an open START's" \
	"hint: the key is rqtp/ret: --key names the fields by which an END finds its START"
# coreutils' sleep calls nanosleep(), which glibc makes as clock_nanosleep
"$KPROF" latency --pair syscalls:sys_enter_nanosleep/syscalls:sys_exit_nanosleep -- sleep 0.01 \
	>"$WORK/z.out" 2>"$WORK/z.err"
rc=$?
no_pairs "nanosleep's events never fire for sleep(1): the system call glibc makes is named" \
	"kprof: no pairs: neither 'syscalls:sys_enter_nanosleep' nor 'syscalls:sys_exit_nanosleep' fired" \
	"hint: glibc makes the clock_nanosleep system call for nanosleep(), sleep() and usleep(): --pair syscalls:sys_enter_clock_nanosleep/syscalls:sys_exit_clock_nanosleep"
# dd's direct writes issued in its own task, completed in interrupts: without -a, no END
f=$(mktemp /var/tmp/kprof-latency.XXXXXX)
"$KPROF" latency --pair block:block_rq_issue/block:block_rq_complete \
	-- dd if=/dev/zero of="$f" bs=64k count=8 oflag=direct >"$WORK/z.out" 2>"$WORK/z.err"
rc=$?
rm -f "$f"
n=$(pairs "$WORK/z.out")
if [ "$n" = 0 ] && grep -q "^kprof: no pairs: neither" "$WORK/z.err"; then # issued elsewhere too
	no_pairs "block_rq_issue/complete of dd without -a: neither seen, -a suggested" \
		"hint: an event that fires in an interrupt or in another task (as a block request's completion does) is not seen by a recording of the command's own tasks (or of -p, -t or -u's): -a records every process"
elif [ "$n" = 0 ]; then
	issued=$(sed -n "s/^kprof: no pairs: 'block:block_rq_issue' fired \([0-9]*\) times, .*/\1/p" "$WORK/z.err")
	no_pairs "block_rq_issue/complete of dd without -a: ${issued:-no} STARTs, ENDs in interrupts, -a suggested" \
		"kprof: no pairs: 'block:block_rq_issue' fired ${issued:-N} times, 'block:block_rq_complete' never" \
		"hint: 'block:block_rq_complete' may fire in an interrupt or in another task (as a block request's completion does), where a recording of the command's own tasks (or of -p, -t or -u's) does not see it: -a records every process"
else
	skip "a completion came in dd's own task: ${n:-no} pairs, nothing to hint at"
fi

# --- errors -----------------------------------------------------------------------------------
"$KPROF" latency --pair block:block_rq_issue/block:block_rq_complete --key nosuch -i "$WORK/n.kprof" \
	>"$WORK/e1.out" 2>"$WORK/e1.err"
check "a recording without the pair's events fails (status $?) naming them" \
	sh -c "[ $? -eq 1 ] && grep -q \"has no block:block_rq_issue and no block:block_rq_complete events\" '$WORK/e1.err'"
"$KPROF" latency --pair syscalls:sys_enter_nanosleep/syscalls:sys_exit_nanosleep --key rqtp/nosuch \
	-i "$WORK/n.kprof" >"$WORK/e2.out" 2>"$WORK/e2.err"
check "a key field END lacks is an error (status $?) that lists the fields it has" \
	sh -c "[ $? -eq 2 ] && grep -q \"'syscalls:sys_exit_nanosleep' has no field 'nosuch': it has .*ret, and the sample's tid, pid and cpu\" '$WORK/e2.err'"
"$KPROF" latency --pair onlyone -- true >/dev/null 2>"$WORK/e3.err"
check "--pair without a '/' is a usage error ($?)" \
	sh -c "[ $? -eq 2 ] && grep -q 'takes START/END' '$WORK/e3.err'"
"$KPROF" latency --pair syscalls:sys_enter_nanosleep/syscalls:sys_exit_nanosleep --by nosuchfield \
	-i "$WORK/n.kprof" >/dev/null 2>"$WORK/e4.err"
check "a --by field START lacks is an error (status $?) that names --by and the fields it has" \
	sh -c "[ $? -eq 2 ] && grep -qxF \"kprof: --by nosuchfield: 'syscalls:sys_enter_nanosleep' has no field 'nosuchfield': it has __syscall_nr, rqtp, rmtp, and the sample's tid, pid, cpu and comm\" '$WORK/e4.err'"
# the recording's duration: --duration, as record's, and --time, its former name, both taken
sleep 30 &
sl=$!
for opt in --duration --time; do
	"$KPROF" latency --pair syscalls:sys_enter_clock_nanosleep/syscalls:sys_exit_clock_nanosleep \
		$opt 0.3 -p $sl >"$WORK/d$opt.out" 2>"$WORK/d$opt.err"
	rc=$?
	check "$opt 0.3 -p stops recording after it and shows what it paired (status $rc)" \
		sh -c "[ $rc -le 1 ] && grep -q ' pairs of syscalls:sys_enter_clock_nanosleep' '$WORK/d$opt.out'"
	"$KPROF" latency --pair a/b $opt 1s -a >/dev/null 2>"$WORK/d$opt.err"
	check "$opt 1s: a usage error ($?) of record's words and limits" \
		sh -c "[ $? -eq 2 ] && grep -qxF \"kprof latency: $opt must be a number from 0.001 to 10000000, not '1s'\" '$WORK/d$opt.err'"
done
kill $sl
"$KPROF" latency --pair nosuch:event/sched:sched_switch -- true >/dev/null 2>"$WORK/e5.err"
check "an unknown event is a usage error (status $?), as in record and top" \
	sh -c "[ $? -eq 2 ] && grep -qxF \"kprof: no tracepoint matches 'nosuch:event'\" '$WORK/e5.err'"
"$KPROF" latency --pair syscalls:sys_enter_nanosleep/syscalls:sys_exit_nanosleep \
	--svg "$WORK/nodir/x.svg" -- touch "$WORK/ran" >/dev/null 2>"$WORK/e6.err"
rc=$?
check "an --svg that cannot be made fails (status $rc) before the command runs" \
	sh -c "[ $rc -eq 1 ] && [ ! -e '$WORK/ran' ] && grep -qxF \"kprof: cannot create '$WORK/nodir/x.svg': No such file or directory\" '$WORK/e6.err'"
"$KPROF" latency --pair syscalls:sys_enter_clock_nanosleep/syscalls:sys_exit_clock_nanosleep \
	--svg "$WORK/c.svg" -- sh -c "ls -l /proc/self/fd/" >"$WORK/e7.out" 2>&1
check "...and one that can is made then, but not left open in the command" \
	sh -c "grep -q ' -> /proc/' '$WORK/e7.out' && ! grep -q 'c.svg' '$WORK/e7.out'"
done_testing
