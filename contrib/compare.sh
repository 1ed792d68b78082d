#!/bin/bash
# compare.sh OLD NEW [DIR] - what two kprof binaries print, byte for byte, on the same
# recordings: the guard of a change meant to change no output (a refactor).
#
#   contrib/compare.sh /tmp/kprof.old build/kprof
#
# NEW records, once, into DIR (default: a temporary folder, removed after): the split
# workload with frame pointers and with --call-graph dwarf, Debian's gzip and xz with -g, the
# scheduler's switches (off-CPU), a kprof trace --record of find and a perf record -g of split.
# Then both binaries read them, and the golden recordings of tests/golden, through every view
# of report, script, annotate, trace -i, latency -i, convert --to perf, diff and flamegraph;
# each output, stdout and stderr, is compared, and the first lines of each difference shown.
# The SVGs' JavaScript, a file of its own that tests/live/browser.sh runs in Chromium, is left
# out: the interactive SVG is compared without its <script>, and whole with --no-js.
# Exit status: 0 when every output is the same, 1 when one differs.
set -uo pipefail

[ $# -ge 2 ] || { echo "usage: $0 OLD_KPROF NEW_KPROF [DIR]" >&2; exit 2; }
old=$(realpath "$1") new=$(realpath "$2")
top=$(cd "$(dirname "$0")/.." && pwd)
for k in "$old" "$new"; do [ -x "$k" ] || { echo "compare: '$k' is no executable" >&2; exit 2; }; done
split=$(dirname "$new")/tests/workloads/split
[ -x "$split" ] || { echo "compare: no $split: build the tests' workloads (make check TESTS=)" >&2; exit 2; }
if [ $# -ge 3 ]; then dir=$3; mkdir -p "$dir"; else
	dir=$(mktemp -d "${TMPDIR:-/tmp}/kprof-compare.XXXXXX"); trap 'rm -rf "$dir"' EXIT
fi
g=$top/tests/golden

# recordings (kept in DIR when it is given and they are there)
rec() { f=$dir/$1; shift; [ -s "$f" ] || "$@" >/dev/null 2>"$f.err" || { cat "$f.err" >&2; exit 1; }; }
seq 200000 >"$dir/input.txt"
rec fp.kprof "$new" record -g -o "$dir/fp.kprof" -- "$split" 1
rec dwarf.kprof "$new" record --call-graph dwarf -o "$dir/dwarf.kprof" -- "$split" 0.5
rec gzip.kprof "$new" record -g -o "$dir/gzip.kprof" -- sh -c "gzip -9c '$dir/input.txt' >/dev/null"
rec xz.kprof "$new" record -g -o "$dir/xz.kprof" -- sh -c "xz -6c '$dir/input.txt' >/dev/null"
rec offcpu.kprof "$new" record -g --off-cpu -o "$dir/offcpu.kprof" -- sh -c 'sleep 0.1; ls / >/dev/null'
rec trace.kprof "$new" trace --record "$dir/trace.kprof" -- find /usr/share/doc -maxdepth 2
command -v perf >/dev/null && rec perf.data perf record -q -g -o "$dir/perf.data" -- "$split" 0.5

differ=0 n=0
# one KPROF ARGS...: KPROF ARGS, or with "-sh SCRIPT" the shell SCRIPT with KPROF as its $0
one() { k=$1; shift; if [ "$1" = -sh ]; then sh -c "$2" "$k"; else "$k" "$@"; fi; }
# same NAME ARGS...: ARGS run by both binaries in $g (as one() runs them), outputs compared
same() {
	name=$1; shift
	(cd "$g" && one "$old" "$@") >"$dir/$name.old" 2>"$dir/$name.old.err"; a=$?
	(cd "$g" && one "$new" "$@") >"$dir/$name.new" 2>"$dir/$name.new.err"; b=$?
	n=$((n + 1))
	sed -i "s|$old|KPROF|g; s|$new|KPROF|g" "$dir/$name.old.err" "$dir/$name.new.err"
	if [ $a = $b ] && cmp -s "$dir/$name.old" "$dir/$name.new" &&
		cmp -s "$dir/$name.old.err" "$dir/$name.new.err"; then
		return
	fi
	differ=$((differ + 1))
	echo "differs: $name (kprof $*; status $a, $b)"
	diff "$dir/$name.old" "$dir/$name.new" | head -5
	diff "$dir/$name.old.err" "$dir/$name.new.err" | head -5
}

for r in fp dwarf gzip xz offcpu trace perf; do
	f=$dir/$r.kprof; [ $r = perf ] && f=$dir/perf.data
	[ -s "$f" ] || continue
	same "$r-svg-noscript" -sh "\"\$0\" report -i '$f' --svg --hash | sed '/<script/,/<\\/script>/d'"
	for v in --tree --flat --folded "--svg --hash --no-js" "--timeline --no-js" "--tree --inverted" \
		"--flat --sort comm,dso,sym" "--format speedscope" "--format chrome" "--stats --flat"; do
		same "$r${v// /}" report -i "$f" --color never $v
	done
	same "$r-pprof" -sh "\"\$0\" report -i '$f' --format pprof | gzip -dc"
	same "$r-script" script -i "$f"
	same "$r-annotate" annotate -i "$f" --stdio --top 3
done
same trace-i trace -i "$dir/trace.kprof" -s
same trace-lines trace -i "$dir/trace.kprof"
same latency-i latency --pair raw_syscalls:sys_enter/raw_syscalls:sys_exit -i "$dir/trace.kprof"
same diff diff --folded "$dir/fp.kprof" "$dir/dwarf.kprof"
same flamegraph flamegraph --hash --no-js "$dir/fp.kprof"
same convert -sh "\"\$0\" convert --to perf -i '$dir/fp.kprof' -o '$dir/conv.data' &&
	perf script -i '$dir/conv.data' 2>/dev/null | md5sum"
for v in --tree --flat --folded "--svg --hash --no-js" "--tree --srcline" "--tree --diff basic2.kprof"; do
	same "golden${v// /}" report -i basic.kprof --symfs root --color never $v
done
same golden-annotate annotate -i basic.kprof --symfs root --stdio --no-source --top 2
same golden-script script -i basic.kprof --symfs root

echo "compare: $((n - differ)) of $n outputs the same"
[ $differ = 0 ]
