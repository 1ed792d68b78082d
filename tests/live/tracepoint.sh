#!/bin/sh
# Live: tracepoints in kprof record: every hit sampled with its RAW payload, decoded from the
# format stored in the recording; globs; --filter.
KPROF_PRIVATE_MOUNTS=1 # kprof may mount tracefs: keep that mount inside this test
. "$top_srcdir/tests/live/lib.sh"
require_perf_events
GETUID="$top_builddir/tests/workloads/getuid"
[ "$(id -u)" -eq 0 ] || skip_all "tracepoints need root here (tracefs is root-only)"

"$KPROF" record -e syscalls:sys_enter_getuid -o "$WORK/g.kprof" -- "$GETUID" 1234 >/dev/null 2>"$WORK/g.err" ||
	skip_all "tracepoints cannot be recorded here: $(grep -m1 kprof "$WORK/g.err")"
n=$("$KPROF" script -i "$WORK/g.kprof" --raw | grep -c " syscalls:sys_enter_getuid: ")
check "a tracepoint sample per getuid call: $n of 1234" [ "$n" -eq 1234 ]
check "...decoded from the stored format" \
	sh -c "'$KPROF' script -i '$WORK/g.kprof' --raw | grep ' syscalls:sys_enter_getuid: ' | head -1 | grep -q '__syscall_nr=102'"

"$KPROF" record -e 'syscalls:sys_enter_getu*' -o "$WORK/glob.kprof" -- "$GETUID" 10 >/dev/null 2>&1
check "a glob picks the matching tracepoints" \
	sh -c "'$KPROF' script -i '$WORK/glob.kprof' --header | grep -q 'syscalls:sys_enter_getuid'"

"$KPROF" record -e syscalls:sys_enter_getuid --filter 'common_pid == 1' -o "$WORK/f.kprof" -- "$GETUID" 100 >/dev/null 2>&1
n=$("$KPROF" script -i "$WORK/f.kprof" --raw | grep -c " syscalls:sys_enter_getuid: ")
check "--filter 'common_pid == 1' keeps none of the workload's calls ($n)" [ "$n" -eq 0 ]

"$KPROF" record -e sched:sched_switch -o "$WORK/s.kprof" -- sleep 0.2 >/dev/null 2>&1
"$KPROF" script -i "$WORK/s.kprof" --raw | grep " sched:sched_switch: " | head -1 >"$WORK/s.line"
check "sched_switch decodes prev_comm, prev_pid and next_pid" \
	grep -Eq "prev_comm=sleep prev_pid=[0-9]+ .*next_pid=[0-9]+" "$WORK/s.line"
"$KPROF" script -i "$WORK/s.kprof" | grep " sched:sched_switch: " | head -1 >"$WORK/s.text"
check "script shows sched_switch through its print format, as perf script: $(cut -c1-60 "$WORK/s.text")..." \
	grep -Eq "^ *sleep +[0-9]+ \[[0-9]{3}\] +[0-9]+\.[0-9]{6}: sched:sched_switch: prev_comm=sleep prev_pid=[0-9]+ prev_prio=[0-9]+ prev_state=[A-Z+|]+ ==> next_comm=" "$WORK/s.text"

# a tracepoint first, cpu-clock second: their samples differ in layout (RAW), and the recorder
# stores the kernel symbols of each sample read with its own event's layout. Misread, the
# cpu-clock samples' symbols were not stored, and their frames took the name of the nearest
# stored symbol below them, a __pfx_ padding symbol or a function far away (64% of the stacks
# went through a __pfx_ frame; the few samples taken in the preamble that an indirect call runs
# there with FineIBT are rightly named so, as perf names them).
"$KPROF" record -g -e syscalls:sys_enter_getuid,cpu-clock -o "$WORK/two.kprof" -- "$GETUID" 300000 >/dev/null 2>&1
"$KPROF" report -i "$WORK/two.kprof" --folded --weight samples --event cpu-clock >"$WORK/two.folded" 2>/dev/null
read -r pfx unnamed kernel total <<EOF
$(awk '{ n = split($0, f, ";"); sub(/ [0-9]+$/, "", f[n]); k = 0
	for (i = 2; i <= n; i++) { if (f[i] ~ /^__pfx_/) p += $NF; if (f[i] ~ /^\[kernel\.kallsyms\]\+/) u += $NF
		if (f[i] ~ /^(entry_SYSCALL|__x64_sys|do_syscall)/) k = 1 }
	if (k) ks += $NF; t += $NF } END { print p + 0, u + 0, ks + 0, t + 0 }' "$WORK/two.folded")
EOF
check "cpu-clock after a tracepoint: $kernel of $total stacks in the kernel, $pfx through a __pfx_ frame, $unnamed through an unnamed one" \
	[ "$kernel" -gt $((total / 4)) -a "$pfx" -le $((total / 100)) -a "$unnamed" -le $((total / 100)) ]

"$KPROF" record -e syscalls:sys_enter_getuid --filter 'bogus ===' -o "$WORK/b.kprof" -- true >/dev/null 2>"$WORK/b.err"
check "a bad filter fails with status 1" [ $? -eq 1 ]
check "...saying what the filter is applied to" grep -q "^kprof: cannot set the filter 'bogus ===' on 'syscalls:sys_enter_getuid': the kernel rejects it" "$WORK/b.err"
check "...with a hint that lists the tracepoint's fields, as stat's" grep -q "^hint: .*common_pid, __syscall_nr" "$WORK/b.err"
check "...and leaves no file" [ ! -e "$WORK/b.kprof" ]
"$KPROF" record -e nosuchsys:nosuchevent -o "$WORK/x.kprof" -- true >/dev/null 2>"$WORK/x.err"
check "an unknown tracepoint is an error naming it" grep -q "nosuchsys:nosuchevent" "$WORK/x.err"

done_testing
