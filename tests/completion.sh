#!/bin/sh
# The bash completion (src/completion/kprof), called as bash calls it, in a bash subshell
# with COMP_WORDS and COMP_CWORD set: commands, a command's options from its --help, -e
# event names from kprof list, trace -e's system calls, the events of the recording that
# report --event reads, -i recordings only, --format values, report's and top's --sort keys,
# help's commands, the command after "--", and kprof list asked once a session.
. "$top_srcdir/tests/live/lib.sh"
command -v bash >/dev/null 2>&1 || skip_all "bash is not installed"

# absolute paths: the completions run in a directory of their own
COMP="$(cd "$top_srcdir" && pwd)/src/completion/kprof"
K="$(cd "$(dirname "$KPROF")" && pwd)/$(basename "$KPROF")"
mkdir -p "$WORK/dir/sub"
: >"$WORK/dir/a.kprof"; : >"$WORK/dir/perf.data"; : >"$WORK/dir/notes.txt"
# complete WORDS...: what completing the last word offers, one per line, sorted
complete_() {
	(cd "$WORK/dir" && bash -c '. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _kprof
		printf "%s\n" "${COMPREPLY[@]}"' sh "$COMP" "$@") 2>/dev/null | sort
}
# offers WANT WORDS...: the offers are exactly WANT (space-separated, sorted)
offers() { want=$1; shift; [ "$(complete_ "$@" | paste -sd' ' -)" = "$want" ]; }
# offers_line WANT LINE WORDS...: the offers are exactly WANT where bash split LINE into WORDS
offers_line() {
	want=$1 line=$2; shift 2
	got=$( (cd "$WORK/dir" && bash -c '. "$1"; COMP_LINE=$2; COMP_POINT=${#2}; shift 2
		COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _kprof
		printf "%s\n" "${COMPREPLY[@]}"' sh "$COMP" "$line" "$@") 2>/dev/null | sort | paste -sd' ' -)
	[ "$got" = "$want" ]
}
# offers_has WANT WORDS...: WANT is among the offers
offers_has() { want=$1; shift; complete_ "$@" | grep -qxF -- "$want"; }

check "kprof rec -> record" offers "record" "$K" rec
check "kprof tr -> trace" offers "trace" "$K" tr
check "kprof record --ca -> --call-graph, once" offers "--call-graph" "$K" record --ca
check "kprof report --tim -> --time --timeline --timeline-max" offers "--time --timeline --timeline-max" "$K" report --tim
check "kprof trace --f -> --failure --filter" offers "--failure --filter" "$K" trace --f
check "kprof trace --rec -> --record" offers "--record" "$K" trace --rec
check "kprof trace --record '' -> any file, as -o" offers "a.kprof notes.txt perf.data sub" "$K" trace --record ""
check "kprof report --format t -> timeline tree" offers "timeline tree" "$K" report --format t
check "kprof report --sort comm, -> the other keys after comm, as report names them" \
	offers "comm,cgroup comm,dso comm,sym" "$K" report --sort comm,
check "kprof report -i '' -> the recordings and the directory, not notes.txt" \
	offers "a.kprof perf.data sub/" "$K" report -i ""
check "kprof record -e cpu-cl -> cpu-clock" offers "cpu-clock" "$K" record -e cpu-cl
check "kprof record -e cpu-clock,task-c -> cpu-clock,task-clock (after the comma)" \
	offers "cpu-clock,task-clock" "$K" record -e cpu-clock,task-c
if [ -r /sys/kernel/tracing/events/sched/sched_switch/id ] ||
	[ -r /sys/kernel/debug/tracing/events/sched/sched_switch/id ]; then
	check "kprof record -e sched:sched_swi -> sched:sched_switch (a tracepoint from kprof list)" \
		offers_has "sched:sched_switch" "$K" record -e sched:sched_swi
	# as an interactive bash calls it: the word split at its ':' (COMP_WORDBREAKS), the line
	# whole, and readline replacing only what follows the ':'
	check "kprof record -e sched:sched_swi<TAB> in bash -> sched_switch after the ':'" \
		offers_line "sched_switch" "kprof record -e sched:sched_swi" \
		"$K" record -e sched : sched_swi
else
	skip "tracefs is not readable here: no tracepoints to list"
fi
check "kprof record --switch-output-event cpu-cl -> cpu-clock (an event of kprof list)" \
	offers "cpu-clock" "$K" record --switch-output-event cpu-cl
check "kprof trace -e opena -> openat (a system call of kprof list --syscalls)" \
	offers_has "openat" "$K" trace -e opena
check "kprof trace -e read,opena -> read,openat (after the comma)" \
	offers_has "read,openat" "$K" trace -e read,opena
check "kprof top -s '' -> top's sort keys, not files" offers "comm comm,sym dso sym" "$K" top -s ""
check "kprof top --sort c -> comm comm,sym" offers "comm comm,sym" "$K" top --sort c
# the events of a recording: those of ./kprof.data, report's default input, or of -i's file
mkdir "$WORK/rec"
cp "$top_srcdir/tests/fuzz/corpus/raw-multi-event.kprof" "$WORK/rec/kprof.data"  # cpu-clock, task-clock
cp "$top_srcdir/tests/fuzz/corpus/tracepoint-getuid.kprof" "$WORK/rec/tp.kprof"
complete_rec() {
	(cd "$WORK/rec" && bash -c '. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _kprof
		printf "%s\n" "${COMPREPLY[@]}"' sh "$COMP" "$@") 2>/dev/null | sort | paste -sd' ' -
}
# (what a check says it got: its first 60 characters)
short() { printf '%.60s' "$1"; }
got=$(complete_rec "$K" report --event "")
check "kprof report --event '' -> the events of ./kprof.data, not every event ($(short "$got"))" \
	[ "$got" = "cpu-clock task-clock" ]
got=$(complete_rec "$K" report --input = tp.kprof --event sys)
check "kprof report --input=tp.kprof --event sys -> its tracepoint ($(short "$got"))" \
	[ "$got" = "syscalls:sys_enter_getuid" ]
got=$(complete_rec "$K" annotate -i tp.kprof --event "")
check "kprof annotate -i tp.kprof --event '' -> the same ($(short "$got"))" [ "$got" = "syscalls:sys_enter_getuid" ]
check "kprof help lat -> latency" offers "latency" "$K" help lat
check "kprof record -- s -> a program on PATH" offers_has "sh" "$K" record -- s
# kprof list is asked once a session: after a completion of -e, the shell keeps the list
n=$( (cd "$WORK/dir" && bash -c '. "$1"; shift
	COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _kprof
	printf "%s %s\n" "${#COMPREPLY[@]}" "${_kprof_cache_events:+kept}"' sh \
	"$COMP" "$K" record -e cpu-cl) 2>/dev/null)
check "the event list is kept for the session after the first completion ($n)" [ "$n" = "1 kept" ]
done_testing
