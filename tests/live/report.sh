#!/bin/sh
# Live: kprof report against ground truth (split's 60/30/10, as its own clocks measure it),
# against perf on the same workload, and on C++ names and inline frames.
. "$top_srcdir/tests/live/lib.sh"
require_perf_events
INLINE="$top_builddir/tests/workloads/inline"

"$KPROF" record -g -o "$WORK/s.kprof" -- "$SPLIT" 1 >"$WORK/s.out" 2>"$WORK/s.err"
"$KPROF" report -i "$WORK/s.kprof" --flat --color never >"$WORK/flat" 2>"$WORK/flat.err"
check "report --flat succeeds" [ $? -eq 0 ]
self_of() { awk -v f="$1" '$NF == f { sub("%", "", $1); print $1; exit }' "$2"; }
maxerr=0
for f in work_a work_b work_c; do
	got=$(total_of "$f" "$WORK/flat")
	want=$(truth_of "$f" "$WORK/s.out")
	err=$(awk -v g="${got:-0}" -v w="${want:--100}" 'BEGIN { d = g - w; if (d < 0) d = -d; printf "%.2f", d }')
	maxerr=$(awk -v a="$maxerr" -v b="$err" 'BEGIN { print (b > a) ? b : a }')
	check "$f: total ${got:-none}% against the true ${want:-none}% of split's CPU time (off by $err points)" \
		awk -v e="$err" -v m=$SHARE_POINTS 'BEGIN { exit !(e <= m) }'
done
echo "# largest total% error against ground truth: $maxerr points"

"$KPROF" report -i "$WORK/s.kprof" --folded >"$WORK/folded"
check "folded: work_a through via_left is its own stack" grep -q ";main;via_left;work_a [0-9]*\$" "$WORK/folded"
check "folded: work_a through via_right is its own stack" grep -q ";main;via_right;work_a [0-9]*\$" "$WORK/folded"
check "folded: every line is 'frames count'" awk '!/^[^ ;][^\n]* [0-9]+$/ { exit 1 }' "$WORK/folded"
sum=$(awk '{ s += $NF } END { print s }' "$WORK/folded")
# the header says the sampling as it was asked (record's default, -F 4000) and the time the
# samples stand for, which is what the views weigh: the folded values' sum, in ns
n=$(sed -n "s/^# kprof report of .*: \([0-9]*\) samples.*/\1/p" "$WORK/flat")
want=$(awk -v s="$sum" 'BEGIN { u = s >= 1e9 ? "s" : "ms"; printf "%.2f %s", s / (u == "s" ? 1e9 : 1e6), u }')
check "the header: '$n samples of cpu-clock (-F 4000), $want in all, 0 lost' (folded values add up to $sum ns)" \
	grep -qxF "# kprof report of '$WORK/s.kprof': $n samples of cpu-clock (-F 4000), $want in all, 0 lost" "$WORK/flat"
"$KPROF" record -c 1000000 -o "$WORK/c.kprof" -- "$SPLIT" 0.2 >/dev/null 2>&1
"$KPROF" report -i "$WORK/c.kprof" --flat | head -1 >"$WORK/c.head"
check "...and '-c 1000000' for a fixed period: $(cat "$WORK/c.head")" \
	grep -qE "^# kprof report of '.*': [0-9]+ samples of cpu-clock \(-c 1000000\), [0-9.]+ m?s in all, 0 lost\$" "$WORK/c.head"
"$KPROF" report -i "$WORK/s.kprof" --folded --weight samples >"$WORK/folded.samples"
sum=$(awk '{ s += $NF } END { print s }' "$WORK/folded.samples")
shown=$(sed -n "s/^# kprof report of .*: \([0-9]*\) samples.*/\1/p" "$WORK/flat")
check "--weight samples: folded counts add up to the samples ($sum of $shown)" [ "$sum" -eq "$shown" ]

# the read-ahead thread changes nothing of what a report says, nor does taking it away
"$KPROF" report -i "$WORK/s.kprof" --folded --jobs 1 >"$WORK/folded.j1"
check "--jobs 1 (no read-ahead thread) folds the same stacks" cmp -s "$WORK/folded" "$WORK/folded.j1"
taskset -c 0 "$KPROF" report -i "$WORK/s.kprof" --folded >"$WORK/folded.cpu0"
check "...and so does a report run on one CPU" cmp -s "$WORK/folded" "$WORK/folded.cpu0"
"$KPROF" report -i "$WORK/s.kprof" -j 0 >"$WORK/j0.out" 2>"$WORK/j0.err"
check "--jobs 0 is a usage error, nothing on stdout" \
	sh -c "[ $? -eq 2 ] && [ ! -s '$WORK/j0.out' ] && grep -q 'jobs takes a number' '$WORK/j0.err'"

"$KPROF" report -i "$WORK/s.kprof" --weight bytes >/dev/null 2>"$WORK/w.err"
check "an unknown --weight is a usage error naming both" sh -c "[ $? -eq 2 ] && grep -q 'period or samples' '$WORK/w.err'"
"$KPROF" report -i "$WORK/s.kprof" --tree --color never >"$WORK/tree"
check "tree: via_left and via_right are distinct branches" \
	sh -c "grep -q -- '- via_left\$' '$WORK/tree' && grep -q -- '- via_right\$' '$WORK/tree'"
"$KPROF" report -i "$WORK/s.kprof" --flat --stats >"$WORK/stats"
"$KPROF" report -i "$WORK/s.kprof" --svg --stats -o "$WORK/stats.svg" 2>"$WORK/svg-stats.err"
check "--svg --stats: the SVG ends with </svg>, the statistics go to stderr" \
	sh -c "[ \"\$(tail -n 1 '$WORK/stats.svg')\" = '</svg>' ] && grep -q '^# samples: ' '$WORK/svg-stats.err'"
unnamed=$(sed -n 's/^# frames: [0-9]*, unnamed [0-9]* (\([0-9.]*\)%)/\1/p' "$WORK/stats")
check "stats: under 5% of frames unnamed ($unnamed%)" awk -v u="${unnamed:-100}" 'BEGIN { exit !(u < 5) }'

# perf on the same workload (another run): the top functions agree within $SHARE_POINTS_2 points
if [ -n "$PERF" ] && "$PERF" record -g -o "$WORK/p.data" -- "$SPLIT" 1 >/dev/null 2>&1; then
	"$PERF" report -i "$WORK/p.data" --no-children --stdio --sort sym 2>/dev/null >"$WORK/perf.txt"
	for f in work_a work_b work_c; do
		p=$(awk -v f="$f" '$NF == f { sub("%", "", $1); print $1; exit }' "$WORK/perf.txt")
		k=$(self_of "$f" "$WORK/flat")
		check "$f: kprof ${k:-none}% and perf ${p:-none}% agree within $SHARE_POINTS_2 points" \
			awk -v a="${k:-0}" -v b="${p:--100}" -v m=$SHARE_POINTS_2 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= m) }'
	done
else
	for f in work_a work_b work_c; do skip "$f against perf: perf record is not available here"; done
fi

# C++: demangled names, and the loop of a template member inlined into its caller, spin: the
# code is spin's, its lines add's. Recorded by perf where it can, so that kprof names it as perf
# report does on the same file.
SPIN="shapes::Engine::spin(long)" ADD="shapes::Accumulator<double>::add(double)"
if [ -n "$PERF" ] &&
	"$PERF" record -q -B -N -g -o "$WORK/c.data" -- "$INLINE" 0.5 >/dev/null 2>&1; then
	c=$WORK/c.data
else
	c=$WORK/c.kprof
	"$KPROF" record -g -o "$c" -- "$INLINE" 0.5 >/dev/null 2>&1
fi
"$KPROF" report -i "$c" --tree --color never >"$WORK/c.tree"
check "C++: the method's name is demangled" grep -q -- "- $SPIN\$" "$WORK/c.tree"
# first_row FLAT: the symbol of the first row of a --flat listing; folded_top FOLDED: the last
# frame of the heaviest stack; self_in_tree NAME TREE: the self % of NAME's line in a --tree
first_row() { awk '!/^#/ && NF { print $NF; exit }' "$1"; }
folded_top() {
	awk '$NF > m { m = $NF; s = $0 } END { sub(/ [0-9]+$/, "", s); n = split(s, f, ";"); print f[n] }' "$1"
}
self_in_tree() {
	awk -v f="- $1" 'substr($0, length($0) - length(f) + 1) == f { sub("%", "", $2); s += $2 }
		END { printf "%.2f", s }' "$2"
}
"$KPROF" report -i "$c" --flat --color never >"$WORK/c.flat"
"$KPROF" report -i "$c" --folded >"$WORK/c.folded"
got=$(first_row "$WORK/c.flat")
check "the inlined loop: --flat names the function holding its code first ($got)" [ "$got" = "$SPIN" ]
s=$(self_in_tree "$SPIN" "$WORK/c.tree") a=$(self_in_tree "$ADD (inlined)" "$WORK/c.tree")
check "...the tree gives it the self ($s%), none to add ($a%)" \
	sh -c "awk -v s=$s -v a=$a 'BEGIN { exit !(s >= 50 && a == 0) }'"
got=$(folded_top "$WORK/c.folded")
check "...--folded's heaviest stack ends in it ($got)" [ "$got" = "$SPIN" ]
if [ "$c" = "$WORK/c.data" ]; then
	p=$("$PERF" report -i "$c" --no-children --stdio -g none --sort sym 2>/dev/null |
		awk '$1 ~ /%$/ { print $NF; exit }')
	k=$(first_row "$WORK/c.flat")
	check "...as perf report --no-children names it, first ($p against ${k%%(*})" [ "${k%%(*}" = "$p" ]
else
	skip "the inlined loop against perf report: perf record is not available here"
fi
"$KPROF" report -i "$c" --flat --inline-self --color never >"$WORK/c.flat-is"
"$KPROF" report -i "$c" --folded --inline-self >"$WORK/c.folded-is"
"$KPROF" report -i "$c" --tree --inline-self --color never >"$WORK/c.tree-is"
got=$(first_row "$WORK/c.flat-is")
check "--inline-self: --flat names the inlined function first ($got)" [ "$got" = "$ADD" ]
s=$(self_in_tree "$ADD (inlined)" "$WORK/c.tree-is")
check "...the tree has it as an inlined frame, with the self ($s%)" \
	sh -c "awk -v s=$s 'BEGIN { exit !(s >= 50) }'"
got=$(folded_top "$WORK/c.folded-is")
check "...--folded's heaviest stack ends in it ($got)" [ "$got" = "$ADD" ]
"$KPROF" report -i "$c" --tree --inline-self --no-inline --color never >"$WORK/c.noinline"
check "--no-inline folds the inlined frame into its caller, --inline-self or not" \
	sh -c "! grep -q inlined '$WORK/c.noinline'"
"$KPROF" report -i "$c" --flat --no-demangle >"$WORK/c.mangled"
check "--no-demangle keeps the mangled name" grep -q " _ZN6shapes6Engine4spinEl\$" "$WORK/c.mangled"
"$KPROF" report -i "$c" --tree --srcline --inline-self --color never >"$WORK/c.src"
check "--srcline names the source line of the inlined frame" \
	grep -q "$ADD (inlined) inline.cc:[0-9]*\$" "$WORK/c.src"
# annotate of the inlined function, which has no code of its own: the function holding it,
# with its instructions marked
"$KPROF" annotate -i "$c" --stdio --no-source "$ADD" >"$WORK/c.ann" 2>"$WORK/c.ann.err"
rc=$?
check "annotate $ADD: status 0 ($rc), saying it is inlined into spin" \
	sh -c "[ $rc -eq 0 ] && grep -qxF 'kprof: $ADD is inlined into $SPIN: annotated there, its instructions marked |' '$WORK/c.ann.err'"
check "...which it annotates, add's instructions marked, holding most of its samples" \
	awk -v f="## $SPIN in " 'index($0, f) == 1 { in_f = 1 } in_f && /^ +[0-9.]+%/ { if ($2 ~ /\|$/) m += $1; else u += $1 }
		END { exit !(in_f && m > u) }' "$WORK/c.ann"

# bad input: a cut recording reports what it read, then the truncation
size=$(stat -c %s "$WORK/s.kprof")
head -c $((size - 10)) "$WORK/s.kprof" >"$WORK/cut.kprof"
"$KPROF" report -i "$WORK/cut.kprof" >/dev/null 2>"$WORK/cut.err"
check "a cut recording fails with status 1" [ $? -eq 1 ]
check "...naming the offset" grep -q "truncated at offset [0-9]* after [0-9]* records" "$WORK/cut.err"
# a recording that describes no event: its file header alone (a recorder killed before its first
# chunk), one cut inside its first chunk, one whose first chunk fails its checksum. Every command
# that reads a recording says so with status 1 and writes nothing (no crash, no empty export).
head -c 64 "$WORK/s.kprof" >"$WORK/e0.kprof"
head -c 200 "$WORK/s.kprof" >"$WORK/e1.kprof"
cp "$WORK/s.kprof" "$WORK/e2.kprof"
printf '\377' | dd of="$WORK/e2.kprof" bs=1 seek=100 conv=notrunc 2>/dev/null
# no_events FILE WHY ARGS...: kprof ARGS fails with status 1 saying FILE has no events (and WHY,
# a pattern of what was damaged), writes nothing on stdout and leaves no $WORK/none.*
no_events() {
	f=$1 why=$2; shift 2
	rm -f "$WORK"/none.*
	timeout 60 "$KPROF" "$@" </dev/null >"$WORK/ne.out" 2>"$WORK/ne.err"
	rc=$?
	if [ $rc -eq 1 ] && grep -qxF "kprof: '$f' has no events" "$WORK/ne.err" &&
		grep -q "$why" "$WORK/ne.err" && [ ! -s "$WORK/ne.out" ] &&
		! ls "$WORK"/none.* >/dev/null 2>&1; then
		pass "$* on ${f##*/}: status 1, 'has no events', nothing written"
	else
		fail "$* on ${f##*/}: status 1, 'has no events', nothing written" "status $rc" \
			"$(head -5 "$WORK/ne.err")" "$(ls "$WORK"/none.* 2>/dev/null)"
	fi
}
e=$WORK/e0.kprof
for args in "annotate -i $e" "report -i $e" "report -i $e --flat --stats" "script -i $e" \
	"script -i $e --raw" "flamegraph $e" "diff $e $WORK/s.kprof" \
	"latency --pair cpu-clock/cpu-clock -i $e" "trace -i $e" "view $e --once --no-browser" \
	"archive -i $e -o $WORK/none.kprof" "unwind -i $e -o $WORK/none.kprof" \
	"convert --to perf -i $e -o $WORK/none.data" "convert --to kprof -i $e -o $WORK/none.kprof"; do
	no_events "$e" . $args
done
for fmt in pprof speedscope chrome firefox folded svg timeline; do
	no_events "$e" . report -i "$e" --format $fmt -o "$WORK/none.$fmt"
done
for args in annotate report script trace; do
	no_events "$WORK/e1.kprof" "'$WORK/e1.kprof': truncated at offset 64 after 0 records" \
		$args -i "$WORK/e1.kprof"
	no_events "$WORK/e2.kprof" "'$WORK/e2.kprof': chunk checksum mismatch in the chunk at offset 64" \
		$args -i "$WORK/e2.kprof"
done
"$KPROF" report -i "$WORK/s.kprof" --event nope >/dev/null 2>"$WORK/ev.err"
check "an unknown --event is an error that lists the events" grep -q "hint: it has 'cpu-clock'" "$WORK/ev.err"
# every option is checked before anything is written: status 2, nothing on stdout
bad_keys="kprof report: bad --sort keys 'bogus' (known: cgroup, comm, dso, sym)"
for args in "--flat --sort bogus|$bad_keys" "--sort bogus|$bad_keys" \
	"--tree --sort dso|kprof report: --sort applies to --format flat" \
	"--time 2,1|kprof report: --time 2,1: START is after END" \
	"--time nan,|kprof report: --time's START must be a number from 0 to 18446744073, not 'nan'" \
	"--time ,inf|kprof report: --time's END must be a number from 0 to 18446744073, not 'inf'" \
	"--time -1,|kprof report: --time's START must be a number from 0 to 18446744073, not '-1'" \
	"--time 1,2s|kprof report: --time's END must be a number from 0 to 18446744073, not '2s'" \
	"--percent-limit nan|kprof report: --percent-limit must be a number from 0 to 100, not 'nan'" \
	"--percent-limit inf|kprof report: --percent-limit must be a number from 0 to 100, not 'inf'" \
	"--percent-limit 5%|kprof report: --percent-limit must be a number from 0 to 100, not '5%'"; do
	why=${args#*|}
	"$KPROF" report -i "$WORK/s.kprof" ${args%%|*} >"$WORK/sort.out" 2>"$WORK/sort.err"
	rc=$?
	check "${args%%|*}: status 2 ($rc), stdout empty, '$why'" \
		sh -c "[ $rc -eq 2 ] && [ ! -s '$WORK/sort.out' ] && grep -qxF \"$why\" '$WORK/sort.err'"
done
# the other commands' numbers of seconds take the same rule
for args in "record --duration nan -- true|kprof record: --duration must be a number from 0.001 to 10000000, not 'nan'" \
	"top -d inf|kprof top: -d must be a number from 0.1 to 3600, not 'inf'" \
	"trace --time 1s -a|kprof trace: --time must be a number from 0.001 to 10000000, not '1s'"; do
	why=${args#*|}
	"$KPROF" ${args%%|*} >"$WORK/num.out" 2>"$WORK/num.err"
	rc=$?
	check "${args%%|*}: status 2 ($rc), '$why'" \
		sh -c "[ $rc -eq 2 ] && grep -qxF \"$why\" '$WORK/num.err'"
done
"$KPROF" report -i "$WORK/s.kprof" --flat --sort dso,sym --color never >"$WORK/sort.out"
check "--flat --sort dso,sym groups by both" grep -qE ' [^ ]*split +work_a$' "$WORK/sort.out"

# --- names with control characters: a thread that renames itself (prctl) to "a<LF>b<ESC>]0;x<BEL>"
# (a line break, and the sequence that sets a terminal's title), a JIT function its perf map
# names "jit<ESC>[31mred<TAB>x", and a binary whose name holds an ESC and a BEL. No text
# output writes those bytes: each writes them as C escapes, and every export stays valid.
CC=${CC:-cc}
# escaped FILE STRING...: FILE holds each STRING, and no control character but line breaks
escaped() {
	ef=$1; shift
	for es in "$@"; do grep -qF -- "$es" "$ef" || return 1; done
	! LC_ALL=C tr -d '\n' <"$ef" | LC_ALL=C grep -q '[[:cntrl:]]'
}
if [ "$(uname -m)" = x86_64 ] && command -v "$CC" >/dev/null 2>&1; then
	ESC=$(printf '\033') BEL=$(printf '\007') TAB=$(printf '\t')
	BIN="$WORK/hostile$ESC]0;x$BEL"
	mkdir -p "$WORK/symfs/tmp"
	cat >"$WORK/hostile.c" <<'END'
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>
/* long f(long n): mov %rdi,%rax; 1: dec %rax; jnz 1b; ret */
static const unsigned char code[] = { 0x48, 0x89, 0xf8, 0x48, 0xff, 0xc8, 0x75, 0xfb, 0xc3 };
__attribute__((noinline)) long spin(long n)
{
	volatile long x = 0;
	while (n--)
		x += n;
	return x;
}
static double cpu(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}
/* hostile MAPDIR JITNAME COMM: JITNAME in MAPDIR/perf-PID.map, renamed COMM, 0.3 s of CPU */
int main(int argc, char **argv)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long (*jit)(long) = (long (*)(long))p;
	char path[4096];
	FILE *f;
	if (argc != 4 || p == MAP_FAILED)
		return 2;
	memcpy(p, code, sizeof(code));
	snprintf(path, sizeof(path), "%s/perf-%d.map", argv[1], (int)getpid());
	if (!(f = fopen(path, "w")))
		return 2;
	fprintf(f, "%lx %zx %s\n", (unsigned long)(uintptr_t)p, sizeof(code), argv[2]);
	fclose(f);
	prctl(PR_SET_NAME, argv[3]);
	for (double t0 = cpu(); cpu() - t0 < 0.3;)
		jit(spin(20000) & 1 ? 20000 : 20001);
	return 0;
}
END
	"$CC" -O1 -g -fno-omit-frame-pointer -o "$BIN" "$WORK/hostile.c"
	"$KPROF" record -g -o "$WORK/h.kprof" -- "$BIN" "$WORK/symfs/tmp" \
		"jit$ESC[31mred${TAB}x" "a
b$ESC]0;x$BEL" >/dev/null 2>&1
	# what each text output writes instead
	comm='a\nb\033]0;x\a' jit='jit\033[31mred\tx' bin='hostile\033]0;x\a'
	rep() { "$KPROF" report -i "$WORK/h.kprof" --symfs "$WORK/symfs" "$@" 2>/dev/null; }
	rep --tree --color never >"$WORK/h.tree"
	check "tree: the command and the JIT function escaped, no control character written" \
		escaped "$WORK/h.tree" "$comm" "$jit"
	rep --flat --sort comm,dso,sym --color never >"$WORK/h.flat"
	check "flat --sort comm,dso,sym: the command, the binary and the JIT function escaped" \
		escaped "$WORK/h.flat" "$comm " "$bin" "$jit"
	rep --folded >"$WORK/h.folded"
	check "folded: the names escaped (and ';', the separator, made ':')" \
		escaped "$WORK/h.folded" 'a\nb\033]0:x\a;' ";$jit"
	check "...every line one stack, 'frames count'" \
		awk '!/^[^ ;][^\n]* [0-9]+$/ { exit 1 }' "$WORK/h.folded"
	"$KPROF" script -i "$WORK/h.kprof" >"$WORK/h.script" 2>/dev/null
	LC_ALL=C tr -d '\t' <"$WORK/h.script" >"$WORK/h.script-notab" # perf's frames start with one
	check "script: a sample's line starts with its command escaped, nothing else written raw" \
		escaped "$WORK/h.script-notab" "$comm "
	"$KPROF" script -i "$WORK/h.kprof" --raw >"$WORK/h.raw" 2>/dev/null
	check "script --raw: the COMM record and the binary's MMAP2 escaped" \
		escaped "$WORK/h.raw" ": $comm" "$bin"
	"$KPROF" annotate -i "$WORK/h.kprof" --stdio --no-source spin >"$WORK/h.ann" 2>/dev/null
	check "annotate: the binary's path escaped" escaped "$WORK/h.ann" "## spin in $WORK/$bin"
	# the exports keep the names as they are, valid by their own formats
	for fmt in speedscope chrome; do
		rep --format $fmt -o "$WORK/h.$fmt"
		check "$fmt: valid JSON that holds the names as they are" python3 -c '
import json, sys
s = json.dumps(json.load(open(sys.argv[1])))
sys.exit(not ("a\\nb\\u001b]0;x\\u0007" in s and "jit\\u001b[31mred\\tx" in s))' "$WORK/h.$fmt"
	done
	rep --format firefox -o "$WORK/h.json.gz"
	check "firefox: valid gzipped JSON" python3 -c '
import gzip, json, sys
json.load(gzip.open(sys.argv[1]))' "$WORK/h.json.gz"
	rep --svg -o "$WORK/h.svg"
	rep --timeline -o "$WORK/h.timeline.svg"
	if command -v xmllint >/dev/null 2>&1; then
		check "svg and timeline: well-formed XML" xmllint --noout "$WORK/h.svg" "$WORK/h.timeline.svg"
	else
		skip "svg and timeline: xmllint is not installed"
	fi
	if command -v "${GO:-go}" >/dev/null 2>&1; then
		rep --format pprof -o "$WORK/h.pb.gz"
		HOME="$WORK" PPROF_BINARY_PATH="$WORK/none" "${GO:-go}" tool pprof -raw "$WORK/h.pb.gz" \
			>"$WORK/h.pprof" 2>&1
		check "pprof: go tool pprof reads it, the JIT function named as it is" \
			grep -qF "jit$ESC[31mred" "$WORK/h.pprof"
	else
		skip "pprof: go is not installed"
	fi
	# the warnings quote names too: the binary gone, its warning names it escaped
	mv "$BIN" "$WORK/gone"
	"$KPROF" report -i "$WORK/h.kprof" --flat >/dev/null 2>"$WORK/h.warn"
	check "warnings: the missing binary named escaped on stderr" escaped "$WORK/h.warn" "$bin': missing"
else
	skips 13 "names with control characters: a C compiler ($CC) and x86-64 are needed"
fi

# --- -o files are written beside their path, then renamed: a failed write keeps what was there,
# and a symbolic link at the path is refused, never followed
"$KPROF" report -i "$WORK/s.kprof" --svg -o "$WORK/good.svg" >/dev/null 2>&1
cp "$WORK/good.svg" "$WORK/good.copy"
if command -v prlimit >/dev/null; then
	prlimit --fsize=2000 "$KPROF" report -i "$WORK/s.kprof" --svg -o "$WORK/good.svg" \
		2>"$WORK/full.err"
	rc=$?
	check "a write that fails (a 2 kB file size limit) ends with status 1 ($rc), saying why" \
		sh -c "[ $rc -eq 1 ] && grep -q \"cannot write '$WORK/good.svg'\" '$WORK/full.err'"
	check "...leaves the good file as it was" cmp -s "$WORK/good.svg" "$WORK/good.copy"
	check "...and no temporary file beside it" sh -c "! ls -a '$WORK' | grep -q '^\.good\.svg\.'"
else
	for i in 1 2 3; do skip "a failed write: prlimit (util-linux) is not installed"; done
fi
echo keep >"$WORK/victim"
ln -s "$WORK/victim" "$WORK/link.svg"
"$KPROF" report -i "$WORK/s.kprof" --svg -o "$WORK/link.svg" 2>"$WORK/link.err"
rc=$?
check "an -o path that is a symbolic link is refused (status $rc)" \
	sh -c "[ $rc -eq 1 ] && grep -q 'is a symbolic link' '$WORK/link.err'"
ln -s "$WORK/victim" "$WORK/link.kprof"
"$KPROF" record -o "$WORK/link.kprof" -- true 2>"$WORK/link.err"
rc=$?
check "...by record too (status $rc)" sh -c "[ $rc -eq 1 ] && grep -q 'is a symbolic link' '$WORK/link.err'"
check "...and the file they point to is untouched" grep -qx keep "$WORK/victim"

# --- a frame-pointer chain that loops: spin() runs with RBP on a frame that points to itself,
# so the kernel's walk stores spin's address until its depth limit; the report shows it once
FPLOOP="$top_builddir/tests/workloads/fploop"
"$KPROF" record -g -o "$WORK/loop.kprof" -- "$FPLOOP" 0.2 >/dev/null 2>&1
"$KPROF" report -i "$WORK/loop.kprof" --folded --weight samples >"$WORK/loop.folded" 2>/dev/null
"$KPROF" report -i "$WORK/loop.kprof" --stats >"$WORK/loop.stats" 2>&1
"$KPROF" script -i "$WORK/loop.kprof" >"$WORK/loop.script" 2>/dev/null
looped=$(awk '/;spin;spin [0-9]+$/ { n += $NF } END { print n + 0 }' "$WORK/loop.folded")
deeper=$(grep -c ';spin;spin;spin' "$WORK/loop.folded")
set -- $(sed -n 's/^# frame-pointer stacks ending in one repeated address.*: \([0-9]*\), the repeats left out \([0-9]*\)$/\1 \2/p' "$WORK/loop.stats")
check "fp loop: $looped samples in spin show its address once more, none more often ($deeper)" \
	[ "$looped" -ge 100 -a "$deeper" -eq 0 ]
check "...--stats counts them: ${1:-none} stacks, ${2:-no} repeats left out (more than 100 each)" \
	awk -v s="${1:-0}" -v r="${2:-0}" -v l="$looped" 'BEGIN { exit !(s >= l && r > 100 * s) }'
most=$(awk 'BEGIN { RS = "" } { n = gsub(/ spin\+0x/, "&"); if (n > m) m = n } END { print m + 0 }' \
	"$WORK/loop.script")
check "...and script lists spin at most twice in a sample ($most)" \
	[ "$most" -eq 2 ]
check "...while the plain call after it keeps its caller" \
	grep -q ';__libc_start_call_main;plain[.a-z0-9]* [0-9]*$' "$WORK/loop.folded"

done_testing
