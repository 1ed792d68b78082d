#!/bin/bash
# bench.sh - kprof against perf on the same machine, in the same run, alternating the two.
#
#   make bench                       (from the build directory), or
#   contrib/bench/bench.sh [BUILD_DIR]
#   RUNS=5 QUICK=1 ...               RUNS: measured runs per figure after one warm-up
#                                    (default 5); QUICK=1: smaller workloads, for a try-out
#   SECTIONS=dwarf ...               only these sections, comma-separated (default: all of
#                                    record,system,report,exports,perfdata,dwarf,distro,stackcopy,storm,realprog,annotate,offcpu,trace,archive,top,probes);
#                                    the table holds theirs
#   STACKCOLLAPSE=PATH ...           FlameGraph's stackcollapse-perf.pl (default: on PATH), the
#                                    collapse perf users pipe perf script into (perfdata)
#   DWARF_PERF_BUDGET=300 ...        seconds perf report may take over its DWARF runs (it
#                                    unwinds every sample); fewer runs than RUNS beyond
#                                    that, and the table says so
#   BEFORE=PATH ...                  an earlier kprof binary: the record section also runs it
#                                    on split-fp, for the recorder's CPU and bytes per sample
#                                    before and after a change
#   ANNOTATE_PYTHON=PATH ...         the python3 whose _PyEval_EvalFrameDefault the annotate
#                                    section times (default: the first with .debug_info in
#                                    its binary or libpython: pyenv's 3.11.7, pyenv's others,
#                                    python3 on PATH; none: that part is skipped, and said)
#
# Every figure is a median with its min-max over RUNS runs, and every comparison a ratio of
# kprof to perf measured in the same run: timings drift on shared machines, ratios less so.
# The table goes to stdout and to BUILD_DIR/bench/results.md, with the machine's facts; a run of
# every section (no SECTIONS), not QUICK, also writes it into contrib/bench/RESULTS.md, between
# that file's two marker lines.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
kprof=$build/kprof
runs=${RUNS:-5}
quick=${QUICK:-}
sections=,${SECTIONS:-record,system,report,exports,perfdata,dwarf,distro,stackcopy,storm,realprog,annotate,offcpu,trace,archive,top,probes},
out=$build/bench
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kprof-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"

die() { echo "bench: $*" >&2; exit 1; }
want() { [ "${sections#*,$1,}" != "$sections" ]; }	# want SECTION: is it to be run
for x in ${sections//,/ }; do
	case $x in
	record | system | report | exports | perfdata | dwarf | distro | stackcopy | storm | realprog | annotate | offcpu | trace | archive | top | probes) ;;
	*) die "unknown section '$x' in SECTIONS (known: record, system, report, exports, perfdata, dwarf, distro, stackcopy, storm, realprog, annotate, offcpu, trace, archive, top, probes)" ;;
	esac
done
[ -x "$kprof" ] || die "no kprof in '$build': build it first (contrib/setup.sh)"
before=${BEFORE:-}
[ -z "$before" ] || [ -x "$before" ] || die "BEFORE='$before' is not an executable kprof"
command -v perf >/dev/null || die "perf is missing: apt-get install linux-perf"
[ -x /usr/bin/time ] || die "/usr/bin/time is missing: apt-get install time"
command -v cc >/dev/null || die "no C compiler: apt-get install build-essential"

# --- workloads: a fixed amount of work each, so a profiler's cost shows up as time ---------
cc -O2 -g -fno-omit-frame-pointer -pthread -I"$top" -o "$tmp/work-fp" "$top/contrib/bench/work.c"
cc -O2 -g -fomit-frame-pointer -pthread -I"$top" -o "$tmp/work-nofp" "$top/contrib/bench/work.c"
scale=${quick:+5}; scale=${scale:-1}
r2s=$((10000 / scale))			# split rounds: about 2 s of CPU
declare -A workloads=(
	[split-fp]="$tmp/work-fp split $r2s"
	[split-nofp]="$tmp/work-nofp split $r2s"
	[deep-200]="$tmp/work-fp deep $((r2s / 2)) 200"
	[threads-2]="$tmp/work-fp threads 2 $((r2s / 2))"
	[forks-300]="$tmp/work-fp forks $((300 / scale))"
)
order=(split-fp split-nofp deep-200 threads-2 forks-300)

# --- measuring --------------------------------------------------------------------------------
# run FILE CMD...: append "wall cpu maxrss_kb" of CMD to FILE; CMD's stderr is kept in $tmp/err.
# The wall time is taken to the µs around /usr/bin/time (whose own %e is in centiseconds, too
# coarse for a report of a few ms), so it includes time's fork and exec, about a millisecond.
run() {
	local file=$1 t0 t1; shift
	t0=$(date +%s%N)
	/usr/bin/time -f "%U %S %M" -o "$tmp/t" "$@" >/dev/null 2>"$tmp/err" || true
	t1=$(date +%s%N)
	# the last line: time(1) says "Command exited with non-zero status N" before it
	tail -n 1 "$tmp/t" | awk -v w=$(( (t1 - t0) / 1000 )) '{ printf "%.4f %.3f %s\n", w / 1e6, $1 + $2, $3 }' >>"$file"
}
# stat FILE COLUMN: "median min max" of a column (1 wall, 2 cpu, 3 rss, 4 extra)
stat_() {
	awk -v c="$2" '{ print $c }' "$1" | sort -g | awk '{ v[NR] = $1 } END {
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%s %s %s\n", m, v[1], v[NR] }'
}
med() { stat_ "$1" "$2" | cut -d' ' -f1; }
range() { stat_ "$1" "$2" | awk '{ printf "%s (%s-%s)", $1, $2, $3 }'; }
# bps FILE: the median bytes per sample of "samples bytes" lines
bps() { awk '$1 > 0 { printf "%.1f\n", $2 / $1 }' "$1" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "n/a"; else printf "%.2f", a / b }'; }
# rate N SECONDS: millions of samples per second; sps N SECONDS: samples per second
rate() { awk -v n="$1" -v t="$2" 'BEGIN { printf "%.2f", (t > 0 ? n / t / 1e6 : 0) }'; }
sps() { awk -v n="$1" -v t="$2" 'BEGIN { printf "%.1f", (t > 0 ? n / t : 0) }'; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (a / b - 1) * 100 }'; }
kprof_samples() { sed -n 's/.*recorded \([0-9]*\) samples.*/\1/p' "$tmp/err"; }
perf_samples() { sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$tmp/err"; }
kprof_lost() { sed -n 's/.*samples, \([0-9]*\) lost.*/\1/p' "$tmp/err"; }
# perfz_samples FILE: perf -z does not print its sample count: ask perf report
perfz_samples() { perf report -i "$1" --stats 2>/dev/null | sed -n 's/^ *SAMPLE events: *\([0-9]*\).*/\1/p' | head -1; }

# --- 1. recording overhead, recorder cost, file size --------------------------------------
# the workload under a recorder runs timed itself, so that the recorder's own CPU is the run's
# less the workload's (which sampling slows down too); recorder_cpu FILE: that difference, s
timed=(/usr/bin/time -f "%U %S" -o "$tmp/inner")
recorder_cpu() {
	[ -s "$tmp/inner" ] || die "the workload under a recorder left no timing ($tmp/err: $(tail -1 "$tmp/err"))"
	tail -1 "$tmp/inner" | awk -v t="$(tail -1 "$1" | cut -d' ' -f2)" '{ printf "%.3f", t - $1 - $2 }'
	rm -f "$tmp/inner"
}
record_rows=""
size_rows=""
before_rows=""
# overhead WORKLOAD LABEL OPTS...: alone, kprof, perf (and perf -z at 4 kHz), alternating
overhead() {
	local w=$1 label=$2; shift 2
	local d=$tmp/o-$w-$label
	mkdir -p "$d"
	for i in $(seq 0 "$runs"); do
		local f=$d; [ "$i" -eq 0 ] && f=$d/warm && mkdir -p "$f"
		run "$f/alone" ${workloads[$w]}
		run "$f/kprof" "$kprof" record -g "$@" -o "$tmp/k.kprof" -- "${timed[@]}" ${workloads[$w]}
		echo "$(kprof_samples) $(stat -c %s "$tmp/k.kprof") $(recorder_cpu "$f/kprof")" >>"$f/kprof.n"
		run "$f/perf" perf record -g "$@" -o "$tmp/p.data" -- "${timed[@]}" ${workloads[$w]}
		echo "$(perf_samples) $(stat -c %s "$tmp/p.data") $(recorder_cpu "$f/perf")" >>"$f/perf.n"
		if [ -n "$before" ] && [ "$w" = split-fp ]; then
			run "$f/before" "$before" record -g "$@" -o "$tmp/b.kprof" -- "${timed[@]}" ${workloads[$w]}
			echo "$(kprof_samples) $(stat -c %s "$tmp/b.kprof") $(recorder_cpu "$f/before")" >>"$f/before.n"
		fi
		if [ "$w" = split-fp ] && [ "$label" = "4 kHz" -o "$label" = "99 Hz" ]; then
			run "$f/perfz" perf record -z -g "$@" -o "$tmp/pz.data" -- ${workloads[$w]}
			echo "$(perfz_samples "$tmp/pz.data") $(stat -c %s "$tmp/pz.data")" >>"$f/perfz.n"
		fi
		if [ "$label" = "4 kHz" ] && [ "$w" = split-fp ]; then
			"$kprof" report -i "$tmp/k.kprof" --flat --color never >"$f/kflat.$i"
			perf report -i "$tmp/p.data" --no-children --stdio --sort sym >"$f/pflat.$i" 2>/dev/null
		fi
	done
	local a k p ks ps
	a=$(med "$d/alone" 1); k=$(med "$d/kprof" 1); p=$(med "$d/perf" 1)
	ks=$(med "$d/kprof.n" 1); ps=$(med "$d/perf.n" 1)
	local ko po
	ko=$(pct "$k" "$a"); po=$(pct "$p" "$a")
	# the recorder's own CPU per 1000 samples (ms): the run's CPU minus the workload's own
	local kr pr
	kr=$(awk -v t="$(med "$d/kprof.n" 3)" -v n="$ks" 'BEGIN { printf "%.2f", (n ? t * 1e6 / n : 0) }')
	pr=$(awk -v t="$(med "$d/perf.n" 3)" -v n="$ps" 'BEGIN { printf "%.2f", (n ? t * 1e6 / n : 0) }')
	record_rows+="| $w | $label | $(range "$d/alone" 1) | $(range "$d/kprof" 1) | $ko% | $(range "$d/perf" 1) | $po% | $(awk -v a="$ko" -v b="$po" 'BEGIN { if (b <= 0) print "n/a"; else printf "%.2f", a / b }') | $kr | $pr | $(ratio "$kr" "$pr") | $ks / $ps |"$'\n'
	if [ -f "$d/perfz.n" ]; then
		local kb pb pzb
		kb=$(bps "$d/kprof.n"); pb=$(bps "$d/perf.n"); pzb=$(bps "$d/perfz.n")
		size_rows+="| $w, -g, $label | $kb | $pb | $pzb | $(ratio "$kb" "$pb") | $(ratio "$kb" "$pzb") |"$'\n'
	fi
	if [ -f "$d/before.n" ]; then
		local br
		br=$(awk -v t="$(med "$d/before.n" 3)" -v n="$(med "$d/before.n" 1)" 'BEGIN { printf "%.2f", (n ? t * 1e6 / n : 0) }')
		before_rows+="| $w, -g, $label | $br | $kr | $(ratio "$kr" "$br") | $(bps "$d/before.n") | $(bps "$d/kprof.n") |"$'\n'
	fi
	[ "$label" = "4 kHz" ] && [ "$w" = split-fp ] && accuracy "$d"
	return 0
}

# split_error FILE MAX: the larger of MAX and FILE's largest error of self% against 60/30/10
split_error() {
	awk -v m="$2" '$NF == "work_a" { a = $1 } $NF == "work_b" { b = $1 } $NF == "work_c" { c = $1 }
		END { gsub("%", "", a); gsub("%", "", b); gsub("%", "", c)
		e = a - 60; if (e < 0) e = -e; x = b - 30; if (x < 0) x = -x; if (x > e) e = x
		x = c - 10; if (x < 0) x = -x; if (x > e) e = x; if (m > e) e = m; printf "%.2f", e }' "$1"
}

# accuracy DIR: the largest error of self% against the true 60/30/10, kprof and perf
accuracy_row=""
accuracy() {
	local d=$1 f k p
	k=0; p=0
	for f in "$d"/kflat.[1-9]*; do
		k=$(split_error "$f" "$k")
	done
	for f in "$d"/pflat.[1-9]*; do
		p=$(split_error "$f" "$p")
	done
	accuracy_row="| split-fp, 4 kHz, $runs runs | $k | $p | $(ratio "$k" "$p") |"
}

if want record; then
	echo "bench: recording overhead ($runs runs each, alternating)..." >&2
	overhead split-fp "99 Hz" -F 99
	overhead split-fp "1 kHz" -F 1000
	overhead split-fp "4 kHz" -F 4000
	overhead split-fp "-c 100000" -c 100000
	for w in split-nofp deep-200 threads-2 forks-300; do
		overhead "$w" "4 kHz" -F 4000
	done
fi

# --- 1b. the whole machine: -a -g at 1 kHz while two CPU-bound threads keep it busy -------
if want system; then
	echo "bench: system-wide recording ($runs runs each, alternating)..." >&2
	secs=${quick:+2}; secs=${secs:-10}
	"$tmp/work-fp" threads 2 100000000 >/dev/null 2>&1 &
	busy=$!
	d=$tmp/sys
	mkdir -p "$d"
	for i in $(seq 0 "$runs"); do
		f=$d; [ "$i" -eq 0 ] && f=$d/warm && mkdir -p "$f"
		run "$f/kprof" "$kprof" record -a -g -F 1000 -o "$tmp/a.kprof" -- sleep "$secs"
		echo "$(kprof_samples) $(stat -c %s "$tmp/a.kprof") $(kprof_lost)" >>"$f/kprof.n"
		run "$f/perf" perf record -a -g -F 1000 -o "$tmp/a.data" -- sleep "$secs"
		echo "$(perf_samples) $(stat -c %s "$tmp/a.data") $(perf report -i "$tmp/a.data" --stats 2>/dev/null |
			sed -n 's/^ *LOST events: *\([0-9]*\).*/\1/p' | head -1)" >>"$f/perf.n"
		perf record -z -a -g -F 1000 -o "$tmp/az.data" -- sleep "$secs" >/dev/null 2>&1
		echo "$(perfz_samples "$tmp/az.data") $(stat -c %s "$tmp/az.data")" >>"$f/perfz.n"
		# always on: the whole machine at 19 Hz with stack copies, unwound while recording, for
		# $secs and for 4 x $secs: the difference is what running costs, without the start-up
		run "$f/always" "$kprof" record -a -F 19 --call-graph dwarf -o "$tmp/on.kprof" -- sleep "$secs"
		echo "$(kprof_samples) $(stat -c %s "$tmp/on.kprof")" >>"$f/always.n"
		run "$f/always4" "$kprof" record -a -F 19 --call-graph dwarf -o "$tmp/on.kprof" -- sleep $((4 * secs))
		echo "$(kprof_samples) $(stat -c %s "$tmp/on.kprof")" >>"$f/always4.n"
	done
	kill "$busy" 2>/dev/null; wait "$busy" 2>/dev/null || true
	# the recorder's own CPU (sleep's is nil), per 1000 samples; bytes per sample; lost
	sys_row() { # TOOL
		local cpu n b l
		cpu=$(med "$d/$1" 2); n=$(med "$d/$1.n" 1)
		b=$(bps "$d/$1.n")
		l=$(awk '{ s += ($3 == "" ? 0 : $3) } END { print s + 0 }' "$d/$1.n")
		printf "| %s | %s | %s | %.2f | %s | %s |\n" "$1" "$n" "$(range "$d/$1" 2)" \
			"$(awk -v c="$cpu" -v n="$n" 'BEGIN { print (n ? c * 1e6 / n : 0) }')" "$b" "$l"
	}
	sys_rows="$(sys_row kprof)"$'\n'"$(sys_row perf)"$'\n'
	kb=$(bps "$d/kprof.n"); pb=$(bps "$d/perf.n"); pzb=$(bps "$d/perfz.n")
	size_rows+="| -a -g -F 1000, sleep $secs | $kb | $pb | $pzb | $(ratio "$kb" "$pb") | $(ratio "$kb" "$pzb") |"$'\n'
	# the recorder's CPU as a share of one CPU: the long run's extra CPU over its extra wall time
	always_rows=""
	for a in always always4; do
		always_rows+="| $(med "$d/$a" 1) | $(med "$d/$a.n" 1) | $(bps "$d/$a.n") | $(range "$d/$a" 2) |"$'\n'
	done
	always_run=$(awk -v c1="$(med "$d/always" 2)" -v t1="$(med "$d/always" 1)" \
		-v c4="$(med "$d/always4" 2)" -v t4="$(med "$d/always4" 1)" \
		'BEGIN { printf "%.3f", (t4 > t1 ? 100 * (c4 - c1) / (t4 - t1) : 0) }')
fi

# --- 2. report throughput and scaling -----------------------------------------------------
if want report; then
	echo "bench: recording about 1 M samples with each tool..." >&2
	# about 1 M samples at 50 kHz (-c 20000): sampling that fast slows the workload itself down
	# (about 3.5x on a VM without a PMU), so this is fewer rounds than 20 s of CPU would suggest
	big=$((29000 / scale))
	"$kprof" record -c 20000 -g -o "$tmp/big.kprof" -- "$tmp/work-fp" split "$big" >/dev/null 2>"$tmp/err"
	kbig=$(kprof_samples)
	perf record -c 20000 -g -o "$tmp/big.data" -- "$tmp/work-fp" split "$big" >/dev/null 2>"$tmp/err"
	pbig=$(perf_samples)
	collapse() { # perf script's frames to folded stacks: the in-repository equivalent of
		# stackcollapse-perf.pl (which is not in this repository)
		perf script -i "$tmp/big.data" -F comm,ip,sym 2>/dev/null | awk '
		function flush(  s, i) { if (comm == "") return; s = comm
			for (i = n; i >= 1; i--) s = s ";" f[i]; c[s]++; comm = ""; n = 0 }
		/^[^ \t]/ { flush(); comm = $1; next }
		/^[ \t]+[0-9a-f]+ / { f[++n] = $2; next }
		/^$/ { flush() }
		END { flush(); for (s in c) print s, c[s] }'
	}
	echo "bench: report throughput ($runs runs each, alternating)..." >&2
	d=$tmp/rep
	mkdir -p "$d"
	for i in $(seq 0 "$runs"); do
		f=$d; [ "$i" -eq 0 ] && f=$d/warm && mkdir -p "$f"
		run "$f/k-folded" "$kprof" report -i "$tmp/big.kprof" --folded
		run "$f/p-report" perf report -i "$tmp/big.data" --stdio
		run "$f/k-tree" "$kprof" report -i "$tmp/big.kprof" --tree
		run "$f/p-report-flat" perf report -i "$tmp/big.data" --stdio --no-children -g none
		run "$f/k-svg" "$kprof" report -i "$tmp/big.kprof" --svg
		run "$f/p-script" perf script -i "$tmp/big.data"
		export -f collapse; export tmp
		run "$f/p-script-collapse" bash -c collapse
	done
	report_rows=""
	for t in k-folded:"kprof report --folded":$kbig k-tree:"kprof report --tree":$kbig \
		k-svg:"kprof report --svg":$kbig p-report:"perf report --stdio":$pbig \
		p-report-flat:"perf report --stdio --no-children -g none":$pbig \
		p-script:"perf script":$pbig p-script-collapse:"perf script piped into an awk collapse":$pbig; do
		name=${t%%:*}; rest=${t#*:}; label=${rest%:*}; n=${rest##*:}
		report_rows+="| $label | $n | $(range "$d/$name" 1) | $(rate "$n" "$(med "$d/$name" 1)") | $(med "$d/$name" 3) |"$'\n'
	done
	# ratios of throughput (samples per second): the two recordings hold different sample counts
	kr=$(rate "$kbig" "$(med "$d/k-folded" 1)")
	report_ratio="kprof report --folded against perf report --stdio: $(ratio "$kr" "$(rate "$pbig" "$(med "$d/p-report" 1)")")x the throughput; against perf script + the awk collapse: $(ratio "$kr" "$(rate "$pbig" "$(med "$d/p-script-collapse" 1)")")x (stackcollapse-perf.pl, which is not in this repository, is much slower than that awk); peak RSS $(med "$d/k-folded" 3) KB against perf report's $(med "$d/p-report" 3) KB"

	echo "bench: scaling..." >&2
	# 5 M and 10 M samples: the 1 M recording's data chunks five and ten times over, behind its
	# first chunk (perf has no such file: its rows stop at 1 M)
	first=$(od -An -t u8 -j 72 -N 8 "$tmp/big.kprof" | tr -d ' ')
	meta=$((64 + 32 + first))
	head -c "$meta" "$tmp/big.kprof" >"$tmp/big5.kprof"
	for i in 1 2 3 4 5; do tail -c +"$((meta + 1))" "$tmp/big.kprof" >>"$tmp/big5.kprof"; done
	cp "$tmp/big5.kprof" "$tmp/big10.kprof"
	for i in 1 2 3 4 5; do tail -c +"$((meta + 1))" "$tmp/big.kprof" >>"$tmp/big10.kprof"; done
	# about 150 k samples, by each tool
	"$kprof" record -c 20000 -g -o "$tmp/small.kprof" -- "$tmp/work-fp" split $((big * 15 / 100)) >/dev/null 2>"$tmp/err"
	ksmall=$(kprof_samples)
	perf record -c 20000 -g -o "$tmp/small.data" -- "$tmp/work-fp" split $((big * 15 / 100)) >/dev/null 2>"$tmp/err"
	psmall=$(perf_samples)
	for i in $(seq 1 "$runs"); do run "$d/p-small" perf report -i "$tmp/small.data" --stdio; done
	# a system-wide recording of many processes: 64 forked workers for about 10 s, about 1 M
	# samples, and ten times its data chunks
	"$kprof" record -a -c 20000 -g -o "$tmp/many.kprof" -- "$tmp/work-fp" children 64 $((450 / scale)) \
		>/dev/null 2>"$tmp/err"
	kmany=$(kprof_samples)
	first=$(od -An -t u8 -j 72 -N 8 "$tmp/many.kprof" | tr -d ' ')
	meta=$((64 + 32 + first))
	head -c "$meta" "$tmp/many.kprof" >"$tmp/many10.kprof"
	for i in $(seq 1 10); do tail -c +"$((meta + 1))" "$tmp/many.kprof" >>"$tmp/many10.kprof"; done
	scale_rows=""
	# recording:samples:kprof input:kprof options:perf's run:perf's samples
	for t in "split -g:$ksmall:small.kprof::p-small:$psmall" "split -g:$kbig:big.kprof::p-report:$pbig" \
		"split -g, chunks x5:$((kbig * 5)):big5.kprof:::" "split -g, chunks x10:$((kbig * 10)):big10.kprof:::" \
		"split -g, chunks x10, --jobs 1:$((kbig * 10)):big10.kprof:--jobs 1::" \
		"64 workers, -a -g:$kmany:many.kprof:::" "64 workers, -a -g, chunks x10:$((kmany * 10)):many10.kprof:::" \
		"perf.data of split -g:$psmall:small.data::p-small:$psmall" "perf.data of split -g:$pbig:big.data::p-report:$pbig"; do
		IFS=: read -r label n input opts pname pn <<<"$t"
		name=$(printf '%s' "$input$opts" | tr -c 'a-z0-9' '_')
		# shellcheck disable=SC2086 # $opts is words
		for i in $(seq 1 "$runs"); do run "$d/s-$name" "$kprof" report -i "$tmp/$input" --folded $opts; done
		local_p="- | - | -"
		[ -n "$pname" ] && local_p="$pn | $(range "$d/$pname" 1) | $(ratio "$(rate "$n" "$(med "$d/s-$name" 1)")" "$(rate "$pn" "$(med "$d/$pname" 1)")")x"
		scale_rows+="| $label | $n | $(range "$d/s-$name" 1) | $(rate "$n" "$(med "$d/s-$name" 1)") | $(med "$d/s-$name" 3) | $local_p |"$'\n'
	done
fi

# --- 2b. the exports other viewers read, beside --folded, on the 1 M-sample recording -----
if want exports; then
	if [ ! -f "$tmp/big.kprof" ]; then
		echo "bench: recording about 1 M samples..." >&2
		"$kprof" record -c 20000 -g -o "$tmp/big.kprof" -- "$tmp/work-fp" split $((29000 / scale)) \
			>/dev/null 2>"$tmp/err"
		kbig=$(kprof_samples)
	fi
	echo "bench: exports ($runs runs each, alternating)..." >&2
	d=$tmp/exp
	mkdir -p "$d"
	formats="folded pprof speedscope chrome firefox"
	for i in $(seq 0 "$runs"); do
		f=$d; [ "$i" -eq 0 ] && f=$d/warm && mkdir -p "$f"
		for x in $formats; do
			run "$f/$x" "$kprof" report -i "$tmp/big.kprof" --format "$x" -o "$tmp/out.$x"
		done
	done
	export_rows=""
	for x in $formats; do
		size=$(stat -c %s "$tmp/out.$x")
		case $x in firefox | pprof) size="$size ($(gzip -dc "$tmp/out.$x" | wc -c) uncompressed)" ;; esac
		export_rows+="| --format $x | $(range "$d/$x" 1) | $(rate "$kbig" "$(med "$d/$x" 1)") | $(med "$d/$x" 3) | $size |"$'\n'
	done
	# the Gecko export streams: its peak above --folded's against the document it writes
	# (tests/unit/test-report.c holds the streaming itself to the allocator's own count)
	firefox_note="--format firefox's peak RSS is $(awk -v a="$(med "$d/firefox" 3)" -v b="$(med "$d/folded" 3)" 'BEGIN { printf "%d", a - b }') KB above --folded's, for a document of $(( $(gzip -dc "$tmp/out.firefox" | wc -c) / 1024 )) KB uncompressed"
fi

# --- 2c. perf's perf.data: kprof reading it against perf's own readers; kprof's writing it ----
# One perf.data of about 1 M samples read three ways: kprof report --folded, perf report
# --stdio, and perf script piped into stackcollapse-perf.pl (the flame graph pipeline kprof
# replaces; kprof script into the same collapse for comparison). Then the same workload
# recorded by kprof and converted (--to perf) against perf's own file, in bytes per sample,
# and the time each direction of kprof convert takes.
if want perfdata; then
	sc=${STACKCOLLAPSE:-$(command -v stackcollapse-perf.pl || true)}
	echo "bench: perf.data of about 1 M samples..." >&2
	big=$((29000 / scale))
	perf record -c 20000 -g -o "$tmp/pd.data" -- "$tmp/work-fp" split "$big" >/dev/null 2>"$tmp/err"
	pdn=$(perf_samples)
	"$kprof" record -c 20000 -g -o "$tmp/pd.kprof" -- "$tmp/work-fp" split "$big" >/dev/null 2>"$tmp/err"
	kdn=$(kprof_samples)
	export tmp sc kprof
	d=$tmp/pd
	mkdir -p "$d"
	for i in $(seq 0 "$runs"); do
		f=$d; [ "$i" -eq 0 ] && f=$d/warm && mkdir -p "$f"
		run "$f/k-folded" "$kprof" report -i "$tmp/pd.data" --folded
		run "$f/p-report" perf report -i "$tmp/pd.data" --stdio
		if [ -n "$sc" ]; then
			run "$f/p-collapse" bash -c 'perf script -i "$tmp/pd.data" 2>/dev/null | perl "$sc"'
			run "$f/k-collapse" bash -c '"$kprof" script -i "$tmp/pd.data" | perl "$sc"'
		else
			run "$f/p-collapse" perf script -i "$tmp/pd.data"
			run "$f/k-collapse" "$kprof" script -i "$tmp/pd.data"
		fi
		run "$f/to-perf" "$kprof" convert --to perf -i "$tmp/pd.kprof" -o "$tmp/pd.kperf"
		run "$f/to-kprof" "$kprof" convert --to kprof -i "$tmp/pd.data" -o "$tmp/pd.pkprof"
	done
	collapse_label="perf script piped into stackcollapse-perf.pl"
	kcollapse_label="kprof script -i perf.data piped into stackcollapse-perf.pl"
	if [ -z "$sc" ]; then
		collapse_label="perf script (stackcollapse-perf.pl not found: the collapse is left out)"
		kcollapse_label="kprof script -i perf.data (no collapse)"
	fi
	perfdata_rows=""
	for t in k-folded:"kprof report -i perf.data --folded" p-report:"perf report --stdio" \
		p-collapse:"$collapse_label" k-collapse:"$kcollapse_label"; do
		name=${t%%:*}; label=${t#*:}
		perfdata_rows+="| $label | $pdn | $(range "$d/$name" 1) | $(rate "$pdn" "$(med "$d/$name" 1)") | $(med "$d/$name" 3) |"$'\n'
	done
	perfdata_rows+="| kprof convert --to kprof (the perf.data) | $pdn | $(range "$d/to-kprof" 1) | $(rate "$pdn" "$(med "$d/to-kprof" 1)") | $(med "$d/to-kprof" 3) |"$'\n'
	perfdata_rows+="| kprof convert --to perf (kprof's recording) | $kdn | $(range "$d/to-perf" 1) | $(rate "$kdn" "$(med "$d/to-perf" 1)") | $(med "$d/to-perf" 3) |"$'\n'
	kr=$(rate "$pdn" "$(med "$d/k-folded" 1)")
	perfdata_ratio="kprof report --folded of perf's file against perf report --stdio: $(ratio "$kr" "$(rate "$pdn" "$(med "$d/p-report" 1)")")x the throughput; against $collapse_label: $(ratio "$kr" "$(rate "$pdn" "$(med "$d/p-collapse" 1)")")x"
	kp=$(wc -c <"$tmp/pd.kperf") pp=$(wc -c <"$tmp/pd.data") kk=$(wc -c <"$tmp/pd.kprof") pk=$(wc -c <"$tmp/pd.pkprof")
	perfsize_rows="| perf record -g (perf's own) | $pdn | $pp | $(awk -v b="$pp" -v n="$pdn" 'BEGIN { printf "%.1f", b / n }') |"$'\n'
	perfsize_rows+="| kprof record -g, convert --to perf | $kdn | $kp | $(awk -v b="$kp" -v n="$kdn" 'BEGIN { printf "%.1f", b / n }') |"$'\n'
	perfsize_rows+="| kprof record -g (.kprof) | $kdn | $kk | $(awk -v b="$kk" -v n="$kdn" 'BEGIN { printf "%.1f", b / n }') |"$'\n'
	perfsize_rows+="| perf record -g, convert --to kprof | $pdn | $pk | $(awk -v b="$pk" -v n="$pdn" 'BEGIN { printf "%.1f", b / n }') |"$'\n'
fi

# --- 3. DWARF call graphs: file size, report throughput, what unwinding while recording costs -
# kprof record --call-graph dwarf unwinds while recording and keeps only the call chains (the
# "compact" file); --keep-stacks keeps the register and stack copies, as perf does, for the
# report to unwind. Against: kprof -g on the frame-pointer build (the compact file's target is
# at most 1.5 times its size) and perf record --call-graph dwarf, with and without -z.
# copies_kept: how many samples a compact recording stored as copies (it falls behind), or "-"
copies_kept() { sed -n 's/.*; \([0-9]*\) kept as copies.*/\1/p' "$tmp/err" | grep . || echo -; }
dwarf_sizes() {
	local d=$tmp/dw w=${workloads[split-nofp]} f i
	mkdir -p "$d"
	echo "bench: DWARF recording, file size and overhead ($runs runs each, alternating)..." >&2
	for i in $(seq 0 "$runs"); do
		f=$d; [ "$i" -eq 0 ] && f=$d/warm && mkdir -p "$f"
		run "$f/alone" $w
		run "$f/kc" "$kprof" record --call-graph dwarf -F 4000 -o "$tmp/dc.kprof" -- $w
		echo "$(kprof_samples) $(stat -c %s "$tmp/dc.kprof") $(copies_kept)" >>"$f/kc.n"
		run "$f/pd" perf record --call-graph dwarf -F 4000 -o "$tmp/pd.data" -- $w
		echo "$(perf_samples) $(stat -c %s "$tmp/pd.data")" >>"$f/pd.n"
		run "$f/kk" "$kprof" record --call-graph dwarf --keep-stacks -F 4000 -o "$tmp/dk.kprof" -- $w
		echo "$(kprof_samples) $(stat -c %s "$tmp/dk.kprof")" >>"$f/kk.n"
		run "$f/pz" perf record -z --call-graph dwarf -F 4000 -o "$tmp/pz.data" -- $w
		echo "$(perfz_samples "$tmp/pz.data") $(stat -c %s "$tmp/pz.data")" >>"$f/pz.n"
		run "$f/kfp" "$kprof" record -g -F 4000 -o "$tmp/fp.kprof" -- ${workloads[split-fp]}
		echo "$(kprof_samples) $(stat -c %s "$tmp/fp.kprof")" >>"$f/kfp.n"
	done
	local kc kfp pz
	kc=$(bps "$d/kc.n"); kfp=$(bps "$d/kfp.n"); pz=$(bps "$d/pz.n")
	dwarf_size_rows=""
	for t in kc:"kprof record --call-graph dwarf (compact)" \
		kk:"kprof record --call-graph dwarf --keep-stacks" kfp:"kprof record -g, on split-fp" \
		pd:"perf record --call-graph dwarf" pz:"perf record -z --call-graph dwarf"; do
		local name=${t%%:*} label=${t#*:} b
		b=$(bps "$d/$name.n")
		dwarf_size_rows+="| $label | $(med "$d/$name.n" 1) | $b | $(ratio "$b" "$kfp") | $(ratio "$b" "$pz") |"$'\n'
	done
	dwarf_size_ratio="compact against kprof -g: $(ratio "$kc" "$kfp")x (target: at most 1.5x); compact against perf -z: $(ratio "$kc" "$pz")x"
	# a compact recording that falls behind stores some samples as copies: say how many
	if grep -q ' [0-9]*$' "$d/kc.n"; then
		dwarf_size_ratio+="; samples the compact recording stored as copies, per run: $(awk '{ printf "%s%s", (NR > 1 ? " " : ""), $3 }' "$d/kc.n")"
	fi
	# the workload's wall and CPU time under each recorder, and the recorder's own CPU
	local a ac
	a=$(med "$d/alone" 1); ac=$(med "$d/alone" 2)
	dwarf_cost_rows="| split-nofp alone | - | $(range "$d/alone" 1) | - | $(range "$d/alone" 2) | - |"$'\n'
	for t in kc:"kprof record --call-graph dwarf (compact)" \
		kk:"kprof record --call-graph dwarf --keep-stacks" \
		pd:"perf record --call-graph dwarf" pz:"perf record -z --call-graph dwarf"; do
		local name=${t%%:*} label=${t#*:} n c
		n=$(med "$d/$name.n" 1); c=$(med "$d/$name" 2)
		dwarf_cost_rows+="| $label | $n | $(range "$d/$name" 1) | $(pct "$(med "$d/$name" 1)" "$a")% | $(range "$d/$name" 2) | $(awk -v t="$c" -v a="$ac" -v n="$n" 'BEGIN { printf "%.2f", (n ? (t - a) * 1e6 / n : 0) }') |"$'\n'
	done
	dwarf_cost_ratio="slowdown of the workload, compact kprof against perf: $(awk -v a="$(pct "$(med "$d/kc" 1)" "$a")" -v b="$(pct "$(med "$d/pd" 1)" "$a")" 'BEGIN { if (b <= 0) print "n/a"; else printf "%.2f", a / b }'); the compact recorder unwinds while recording, perf and --keep-stacks leave it to the report"
}

# about 200 k samples at 50 kHz (-c 20000): sampling with stack copies that fast slows the
# workload down 4-5x here, hence far fewer rounds than 4 s of CPU would suggest. perf loses
# some of its samples at that rate (it writes 8 KiB each): the table says how many
dwarf_report() {
	local d=$tmp/dwr rounds=$((4400 / scale)) w i f
	w="$tmp/work-nofp split $rounds"
	mkdir -p "$d"
	echo "bench: DWARF recordings of about $((200 / scale)) k samples..." >&2
	"$kprof" record -c 20000 --call-graph dwarf --keep-stacks -o "$tmp/dwk.kprof" -- $w >/dev/null 2>"$tmp/err"
	dwk=$(kprof_samples); dwk_lost=$(kprof_lost)
	"$kprof" record -c 20000 --call-graph dwarf -o "$tmp/dwc.kprof" -- $w >/dev/null 2>"$tmp/err"
	dwc=$(kprof_samples); dwc_note=", $(kprof_lost) lost"
	if [ "$(copies_kept)" != - ]; then dwc_note+=", $(copies_kept) stored as copies"; fi
	perf record -c 20000 --call-graph dwarf -o "$tmp/dwp.data" -- $w >/dev/null 2>"$tmp/err"
	dwp=$(perf_samples); dwp_lost=$(grep -o 'lost [0-9.]*%\|lost [0-9]* chunks' "$tmp/err" | head -1 || true)
	# perf report unwinds every sample, which can take minutes per million: it gets as many
	# of RUNS runs as fit in DWARF_PERF_BUDGET seconds, going by its warm-up run
	local budget=${DWARF_PERF_BUDGET:-300}
	dwarf_perf_runs=$runs
	echo "bench: DWARF report throughput (up to $runs runs each, alternating)..." >&2
	for i in $(seq 0 "$runs"); do
		f=$d; [ "$i" -eq 0 ] && f=$d/warm && mkdir -p "$f"
		run "$f/kk" "$kprof" report -i "$tmp/dwk.kprof" --folded
		[ "$i" -le "$dwarf_perf_runs" ] && run "$f/pr" perf report -i "$tmp/dwp.data" --stdio
		run "$f/kc" "$kprof" report -i "$tmp/dwc.kprof" --folded
		# perf's own file, its stack copies unwound by kprof: the same file as perf report's
		run "$f/kp" "$kprof" report -i "$tmp/dwp.data" --folded
		if [ "$i" -eq 0 ]; then
			dwarf_perf_runs=$(awk -v b="$budget" -v t="$(med "$f/pr" 1)" -v r="$runs" \
				'BEGIN { n = t > 0 ? int(b / t) : r; print n < 1 ? 1 : (n > r ? r : n) }')
		fi
	done
	dwarf_report_rows=""
	for t in kk:"kprof report --folded, --keep-stacks file":$dwk \
		kc:"kprof report --folded, compact file":$dwc \
		kp:"kprof report --folded, perf's perf.data":$dwp pr:"perf report --stdio":$dwp; do
		local name=${t%%:*} rest=${t#*:} label n
		label=${rest%:*}; n=${rest##*:}
		[ "$name" = pr ] && [ "$dwarf_perf_runs" -lt "$runs" ] && label+=" ($dwarf_perf_runs runs)"
		dwarf_report_rows+="| $label | $n | $(range "$d/$name" 1) | $(awk -v r="$(sps "$n" "$(med "$d/$name" 1)")" 'BEGIN { printf "%.1f", r / 1e3 }') | $(med "$d/$name" 3) |"$'\n'
	done
	local kr cr pr kpr
	kr=$(sps "$dwk" "$(med "$d/kk" 1)"); cr=$(sps "$dwc" "$(med "$d/kc" 1)")
	pr=$(sps "$dwp" "$(med "$d/pr" 1)"); kpr=$(sps "$dwp" "$(med "$d/kp" 1)")
	dwarf_report_ratio="throughput against perf report --stdio: $(ratio "$kpr" "$pr")x on perf's own perf.data (the same file), $(ratio "$kr" "$pr")x on the --keep-stacks file, $(ratio "$cr" "$pr")x on the compact one; peak RSS $(med "$d/kk" 3) and $(med "$d/kc" 3) KB against perf's $(med "$d/pr" 3) KB"
}

dwarf_table() {
	echo
	echo "### DWARF call graphs: file size per sample (split-nofp, -F 4000, 8 KiB stack copies)"
	echo
	echo "| recording | samples | bytes per sample | against kprof -g | against perf -z |"
	echo "|---|---|---|---|---|"
	printf "%s" "$dwarf_size_rows"
	echo
	echo "$dwarf_size_ratio."
	echo
	echo "### DWARF call graphs: the cost of recording (split-nofp, -F 4000), median (min-max)"
	echo
	echo "| recording | samples | wall s | slowdown | CPU s (workload + recorder) | recorder CPU ms/1000 samples |"
	echo "|---|---|---|---|---|---|"
	printf "%s" "$dwarf_cost_rows"
	echo
	echo "$dwarf_cost_ratio."
	echo
	echo "### DWARF call graphs: report throughput on recordings of $dwk (--keep-stacks, $dwk_lost lost), $dwc (compact$dwc_note) and $dwp (perf${dwp_lost:+, $dwp_lost}) samples of split-nofp (-c 20000)"
	echo
	echo "| command | samples | wall s, median (min-max) | k samples/s | peak RSS KB |"
	echo "|---|---|---|---|---|"
	printf "%s" "$dwarf_report_rows"
	echo
	echo "$dwarf_report_ratio."
	[ "$dwarf_perf_runs" -ge "$runs" ] || echo "perf report: $dwarf_perf_runs of the $runs runs, as more would have taken longer than DWARF_PERF_BUDGET=${DWARF_PERF_BUDGET:-300} s."
}

if want dwarf; then
	dwarf_sizes
	dwarf_report
fi

# --- 4. Debian's own programs in DWARF mode: stripped gzip and xz, python3, sqlite3 --------------
# Stacks reaching __libc_start_call_main and their mean user depth (tests/live/stacks.sh, from
# the last run; and kprof's of perf's own file, the same samples), bytes per sample (kprof's
# compact file against perf's, plain and -z) and the report's wall time (kprof report --folded
# against perf report --stdio), medians over RUNS.
. "$top/tests/live/stacks.sh"
# distro_cmd PROGRAM: its workload, about a second of CPU, in the array cmd
distro_cmd() {
	case $1 in
	gzip) cmd=(gzip -9 -c "$tmp/numbers") ;;
	xz) cmd=(xz -6 -T1 -c "$tmp/numbers") ;;
	python3) cmd=(/usr/bin/python3 -c "$(printf 'def f(n): return n if n < 2 else f(n - 1) + f(n - 2)\nf(%d)' $((33 - scale / 5)))") ;;
	sqlite3) cmd=(sqlite3 :memory: ".read $tmp/q.sql") ;;
	esac
}
# distro_inputs: the numbers gzip and xz compress, and sqlite3's query
distro_inputs() {
	[ -s "$tmp/numbers" ] || seq 1 $((3000000 / scale)) >"$tmp/numbers"
	cat >"$tmp/q.sql" <<-EOF
	CREATE TABLE t(a TEXT, b INT);
	WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT $((300000 / scale)))
		INSERT INTO t SELECT hex(randomblob(20)), x FROM c;
	CREATE INDEX ti ON t(a);
	SELECT count(*), sum(length(a || b)) FROM t GROUP BY b % 7;
	EOF
}
distro() {
	local d=$tmp/distro i f p
	mkdir -p "$d"
	distro_inputs
	distro_rows=""
	for p in gzip xz python3 sqlite3; do
		distro_cmd "$p"
		command -v "${cmd[0]}" >/dev/null || { distro_rows+="| $p | not installed | | | | | | |"$'\n'; continue; }
		echo "bench: $p in DWARF mode ($runs runs each, alternating)..." >&2
		for i in $(seq 0 "$runs"); do
			f=$d/$p; [ "$i" -eq 0 ] && f=$d/$p.warm
			run "$f.kr" "$kprof" record --call-graph dwarf -F 4000 -o "$tmp/$p.kprof" -- "${cmd[@]}"
			echo "$(kprof_samples) $(stat -c %s "$tmp/$p.kprof")" >>"$f.kr.n"
			run "$f.pr" perf record --call-graph dwarf -F 4000 -o "$tmp/$p.data" -- "${cmd[@]}"
			echo "$(perf_samples) $(stat -c %s "$tmp/$p.data")" >>"$f.pr.n"
			run "$f.pz" perf record -z --call-graph dwarf -F 4000 -o "$tmp/$p.z.data" -- "${cmd[@]}"
			echo "$(perfz_samples "$tmp/$p.z.data") $(stat -c %s "$tmp/$p.z.data")" >>"$f.pz.n"
			run "$f.krep" "$kprof" report -i "$tmp/$p.kprof" --folded
			run "$f.prep" perf report -i "$tmp/$p.data" --stdio
		done
		"$kprof" report -i "$tmp/$p.kprof" --folded --weight samples --no-inline --annotate >"$tmp/$p.folded" 2>/dev/null
		perf script -i "$tmp/$p.data" -F ip,sym,dso --no-inline >"$tmp/$p.script" 2>/dev/null
		# kprof on perf's own file: the same samples, where only the unwinding differs
		"$kprof" report -i "$tmp/$p.data" --folded --weight samples --no-inline --annotate >"$tmp/$p.pfolded" 2>/dev/null
		local k pp kp kb pb zb
		read -r -a k <<<"$(kstats "$tmp/$p.folded")"
		read -r -a pp <<<"$(pstats "$tmp/$p.script")"
		read -r -a kp <<<"$(kstats "$tmp/$p.pfolded")"
		kb=$(bps "$d/$p.kr.n"); pb=$(bps "$d/$p.pr.n"); zb=$(bps "$d/$p.pz.n")
		distro_rows+="| $p | ${k[0]}% / ${pp[0]}% (${kp[0]}%) | ${k[1]} / ${pp[1]} (${kp[1]}) | $kb / $pb / $zb | $(ratio "$kb" "$zb") | $(range "$d/$p.krep" 1) | $(range "$d/$p.prep" 1) | $(ratio "$(med "$d/$p.prep" 1)" "$(med "$d/$p.krep" 1)") |"$'\n'
	done
}

if want distro; then
	distro
fi

# --- 4a. The size of the stack copy: --call-graph dwarf,SIZE against perf's 8 KiB ----------------
# What a larger copy costs and what it buys, on sqlite3's query (as in the distro section),
# python3's fib(30), four gcc -O2 -c of kprof's files and xz -T2 (two threads: the kernel copies
# a main thread's stack up to its end at most, a thread's for the whole size): each alone, then
# recorded by kprof with copies of 8, 16, 32 (its default) and 64 KiB and by perf (its 8 KiB),
# alternating, RUNS runs. The workload's CPU (time(1) inside the recorder) against its own
# alone, the recorder's (the run's less the workload's), the lost samples, and the stacks that
# reach their thread's entry (__libc_start_call_main, start_thread) with their mean number of
# user frames (tests/live/stacks.sh), medians. CPU time, not wall: it holds on a shared machine.
copy_cmd() {
	case $1 in
	python3) cmd=(/usr/bin/python3 -c "$(printf 'def f(n): return n if n < 2 else f(n - 1) + f(n - 2)\nf(30)')") ;;
	gcc) cmd=(sh -c "for f in src/record/recorder.c report/symbols/perfmap.c report/tools/annotate.c report/profile/report.c; do gcc -O2 -D_GNU_SOURCE -c -o '$tmp/copy.o' '$top'/\$f -I'$top' -I'$build' || exit 1; done") ;;
	xz) cmd=(xz -6 -T2 --block-size=1MiB -c "$tmp/numbers-1m") ;;
	*) distro_cmd "$1" ;;
	esac
}
# copy_line FILE SAMPLES LOST RUN STATS: "samples lost workload-CPU recorder-CPU reach depth" of
# the run just made (RUN: its file of run(); STATS: kstats' or pstats' answer), added to FILE
copy_line() {
	echo "$2 ${3:-0} $(tail -1 "$tmp/inner" | awk '{ printf "%.3f", $1 + $2 }') $(recorder_cpu "$4") ${5% *}" >>"$1"
}
copy_sizes="8192 16384 32768 65528"
copy_entry="__libc_start_call_main|start_thread"
stackcopy() {
	local d=$tmp/copy i f p s
	mkdir -p "$d"
	distro_inputs
	seq 1 $((1000000 / scale)) >"$tmp/numbers-1m"
	copy_rows=""
	for p in sqlite3 python3 gcc xz; do
		copy_cmd "$p"
		command -v "${cmd[0]}" >/dev/null || continue
		echo "bench: $p with stack copies of $copy_sizes bytes ($runs runs each, alternating)..." >&2
		for i in $(seq 0 "$runs"); do
			f=$d/$p; [ "$i" -eq 0 ] && f=$d/$p.warm
			run "$f.alone" "${cmd[@]}"
			for s in $copy_sizes; do
				run "$f.k$s" "$kprof" record --call-graph dwarf,$s -F 4000 -o "$tmp/copy.kprof" -- "${timed[@]}" "${cmd[@]}"
				"$kprof" report -i "$tmp/copy.kprof" --folded --weight samples --no-inline --annotate >"$tmp/copy.folded" 2>/dev/null
				copy_line "$f.k$s.n" "$(kprof_samples)" "$(kprof_lost)" "$f.k$s" "$(kstats "$tmp/copy.folded" "" "$copy_entry")"
			done
			run "$f.perf" perf record --call-graph dwarf -F 4000 -o "$tmp/copy.data" -- "${timed[@]}" "${cmd[@]}"
			local n; n=$(perf_samples)
			perf script -i "$tmp/copy.data" -F ip,sym,dso --no-inline >"$tmp/copy.script" 2>/dev/null
			copy_line "$f.perf.n" "$n" "$(perf report -i "$tmp/copy.data" --stats 2>/dev/null | sed -n 's/^ *LOST_SAMPLES events: *\([0-9]*\)$/\1/p' | tail -1)" "$f.perf" "$(pstats "$tmp/copy.script" "" "$copy_entry")"
		done
		local alone pc
		alone=$(med "$d/$p.alone" 2)
		pc=$(awk -v a="$(med "$d/$p.perf.n" 3)" -v b="$(med "$d/$p.perf.n" 4)" 'BEGIN { print a + b }')
		for s in $copy_sizes perf; do
			local t=$d/$p.perf.n label="perf, 8 KiB" wc rc
			[ "$s" = perf ] || t=$d/$p.k$s.n label="kprof, $(((s + 1023) / 1024)) KiB"
			[ "$s" = 32768 ] && label="$label (default)"
			wc=$(med "$t" 3); rc=$(med "$t" 4)
			copy_rows+="| $p | $label | $(med "$t" 1) | $(med "$t" 2) | $wc (alone $alone) | $(pct "$wc" "$alone")% | $(range "$t" 4) | $(ratio "$(awk -v a="$wc" -v b="$rc" 'BEGIN { print a + b }')" "$pc") | $(med "$t" 5)% | $(med "$t" 6) |"$'\n'
		done
	done
}

if want stackcopy; then
	stackcopy
fi

# --- 4b. The report's start on real programs: the regression guard ---------------------------
# Debian's gzip, xz and python3 and a small gcc build, each recorded by kprof and by perf with
# -g and with --call-graph dwarf; then, alternating, RUNS times: kprof report --flat against
# perf report --stdio and perf report --no-children -g none on the same workload, and the debug
# files kprof opened and the bytes it inflated (--stats). And the first answer: a 200-sample
# recording of split, median of 10 reports each.
realprog_cmd() {
	case $1 in
	gcc) cmd=(sh -c "for i in 1 2 3 4; do gcc -O2 -D_GNU_SOURCE -c -o '$tmp/rp.o' '$top/report/symbols/dso.c' -I'$top' -I'$build' || exit 1; done") ;;
	*) distro_cmd "$1" ;;
	esac
}
realprog() {
	local d=$tmp/rp p mode i opt tag
	mkdir -p "$d"
	[ -s "$tmp/numbers" ] || seq 1 $((3000000 / scale)) >"$tmp/numbers"
	realprog_rows=""
	for p in gzip xz python3 gcc; do
		realprog_cmd "$p"
		command -v "${cmd[0]}" >/dev/null || continue
		for mode in g dwarf; do
			opt=-g; [ $mode = dwarf ] && opt="--call-graph dwarf"
			tag=$p-$mode
			echo "bench: report start on $p $opt ($runs runs each, alternating)..." >&2
			"$kprof" record $opt -F 4000 -o "$d/$tag.kprof" -- "${cmd[@]}" >/dev/null 2>"$tmp/err"
			local ks; ks=$(kprof_samples)
			# perf 6.1 sometimes aborts at the end of a recording: try again, twice
			for i in 1 2 3; do
				perf record $opt -F 4000 -o "$d/$tag.data" -- "${cmd[@]}" >/dev/null \
					2>"$tmp/err" && break
			done
			local ps; ps=$(perf_samples)
			: >"$d/$tag.k"; : >"$d/$tag.ps"; : >"$d/$tag.pn"
			for i in $(seq 0 "$runs"); do
				local sfx=; [ "$i" -eq 0 ] && sfx=.warm
				run "$d/$tag.k$sfx" "$kprof" report -i "$d/$tag.kprof" --flat
				run "$d/$tag.ps$sfx" perf report -i "$d/$tag.data" --stdio
				run "$d/$tag.pn$sfx" perf report -i "$d/$tag.data" --stdio --no-children -g none
			done
			local dbg
			dbg=$("$kprof" report -i "$d/$tag.kprof" --flat --stats 2>/dev/null | sed -n 's/^# debug files: \([0-9]*\) opened for their symbols, the DWARF of \([0-9]*\) read (\([0-9.]*\) MB inflated)/\1 \2 \3/p')
			set -- $dbg
			realprog_rows+="| $p | $opt | $ks / $ps | $(range "$d/$tag.k" 1) | $(range "$d/$tag.ps" 1) | $(range "$d/$tag.pn" 1) | $(ratio "$(med "$d/$tag.pn" 1)" "$(med "$d/$tag.k" 1)") | ${1:-?} / ${2:-?} / ${3:-?} MB |"$'\n'
		done
	done
	# the first answer: a 200-sample recording (split at 4 kHz for 0.05 s), 10 reports each
	"$kprof" record -g -o "$d/first.kprof" -- "$build/tests/workloads/split" 0.05 >/dev/null 2>"$tmp/err"
	first_k=$(kprof_samples)
	perf record -g -o "$d/first.data" -- "$build/tests/workloads/split" 0.05 >/dev/null 2>"$tmp/err"
	first_p=$(perf_samples)
	: >"$d/first.k"; : >"$d/first.p"
	# timed with bash's own clock: $(date) around each would add a second process's start-up
	# (about 1 ms here) to every figure
	for i in $(seq 1 10); do
		local s e
		s=$EPOCHREALTIME; "$kprof" report -i "$d/first.kprof" >/dev/null 2>&1; e=$EPOCHREALTIME
		echo "$s $e" | awk '{ printf "%d\n", ($2 - $1) * 1e6 }' >>"$d/first.k"
		s=$EPOCHREALTIME; perf report -i "$d/first.data" --stdio >/dev/null 2>&1; e=$EPOCHREALTIME
		echo "$s $e" | awk '{ printf "%d\n", ($2 - $1) * 1e6 }' >>"$d/first.p"
	done
	first_row="| $first_k / $first_p | $(awk '{ printf "%.1f\n", $1 / 1000 }' "$d/first.k" >"$d/first.km"; range "$d/first.km" 1) | $(awk '{ printf "%.1f\n", $1 / 1000 }' "$d/first.p" >"$d/first.pm"; range "$d/first.pm" 1) |"
}

if want realprog; then
	realprog
fi

# --- 5. A fork storm in DWARF mode: 100 children of 40 ms of CPU at once, at 4 kHz ----------------
# Samples kept and lost, and the share of stacks that reach the children's function, for kprof's
# default (unwinding while recording), kprof --keep-stacks and perf, alternating, RUNS runs each.
storm_reach() { awk '{ t += $NF; if ($0 ~ /;children;/) m += $NF } END { printf "%.1f", t ? 100 * m / t : 0 }' "$1"; }
storm() {
	local w="$tmp/work-nofp children 100 $((200 / scale))" i t
	echo "bench: fork storm ($runs runs each, alternating)..." >&2
	: >"$tmp/storm.kc" ; : >"$tmp/storm.kk"; : >"$tmp/storm.pd"
	for i in $(seq 1 "$runs"); do
		for t in kc kk; do
			local opt=; [ $t = kk ] && opt=--keep-stacks
			"$kprof" record --call-graph dwarf $opt -F 4000 -o "$tmp/s.kprof" -- $w >/dev/null 2>"$tmp/err"
			"$kprof" report -i "$tmp/s.kprof" --folded >"$tmp/s.folded" 2>/dev/null
			echo "$(kprof_samples) $(kprof_lost) $(storm_reach "$tmp/s.folded")" >>"$tmp/storm.$t"
		done
		perf record --call-graph dwarf -F 4000 -o "$tmp/s.data" -- $w >/dev/null 2>"$tmp/err"
		perf script -i "$tmp/s.data" -F comm,ip,sym --no-inline 2>/dev/null | awk '
			NF == 0 { if (n) { t++; if (hit) m++ } n = hit = 0; next }
			{ n++; if ($2 == "children") hit = 1 }
			END { if (n) { t++; if (hit) m++ } printf "%d %.1f\n", t, t ? 100 * m / t : 0 }' >"$tmp/s.reach"
		echo "$(cut -d' ' -f1 "$tmp/s.reach") $(perf report -i "$tmp/s.data" --stats 2>/dev/null | sed -n 's/^ *LOST_SAMPLES events: *\([0-9]*\).*/\1/p' | tail -1) $(cut -d' ' -f2 "$tmp/s.reach")" >>"$tmp/storm.pd"
	done
	storm_rows=""
	for t in kc:"kprof record --call-graph dwarf" kk:"kprof record --call-graph dwarf --keep-stacks" \
		pd:"perf record --call-graph dwarf"; do
		local name=${t%%:*} label=${t#*:}
		storm_rows+="| $label | $(range "$tmp/storm.$name" 1) | $(range "$tmp/storm.$name" 2) | $(awk '{ l = $2 + 0; printf "%s%.1f", (NR > 1 ? " " : ""), ($1 + l) ? 100 * l / ($1 + l) : 0 }' "$tmp/storm.$name") | $(range "$tmp/storm.$name" 3) |"$'\n'
	done
}

if want storm; then
	storm
fi

# --- 6. Annotating a large binary: kprof itself, reporting a recording, profiled by perf ------
# One perf.data of kprof report --folded on a 200 k-sample recording (-F 4000): the 10 hottest
# functions of kprof's own code, annotated by kprof annotate --top 10 and by perf annotate
# --stdio, one symbol per run, as perf takes them; then every function with samples, which
# plain perf annotate --stdio does.
annotate_bench() {
	local d=$tmp/ann i names
	mkdir -p "$d"
	echo "bench: annotate ($runs runs each, alternating)..." >&2
	"$kprof" record -g -c 20000 -o "$d/in.kprof" -- $tmp/work-fp split $((r2s / 2)) >/dev/null 2>&1
	for i in 1 2 3; do
		perf record -F 4000 -o "$d/ann.data" -- "$kprof" report -i "$d/in.kprof" --folded \
			-o /dev/null >/dev/null 2>"$tmp/err" && break
	done
	ann_samples=$(perf_samples)
	"$kprof" annotate -i "$d/ann.data" --json --top 40 2>/dev/null | python3 -c '
import json, sys
names = [f["function"] for f in json.load(sys.stdin) if not f["kernel"] and not f["error"] and f["dso"].endswith("/kprof")]
print(" ".join(names[:10]))' >"$d/names"
	names=$(cat "$d/names")
	ann_nr=$(echo "$names" | wc -w)
	: >"$d/k10"; : >"$d/p10"; : >"$d/kall"; : >"$d/pall"
	for i in $(seq 0 "$runs"); do
		local sfx=; [ "$i" -eq 0 ] && sfx=.warm
		run "$d/k10$sfx" "$kprof" annotate -i "$d/ann.data" --stdio $names
		# shellcheck disable=SC2086
		run "$d/p10$sfx" sh -c 'd=$1; shift; for n; do perf annotate --stdio -i "$d" "$n"; done' \
			sh "$d/ann.data" $names
		run "$d/kall$sfx" "$kprof" annotate -i "$d/ann.data" --stdio --top 100000
		run "$d/pall$sfx" perf annotate --stdio -i "$d/ann.data"
	done
	ann_funcs=$("$kprof" annotate -i "$d/ann.data" --json --top 100000 2>/dev/null |
		python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')
	annotate_rows="| the $ann_nr hottest functions of kprof | $(range "$d/k10" 1) | $(range "$d/p10" 1) | $(ratio "$(med "$d/p10" 1)" "$(med "$d/k10" 1)") | $(range "$d/k10" 3) |"$'\n'
	annotate_rows+="| every function with samples ($ann_funcs) | $(range "$d/kall" 1) | $(range "$d/pall" 1) | $(ratio "$(med "$d/pall" 1)" "$(med "$d/kall" 1)") | $(range "$d/kall" 3) |"$'\n'
}

# One large function with DWARF: _PyEval_EvalFrameDefault (the interpreter's loop, tens of KB
# of code, inlined calls at most of its instructions) of a python3 built with -g, running a
# recursive Fibonacci; recorded by kprof and by perf, then, alternating, RUNS times: kprof
# annotate --stdio on its own recording and on perf's perf.data, perf annotate --stdio on its.
# ANNOTATE_PYTHON names the python3; else pyenv's 3.11.7, any of pyenv's, the one on PATH: the
# first whose binary or libpython has .debug_info.
# (grep reads readelf's output to its end: a grep -q that stopped at the first line would
# leave readelf killed by SIGPIPE, a failure under pipefail)
has_dwarf() { readelf -S "$1" 2>/dev/null | grep ' \.debug_info ' >/dev/null; }
python_with_dwarf() {
	local py lib
	for py in ${ANNOTATE_PYTHON:-} "$HOME"/.pyenv/versions/3.11.7/bin/python3.11 \
		"$HOME"/.pyenv/versions/*/bin/python3 "$(command -v python3 || true)"; do
		[ -x "$py" ] || continue
		lib=$(ldd "$py" 2>/dev/null | awk '/libpython/ && !lib { lib = $3 } END { print lib }')
		if [ -n "$lib" ] && has_dwarf "$lib"; then echo "$py $lib"; return; fi
		if [ -z "$lib" ] && has_dwarf "$py"; then echo "$py $py"; return; fi
	done
}
annotate_big() {
	local d=$tmp/ann big py lib fn=_PyEval_EvalFrameDefault i
	mkdir -p "$d"
	big=$(python_with_dwarf)
	if [ -z "$big" ]; then
		big_skip="no python3 whose binary or libpython has .debug_info (ANNOTATE_PYTHON names one)"
		echo "bench: annotate: the large function skipped: $big_skip" >&2
		return
	fi
	read -r py lib <<<"$big"
	echo "bench: annotate $fn of $py ($runs runs each, alternating)..." >&2
	local prog='def f(n): return n if n < 2 else f(n - 1) + f(n - 2)
f(27)'
	"$kprof" record -o "$d/py.kprof" -- "$py" -c "$prog" >/dev/null 2>"$tmp/err"
	big_ks=$(kprof_samples)
	for i in 1 2 3; do
		perf record -o "$d/py.data" -- "$py" -c "$prog" >/dev/null 2>"$tmp/err" && break
	done
	big_ps=$(perf_samples)
	big_size=$(nm -S --defined-only "$lib" 2>/dev/null | awk -v f="$fn" '$4 == f && !s { s = $2 } END { print s }')
	[ -z "$big_size" ] || big_size=$((16#$big_size))
	big_lines=$("$kprof" annotate -i "$d/py.kprof" --json "$fn" 2>/dev/null | python3 -c '
import json, sys
f = json.load(sys.stdin)[0]
i = f["instructions"]
print("%d instructions, %d with inlined frames" % (len(i), sum(1 for x in i if x.get("inline"))))' 2>/dev/null || true)
	if [ -z "$big_lines" ]; then
		big_skip="kprof annotate found no $fn with instructions in $py's recording"
		echo "bench: annotate: the large function skipped: $big_skip" >&2
		return
	fi
	: >"$d/bk"; : >"$d/bkp"; : >"$d/bp"
	for i in $(seq 0 "$runs"); do
		local sfx=; [ "$i" -eq 0 ] && sfx=.warm
		run "$d/bk$sfx" "$kprof" annotate -i "$d/py.kprof" --stdio "$fn"
		run "$d/bkp$sfx" "$kprof" annotate -i "$d/py.data" --stdio "$fn"
		run "$d/bp$sfx" perf annotate --stdio -i "$d/py.data" "$fn"
	done
	big_name="$fn of $lib (${big_size:-?} bytes; $big_lines)"
	big_rows="| kprof on its recording ($big_ks samples), perf on perf.data ($big_ps) | $(range "$d/bk" 1) | $(range "$d/bp" 1) | $(ratio "$(med "$d/bp" 1)" "$(med "$d/bk" 1)") | $(range "$d/bk" 3) |"$'\n'
	big_rows+="| both on perf.data | $(range "$d/bkp" 1) | $(range "$d/bp" 1) | $(ratio "$(med "$d/bp" 1)" "$(med "$d/bkp" 1)") | $(range "$d/bkp" 3) |"$'\n'
}

if want annotate; then
	annotate_bench
	annotate_big
fi

# --- 7. The cost of recording context switches (--off-cpu), on a pipe ping-pong ------------------
# Two processes pass a byte back and forth, each blocking in read(): every round trip is two
# switches out while blocked. Alone, under kprof record --off-cpu -g (the context-switches
# event at period 1 with call chains, and switch records), under plain CPU sampling (kprof
# record -g), under the tracepoint instead (-e sched:sched_switch -g, root) and under perf's
# same mechanism (perf record -e context-switches -c 1 --switch-events -g: Debian's perf
# ignores --off-cpu without BPF). The wall time of a ping-pong moves with where the scheduler
# puts the two processes, so the workload's own CPU (user + sys, where the kernel's cost of
# each switch sample is charged) and the recorder's are the figures to compare.
inner_cpu() { awk '{ printf "%.3f", $1 + $2 }' "$tmp/inner"; }
offcpu_bench() {
	local d=$tmp/offcpu n=$((200000 / scale)) i t
	mkdir -p "$d"
	cc -O2 -g -fno-omit-frame-pointer -o "$d/pingpong" "$top/contrib/bench/pingpong.c"
	echo "bench: off-CPU on a pipe ping-pong ($runs runs each, alternating)..." >&2
	local -A cmd=(
		[koff]="$kprof record --off-cpu -g -o $d/r.kprof"
		[kcpu]="$kprof record -g -o $d/r.kprof"
		[ksw]="$kprof record -e sched:sched_switch -g -o $d/r.kprof"
		[perf]="perf record -e context-switches -c 1 --switch-events -g -o $d/r.data"
	)
	local tools="koff kcpu perf"
	[ "$(id -u)" = 0 ] && tools="koff kcpu ksw perf"
	for i in $(seq 0 "$runs"); do
		local f=$d; [ "$i" -eq 0 ] && f=$d/warm && mkdir -p "$f"
		# alone: "wall - - cpu switches/s", the wall time by its own clock
		/usr/bin/time -f "%U %S" -o "$tmp/inner" "$d/pingpong" "$n" >"$d/pp.out"
		echo "$(sed -n 's/.* in \([0-9.]*\) s:.*/\1/p' "$d/pp.out") - - $(inner_cpu) $(sed -n 's/.*: \([0-9]*\) switches\/s/\1/p' "$d/pp.out")" >>"$f/alone"
		for t in $tools; do
			# shellcheck disable=SC2086
			run "$f/$t" ${cmd[$t]} -- "${timed[@]}" "$d/pingpong" "$n"
			local samples bytes
			if [ $t = perf ]; then samples=$(perf_samples); bytes=$(stat -c %s "$d/r.data")
			else samples=$(kprof_samples); bytes=$(stat -c %s "$d/r.kprof"); fi
			echo "$samples $bytes $(inner_cpu) $(recorder_cpu "$f/$t") $(sed -n 's/.*off-CPU: \([0-9]*\) switch records.*/\1/p' "$tmp/err")" >>"$f/$t.n"
		done
	done
	offcpu_trips=$n
	offcpu_rate=$(med "$d/alone" 5)
	offcpu_rows="| alone | $(range "$d/alone" 1) | | $(range "$d/alone" 4) | | | |"$'\n'
	local -A label=(
		[koff]="kprof record --off-cpu -g" [kcpu]="kprof record -g (CPU samples only)"
		[ksw]="kprof record -e sched:sched_switch -g"
		[perf]="perf record -e context-switches -c 1 --switch-events -g"
	)
	for t in $tools; do
		offcpu_rows+="| ${label[$t]} | $(range "$d/$t" 1) | $(pct "$(med "$d/$t" 1)" "$(med "$d/alone" 1)")% | $(range "$d/$t.n" 3) | $(med "$d/$t.n" 4) | $(med "$d/$t.n" 1)$([ $t = koff ] && echo " (+ $(med "$d/$t.n" 5) switch records)") | $(bps "$d/$t.n") |"$'\n'
	done
}

if want offcpu; then
	offcpu_bench
fi

# --- 8. Tracing system calls: a million getuid calls ----------------------------------------
# tests/workloads/syscalls makes N getuid calls in a row and times them itself (stderr:
# "getuid calls in S s"): alone, under kprof trace -s, perf trace -s and strace -c -f. The
# calls each tool's summary counts, against N, are the ones it lost.
trace_bench() {
	local d=$tmp/trace n=$((1000000 / scale)) i t
	mkdir -p "$d"
	cc -O2 -o "$d/syscalls" "$top/tests/workloads/syscalls.c"
	echo "bench: tracing $n getuid calls ($runs runs each, alternating)..." >&2
	local -A cmd=(
		[kprof]="$kprof trace -s --"
		[perf]="perf trace -s --"
		[strace]="strace -c -f -o $d/strace.txt"
	)
	local tools="kprof perf strace" counted
	for i in $(seq 0 "$runs"); do
		local f=$d; [ "$i" -eq 0 ] && f=$d/warm && mkdir -p "$f"
		"$d/syscalls" "$n" 0 0 2>&1 >/dev/null | sed -n 's/getuid calls in \([0-9.]*\) s/\1/p' >>"$f/alone"
		for t in $tools; do
			# shellcheck disable=SC2086
			${cmd[$t]} "$d/syscalls" "$n" 0 0 >"$d/out" 2>"$d/err"
			case $t in
			strace) counted=$(awk '$NF == "getuid" { print $4 }' "$d/strace.txt") ;;
			*) counted=$(awk '$1 == "getuid" && $2 ~ /^[0-9]+$/ { print $2 }' "$d/out" "$d/err" | head -1) ;;
			esac
			echo "$(sed -n 's/getuid calls in \([0-9.]*\) s/\1/p' "$d/err" "$d/out" | head -1) $((n - ${counted:-0}))" >>"$f/$t"
		done
	done
	trace_calls=$n
	trace_rows="| alone | $(range "$d/alone" 1) | | |"$'\n'
	local -A label=([kprof]="kprof trace -s" [perf]="perf trace -s" [strace]="strace -c -f")
	for t in $tools; do
		trace_rows+="| ${label[$t]} | $(range "$d/$t" 1) | $(ratio "$(med "$d/$t" 1)" "$(med "$d/alone" 1)")x | $(range "$d/$t" 2) |"$'\n'
	done
}

if want trace; then
	trace_bench
fi

# --- 9. Self-contained recordings: what --embed-symbols adds to the file and to the end -------
# Each workload recorded by kprof plainly and with --embed-symbols, alternating, RUNS times: the
# file's bytes and the recorder's wall time (the command's own time is the same in both, so
# the difference is what storing the symbols adds at the end); then perf record and perf
# archive on the same workload, whose tarball holds what perf needs elsewhere.
archive_cmd() {
	case $1 in
	split-fp) read -r -a cmd <<<"${workloads[split-fp]}"; opt=(-g) ;;
	gzip-dwarf) distro_cmd gzip; opt=(--call-graph dwarf) ;;
	python3-dwarf) distro_cmd python3; opt=(--call-graph dwarf) ;;
	esac
}
archive_bench() {
	local d=$tmp/archive w i f
	mkdir -p "$d"
	[ -s "$tmp/numbers" ] || seq 1 $((3000000 / scale)) >"$tmp/numbers"
	archive_rows=""
	for w in split-fp gzip-dwarf python3-dwarf; do
		archive_cmd "$w"
		echo "bench: $w, plain and --embed-symbols ($runs runs each, alternating)..." >&2
		for i in $(seq 0 "$runs"); do
			f=$d/$w; [ "$i" -eq 0 ] && f=$d/$w.warm
			run "$f.plain" "$kprof" record "${opt[@]}" -o "$d/p.kprof" -- "${cmd[@]}"
			echo "$(kprof_samples) $(stat -c %s "$d/p.kprof")" >>"$f.plain.n"
			run "$f.emb" "$kprof" record "${opt[@]}" --embed-symbols -o "$d/e.kprof" -- "${cmd[@]}"
			echo "$(kprof_samples) $(stat -c %s "$d/e.kprof") $(sed -n 's/.*symbols of \([0-9]*\) binaries.*/\1/p' "$tmp/err")" >>"$f.emb.n"
			run "$f.perf" perf record "${opt[@]}" -o "$d/perf.data" -- "${cmd[@]}"
			run "$f.parch" perf archive "$d/perf.data"
			echo "$(stat -c %s "$d/perf.data") $(stat -c %s "$d/perf.data.tar.bz2" 2>/dev/null || echo 0)" >>"$f.perf.n"
			rm -f "$d/perf.data.tar.bz2"
		done
		local pb eb bins added pd pt
		pb=$(awk '{ print $2 }' "$d/$w.plain.n" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
		eb=$(awk '{ print $2 }' "$d/$w.emb.n" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
		bins=$(awk '{ print $3 }' "$d/$w.emb.n" | sort -g | tail -1)
		added=$(awk -v a="$(med "$d/$w.emb" 1)" -v b="$(med "$d/$w.plain" 1)" 'BEGIN { printf "%.3f", a - b }')
		pd=$(awk '{ print $1 }' "$d/$w.perf.n" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
		pt=$(awk '{ print $2 }' "$d/$w.perf.n" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
		archive_rows+="| $w | $(awk '{ print $1 }' "$d/$w.emb.n" | tail -1) | $bins | $pb | $eb | $((eb - pb)) ($(pct "$eb" "$pb")%) | $(range "$d/$w.plain" 1) | $(range "$d/$w.emb" 1) | $added | $pd + $pt | $(range "$d/$w.parch" 1) |"$'\n'
	done
}

if want archive; then
	archive_bench
fi

# --- 10. Live: kprof top against perf top, each on a pty (script(1)), while split runs ----------
# The CPU each takes (user + system, its children included) over 10 s at the default 4 kHz on
# every CPU, RUNS runs alternating; split keeps one CPU busy meanwhile.
if want top; then
	echo "bench: kprof top and perf top ($runs runs each, alternating)..." >&2
	d=$tmp/top
	mkdir -p "$d"
	"$tmp/work-fp" split $((10000 * 30 * runs / scale)) >/dev/null &
	busy=$!
	for i in $(seq 1 "$runs"); do
		run "$d/k" script -qec "timeout -s INT 10 '$kprof' top -d 2" /dev/null
		run "$d/p" script -qec "timeout -s INT 10 perf top --stdio -d 2" /dev/null
	done
	kill "$busy" 2>/dev/null || true
	wait "$busy" 2>/dev/null || true
	top_row="| $(range "$d/k" 2) | $(awk '{ printf "%.2f\n", 100 * $2 / $1 }' "$d/k" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')% | $(range "$d/p" 2) | $(awk '{ printf "%.2f\n", 100 * $2 / $1 }' "$d/p" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')% |"
fi

# --- 11. Probes that fetch values: what a hit costs, kprof against perf probe + perf record -------
# tests/workloads/probed calls probed_square(i) and probed_name("name-i") N times each: alone,
# under kprof record -e 'uprobe:probed:FUNC ARG' (which defines the event itself) and under perf
# record -e probe_probed:FUNC after perf probe -x probed 'FUNC ARG' defined the same event,
# alternating. A hit's cost is the wall time the tool adds over the N calls, over N: both tools
# fetch the same value through the same kernel (a uprobe event of tracefs), so the ratio is what
# each does beside the kernel, per sample. The events perf probe defines are deleted at the end.
probes_bench() {
	local d=$tmp/probes n=$((200000 / scale)) i r f
	local -a kspec pdef pev
	mkdir -p "$d"
	cc -O2 -g -fno-omit-frame-pointer -o "$d/probed" "$top/tests/workloads/probed.c"
	kspec=("uprobe:$d/probed:probed_square x" "uprobe:$d/probed:probed_name name:string")
	pdef=("probed_square x" "probed_name name:string")
	pev=(probe_probed:probed_square probe_probed:probed_name)
	perf probe -q -d 'probe_probed:*' >/dev/null 2>&1 || true
	trap 'perf probe -q -d "probe_probed:*" >/dev/null 2>&1; rm -rf "$tmp"' EXIT
	echo "bench: probes that fetch values, $n hits ($runs runs each, alternating)..." >&2
	probes_hits=$n
	for r in 0 1; do
		perf probe -q -x "$d/probed" "${pdef[$r]}" >/dev/null 2>&1 ||
			die "perf probe -x $d/probed '${pdef[$r]}' failed (perf probe needs root and tracefs)"
		for i in $(seq 0 "$runs"); do
			f=$d/$r; [ "$i" -eq 0 ] && f=$d/$r.warm
			mkdir -p "$f"
			run "$f/alone" "$d/probed" "$n"
			run "$f/kprof" "$kprof" record -o "$d/k.kprof" -e "${kspec[$r]}" -- "$d/probed" "$n"
			echo "$(kprof_samples) $(kprof_lost)" >>"$f/kprof.n"
			run "$f/perf" perf record -o "$d/p.data" -e "${pev[$r]}" -- "$d/probed" "$n"
			echo "$(perf_samples)" >>"$f/perf.n"
		done
		perf probe -q -d "${pev[$r]}" >/dev/null 2>&1 || true
		local alone kp pf kus pus
		alone=$(med "$d/$r/alone" 1); kp=$(med "$d/$r/kprof" 1); pf=$(med "$d/$r/perf" 1)
		kus=$(awk -v t="$kp" -v a="$alone" -v n="$n" 'BEGIN { printf "%.2f", (t - a) / n * 1e6 }')
		pus=$(awk -v t="$pf" -v a="$alone" -v n="$n" 'BEGIN { printf "%.2f", (t - a) / n * 1e6 }')
		probes_rows+="| \`${pdef[$r]}\` | $(range "$d/$r/alone" 1) | $(range "$d/$r/kprof" 1) | $kus | $(med "$d/$r/kprof.n" 1) ($(med "$d/$r/kprof.n" 2) lost) | $(range "$d/$r/perf" 1) | $pus | $(med "$d/$r/perf.n" 1) | $(ratio "$kus" "$pus") |"$'\n'
	done
}

if want probes; then
	probes_bench
fi

# --- the table ----------------------------------------------------------------------------
pmu=$(perf stat -e instructions true 2>&1 | grep -q "not supported\|<not" && echo "no (software events only)" || echo "yes")
{
	echo "## kprof against perf"
	echo
	echo "$(date -u +%Y-%m-%d), \`contrib/bench/bench.sh\`, $runs runs per figure after a warm-up, alternating tools."
	echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') ($(nproc) CPUs);"
	echo "kernel $(uname -r); $(perf --version); kprof $("$kprof" --version | cut -d' ' -f2); hardware PMU: $pmu."
	if want record; then
		echo
		echo "### Recording: the workload's wall time (s) alone and under each tool, median (min-max)"
		echo
		echo "| workload | rate | alone | kprof record -g | kprof slowdown | perf record -g | perf slowdown | slowdown ratio kprof/perf | kprof CPU ms/1000 samples | perf CPU ms/1000 samples | ratio | samples kprof / perf |"
		echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
		printf "%s" "$record_rows"
	fi
	if want system; then
		echo
		echo "### The whole machine: record -a -g -F 1000 -- sleep $secs, two busy threads on $(nproc) CPUs"
		echo
		echo "| tool | samples | recorder CPU s, median (min-max) | CPU ms per 1000 samples | bytes per sample | lost (all runs) |"
		echo "|---|---|---|---|---|---|"
		printf "%s" "$sys_rows"
		echo
		echo "### Always on: kprof record -a -F 19 --call-graph dwarf -- sleep $secs and $((4 * secs)), the same machine"
		echo
		echo "| wall s | samples | bytes per sample | recorder CPU s, median (min-max) |"
		echo "|---|---|---|---|"
		printf "%s" "$always_rows"
		echo
		echo "running costs $always_run% of one CPU (the longer run's extra CPU over its extra wall time; the rest is start-up: reading /proc and kallsyms, opening the rings)"
	fi
	if [ -n "$before_rows" ]; then
		echo
		echo "### The recorder before and after: $before against this build"
		echo
		echo "| recording | before: CPU ms/1000 samples | after | after/before | before: bytes per sample | after |"
		echo "|---|---|---|---|---|---|"
		printf "%s" "$before_rows"
	fi
	if want record || want system; then
		echo
		echo "### File size: bytes per sample"
		echo
		echo "| recording | kprof (default) | perf record -g | perf record -z -g | kprof/perf | kprof/perf -z |"
		echo "|---|---|---|---|---|---|"
		printf "%s" "$size_rows"
	fi
	if want report; then
		echo
		echo "### Report throughput: one recording of $kbig (kprof) and $pbig (perf) samples of the same workload (-c 20000 -g)"
		echo
		echo "| command | samples | wall s, median (min-max) | M samples/s | peak RSS KB |"
		echo "|---|---|---|---|---|"
		printf "%s" "$report_rows"
		echo
		echo "$report_ratio."
		echo
		echo "### Scaling: kprof report --folded, and perf report --stdio on a recording of the same size (perf.data: on the same file)"
		echo
		echo "| recording | samples | wall s | M samples/s | peak RSS KB | perf's samples | perf report --stdio wall s | kprof's throughput / perf's |"
		echo "|---|---|---|---|---|---|---|---|"
		printf "%s" "$scale_rows"
	fi
	if want exports; then
		echo
		echo "### Exports: kprof report --format NAME -o FILE on one recording of $kbig samples (-c 20000 -g)"
		echo
		echo "| command | wall s, median (min-max) | M samples/s | peak RSS KB | file bytes |"
		echo "|---|---|---|---|---|"
		printf "%s" "$export_rows"
		echo
		echo "$firefox_note"
	fi
	if want perfdata; then
		echo
		echo "### perf.data: one file of $pdn samples (perf record -c 20000 -g), read by kprof and by perf"
		echo
		echo "| command | samples | wall s, median (min-max) | M samples/s | peak RSS KB |"
		echo "|---|---|---|---|---|"
		printf "%s" "$perfdata_rows"
		echo
		echo "$perfdata_ratio."
		echo
		echo "### perf.data written by kprof: the same workload recorded by each tool (-c 20000 -g)"
		echo
		echo "| file | samples | bytes | bytes per sample |"
		echo "|---|---|---|---|"
		printf "%s" "$perfsize_rows"
	fi
	if want record; then
		echo
		echo "### Accuracy: largest error of self % against the true 60/30/10 split (points)"
		echo
		echo "| recording | kprof | perf | ratio |"
		echo "|---|---|---|---|"
		echo "$accuracy_row"
	fi
	if want dwarf; then
		dwarf_table
	fi
	if want storm; then
		echo
		echo "### A fork storm: 100 children of 40 ms at once, --call-graph dwarf -F 4000 on $(nproc) CPUs, median (min-max) over $runs runs"
		echo
		echo "| recording | samples kept | samples lost | lost % per run | stacks reaching children() % |"
		echo "|---|---|---|---|---|"
		printf "%s" "$storm_rows"
	fi
	if want realprog; then
		echo
		echo "### The report's start on real programs (-F 4000): wall s, median (min-max) over $runs runs, alternating"
		echo
		echo "| program | recording | samples kprof / perf | kprof report --flat | perf report --stdio | perf report --no-children -g none | speed-up against the latter | kprof's debug files: opened / DWARF read / inflated |"
		echo "|---|---|---|---|---|---|---|---|"
		printf "%s" "$realprog_rows"
		echo
		echo "### The first answer: kprof report and perf report --stdio of a 200-sample recording of split (-g), ms, median (min-max) of 10"
		echo
		echo "| samples kprof / perf | kprof report | perf report --stdio |"
		echo "|---|---|---|"
		echo "$first_row"
	fi
	if want distro; then
		echo
		echo "### Debian's programs in DWARF mode (-F 4000; copies: kprof's default 32 KiB, perf's 8 KiB): kprof / perf"
		echo
		echo "| program | stacks reaching __libc_start_call_main (kprof on perf's file) | mean user frames (kprof on perf's file) | bytes per sample: kprof / perf / perf -z | kprof / perf -z | kprof report s | perf report s | report speed-up |"
		echo "|---|---|---|---|---|---|---|---|"
		printf "%s" "$distro_rows"
		echo
		echo "sqlite3's stacks are deeper than perf's 8 KiB copy, not than kprof's 32 KiB."
		echo "Two recordings of one program differ in where their samples fall: sqlite3's mean depth moves by up to a frame with the share of samples in the kernel's page zeroing under its allocations (20 user frames deep); kprof against perf on the same samples is the figure in parentheses."
	fi
	if want stackcopy; then
		echo
		echo "### The size of the stack copy (--call-graph dwarf,SIZE, -F 4000): CPU s, median over $runs runs, alternating"
		echo
		echo "| program | recording | samples | lost | workload CPU s | workload slowdown | recorder CPU s, median (min-max) | CPU of both against perf's | stacks reaching their thread's entry | mean user frames |"
		echo "|---|---|---|---|---|---|---|---|---|---|"
		printf "%s" "$copy_rows"
	fi
	if want annotate; then
		echo
		echo "### Annotate: a perf.data of $ann_samples samples (-F 4000) of kprof report, wall s, median (min-max)"
		echo
		echo "| functions | kprof annotate | perf annotate --stdio | speed-up | kprof peak RSS KB |"
		echo "|---|---|---|---|---|"
		printf "%s" "$annotate_rows"
		echo
		if [ -n "${big_skip:-}" ]; then
			echo "One large function with DWARF: skipped, $big_skip."
		else
			echo "### Annotate one large function with DWARF: $big_name, wall s, median (min-max)"
			echo
			echo "| recordings | kprof annotate --stdio | perf annotate --stdio | speed-up | kprof peak RSS KB |"
			echo "|---|---|---|---|---|"
			printf "%s" "$big_rows"
		fi
	fi
	if want offcpu; then
		echo
		echo "### Off-CPU: a pipe ping-pong of $offcpu_trips round trips, $offcpu_rate switches/s alone; wall s, median (min-max)"
		echo
		echo "| recording | wall s | wall slowdown | the workload's CPU s (user + sys) | recorder CPU s | samples | bytes per sample |"
		echo "|---|---|---|---|---|---|---|"
		printf "%s" "$offcpu_rows"
	fi
	if want trace; then
		echo
		echo "### Tracing system calls: $trace_calls getuid calls in a row, the workload's own s, median (min-max)"
		echo
		echo "| tracer | getuid calls s | slowdown | calls lost |"
		echo "|---|---|---|---|"
		printf "%s" "$trace_rows"
	fi
	if want archive; then
		echo
		echo "### Self-contained recordings: kprof record --embed-symbols against a plain recording, and perf archive; wall s, median (min-max)"
		echo
		echo "| workload | samples | binaries embedded | kprof bytes | with --embed-symbols | added bytes | kprof record s | with --embed-symbols s | added at the end s | perf.data + perf archive tarball bytes | perf archive s |"
		echo "|---|---|---|---|---|---|---|---|---|---|---|"
		printf "%s" "$archive_rows"
	fi
	if want probes; then
		echo
		echo "### Probes that fetch values: $probes_hits calls probed, the workload's wall s, median (min-max), and each hit's cost in µs"
		echo
		echo "| probe (perf probe's spelling) | alone | kprof record | kprof µs per hit | kprof samples | perf probe + perf record | perf µs per hit | perf samples | cost ratio kprof/perf |"
		echo "|---|---|---|---|---|---|---|---|---|"
		printf "%s" "$probes_rows"
	fi
	if want top; then
		echo
		echo "### Live: kprof top and perf top --stdio on a pty, 10 s at 4 kHz on every CPU while split runs; CPU s, median (min-max), and its share of one CPU"
		echo
		echo "| kprof top CPU s | share of a CPU | perf top CPU s | share of a CPU |"
		echo "|---|---|---|---|"
		echo "$top_row"
	fi
} | tee "$out/results.md"

# --- contrib/bench/RESULTS.md: a run of every section, not QUICK, replaces its tables ---------
# What lies between its two marker lines becomes this run's results.md, with a blank line either
# side; the text outside them is written by hand and kept as it is. A file without the two
# markers, once each and in that order, is left alone, as is one that cannot be written.
results=$top/contrib/bench/RESULTS.md
if [ -z "${SECTIONS:-}" ] && [ -z "$quick" ]; then
	if awk -v new="$out/results.md" -v b='<!-- bench.sh: results begin -->' \
		-v e='<!-- bench.sh: results end -->' '
		$0 == b { if (nb++ || ne) { bad = 1; exit }
			print; print ""
			while ((getline l <new) > 0) print l
			close(new); print ""; skip = 1; next }
		$0 == e { if (ne++ || !nb) { bad = 1; exit }
			skip = 0 }
		!skip
		END { exit bad || nb != 1 || ne != 1 }' "$results" >"$tmp/RESULTS.md" 2>/dev/null; then
		if cp "$tmp/RESULTS.md" "$results.new" 2>/dev/null && mv "$results.new" "$results"; then
			echo "bench: $results now holds this run's tables" >&2
		else
			rm -f "$results.new" 2>/dev/null || true
			echo "bench: could not write $results; this run's tables are in $out/results.md" >&2
		fi
	else
		echo "bench: $results left as it was: it is missing, or its two marker lines are missing, repeated or out of order" >&2
	fi
fi
