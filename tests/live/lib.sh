# lib.sh - TAP helpers for the shell tests, and the live tests' common set-up.
# Sourced; expects KPROF, top_builddir and top_srcdir from the test environment.

# Tests that set KPROF_PRIVATE_MOUNTS=1 before sourcing this file run in a mount namespace of
# their own (when root and unshare allow it): kprof mounts tracefs when it is not mounted, and
# that mount then ends with the test instead of staying on the machine.
if [ -n "${KPROF_PRIVATE_MOUNTS:-}" ] && [ -z "${KPROF_IN_PRIVATE_NS:-}" ] &&
	[ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null &&
	unshare -m --propagation private true 2>/dev/null; then
	KPROF_IN_PRIVATE_NS=1 exec unshare -m --propagation private sh "$0" "$@"
fi

tap_n=0
tap_failed=0

# pass DESCRIPTION / fail DESCRIPTION [DIAGNOSTIC...]
pass() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $1"; }
fail() {
	tap_n=$((tap_n + 1)); tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n - $1"; shift
	for line in "$@"; do echo "#   $line"; done
}
# check DESCRIPTION COMMAND...: passes when COMMAND succeeds
check() { d=$1; shift; if "$@"; then pass "$d"; else fail "$d" "command: $*"; fi; }
# within PCT GOT WANT: GOT is within PCT percent of WANT
within() { awk -v p="$1" -v g="$2" -v w="$3" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(w > 0 && d * 100 <= p * w) }'; }
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n # SKIP $1"; }
skips() { i=0; while [ $i -lt "$1" ]; do skip "$2"; i=$((i + 1)); done; }
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
done_testing() { echo "1..$tap_n"; [ "$tap_failed" -eq 0 ]; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kprof-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
SPLIT="$top_builddir/tests/workloads/split"

# Live tests need perf_event_open on a child with kernel samples: skip, saying why, if denied.
require_perf_events() {
	if ! "$KPROF" record -o "$WORK/probe.kprof" -- true >"$WORK/probe.out" 2>&1; then
		if grep -q "cannot open event" "$WORK/probe.out"; then
			skip_all "perf_event_open is not permitted here: $(head -1 "$WORK/probe.out")"
		fi
	fi
	rm -f "$WORK/probe.kprof"
}

# record_killed FILE ARGS...: `kprof record -o FILE ARGS... -- CMD` in the background,
# SIGKILLed with its command at a random moment 2.5 to 4 s in, as a user's kill comes: without
# waiting for anything to reach the disk. Sets rk_delay (s) and rk_cpu_ms, the command's CPU
# time when it was killed (from /proc, in 10 ms ticks), what the file's samples should cover.
record_killed() {
	rk_file=$1; shift
	rk_delay=$(awk 'BEGIN { srand(); printf "%.2f", 2.5 + 1.5 * rand() }')
	"$KPROF" record -o "$rk_file" "$@" >/dev/null 2>&1 &
	rk_pid=$!
	sleep "$rk_delay"
	rk_child=$(pgrep -P $rk_pid)
	rk_cpu_ms=$(awk '{ print ($14 + $15) * 10 }' "/proc/$rk_child/stat" 2>/dev/null || echo 0)
	kill -KILL $rk_pid
	wait $rk_pid 2>/dev/null
	[ -n "$rk_child" ] && kill -KILL $rk_child 2>/dev/null
}

# covers_all_but N RATE MS: N samples at RATE Hz cover all but about a second of MS ms of CPU
# (the promise: no more than about a second of recording is only in memory; a chunk closes at
# the first drain round, every 0.1 s, after its first round is a second old: 1.5 s allowed)
covers_all_but() {
	awk -v n="$1" -v f="$2" -v ms="$3" 'BEGIN { exit !(ms >= 2000 && n >= f * (ms - 1500) / 1000) }'
}

# reach_main FOLDED: the share of samples (in %) whose stack holds main
reach_main() {
	awk '{ t += $NF; if ($0 ~ /;main;/) m += $NF } END { printf "%.2f", t ? 100 * m / t : 0 }' "$1"
}
