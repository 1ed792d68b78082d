#!/bin/sh
# Live: the -e syntaxes beyond named events and tracepoints. uprobes and uretprobes count a
# function's calls exactly (in the workload and in libc) and sample its address; kprobes say
# when the kernel has no kprobe PMU; breakpoints open; PMU/TERMS/ events pack their terms;
# {groups} open their members in the leader's group; the errors name what is wrong.
KPROF_PRIVATE_MOUNTS=1 # kprof may mount tracefs: keep that mount inside this test
. "$top_srcdir/tests/live/lib.sh"
CALLS="$top_builddir/tests/workloads/calls"
GETUID="$top_builddir/tests/workloads/getuid"
PMUS=/sys/bus/event_source/devices
UP="uprobe:$CALLS:calls_target"
URET="uretprobe:$CALLS:calls_target"

if ! "$KPROF" stat -e task-clock:u -- true >"$WORK/probe.out" 2>&1 &&
	grep -q "cannot open event" "$WORK/probe.out"; then
	skip_all "perf_event_open is not permitted here: $(head -1 "$WORK/probe.out")"
fi

# count FILE EVENT: the count of EVENT in a -x, file (its first field), "" if absent
count() { awk -F, -v ev="$2" '$3 == ev { print $1 }' "$1"; }
# skips N REASON: N skipped tests
# bad DESCRIPTION STATUS EXPECTED_STDERR_REGEX ARGS...: kprof stat fails so, saying so
bad() {
	d=$1; want=$2; re=$3; shift 3
	"$KPROF" stat "$@" >/dev/null 2>"$WORK/bad.err"
	rc=$?
	if [ $rc -eq "$want" ] && grep -Eq -e "$re" "$WORK/bad.err"; then pass "$d"; else
		fail "$d (status $rc, want $want)" "$(cat "$WORK/bad.err")"; fi
}

# uprobes need the uprobe PMU and CAP_SYS_ADMIN
if [ ! -d $PMUS/uprobe ]; then
	up_why="no uprobe PMU in $PMUS"
elif [ "$(id -u)" -ne 0 ]; then
	up_why="uprobes need root (CAP_SYS_ADMIN)"
else
	up_why=
fi

# --- uprobes and uretprobes count exactly -----------------------------------------------------
if [ -z "$up_why" ]; then
	for n in 500 1234; do
		"$KPROF" stat -x, -o "$WORK/u.csv" -e "$UP" -- "$CALLS" $n >/dev/null 2>"$WORK/u.err"
		got=$(count "$WORK/u.csv" "$UP")
		if [ "$got" = $n ]; then pass "$UP counts $n calls"; else
			fail "$UP counts $n calls: got '$got'" "$(cat "$WORK/u.err" "$WORK/u.csv")"; fi
	done
	"$KPROF" stat -x, -o "$WORK/r.csv" -e "$URET" -- "$CALLS" 1234 >/dev/null 2>"$WORK/r.err"
	check "$URET counts 1234 returns ($(count "$WORK/r.csv" "$URET"))" [ "$(count "$WORK/r.csv" "$URET")" = 1234 ]
	check "...and the table names the event as given" sh -c "! grep -v ',$URET,' '$WORK/r.csv'"

	# libc's getpid, called through a function pointer
	LIBC=$(ldd "$CALLS" 2>/dev/null | awk '$1 ~ /^libc\.so/ { print $3 }')
	if [ -n "$LIBC" ] && [ -f "$LIBC" ]; then
		LP="uprobe:$LIBC:getpid"
		"$KPROF" stat -x, -o "$WORK/l.csv" -e "$LP" -- "$CALLS" 777 getpid >/dev/null 2>"$WORK/l.err"
		check "a uprobe on a shared library's function ($LP) counts 777 calls ($(count "$WORK/l.csv" "$LP"))" \
			[ "$(count "$WORK/l.csv" "$LP")" = 777 ]
	else
		skip "no libc.so found with ldd"
	fi

	# -a: every process that runs the function
	"$KPROF" stat -a -x, -o "$WORK/a.csv" -e "$UP" -- "$CALLS" 300 >/dev/null 2>"$WORK/a.err"
	check "-a counts the uprobe system-wide ($(count "$WORK/a.csv" "$UP") for 300)" \
		[ "$(count "$WORK/a.csv" "$UP")" = 300 ]

	# a group of the probe and its return probe
	"$KPROF" stat -x, -o "$WORK/g.csv" -e "{$UP,$URET}" -- "$CALLS" 432 >/dev/null 2>"$WORK/g.err"
	check "a group {uprobe,uretprobe} counts both (432: $(count "$WORK/g.csv" "$UP"), $(count "$WORK/g.csv" "$URET"))" \
		[ "$(count "$WORK/g.csv" "$UP")" = 432 -a "$(count "$WORK/g.csv" "$URET")" = 432 ]
else
	skips 7 "$up_why"
fi

# --- record: one sample per call, at the function's address -------------------------------------
if [ -z "$up_why" ]; then
	"$KPROF" record -c 1 -o "$WORK/u.kprof" -e "$UP" -- "$CALLS" 1234 >"$WORK/rec.out" 2>"$WORK/rec.err"
	check "record -c 1 -e uprobe exits 0" [ $? -eq 0 ]
	"$KPROF" script -i "$WORK/u.kprof" --raw >"$WORK/u.script" 2>&1
	grep -F " $UP: " "$WORK/u.script" >"$WORK/u.samples"
	n=$(wc -l <"$WORK/u.samples")
	check "record gives one sample per call ($n for 1234)" [ "$n" -eq 1234 ]
	want=$(sed -n 's/^calls_target 0x\([0-9a-f]*\)$/\1/p' "$WORK/rec.out")
	ips=$(awk '{ print $NF }' "$WORK/u.samples" | sort -u)
	check "...each with the function's run-time address as ip ($ips = $want)" [ -n "$want" -a "$ips" = "$want" ]
	sym=$(nm "$CALLS" | awk '$3 == "calls_target" { print $1 }')
	# a PT_LOAD maps file offsets to addresses page for page, so the low 12 bits agree
	check "...whose page offset is that of the symbol in nm ($sym)" awk -v ip="$ips" -v sym="$sym" \
		'BEGIN { exit !(ip != "" && sym != "" && ip !~ /[^0-9a-f]/ && substr(ip, length(ip) - 2) == substr(sym, length(sym) - 2)) }'
	"$KPROF" report -i "$WORK/u.kprof" --folded >"$WORK/u.folded" 2>&1
	check "...and the report folds every sample into calls;calls_target" \
		grep -q '^calls;calls_target 1234$' "$WORK/u.folded"
else
	skips 5 "$up_why"
fi

# --- bad uprobes: the path, the symbol, the offset ----------------------------------------------
if [ -d $PMUS/uprobe ]; then
	bad "a missing binary is named" 2 "cannot find '$WORK/nosuch' \(event 'uprobe:$WORK/nosuch:f'\): No such file" \
		-e "uprobe:$WORK/nosuch:f" -- true
	echo "not elf" >"$WORK/text"
	bad "a file that is not ELF is named" 2 "is not an ELF file \(event 'uprobe:" -e "uprobe:$WORK/text:f" -- true
	bad "an unknown symbol suggests the closest functions" 2 "^hint: did you mean 'calls_target'\?" \
		-e "uprobe:$CALLS:calls_targt" -- true
	check "...after naming the symbol and the file" grep -q "^kprof: no function 'calls_targt' in '/.*/calls'" "$WORK/bad.err"
	bad "an offset past the function's end is an error" 2 "offset 100000 is past the end of 'calls_target'" \
		-e "uprobe:$CALLS:calls_target+100000" -- true
	bad "a bad offset is an error" 2 "SYMBOL\+OFF needs a symbol and a number" -e "uprobe:$CALLS:calls_target+x" -- true
	bad "a uprobe without a symbol is a syntax error" 2 "a uprobe is uprobe:PATH:SYMBOL\[\+OFF\]" -e "uprobe:$CALLS" -- true
	bad "a data symbol is not a function" 2 "no function 'calls_sink'" -e "uprobe:$CALLS:calls_sink" -- true
else
	skips 8 "no uprobe PMU in $PMUS"
fi

# --- kprobes ---------------------------------------------------------------------------------------
if [ -d $PMUS/kprobe ]; then
	skips 2 "this kernel has a kprobe PMU: the missing-PMU error cannot be checked"
else
	bad "kprobe: without a kprobe PMU is a plain error" 1 \
		"^kprof: this kernel has no kprobe PMU \(CONFIG_KPROBES is off\): 'kprobe:vfs_read' cannot be opened\$" \
		-e kprobe:vfs_read -- true
	bad "...and so is kretprobe:" 1 "no kprobe PMU .*'kretprobe:vfs_read' cannot be opened" -e kretprobe:vfs_read -- true
fi
bad "a kretprobe takes no offset" 2 "a kretprobe fires when FUNC returns, so it takes no offset" \
	-e kretprobe:vfs_read+4 -- true

# --- breakpoints: they open (on this VM they never fire) ----------------------------------------
"$KPROF" stat -x, -o "$WORK/m.csv" -e mem:0x1000,mem:0x2000:w,mem:0x3000:x -- true 2>"$WORK/m.err"
rc=$?
check "mem:ADDR[:rwx] breakpoints open and count 0 (status $rc)" \
	[ $rc -eq 0 -a "$(count "$WORK/m.csv" mem:0x1000)" = 0 -a "$(count "$WORK/m.csv" mem:0x2000:w)" = 0 -a \
	  "$(count "$WORK/m.csv" mem:0x3000:x)" = 0 ]
bad "mem: with a bad address is an error" 2 "a breakpoint is mem:ADDR\[:rwx\], ADDR in hex" -e mem:xyz -- true
bad "mem: with x and w together is an error" 2 "bad access 'wx'" -e mem:0x1000:wx -- true

# --- PMU/TERMS/ ------------------------------------------------------------------------------------
if [ -d $PMUS/msr ] && [ -f $PMUS/msr/format/event ]; then
	"$KPROF" stat -x, -o "$WORK/p.csv" -e msr/event=0/,msr/tsc/ -- "$SPLIT" 0.1 >/dev/null 2>"$WORK/p.err"
	v=$(count "$WORK/p.csv" msr/event=0/)
	check "msr/event=0/ counts something ($v)" [ "${v:-0}" -gt 0 ]
	v=$(count "$WORK/p.csv" msr/tsc/)
	check "msr/tsc/, the PMU's named event, counts something ($v)" [ "${v:-0}" -gt 0 ]
	# the events this machine's msr PMU names (tsc everywhere, smi on some hosts), as sysfs says
	msr_events=$(ls $PMUS/msr/events | grep -v '\.' | sort | sed ':a;N;$!ba;s/\n/, /g')
	bad "an unknown term is an error listing the PMU's terms" 2 \
		"^hint: the terms of PMU 'msr': event \(config:0-63\); events: $msr_events;" -e msr/umask=1/ -- true
	check "...after naming the term" grep -q "^kprof: PMU 'msr' has no term 'umask' (in event 'msr/umask=1/')" "$WORK/bad.err"
	# a member the kernel refuses in its group: record's error names the group, as stat's does
	"$KPROF" record -e '{cpu-clock,msr/tsc/}' -o "$WORK/g.kprof" -- true >/dev/null 2>"$WORK/rg.err"
	check "record: a member refused in its group is an error naming the group (status $?)" \
		grep -q "^hint: 'msr/tsc/' is in a group led by 'cpu-clock'" "$WORK/rg.err"
else
	skips 5 "no msr PMU with an event term in $PMUS"
fi
if [ -f $PMUS/uprobe/format/retprobe ]; then
	bad "a value wider than its term is an error" 2 "the value 2 of 'retprobe' .* does not fit its 1 bit \(config:0\)" \
		-e uprobe/retprobe=2/ -- true
else
	skip "no uprobe PMU retprobe term"
fi
bad "an unknown PMU is an error listing the PMUs" 2 "^hint: the PMUs here .*software" -e nosuchpmu/x/ -- true
bad "an unclosed PMU event is an error" 2 "no closing '/'" -e software/config=0 -- true
"$KPROF" stat -x, -o "$WORK/s.csv" -e software/config=0/ -- "$SPLIT" 0.1 >/dev/null 2>&1
v=$(count "$WORK/s.csv" software/config=0/)
check "software/config=0/ is cpu-clock (about 100 msec: $v)" within 30 "${v:-0}" 100

# --- groups ----------------------------------------------------------------------------------------
"$KPROF" stat -e '{cpu-clock,page-faults}' -- "$SPLIT" 0.2 >/dev/null 2>"$WORK/grp.err"
check "stat -e '{cpu-clock,page-faults}' exits 0" [ $? -eq 0 ]
ms=$(sed -n 's/^ *\([0-9,.]*\) msec cpu-clock .*/\1/p' "$WORK/grp.err" | tr -d ,)
pf=$(sed -n 's/^ *\([0-9,]*\) *page-faults .*/\1/p' "$WORK/grp.err" | tr -d ,)
if [ "${pf:-0}" -gt 0 ] && within 20 "${ms:-0}" 200; then pass "...and counts both (cpu-clock $ms msec, page-faults $pf)"
else fail "...and counts both (cpu-clock $ms msec, page-faults $pf)" "$(cat "$WORK/grp.err")"; fi
if command -v strace >/dev/null; then
	strace -o "$WORK/strace" -e trace=perf_event_open "$KPROF" stat -x, -o /dev/null \
		-e '{cpu-clock,page-faults,context-switches},task-clock' -- true 2>/dev/null
	# perf_event_open({...}, PID, CPU, GROUP_FD, FLAGS) = FD
	awk -F', ' '/^perf_event_open/ { n++; sub(/ = /, ",", $NF); split($NF, r, ","); print n, $(NF-1), r[2] }' \
		"$WORK/strace" >"$WORK/opens"
	leader=$(awk '$1 == 1 { print $3 }' "$WORK/opens")
	check "the leader opens with group_fd -1" [ "$(awk '$1 == 1 { print $2 }' "$WORK/opens")" = -1 ]
	check "...its members with group_fd = the leader's fd ($leader)" \
		[ "$(awk '$1 == 2 || $1 == 3 { print $2 }' "$WORK/opens" | sort -u)" = "$leader" ]
	check "...and an event after the group with group_fd -1" [ "$(awk '$1 == 4 { print $2 }' "$WORK/opens")" = -1 ]
else
	skips 3 "no strace to see the group_fd"
fi
bad "nested groups are an error" 2 "groups do not nest" -e '{cpu-clock,{page-faults}}' -- true
bad "an unclosed group is an error" 2 "'\{' without '\}'" -e '{cpu-clock,page-faults' -- true
bad "an empty group is an error" 2 "an empty group" -e '{}' -- true

# --- ftrace:function: a tracepoint, where the kernel lets perf have it -------------------------------
"$KPROF" list ftrace:function >"$WORK/ft.list" 2>&1
if ! grep -q '^  ftrace:function ' "$WORK/ft.list"; then
	skips 2 "no ftrace:function tracepoint here (or tracefs unreadable)"
elif "$KPROF" stat -x, -o "$WORK/ft.csv" -e ftrace:function --filter 'ip == __x64_sys_getuid' \
	-- "$GETUID" 300 2>"$WORK/ft.err"; then
	v=$(count "$WORK/ft.csv" ftrace:function)
	check "ftrace:function with a filter on ip counts the filtered function (at least 300: $v)" [ "${v:-0}" -ge 300 ]
	"$KPROF" stat -x, -o "$WORK/ft0.csv" -e ftrace:function --filter 'ip == nosuchfunction_xyz' -- "$GETUID" 300 2>/dev/null
	check "...and a filter that names no function counts 0 or is refused" [ "$(count "$WORK/ft0.csv" ftrace:function)" != 300 ]
else
	check "ftrace:function, which this kernel refuses, fails with the event named" \
		grep -q "^kprof: cannot open event 'ftrace:function': " "$WORK/ft.err"
	check "...and a hint about the function tracer" grep -q "^hint: the kernel lets perf use the function tracer only for root" "$WORK/ft.err"
fi

# --- an unprivileged user: uprobes need CAP_SYS_ADMIN ---------------------------------------------
if [ ! -d $PMUS/uprobe ]; then
	skips 3 "the unprivileged uprobe test needs the uprobe PMU"
elif temp_user 3 "$CALLS"; then
	as_user "$user" "$UNPRIV/kprof" stat -e "uprobe:$UNPRIV/calls:calls_target" -- "$UNPRIV/calls" 10 \
		>/dev/null 2>"$WORK/np.err"
	check "unprivileged: a uprobe fails with status 1 ($?)" [ $? -eq 1 ]
	check "...naming the event, with the CAP_SYS_ADMIN hint" sh -c \
		"grep -q \"^kprof: cannot open event 'uprobe:$UNPRIV/calls:calls_target': Permission denied\" '$WORK/np.err' &&
		 grep -q '^hint: uprobes need CAP_SYS_ADMIN' '$WORK/np.err'"
	userdel "$user" 2>/dev/null
	check "the temporary user is gone" sh -c "! id '$user' >/dev/null 2>&1"
fi

done_testing
