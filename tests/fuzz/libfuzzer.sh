#!/bin/sh
# Runs each libFuzzer target (fuzz-NAME in the build directory, made by clang from
# tests/fuzz/fuzz-NAME.c) over its checked-in corpus, which it first replays under clang's ASan
# and UBSan, then mutates: in `make check` (which builds the targets before this script runs)
# a fixed number of inputs (FUZZ_RUNS, 1000) from a fixed seed, the same every run, so that a
# check that fails once fails again; in `make fuzz`, for FUZZ_SECONDS each from a random seed.
# A crash, leak, sanitizer report or timeout fails the
# target's check, its input kept as fuzz-crash-NAME-* in the build directory: `./fuzz-NAME
# FILE` reproduces it, and the fix's test is that input added to the target's corpus. The
# inputs a run finds go to a scratch folder, or with FUZZ_KEEP=DIR (make fuzz) to
# DIR/fuzz-corpus-NAME, kept for the next run. An input that runs for a minute is a hang, and
# fails too. FUZZ_SKIP, when set, says why nothing runs here.
. "$top_srcdir/tests/live/lib.sh"
[ -z "${FUZZ_SKIP:-}" ] || skip_all "$FUZZ_SKIP"
if [ -n "${FUZZ_SECONDS:-}" ]; then
	budget="-max_total_time=$FUZZ_SECONDS" spent="in $FUZZ_SECONDS s"
else
	budget="-runs=${FUZZ_RUNS:-1000} -seed=1" spent="(seed 1)"
fi
out=${FUZZ_KEEP:-$WORK}

# NAME CORPUS MAX_LEN: each target, its seeds in tests/fuzz/CORPUS, and its longest input
while read -r name corpus max_len; do
	target="$top_builddir/fuzz-$name"
	if [ ! -x "$target" ]; then
		fail "fuzz-$name is built" "not found: $target (make fuzz-$name builds it)"
		continue
	fi
	mkdir -p "$out/fuzz-corpus-$name"
	"$target" $budget -max_len="$max_len" -timeout=60 \
		-print_final_stats=1 -artifact_prefix="$top_builddir/fuzz-crash-$name-" \
		"$out/fuzz-corpus-$name" "$top_srcdir/tests/fuzz/$corpus" >"$WORK/$name.out" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$WORK/$name.out")
	cov=$(sed -n 's/^#[0-9]*[ \t]*DONE *cov: \([0-9]*\).*/\1/p' "$WORK/$name.out" | tail -1)
	seeds=$(ls "$top_srcdir/tests/fuzz/$corpus" | wc -l)
	if [ $rc -eq 0 ] && [ -n "$runs" ]; then
		pass "fuzz-$name: $runs runs $spent from $seeds seeds (coverage ${cov:-?} edges), nothing found"
	else
		# the sanitizer's or libFuzzer's report, and the input it kept
		fail "fuzz-$name over tests/fuzz/$corpus (exit status $rc)" \
			"$(grep -m1 -E 'ERROR: |runtime error: |SUMMARY: ' "$WORK/$name.out")" \
			"$(grep -m1 -E 'Test unit written to|artifact' "$WORK/$name.out")"
		sed 's/^/# /' "$WORK/$name.out" | tail -n 60
	fi
done <<EOF
reader corpus 65536
folded corpus-folded 65536
session corpus-session 131072
report corpus-report 262144
perfdata corpus-perfdata 65536
symbols corpus-symbols 65528
jitdump corpus-jitdump 65536
sdt corpus-sdt 65536
EOF
done_testing
