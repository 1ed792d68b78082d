#!/bin/sh
# Live: record --switch-output, a recording cut into files for always-on profiling. Each file
# reports alone (its own header, events, kernel symbols, and the maps of what already ran), no
# sample falls between two files, SIGUSR2 cuts one, --switch-max-files keeps the newest (with
# the files the hook named after them, 0600 as they are) and --switch-output-exec runs on each
# closed file; a last file of no sample is removed, and the summary names only files on disk
# and says what went. A full disk (a tmpfs of the test's own): every file written, the one cut
# short too, is named with its samples, which add up to the total, the cut one said to be,
# status 1; and without --switch-output, what the cut file keeps.
. "$top_srcdir/tests/live/lib.sh"
require_perf_events

# samples of the report header of FILE
samples_of() { "$KPROF" report -i "$1" --flat 2>/dev/null | sed -n 's/^# kprof report of .*: \([0-9]*\) samples.*/\1/p'; }
# the summary's total: "recorded N samples, ..."
total_of_err() { sed -n 's/.*recorded \([0-9]*\) samples.*/\1/p' "$1"; }
# names_work FILE: the file alone names split's work functions, through main
names_work() { "$KPROF" report -i "$1" --folded 2>/dev/null | grep -q ";main;via_left;work_a [0-9]*\$"; }

# --- by time: about 4 s of split in 1 s files -----------------------------------------------
# split burns 4 s of its own CPU time: on a busy machine that takes longer, and a file is cut
# each second of the wall time it took
t0=$(date +%s.%N)
"$KPROF" record -g --switch-output=1s -o "$WORK/t.kprof" -- "$SPLIT" 4 >"$WORK/t.out" 2>"$WORK/t.err"
rc=$?
wall=$(echo "$(date +%s.%N) $t0" | awk '{ printf "%.1f", $1 - $2 }')
check "record --switch-output=1s succeeds" [ $rc -eq 0 ]
ls "$WORK" | grep '^t\.kprof\.' >"$WORK/t.list"
n=$(wc -l <"$WORK/t.list")
check "about a file a second: $n files in $wall s" \
	awk -v n="$n" -v w="$wall" 'BEGIN { exit !(n >= 4 && n >= int(w) - 1 && n <= int(w) + 2) }'
check "each is named FILE.YYYYMMDDhhmmssff, in order" \
	sh -c "grep -qvE '^t\.kprof\.[0-9]{16}\$' '$WORK/t.list' && exit 1; sort -c '$WORK/t.list'"
check "FILE itself is not left behind" [ ! -e "$WORK/t.kprof" ]
# (the last file holds what came after the last cut: on a busy machine a few samples of split's
# end, too few to hold work_a; every file of a quarter second or more must name it)
sum=0 alone=0 whole=0
while read -r f; do
	s=$(samples_of "$WORK/$f")
	sum=$((sum + ${s:-0}))
	[ "${s:-0}" -ge 1000 ] || continue
	whole=$((whole + 1))
	names_work "$WORK/$f" && alone=$((alone + 1))
done <"$WORK/t.list"
total=$(total_of_err "$WORK/t.err")
check "every file of 1000 samples or more ($whole of $n) reports alone, naming split's functions through main ($alone)" \
	sh -c "[ $alone -eq $whole ] && [ $whole -ge 3 ]"
check "the files' samples add up to the recorder's total ($sum of ${total:-none})" [ "$sum" -eq "${total:--1}" ]
check "the summary says how many files, and that their samples add up" \
	grep -q "recorded $sum samples, 0 lost, into $n files, '[^']*/t\.kprof\.[0-9]*' to '[^']*/t\.kprof\.[0-9]*' (their samples add up to the total[;)]" "$WORK/t.err"
# the split of the files together is split's own, as one recording's would be
for f in $(cat "$WORK/t.list"); do "$KPROF" report -i "$WORK/$f" --folded; done 2>/dev/null |
	awk '{ n = $NF; $NF = ""; s[$0] += n; t += n } END { for (k in s) if (k ~ /;work_a $/) a += s[k]; printf "%.2f\n", 100 * a / t }' >"$WORK/t.share"
got=$(cat "$WORK/t.share") want=$(truth_of work_a "$WORK/t.out")
check "work_a over all the files: $got% against the true $want%" points "$got" "$want" $SHARE_POINTS

# --- by SIGUSR2 ----------------------------------------------------------------------------
# (a command that waits for the test, not one that burns a CPU meanwhile)
"$KPROF" record -g --switch-output -o "$WORK/u.kprof" -- \
	sh -c "until [ -e '$WORK/u.go' ]; do sleep 0.05; done" >/dev/null 2>"$WORK/u.err" &
pid=$!
started "$pid" sh
i=0
for k in 1 2; do # each signal once the file before it is on disk
	kill -USR2 "$pid"
	while [ "$(ls "$WORK" | grep -c '^u\.kprof\.')" -lt "$k" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
done
touch "$WORK/u.go"
wait "$pid"
rc=$?
n=$(ls "$WORK" | grep -c '^u\.kprof\.')
# (the last holds what the waiting sh did after the second signal: it may be no sample, and
# then the file is removed, as the summary says)
gone=$(grep -c 'held no sample and was removed' "$WORK/u.err")
check "two SIGUSR2 during the recording: 3 files ($n, and $gone removed as empty), kprof ending with its command's status" \
	[ $((n + gone)) -eq 3 -a "$rc" -eq 0 ]

# --- --switch-max-files and --switch-output-exec ---------------------------------------------
# the hook of the fleet note: each closed file converted to pprof while the next one fills;
# the .pb.gz named after its file is the file's: private as it is, removed with it
"$KPROF" record -g --switch-output=1s --switch-max-files 2 \
	--switch-output-exec "echo \"\$1\" >>'$WORK/hooks'; '$KPROF' report --format pprof -i \"\$1\" -o \"\$1.pb.gz\" && gzip -t \"\$1.pb.gz\" && echo ok >>'$WORK/converted'" \
	-o "$WORK/m.kprof" -- "$SPLIT" 3 >/dev/null 2>"$WORK/m.err"
check "with --switch-max-files 2 and a hook, record succeeds" [ $? -eq 0 ]
closed=$(sed -n 's/.*into \([0-9]*\) files.*/\1/p' "$WORK/m.err")
ls "$WORK" | grep -E '^m\.kprof\.[0-9]{16}$' >"$WORK/m.list"
check "the hook ran once for each of the ${closed:-?} files closed, in order" \
	sh -c "[ \$(wc -l <'$WORK/hooks') -eq ${closed:-0} ] && sed 's|.*/||' '$WORK/hooks' | sort -c"
check "2 files are kept, the newest: $(tr '\n' ' ' <"$WORK/m.list")" \
	sh -c "[ \$(wc -l <'$WORK/m.list') -eq 2 ] && tail -2 '$WORK/hooks' | sed 's|.*/||' | cmp -s - '$WORK/m.list'"
ok_pb=$(wc -l <"$WORK/converted" 2>/dev/null)
check "each file was converted to pprof by the hook, before kprof ended (${ok_pb:-0} of ${closed:-?})" \
	[ "${ok_pb:-0}" -eq "${closed:-0}" -a "${ok_pb:-0}" -gt 0 ]
sed 's/$/.pb.gz/' "$WORK/m.list" >"$WORK/m.derived"
ls "$WORK" | grep '^m\.kprof\..*\.' >"$WORK/m.left"
check "...and the pprof files of the removed ones were removed with them: $(tr '\n' ' ' <"$WORK/m.left")" \
	cmp -s "$WORK/m.derived" "$WORK/m.left"
modes=$(cd "$WORK" && stat -c %a $(cat m.list m.derived) 2>/dev/null | sort -u | tr '\n' ' ')
check "the kept files and their pprof files are private, mode 0600 ($modes)" [ "$modes" = "600 " ]
summary=$(grep 'recorded .* into' "$WORK/m.err" | grep -o "'[^' ]*/m\.kprof\.[0-9]*'" | tr -d "'")
missing=0
for f in $summary; do [ -e "$f" ] || missing=$((missing + 1)); done
check "the summary names only the files on disk ($missing of $(echo $summary | wc -w) not), and says that --switch-max-files removed ${closed:+$((closed - 2))}" \
	sh -c "[ $missing -eq 0 ] && [ -n '$summary' ] && grep -q 'into ${closed:-x} files, of which --switch-max-files 2 kept the newest 2' '$WORK/m.err'"

# --- DWARF: the files of a recording unwound while recording -------------------------------
"$KPROF" record --call-graph dwarf --switch-output=1s -o "$WORK/d.kprof" -- "$SPLIT" 2.5 >/dev/null 2>"$WORK/d.err"
n=0 alone=0 sum=0
for f in $(ls "$WORK" | grep '^d\.kprof\.'); do
	n=$((n + 1))
	names_work "$WORK/$f" && alone=$((alone + 1))
	s=$(samples_of "$WORK/$f")
	sum=$((sum + ${s:-0}))
done
total=$(total_of_err "$WORK/d.err")
check "--call-graph dwarf: $n files, each unwound through main ($alone), adding up ($sum of ${total:-none})" \
	[ "$n" -ge 2 -a "$alone" -eq "$n" -a "$sum" -eq "${total:--1}" ]

# --- system-wide: a process that ran before is named in every file --------------------------
"$SPLIT" 8 >/dev/null &
spid=$!
sleep 0.3
"$KPROF" record -a -g --switch-output=1s --duration 3 -o "$WORK/a.kprof" >/dev/null 2>"$WORK/a.err"
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
# each file where split ran a tenth of a second or more (a busy machine can leave it
# little of the last, short file) names it through main
n=0 ran=0 alone=0
for f in $(ls "$WORK" | grep '^a\.kprof\.'); do
	n=$((n + 1))
	"$KPROF" report -i "$WORK/$f" --folded --comm split --weight samples >"$WORK/$f.folded" 2>/dev/null
	[ "$(awk '{ s += $NF } END { print s + 0 }' "$WORK/$f.folded")" -ge 400 ] || continue
	ran=$((ran + 1))
	grep -q ";main;via_left;work_a [0-9]*\$" "$WORK/$f.folded" && alone=$((alone + 1))
done
check "-a: split, started before, is named in each of the $ran of $n files where it ran 0.1 s ($alone)" \
	[ "$n" -ge 3 -a "$ran" -ge 3 -a "$alone" -eq "$ran" ]

# --- --switch-output-event: a new file after a sample of the event ---------------------------
# getuid makes its 3 calls at once: the file they are in closes, and the one started after it
# holds its exit: no sample, most often, and then it is removed, as the summary says
GETUID="$top_builddir/tests/workloads/getuid"
if [ "$(id -u)" -eq 0 ]; then
	"$KPROF" record --switch-output-event syscalls:sys_enter_getuid -o "$WORK/ev.kprof" \
		-- "$GETUID" 3 >/dev/null 2>"$WORK/ev.err"
	rc=$?
	n=0 calls=0 first= empty=0
	for f in $(ls "$WORK" | grep '^ev\.kprof\.'); do
		n=$((n + 1))
		"$KPROF" script -i "$WORK/$f" >"$WORK/ev.script" 2>/dev/null
		c=$(grep -c 'syscalls:sys_enter_getuid' "$WORK/ev.script")
		[ -s "$WORK/ev.script" ] || empty=$((empty + 1))
		calls=$((calls + c))
		[ -n "$first" ] || first=$c
	done
	grep -q 'the file started after .* held no sample and was removed' "$WORK/ev.err" && gone=1 || gone=0
	check "--switch-output-event: status 0, a new file after the event's samples: $n kept, $gone removed as empty" \
		sh -c "[ $rc -eq 0 ] && [ $((n + gone)) -ge 2 ] && grep -q 'into $n file' '$WORK/ev.err'"
	check "...no file without a sample is left ($empty)" [ "$empty" -eq 0 -a "$n" -ge 1 ]
	check "...the event's samples recorded: ${calls} getuid calls in all, ${first:-none} in the first file" \
		sh -c "[ $calls -eq 3 ] && [ '${first:-0}' -ge 1 ]"
else
	skips 3 "tracepoints need root here (tracefs is root-only)"
fi

# --- a full disk: every file written, complete or cut short, is in the summary with its samples
# A small tmpfs in a mount namespace of this test's own (it goes with it). Two SIGUSR2 close two
# files; once the third has its header, a filler takes every free block, and its next chunk
# does not fit. The workload spins until the test says so (the file "go"), so that the disk
# fills while it runs however busy the machine is. Then the same without --switch-output.
if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
	mkdir "$WORK/full" "$WORK/fc"
	cat >"$WORK/full.sh" <<'EOF'
D=$1 OUT=$2
mount -t tmpfs -o size=1m none "$D" || exit 1
# until CMD: wait (up to 60 s) for CMD to succeed
until_() { i=0; while ! "$@" && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done; }
stamped() { [ "$(ls "$D" | grep -c '^f\.kprof\.')" -ge "$1" ]; }
said() { grep -q "stopped recording" "$1"; }
spin="while [ ! -e '$OUT/go' ]; do :; done"
"$KPROF" record -g -F 4000 --switch-output -o "$D/f.kprof" -- sh -c "$spin" 2>"$OUT/f.err" &
pid=$!
until_ test -s "$D/f.kprof"
for k in 1 2; do kill -USR2 $pid; until_ stamped $k; done
until_ test -s "$D/f.kprof" # the third file, its header written
dd if=/dev/zero of="$D/filler" bs=4k 2>/dev/null
until_ said "$OUT/f.err"
touch "$OUT/go"
wait $pid
echo $? >"$OUT/f.rc"
rm "$D/filler" "$OUT/go"
for f in "$D"/*; do cp "$f" "$OUT/s.${f##*/}"; done
rm "$D"/*
# without --switch-output: the file's header, and a page for its chunks
dd if=/dev/zero of="$D/filler" bs=4k count=$(($(stat -f -c %a "$D") - 2)) 2>/dev/null
"$KPROF" record -g -F 4000 -o "$D/p.kprof" -- sh -c "$spin" 2>"$OUT/p.err" &
pid=$!
until_ said "$OUT/p.err"
touch "$OUT/go"
wait $pid
echo $? >"$OUT/p.rc"
cp "$D/p.kprof" "$OUT/p.kprof"
EOF
	KPROF=$KPROF unshare -m sh "$WORK/full.sh" "$WORK/full" "$WORK/fc" >/dev/null 2>&1
	rc=$(cat "$WORK/fc/f.rc" 2>/dev/null)
	ls "$WORK/fc" | sed -n 's/^s\.//p' >"$WORK/fc.list"
	n=$(wc -l <"$WORK/fc.list")
	check "--switch-output into a full disk: exit 1 (${rc:-none}), $n files written, 3 at least" \
		[ "${rc:-0}" -eq 1 -a "$n" -ge 3 ]
	named=0 same=0 sum=0
	while read -r f; do
		said=$(sed -n "s|^kprof: '[^']*/$f': \([0-9]*\) samples, .*|\1|p" "$WORK/fc/f.err")
		s=$(samples_of "$WORK/fc/s.$f")
		[ -n "$said" ] && named=$((named + 1))
		[ "${said:--1}" = "${s:-0}" ] && same=$((same + 1))
		sum=$((sum + ${s:-0}))
	done <"$WORK/fc.list"
	total=$(total_of_err "$WORK/fc/f.err")
	check "... each named with its samples ($named of $n), as many as it reads ($same)" \
		[ "$named" -eq "$n" -a "$same" -eq "$n" ]
	check "... which add up to the summary's total ($sum of ${total:-none}), over $n files" \
		sh -c "[ '$sum' -eq '${total:--1}' ] && grep -q 'into $n files' '$WORK/fc/f.err'"
	last=$(tail -1 "$WORK/fc.list")
	check "... the last, $last, named as cut short, with what it lost" \
		sh -c "grep -q \"'[^']*/$last': .* cut short (No space left on device) after its [1-9][0-9]* complete chunks; the [0-9]* samples recorded after them are in no file\" '$WORK/fc/f.err' &&
			grep -q \"'[^']*/$last' cut short: No space left on device)\" '$WORK/fc/f.err'"
	rc=$(cat "$WORK/fc/p.rc" 2>/dev/null) s=$(samples_of "$WORK/fc/p.kprof")
	check "plain record into a full disk: exit 1 (${rc:-none}), saying the file keeps its ${s:-no} samples" \
		sh -c "[ '${rc:-0}' -eq 1 ] && grep -q \"p.kprof' keeps the [1-9][0-9]* complete chunks written before the failure: ${s:-x} samples, 0 lost; the [0-9]* samples recorded after them are in no file\" '$WORK/fc/p.err'"
	sed 's/^/# /' "$WORK/fc/f.err" "$WORK/fc/p.err" | grep -v "^# kprof: '[^']*': [0-9]* samples, 0 lost, [0-9.]* MiB$"
else
	skips 5 "a full disk needs root and unshare -m (a tmpfs of the test's own)"
fi

# --- what cannot be cut -------------------------------------------------------------------
usage() { # usage DESCRIPTION ARGS...: exit 2, no file, the reason on stderr
	d=$1; shift
	"$KPROF" record "$@" -- true >"$WORK/e.out" 2>"$WORK/e.err"
	check "$d" sh -c "[ $? -eq 2 ] && [ ! -s '$WORK/e.out' ] && grep -q 'switch\|embed' '$WORK/e.err'"
}
usage "--switch-output=5x is a usage error" -o "$WORK/e.kprof" --switch-output=5x
usage "--switch-max-files without --switch-output is a usage error" -o "$WORK/e.kprof" --switch-max-files 2
usage "--switch-output to a stream is a usage error" -o - --switch-output=1s
usage "--switch-output with --embed-symbols is a usage error" -o "$WORK/e.kprof" --switch-output --embed-symbols
check "...and none of them left a file" [ ! -e "$WORK/e.kprof" ]
done_testing
