#!/bin/sh
# Live: probes that fetch values and USDT probes. tests/workloads/probed calls probed_square(i)
# (which returns i * i), probed_name("name-i") and probed_point(&{i, -i}) for i = 1 .. N, and
# fires the SDT probe probed:tick (i, "name-i") where its semaphore is raised: every recorded
# value must be the truth, call by call, named from DWARF and by register, at entry, at a line
# and at the return, through every reader of tracepoints; Debian's python3's function__entry
# gives file, function and line. The uprobe events kprof defines in tracefs are gone after
# every way of ending (exit, an error, SIGINT, SIGTERM, a crash of the command; SIGKILL at the
# next run, which says so), a second kprof at once leaves the first's alone, and bad input is
# refused naming what and why with nothing left defined. tracefs' uprobe_events is as this test
# found it at its end.
KPROF_PRIVATE_MOUNTS=1 # read-only and missing tracefs are made in this test's own mounts
. "$top_srcdir/tests/live/lib.sh"
require_perf_events
PROBED="$top_builddir/tests/workloads/probed"
GETUID="$top_builddir/tests/workloads/getuid"
N=200

[ "$(id -u)" -eq 0 ] || skip_all "probes that fetch values need root (tracefs' uprobe_events)"
[ -d /sys/bus/event_source/devices/uprobe ] || skip_all "no uprobe PMU"
TRACEFS=
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	[ -w "$d/uprobe_events" ] && { TRACEFS=$d; break; }
done
[ -n "$TRACEFS" ] || skip_all "no writable uprobe_events in tracefs"
UE="$TRACEFS/uprobe_events"

# events: uprobe_events less the groups of kprof processes that still run (another suite's),
# which this test neither makes nor removes
events() {
	while read -r line; do
		g=${line#?:}; g=${g%%/*}
		case $g in kprof_*) [ -d "/proc/${g#kprof_}" ] && continue ;; esac
		echo "$line"
	done <"$UE"
}
events >"$WORK/ue.before"
# group_of PID: the uprobe events of kprof PID
group_of() { grep -c "^.:kprof_$1/" "$UE"; }

# --- values, call by call ----------------------------------------------------------------------
P="$PROBED"
SQ_ADDR=$(nm "$P" | awk '$3 == "probed_square" { sub(/^0+/, "", $1); print $1 }')
"$KPROF" record -o "$WORK/v.kprof" -e "uprobe:$P:0x$SQ_ADDR x" \
	-e "uprobe:$P:probed_square x" -e "uprobe:$P:probed_square r=%di:s32" \
	-e "uprobe:$P:probed_square%return \$retval" -e "uprobe:$P:probed_name name:string" \
	-e "uprobe:$P:probed_point p->x p->y" -e "uprobe:$P:probed_square:4 sq" \
	-e "usdt:$P:probed:tick i=arg1 s=arg2:string" -- "$P" $N >"$WORK/v.out" 2>"$WORK/v.err"
check "record of eight probes that fetch values exits 0 ($?)" [ $? -eq 0 ]
"$KPROF" script -i "$WORK/v.kprof" -F event,trace >"$WORK/v.script" 2>&1
# got EVENT FIELD: FIELD's values in EVENT's samples, one a line, quotes dropped
got() { awk -v ev="$1:" -v f="$2" '$1 == ev { for (i = 3; i <= NF; i++) if (index($i, f "=") == 1) { v = substr($i, length(f) + 2); gsub(/"/, "", v); print v } }' "$WORK/v.script"; }
# truth EXPR: EXPR of i for i = 1 .. N ("i", "i*i", "-i", "name-" i)
truth() { awk -v n=$N "BEGIN { for (i = 1; i <= n; i++) print $1 }"; }
# same DESCRIPTION EVENT FIELD EXPR: the field equals the truth in every call
same() {
	got "$2" "$3" >"$WORK/got"; truth "$4" >"$WORK/want"
	if cmp -s "$WORK/got" "$WORK/want"; then pass "$1 ($(wc -l <"$WORK/got") calls)"; else
		fail "$1" "got $(wc -l <"$WORK/got") values: $(head -3 "$WORK/got" | tr '\n' ' ')" \
			"$(diff "$WORK/want" "$WORK/got" | head -3)" "$(head -5 "$WORK/v.err")"; fi
}
same "an argument named from DWARF (x) is i in every call" probe_probed:probed_square x i
same "...and by register (r=%di:s32)" probe_probed:probed_square_1 r i
same "...and at an address, named from the DWARF of the function there" "probe_probed:abs_$SQ_ADDR" x i
same "\$retval at %return is i * i" probe_probed:probed_square__return retval "i*i"
same "a string argument (name:string) is \"name-i\"" probe_probed:probed_name name '"name-" i'
same "a pointer's fields: p->x is i" probe_probed:probed_point p_x i
same "...and p->y is -i" probe_probed:probed_point p_y -i
same "a local at a line (probed_square:4 sq) is i * i" probe_probed:probed_square_L4 sq "i*i"
same "a USDT probe's arguments: i=arg1 is i" sdt_probed:tick i i
same "...and s=arg2:string is \"name-i\"" sdt_probed:tick s '"name-" i'
check "the semaphore of probed:tick was raised in every call ($(cat "$WORK/v.out"))" \
	grep -qx "ticks $N" "$WORK/v.out"
"$P" 5 >"$WORK/v0.out"
check "...and is not without a tracer ($(cat "$WORK/v0.out"))" grep -qx "ticks 0" "$WORK/v0.out"
check "the recording's events are named as perf names them" sh -c \
	"'$KPROF' script -i '$WORK/v.kprof' --header 2>&1 | grep -q 'probe_probed:probed_square__return'"
"$KPROF" latency -i "$WORK/v.kprof" --pair "uprobe:$P:probed_square x/uprobe:$P:probed_square%return \$retval" \
	--by x >"$WORK/lat" 2>&1
check "latency --by x pairs every call, one row per value of x ($(grep -c '^  [0-9][0-9]* *1 ' "$WORK/lat"))" \
	sh -c "grep -q '^# kprof latency .*: $N pairs' '$WORK/lat' && [ \$(grep -c '^  [0-9][0-9]* *1 ' '$WORK/lat') -eq $N ]"
"$KPROF" report -i "$WORK/v.kprof" --format chrome --event probe_probed:probed_point -o "$WORK/v.json" 2>/dev/null
check "report --format chrome carries the fields (p_x, p_y)" grep -q '"p_x":"7","p_y":"-7"' "$WORK/v.json"
"$KPROF" report -i "$WORK/v.kprof" --timeline -o "$WORK/v.svg" 2>/dev/null
check "...and so does the timeline" grep -q 'name-9' "$WORK/v.svg"
if command -v perf >/dev/null; then
	"$KPROF" convert --to perf -i "$WORK/v.kprof" -o "$WORK/v.data" >/dev/null 2>&1
	check "perf script reads them from kprof convert --to perf, named and decoded" sh -c \
		"perf script -i '$WORK/v.data' 2>/dev/null | grep -q ' probe_probed:probed_point: ([0-9a-f]*) p_x=7 p_y=-7\$'"
else
	skip "no perf to read a converted recording"
fi

"$KPROF" record -o "$WORK/f.kprof" -e "uprobe:$P:probed_square x" --filter "x > $((N - 3))" -- "$P" $N >/dev/null 2>&1
"$KPROF" script -i "$WORK/f.kprof" -F event,trace >"$WORK/f.script" 2>&1
check "--filter on a fetched value keeps the calls it passes ($(grep -c 'x=' "$WORK/f.script") of $N)" \
	sh -c "[ \"\$(awk '{ print \$NF }' '$WORK/f.script' | paste -sd' ' -)\" = 'x=$((N - 2)) x=$((N - 1)) x=$N' ]"

# --- without DWARF, stripped --------------------------------------------------------------------
strip -g -o "$WORK/nodwarf" "$P" && strip -o "$WORK/stripped" "$P"
"$KPROF" record -o "$WORK/n.kprof" -e "uprobe:$WORK/nodwarf:probed_square x=%di:s32" \
	-e "uprobe:$WORK/nodwarf:probed_square%return \$retval" -- "$WORK/nodwarf" $N >/dev/null 2>&1
"$KPROF" script -i "$WORK/n.kprof" -F event,trace >"$WORK/v.script" 2>&1
same "without DWARF, a register argument (x=%di:s32) is i" probe_nodwarf:probed_square x i
got probe_nodwarf:probed_square__return retval >"$WORK/got"
check "...and \$retval, untyped, is i * i in hex" sh -c "awk -v n=$N 'BEGIN { for (i = 1; i <= n; i++) printf \"0x%x\n\", i * i }' | cmp -s - '$WORK/got'"
"$KPROF" record -o "$WORK/s.kprof" -e "usdt:$WORK/stripped:probed:tick" -- "$WORK/stripped" $N >"$WORK/s.out" 2>&1
"$KPROF" script -i "$WORK/s.kprof" -F event,trace >"$WORK/v.script" 2>&1
same "a stripped binary's USDT probe, every argument by default (arg1)" sdt_probed:tick arg1 i

# --- Debian's python3: function__entry with file, function and line ---------------------------
PY=/usr/bin/python3
if [ -x $PY ] && "$KPROF" list --sdt $PY 'sdt_python:function__entry' >/dev/null 2>&1; then
	printf 'def gen(n):\n    yield n\nfor i in range(100):\n    gen(i)\n' >"$WORK/gen.py"
	"$KPROF" record -o "$WORK/py.kprof" -e \
		"usdt:$PY:python:function__entry file=arg1:string func=arg2:string line=arg3" \
		-- $PY "$WORK/gen.py" >/dev/null 2>"$WORK/py.err"
	n=$("$KPROF" script -i "$WORK/py.kprof" -F event,trace 2>/dev/null |
		grep -c "^ *sdt_python:function__entry: ([0-9a-f]*) file=\"$WORK/gen.py\" func=\"gen\" line=1$")
	# Python 3.11 fires function__entry where a frame starts from C: each call of gen() does
	check "python3's function__entry: each of 100 calls of gen() with its file, name and line ($n)" [ "$n" -eq 100 ]
	check "kprof list --sdt names python3's probes as perf does" sh -c \
		"'$KPROF' list --sdt $PY | grep -q '^  sdt_python:function__entry .*\[SDT event, semaphore; arguments 8@'"
else
	skips 2 "no $PY with SDT notes"
fi

# --- ways of ending: the events go -----------------------------------------------------------
# runs PROBE_SPEC SIGNAL: kprof record of the probe on `sleep 30`, killed with SIGNAL once its
# events are open; sets rs_pid (kprof's) and rs_during (its events while it ran)
runs() {
	"$KPROF" record -o "$WORK/k.kprof" -e "$1" -- sleep 30 >/dev/null 2>"$WORK/k.err" &
	rs_pid=$!
	attached $rs_pid
	rs_during=$(group_of $rs_pid)
	[ -z "$2" ] || kill -"$2" $rs_pid
}
SQ="uprobe:$P:probed_square x"
runs "$SQ" ""
# a second kprof at once: its own group, the first's left alone
"$KPROF" record -o "$WORK/k2.kprof" -e "$SQ" -- "$P" 10 >/dev/null 2>"$WORK/k2.err"
check "a second kprof at once records its own (status $?) and leaves the first's events ($(group_of $rs_pid))" \
	[ $? -eq 0 -a "$(group_of $rs_pid)" -eq 1 -a "$rs_during" -eq 1 ]
for sig in INT TERM; do
	[ $sig = INT ] || runs "$SQ" ""
	kill -$sig $rs_pid; wait $rs_pid; rc=$?
	check "SIG$sig: kprof ends ($rc) and its event is gone ($(group_of $rs_pid) left; $rs_during while it ran)" \
		[ "$rs_during" -eq 1 -a "$(group_of $rs_pid)" -eq 0 ]
done
"$KPROF" record -o "$WORK/c.kprof" -e "$SQ" -- sh -c 'kill -SEGV $$' >/dev/null 2>&1
check "a crash of the recorded command: nothing left" [ "$(events | wc -l)" -eq "$(wc -l <"$WORK/ue.before")" ]
"$KPROF" record -o "$WORK/e.kprof" -e "$SQ" -e "uprobe:$P:probed_square nosuch" -- true >/dev/null 2>&1
check "an error after a probe was defined: nothing left" [ "$(events | wc -l)" -eq "$(wc -l <"$WORK/ue.before")" ]
runs "$SQ" KILL
wait $rs_pid 2>/dev/null
pkill -KILL -P $rs_pid 2>/dev/null
check "SIGKILL leaves its event ($(group_of $rs_pid))" [ "$(group_of $rs_pid)" -eq 1 ]
"$KPROF" record -o "$WORK/k3.kprof" -e "$SQ" -- "$P" 3 >/dev/null 2>"$WORK/k3.err"
check "...which the next kprof removes, saying so" sh -c \
	"grep -q '^kprof: removed 1 probe event that kprof processes which no longer run left in tracefs: kprof_$rs_pid/probed_square\$' '$WORK/k3.err' && [ \$(grep -c '^.:kprof_$rs_pid/' '$UE') -eq 0 ]"

# --- bad input: named, and nothing defined ------------------------------------------------------
# bad DESCRIPTION STDERR_REGEX ARGS...: kprof stat fails with status 2, saying so
bad() {
	d=$1; re=$2; shift 2
	"$KPROF" stat "$@" -- true >/dev/null 2>"$WORK/bad.err"
	rc=$?
	if [ $rc -eq 2 ] && grep -Eq -e "$re" "$WORK/bad.err"; then pass "$d"; else
		fail "$d (status $rc, want 2)" "$(cat "$WORK/bad.err")"; fi
}
bad "a missing function is named" "^kprof: no function 'nosuch' in '.*/probed' \(event" -e "uprobe:$P:nosuch x"
bad "a variable it does not have is named, with those it has" \
	"^kprof: cannot fetch 'nosuch' in event '.*': no variable 'nosuch' at 0x[0-9a-f]+ \(there: x, sq\)" \
	-e "uprobe:$P:probed_square nosuch"
bad "a field of what is no pointer" "'x' is int, not a pointer" -e "uprobe:$P:probed_square x->y"
bad "a field the struct lacks" "struct point has no field 'z'" -e "uprobe:$P:probed_point p->z"
bad "a bad type, with the types" "^kprof: bad type 'u33' of argument 'x:u33'" -e "uprobe:$P:probed_square x:u33"
bad "an argument the kernel refuses: its reason and the argument" \
	"^kprof: the kernel refused the probe of '.*': Invalid register name \(at 'arg1=%zz'\)" \
	-e "uprobe:$P:probed_square %zz"
bad "\$retval where nothing returns" "'\\\$retval' in event .* is what a return probe sees" -e "uprobe:$P:probed_square \$retval"
bad "a variable at a return" "a return probe fetches no variables" -e "uprobe:$P:probed_square%return x"
bad "a line without code, with the lines that have some" "^hint: the lines of 'probed_square' with code, counted from its declaration: 1, 2" \
	-e "uprobe:$P:probed_square:99 x"
bad "a binary without DWARF: why, and how to name arguments without it" \
	"^hint: without debug info, name the arguments by where the calling convention puts them: %di" \
	-e "uprobe:$WORK/nodwarf:probed_square x"
bad "a stripped binary: no such function, and why" "has no function symbols \(stripped\?\)" \
	-e "uprobe:$WORK/stripped:probed_square x"
bad "an SDT probe it does not have, with the nearest" "^hint: did you mean 'tick'\?" -e "usdt:$P:probed:tock"
bad "an SDT argument past its last" "probed:tick has 2 arguments, no arg3" -e "usdt:$P:probed:tick arg3"
bad "a binary without SDT notes" "has no SDT probes \(no .note.stapsdt section" -e "usdt:$GETUID:x:y"
check "...and after all of them, nothing left" [ "$(events | wc -l)" -eq "$(wc -l <"$WORK/ue.before")" ]

# --- tracefs read-only, or not there (in this test's own mounts) ---------------------------------
if [ -n "${KPROF_IN_PRIVATE_NS:-}" ] && [ "$TRACEFS" = /sys/kernel/tracing ] &&
	mount --bind "$TRACEFS" "$TRACEFS" 2>/dev/null; then
	mount -o remount,bind,ro "$TRACEFS"
	"$KPROF" stat -e "$SQ" -- true >/dev/null 2>"$WORK/ro.err"
	rc=$?
	umount "$TRACEFS"
	check "a read-only tracefs: status 1 ($rc), its file and why" sh -c \
		"[ $rc -eq 1 ] && grep -q \"^kprof: cannot define the probe of '$SQ': cannot write '$UE': Read-only file system\" '$WORK/ro.err'"
	mount -t tmpfs -o ro,size=4k none /sys/kernel
	"$KPROF" stat -e "$SQ" -- true >/dev/null 2>"$WORK/nt.err"
	rc=$?
	umount /sys/kernel
	check "no tracefs, and none to mount: status 1 ($rc), why" sh -c \
		"[ $rc -eq 1 ] && grep -q \"^kprof: cannot define the probe of '$SQ': tracefs is not mounted and cannot be mounted at '/sys/kernel/tracing'\" '$WORK/nt.err'"
else
	skips 2 "no mount namespace of this test's own to change tracefs' mounts in"
fi

events >"$WORK/ue.after"
check "uprobe_events is as this test found it" cmp -s "$WORK/ue.before" "$WORK/ue.after"
done_testing
