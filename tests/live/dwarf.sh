#!/bin/sh
# Live: --call-graph dwarf on code built without frame pointers, unwound while recording (the
# compact file) and at report time (--keep-stacks): stacks reach main, keep the two paths apart,
# and split as the truth does; the same binary with -g (frame pointers) does not, which shows
# the test can fail. The recorder's stage and report-time unwinding agree sample by sample
# (kprof unwind), a backlog keeps copies instead of dropping samples, and a full disk or SIGKILL
# leaves complete chunks.
. "$top_srcdir/tests/live/lib.sh"
require_perf_events
NOFP="$top_builddir/tests/workloads/split-nofp"

# unwound while recording (the default) and from stack copies at report time (--keep-stacks)
for mode in compact keep; do
	opt=; [ $mode = keep ] && opt=--keep-stacks
	"$KPROF" record --call-graph dwarf $opt -o "$WORK/$mode.kprof" -- "$NOFP" 1 >"$WORK/$mode.out" 2>"$WORK/$mode.err"
	check "$mode: record --call-graph dwarf${opt:+ $opt} succeeds" [ $? -eq 0 ]
	"$KPROF" report -i "$WORK/$mode.kprof" --folded >"$WORK/$mode.folded"
	m=$(reach_main "$WORK/$mode.folded")
	check "$mode: DWARF-unwound stacks reach main in ${m}% of samples (at least 99)" \
		awk -v m="$m" 'BEGIN { exit !(m >= 99) }'
	check "$mode: work_a through via_left is its own stack" grep -q ";main;via_left;work_a [0-9]*\$" "$WORK/$mode.folded"
	check "$mode: work_a through via_right is its own stack" grep -q ";main;via_right;work_a [0-9]*\$" "$WORK/$mode.folded"
	"$KPROF" report -i "$WORK/$mode.kprof" --flat --color never >"$WORK/$mode.flat"
	for f in work_a work_b work_c; do
		got=$(total_of "$f" "$WORK/$mode.flat")
		want=$(truth_of "$f" "$WORK/$mode.out")
		check "$mode: $f: total ${got:-none}% against the true ${want:-none}% of split's CPU time (within $SHARE_POINTS points)" \
			awk -v g="${got:-0}" -v w="${want:--100}" -v m=$SHARE_POINTS 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= m) }'
	done
	# clock_gettime runs in the vDSO: its frames are named, and unwinding goes on through them
	v=$(grep -c "__vdso_clock_gettime" "$WORK/$mode.folded")
	if [ "$v" -gt 0 ]; then
		check "$mode: vDSO frames are named and unwound through to main ($v stacks)" \
			sh -c "! grep '__vdso_clock_gettime' '$WORK/$mode.folded' | grep -Evq ';main;(clock_cost;|lap;)?((cpu_ns|thread_ns);)?clock_ns;'"
	else
		skip "$mode: no sample fell in the vDSO this time"
	fi
	"$KPROF" report -i "$WORK/$mode.kprof" --flat --stats >"$WORK/$mode.stats"
done
n=$("$KPROF" script -i "$WORK/compact.kprof" --raw | grep -c " cpu-clock: ")
read -r copies unwound kept failed <<EOF2
$(sed -n 's/^# DWARF unwinding while recording: \([0-9]*\) samples with a stack copy, \([0-9]*\) unwound .*, \([0-9]*\) kept as copies .*, \([0-9]*\) no further than.*/\1 \2 \3 \4/p' "$WORK/compact.stats")
EOF2
check "compact: --stats says what unwinding while recording did: $unwound of $copies unwound, ${kept:-?} kept, ${failed:-?} no further than their IP (of $n samples)" \
	[ -n "$copies" -a "${copies:-0}" -gt $((n * 99 / 100)) -a "${unwound:-0}" -eq $((copies - kept)) -a "${failed:-40}" -lt 40 ]
# a thread that falls behind (a busy machine, a sanitizer build) keeps copies rather than
# drop samples: those, and only those, are left for the report to unwind
left=$(sed -n 's/^# DWARF unwinding: \([0-9]*\) samples with a stack copy.*/\1/p' "$WORK/compact.stats")
check "compact: the stack copies left for the report (${left:-0}) are the ${kept:-?} kept while recording" \
	[ "${left:-0}" -eq "${kept:--1}" ]
failed=$(sed -n 's/^# DWARF unwinding: [0-9]* samples with a stack copy, \([0-9]*\) .*/\1/p' "$WORK/keep.stats")
check "keep: --stats counts the stacks that did not unwind (${failed:-none}, under 1%)" \
	[ -n "$failed" -a "${failed:-40}" -lt 40 ]
bc=$(($(wc -c <"$WORK/compact.kprof") / n))
nk=$("$KPROF" script -i "$WORK/keep.kprof" --raw | grep -c " cpu-clock: ")
bk=$(($(wc -c <"$WORK/keep.kprof") / nk))
# a sample unwound while recording takes under a quarter of a copy's bytes; a kept one, a copy's
check "compact files hold only the copies kept: $bc bytes per sample against $bk with --keep-stacks (${kept:-?} of $n kept)" \
	[ $((bc * 4 * n)) -lt $((bk * (n + 3 * ${kept:-0}))) ]

# the two routes agree sample by sample: the copies of the --keep-stacks recording, unwound by
# the recorder's stage (kprof unwind), against the same copies unwound by kprof script
"$KPROF" unwind -i "$WORK/keep.kprof" -o "$WORK/unwound.kprof" 2>"$WORK/unwound.err"
check "kprof unwind turns the copies into call chains" grep -q "^kprof: unwound [1-9][0-9]* of " "$WORK/unwound.err"
"$KPROF" script -i "$WORK/keep.kprof" --raw | grep " cpu-clock: " >"$WORK/keep.script"
"$KPROF" script -i "$WORK/unwound.kprof" --raw | grep " cpu-clock: " >"$WORK/unwound.script"
a=$(awk 'NR == FNR { l[FNR] = $0; n++; next } l[FNR] == $0 { s++ }
	END { printf "%.2f", n ? 100 * s / n : 0 }' "$WORK/keep.script" "$WORK/unwound.script")
check "...giving the same stack as report-time unwinding for ${a}% of $(wc -l <"$WORK/keep.script") samples (at least 99)" \
	awk -v a="$a" 'BEGIN { exit !(a >= 99) }'
check "...in a file no larger than a fifth of the original ($(wc -c <"$WORK/unwound.kprof") against $(wc -c <"$WORK/keep.kprof") bytes)" \
	[ $(($(wc -c <"$WORK/unwound.kprof") * 5)) -lt "$(wc -c <"$WORK/keep.kprof")" ]
"$KPROF" unwind -i "$WORK/keep.kprof" -o "$WORK/keep.kprof" 2>"$WORK/same.err"
check "kprof unwind will not write over its input" \
	sh -c "[ $? -eq 1 ] && grep -q 'is the input' '$WORK/same.err' && '$KPROF' script -i '$WORK/keep.kprof' --raw >/dev/null"

# unwinding that falls behind keeps the copies (a backlog of 0: always), loses no sample,
# and the report unwinds them
"$KPROF" record --call-graph dwarf --unwind-backlog 0 -o "$WORK/b0.kprof" -- "$NOFP" 0.5 >/dev/null 2>"$WORK/b0.err"
n=$("$KPROF" script -i "$WORK/b0.kprof" --raw | grep -c " cpu-clock: ")
k=$(sed -n 's/.*unwinding fell behind: \([0-9]*\) samples kept.*/\1/p' "$WORK/b0.err")
check "--unwind-backlog 0: the recorder says ${k:-no} samples kept their copies (of $n)" \
	[ -n "$k" -a "${k:-0}" -ge $((n * 99 / 100)) ]
"$KPROF" report -i "$WORK/b0.kprof" --folded >"$WORK/b0.folded"
m=$(reach_main_from "$WORK/b0.folded" '^work_[abc]$')
check "--unwind-backlog 0: the report unwinds the kept copies, ${m}% of the work's reach main" \
	awk -v m="$m" 'BEGIN { exit !(m >= 99) }'
"$KPROF" record -g -o "$WORK/f.kprof" -- "$NOFP" 1 >/dev/null 2>&1
"$KPROF" report -i "$WORK/f.kprof" --folded >"$WORK/f.folded"
m=$(reach_main "$WORK/f.folded")
check "with -g alone the same binary's stacks are broken: ${m}% reach main" \
	awk -v m="$m" 'BEGIN { exit !(m < 50) }'

# unwinding while recording is as crash-safe as the rest: a full disk (a 150 kB file size limit)
# stops the recording with what is complete, and so does SIGKILL
if command -v prlimit >/dev/null; then
	prlimit --fsize=50000 "$KPROF" record -F 10000 --call-graph dwarf -o "$WORK/full.kprof" -- "$NOFP" 2 \
		>/dev/null 2>"$WORK/full.err"
	rc=$?
	check "compact, full disk: kprof ends with status 1 ($rc), saying what failed" \
		sh -c "[ $rc -eq 1 ] && grep -q 'File too large' '$WORK/full.err' && grep -q 'keeps the [1-9][0-9]* complete chunks' '$WORK/full.err'"
	n=$("$KPROF" script -i "$WORK/full.kprof" --raw 2>/dev/null | grep -c " cpu-clock: ")
	check "compact, full disk: the complete chunks read back ($n samples)" [ "$n" -gt 1000 ]
else
	for i in 1 2; do skip "disk full: prlimit (util-linux) is not installed"; done
fi
record_killed "$WORK/killed.kprof" -F 4000 --call-graph dwarf -- "$NOFP" 30
"$KPROF" report -i "$WORK/killed.kprof" --folded --weight samples >"$WORK/killed.folded" 2>/dev/null
m=$(reach_main "$WORK/killed.folded")
n=$(awk '{ t += $NF } END { print t + 0 }' "$WORK/killed.folded")
check "compact, SIGKILL $rk_delay s in: $n samples cover all but about a second of the command's $rk_cpu_ms ms" \
	covers_all_but "$n" 4000 "$rk_cpu_ms"
check "...and ${m}% of them reach main" awk -v m="$m" 'BEGIN { exit !(m >= 99) }'

# a 200-deep recursion with a 64 KiB copy unwinds to the bottom; threads unwind to their start
WORK_NOFP="$top_builddir/tests/workloads/work-nofp"
"$KPROF" record --call-graph dwarf,65528 -o "$WORK/deep.kprof" -- "$WORK_NOFP" deep 1500 200 >/dev/null 2>&1
"$KPROF" report -i "$WORK/deep.kprof" --folded >"$WORK/deep.folded"
m=$(reach_main_from "$WORK/deep.folded" '^deep$')
depth=$(awk -F';' '{ if (NF > d) d = NF } END { print d + 0 }' "$WORK/deep.folded")
check "a 200-deep recursion is unwound to main in ${m}% of its samples ($depth frames deep)" \
	awk -v m="$m" -v d="$depth" 'BEGIN { exit !(m >= 99 && d > 200) }'
# deeper than a report's stack holds (1023 frames): the leaf side is kept, and it is said
"$KPROF" record --call-graph dwarf,65528 -o "$WORK/dd.kprof" -- "$WORK_NOFP" deep 100 1150 >/dev/null 2>&1
"$KPROF" report -i "$WORK/dd.kprof" --folded --weight samples >"$WORK/dd.folded" 2>"$WORK/dd.err"
"$KPROF" report -i "$WORK/dd.kprof" --flat --stats >"$WORK/dd.stats" 2>/dev/null
cut=$(sed -n 's/^# stacks deeper than 1023 frames, their outermost frames left out: //p' "$WORK/dd.stats")
depth=$(awk -F';' '{ if (NF > d) d = NF } END { print d + 0 }' "$WORK/dd.folded")
check "a 1150-deep recursion: ${cut:-no} stacks cut at 1023 frames, counted in --stats and said ($depth deep)" \
	sh -c "[ '${cut:-0}' -gt 0 ] && [ '$depth' -eq 1024 ] && grep -q '${cut:-x} stacks were deeper than 1023 frames' '$WORK/dd.err'"
"$KPROF" record --call-graph dwarf -o "$WORK/thr.kprof" -- "$WORK_NOFP" threads 2 1000 >/dev/null 2>&1
"$KPROF" report -i "$WORK/thr.kprof" --folded >"$WORK/thr.folded"
# the stacks through the work: start-up's and exit's, which a busy machine makes more of, reach
# neither (one busy ASan run had 98.80% of all stacks)
t=$(awk '/;work_[abc]( |;)/ { t += $NF; if ($0 ~ /;(thread_main|main);/) m += $NF } END { printf "%.2f", t ? 100 * m / t : 0 }' "$WORK/thr.folded")
check "two threads unwind to their start (thread_main or main) in ${t}% of their work's samples" \
	awk -v m="$t" 'BEGIN { exit !(m >= 99) }'

"$KPROF" record --call-graph dwarf,4096 -o "$WORK/s.kprof" -- "$NOFP" 0.2 >/dev/null 2>&1
check "--call-graph dwarf,4096 records" sh -c "'$KPROF' script -i '$WORK/s.kprof' --stats | grep -q '^# samples: [1-9]'"
"$KPROF" record --call-graph dwarf -o "$WORK/ch.kprof" -- "$WORK_NOFP" children 2 1000 >/dev/null 2>&1
"$KPROF" report -i "$WORK/ch.kprof" --folded >"$WORK/ch.folded"
c=$(awk '{ t += $NF; if ($0 ~ /;children;/) m += $NF } END { printf "%.2f", t ? 100 * m / t : 0 }' "$WORK/ch.folded")
check "forked children unwind through their parent's image to children() in ${c}% of samples" \
	awk -v m="$c" 'BEGIN { exit !(m >= 95) }'
# more processes at once than the 64 address spaces an unwinder keeps: they are rebuilt in turn.
# At 1 kHz: a ring then holds a quarter second of one CPU's stack copies, so a busy machine does
# not overflow it (under ASan beside two busy loops, 0 of 16 runs lost samples; 2 of 28 at
# 4 kHz, losing FORK records and so those children's stacks). The fork storm at 4 kHz, and its
# losses, are the bench's (SECTIONS=storm).
"$KPROF" record -F 1000 --call-graph dwarf -o "$WORK/ch80.kprof" -- "$WORK_NOFP" children 80 25 >/dev/null 2>&1
"$KPROF" report -i "$WORK/ch80.kprof" --folded >"$WORK/ch80.folded"
c=$(awk '{ t += $NF; if ($0 ~ /;children;/) m += $NF } END { printf "%.2f", t ? 100 * m / t : 0 }' "$WORK/ch80.folded")
p=$("$KPROF" script -i "$WORK/ch80.kprof" --raw | awk '/ cpu-clock: / { p[$2] = 1 } END { print length(p) }')
# as promised for a fork storm: at least 94% of the stored stacks reach the children's function
check "80 children at once ($p processes sampled) unwind to children() in ${c}% of samples" \
	awk -v m="$c" -v p="$p" 'BEGIN { exit !(m >= 94 && p > 64) }'

# a copy too small for the recursion: the stacks end early, and --stats says why
"$KPROF" record --call-graph dwarf,512 --keep-stacks -o "$WORK/small.kprof" -- "$WORK_NOFP" deep 500 200 >/dev/null 2>&1
"$KPROF" report -i "$WORK/small.kprof" --flat --stats >"$WORK/small.stats"
n=$("$KPROF" script -i "$WORK/small.kprof" --raw | grep -c " cpu-clock: ")
c=$(sed -n "s/^#   stacks that stopped before their thread's entry: [0-9]*: \([0-9]*\) stack copy too small.*/\1/p" "$WORK/small.stats")
check "with a 512-byte copy, --stats says the copy ran out (${c:-none} of $n stacks)" \
	[ "${c:-0}" -gt $((n * 9 / 10)) ]

# the default copy holds a stack of 17 KiB (64 frames of about 270 bytes: an 8 KiB copy held 30),
# each frame of it; a smaller copy than a stack needs is said, with the larger one to take, and
# a stack deeper than the largest copy (300 frames, 80 KiB) is said without one
DEEP="$top_builddir/tests/workloads/deepstack"
# ds_stats FOLDED: "REACH SAMPLES" of the stacks through bottom(): the share that reach main
# through exactly 64 frames of recurse()
ds_stats() {
	awk '{ c = $NF; sub(/ [0-9]+$/, ""); n = split($0, f, ";"); r = m = b = 0
		for (i = 1; i <= n; i++) { r += f[i] == "recurse"; m += f[i] == "main"; b += f[i] == "bottom" }
		if (!b) next; t += c; if (m && r == 64) k += c }
		END { printf "%.2f %d", t ? 100 * k / t : 0, t }' "$1"
}
"$KPROF" record --call-graph dwarf -o "$WORK/ds.kprof" -- "$DEEP" 64 0.15 >/dev/null 2>"$WORK/ds.err"
"$KPROF" report -i "$WORK/ds.kprof" --folded --weight samples >"$WORK/ds.folded" 2>/dev/null
set -- $(ds_stats "$WORK/ds.folded")
check "a 64-deep recursion of 17 KiB, default copy: $1% of its $2 stacks reach main through all 64 frames" \
	awk -v r="$1" -v n="$2" 'BEGIN { exit !(r >= 99 && n >= 100) }'
check "...and the recorder says nothing of stacks stopping early" sh -c "! grep -q 'stop before' '$WORK/ds.err'"
"$KPROF" record --call-graph dwarf,4096 -o "$WORK/ds4.kprof" -- "$DEEP" 64 0.03 >/dev/null 2>"$WORK/ds4.err"
"$KPROF" report -i "$WORK/ds4.kprof" --flat >"$WORK/ds4.flat" 2>&1
check "with a 4096-byte copy the recorder and the report say the copy was too small, and to take 65528" \
	sh -c "for f in '$WORK/ds4.err' '$WORK/ds4.flat'; do grep -q 'stop before their thread.s entry: .*stack copy too small' \"\$f\" &&
		grep -q 'hint: record with --call-graph dwarf,65528 for a larger stack copy' \"\$f\" || exit 1; done"
"$KPROF" record --call-graph dwarf,65528 -o "$WORK/ds64.kprof" -- "$DEEP" 300 0.03 >/dev/null 2>"$WORK/ds64.err"
"$KPROF" report -i "$WORK/ds64.kprof" --flat >"$WORK/ds64.flat" 2>&1
check "300 frames with the largest copy: the copy is said too small, and no larger one suggested" \
	sh -c "for f in '$WORK/ds64.err' '$WORK/ds64.flat'; do grep -q 'stop before their thread.s entry: .*stack copy too small' \"\$f\" &&
		! grep -q 'hint: record with --call-graph dwarf' \"\$f\" || exit 1; done"
"$KPROF" record --call-graph dwarf,100 -o "$WORK/x.kprof" -- true >/dev/null 2>&1
check "a stack size that is not a multiple of 8 is a usage error" [ $? -eq 2 ]
"$KPROF" record --call-graph lbr -o "$WORK/x.kprof" -- true >/dev/null 2>"$WORK/x.err"
check "an unknown call-graph mode names the known ones" grep -q "known: fp, dwarf" "$WORK/x.err"

done_testing
