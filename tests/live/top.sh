#!/bin/sh
# Live: kprof top, the hottest functions as they run. Without a terminal it prints one snapshot
# after the first interval (a script's use). The shares are held to split's own clocks.
. "$top_srcdir/tests/live/lib.sh"
require_perf_events

# --- one snapshot of one process -------------------------------------------------------------
# split burns 3 s of CPU in rounds of its three functions, so that a window of it splits as
# the whole run does: its own clocks at exit are the truth for the 2 s top watched of it
"$SPLIT" 3 >"$WORK/truth.out" &
spid=$!
sleep 0.5
"$KPROF" top -p "$spid" -d 2 -E 5 >"$WORK/p.top" 2>"$WORK/p.err"
rc=$?
wait "$spid"
check "top -p without a terminal prints one snapshot and exits 0" \
	sh -c "[ $rc -eq 0 ] && [ \$(grep -c '^# kprof top: ' '$WORK/p.top') -eq 1 ]"
check "...its header: samples/s, the event, the interval, lost, idle" \
	grep -qE '^# kprof top: [0-9]+ samples/s of cpu-clock \(-F 4000\) over [0-9.]+ s, [0-9]+ lost, [0-9]+% idle \(left out\); [0-9]+ samples in all$' "$WORK/p.top"
check "...at most 5 functions" sh -c "[ \$(grep -vc '^#' '$WORK/p.top') -le 5 ]"
first=$(grep -v '^#' "$WORK/p.top" | head -1 | awk '{ print $2 }')
check "the hottest function is split's work_a ($first)" [ "$first" = work_a ]
for f in work_a work_b; do
	got=$(awk -v f="$f" '$2 == f { sub("%", "", $1); print $1 }' "$WORK/p.top")
	want=$(truth_of "$f" "$WORK/truth.out")
	check "$f: ${got:-none}% within $SHARE_POINTS points of split's ${want:-none}%" points "${got:--100}" "${want:-0}" $SHARE_POINTS
done

# --- a loop inlined into its caller (tests/workloads/inline): counted for the function that
# holds its code, as perf names it (and kprof report: report.sh), or with --inline-self for the
# inlined function. Two tops watch one run.
"$top_builddir/tests/workloads/inline" 4 >/dev/null &
ipid=$!
"$KPROF" top -p "$ipid" -d 0.5 -E 1 >"$WORK/i.top" 2>&1 &
tpid=$!
"$KPROF" top -p "$ipid" -d 0.5 -E 1 --inline-self >"$WORK/is.top" 2>&1
rc=$?
wait "$tpid"
rc0=$?
kill "$ipid" 2>/dev/null
wait "$ipid" 2>/dev/null
first=$(awk '!/^#/ { print $2; exit }' "$WORK/i.top")
check "top names the inlined loop by the function holding its code ($first)" \
	[ $rc0 -eq 0 -a "$first" = "shapes::Engine::spin(long)" ]
first=$(awk '!/^#/ { print $2; exit }' "$WORK/is.top")
check "top --inline-self names the inlined function ($first)" \
	[ $rc -eq 0 -a "$first" = "shapes::Accumulator<double>::add(double)" ]

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

# --- -o: what it shows, also written to a file ---------------------------------------------------
"$SPLIT" 4 >/dev/null &
spid=$!
sleep 0.3
"$KPROF" top -p "$spid" -d 1 -E 3 -o "$WORK/top.kprof" >"$WORK/o.top" 2>"$WORK/o.err"
rc=$?
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
check "top -o: status 0, and it says where the recording is" \
	sh -c "[ $rc -eq 0 ] && grep -q \"the recording is in '$WORK/top.kprof'\" '$WORK/o.err'"
check "...written as a recording is: mode 0600 ($(stat -c %a "$WORK/top.kprof"))" \
	[ "$(stat -c %a "$WORK/top.kprof")" = 600 ]
"$KPROF" report -i "$WORK/top.kprof" --flat --color never >"$WORK/o.flat" 2>"$WORK/o.rerr"
check "...a recording kprof report reads whole (its final counts at the end)" \
	sh -c "[ $? -eq 0 ] && ! grep -q 'did not finish' '$WORK/o.flat' '$WORK/o.rerr' && grep -q '^# kprof report of ' '$WORK/o.flat'"
check "...with split's work_a first" sh -c "awk '!/^#/ && NF { print \$NF; exit }' '$WORK/o.flat' | grep -qx work_a"
shown=$(sed -n 's/.*; \([0-9]*\) samples in all$/\1/p' "$WORK/o.top")
kept=$(sed -n "s/^# kprof report of .*': \([0-9]*\) samples.*/\1/p" "$WORK/o.flat")
check "...and at least the samples top counted (${kept:-none} against ${shown:-none})" \
	sh -c "[ '${kept:-0}' -ge '${shown:-1}' ]"
"$KPROF" top -d 1 -o /nonexistent/dir/x.kprof >/dev/null 2>"$WORK/o.err2"
check "top -o into a folder that does not exist: status 1, the error says so" \
	sh -c "[ $? -eq 1 ] && grep -q \"cannot create '/nonexistent/dir/x.kprof'\" '$WORK/o.err2'"
echo keep >"$WORK/o.target"
ln -sf "$WORK/o.target" "$WORK/o.link"
"$KPROF" top -d 1 -o "$WORK/o.link" >/dev/null 2>"$WORK/o.err3"
check "top -o at a symbolic link: refused as every -o refuses one (status $?), the file it names kept" \
	sh -c "[ $? -eq 1 ] && grep -q \"'$WORK/o.link' is a symbolic link: kprof does not write through one\" '$WORK/o.err3' &&
		[ \"\$(cat '$WORK/o.target')\" = keep ]"

# (on a terminal, its keys and screen: tui.sh)

# --- usage -------------------------------------------------------------------------------------
"$KPROF" top -d 0 >"$WORK/u.out" 2>"$WORK/u.err"
check "-d 0 is a usage error" sh -c "[ $? -eq 2 ] && [ ! -s '$WORK/u.out' ] && grep -q 'kprof top: -d must be a number from 0.1 to 3600' '$WORK/u.err'"
"$KPROF" top -- ls >"$WORK/u.out" 2>"$WORK/u.err"
check "a command is a usage error" sh -c "[ $? -eq 2 ] && grep -q 'no command' '$WORK/u.err'"
# the target options are one parser's: -m 65536 (256 MiB a ring) is one usage error everywhere
for c in record trace latency top; do
	"$KPROF" $c -m 65536 -a >/dev/null 2>"$WORK/m.err"
	check "$c -m 65536: status 2 ($?), the limit named as record names it" \
		sh -c "[ $? -eq 2 ] && grep -qxF 'kprof $c: -m 65536 is more than a ring may hold: at most 128 MiB a CPU (32768 pages)' '$WORK/m.err'"
done
done_testing
