#!/bin/sh
# setup.sh - get kprof built on Debian 12, from a fresh clone.
#
#   contrib/setup.sh           install missing packages, build into build/
#   contrib/setup.sh --check   the same, plus a sanitizer build in build-asan/, then `make check`
#                              in both (a test script that fails there runs once more, alone,
#                              and counts as passed if it passes then: a "flaky" one, named
#                              at the end), then `make distcheck` (the tarball builds,
#                              installs and checks on its own). Ends with the failing checks,
#                              named, and the line "N passed, N failed, N skipped"
#
# Missing Debian packages are installed with apt-get when run as root; otherwise the exact
# apt-get line is printed and the script stops.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
jobs=$(nproc 2>/dev/null || echo 2)

packages="build-essential autoconf automake pkg-config
	libdw-dev libelf-dev libunwind-dev libcapstone-dev libzstd-dev libjson-c-dev libiberty-dev
	libtraceevent-dev zlib1g-dev libdebuginfod-dev libncurses-dev scdoc
	binutils procps diffutils"
# what the tests need beyond the build: the fuzzer's clang, xmllint, perf as the reference,
# strace and mandoc to hold kprof trace and the manual to, debuginfod to fetch binaries from,
# tmux to type keys into the terminal views and read their screen, GNU time for each test's
# CPU time and memory (make check-times),
# and a browser for the flame graph's script (its test skips, saying so, if it cannot be had)
check_packages="clang libclang-rt-14-dev libxml2-utils linux-perf libc6-dbg sqlite3 golang-go strace
	mandoc man-db debhelper lintian debuginfod tmux time"
optional_packages="chromium hotspot"

# install_missing PACKAGES...: apt-get the ones not installed (root), or say how and stop
install_missing() {
	missing=""
	for p in "$@"; do
		status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
		[ "$status" = installed ] || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "kprof setup: these Debian packages are missing:$missing" >&2
		echo "kprof setup: install them with:" >&2
		echo "  sudo apt-get install -y --no-install-recommends$missing" >&2
		exit 1
	fi
	echo "kprof setup: installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	[ -n "${apt_updated:-}" ] || apt-get update -qq
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
	apt_updated=1
}

# configure_in DIR [configure options...]
configure_in() {
	dir=$1; shift
	mkdir -p "$dir"
	if [ ! -f "$dir/Makefile" ] || [ configure -nt "$dir/Makefile" ]; then
		(cd "$dir" && "$top/configure" -q "$@")
	fi
	make -C "$dir" -s -j"$jobs"
}

# Sum the TAP results of every test log in the build directories.
summary() {
	find "$@" -name '*.trs' -exec cat {} + 2>/dev/null | awk '
		/^:test-result: PASS/ { p++ }
		/^:test-result: (FAIL|XPASS|ERROR)/ { f++ }
		/^:test-result: SKIP/ { s++ }
		END { printf "%d passed, %d failed, %d skipped\n", p, f, s }'
}

# install_optional PACKAGES...: like install_missing, but a failure only warns
install_optional() {
	for p in "$@"; do
		status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
		[ "$status" = installed ] && continue
		if [ "$(id -u)" -eq 0 ] && [ -z "${apt_updated:-}" ]; then
			apt-get update -qq >/dev/null 2>&1 && apt_updated=1
		fi
		if [ "$(id -u)" -ne 0 ] || ! DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq --no-install-recommends "$p" >/dev/null 2>&1; then
			echo "kprof setup: could not install $p; the tests that need it will skip" >&2
		fi
	done
}

if [ "${1:-}" = --check ]; then
	install_missing $packages $check_packages
	install_optional $optional_packages
	# node and npm for the export tests' viewers, unless a node of another origin is there
	command -v npm >/dev/null 2>&1 || install_optional nodejs npm
else
	install_missing $packages
fi
if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt configure ]; then
	autoreconf -fi
fi
configure_in build --enable-werror

[ "${1:-}" = --check ] || exit 0
tb=$(date +%s)
# the Debian package, which tests/deb.sh unpacks and runs, built while build-asan/ is
echo "kprof setup: make deb (build/) and the build in build-asan/"
rm -f build/kprof_*.deb
(make -C build -s deb >build/deb.out 2>&1 ||
	echo "kprof setup: make deb failed (build/deb.out): tests/deb.sh will say so" >&2) &
deb=$!
configure_in build-asan --enable-werror --enable-sanitizers
# The viewers the export tests load files into (speedscope's app and schema, ajv), at the
# versions tests/npm/package-lock.json pins; without npm or the registry those tests skip.
if command -v npm >/dev/null 2>&1; then
	mkdir -p build/npm
	cp tests/npm/package.json tests/npm/package-lock.json build/npm/
	(cd build/npm && npm ci --no-audit --no-fund --loglevel=error >/dev/null 2>&1) ||
		echo "kprof setup: npm ci failed; the tests that need speedscope will skip" >&2
	[ -e build-asan/npm ] || ln -s ../build/npm build-asan/npm
fi
rm -f build/test-suite.log build-asan/test-suite.log build/flaky.log build/flaky.txt \
	build/flaky.scripts build/failures.txt build/rerun.out build-asan/rerun.out
find build build-asan \( -name '*.trs' -o -name '*.time' \) -delete

# failed_tests DIR: the tests that failed in DIR's last run, as TESTS names them
failed_tests() {
	find "$1" -name '*.trs' -exec grep -l '^:global-test-result: \(FAIL\|ERROR\|XPASS\)' {} + |
		while read -r trs; do
			t=${trs#"$1"/}
			t=${t%.trs}
			if [ -f "$t.sh" ]; then echo "$t.sh"; else echo "$t"; fi
		done | sort
}

# check_in DIR: make check in DIR; 0 when it passed. recheck_in DIR then runs each test script
# that failed in it once more, alone. One that passes alone counts as passed; its failing
# checks go into build/flaky.txt and its first log into build/flaky.log. recheck_in returns 1
# when a test failed twice, or when the build itself failed.
check_in() {
	make -C "$1" -s -j"$jobs" check >"$1/check.out" 2>&1
}
recheck_in() {
	failed=$(failed_tests "$1")
	[ -n "$failed" ] || return 1
	twice=0
	for t in $failed; do
		log=$1/${t%.sh}.log
		cp "$log" "$log.first"
		if make -C "$1" -s check TESTS="$t" >>"$1/rerun.out" 2>&1; then
			failures "$1" "$log.first" | sed 's/^/  /' >>build/flaky.txt
			echo "$1: $t" >>build/flaky.scripts
			{ echo "=== $1: $t failed in the parallel run, then passed alone; its first log:"
			  cat "$log.first"; } >>build/flaky.log
		else
			twice=1
		fi
		rm -f "$log.first"
	done
	return $twice
}

# failures DIR LOG: the failing checks of LOG, named: the build, the script, the number and
# the description, each with the first line of its diagnosis (its failing command); a script's
# ERROR (its exit status, a crash) only when no check of it failed
failures() {
	awk -v d="$1" '
		/^(FAIL|XPASS):/ { print d ": " $0; n++; want = 1; next }
		/^ERROR:/ { err[++ne] = d ": " $0; next }
		want && /^#/ { sub(/^# */, ""); print "    " $0 }
		{ want = 0 }
		END { if (!n) for (i = 1; i <= ne; i++) print err[i] }' "$2"
}

rc=0
wait $deb
t0=$(date +%s)
echo "kprof setup: build-asan/ and the package built in $((t0 - tb)) s"
# The two suites and the tarball's own check run at once: most tests wait on the workloads
# they record, so one alone leaves the cores idle half the time (and every test holds to what
# kprof promises on a busy machine). A test script that failed is then run once more, alone.
echo "kprof setup: make check (build/ and, under ASan and UBSan, build-asan/) and make distcheck"
check_in build & p1=$!
check_in build-asan & p2=$!
# the tarball: it builds, installs (binary, manual, completion), uninstalls and checks on its
# own; its check runs the tests of what make dist must carry (the manual, the completion).
# Built unoptimized: what it checks is that the tarball builds and installs (build/ checks the
# optimized binary), and -O0 takes a third less CPU from the suites beside it
make -C build -s distcheck TESTS="tests/layering.sh tests/man.sh tests/completion.sh" \
	DISTCHECK_CONFIGURE_FLAGS="CFLAGS=-O0" \
	>build/distcheck.out 2>&1 & p3=$!
wait $p1 || failed1=1
wait $p2 || failed2=1
t1=$(date +%s)
wait $p3 || { rc=1; distcheck_failed=1; }
t2=$(date +%s)
[ -z "${failed1:-}" ] || recheck_in build || rc=1
[ -z "${failed2:-}" ] || recheck_in build-asan || rc=1
t3=$(date +%s)
echo "kprof setup: make check took $((t1 - t0)) s in build/ and build-asan/ at once," \
	"make distcheck $((t2 - t1)) s more, the reruns $((t3 - t2)) s;" \
	"the ten slowest tests (make check-times in a build directory lists all):"
tests/times.sh -n 10 build build-asan
for d in build build-asan; do
	grep -E '^SKIP:' "$d/check.out" | sed "s|^|$d: |" || true
done
# the end of the log names what broke: the failing checks (30 lines at most), the flaky ones
if [ $rc -ne 0 ]; then
	echo "kprof setup: failed:"
	for d in build build-asan; do
		for t in $(failed_tests "$d"); do
			failures "$d" "$d/${t%.sh}.log"
		done
	done >build/failures.txt
	[ -z "${distcheck_failed:-}" ] ||
		{ echo "make distcheck failed: its last lines (all of them in build/distcheck.out):"
		  tail -n 12 build/distcheck.out | sed 's/^/    /'; } >>build/failures.txt
	[ -s build/failures.txt ] || echo "the build failed: see build/check.out and build-asan/check.out" \
		>build/failures.txt
	head -n 30 build/failures.txt
	[ "$(wc -l <build/failures.txt)" -le 30 ] ||
		echo "... $(($(wc -l <build/failures.txt) - 30)) more lines in build/failures.txt"
fi
if [ -f build/flaky.scripts ]; then
	echo "flaky: $(wc -l <build/flaky.scripts) (failed in the parallel run, passed alone; their first logs are in build/flaky.log)"
	head -n 30 build/flaky.txt
else
	echo "flaky: 0"
fi
summary build build-asan
exit $rc
