#!/bin/sh
# Live: JIT code named from jitdumps at report time, with no inject step, on
# tests/workloads/jit, a JIT of the suite's own (two functions of machine code it writes and
# describes in jit-PID.dump: loads, a move, debug info). Its shares against the workload's own
# clocks and against perf record -k mono | perf inject --jit | perf report on the same program;
# its source lines with --srcline; a dump with another process's pid ignored with a notice;
# a dump cut short read up to the cut, which is named with its offset; and Python's -X
# perf_jit where Debian's python3 has it (3.13).
. "$top_srcdir/tests/live/lib.sh"
require_perf_events
JIT="$top_builddir/tests/workloads/jit"
"$JIT" 0 "$WORK" >/dev/null 2>&1
[ $? -ne 77 ] || skip_all "the JIT workload writes x86-64 code only"
val() { sed -n "s/^$2=//p" "$1" | head -1; }
self_of() { awk -v f="$1" '$NF == f { sub("%", "", $1); print $1; exit }' "$2"; }

"$KPROF" record -g -o "$WORK/j.kprof" -- "$JIT" 1 "$WORK" >"$WORK/j.out" 2>"$WORK/j.err"
"$KPROF" report -i "$WORK/j.kprof" --flat --color never >"$WORK/j.flat" 2>"$WORK/j.rep"
hot=$(self_of jit_hot "$WORK/j.flat")
cold=$(self_of jit_cold "$WORK/j.flat")
t_hot=$(truth_of hot "$WORK/j.out")
t_cold=$(truth_of cold "$WORK/j.out")
check "jit_hot, named from the jitdump: ${hot:-none}% self, its clock's ${t_hot}%" \
	points "$hot" "$t_hot" "$SHARE_POINTS"
check "jit_cold, named after its move: ${cold:-none}% self, its clock's ${t_cold}%" \
	points "$cold" "$t_cold" "$SHARE_POINTS"
check "no warning about the dump" sh -c '! grep -q "jit-" "$1"' - "$WORK/j.rep"
"$KPROF" report -i "$WORK/j.kprof" --tree --srcline --color never >"$WORK/j.tree" 2>/dev/null
check "--srcline: jit_hot's source line from the dump's debug info" \
	grep -q "jit_hot jit-test.js:8" "$WORK/j.tree"

# perf on the same program: perf record -k mono, perf inject --jit, perf report (with its
# ~/.debug, where inject writes an ELF file per function, in the test's folder)
export HOME="$WORK"
if perf record -q -k mono -g -o "$WORK/p.data" -- "$JIT" 1 "$WORK" >"$WORK/p.out" 2>/dev/null &&
	perf inject --jit -i "$WORK/p.data" -o "$WORK/pj.data" >/dev/null 2>&1; then
	perf report -i "$WORK/pj.data" --stdio --no-children --sort sym 2>/dev/null >"$WORK/p.rep"
	p_hot=$(awk '$NF == "jit_hot" { sub("%", "", $1); print $1; exit }' "$WORK/p.rep")
	check "perf inject --jit names jit_hot too: perf ${p_hot:-none}%, kprof ${hot:-none}%" \
		points "$p_hot" "$hot" "$SHARE_POINTS_2"
else
	skip "perf record -k mono or perf inject --jit failed here"
fi

# a dump another process wrote: ignored, with a notice naming both pids
"$KPROF" record -g -o "$WORK/w.kprof" -- "$JIT" 0.3 "$WORK" --wrong-pid >"$WORK/w.out" 2>/dev/null
"$KPROF" report -i "$WORK/w.kprof" --flat --color never >"$WORK/w.flat" 2>"$WORK/w.rep"
pid=$(val "$WORK/w.out" pid)
check "a dump with another pid ($((pid + 1))) is ignored, saying so" \
	grep -q "jit-$pid.dump': written by process $((pid + 1)), not by process $pid that mapped it: ignored" "$WORK/w.rep"
check "... and its code stays unnamed" sh -c '! grep -q "jit_hot" "$1"' - "$WORK/w.flat"

# a dump cut inside its third record (jit_cold's load): read up to there, the cut named
dump=$(val "$WORK/j.out" dump)
cp "$dump" "$WORK/dump.whole"
head -c 211 "$WORK/dump.whole" >"$dump"
"$KPROF" report -i "$WORK/j.kprof" --flat --color never >"$WORK/c.flat" 2>"$WORK/c.rep"
check "a dump cut short: the records before the cut are read (jit_hot named)" \
	grep -q " jit_hot$" "$WORK/c.flat"
check "... and the warning names the record cut, at offset 191" \
	grep -q "the record at offset 191 runs past the end of the file" "$WORK/c.rep"
check "... and jit_cold, past the cut, is not named" sh -c '! grep -q " jit_cold$" "$1"' - "$WORK/c.flat"
cp "$WORK/dump.whole" "$dump"

# Python's own jitdump (-X perf_jit, Python 3.13)
if command -v python3 >/dev/null 2>&1 &&
	python3 -c 'import sys; sys.exit(0 if sys.version_info >= (3, 13) else 1)' 2>/dev/null; then
	(cd "$WORK" && "$KPROF" record -g -o "$WORK/py.kprof" -- python3 -X perf_jit -c \
		'def spin(n):
    while n: n -= 1
spin(30000000)' >/dev/null 2>&1)
	"$KPROF" report -i "$WORK/py.kprof" --flat --color never >"$WORK/py.flat" 2>/dev/null
	check "python3 -X perf_jit: its trampolines are named from its jitdump (py::spin)" \
		grep -q "py::spin" "$WORK/py.flat"
else
	skip "python3 is $(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || echo missing): -X perf_jit needs 3.13"
fi
done_testing
