#!/bin/sh
# Live: kprof top, the hottest functions as they run. Without a terminal it prints one snapshot
# after the first interval (a script's use); on one (a pty from script(1)) it redraws until
# SIGTERM. The shares are held to split's own clocks.
. "$top_srcdir/tests/live/lib.sh"
require_perf_events

# --- one snapshot of one process -------------------------------------------------------------
"$SPLIT" 6 >"$WORK/s.out" &
spid=$!
sleep 0.5
"$KPROF" top -p "$spid" -d 2 -E 5 >"$WORK/p.top" 2>"$WORK/p.err"
rc=$?
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
check "top -p without a terminal prints one snapshot and exits 0" \
	sh -c "[ $rc -eq 0 ] && [ \$(grep -c '^# kprof top: ' '$WORK/p.top') -eq 1 ]"
check "...its header: samples/s, the event, the interval, lost, idle" \
	grep -qE '^# kprof top: [0-9]+ samples/s of cpu-clock over [0-9.]+ s, [0-9]+ lost, [0-9]+% idle \(left out\); [0-9]+ samples in all$' "$WORK/p.top"
check "...at most 5 functions" sh -c "[ \$(grep -vc '^#' '$WORK/p.top') -le 5 ]"
first=$(grep -v '^#' "$WORK/p.top" | head -1 | awk '{ print $2 }')
check "the hottest function is split's work_a ($first)" [ "$first" = work_a ]
# split's own shares, from a run of the same program (killed ones print nothing)
"$SPLIT" 1 >"$WORK/truth.out"
for f in work_a work_b; do
	got=$(awk -v f="$f" '$2 == f { sub("%", "", $1); print $1 }' "$WORK/p.top")
	want=$(truth_of "$f" "$WORK/truth.out")
	check "$f: ${got:-none}% within $SHARE_POINTS points of split's ${want:-none}%" points "${got:--100}" "${want:-0}" $SHARE_POINTS
done

# --- the whole machine -------------------------------------------------------------------------
"$SPLIT" 4 >/dev/null &
spid=$!
sleep 0.3
"$KPROF" top -d 1 -E 10 >"$WORK/a.top" 2>"$WORK/a.err"
rc=$?
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
check "top (system-wide, the default) names split's work_a among the hottest" \
	sh -c "[ $rc -eq 0 ] && grep -qE '^ +[0-9.]+%  work_a  \\[split\\]\$' '$WORK/a.top'"

# --- on a terminal: redrawn until SIGTERM --------------------------------------------------------
if command -v script >/dev/null; then
	# script(1) reads its standard input for the pty: a FIFO this shell holds open, so that it
	# never sees the end of it (make check's input may be closed) and hangs up on kprof
	mkfifo "$WORK/tty.in"
	exec 3<>"$WORK/tty.in"
	script -qfec "'$KPROF' top -d 0.5 -E 3" "$WORK/tty.out" <"$WORK/tty.in" >/dev/null 2>&1 &
	spid=$!
	i=0
	n=0
	while [ "$n" -lt 3 ] && [ $i -lt 100 ]; do
		sleep 0.1; i=$((i + 1))
		n=$(grep -c 'kprof top: ' "$WORK/tty.out" 2>/dev/null)
		n=${n:-0}
	done
	pkill -TERM -f "^$KPROF top -d 0.5 -E 3" 2>/dev/null # kprof, not script(1) around it
	wait "$spid"
	rc=$?
	exec 3>&-
	n=$(grep -c 'kprof top: ' "$WORK/tty.out")
	check "on a terminal it redraws each interval ($n screens), clearing the screen first" \
		sh -c "[ $n -ge 3 ] && grep -q \"\$(printf '\\033\\[H\\033\\[2J')\" '$WORK/tty.out'"
	check "...and SIGTERM ends it with status 0" [ "$rc" -eq 0 ]
	# q, typed on the terminal, quits; the terminal's line editing and echo are back after
	exec 3<>"$WORK/tty.in"
	script -qfec "'$KPROF' top -d 0.5 -E 3; echo top-status=\$?; stty -a" "$WORK/q.out" \
		<"$WORK/tty.in" >/dev/null 2>&1 &
	spid=$!
	i=0 n=0
	while [ "$n" -lt 1 ] && [ $i -lt 100 ]; do
		sleep 0.1; i=$((i + 1))
		n=$(grep -c 'kprof top: ' "$WORK/q.out" 2>/dev/null)
		n=${n:-0}
	done
	printf q >&3
	i=0
	while ! grep -q 'top-status=' "$WORK/q.out" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1; i=$((i + 1))
	done
	pkill -TERM -f "^$KPROF top -d 0.5 -E 3" 2>/dev/null # (only if q was not taken)
	wait "$spid"
	exec 3>&-
	check "on a terminal q quits, with status 0" grep -q 'top-status=0' "$WORK/q.out"
	check "...and the terminal has its line editing and echo back" \
		sh -c "tr ' ;' '\n\n' <'$WORK/q.out' | tr -d '\r' | grep -qx icanon && tr ' ;' '\n\n' <'$WORK/q.out' | tr -d '\r' | grep -qx echo"
else
	skips 4 "script(1) (util-linux) is not installed: no pty"
fi

# --- usage -------------------------------------------------------------------------------------
"$KPROF" top -d 0 >"$WORK/u.out" 2>"$WORK/u.err"
check "-d 0 is a usage error" sh -c "[ $? -eq 2 ] && [ ! -s '$WORK/u.out' ] && grep -q 'seconds from 0.1' '$WORK/u.err'"
"$KPROF" top -- ls >"$WORK/u.out" 2>"$WORK/u.err"
check "a command is a usage error" sh -c "[ $? -eq 2 ] && grep -q 'no command' '$WORK/u.err'"
done_testing
