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
# covers P KNOWN UNSURE WANT: WANT lies within P% of [KNOWN, KNOWN + UNSURE]: what is known
# is no more than WANT, and with what might be WANT's it is no less (a time in part unknown)
covers() { awk -v p="$1" -v k="$2" -v u="$3" -v w="$4" 'BEGIN { exit !(w > 0 && k != "" && k * 100 <= (100 + p) * w && (k + u) * 100 >= (100 - p) * w) }'; }
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n # SKIP $1"; }
skips() { i=0; while [ $i -lt "$1" ]; do skip "$2"; i=$((i + 1)); done; }
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
done_testing() { echo "1..$tap_n"; [ "$tap_failed" -eq 0 ]; }

# How far a share may be from the truth, or from perf's on the same workload, in points. The
# promise is a few points; on a busy machine (two CPU-burning processes beside the suite) split's
# own shares moved by up to 3.5 points between two runs, so the checks allow 4.
SHARE_POINTS=4
# The truth is the time each work function spends on the stack: a report's total, not its
# self. Under load a tenth of the samples can land in the kernel above the work (a reschedule
# IPI taken at the next irq_enable), which takes them from work_a's self but not its total.
# total_of FUNC FLAT: FUNC's total share in a `report --flat --color never` listing
total_of() { awk -v f="$1" '$NF == f { sub("%", "", $2); print $2; exit }' "$2"; }
# truth_of FUNC OUT: FUNC's share in % of the CPU time split used, from split's stdout OUT
# (its own clocks: on a busy machine an iteration's cost drifts from 60/30/10)
truth_of() {
	awk -F= -v f="${1}_ns" '{ v[$1] = $2 } END { if (v[f] != "" && v["cpu_ns"] > 0) printf "%.2f", 100 * v[f] / v["cpu_ns"] }' "$2"
}
# ... and two runs of it (kprof's and perf's, or two builds) may each be that far off
SHARE_POINTS_2=$((2 * SHARE_POINTS))

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kprof-test.XXXXXX")
trap 'rm -rf "$WORK" ${UNPRIV:+"$UNPRIV"}' EXIT
SPLIT="$top_builddir/tests/workloads/split"

# Checks that run as another user (nobody, or a temporary one) cannot count on reaching the
# build: the checkout may sit in a folder only its owner can enter (mode 0700, as mktemp -d and
# many home directories make them). unpriv_copy FILE... copies kprof and the FILEs into $UNPRIV,
# a folder under /tmp that every user can read, with $UNPRIV/out writable by all; its kprof is
# $UNPRIV/kprof. as_user USER CMD...: CMD as USER, with the sanitizers' settings it can read.
unpriv_copy() {
	if [ -z "${UNPRIV:-}" ]; then
		UNPRIV=$(mktemp -d /tmp/kprof-unpriv.XXXXXX) || return 1
		chmod 755 "$UNPRIV" && mkdir -m 1777 "$UNPRIV/out" &&
			cp "$KPROF" "$top_srcdir/tests/fuzz/lsan.supp" "$UNPRIV/" || return 1
	fi
	[ $# -eq 0 ] || cp "$@" "$UNPRIV/"
}
as_user() {
	u=$1; shift
	runuser -u "$u" -- env LSAN_OPTIONS="suppressions=$UNPRIV/lsan.supp" "$@"
}

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
# SIGKILLed with its command at a random moment, as a user's kill comes: without waiting for
# anything to reach the disk. The moment is once the command has run a random 2 to 3 s of CPU
# (from /proc, in 10 ms ticks), so that a busy machine, which runs it slower, still tests as
# much. Sets rk_cpu_ms, the command's CPU time when it was killed, which the file's samples
# should cover, and rk_delay, the wall time it took (s).
# started PARENT NAME: wait (up to 60 s) until PARENT's child runs NAME, as a user sees the
# command running before pressing Ctrl-C; a signal during kprof's set-up ends it with no file
started() {
	i=0
	while [ $i -lt 600 ] && ! pgrep -P "$1" -x "$2" >/dev/null; do sleep 0.1; i=$((i + 1)); done
}
# kill_once_said PID FILE WORDS: SIGKILL PID once FILE holds WORDS (waiting up to 60 s), as a
# user's kill -9 comes mid-run; sets kos_rc, its exit status (137 when the kill ended it)
kill_once_said() {
	i=0
	while [ $i -lt 600 ] && ! grep -q "$3" "$2" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
	kill -KILL "$1"
	wait "$1" 2>/dev/null
	kos_rc=$?
}
# attached PID: wait (up to 60 s) until kprof PID has opened its perf events
attached() {
	i=0
	while [ $i -lt 600 ] && ! ls -l "/proc/$1/fd" 2>/dev/null | grep -q 'perf_event'; do
		sleep 0.1; i=$((i + 1))
	done
}
record_killed() {
	rk_file=$1; shift
	rk_want=$(awk 'BEGIN { srand(); printf "%d", 2000 + 1000 * rand() }')
	"$KPROF" record -o "$rk_file" "$@" >/dev/null 2>&1 &
	rk_pid=$!
	rk_i=0 rk_cpu_ms=0 rk_child=
	while [ "$rk_cpu_ms" -lt "$rk_want" ] && [ $rk_i -lt 600 ]; do
		sleep 0.05
		rk_i=$((rk_i + 1))
		[ -n "$rk_child" ] || rk_child=$(pgrep -P $rk_pid)
		[ -n "$rk_child" ] &&
			rk_cpu_ms=$(awk '{ print ($14 + $15) * 10 }' "/proc/$rk_child/stat" 2>/dev/null || echo 0)
	done
	kill -KILL $rk_pid
	wait $rk_pid 2>/dev/null
	[ -n "$rk_child" ] && kill -KILL $rk_child 2>/dev/null
	rk_delay=$(awk -v i=$rk_i 'BEGIN { printf "%.2f", i * 0.05 }')
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
# reach_main_from FILE RE: the share of FILE's stacks through a function whose name matches RE
# (or in it) that reach main above it; the samples of start-up and exit (ld.so, exec, the
# sanitizers' set-up), which a busy machine makes more of, are not counted
reach_main_from() {
	awk -v re="$2" '{ s = $0; sub(/ [0-9]+$/, "", s); n = split(s, fr, ";")
		for (i = 2; i <= n; i++) if (fr[i] ~ re) { t += $NF; for (j = 2; j < i; j++) if (fr[j] == "main") { m += $NF; break } break } }
		END { printf "%.2f", t ? 100 * m / t : 0 }' "$1"
}

# Shares in perf report and kprof report of one file.
# self_perf FUNC FILE: FUNC's self share in `perf report --no-children` of FILE, summed over
# the binaries that have one (with -a, the suite's other workloads run a work_a too)
self_perf() { share_perf --no-children "$@"; }
# self_kprof FUNC FILE: the same in `kprof report --flat` (its first event's listing)
self_kprof() {
	"$KPROF" report -i "$2" --flat --color never 2>/dev/null |
		awk -v f="$1" '/^# kprof report/ && n++ { exit } $NF == f { sub("%", "", $1); s += $1; k++ }
			END { if (k) printf "%.2f", s }'
}
# points A B N: A and B (shares in %) are at most N points apart
points() { awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && b != "" && d <= n) }'; }
# total_perf FUNC FILE [ARGS...]: FUNC's total share (with its callees') in `perf report
# --children` of FILE, with perf report's ARGS (a filter)
total_perf() { share_perf --children "$@"; }
# share_perf --children|--no-children FUNC FILE [ARGS...]: the two above
share_perf() {
	sp_how=$1 sp_f=$2 sp_file=$3; shift 3
	"${PERF:-perf}" report "$sp_how" --stdio -g none --sort sym -i "$sp_file" "$@" 2>/dev/null |
		awk -v f="$sp_f" '$1 ~ /%$/ && $NF == f { sub("%", "", $1); s += $1; n++ }
			END { if (n) printf "%.2f", s }'
}

# collapse_script FILE WEIGHT: perf script's text in FILE as stackcollapse-perf.pl folds it:
# comm, then frames root first; "+0x..." and what follows a "(" dropped; an [unknown] symbol
# is "[DSO's base name]", or "[unknown]"; a sample counts its period (WEIGHT period) or 1
# (WEIGHT samples). The -1 perf prints where a stack copy ran out (ffffffffffffffff) is no
# frame and is left out.
collapse_script() {
	awk -v w="$2" '
	function flush() { if (comm != "") { s = comm; for (i = n; i >= 1; i--) s = s ";" fr[i]; c[s] += w == "period" ? per : 1 } comm = "" }
	/^$/ { flush(); next }
	/^\t *ffffffffffffffff / { next }
	/^\t/ {
		sym = $0; sub(/^\t *[0-9a-f]+ /, "", sym); sub(/ \([^()]*\)$/, "", sym)
		sub(/\+0x[0-9a-f]+$/, "", sym); dso = $NF; gsub(/^\(|\)$/, "", dso)
		if (sym == "[unknown]" && dso != "[unknown]") { sub(/.*\//, "", dso); sym = "[" dso "]" }
		gsub(/;/, ":", sym); if (sym !~ /\(anonymous namespace\)/) sub(/\(.*/, "", sym)
		fr[++n] = sym; next
	}
	{ flush(); comm = $1; n = 0; per = $(NF - 1) }
	END { flush(); for (s in c) print s, c[s] }' "$1"
}

# temp_user N FILE...: a temporary system user in $user, removed at exit, and copies of kprof and
# the FILEs it may run in $UNPRIV (unpriv_copy: the checkout may be in a private folder);
# without root or the tools to make a user, N skips saying why, and status 1
temp_user() {
	tu_n=$1; shift
	if [ "$(id -u)" -ne 0 ]; then
		skips "$tu_n" "a temporary user needs root"; return 1
	fi
	if ! command -v useradd >/dev/null || ! command -v userdel >/dev/null ||
		! command -v runuser >/dev/null; then
		skips "$tu_n" "no useradd, userdel or runuser to make a temporary user"; return 1
	fi
	unpriv_copy "$@" || { skips "$tu_n" "cannot copy the programs into /tmp"; return 1; }
	user=kprof-test-$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
	trap 'userdel "$user" 2>/dev/null; rm -rf "$WORK" "$UNPRIV"' EXIT
	trap 'exit 1' INT TERM HUP
	if ! useradd -M -r -s /usr/sbin/nologin "$user" 2>"$WORK/useradd.err"; then
		skips "$tu_n" "useradd failed: $(head -1 "$WORK/useradd.err")"; return 1
	fi
}
