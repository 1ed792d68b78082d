#!/bin/sh
# Live: kprof harms nothing beside it. While each system-wide mode of kprof runs (record -a
# alone, with -g, --call-graph dwarf and --off-cpu; top; trace -a; latency -a), a user's
# `perf record -- COMMAND` ends well, and `perf report` and `perf script` read its file with
# nothing on stderr; kprof's own recording holds that command (so the two really ran at once)
# with its binary's build-id, as before. Linux (up to 6.18 at least) leaves the build-id flag
# of an event that asked for build-ids on the MMAP2 records it then writes for other events,
# and perf 6.1 aborted on them (util/build-id.c) while any kprof record -a ran.
. "$top_srcdir/tests/live/lib.sh"
require_perf_events
PERF=${PERF:-perf}
command -v "$PERF" >/dev/null 2>&1 || skip_all "perf is not installed (the Debian package linux-perf)"
if ! "$KPROF" record -a -o "$WORK/probe.kprof" --duration 0.1 >/dev/null 2>"$WORK/probe.err"; then
	skip_all "system-wide recording is not permitted here: $(head -1 "$WORK/probe.err")"
fi
tp_ok=
[ -r /sys/kernel/tracing/events/syscalls/sys_enter_mmap/id ] && tp_ok=1
# perf keeps its build-id cache under $HOME: this test's own
HOME=$WORK
export HOME
bid=$(readelf -n "$SPLIT" 2>/dev/null | awk '/Build ID:/ { print $3; exit }')

# beside NAME FILE KPROF-ARGS...: kprof with these arguments in the background, recording to
# FILE; once its events are open, perf records split; then kprof is stopped as a user stops
# it (Ctrl-C), and both files are read.
beside() {
	name=$1 file=$2
	shift 2
	"$KPROF" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
	k=$!
	attached $k
	"$PERF" record -o "$WORK/$name.data" -- "$SPLIT" 0.2 >/dev/null 2>"$WORK/$name.perr"
	prc=$?
	kill -INT $k
	wait $k
	krc=$?
	check "perf record beside kprof $name ends well (status $prc): $(grep -v '^\[ perf record' "$WORK/$name.perr" | head -1)" \
		sh -c "[ $prc -eq 0 ] && ! grep -v '^\[ perf record' '$WORK/$name.perr' | grep -q ."
	"$PERF" report --stdio -i "$WORK/$name.data" >"$WORK/$name.rep" 2>"$WORK/$name.rerr"
	rrc=$?
	"$PERF" script -i "$WORK/$name.data" >"$WORK/$name.scr" 2>"$WORK/$name.serr"
	src=$?
	check "perf report and perf script read it, silent on stderr: $(cat "$WORK/$name.rerr" "$WORK/$name.serr" | head -1)" \
		sh -c "[ $rrc -eq 0 ] && [ $src -eq 0 ] && [ ! -s '$WORK/$name.rerr' ] && [ ! -s '$WORK/$name.serr' ] && grep -q work_a '$WORK/$name.rep'"
	pid=$(awk '$1 == "split" { print $2; exit }' "$WORK/$name.scr")
	"$KPROF" script --raw -i "$file" 2>/dev/null | grep " MMAP2 ${pid:-none}/${pid:-none}: .*$SPLIT\$" >"$WORK/$name.mmap"
	check "kprof $name (status $krc) recorded perf's split (pid ${pid:-none}) with its build-id" \
		sh -c "[ $krc -eq 0 ] && [ -n '$bid' ] && grep -q 'build-id $bid' '$WORK/$name.mmap'"
}

# (at the rate of an always-on recording: what matters is that kprof runs, not its samples)
beside "record -a" "$WORK/a.kprof" record -a -F 99 -o "$WORK/a.kprof"
beside "record -a -g" "$WORK/g.kprof" record -a -F 99 -g -o "$WORK/g.kprof"
beside "record -a --call-graph dwarf" "$WORK/d.kprof" record -a -F 99 --call-graph dwarf -o "$WORK/d.kprof"
beside "record -a --off-cpu" "$WORK/o.kprof" record -a -F 99 -g --off-cpu -o "$WORK/o.kprof"
beside "top" "$WORK/top.kprof" top -a -F 99 -d 60 -o "$WORK/top.kprof"
if [ -n "$tp_ok" ]; then
	beside "trace -a" "$WORK/t.kprof" trace -a -e mmap --record "$WORK/t.kprof"
	beside "latency -a" "$WORK/l.kprof" latency -a \
		--pair syscalls:sys_enter_mmap/syscalls:sys_exit_mmap -o "$WORK/l.kprof"
else
	skips 6 "no syscall tracepoints to trace (tracefs is not readable here)"
fi

# Two recorders of context switches: kprof record --off-cpu of a command while kprof record -a
# --off-cpu records the whole machine. The kernel prepares one sample for both events at each
# switch, and the system-wide one's gets the other's event id and record size (Linux 6.1 to
# 6.18): those samples are its own, given back their event, and the report reads every record.
"$KPROF" record -a -F 99 --off-cpu -o "$WORK/x.kprof" >/dev/null 2>"$WORK/x.err" &
k=$!
attached $k
"$KPROF" record --off-cpu -g -o "$WORK/x2.kprof" -- \
	sh -c 'i=0; while [ $i -lt 40 ]; do sleep 0.01; i=$((i + 1)); done' >/dev/null 2>&1
kill -INT $k
wait $k
krc=$?
"$KPROF" report -i "$WORK/x.kprof" --event offcpu --flat >/dev/null 2>"$WORK/x.rerr"
n=$(sed -n "s/.* \([0-9]*\) samples came with another tool's event id .*/\1/p" "$WORK/x.err")
if [ -n "$n" ] || grep -q 'no recorded event' "$WORK/x.rerr"; then
	check "kprof record -a --off-cpu beside another's: ${n:-none} samples of the other's event id, each given back to its event, and the report reads every record" \
		sh -c "[ $krc -eq 0 ] && grep -q ' ${n:-x} given back to their event, 0 left out' '$WORK/x.err' && ! grep -q 'no recorded event' '$WORK/x.rerr'"
else
	skip "this kernel gave kprof -a none of the other recording's event ids (status $krc)"
fi
done_testing
