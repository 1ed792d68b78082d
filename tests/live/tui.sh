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
# one server for the whole test: without a session it would exit, and a new session made at once
# after a kill-session could reach it as it exits ("server exited unexpectedly")
T start-server \; set-option -g exit-empty off
spid=
cleanup() {
	tmux -S "$SOCK" kill-server 2>/dev/null
	[ -z "$spid" ] || kill "$spid" 2>/dev/null
	rm -rf "$WORK"
}
# the pane's server and split are this test's: ended also when the test itself is stopped
trap cleanup EXIT
trap 'cleanup; trap - EXIT; exit 1' HUP INT TERM

ESC=$(printf '\033')
# screen: the pane as it shows now, into $WORK/screen, and its selected row into $WORK/sel: the
# first line in reverse video (the keys' line at the bottom is the last), without its colours.
# One capture gives both, so that they show the same moment.
screen() {
	T capture-pane -e -p -t k >"$WORK/screen.e" 2>/dev/null
	sed "s/$ESC\[[0-9;]*m//g; s/ *\$//" "$WORK/screen.e" >"$WORK/screen"
	grep -E "$ESC\[([0-9]+;)*7[;m]" "$WORK/screen.e" | head -1 |
		sed "s/$ESC\[[0-9;]*m//g; s/ *\$//" >"$WORK/sel"
}
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
# wait_until TENTHS COMMAND...: until COMMAND succeeds on the screen as it shows now ($WORK/screen,
# $WORK/sel), or TENTHS tenths of a second went by
wait_until() {
	n=$1
	shift
	i=0
	while [ $i -lt "$n" ]; do
		screen
		"$@" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
# hottest_selected: an annotation is on the screen, and its hottest instruction is selected
insn='^ +[0-9.]+% +[0-9]+ +[0-9a-f]+:  '
hottest_selected() {
	max=$(grep -E "$insn" "$WORK/screen" | awk '{ v = $1 + 0; if (v > m) m = v } END { print m + 0 }')
	got=$(grep -E "$insn" "$WORK/sel" | awk '{ print $1 + 0 }')
	[ -n "$got" ] && [ "$got" = "$max" ]
}
# help_lists KEY...: the help page on the screen has a line for each KEY
help_lists() {
	grep -q '^the keys' "$WORK/screen" || return 1
	for k in "$@"; do grep -qF -- "$k " "$WORK/screen" || return 1; done
}
# share_on_screen FUNC: the first share of FUNC's row
share_on_screen() { awk -v f="$1" '{ for (i = 3; i <= NF; i++) if ($i == f) { sub("%", "", $1); print $1; exit } }' "$WORK/screen"; }
# restored: the shell after kprof has its line editing and echo (stty -a, printed after it)
# (its last line, the local modes, can be a moment behind the status line)
restored() {
	wait_for 'echoctl' 20
	tr ' ;' '\n\n' <"$WORK/screen" | grep -qx icanon && tr ' ;' '\n\n' <"$WORK/screen" | grep -qx echo
}

# the report's recording, whose split also gives its own shares, the truth for top's too
"$KPROF" record -g -o "$WORK/r.kprof" -- "$SPLIT" 1 >"$WORK/r.out" 2>"$WORK/r.err"

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
want=$(truth_of work_a "$WORK/r.out")
check "top after 2 s: work_a ${got:-none}% within $SHARE_POINTS points of split's ${want:-none}%" \
	points "${got:--100}" "${want:-0}" "$SHARE_POINTS"
# / filters by a regular expression on the symbol; while it is typed, slowly, top goes on
# draining and counting (a prompt that waited for Enter would stop the recorder)
total() { sed -n 's/.*; \([0-9]*\) samples in all$/\1/p' "$WORK/screen" | head -1; }
# (the selection on the list's last row first: a cold function, which the filter hides)
T send-keys -t k End /
wait_for '^filter \(regex' 20
T send-keys -t k 'work_'
wait_for '^filter \(regex.*/work_' 20
before=$(total)
# counting_on: a refresh (every second) counted more, the filter still being typed
counting_on() { [ "$(total)" -gt "${before:-0}" ] 2>/dev/null && grep -q '^filter (regex.*/work_$' "$WORK/screen"; }
wait_until 30 counting_on
check "top: while the filter is typed, it goes on counting (${before:-none} then $(total) samples)" \
	counting_on
T send-keys -t k '[bc]' Enter
wait_for 'filter: /work_\[bc\]/' 20
check "top: / work_[bc] keeps work_b and work_c" \
	sh -c "grep -qE ' work_b +\[split\]' '$WORK/screen' && grep -qE ' work_c +\[split\]' '$WORK/screen'"
check "...and leaves work_a out" sh -c "! grep -qE ' work_a +\[split\]' '$WORK/screen'"
# the filter cleared: the selection stays on the row it went to under the filter, not back on
# the cold row it left, at the bottom of the list
T send-keys -t k / Enter
check "top: a cleared filter keeps the selection on a row the filter showed (work_b or work_c)" \
	wait_until 20 sh -c "grep -qE ' work_a +\[split\]' '$WORK/screen' && grep -qE ' work_[bc] +\[split\]' '$WORK/sel'"
# g: the selected function's callers (work_a, the first row, is called through via_left and
# via_right)
T send-keys -t k Home g
check "top: g shows the selected function's callers below it (work_a's via_left, via_right)" \
	wait_for '^ .*- work_a' 20
check "...the callers indented under it" \
	sh -c "grep -A3 -E -- '- work_a' '$WORK/screen' | grep -qE '^ +[0-9.]+% +[0-9.]+% +(via_left|via_right) '"
# E, C: every function's callers, then none
T send-keys -t k E
check "top: E shows every function's callers (work_b's too)" wait_for '^ .*- work_b' 20
T send-keys -t k C
check "top: C hides them all" wait_until 20 sh -c \
	"grep -qE '\+ work_a +\[split\]' '$WORK/screen' && ! grep -qE '^ +[0-9.]+% +[0-9.]+% ' '$WORK/screen'"
# a: the selected function annotated from what top counted, at its hottest instruction
T send-keys -t k Home a
check "top: a annotates the selected function (work_a)" wait_for '^kprof annotate: work_a' 50
check "...opened at its hottest instruction" wait_until 20 hottest_selected
T send-keys -t k Tab
check "...Tab goes to the next hottest" wait_for '^hot line 2 of [0-9]+, ' 20
T send-keys -t k Escape
check "...Escape goes back to the list" wait_for '^sort: sym' 20
# h: every key
T send-keys -t k h
check "top: h lists every key" wait_until 20 help_lists "g, Enter" "Right, +" "Left, -" E C a Tab \
	Shift-Tab / s k z "h, ?" "q, Escape" Ctrl-L
T send-keys -t k q
check "...q goes back to the list" wait_for '^sort: sym' 20
# s: the sort goes to the binaries
T send-keys -t k s
check "top: s sorts by binary (split's own row)" wait_for '^sort: dso' 20
check "...where split is the heaviest" sh -c "awk 'NR > 3 && /%/ { print \$NF; exit }' '$WORK/screen' | grep -qx split"
# the terminal resized: drawn again to its size
T resize-window -t k -x 70 -y 20 2>/dev/null || T resize-pane -t k -x 70 -y 20
check "top: resized to 70x20, the screen is drawn to it" wait_until 30 sh -c \
	"grep -q '^kprof top: ' '$WORK/screen' && [ \$(wc -l <'$WORK/screen') -le 20 ] && [ \$(awk '{ if (length > m) m = length } END { print m }' '$WORK/screen') -le 70 ]"
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
T new-session -d -s k -x 120 -y 40 \
	"'$KPROF' report --tui -i '$WORK/r.kprof'; echo rep-status=\$?; stty -a; sleep 60"
check "report --tui: its first screen, with no key, shows the hottest function, work_a, selected" \
	wait_until 50 grep -qE '% +[-+]? work_a$' "$WORK/sel"
check "...on its path in the tree, open from its command" \
	grep -qE '^ +100\.00% +[0-9.]+% - split$' "$WORK/screen"
check "...under a header naming the file and event" \
	grep -qE "^kprof report: '.*r\.kprof', cpu-clock: [0-9]+ samples" "$WORK/screen"
# a: the selected function annotated on a page of its own, at its hottest instruction
T send-keys -t k a
check "report --tui: a annotates the selected function (work_a)" wait_for '^kprof annotate: work_a' 50
check "...opened at its hottest instruction" wait_until 20 hottest_selected
T send-keys -t k Tab
check "...Tab goes to the next hottest" wait_for '^hot line 2 of [0-9]+, ' 20
T send-keys -t k BTab
check "...Shift-Tab to the one before" wait_until 20 sh -c "grep -q '^hot line 1 of' '$WORK/screen'"
check "...the hottest, selected" hottest_selected
T send-keys -t k Escape
check "...Escape goes back to the tree" wait_for '^callers at the top' 20
T send-keys -t k '?'
check "report --tui: ? lists every key" wait_until 20 help_lists Enter "Right, +" "Left, -" E C f s / \
	c e t a Tab Shift-Tab "h, ?" "q, Escape" Ctrl-L
T send-keys -t k q
check "...q goes back to the tree" wait_for '^callers at the top' 20
# E, C: every node open, every node closed
T send-keys -t k E
check "report --tui: E opens every node" wait_until 20 sh -c \
	"grep -qE '^ +[0-9.]+% +[0-9.]+% +- ' '$WORK/screen' && ! grep -qE '^ +[0-9.]+% +[0-9.]+% +\+ ' '$WORK/screen'"
T send-keys -t k C
check "report --tui: C closes every node: split alone, selected" wait_until 20 sh -c \
	"[ \$(grep -cE '^ +[0-9.]+% ' '$WORK/screen') -eq 1 ] && grep -qE '% \+ split$' '$WORK/sel'"
# Enter and + open a node
T send-keys -t k Enter
check "report --tui: Enter opens a node (__libc_start_call_main below split)" \
	wait_for '^ +[0-9.]+% +[0-9.]+% +\+ __libc_start_call_main$' 20
T send-keys -t k Down +
check "...+ opens the next (main below __libc_start_call_main)" wait_for '^ +[0-9.]+% +[0-9.]+% +\+ main$' 20
# a filter, then none: the selection stays on the node the filter found, its path opened
# (main was closed); work_c$ matches no kernel function (task_work_cancel)
T send-keys -t k / 'work_c$' Enter
wait_for 'filter: /work_c\$/' 20
T send-keys -t k End / Enter
check "report --tui: a cleared filter keeps the row it selected (work_c) on the screen, selected" \
	wait_until 20 sh -c "grep -q '^no filter' '$WORK/screen' && grep -qE ' work_c$' '$WORK/sel'"
# f: the flat list, which holds split's known split
T send-keys -t k f
wait_for '^the flat list' 20
for f in work_a work_b; do
	got=$(share_on_screen "$f")
	want=$(truth_of "$f" "$WORK/r.out")
	check "report --tui, flat: $f ${got:-none}% within $SHARE_POINTS points of split's ${want:-none}%" \
		points "${got:--100}" "${want:-0}" "$SHARE_POINTS"
done
# c turns the tree over, not the list (whose self shares, inverted, would all be 0)
self_a=$(share_on_screen work_a)
list_kept() { grep -q '^c turns the tree over' "$WORK/screen" && [ "$(share_on_screen work_a)" = "$self_a" ]; }
T send-keys -t k c
check "report --tui: c in the list says it turns the tree, the list as it was (work_a $self_a%)" \
	wait_until 20 list_kept
# / keeps what matches; the selection is first on the list's last row, a cold function the
# filter hides
T send-keys -t k End / 'work_c$' Enter
# kept_rows: the screen shows work_c's row and no other (work_c$ matches no kernel function such
# as task_work_cancel); the filter's line can come before the rows
kept_rows() {
	screen
	grep -E '^ +[0-9.]+% +[0-9.]+% ' "$WORK/screen" >"$WORK/rows"
	grep -qE ' work_c$' "$WORK/rows" && ! grep -vE ' work_c$' "$WORK/rows" | grep -q .
}
wait_for 'filter: /work_c\$/' 20
i=0
while [ $i -lt 30 ] && ! kept_rows; do sleep 0.1; i=$((i + 1)); done
check "report --tui: / work_c\$ leaves work_c's row alone ($(wc -l <"$WORK/rows"))" kept_rows
kept_rows || sed 's/^/# /' "$WORK/screen"
# the filter cleared: the selection stays on the row the filter moved it to, work_c's, not back
# on the cold row that the filter hid, at the bottom of the list
T send-keys -t k / Enter
check "report --tui: a cleared filter keeps the selection on work_c's row, the list from its top" \
	wait_until 20 sh -c "grep -q '^no filter' '$WORK/screen' && grep -qE ' work_a$' '$WORK/screen' && grep -qE ' work_c$' '$WORK/sel'"
# c: callees at the top, each with its own self beside its total, as perf shows it
T send-keys -t k f c
check "report --tui: c turns the tree over (work_a at the top), its self its total" \
	wait_for '^ +([0-9.]+)% +\1% \+ work_a$' 50
T send-keys -t k Escape
check "report --tui: Escape quits, with status 0" wait_for '^rep-status=0' 30
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
