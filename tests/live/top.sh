#!/bin/sh
# Live: kprof top, the hottest functions as they run. Without a terminal it prints one snapshot
# after the first interval (a script's use). The shares are held to split's own clocks.
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

# (on a terminal, its keys and screen: tui.sh)

# --- usage -------------------------------------------------------------------------------------
"$KPROF" top -d 0 >"$WORK/u.out" 2>"$WORK/u.err"
check "-d 0 is a usage error" sh -c "[ $? -eq 2 ] && [ ! -s '$WORK/u.out' ] && grep -q 'seconds from 0.1' '$WORK/u.err'"
"$KPROF" top -- ls >"$WORK/u.out" 2>"$WORK/u.err"
check "a command is a usage error" sh -c "[ $? -eq 2 ] && grep -q 'no command' '$WORK/u.err'"
done_testing
