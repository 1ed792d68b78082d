#!/bin/sh
# Live: kprof stat counts exactly (a tracepoint against a known number of system calls), and
# its layouts, intervals, system-wide and attach modes, filters and errors.
KPROF_PRIVATE_MOUNTS=1 # kprof may mount tracefs: keep that mount inside this test
. "$top_srcdir/tests/live/lib.sh"
GETUID="$top_builddir/tests/workloads/getuid"
TP=syscalls:sys_enter_getuid

# Counting needs perf_event_open on a child, user space at least: skip, saying why, if denied.
if ! "$KPROF" stat -e task-clock:u -- true >"$WORK/probe.out" 2>&1 &&
	grep -q "cannot open event" "$WORK/probe.out"; then
	skip_all "perf_event_open is not permitted here: $(head -1 "$WORK/probe.out")"
fi

# count FILE EVENT: the count of EVENT in a -x, file (its first field), "" if absent
count() { awk -F, -v ev="$2" '$3 == ev { print $1 }' "$1"; }

# Tracepoints need root (or CAP_PERFMON and a readable tracefs).
"$KPROF" list "$TP" >"$WORK/tp.list" 2>"$WORK/tp.err"
if grep -q "^  $TP " "$WORK/tp.list"; then
	tp_why=
else
	tp_why="no tracepoints here: $(grep -h 'none listed\|kprof:' "$WORK/tp.list" "$WORK/tp.err" | head -1)"
fi

# --- the classic: exactly N getuid() calls, three runs each ------------------------------------
if [ -z "$tp_why" ]; then
	for n in 1000 1234; do
		for run in 1 2 3; do
			"$KPROF" stat -e $TP -- "$GETUID" $n >/dev/null 2>"$WORK/c.err"
			rc=$?
			got=$(sed -n "s/^ *\([0-9,]*\) *$TP *\$/\1/p" "$WORK/c.err")
			want=$(printf "%d" $n | sed 's/\(.\)\(...\)$/\1,\2/')
			if [ $rc -eq 0 ] && [ "$got" = "$want" ]; then pass "$TP counts $got for $n calls (run $run)"
			else fail "$TP counts $n calls (run $run): got '$got'" "$(cat "$WORK/c.err")"; fi
		done
	done
	check "the table names the command" grep -q "^ Performance counter stats for '$GETUID 1234':" "$WORK/c.err"
	check "...and the elapsed time" grep -Eq "^ +[0-9]+\.[0-9]{9} seconds time elapsed\$" "$WORK/c.err"

	"$KPROF" stat -x, -o "$WORK/g.csv" -e 'syscalls:sys_enter_getui*' -- "$GETUID" 500 >/dev/null 2>&1
	check "a glob counts each matching tracepoint ($(count "$WORK/g.csv" $TP) for 500)" \
		[ "$(count "$WORK/g.csv" $TP)" = 500 ]
	check "...and only the matching ones" sh -c "! grep -v ',syscalls:sys_enter_getui' '$WORK/g.csv'"

	"$KPROF" stat -x, -o "$WORK/f.csv" -e $TP --filter 'common_pid == 999999999' -- "$GETUID" 1000 2>"$WORK/f.err"
	check "--filter 'common_pid == 999999999' counts 0 ($(count "$WORK/f.csv" $TP))" [ "$(count "$WORK/f.csv" $TP)" = 0 ]
	"$KPROF" stat -x, -o "$WORK/f.csv" -e $TP --filter 'common_pid > 0' --filter '__syscall_nr >= 0' \
		-- "$GETUID" 1000 2>"$WORK/f.err"
	check "--filter 'common_pid > 0', twice joined with &&, counts 1000 ($(count "$WORK/f.csv" $TP))" \
		[ "$(count "$WORK/f.csv" $TP)" = 1000 ]
	"$KPROF" stat -e $TP --filter 'bogus ===' -- "$GETUID" 10 >/dev/null 2>"$WORK/b.err"
	check "a bad filter fails with status 1" [ $? -eq 1 ]
	check "...naming the filter and the event" \
		grep -q "^kprof: cannot set the filter 'bogus ===' on '$TP': the kernel rejects it" "$WORK/b.err"
	check "...with a hint that lists the tracepoint's fields" grep -q "^hint: .*common_pid, __syscall_nr" "$WORK/b.err"

	"$KPROF" stat -a -x, -o "$WORK/a.csv" -e $TP -- "$GETUID" 1000 >/dev/null 2>&1
	check "-a counts the command's calls among everyone's ($(count "$WORK/a.csv" $TP) >= 1000)" \
		[ "$(count "$WORK/a.csv" $TP)" -ge 1000 ]

	# -p: the workload waits for SIGUSR1, so that its calls all come after kprof counts them. The
	# first interval (-I 100) is printed once the events are enabled: then the signal goes.
	"$GETUID" 777 wait >"$WORK/p.out" &
	wpid=$!
	i=0; while ! grep -q ready "$WORK/p.out" && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	"$KPROF" stat -p $wpid -x, -I 100 -e $TP 2>"$WORK/p.csv" &
	kpid=$!
	i=0; while ! grep -q ",$TP," "$WORK/p.csv" && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	kill -USR1 $wpid
	wait $wpid
	wait $kpid
	rc=$?
	n=$(awk -F, -v ev=$TP '$4 == ev && $2 ~ /^[0-9]+$/ { n += $2 } END { print n + 0 }' "$WORK/p.csv")
	check "-p ends by itself when the process ends, with status 0 ($rc)" [ $rc -eq 0 ]
	check "-p counts the attached process's calls exactly ($n for 777, over its intervals)" [ "$n" = 777 ]
else
	i=0; while [ $i -lt 18 ]; do skip "$tp_why"; i=$((i + 1)); done
fi

# --- software events for a command, and its exit status -----------------------------------------
"$KPROF" stat -e task-clock,page-faults,context-switches -- sh -c "sleep 0.1; '$SPLIT' 0.3" \
	>"$WORK/s.out" 2>"$WORK/s.err"
check "kprof exits with the command's status 0" [ $? -eq 0 ]
ms=$(sed -n 's/^ *\([0-9,.]*\) msec task-clock .*/\1/p' "$WORK/s.err" | tr -d ,)
check "task-clock is about the workload's 300 ms of CPU ($ms msec)" within 20 "${ms:-0}" 300
check "...with the CPUs utilized" grep -Eq "msec task-clock +# +0\.[0-9]{3} CPUs utilized" "$WORK/s.err"
pf=$(sed -n 's/^ *\([0-9,]*\) *page-faults .*/\1/p' "$WORK/s.err" | tr -d ,)
check "page-faults are counted ($pf), with a rate" sh -c "[ '${pf:-0}' -gt 10 ] && grep -Eq 'page-faults +# +[0-9.]+ [KM]?/sec' '$WORK/s.err'"
cs=$(sed -n 's/^ *\([0-9,]*\) *context-switches .*/\1/p' "$WORK/s.err" | tr -d ,)
check "context-switches are counted ($cs: the command sleeps)" [ "${cs:-0}" -ge 1 ]
check "no scaling note: the counters ran all the time" sh -c "! grep -q '%)' '$WORK/s.err'"
check "user and sys times follow" grep -Eq "^ +[0-9]+\.[0-9]{9} seconds user\$" "$WORK/s.err"
"$KPROF" stat -e task-clock -- sh -c 'exit 3' 2>/dev/null
check "kprof exits with the command's status 3" [ $? -eq 3 ]
"$KPROF" stat -e task-clock -- sh -c 'kill -TERM $$' 2>/dev/null
check "a command killed by SIGTERM makes kprof exit 143" [ $? -eq 143 ]
"$KPROF" stat -e task-clock -- /nonexistent/command 2>"$WORK/n.err"
check "a missing command fails with status 1" [ $? -eq 1 ]
check "...and is named" grep -q "cannot run '/nonexistent/command': No such file" "$WORK/n.err"
"$KPROF" stat -e L1-dcache-load-misses,r1a2,cycles -x, -o "$WORK/h.csv" -- true
check "hardware cache, raw and hardware events count, or show <not supported> (no PMU)" \
	awk -F, '$1 !~ /^([0-9]+|<not supported>)$/ { bad = 1 } END { exit bad || NR != 3 }' "$WORK/h.csv"

# --- -x and --json -----------------------------------------------------------------------------
"$KPROF" stat -x';' -o "$WORK/x.csv" -e task-clock,page-faults,cycles -- "$SPLIT" 0.1 >/dev/null
check "-x: one line per event, 7 fields each" \
	awk -F';' 'NF != 7 { bad = 1 } END { exit bad || NR != 3 }' "$WORK/x.csv"
check "-x: task-clock in msec with its run time, 100% running and CPUs utilized" \
	grep -Eq '^[0-9]+\.[0-9]{2};msec;task-clock;[0-9]+;100\.00;[0-9.]+;CPUs utilized$' "$WORK/x.csv"
check "-x: page-faults as an integer with a rate" grep -Eq '^[0-9]+;;page-faults;[0-9]+;100\.00;[0-9.]+;[KMG]?/sec$' "$WORK/x.csv"
check "-x: cycles <not supported> here, or counted" grep -Eq '^(<not supported>;;cycles;0;100\.00;;|[0-9]+;;cycles;.*)$' "$WORK/x.csv"

"$KPROF" stat --json -o "$WORK/j.json" -e task-clock,page-faults,cycles -- "$SPLIT" 0.1 >/dev/null
if command -v python3 >/dev/null 2>&1; then
	python3 - "$WORK/j.json" >"$WORK/j.check" 2>&1 <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [r["event"] for r in rows] == ["task-clock", "page-faults", "cycles"], rows
for r in rows:
    assert set(r) == {"counter-value", "unit", "event", "event-runtime", "pcnt-running",
                      "metric-value", "metric-unit"}, r
assert rows[0]["unit"] == "msec" and float(rows[0]["counter-value"]) > 50, rows[0]
assert float(rows[1]["counter-value"]) > 0 and rows[1]["metric-unit"].endswith("/sec"), rows[1]
EOF
	check "--json: one valid object per event with perf's keys (python3)" [ $? -eq 0 ]
else
	check "--json: one object per event with perf's keys (grep)" \
		sh -c "[ \$(grep -c '^{\"counter-value\":\".*\"event\":\".*\"metric-unit\":\".*\"}\$' '$WORK/j.json') -eq 3 ]"
fi

# --- -I: deltas every interval, with a timestamp -----------------------------------------------
"$KPROF" stat -I 200 -e task-clock,page-faults -- sleep 1 2>"$WORK/i.err"
n=$(grep -Ec '^ +[0-9]+\.[0-9]{9} +([0-9.,]+|<not counted>) msec task-clock' "$WORK/i.err")
# one line an interval that ended, and one for the part of the last when the command ends
# between two (on a busy machine the sleep, and so the count, can last longer than 1 s)
end=$(awk '/msec task-clock/ { t = $1 } END { print t + 0 }' "$WORK/i.err")
check "-I 200 prints an interval every 200 ms of a 1-second sleep ($n lines, the last at $end s)" \
	awk -v n="$n" -v t="$end" 'BEGIN { k = int(t / 0.2 + 1e-6); exit !(t >= 1 && n >= 5 && (n == k || n == k + 1)) }' 
check "-I prints perf's column heading" grep -q "^#           time             counts unit events\$" "$WORK/i.err"
check "-I prints no summary" sh -c "! grep -q 'seconds time elapsed' '$WORK/i.err'"
check "-I timestamps grow" awk '/task-clock/ { if ($1 <= last) bad = 1; last = $1 } END { exit bad }' "$WORK/i.err"

# --- -a and -A: every CPU counts ---------------------------------------------------------------
ncpu=$(getconf _NPROCESSORS_ONLN)
t0=$(date +%s%N)
if "$KPROF" stat -a -A -x, -o "$WORK/A.csv" -e cpu-clock -- sleep 0.5 2>"$WORK/A.err"; then
	wall=$((($(date +%s%N) - t0) / 1000000))
	check "-a -A: one line per online CPU ($(wc -l <"$WORK/A.csv") for $ncpu)" [ "$(wc -l <"$WORK/A.csv")" -eq "$ncpu" ]
	# a CPU's clock runs from before the command's 500 ms to its end, within kprof's run
	check "-a -A: each CPU's cpu-clock is 500 ms to the $wall ms kprof ran ($(cut -d, -f2 "$WORK/A.csv" | tr '\n' ' '))" \
		awk -F, -v w=$wall '{ if ($2 < 475 || $2 > w || $1 !~ /^CPU[0-9]+$/) bad = 1 } END { exit bad }' "$WORK/A.csv"
	"$KPROF" stat -a -e cpu-clock,context-switches -- sleep 0.5 2>"$WORK/a.err"
	u=$(sed -n 's/.*msec cpu-clock *# *\([0-9.]*\) CPUs utilized.*/\1/p' "$WORK/a.err")
	check "-a: cpu-clock has all $ncpu CPUs utilized ($u)" within 10 "${u:-0}" "$ncpu"
	check "-a: the heading says system wide" grep -q "^ Performance counter stats for 'system wide':" "$WORK/a.err"
	# one CPU's clock runs at most as long as kprof did, and two CPUs' twice that
	t0=$(date +%s%N)
	"$KPROF" stat -C 0 -x, -o "$WORK/C.csv" -e cpu-clock -- sleep 0.3 2>/dev/null
	wall=$((($(date +%s%N) - t0) / 1000000))
	ms=$(cut -d, -f1 "$WORK/C.csv")
	check "-C 0 counts one CPU ($ms msec for sleep 0.3, in the $wall ms kprof ran)" \
		awk -v m="${ms:-0}" -v w=$wall 'BEGIN { exit !(m >= 285 && m <= w) }'
	"$KPROF" stat -a -x, -o "$WORK/int.csv" -e cpu-clock 2>/dev/null &
	kpid=$!
	attached $kpid # its SIGINT handler is set before the events open
	kill -INT $kpid
	wait $kpid
	check "-a without a command counts until SIGINT and exits 0 ($?)" [ $? -eq 0 ]
	check "...and prints the counts" grep -q ',msec,cpu-clock,' "$WORK/int.csv"
else
	for i in 1 2 3 4 5 6 7 8; do skip "system-wide counting is not permitted: $(head -1 "$WORK/A.err")"; done
fi

# --- -p on a CPU-bound workload, killed while attached -----------------------------------------
"$SPLIT" 30 >/dev/null &
wpid=$!
cpu_ms() { awk '{ print ($14 + $15) * 10 }' "/proc/$1/stat"; }
cb=$(cpu_ms $wpid)
"$KPROF" stat -p $wpid -e task-clock 2>"$WORK/pp.err" &
kpid=$!
attached $kpid # counting starts there, however long kprof took to start
c0=$(cpu_ms $wpid)
sleep 1
# stopped, so that its CPU time is what it ran while surely attached (from c0: under 1 s on a
# busy machine) and at most what it ran from before kprof started (from cb), then killed
kill -STOP $wpid
i=0
while [ $i -lt 100 ] && [ "$(awk '{ print $3 }' "/proc/$wpid/stat")" != T ]; do
	sleep 0.05; i=$((i + 1))
done
c1=$(cpu_ms $wpid)
kill -KILL $wpid
wait $wpid 2>/dev/null
wait $kpid
check "-p ends when the killed process ends, status 0 ($?)" [ $? -eq 0 ]
check "-p names the process" grep -q "^ Performance counter stats for process id '$wpid':" "$WORK/pp.err"
ms=$(sed -n 's/^ *\([0-9,.]*\) msec task-clock .*/\1/p' "$WORK/pp.err" | tr -d ,)
# /proc counts in 10 ms ticks: 20 ms of slack on either side
check "-p counts the process's CPU time while attached ($ms msec; /proc: $((c1 - c0)) while surely attached, $((c1 - cb)) in all)" \
	awk -v m="${ms:-0}" -v lo=$((c1 - c0 - 20)) -v hi=$((c1 - cb + 20)) 'BEGIN { exit !(m > 0 && m >= lo && m <= hi) }'
"$KPROF" stat -p 2147483 -- true 2>"$WORK/pn.err"
check "-p of a missing process fails and says so" grep -q "cannot attach to process 2147483: no such process" "$WORK/pn.err"

# --- usage errors ------------------------------------------------------------------------------
bad() { # DESCRIPTION EXPECTED_STDERR_REGEX ARGS...
	d=$1; re=$2; shift 2
	"$KPROF" stat "$@" >/dev/null 2>"$WORK/u.err"
	rc=$?
	if [ $rc -eq 2 ] && grep -Eq -e "$re" "$WORK/u.err"; then pass "$d"; else
		fail "$d (status $rc)" "$(cat "$WORK/u.err")"; fi
}
bad "an unknown event suggests the closest name" "did you mean 'cpu-clock'" -e cpu-clok -- true
bad "an unknown cache event suggests the closest name" "did you mean 'L1-dcache-loads'" -e L1-dcache-lods -- true
bad "a misspelt event with :u is not taken for a tracepoint" "unknown event 'task-clok'" -e task-clok:u -- true
bad "a bad modifier is named" "bad modifier ':x' in event 'cycles:x'" -e cycles:x -- true
bad "SYS:NAME:MORE is a bad event" "bad event 'a:b:c'" -e a:b:c -- true
bad "--filter needs a tracepoint before it" "filter 'x == 1' applies to tracepoints, and 'task-clock'" \
	-e task-clock --filter 'x == 1' -- true
bad "--filter needs an event before it" "must follow the -e tracepoint" --filter 'x == 1' -e task-clock -- true
bad "no command and no -a/-p is a usage error" "no command to count" -e task-clock
bad "-I below 10 ms is a usage error" "-I must be from 10" -I 5 -- true
bad "-C with an offline CPU is a usage error" "CPU 4095 is not online" -C 4095 -- true
bad "-C past the last CPU number is a usage error" "-C takes .* from 0 to 4095, not '0-4096'" -C 0-4096 -- true
bad "-p past the largest pid is a usage error" "-p takes numbers from 1 to 4194304, not '4294967297'" -p 4294967297
bad "-x and --json together are a usage error" "do not go together" -x, --json -- true
if [ -z "$tp_why" ]; then
	bad "a tracepoint nothing matches is named, with a kprof list hint" \
		"no tracepoint matches 'sched:nosuch'" -e sched:nosuch -- true
	check "...and the hint names the system" grep -q "^hint: kprof list 'sched:\*' lists the tracepoints of 'sched'" "$WORK/u.err"
	bad "an unknown tracepoint system is named" "no tracepoint matches 'nosuch:event'" -e nosuch:event -- true
else
	for i in 1 2 3; do skip "$tp_why"; done
fi

# --- an unprivileged user: tracefs is root's; kernel counting narrows to user space -------------
if [ "$(id -u)" -ne 0 ] || ! command -v runuser >/dev/null || [ -n "$tp_why" ]; then
	skip "unprivileged tracepoint: needs root, runuser and tracepoints"
	skip "unprivileged task-clock"
	skip "unprivileged task-clock's notice"
else
	unpriv_copy
	as_user nobody "$UNPRIV/kprof" stat -e $TP -- true >/dev/null 2>"$WORK/np.err"
	if [ $? -eq 1 ] && grep -q "^hint: tracepoints need root or CAP_PERFMON with a readable tracefs" "$WORK/np.err"; then
		pass "unprivileged: a tracepoint is an error with the tracefs hint"
	else
		fail "unprivileged: a tracepoint is an error with the tracefs hint" "$(cat "$WORK/np.err")"
	fi
	as_user nobody "$UNPRIV/kprof" stat -e task-clock -- true >/dev/null 2>"$WORK/nt.err"
	if [ $? -eq 0 ] && { grep -q "msec task-clock:u " "$WORK/nt.err" || grep -q "msec task-clock " "$WORK/nt.err"; }; then
		pass "unprivileged: task-clock counts (user space only where paranoid says so)"
	else
		fail "unprivileged: task-clock counts" "$(cat "$WORK/nt.err")"
	fi
	# narrowed, it says so as record does: the notice, and how to count the kernel too
	if ! grep -q "msec task-clock:u " "$WORK/nt.err"; then
		skip "unprivileged task-clock was not narrowed (perf_event_paranoid < 2)"
	elif grep -q "^kprof: kernel events are not permitted: counting 'task-clock' in user space only" "$WORK/nt.err" &&
		grep -q "^hint: 'sysctl kernel.perf_event_paranoid=1' or CAP_PERFMON" "$WORK/nt.err"; then
		pass "unprivileged: the narrowing is said, with the sysctl hint"
	else
		fail "unprivileged: the narrowing is said, with the sysctl hint" "$(cat "$WORK/nt.err")"
	fi
fi

# --- tracefs not mounted: kprof mounts it, says so (in a private mount namespace) ---------------
if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
	unshare -m sh -c "umount /sys/kernel/tracing 2>/dev/null; umount /sys/kernel/debug 2>/dev/null
		'$KPROF' stat -x, -e $TP -- '$GETUID' 5" >/dev/null 2>"$WORK/m.err"
	check "unmounted tracefs: kprof mounts it and says so" \
		grep -q "^kprof: mounted tracefs at /sys/kernel/tracing (it was not mounted)" "$WORK/m.err"
	check "...and counts ($(count "$WORK/m.err" $TP) for 5)" [ "$(count "$WORK/m.err" $TP)" = 5 ]
else
	skip "unmounted tracefs: needs root and unshare -m"
	skip "unmounted tracefs: count"
fi

done_testing
