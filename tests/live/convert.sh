#!/bin/sh
# Live: kprof convert, as a perf user meets it. kprof's recordings (-g, --call-graph dwarf)
# (--keep-stacks: its stack copies unwound on the way) written as perf.data: perf report gives split's measured split within 1 point, perf script
# and perf annotate read them without a warning, hotspot's parser reads them (when installed),
# and kprof report of the converted file is kprof report of the original. perf's own perf.data
# (-g, --call-graph dwarf) written as .kprof: the self shares of perf report on the original
# within 0.5 points, in a smaller file. Damaged input is refused with its path, and leaves
# no file behind; damaged stack copies (mangle-stacks) are left out, counted as kprof report
# counts them, and perf reads the rest without a word. Tracepoint recordings (sched_switch -a,
# a syscall's) written as perf.data carry their formats: perf report and perf script read them
# silently, perf script prints as many samples as kprof script with their fields, and hotspot's
# parser reads the fields' names.
KPROF_PRIVATE_MOUNTS=1 # the tracepoints may mount tracefs: keep that mount inside this test
. "$top_srcdir/tests/live/lib.sh"
require_perf_events
PERF=${PERF:-perf}
command -v "$PERF" >/dev/null 2>&1 || PERF=

for mode in g dwarf keep; do
	case $mode in
	g) set -- -g ;;
	dwarf) set -- --call-graph dwarf ;;
	keep) set -- --call-graph dwarf --keep-stacks ;; # the stack copies unwound by convert
	esac
	k="$WORK/$mode.kprof" p="$WORK/$mode.perf"
	"$KPROF" record "$@" -o "$k" -- "$SPLIT" 1 >"$WORK/$mode.out" 2>"$WORK/$mode.rec"
	"$KPROF" convert --to perf -i "$k" -o "$p" 2>"$WORK/$mode.conv"
	rc=$?
	check "convert --to perf of record $*: $(tail -1 "$WORK/$mode.conv")" [ $rc -eq 0 -a -s "$p" ]
	if [ $mode = keep ]; then
		u=$(sed -n 's/.* \([0-9]*\) stack copies unwound.*/\1/p' "$WORK/$mode.conv")
		n=$(sed -n 's/.*wrote \([0-9]*\) samples.*/\1/p' "$WORK/$mode.conv")
		check "keep: convert unwound ${u:-no} of the $n samples' stack copies (95% at least)" \
			[ "${u:-0}" -gt 0 -a $((${u:-0} * 100)) -ge $((${n:-0} * 95)) ]
	fi

	# kprof report of the converted file is the original's
	"$KPROF" report -i "$k" --folded >"$WORK/$mode.k.folded" 2>/dev/null
	"$KPROF" report -i "$p" --folded >"$WORK/$mode.p.folded" 2>"$WORK/$mode.p.err"
	check "$mode: kprof report of the perf.data gives the original's $(wc -l <"$WORK/$mode.k.folded") stacks" \
		cmp -s "$WORK/$mode.k.folded" "$WORK/$mode.p.folded"
	diff "$WORK/$mode.k.folded" "$WORK/$mode.p.folded" | head -4 | sed 's/^/# /'

	if [ -z "$PERF" ]; then
		skips 6 "perf is not installed (the Debian package linux-perf)"
		continue
	fi
	# the split, as perf reports it: each work function's time on the stack (lib.sh says why
	# its total, not its self) within 1 point of kprof report's on the original; self shares
	# as kprof reports them. How near the recording is to split's clocks is record.sh's and
	# dwarf.sh's to check: under the suite's load this VM's cpu-clock drifted 4.1 points from
	# them in a dwarf recording, which no conversion changes.
	"$KPROF" report -i "$k" --flat --color never >"$WORK/$mode.flat" 2>/dev/null
	for f in work_a work_b work_c; do
		t=$(truth_of "$f" "$WORK/$mode.out") got=$(total_perf "$f" "$p")
		kt=$(total_of "$f" "$WORK/$mode.flat")
		check "$mode: perf report: $f ${got:-none}% of the samples, kprof report ${kt:-none}% (split measured $t%)" \
			points "$got" "$kt" 1
	done
	ps=$(self_perf work_a "$p") ks=$(self_kprof work_a "$k")
	check "$mode: perf report --no-children: work_a self $ps%, kprof report of the original $ks%" \
		points "$ps" "$ks" 0.5
	"$PERF" report --stdio --no-children -i "$p" >/dev/null 2>"$WORK/$mode.report.err"
	"$PERF" script -i "$p" >"$WORK/$mode.script" 2>"$WORK/$mode.script.err"
	n=$(grep -c ' cpu-clock: $' "$WORK/$mode.script")
	m=$("$KPROF" script -i "$k" | grep -c ' cpu-clock: $')
	check "$mode: perf script prints $n samples (kprof script $m), perf report and script warn of nothing" \
		sh -c "[ $n -gt 0 -a $n -eq $m ] && ! [ -s '$WORK/$mode.report.err' ] && ! [ -s '$WORK/$mode.script.err' ]"
	sed 's/^/# perf: /' "$WORK/$mode.report.err" "$WORK/$mode.script.err" | head -4
	"$PERF" annotate --stdio -i "$p" work_a >"$WORK/$mode.annotate" 2>"$WORK/$mode.annotate.err"
	hot=$(awk -F: '$1 ~ /^ *[0-9]+\.[0-9]+ $/ { s += $1 } END { printf "%.0f", s }' "$WORK/$mode.annotate")
	check "$mode: perf annotate work_a: its instructions hold ${hot}% of its samples, no warning" \
		sh -c "grep -q '<work_a>:' '$WORK/$mode.annotate' && [ '$hot' -ge 99 ] && ! [ -s '$WORK/$mode.annotate.err' ]"
	sed 's/^/# perf annotate: /' "$WORK/$mode.annotate.err" | head -3
done

# damaged stack copies (tests/tools/mangle-stacks: a dyn_size beyond the copy, or odd): perf
# stops at the first sample whose copy does not fit, so convert leaves those out, counted in a
# warning (the samples kprof report skips), and perf reads the rest without a word
"$top_builddir/tests/tools/mangle-stacks" dyn 1 "$WORK/keep.kprof" "$WORK/dmg.kprof" >/dev/null
"$KPROF" convert --to perf -i "$WORK/dmg.kprof" -o "$WORK/dmg.perf" 2>"$WORK/dmg.conv"
rc=$?
skipped=$("$KPROF" report -i "$WORK/dmg.kprof" --flat 2>&1 >/dev/null |
	sed -n 's/.*: \([0-9]*\) samples were shorter than their fields and were skipped$/\1/p')
left=$(sed -n "s/.*dmg.kprof': \([0-9]*\) samples with damaged fields left out .*/\1/p" "$WORK/dmg.conv")
wrote=$(sed -n 's/.*wrote \([0-9]*\) samples.*/\1/p' "$WORK/dmg.conv")
check "damaged stack copies: convert exits 0 ($rc), ${left:-no} samples left out and said, the ${skipped:-none} report skips" \
	sh -c "[ $rc -eq 0 ] && [ '${left:-0}' -gt 0 ] && [ '$left' = '$skipped' ]"
if [ -n "$PERF" ]; then
	"$PERF" report --stdio -i "$WORK/dmg.perf" >/dev/null 2>"$WORK/dmg.report.err"
	r=$?
	"$PERF" script -i "$WORK/dmg.perf" >"$WORK/dmg.script" 2>"$WORK/dmg.script.err"
	s=$?
	n=$(grep -c ' cpu-clock: ' "$WORK/dmg.script")
	check "damaged stack copies: perf report ($r) and perf script ($s) read the $n samples written (${wrote:-none}), saying nothing" \
		sh -c "[ $r -eq 0 -a $s -eq 0 ] && [ '$n' = '${wrote:-x}' ] && ! [ -s '$WORK/dmg.report.err' ] && ! [ -s '$WORK/dmg.script.err' ]"
	sed 's/^/# perf: /' "$WORK/dmg.report.err" "$WORK/dmg.script.err" | head -4
else
	skip "perf is not installed: nothing to read the converted damaged copies"
fi

# tracepoints: perf finds each tracepoint's format in HEADER_TRACING_DATA by the event's config
# (without it perf refuses the file, "incompatible file format"), and prints the fields of
# samples that carry PERF_SAMPLE_RAW
if [ "$(id -u)" -ne 0 ]; then
	skips 6 "tracepoints need root here (tracefs is root-only)"
elif [ -z "$PERF" ]; then
	skips 6 "perf is not installed: nothing to read the converted tracepoints"
else
	for tp in sw open; do
		case $tp in
		sw) ev=sched:sched_switch field=prev_comm= ; set -- -a -- sleep 0.3 ;;
		open) ev=syscalls:sys_enter_openat field='filename: 0x' ; set -- -- ls "$WORK" ;;
		esac
		k="$WORK/tp-$tp.kprof" p="$WORK/tp-$tp.perf"
		if ! "$KPROF" record -e $ev -o "$k" "$@" >/dev/null 2>"$WORK/tp-$tp.rec"; then
			skips 3 "$ev cannot be recorded here: $(grep -m1 kprof "$WORK/tp-$tp.rec")"
			continue
		fi
		"$KPROF" convert --to perf -i "$k" -o "$p" 2>"$WORK/tp-$tp.conv"
		"$PERF" report --stdio -i "$p" >/dev/null 2>"$WORK/tp-$tp.report.err"
		r=$?
		"$PERF" script -i "$p" >"$WORK/tp-$tp.script" 2>"$WORK/tp-$tp.script.err"
		s=$?
		n=$(grep -c " $ev: .*$field" "$WORK/tp-$tp.script")
		m=$("$KPROF" script -i "$k" | grep -c " $ev: ")
		check "$ev: perf report ($r) and perf script ($s) read the converted file silently, $n samples with their fields (kprof script $m)" \
			sh -c "[ $r -eq 0 -a $s -eq 0 ] && [ $n -gt 0 -a $n -eq $m ] && ! [ -s '$WORK/tp-$tp.report.err' ] && ! [ -s '$WORK/tp-$tp.script.err' ]"
		sed 's/^/# perf: /' "$WORK/tp-$tp.report.err" "$WORK/tp-$tp.script.err" | head -4
		# the ring buffer's header files, which perf.data keeps, kept by the recording
		check "$ev: the recording keeps tracefs' header_page and header_event" \
			sh -c "'$KPROF' script -i '$k' --header | grep -c '^# tracefs-header-page: .*field: u64 timestamp;\|^# tracefs-header-event: # compressed entry header' | grep -qx 2"
		# the event as perf sees it: the tracepoint's id (its format's ID line) as its config,
		# and RAW sampled
		id=$(cat /sys/kernel/tracing/events/${ev%%:*}/${ev#*:}/format \
			/sys/kernel/debug/tracing/events/${ev%%:*}/${ev#*:}/format 2>/dev/null |
			sed -n 's/^ID: \([0-9]*\)$/\1/p' | head -1)
		id=$(printf '0x%x' "${id:-0}")
		attr=$("$PERF" evlist -v -i "$p" 2>/dev/null | grep "^$ev:")
		check "$ev: perf evlist: config $id (the ID of its format), sample_type with RAW: '$(echo "$attr" | grep -o 'sample_type: [^,]*')'" \
			sh -c "echo '$attr' | grep -q 'config: $id,.*sample_type: [A-Z|]*RAW'"
	done
fi

# hotspot: Debian 12's 1.3.0 has no --exportTo; what it runs to read a perf.data is its
# parser, which works headless. It must find the work functions and warn of nothing it does
# not warn of on perf's own file of the same run.
HSPARSER=/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser
if [ ! -x "$HSPARSER" ]; then
	skips 2 "hotspot is not installed (the Debian package hotspot; contrib/setup.sh --check installs it)"
elif [ -z "$PERF" ]; then
	skips 2 "perf is not installed: no perf.data of perf's to hold hotspot's warnings to"
else
	"$PERF" record -q -g -o "$WORK/own.data" -- "$SPLIT" 1 >/dev/null 2>&1
	# bounded: 1 GiB of address space and a minute each (it takes 50 MB and 0.2 s here; a
	# damaged file once made it take 10 GB), and said when a bound ends it
	hsparse() {
		(ulimit -v 1048576 && QT_QPA_PLATFORM=offscreen exec timeout 60 "$HSPARSER" \
			--input "$1" --output "$2" 2>"$2.err")
		hs_rc=$?
		[ $hs_rc -eq 124 ] && echo "# hotspot's parser ran out of its minute on $1"
		grep -q "bad_alloc\|out of memory" "$2.err" &&
			echo "# hotspot's parser ran out of its 1 GiB on $1"
		return $hs_rc
	}
	# hs_new ERR: the first warnings of hotspot's parser in ERR that it does not give on
	# perf's own file (hotspot 1.3.0 misreads HEADER_SAMPLE_TIME, which perf 6.1 writes too,
	# and says so on perf's own file when it has one: perf leaves it out when its build-id
	# pass fails)
	hs_new() {
		grep -vxFf "$WORK/own.hs.err" "$1" |
			grep -v 'automatic buffering\|not properly read PerfHeader::SAMPLE_TIME 16 0$' | head -3
	}
	hsparse "$WORK/own.data" "$WORK/own.hs"
	hsparse "$WORK/g.perf" "$WORK/g.hs"
	rc=$?
	new=$(hs_new "$WORK/g.hs.err")
	funcs=$(strings "$WORK/g.hs" | grep -cxE 'work_a|work_b|work_c|main')
	check "hotspot's parser reads the converted file: $funcs of 4 functions, no new warning" \
		[ $rc -eq 0 -a "$funcs" -eq 4 -a -z "$new" ]
	[ -z "$new" ] || echo "# hotspot: $new"
	# a tracepoint's: its fields named from the format in the tracing data (the syscall's
	# recording: one of ls alone, where the -a one may hold others' binaries, deleted since)
	if [ -s "$WORK/tp-open.perf" ]; then
		hsparse "$WORK/tp-open.perf" "$WORK/tp-open.hs"
		rc=$?
		new=$(hs_new "$WORK/tp-open.hs.err")
		fields=$(strings "$WORK/tp-open.hs" | grep -cE '__syscall_nr|filename')
		check "hotspot's parser reads sys_enter_openat's fields from the converted file ($fields names), no new warning" \
			[ $rc -eq 0 -a "$fields" -ge 2 -a -z "$new" ]
		[ -z "$new" ] || echo "# hotspot: $new"
	else
		skip "no syscall recording to hand hotspot's parser (tracepoints need root)"
	fi
fi

# perf's own perf.data as a .kprof
for mode in g dwarf; do
	if [ -z "$PERF" ]; then
		skips 6 "perf is not installed (the Debian package linux-perf)"
		continue
	fi
	case $mode in
	g) set -- -g ;;
	dwarf) set -- --call-graph dwarf ;;
	esac
	pd="$WORK/$mode.pdata" kd="$WORK/$mode.from-perf.kprof"
	"$PERF" record -q -B -N "$@" -o "$pd" -- "$SPLIT" 1 >/dev/null 2>&1
	# perf reads its own file, whatever kprof runs beside this test (tests/live/beside.sh)
	"$PERF" report --stdio -i "$pd" >/dev/null 2>"$WORK/$mode.pcheck"
	check "perf report reads perf's own $mode file: $(grep -m1 . "$WORK/$mode.pcheck")" [ $? -eq 0 ]
	"$KPROF" convert --to kprof -i "$pd" -o "$kd" 2>"$WORK/$mode.tokprof"
	check "convert --to kprof of perf record $*" [ $? -eq 0 -a -s "$kd" ]
	for f in work_a work_b work_c; do
		ps=$(self_perf "$f" "$pd") ks=$(self_kprof "$f" "$kd")
		check "perf record $*: $f self ${ks:-none}% in the .kprof, perf report's ${ps:-none}%" \
			points "$ks" "$ps" 0.5
	done
	if [ -z "$ps" ] || [ -z "$ks" ]; then # why a report gave nothing
		"$PERF" report --no-children --stdio -i "$pd" 2>&1 >/dev/null | head -3 | sed 's/^/# perf: /'
		"$KPROF" report -i "$kd" --flat 2>&1 >/dev/null | head -3 | sed 's/^/# kprof: /'
		ls -l "$pd" "$kd" | sed 's/^/# /'
	fi
	sp=$(wc -c <"$pd") sk=$(wc -c <"$kd")
	check "perf record $*: the .kprof is smaller, $sk bytes against perf.data's $sp" [ "$sk" -lt "$sp" ]
done

# bad input: what and where, and no output left, not even a temporary file
mkdir "$WORK/out"
cp "$WORK/g.kprof" "$WORK/same.kprof"
"$KPROF" convert --to perf -i "$WORK/same.kprof" -o "$WORK/same.kprof" 2>"$WORK/same.err"
check "convert refuses to write over its input" \
	sh -c "[ $? -eq 1 ] && grep -q \"same.kprof' is the input\" '$WORK/same.err' && cmp -s '$WORK/g.kprof' '$WORK/same.kprof'"
# refused WHAT TO INPUT PATTERN: convert --to TO of INPUT fails, its error matches PATTERN,
# and the output's directory stays empty
refused() {
	"$KPROF" convert --to "$2" -i "$3" -o "$WORK/out/x" 2>"$WORK/refused.err"
	rc=$?
	check "$1: '$(grep -m1 "$4" "$WORK/refused.err" || head -1 "$WORK/refused.err")', no output" \
		sh -c "[ $rc -eq 1 ] && grep -q \"$4\" '$WORK/refused.err' && [ \$(ls -A '$WORK/out' | wc -l) -eq 0 ]"
}
size=$(wc -c <"$WORK/g.kprof")
head -c $((size / 2)) "$WORK/g.kprof" >"$WORK/cut.kprof"
refused "a truncated .kprof" perf "$WORK/cut.kprof" "cut.kprof': truncated at offset"
if [ -n "$PERF" ] && [ -s "$WORK/g.pdata" ]; then
	size=$(wc -c <"$WORK/g.pdata")
	head -c $((size / 2)) "$WORK/g.pdata" >"$WORK/cut.pdata"
	refused "a truncated perf.data" kprof "$WORK/cut.pdata" "cut.pdata': truncated at offset"
	# a data section said to start past the end of the file
	cp "$WORK/g.pdata" "$WORK/bad.pdata"
	printf '\377\377\377\377' | dd of="$WORK/bad.pdata" bs=1 seek=44 conv=notrunc 2>/dev/null
	refused "a corrupt perf.data header" perf "$WORK/bad.pdata" "bad.pdata'.*offset"
else
	skips 2 "perf is not installed: no perf.data to damage"
fi
# perf's own tracepoint file: kprof does not read its formats, and perf reads no file without
if [ "$(id -u)" -ne 0 ] || [ -z "$PERF" ]; then
	skip "no perf.data of a tracepoint to convert (it needs root and perf)"
elif ! "$PERF" record -q -e sched:sched_switch -o "$WORK/tp.pdata" -- true >/dev/null 2>&1; then
	skip "perf cannot record sched:sched_switch here"
else
	refused "a tracepoint's perf.data, whose formats kprof does not read" perf "$WORK/tp.pdata" \
		"tp.pdata' holds no format of its tracepoint 'sched:sched_switch'"
fi
"$KPROF" convert --to perf -i "$WORK/g.kprof" -o "$WORK/nodir/x.perf" 2>"$WORK/nodir.err"
check "an output in a missing directory: '$(head -1 "$WORK/nodir.err")'" \
	sh -c "[ $? -eq 1 ] && grep -q 'nodir/x.perf' '$WORK/nodir.err'"
"$KPROF" convert -i "$WORK/g.kprof" -o "$WORK/x" 2>/dev/null
check "convert without --to is a usage error" [ $? -eq 2 ]

done_testing
