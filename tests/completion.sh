#!/bin/sh
# The bash completion (src/completion/kprof), called as bash calls it, in a bash subshell
# with COMP_WORDS and COMP_CWORD set: commands, a command's options from its --help, -e
# event names from kprof list, -i recordings only, --format and --sort values, help's
# commands, the command after "--", and kprof list asked once a session.
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
check "kprof report --sort comm, -> the three lists after comm" \
	offers "comm,dso comm,dso,sym comm,sym" "$K" report --sort comm,
check "kprof report -i '' -> the recordings and the directory, not notes.txt" \
	offers "a.kprof perf.data sub/" "$K" report -i ""
check "kprof record -e cpu-cl -> cpu-clock" offers "cpu-clock" "$K" record -e cpu-cl
check "kprof record -e cpu-clock,task-c -> cpu-clock,task-clock (after the comma)" \
	offers "cpu-clock,task-clock" "$K" record -e cpu-clock,task-c
if [ -r /sys/kernel/tracing/events/sched/sched_switch/id ] ||
	[ -r /sys/kernel/debug/tracing/events/sched/sched_switch/id ]; then
	check "kprof record -e sched:sched_swi -> sched:sched_switch (a tracepoint from kprof list)" \
		offers_has "sched:sched_switch" "$K" record -e sched:sched_swi
else
	skip "tracefs is not readable here: no tracepoints to list"
fi
check "kprof help lat -> latency" offers "latency" "$K" help lat
check "kprof record -- s -> a program on PATH" offers_has "sh" "$K" record -- s
# kprof list is asked once a session: after a completion of -e, the shell keeps the list
n=$( (cd "$WORK/dir" && bash -c '. "$1"; shift
	COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _kprof
	printf "%s %s\n" "${#COMPREPLY[@]}" "${_kprof_cache_events:+kept}"' sh \
	"$COMP" "$K" record -e cpu-cl) 2>/dev/null)
check "the event list is kept for the session after the first completion ($n)" [ "$n" = "1 kept" ]
done_testing
