#!/bin/sh
# Live: `kprof report --format pprof` read by the real `go tool pprof` (Debian's golang-go):
# -top gives the functions and flat shares of `kprof report --flat` (0.1 points), -traces the
# call stacks, -raw the mappings with the binaries' own build-ids, -tagfocus on a pid the
# samples of that process alone, -symbolize=none the same profile with no binary at hand,
# -diff_base the difference of two recordings, and perf's perf.data as input.
. "$top_srcdir/tests/live/lib.sh"

GO=${GO:-go}
command -v "$GO" >/dev/null 2>&1 ||
	skip_all "go is not installed (contrib/setup.sh --check installs golang-go)"
require_perf_events
# pprof keeps nothing under $HOME in these modes, but never let it touch the real one
export HOME="$WORK" PPROF_BINARY_PATH="$WORK/no-binaries"
pprof() { "$GO" tool pprof "$@" 2>"$WORK/pprof.err"; }
# every function, none dropped: -top's whole listing
pprof_top() { pprof -top -nodecount=100000 -nodefraction=0 -edgefraction=0 "$@"; }

# flat_pprof FUNC TOP: FUNC's flat% in a pprof -top listing (an inlined one is "f (inline)")
flat_pprof() {
	awk -v f="$1" '$2 ~ /%$/ { n = $NF == "(inline)" ? $(NF - 1) : $NF }
		$2 ~ /%$/ && n == f { sub("%", "", $2); print $2; exit }' "$2"
}
# self_kprof FUNC FLAT: FUNC's self% in a kprof --flat listing
self_kprof() { awk -v f="$1" '$NF == f && $1 ~ /%$/ { sub("%", "", $1); print $1; exit }' "$2"; }
# points A B N: A and B are at most N points apart
points() { awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && b != "" && d <= n) }'; }
# build_id FILE: the GNU build-id of an ELF file
build_id() { readelf -n "$1" 2>/dev/null | awk '/Build ID:/ { print $3; exit }'; }

# Two processes, so that a pid label has something to tell apart.
"$KPROF" record -g -o "$WORK/two.kprof" -- sh -c \
	"'$SPLIT' 0.8 >'$WORK/a.out' & '$SPLIT' 0.4 >'$WORK/b.out'; wait" >/dev/null 2>"$WORK/rec.err"
check "record two splits succeeds" [ $? -eq 0 ]
"$KPROF" report -i "$WORK/two.kprof" --format pprof -o "$WORK/two.pb.gz" 2>"$WORK/pp.err"
check "report --format pprof succeeds" [ $? -eq 0 ]
check "the file is gzip" gzip -t "$WORK/two.pb.gz"
pprof_top "$WORK/two.pb.gz" >"$WORK/top"
check "go tool pprof -top reads it" [ -s "$WORK/top" ]
"$KPROF" report -i "$WORK/two.kprof" --flat --color never >"$WORK/flat" 2>/dev/null

# The flat share of every function kprof lists with samples, against pprof's.
bad=0 n=0
for f in $(awk '$1 ~ /%$/ && $3 > 0 { print $NF }' "$WORK/flat"); do
	n=$((n + 1))
	k=$(self_kprof "$f" "$WORK/flat") g=$(flat_pprof "$f" "$WORK/top")
	if ! points "$k" "$g" 0.1; then
		bad=$((bad + 1))
		echo "# $f: kprof $k%, pprof ${g:-missing}%"
	fi
done
check "pprof -top has each of kprof's $n functions at its flat share, within 0.1 points ($bad off)" \
	[ "$n" -gt 3 -a "$bad" -eq 0 ]
echo "# work_a: kprof $(self_kprof work_a "$WORK/flat")%, pprof $(flat_pprof work_a "$WORK/top")%"
check "the main binary is split (pprof's File:)" grep -q '^File: split$' "$WORK/top"
check "the type is cpu, in nanoseconds" grep -q '^Type: cpu$' "$WORK/top"

pprof -traces "$WORK/two.pb.gz" >"$WORK/traces"
check "pprof -traces shows work_a called from main" \
	awk '/^-----/ { leaf = "" } $2 == "work_a" { leaf = "a"; next }
		leaf == "a" && $1 ~ /^(lap|main)$/ { ok = 1 } END { exit !ok }' "$WORK/traces"
check "each trace has its pid, tid, comm and cpu" \
	awk '/^-----/ { t++ } /^ +(pid|tid|comm|cpu):/ { l++ } END { exit !(t > 1 && l >= 4 * (t - 1)) }' \
	"$WORK/traces"

pprof -raw "$WORK/two.pb.gz" >"$WORK/raw"
for bin in "$(readlink -f "$SPLIT")" "$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)"; do
	want=$(build_id "$bin")
	got=$(awk -v p="$bin" '/^Mappings/ { m = 1; next } m && $3 == p { print $4; exit }' "$WORK/raw")
	check "pprof -raw: the mapping of $(basename "$bin") carries its build-id ($want)" \
		[ -n "$want" -a "$want" = "$got" ]
done

# -tagfocus on one process: what kprof report --pid keeps of it.
pid=$("$KPROF" script -i "$WORK/two.kprof" -F comm,pid 2>/dev/null | awk '$1 == "split" { print $2; exit }')
"$KPROF" report -i "$WORK/two.kprof" --pid "$pid" --flat --color never >"$WORK/flat.pid" 2>/dev/null
pprof_top -tagfocus="pid=$pid" "$WORK/two.pb.gz" >"$WORK/top.pid"
pprof_top -unit=ns -tagfocus="pid=$pid" "$WORK/two.pb.gz" >"$WORK/top.pid.ns"
# the ns the process's samples stand for: the views' weight, which its folded values add up to
k=$("$KPROF" report -i "$WORK/two.kprof" --pid "$pid" --folded 2>/dev/null | awk '{ s += $NF } END { print s }')
g_ns=$(awk '/^Showing nodes accounting for/ { v = $5; sub(",", "", v); print v; exit }' \
	"$WORK/top.pid.ns")
echo "# pid $pid: kprof --pid ${k}ns, pprof -tagfocus $g_ns"
check "pprof -tagfocus=pid=$pid keeps exactly that process's samples (kprof --pid)" \
	[ -n "$k" -a "$g_ns" = "${k}ns" ]
# pprof's shares stay of the whole profile: work_a's of that process is its ns over the kept
w1=$(awk -v k="$k" '$NF == "work_a" { v = $1; sub("ns", "", v); printf "%.2f", 100 * v / k; exit }' \
	"$WORK/top.pid.ns")
w2=$(self_kprof work_a "$WORK/flat.pid")
check "and work_a's share in it is kprof --pid's ($w2%, pprof $w1%)" points "$w1" "$w2" 0.1

# Nothing needed from the binaries: the same listing without symbolization and with no binary.
pprof_top -symbolize=none "$WORK/two.pb.gz" >"$WORK/top.nosym"
check "pprof -symbolize=none gives the same listing" cmp -s "$WORK/top" "$WORK/top.nosym"

# --pprof-labels none: one sample per stack, no tags.
"$KPROF" report -i "$WORK/two.kprof" --format pprof --pprof-labels none -o "$WORK/nolab.pb.gz"
pprof -tags "$WORK/nolab.pb.gz" >"$WORK/tags.none"
pprof -tags "$WORK/two.pb.gz" >"$WORK/tags"
check "--pprof-labels none: no tags; by default pid, tid, comm and cpu" \
	[ "$(grep -c ': Total' "$WORK/tags.none")" -eq 0 -a "$(grep -c ': Total' "$WORK/tags")" -eq 4 ]
"$KPROF" report -i "$WORK/two.kprof" --tree --pprof-labels pid >/dev/null 2>"$WORK/lab.err"
check "--pprof-labels with another format is a usage error" \
	[ $? -eq 2 -a "$(grep -c 'applies to --format pprof' "$WORK/lab.err")" -eq 1 ]
"$KPROF" report -i "$WORK/two.kprof" --format pprof --pprof-labels pid,pod -o "$WORK/x" 2>"$WORK/lab.err"
check "an unknown label is a usage error that names it" \
	[ $? -eq 2 -a "$(grep -c "not 'pod'" "$WORK/lab.err")" -eq 1 -a ! -e "$WORK/x" ]
pprof_top "$WORK/nolab.pb.gz" >"$WORK/top.nolab"
check "and the same -top listing" cmp -s "$WORK/top" "$WORK/top.nolab"

# -diff_base: the second recording less the first, function by function.
"$KPROF" record -g -o "$WORK/one.kprof" -- "$SPLIT" 0.4 >/dev/null 2>&1
"$KPROF" report -i "$WORK/one.kprof" --format pprof -o "$WORK/one.pb.gz"
pprof_top -unit=ns "$WORK/one.pb.gz" >"$WORK/top.one"
pprof_top -unit=ns "$WORK/two.pb.gz" >"$WORK/top.two"
pprof_top -unit=ns -diff_base "$WORK/one.pb.gz" "$WORK/two.pb.gz" >"$WORK/top.diff"
ns_of() { awk -v f="$1" '$NF == f { v = $1; sub("ns", "", v); print v; exit }' "$2"; }
a=$(ns_of work_a "$WORK/top.one") b=$(ns_of work_a "$WORK/top.two") d=$(ns_of work_a "$WORK/top.diff")
echo "# work_a: base ${a}ns, new ${b}ns, diff ${d}ns"
check "pprof -diff_base of two exports gives work_a's difference" \
	[ -n "$a" -a -n "$b" -a "$d" = "$((${b:-0} - ${a:-0}))" ]

# C++ with an inlined template, --srcline: names, system (mangled) names, Lines, source; with
# --inline-self, the sampled addresses' inlined frames too.
INLINE="$top_builddir/tests/workloads/inline"
"$KPROF" record -g -o "$WORK/in.kprof" -- "$INLINE" 0.3 >/dev/null 2>&1
"$KPROF" report -i "$WORK/in.kprof" --format pprof --srcline --inline-self -o "$WORK/in.pb.gz"
pprof -raw "$WORK/in.pb.gz" >"$WORK/in.raw"
mangled=$(nm "$INLINE" | awk '$3 ~ /Engine4spin/ { print $3; exit }')
check "a C++ function has its mangled name as its system name ($mangled)" \
	grep -q "shapes::Engine::spin(long) .*($mangled)" "$WORK/in.raw"
check "an inlined call is a Line above its caller's in one Location" \
	awk '/^ +[0-9]+: 0x/ { inl = ($0 ~ /Accumulator<double>::add/); next }
		inl && /shapes::Engine::spin\(long\)/ { ok = 1 } { inl = 0 } END { exit !ok }' "$WORK/in.raw"
pprof -list 'Engine::spin' "$WORK/in.pb.gz" >"$WORK/in.list"
# (with --inline-self, spin's samples are add's: cumulative, at its call of add)
check "pprof -list shows spin's source with its samples by line, from the file alone" \
	awk '$3 ~ /^[0-9]+:$/ && ($1 != "." || $2 != ".") { n++ } END { exit !(n >= 1) }' "$WORK/in.list"

# No samples: a valid empty profile, and a notice.
"$KPROF" report -i "$WORK/two.kprof" --comm no-such-command --format pprof -o "$WORK/empty.pb.gz" \
	2>"$WORK/empty.err"
check "an empty selection writes a profile" [ $? -eq 0 -a -s "$WORK/empty.pb.gz" ]
pprof_reads() { pprof -top "$1" >/dev/null; }
check "that pprof reads" pprof_reads "$WORK/empty.pb.gz"
check "and says it is empty" grep -q "no samples of cpu-clock that pass the filters" "$WORK/empty.err"

# Not onto a terminal: it is binary.
if command -v script >/dev/null 2>&1; then
	script -qec "'$KPROF' report -i '$WORK/two.kprof' --format pprof" /dev/null >"$WORK/tty.out" 2>&1
	rc=$?
	check "to a terminal, it asks for -o FILE (exit 2)" \
		[ $rc -eq 2 -a "$(grep -c "give -o FILE" "$WORK/tty.out")" -eq 1 ]
else
	skip "script(1) is not installed: no terminal to test with"
fi

# perf's own perf.data, exported: the same shares as kprof reads from it.
PERF=${PERF:-perf}
if command -v "$PERF" >/dev/null 2>&1 &&
	"$PERF" record -q -B -N -g -o "$WORK/perf.data" -- "$SPLIT" 0.5 >/dev/null 2>&1; then
	"$KPROF" report -i "$WORK/perf.data" --format pprof -o "$WORK/perf.pb.gz" 2>/dev/null
	"$KPROF" report -i "$WORK/perf.data" --flat --color never >"$WORK/flat.perf" 2>/dev/null
	pprof_top "$WORK/perf.pb.gz" >"$WORK/top.perf"
	k=$(self_kprof work_a "$WORK/flat.perf") g=$(flat_pprof work_a "$WORK/top.perf")
	check "perf.data exported: work_a at kprof's share ($k%, pprof $g%)" points "$k" "$g" 0.1
else
	skip "perf cannot record here: no perf.data to export"
fi
done_testing
