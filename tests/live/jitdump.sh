#!/bin/sh
# Live: JIT code named from jitdumps at report time, with no inject step, on
# tests/workloads/jit, a JIT of the suite's own (two functions of machine code it writes and
# describes in jit-PID.dump: loads, a move, debug info). Its shares against the workload's own
# clocks and against perf record -k mono | perf inject --jit | perf report on the same program;
# its source lines with --srcline; a dump with another process's pid ignored with a notice;
# a dump cut short read up to the cut, which is named with its offset; a code load claiming
# all memory refused; a FIFO or a device at the perf map's or the dump's path refused, not
# waited on; a perf map of another user ignored unless -f; and Python's -X perf_jit where
# Debian's python3 has it (3.13).
# DWARF stacks through JIT code, with the CFI its jitdump gives (JIT_CODE_UNWINDING_INFO):
# the workload's --unwind mode, unwound while recording (its last function compiled after the
# dump was first read) and in the report with each unwinder, reaches main as perf inject --jit
# does on the same program; without unwinding info the stacks stop there and the warnings say
# why; unwinding info whose sizes lie stops them there too, counted in --stats and named.
. "$top_srcdir/tests/live/lib.sh"
require_perf_events
JIT="$top_builddir/tests/workloads/jit"
"$JIT" 0 "$WORK" >/dev/null 2>&1
[ $? -ne 77 ] || skip_all "the JIT workload writes x86-64 code only"
val() { sed -n "s/^$2=//p" "$1" | head -1; }

"$KPROF" record -g -o "$WORK/j.kprof" -- "$JIT" 1 "$WORK" >"$WORK/j.out" 2>"$WORK/j.err"
"$KPROF" report -i "$WORK/j.kprof" --flat --color never >"$WORK/j.flat" 2>"$WORK/j.rep"
hot=$(total_of jit_hot "$WORK/j.flat")
cold=$(total_of jit_cold "$WORK/j.flat")
t_hot=$(truth_of hot "$WORK/j.out")
t_cold=$(truth_of cold "$WORK/j.out")
check "jit_hot, named from the jitdump: ${hot:-none}% in all, its clock's ${t_hot}%" \
	points "$hot" "$t_hot" "$SHARE_POINTS"
check "jit_cold, named after its move: ${cold:-none}% in all, its clock's ${t_cold}%" \
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
	p_hot=$(total_perf jit_hot "$WORK/pj.data")
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

# a code load that claims all memory (code_addr 0, code_size 2^63, where its record holds 9
# bytes of code), in jit_cold's record at offset 191: refused and named; jit_hot keeps its
# name, which that load, the later one, would take
cp "$WORK/dump.whole" "$WORK/huge.dump"
printf '\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\200' |
	dd of="$WORK/huge.dump" bs=1 seek=223 conv=notrunc 2>/dev/null
cp "$WORK/huge.dump" "$dump"
"$KPROF" report -i "$WORK/j.kprof" --flat --color never >"$WORK/h.flat" 2>"$WORK/h.rep"
check "a load claiming all memory: jit_hot keeps its name" grep -q " jit_hot$" "$WORK/h.flat"
check "... and the load is refused, its offset and size named" grep -qF \
	"the code record at offset 191 is refused: its code_size, 9223372036854775808 bytes, is more than the 9 bytes of code its record holds" "$WORK/h.rep"
cp "$WORK/dump.whole" "$dump"

# --- files others can write where the report looks, under --symfs: a FIFO or a device at the
# perf map's or the dump's path is refused, with a warning naming it and why, never waited on
# or read without end (a report that hangs is cut at 60 s and fails here); and, as perf does,
# a perf map owned by another user than the one running kprof or root, unless -f
pid=$(val "$WORK/j.out" pid)
root="$WORK/root"
pmap="$root/tmp/perf-$pid.map"
mkdir -p "$root/tmp" "$root$(dirname "$dump")"
cp "$WORK/dump.whole" "$root$dump"
rep() { timeout 60 "$KPROF" report -i "$WORK/j.kprof" --symfs "$root" --flat --color never "$@"; }
# refused WHAT PATH WHY: the report ended, named jit_hot from the dump, and said PATH is WHY
refused() {
	rep >"$WORK/r.flat" 2>"$WORK/r.rep"
	rc=$?
	check "$1: the report ends ($rc), naming jit_hot from the dump" \
		sh -c '[ "$1" -eq 0 ] && grep -q " jit_hot$" "$2"' - "$rc" "$WORK/r.flat"
	check "... and says that it is $3" grep -qF "'$2': $3, not a regular file: ignored" "$WORK/r.rep"
}
mkfifo "$pmap"
refused "a FIFO at the perf map's path" "$pmap" "a FIFO"
rm -f "$pmap"
ln -s /dev/urandom "$pmap"
refused "a link to /dev/urandom there" "$pmap" "a device"
rm -f "$pmap"
# said_of WHAT PATH WHY: the report ended, and said PATH is WHY
said_of() {
	rep >/dev/null 2>"$WORK/r.rep"
	rc=$?
	check "$1: the report ends ($rc), saying it is $3" \
		sh -c '[ "$1" -eq 0 ] && grep -qF "'"'"'$2'"'"': $3, not a regular file: ignored" "$4"' \
		- "$rc" "$2" "$3" "$WORK/r.rep"
}
mkfifo "$root$dump.fifo"
mv "$root$dump.fifo" "$root$dump"
said_of "a FIFO at the jitdump's path" "$root$dump" "a FIFO"
rm -f "$root$dump"
ln -s /dev/zero "$root$dump"
said_of "a link to /dev/zero there, none of it read" "$root$dump" "a device"
rm -f "$root$dump"
# the perf map alone names jit_hot's code (its address from the dump's first load)
hot_at=$(od -An -tx8 -j150 -N8 "$WORK/dump.whole" | tr -d ' ')
printf '%s 9 perfmap_hot\n' "$hot_at" >"$pmap"
rep >"$WORK/o.flat" 2>/dev/null
check "the perf map names jit_hot's code (perfmap_hot, at 0x$hot_at)" grep -q " perfmap_hot$" "$WORK/o.flat"
if chown nobody "$pmap" 2>/dev/null; then
	rep >"$WORK/o.flat" 2>"$WORK/o.rep"
	check "a perf map owned by nobody: ignored, as perf does" \
		sh -c '! grep -q " perfmap_hot$" "$1"' - "$WORK/o.flat"
	check "... and said, with its override" grep -qF \
		"'$pmap': not owned by the user running kprof or by root: ignored, as perf does (-f, --force reads it)" "$WORK/o.rep"
	rep -f >"$WORK/o.flat" 2>/dev/null
	check "-f reads it" grep -q " perfmap_hot$" "$WORK/o.flat"
else
	skips 3 "chown to nobody is not permitted here"
fi

# --- DWARF stacks through JIT code. jit --unwind gives each function its unwinding info: it
# spends half its time in jit_hot and jit_cold, then compiles jit_outer, which keeps no frame
# pointer and calls back into C (jit_burn, directly and through jit_relay, a frame libdw's own
# unwinder takes over), while the recording reads its dump. A stack through JIT code reaches
# main only through the dump's CFI (without it, the frame-pointer guess stops or skips main).
at_least() { awk -v m="$1" -v n="$2" 'BEGIN { exit !(m >= n) }'; }
"$KPROF" record --call-graph dwarf -o "$WORK/u.kprof" -- "$JIT" 0.5 "$WORK" --unwind \
	>"$WORK/u.out" 2>"$WORK/u.err"
"$KPROF" report -i "$WORK/u.kprof" --folded >"$WORK/u.folded" 2>"$WORK/u.rep"
m=$(reach_main_from "$WORK/u.folded" '^jit_')
check "unwound while recording: ${m}% of the JIT code's stacks reach main (at least 95)" \
	at_least "$m" 95
m_outer=$(reach_main_from "$WORK/u.folded" '^jit_outer$')
check "... ${m_outer}% of jit_outer's, compiled after the dump was first read (at least 95)" \
	at_least "$m_outer" 95
check "... through jit_relay too, where libdw's own unwinder hands JIT code over" \
	grep -q ";main;jit_outer;jit_relay;jit_burn [0-9]*\$" "$WORK/u.folded"
check "... and neither the recording nor the report says stacks stop" \
	sh -c '! grep -q "stop before" "$1" "$2"' - "$WORK/u.err" "$WORK/u.rep"
"$KPROF" record --call-graph dwarf --keep-stacks -o "$WORK/k.kprof" -- "$JIT" 0.5 "$WORK" \
	--unwind >"$WORK/k.out" 2>/dev/null
for u in libdw libunwind; do
	"$KPROF" report -i "$WORK/k.kprof" --unwinder $u --folded >"$WORK/k.$u.folded" 2>/dev/null
	m=$(reach_main_from "$WORK/k.$u.folded" '^jit_')
	check "unwound in the report by $u: ${m}% of the JIT code's stacks reach main (at least 95)" \
		at_least "$m" 95
done
# perf record -k 1 --call-graph dwarf, perf inject --jit (an ELF file per function, with its
# .eh_frame, under $WORK) and perf script, on the same program: its jit_outer stacks too
if perf record -q -k 1 --call-graph dwarf -o "$WORK/pu.data" -- "$JIT" 0.5 "$WORK" --unwind \
		>/dev/null 2>&1 && perf inject --jit -i "$WORK/pu.data" -o "$WORK/puj.data" >/dev/null 2>&1; then
	p=$(perf script -F ip,sym -i "$WORK/puj.data" 2>/dev/null |
		awk 'BEGIN { RS = "" } /jit_outer/ { t++; if (/ main\n/) m++ } END { printf "%.2f", t ? 100 * m / t : 0 }')
	check "perf reaches main from jit_outer in ${p}% of its stacks, kprof in ${m_outer}% (both 95 or more)" \
		sh -c 'at_least() { awk -v m="$1" -v n="$2" "BEGIN { exit !(m >= n) }"; }
			at_least "$1" 95 && at_least "$2" 95' - "$p" "$m_outer"
else
	skip "perf record --call-graph dwarf or perf inject --jit failed here"
fi
# without unwinding info: the stacks stop in jit_outer, and the recorder and the report say why
"$KPROF" record --call-graph dwarf -o "$WORK/n.kprof" -- "$JIT" 0.3 "$WORK" --no-unwind \
	>/dev/null 2>"$WORK/n.err"
"$KPROF" report -i "$WORK/n.kprof" --folded >/dev/null 2>"$WORK/n.rep"
check "no unwinding info: the recording says the stacks stop in JIT code without unwind info" \
	grep -q "stop before their thread's entry: .*% JIT code without unwind info" "$WORK/n.err"
check "... and so does the report, with what lets them through" \
	sh -c 'grep -q "% JIT code without unwind info" "$1" && grep -q "^hint: a JIT that writes its code.s unwinding info" "$1"' - "$WORK/n.rep"
check "... never an unreadable stack or unmapped code" \
	sh -c '! grep -Eq "unreadable stack|unmapped code" "$1" "$2"' - "$WORK/n.err" "$WORK/n.rep"
# jit_outer's unwinding info (the dump's third) with an eh_frame_hdr_size beyond its
# unwinding_size: its frames stop there, counted in --stats, the record named; nothing read
# beyond it (ASan's build runs this too)
# rec_off DUMP ID N: the offset of the Nth record of type ID in the jitdump DUMP
rec_off() {
	ro_off=40 ro_k=0 ro_size=$(wc -c <"$1")
	while [ $((ro_off + 16)) -le "$ro_size" ]; do
		ro_id=$(od -An -tu4 -j$ro_off -N4 "$1" | tr -d ' ')
		ro_len=$(od -An -tu4 -j$((ro_off + 4)) -N4 "$1" | tr -d ' ')
		[ "$ro_id" -eq "$2" ] && ro_k=$((ro_k + 1)) && [ $ro_k -eq "$3" ] && echo $ro_off && return
		[ "$ro_len" -gt 0 ] || return
		ro_off=$((ro_off + ro_len))
	done
}
dump=$(val "$WORK/k.out" dump)
cp "$dump" "$WORK/k.whole"
off=$(rec_off "$dump" 4 3)
printf '\377\377\0\0' | dd of="$dump" bs=1 seek=$((${off:-0} + 24)) conv=notrunc 2>/dev/null
"$KPROF" report -i "$WORK/k.kprof" --stats --folded >"$WORK/kb.folded" 2>"$WORK/kb.rep"
n=$(sed -n 's/.* \([0-9]*\) unusable JIT unwind info$/\1/p' "$WORK/kb.rep" | head -1)
past=$(awk -F';' '{ for (i = 3; i <= NF; i++) if ($i == "jit_outer") n++ } END { print n + 0 }' "$WORK/kb.folded")
check "unwinding info whose sizes lie: --stats counts ${n:-no} stacks stopped at unusable JIT unwind info, $past going on past jit_outer" \
	test "${n:-0}" -gt 0 -a "$past" -eq 0
check "... the record is named, at offset ${off:-none}, with why" grep -qF \
	"the unwinding info record at offset $off is unusable (DWARF stacks stop in its code): its eh_frame_hdr_size, 65535 bytes, is more than its unwinding_size" "$WORK/kb.rep"
cp "$WORK/k.whole" "$dump"

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
