#!/bin/sh
# Live: the terminal views, kprof top and kprof report --tui, driven as a user drives them:
# in a terminal (a tmux pane of its own server), keys typed with send-keys, the screen read
# back with capture-pane. The shares are held to split's own clocks; after q the terminal's
# line editing and echo must be back.
. "$top_srcdir/tests/live/lib.sh"
require_perf_events

if ! command -v tmux >/dev/null; then
	skip_all "tmux is not installed (contrib/setup.sh --check installs it): no terminal to type into"
fi
SOCK="$WORK/tmux.sock"
# the panes run their commands with /bin/sh, whatever the caller's $SHELL: the same test here
# as on a machine whose root shell is dash
T() { SHELL=/bin/sh tmux -S "$SOCK" "$@"; }
spid=
cleanup() {
	tmux -S "$SOCK" kill-server 2>/dev/null
	[ -z "$spid" ] || kill "$spid" 2>/dev/null
	rm -rf "$WORK"
}
# the pane's server and split are this test's: ended also when the test itself is stopped
trap cleanup EXIT
trap 'cleanup; trap - EXIT; exit 1' HUP INT TERM

# screen: the pane as it shows now, into $WORK/screen
screen() { T capture-pane -p -t k >"$WORK/screen" 2>/dev/null; }
# wait_for ERE TENTHS: until the screen shows a line matching ERE (true), or TENTHS tenths of a
# second went by (false)
wait_for() {
	i=0
	while [ $i -lt "$2" ]; do
		screen
		grep -qE "$1" "$WORK/screen" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
# share_on_screen FUNC: the first share of FUNC's row
share_on_screen() { awk -v f="$1" '{ for (i = 3; i <= NF; i++) if ($i == f) { sub("%", "", $1); print $1; exit } }' "$WORK/screen"; }
# restored: the shell after kprof has its line editing and echo (stty -a, printed after it)
# (its last line, the local modes, can be a moment behind the status line)
restored() {
	wait_for 'echoctl' 20
	tr ' ;' '\n\n' <"$WORK/screen" | grep -qx icanon && tr ' ;' '\n\n' <"$WORK/screen" | grep -qx echo
}

"$SPLIT" 1 >"$WORK/truth.out"

# --- kprof top ---------------------------------------------------------------------------------
"$SPLIT" 30 >/dev/null &
spid=$!
sleep 0.3
T new-session -d -s k -x 120 -y 40 \
	"'$KPROF' top -g -p $spid -d 1; echo top-status=\$?; stty -a; sleep 60"
start=$(date +%s)
check "top: split's work_a on the screen within 5 s" wait_for ' work_a +\[split\]' 50
check "...under a header of samples/s, event and interval" \
	grep -qE '^kprof top: [0-9]+ samples/s of cpu-clock \(-F 4000\) over [0-9.]+ s' "$WORK/screen"
while [ $(($(date +%s) - start)) -lt 3 ]; do sleep 0.2; done
screen
got=$(share_on_screen work_a)
want=$(truth_of work_a "$WORK/truth.out")
check "top after 2 s: work_a ${got:-none}% within $SHARE_POINTS points of split's ${want:-none}%" \
	points "${got:--100}" "${want:-0}" "$SHARE_POINTS"
# / filters by a regular expression on the symbol; while it is typed, slowly, top goes on
# draining and counting (a prompt that waited for Enter would stop the recorder)
total() { sed -n 's/.*; \([0-9]*\) samples in all$/\1/p' "$WORK/screen" | head -1; }
T send-keys -t k / && sleep 0.3 && T send-keys -t k 'work_'
wait_for '^filter \(regex' 20
before=$(total)
sleep 2
screen
after=$(total)
check "top: while the filter is typed, it goes on counting (${before:-none} then ${after:-none} samples)" \
	sh -c "[ '${after:-0}' -gt '${before:-0}' ] && grep -q '^filter (regex.*/work_' '$WORK/screen'"
T send-keys -t k '[bc]' Enter
wait_for 'filter: /work_\[bc\]/' 20
check "top: / work_[bc] keeps work_b and work_c" \
	sh -c "grep -qE ' work_b +\[split\]' '$WORK/screen' && grep -qE ' work_c +\[split\]' '$WORK/screen'"
check "...and leaves work_a out" sh -c "! grep -qE ' work_a +\[split\]' '$WORK/screen'"
# g: the selected function's callers (work_b, the first row, is called through via_right)
T send-keys -t k Home g
check "top: g shows the selected function's callers below it (work_b's via_right, main)" \
	wait_for '^ .*- work_b' 20
check "...the callers indented under it" \
	sh -c "grep -A3 -E -- '- work_b' '$WORK/screen' | grep -qE '^ +[0-9.]+% +[0-9.]+% +(via_right|main) '"
# s: the sort goes to the binaries
T send-keys -t k / Enter s
check "top: s sorts by binary (split's own row)" wait_for '^sort: dso' 20
check "...where split is the heaviest" sh -c "awk 'NR > 3 && /%/ { print \$NF; exit }' '$WORK/screen' | grep -qx split"
# the terminal resized: drawn again to its size
T resize-window -t k -x 70 -y 20 2>/dev/null || T resize-pane -t k -x 70 -y 20
sleep 1.5
screen
check "top: resized to 70x20, the screen is drawn to it" \
	sh -c "grep -q '^kprof top: ' '$WORK/screen' && [ \$(awk '{ if (length > m) m = length } END { print m }' '$WORK/screen') -le 70 ]"
T resize-window -t k -x 120 -y 40 2>/dev/null || T resize-pane -t k -x 120 -y 40
T send-keys -t k q
check "top: q quits, with status 0" wait_for '^top-status=0' 30
check "...and the terminal has its line editing and echo back" restored
T kill-session -t k 2>/dev/null
# from here on top needs a process to attach to, not one that burns a CPU meanwhile
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
sleep 60 &
spid=$!
# Ctrl-C, typed. It reaches the pane's whole foreground group: the shell that runs kprof
# there catches it (as a user's interactive shell, not in that group, is never sent it), or a
# dash would end with kprof and print nothing after
T new-session -d -s k -x 120 -y 40 "trap : INT; '$KPROF' top -p $spid -d 1; echo top-status=\$?; stty -a; sleep 60"
wait_for '^kprof top: ' 50
T send-keys -t k C-c
check "top: Ctrl-C ends it with status 0" wait_for '^top-status=0' 30
check "...and gives the terminal back" restored
T kill-session -t k 2>/dev/null
# SIGTERM, as a service manager or kill sends it
T new-session -d -s k -x 120 -y 40 "'$KPROF' top -p $spid -d 1; echo top-status=\$?; stty -a; sleep 60"
wait_for '^kprof top: ' 50
pkill -TERM -f "^$KPROF top -p $spid -d 1" 2>/dev/null
check "top: SIGTERM ends it with status 0" wait_for '^top-status=0' 30
check "...and gives the terminal back" restored
T kill-session -t k 2>/dev/null
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null

# --- kprof report --tui --------------------------------------------------------------------------
"$KPROF" record -g -o "$WORK/r.kprof" -- "$SPLIT" 1 >"$WORK/r.out" 2>"$WORK/r.err"
T new-session -d -s k -x 120 -y 40 \
	"'$KPROF' report --tui -i '$WORK/r.kprof'; echo rep-status=\$?; stty -a; sleep 60"
check "report --tui: the tree, its heaviest command open" wait_for '^ +100\.00% +[0-9.]+% - split$' 50
check "...under a header naming the file and event" \
	grep -qE "^kprof report: '.*r\.kprof', cpu-clock: [0-9]+ samples" "$WORK/screen"
# Down to __libc_start_call_main, Enter opens it: main below
T send-keys -t k Down Enter
check "report --tui: Enter opens a node (main below __libc_start_call_main)" \
	wait_for '^ +[0-9.]+% +[0-9.]+% +\+ main$' 20
T send-keys -t k Down Right
check "...Right opens the next (split's functions below main)" wait_for ' work_b$' 20
# f: the flat list, which holds split's known split
T send-keys -t k f
wait_for '^the flat list' 20
for f in work_a work_b; do
	got=$(share_on_screen "$f")
	want=$(truth_of "$f" "$WORK/r.out")
	check "report --tui, flat: $f ${got:-none}% within $SHARE_POINTS points of split's ${want:-none}%" \
		points "${got:--100}" "${want:-0}" "$SHARE_POINTS"
done
T send-keys -t k / && sleep 0.3 && T send-keys -t k 'work_c' Enter
# kept_rows: the screen shows work_c's row and no row that /work_c/ does not match (a kernel
# function such as task_work_cancel may match too); the filter's line can come before the rows
kept_rows() {
	screen
	grep -E '^ +[0-9.]+% +[0-9.]+% ' "$WORK/screen" >"$WORK/rows"
	grep -qE ' work_c$' "$WORK/rows" && ! grep -v 'work_c' "$WORK/rows" | grep -q .
}
wait_for 'filter: /work_c/' 20
i=0
while [ $i -lt 30 ] && ! kept_rows; do sleep 0.1; i=$((i + 1)); done
check "report --tui: / work_c leaves work_c's row and only rows that match ($(wc -l <"$WORK/rows"))" kept_rows
kept_rows || sed 's/^/# /' "$WORK/screen"
# a: the selected function annotated on a screen of its own; q back to the list
T send-keys -t k a
check "report --tui: a annotates work_c" wait_for '^kprof annotate: work_c' 50
T send-keys -t k q
check "...q goes back to the list" wait_for '^the flat list' 20
# c: callees at the top
T send-keys -t k / Enter f c
check "report --tui: c turns the tree over (work_a at the top)" \
	wait_for '^ +[0-9.]+% +[0-9.]+% \+ work_a$' 50
T send-keys -t k q
check "report --tui: q quits, with status 0" wait_for '^rep-status=0' 30
check "...and the terminal has its line editing and echo back" restored
T kill-session -t k 2>/dev/null

# --- the terminal hangs up (its window closed, its ssh dropped) ------------------------------------
# setsid: no SIGHUP comes (the pane is not its controlling terminal), only reads that fail: each
# must end, not spin on a dead terminal
# gone PATTERN: no process matches within 10 s (one that still does is ended: false). What it
# catches is a kprof that never ends (one spun for 42 minutes on a dead terminal); the
# sanitizer build's exit, its leak check included, took over 3 s on a loaded machine
gone() {
	i=0
	while pgrep -f "$1" >/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	! pgrep -f "$1" >/dev/null && return 0
	pkill -KILL -f "$1"
	return 1
}
for how in "" "setsid -w "; do
	T new-session -d -s k -x 100 -y 30 "$how'$KPROF' report --tui -i '$WORK/r.kprof'"
	wait_for '^kprof report: ' 50
	T kill-session -t k
	check "report --tui ${how:+under $how}ends when its terminal hangs up" \
		gone "^$KPROF report --tui -i $WORK/r.kprof"
done
sleep 30 &
spid=$!
T new-session -d -s k -x 100 -y 30 "setsid -w '$KPROF' top -p $spid -d 1"
wait_for '^kprof top: ' 50
T kill-session -t k
check "top under setsid -w ends when its terminal hangs up" gone "^$KPROF top -p $spid -d 1"
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null

# --- without a terminal ----------------------------------------------------------------------------
"$KPROF" report --tui -i "$WORK/r.kprof" </dev/null >"$WORK/n.out" 2>"$WORK/n.err"
check "report --tui without a terminal: an error that says so, status 1" \
	sh -c "[ $? -eq 1 ] && grep -q 'must be a terminal' '$WORK/n.err'"
"$KPROF" report --tui -o "$WORK/x" -i "$WORK/r.kprof" >/dev/null 2>"$WORK/u.err"
check "report --tui -o: a usage error" sh -c "[ $? -eq 2 ] && grep -q 'not with -o' '$WORK/u.err'"
done_testing
