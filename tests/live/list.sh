#!/bin/sh
# Live: kprof list against what this machine has: its PMU (or lack of one), its tracepoints,
# the PMUs in sysfs with their format terms.
KPROF_PRIVATE_MOUNTS=1 # kprof may mount tracefs: keep that mount inside this test
. "$top_srcdir/tests/live/lib.sh"
PMUS=/sys/bus/event_source/devices

"$KPROF" list >"$WORK/all.txt" 2>"$WORK/all.err"
check "kprof list exits 0" [ $? -eq 0 ]
check "it lists cpu-clock as a software event" grep -Eq '^  cpu-clock +\[software event\]$' "$WORK/all.txt"
check "it lists aliases" grep -Eq '^  page-faults OR faults +\[software event\]$' "$WORK/all.txt"
check "it lists hardware cache events" grep -Eq '^  L1-dcache-load-misses +\[hardware cache event' "$WORK/all.txt"
check "it documents raw events and the probe syntaxes" sh -c "grep -q '^  rNNNN ' '$WORK/all.txt' &&
	grep -q '^  uprobe:PATH:SYMBOL\[+OFF\] ' '$WORK/all.txt' && grep -q '^  kprobe:FUNC\[+OFF\] ' '$WORK/all.txt' &&
	grep -q '^  mem:ADDR\[:rwx\] ' '$WORK/all.txt'"
check "...and uretprobe, kretprobe, PMU terms, PMU events and groups" sh -c "
	grep -q '^  uretprobe:PATH:SYMBOL\[+OFF\] ' '$WORK/all.txt' && grep -q '^  kretprobe:FUNC ' '$WORK/all.txt' &&
	grep -q '^  PMU/TERM=VAL,.../ ' '$WORK/all.txt' && grep -q '^  PMU/EVENT/ ' '$WORK/all.txt' &&
	grep -q '^  {EVENT,EVENT,...} ' '$WORK/all.txt'"
check "no syntax is marked 'not yet' any more" sh -c "! grep -q 'not yet' '$WORK/all.txt'"
if [ -d /sys/bus/event_source/devices/kprobe ]; then
	check "kprobe:FUNC is not marked (this kernel has a kprobe PMU)" sh -c "! grep -q '^  kprobe:FUNC.*not supported here' '$WORK/all.txt'"
else
	check "kprobe:FUNC is marked not supported here (no kprobe PMU)" grep -q '^  kprobe:FUNC.*; not supported here\]$' "$WORK/all.txt"
fi

# cycles: marked exactly when counting it fails for want of a PMU
"$KPROF" stat -x, -o "$WORK/cyc.csv" -e cycles -- true 2>/dev/null
if grep -q '^<not supported>,' "$WORK/cyc.csv"; then
	check "cycles is marked not supported here (no hardware PMU)" \
		grep -Eq '^  cycles OR cpu-cycles +\[hardware event, not supported here\]$' "$WORK/all.txt"
else
	check "cycles is listed without a mark (this CPU counts it)" \
		grep -Eq '^  cycles OR cpu-cycles +\[hardware event\]$' "$WORK/all.txt"
fi
check "cpu-clock is not marked" sh -c "! grep -q '^  cpu-clock .*not supported' '$WORK/all.txt'"

# tracepoints: root's, when tracefs can be read
if grep -q '^  sched:sched_switch ' "$WORK/all.txt"; then
	pass "it lists sched:sched_switch from tracefs"
	n=$(grep -c '^  [a-z0-9_]*:[a-z0-9_]* *\[tracepoint\]$' "$WORK/all.txt")
	check "it lists the tracepoints ($n)" [ "$n" -gt 100 ]
elif [ "$(id -u)" -ne 0 ]; then
	check "without root it says why no tracepoints are listed" \
		grep -q '^  (none listed: .*tracepoints need root or CAP_PERFMON' "$WORK/all.txt"
	skip "no tracepoints listed for this user"
else
	fail "it lists sched:sched_switch from tracefs" "$(sed -n '/^tracepoints:/,/^$/p' "$WORK/all.txt")" "$(cat "$WORK/all.err")"
	skip "tracepoint count"
fi

# PMUs from sysfs, with each format term as the kernel spells it
if [ -d $PMUS/uprobe/format ]; then
	line=$(grep '^  uprobe: ' "$WORK/all.txt")
	ok=yes
	for f in $PMUS/uprobe/format/*; do
		case "$line" in *" $(basename "$f")=$(cat "$f")"*) ;; *) ok=no ;; esac
	done
	check "the uprobe PMU's format terms ($line)" [ $ok = yes ]
	check "...in bit order (retprobe=config:0 before ref_ctr_offset=config:32-63)" \
		sh -c "echo '$line' | grep -q 'uprobe: retprobe=config:0 ref_ctr_offset=config:32-63 *\[PMU type [0-9]*\]'"
else
	skip "no uprobe PMU in $PMUS"
	skip "uprobe format order"
fi
# each PMU's named events (sysfs events/), as -e takes them: PMU/EVENT/, with the definition
nev=0; ok=yes
for f in $PMUS/*/events/*; do
	[ -f "$f" ] || continue
	case "$f" in *.scale|*.unit|*.per-pkg|*.snapshot) continue ;; esac
	pmu=$(basename "$(dirname "$(dirname "$f")")"); ev=$(basename "$f"); nev=$((nev + 1))
	grep -qF "  $pmu/$ev/ " "$WORK/all.txt" && grep -F "  $pmu/$ev/ " "$WORK/all.txt" | grep -qF "[$pmu event: $(cat "$f")]" || ok=no
done
if [ $nev -gt 0 ]; then
	check "every PMU event in sysfs is listed as PMU/EVENT/ with its terms ($nev)" [ $ok = yes ]
else
	skip "no PMU here has named events in sysfs"
fi
n=$(ls $PMUS | wc -l)
m=$(grep -c '\[PMU type [0-9]*\]$' "$WORK/all.txt")
check "every PMU in sysfs is listed ($m of $n)" [ "$m" -eq "$n" ]
check "a PMU without format terms is listed plainly" grep -Eq '^  software: +\[PMU type 1\]$' "$WORK/all.txt"

# GLOB
"$KPROF" list 'sched:*' >"$WORK/sched.txt" 2>&1
if grep -q '^  sched:sched_switch ' "$WORK/all.txt"; then
	check "list 'sched:*' lists sched:sched_switch" grep -q '^  sched:sched_switch ' "$WORK/sched.txt"
	check "...and nothing outside sched:" sh -c "! grep '^  ' '$WORK/sched.txt' | grep -v '^  sched:'"
	check "...under one heading" [ "$(grep -c ':$' "$WORK/sched.txt")" -eq 1 ]
else
	skip "list 'sched:*': no tracepoints here"
	skip "list 'sched:*' filters"
	skip "list 'sched:*' heading"
fi
"$KPROF" list '*clock' >"$WORK/clock.txt"
check "list '*clock' lists cpu-clock and task-clock" \
	sh -c "grep -q '^  cpu-clock ' '$WORK/clock.txt' && grep -q '^  task-clock ' '$WORK/clock.txt'"
check "...and only names that end in clock" \
	awk '/^  / && $1 !~ /clock$/ { bad = 1 } END { exit bad }' "$WORK/clock.txt"
"$KPROF" list 'cs' >"$WORK/cs.txt"
check "a glob matches aliases too" grep -q '^  context-switches OR cs ' "$WORK/cs.txt"
"$KPROF" list 'no-such-event*' >/dev/null 2>"$WORK/none.err"
check "a glob that matches nothing fails with status 1" [ $? -eq 1 ]
check "...and says so" grep -q "^kprof: no event matches 'no-such-event\*'" "$WORK/none.err"
"$KPROF" list a b >/dev/null 2>&1
check "two globs are a usage error" [ $? -eq 2 ]
# --syscalls: what kprof trace -e names (the names of the machine kprof is built for)
"$KPROF" list --syscalls 'open*' >"$WORK/sys.txt" 2>&1
check "list --syscalls 'open*': openat with its number, only open* names, under their heading" \
	sh -c "grep -Eq '^  openat +\[system call [0-9]+\]\$' '$WORK/sys.txt' &&
		! grep '^  ' '$WORK/sys.txt' | grep -v '^  open' && head -1 '$WORK/sys.txt' | grep -qx 'system calls (kprof trace -e):'"
"$KPROF" list --syscalls 'sched:*' >/dev/null 2>"$WORK/sys.err"
check "...a glob of no system call fails with status 1, saying so" \
	sh -c "[ $? -eq 1 ] && grep -q \"^kprof: no system call matches 'sched:\\*'\" '$WORK/sys.err'"
"$KPROF" list --help | grep -q '^usage: kprof list \[GLOB\]'
check "list --help" [ $? -eq 0 ]
"$KPROF" --help | grep -q '^   list ' && "$KPROF" --help | grep -q '^   stat '
check "kprof --help has stat and list" [ $? -eq 0 ]

# an unprivileged user: the events, and one line on why there are no tracepoints
if [ "$(id -u)" -eq 0 ] && command -v runuser >/dev/null; then
	unpriv_copy
	as_user nobody "$UNPRIV/kprof" list >"$WORK/nobody.txt" 2>"$WORK/nobody.err"
	check "unprivileged: list exits 0" [ $? -eq 0 ]
	check "unprivileged: cpu-clock is listed" grep -q '^  cpu-clock ' "$WORK/nobody.txt"
	check "unprivileged: one line says why there are no tracepoints" \
		grep -q "^  (none listed: .*; tracepoints need root or CAP_PERFMON with a readable tracefs)\$" "$WORK/nobody.txt"
else
	skip "unprivileged list: needs root and runuser"
	skip "unprivileged list: cpu-clock"
	skip "unprivileged list: tracepoints line"
fi

# tracefs not mounted: kprof list mounts it and says so (in a private mount namespace)
if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
	unshare -m sh -c "umount /sys/kernel/tracing 2>/dev/null; umount /sys/kernel/debug 2>/dev/null
		'$KPROF' list 'sched:sched_switch'" >"$WORK/m.txt" 2>"$WORK/m.err"
	check "unmounted tracefs: list mounts it and says so" \
		grep -q "^kprof: mounted tracefs at /sys/kernel/tracing (it was not mounted)" "$WORK/m.err"
	check "...and lists sched:sched_switch" grep -q '^  sched:sched_switch ' "$WORK/m.txt"
else
	skip "unmounted tracefs: needs root and unshare -m"
	skip "unmounted tracefs: listing"
fi

done_testing
