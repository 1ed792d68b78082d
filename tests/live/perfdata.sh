#!/bin/sh
# perf's own perf.data, read by kprof: the same self and total shares as `perf report` on the
# same file (plain -g, -z, --call-graph dwarf, -a), split's own truth where perf's recording
# holds it, a cut file, and pipe mode.
. "$top_srcdir/tests/live/lib.sh"

PERF=${PERF:-perf}
command -v "$PERF" >/dev/null 2>&1 || skip_all "perf is not installed"
# -B -N: no build-id pass and no copies under ~/.debug, which these checks do not need
perf_record() { out=$1; shift; "$PERF" record -q -B -N -o "$out" "$@" -- "$SPLIT" 1; }
if ! "$PERF" record -q -B -N -g -o "$WORK/probe.data" -- true >"$WORK/probe.out" 2>&1; then
	skip_all "perf record cannot record here: $(grep -v '^$' "$WORK/probe.out" | head -1)"
fi

# total_script FUNC FILE PID: the share of PID's samples (by period) with FUNC on their stack,
# as perf script prints FILE (perf report's --pid, beside the suite's other processes, gave
# shares that did not add up: work_b 80.85%)
total_script() {
	"$PERF" script -i "$2" -F pid,period,ip,sym 2>/dev/null | awk -v f="$1" -v pid="$3" '
		function flush() { if (p == pid) { t += per; if (hit) h += per } p = "" }
		/^ *[0-9]+ +[0-9]+ *$/ { flush(); p = $1; per = $2; hit = 0; next }
		/^\t/ { if ($2 == f) hit = 1; next }
		{ flush() }
		END { flush(); if (t) printf "%.2f", 100 * h / t }'
}

for mode in g z dwarf a; do
	case $mode in
	g) set -- -g ;;
	z) set -- -g -z ;;
	dwarf) set -- --call-graph dwarf,8192 ;;
	a) set -- -a -g ;;
	esac
	file="$WORK/$mode.data"
	perf_record "$file" "$@" >"$WORK/$mode.out" 2>"$WORK/$mode.err"
	check "perf record $* wrote a perf.data" [ -s "$file" ]
	"$KPROF" report -i "$file" --flat --color never >"$WORK/$mode.flat" 2>"$WORK/$mode.kerr"
	check "kprof report -i FILE reads perf record $*" [ $? -eq 0 ]
	for fn in work_a work_b work_c; do
		k=$(self_kprof $fn "$file") p=$(self_perf $fn "$file")
		check "$mode: $fn self $k% is within 0.5 points of perf report's $p%" points "$k" "$p" 0.5
	done
	# -a: this split's samples alone (another test's split may run beside it, and one
	# recorded with stack copies spends much of its time in the kernel), as shares of them
	[ $mode = a ] && filter="--pid $(sed -n 's/^pid=//p' "$WORK/$mode.out")" || filter=
	"$KPROF" report -i "$file" --flat --color never $filter >"$WORK/$mode.split" 2>/dev/null
	for fn in work_a work_b work_c; do
		got=$(total_of $fn "$WORK/$mode.split") want=$(truth_of $fn "$WORK/$mode.out")
		if [ $mode = a ]; then
			p=$(total_script $fn "$file" "${filter#--pid }") by="perf script's samples of that pid"
		else
			p=$(total_perf $fn "$file") by="perf report --children"
		fi
		check "$mode: $fn total $got% is within 0.5 points of $by, $p%" points "$got" "$p" 0.5
		# split's own clocks, where perf's report of its own file is near them: what perf
		# sampled is the kernel's doing, not kprof's reading (beside a CPU burner, perf -a
		# gave work_a 53.45% and 66.88% of split's samples in two runs, for 58.51% and 59.34%)
		if points "$p" "$want" $SHARE_POINTS; then
			check "$mode: $fn total $got% is within $SHARE_POINTS points of split's own $want%" \
				points "$got" "$want" $SHARE_POINTS
		else
			skip "$mode: perf's own reading of its file gives $fn $p%, off split's $want%: perf's samples, not kprof's reading"
		fi
	done
done

# the stack copies of --call-graph dwarf reach main
"$KPROF" report -i "$WORK/dwarf.data" --folded >"$WORK/dwarf.folded" 2>/dev/null
reach=$(reach_main_from "$WORK/dwarf.folded" '^work_')
check "dwarf: $reach% of the work's stacks reach main" points "$reach" 100 5

# the kernel frames of -a are named from this machine's kallsyms (its kernel made the file)
# (a call chain's stale words may be no kernel address: the sampled ips all are)
unnamed=$(awk '$NF ~ /kernel.kallsyms\]\+0x/ { sub("%", "", $1); s += $1 } END { printf "%.2f", s }' "$WORK/a.flat")
check "a: sampled kernel ips are named ($unnamed% are not)" points "$unnamed" 0 0.1
check "a: no warning about the kernel release" sh -c "! grep -q 'recorded on kernel' '$WORK/a.kerr'"

# samples_in FLAT: the sample count a `report --flat` header gives
samples_in() { awk '/samples of/ { for (i = 1; i <= NF; i++) if ($(i + 1) == "samples") { print $i; exit } }' "$1"; }

# a perf.data cut short: its whole records, then the cut, with its offset. perf writes each
# round ring after ring, so a process that ran its exec on one CPU and then moved can have
# its first samples before the cut and its maps after it (a busy CI run cut most of split's
# so: kprof could only call them [unknown]). Pinned to one CPU, split's records lie in time
# order, and every sample before the cut has its maps before it too.
"$PERF" record -q -B -N -g -o "$WORK/one.data" -- taskset -c 0 "$SPLIT" 0.5 >/dev/null 2>&1
"$KPROF" report -i "$WORK/one.data" --flat >"$WORK/one.flat" 2>/dev/null
size=$(stat -c %s "$WORK/one.data")
head -c $((size * 2 / 3)) "$WORK/one.data" >"$WORK/cut.data"
"$KPROF" report -i "$WORK/cut.data" --flat >"$WORK/cut.flat" 2>"$WORK/cut.err"
check "a cut perf.data fails with status 1" [ $? -eq 1 ]
check "...naming the offset and the records read" \
	grep -q "'$WORK/cut.data': truncated at offset [0-9]* after [0-9]* records" "$WORK/cut.err"
n=$(samples_in "$WORK/cut.flat")
one=$(samples_in "$WORK/one.flat")
check "...after reporting the samples before the cut ($n of ${one:-none})" \
	sh -c "[ '${n:-0}' -gt $((${one:-0} / 2)) ] && [ '${n:-0}' -lt ${one:-0} ]"
lead=$(awk '!/^#/ && $1 ~ /%$/ { print $NF; exit }' "$WORK/cut.flat")
check "...and work_a still leads (${lead:-nothing} does)" [ "$lead" = work_a ]

# pipe mode: perf record -o - > FILE
"$PERF" record -q -B -N -g -o - -- "$SPLIT" 0.5 >"$WORK/pipe.data" 2>/dev/null
"$KPROF" report -i "$WORK/pipe.data" --flat --color never >"$WORK/pipe.flat" 2>"$WORK/pipe.err"
check "pipe mode: kprof report reads perf record -o -" [ $? -eq 0 ]
k=$(self_kprof work_a "$WORK/pipe.data") p=$(self_perf work_a "$WORK/pipe.data")
check "pipe mode: work_a self $k% is within 0.5 points of perf's $p%" points "$k" "$p" 0.5
check "pipe mode: the event is named as perf named it" grep -q "cpu-clock\|cycles" "$WORK/pipe.flat"

# perf's build-id cache: perf record keeps a copy of its kernel's table there (under $HOME), and
# perf report reads that copy; so does kprof, when its layout is the recording's. Kernel frames
# named as perf script names them, from the copy; a copy at another layout (every kernel
# address 4 GiB lower, as another boot's could be) is set aside for this machine's table, and names nothing.
kframes() { grep -E '^[[:space:]]+ffffffff[0-9a-f]+ ' "$1" | awk '{ print $1, $2 }'; }
mkdir -p "$WORK/home"
HOME="$WORK/home" "$PERF" record -q -g -o "$WORK/bid.data" -- "$SPLIT" 0.5 >/dev/null 2>"$WORK/bid.err"
cached=$(ls "$WORK/home/.debug/[kernel.kallsyms]"/*/kallsyms 2>/dev/null | head -1)
if [ -z "$cached" ] || ! [ -s "$WORK/bid.data" ]; then
	why="perf record left no copy of the kernel's table in its build-id cache: $(head -1 "$WORK/bid.err")"
	skip "$why"; skip "$why"; skip "$why"; skip "$why"; skip "$why"
else
	HOME="$WORK/home" "$KPROF" report -i "$WORK/bid.data" --flat --stats >"$WORK/bid.flat" 2>&1
	from=$(sed -n 's/^# kernel symbols: [0-9]* from //p' "$WORK/bid.flat")
	check "a perf.data's kernel symbols come from perf's build-id cache (${from:-none})" \
		[ "$from" = "$cached" ]
	"$PERF" script -i "$WORK/bid.data" -F ip,sym 2>/dev/null | kframes /dev/stdin >"$WORK/bid.perf"
	HOME="$WORK/home" "$KPROF" script -i "$WORK/bid.data" -F ip,sym 2>/dev/null |
		kframes /dev/stdin >"$WORK/bid.kprof"
	check "...naming its $(wc -l <"$WORK/bid.perf") kernel frames as perf script does" \
		sh -c "[ -s '$WORK/bid.perf' ] && cmp -s '$WORK/bid.perf' '$WORK/bid.kprof'"
	moved="$WORK/moved/[kernel.kallsyms]/$(basename "$(dirname "$cached")")"
	mkdir -p "$moved"
	sed 's/^ffffffff/fffffffe/' "$cached" >"$moved/kallsyms"
	PERF_BUILDID_DIR="$WORK/moved" "$KPROF" report -i "$WORK/bid.data" --flat --stats \
		>"$WORK/moved.flat" 2>&1
	check "a copy at another layout is set aside for this machine's table" \
		grep -qF "from /proc/kallsyms ($moved/kallsyms set aside" "$WORK/moved.flat"
	# the same file as if recorded on another kernel release (its osrelease, same length, one
	# digit changed): the copy still names its kernel frames; without it they stay addresses
	# and the report says why
	rel=$(uname -r)
	fake=$(printf '%s' "$rel" | sed 's/[0-9]/X/')
	perl -0777 -pe "s/\Q$rel\E/$fake/g" "$WORK/bid.data" >"$WORK/other.data"
	HOME="$WORK/home" "$KPROF" report -i "$WORK/other.data" --flat --stats >"$WORK/other.flat" 2>&1
	from=$(sed -n 's/^# kernel symbols: [0-9]* from //p' "$WORK/other.flat")
	check "recorded on kernel $fake: the copy in the cache names its kernel frames (${from:-none})" \
		sh -c "[ '$from' = '$cached' ] && ! grep -q 'stay addresses' '$WORK/other.flat'"
	mkdir -p "$WORK/empty"
	HOME="$WORK/empty" "$KPROF" report -i "$WORK/other.data" --flat >/dev/null 2>"$WORK/other.err"
	check "...and without the cache, kernel frames stay addresses, and kprof says why" \
		grep -qF "recorded on kernel $fake and this machine runs $rel: perf.data stores no kernel symbols and perf's build-id cache has no copy of its table" "$WORK/other.err"
fi

# every command that reads a recording takes perf.data
all=$(samples_in "$WORK/g.flat")
n=$("$KPROF" script -i "$WORK/g.data" 2>/dev/null | grep -cE ' cpu-clock(:[a-zA-Z]+)?: ')
check "kprof script -i perf.data prints its samples ($n of $all)" [ "$n" -eq "$all" ]
check "kprof flamegraph perf.data draws it" \
	sh -c "'$KPROF' flamegraph '$WORK/g.data' 2>/dev/null | grep -q work_a"
check "kprof diff takes two perf.data files" \
	sh -c "'$KPROF' diff '$WORK/g.data' '$WORK/z.data' >/dev/null 2>&1"
"$KPROF" unwind -i "$WORK/dwarf.data" -o "$WORK/unwound.kprof" >/dev/null 2>&1
check "kprof unwind makes a compact .kprof of perf's stack copies" \
	sh -c "[ \$(stat -c %s '$WORK/unwound.kprof') -lt \$(stat -c %s '$WORK/dwarf.data') ]"
k=$(self_kprof work_a "$WORK/unwound.kprof") p=$(self_kprof work_a "$WORK/dwarf.data")
check "...which reports as the perf.data did ($k% and $p%)" points "$k" "$p" 0.5

done_testing
