#!/bin/sh
# Live: DWARF unwinding of registers and stack copies that cannot be trusted. A recording of
# split-nofp with --keep-stacks is copied by tests/tools/mangle-stacks with its samples' copies
# damaged (random or zeroed stack bytes, garbage SP/IP/BP, a dyn_size beyond the copy, all of
# them mixed); report, folded output and script must read every copy without failing, lose no
# sample silently, and count what did not unwind, with libdw and with libunwind, and through
# kprof unwind. Then SP 0 and BP near 2^64 on the frame-pointer build, for a bounds check that
# wraps. Under the sanitizer build this is also the test that no damage makes the unwinder
# read outside the copy.
. "$top_srcdir/tests/live/lib.sh"
require_perf_events
NOFP="$top_builddir/tests/workloads/split-nofp"
MANGLE="$top_builddir/tests/tools/mangle-stacks"
SEED=${KPROF_MANGLE_SEED:-1}	# the damage is a function of the seed: failures reproduce

# stats FILE [OPTION]: "SHOWN SKIPPED COPIES FAILED" from report --flat --stats and its
# warnings; the exit status goes to FILE.rc
stats() {
	"$KPROF" report -i "$1" ${2:+"$2"} --flat --stats --color never >"$1.flat" 2>"$1.err"
	echo $? >"$1.rc"
	awk -v err="$1.err" '
		/^# samples: / { shown = $3 }
		/^# DWARF unwinding: / { copies = $4; failed = $10 }
		END { while ((getline l < err) > 0)
				if (match(l, /[0-9]+ samples were .* skipped/)) skipped = substr(l, RSTART) + 0
			printf "%d %d %d %d\n", shown, skipped, copies, failed }' "$1.flat"
}
# ran RC ERRFILE: the command exited RC = 0 and said nothing of a sanitizer or a crash
ran() { [ "$1" -eq 0 ] && ! grep -q "Sanitizer\|runtime error\|Segmentation fault\|Aborted" "$2"; }

# split's stacks fit in 8 KiB copies: the default's 32 KiB would make every pass below read four
# times the bytes, for no stack more
"$KPROF" record --call-graph dwarf,8192 --keep-stacks -o "$WORK/in.kprof" -- "$NOFP" 0.5 \
	>/dev/null 2>"$WORK/rec.err"
check "record --call-graph dwarf,8192 --keep-stacks succeeds" [ $? -eq 0 ]
set -- $(stats "$WORK/in.kprof")
n0=$1 f0=$4
check "the intact recording unwinds: $4 of $3 stacks failed, $1 samples" \
	[ "$1" -gt 100 -a "$3" -le "$1" -a "$3" -ge $(($1 * 99 / 100)) -a "$4" -lt $(($3 / 10 + 1)) ]
for mode in stack regs dyn zero mix; do
	f=$WORK/$mode.kprof
	"$MANGLE" "$mode" "$SEED" "$WORK/in.kprof" "$f" >"$WORK/$mode.out" 2>&1
	d=$(sed -n 's/^damaged \([0-9]*\) of .*/\1/p' "$WORK/$mode.out")
	check "$mode: mangle-stacks damaged ${d:-no} samples" [ "${d:-0}" -eq "$n0" ]
	set -- $(stats "$f")
	shown=$1 skipped=$2 copies=$3 failed=$4
	check "$mode: report --flat --stats exits 0" ran "$(cat "$f.rc")" "$f.err"
	"$KPROF" report -i "$f" --folded --weight samples >"$f.folded" 2>"$f.ferr"
	check "$mode: report --folded exits 0" ran $? "$f.ferr"
	"$KPROF" script -i "$f" --raw >"$f.script" 2>"$f.serr"
	check "$mode: script exits 0" ran $? "$f.serr"
	# a sample the reader refuses (today: a dyn_size beyond the copy) is skipped and said to be;
	# one it clamps instead is shown
	check "$mode: every sample is shown or counted as skipped ($shown + $skipped of $n0)" \
		[ $((shown + skipped)) -eq "$n0" ]
	# a sample taken where the kernel copied no user stack (an exec) has no copy to count
	check "$mode: --stats counts the stacks unwound, $failed of $copies failed" \
		[ "$copies" -le "$shown" -a "$copies" -ge $((shown * 99 / 100)) -a "$failed" -le "$copies" ]
	case $mode in
	regs) check "regs: garbage registers fail more stacks ($failed) than intact ones ($f0)" \
		[ "$failed" -gt $((f0 + n0 / 4)) ] ;;
	zero) check "zero: a zeroed copy unwinds no stack past its first frame ($failed of $copies)" \
		[ "$failed" -gt $((copies * 9 / 10)) ] ;;
	esac
	n=$(grep -c " cpu-clock: " "$f.script")
	check "$mode: script prints the $shown samples report shows ($n)" [ "$n" -eq "$shown" ]
	for lib in libunwind; do
		set -- $(stats "$f" --unwinder=$lib)
		check "$mode, $lib: report --flat --stats exits 0 ($4 of $3 stacks failed)" \
			ran "$(cat "$f.rc")" "$f.err"
		check "$mode, $lib: the same samples are shown and skipped" \
			[ "$1" -eq "$shown" -a "$2" -eq "$skipped" -a "$3" -eq "$copies" ]
		"$KPROF" script -i "$f" --raw --unwinder=$lib >/dev/null 2>"$f.serr"
		check "$mode, $lib: script exits 0" ran $? "$f.serr"
	done
	# kprof unwind puts the copies through the stage that unwinds while recording
	"$KPROF" unwind -i "$f" -o "$f.c" >/dev/null 2>"$f.uerr"
	check "$mode: kprof unwind exits 0" ran $? "$f.uerr"
	set -- $(stats "$f.c")
	check "$mode: its compact file reports the $shown samples ($1)" \
		[ "$(cat "$f.c.rc")" -eq 0 -a "$1" -eq "$shown" ]
done

# A bounds check written as addr - sp + 8 > dyn_size wraps when SP is near 0 and the address
# asked for near 2^64: in code with frame pointers, SP 0 and BP 2^64 - 16 put the return address
# at 2^64 - 8, and the 8 bytes before the copy (the record's stack size word) were read as a
# caller (report/unwind/unwind.c at d1f6e37). Nothing crashed (they are inside the record), so only
# this count shows it: just the samples taken in a prologue (CFA from SP) may get past their
# first frame.
"$KPROF" record --call-graph dwarf,8192 --keep-stacks -o "$WORK/fp.kprof" -- "$SPLIT" 0.3 \
	>/dev/null 2>&1
"$MANGLE" wrap "$SEED" "$WORK/fp.kprof" "$WORK/wrap.kprof" >/dev/null
set -- $(stats "$WORK/wrap.kprof")
check "wrap: report --flat --stats exits 0" ran "$(cat "$WORK/wrap.kprof.rc")" \
	"$WORK/wrap.kprof.err"
check "wrap: most stacks fail when BP + 16 wraps past 2^64 ($4 of $3)" [ "$4" -gt $(($3 / 2)) ]

done_testing
