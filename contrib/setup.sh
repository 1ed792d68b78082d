#!/bin/sh
# setup.sh - get kprof built on Debian 12, from a fresh clone.
#
#   contrib/setup.sh           install missing packages, build into build/
#   contrib/setup.sh --check   the same, plus a sanitizer build in build-asan/, then `make check`
#                              in both; ends with "N passed, N failed, N skipped"
#
# Missing Debian packages are installed with apt-get when run as root; otherwise the exact
# apt-get line is printed and the script stops.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
jobs=$(nproc 2>/dev/null || echo 2)

packages="build-essential autoconf automake pkg-config
	libdw-dev libelf-dev libunwind-dev libcapstone-dev libzstd-dev libjson-c-dev libiberty-dev
	libtraceevent-dev zlib1g-dev
	binutils procps diffutils"
# what the tests need beyond the build: the fuzzer's clang, xmllint, perf as the reference,
# and a browser for the flame graph's script (its test skips, saying so, if it cannot be had)
check_packages="clang libclang-rt-14-dev libxml2-utils linux-perf libc6-dbg sqlite3 golang-go"
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
rm -f build/test-suite.log build-asan/test-suite.log
find build build-asan -name '*.trs' -delete
rc=0
echo "kprof setup: make check (build/)"
make -C build -s -j"$jobs" check >build/check.out 2>&1 || rc=1
echo "kprof setup: make check under ASan and UBSan (build-asan/)"
make -C build-asan -s -j"$jobs" check >build-asan/check.out 2>&1 || rc=1
for d in build build-asan; do
	grep -E '^(FAIL|ERROR|XPASS|SKIP):' "$d/check.out" | sed "s|^|$d: |" || true
	if [ $rc -ne 0 ] && [ -f "$d/test-suite.log" ]; then
		grep -q '^# FAIL: *0$' "$d/check.out" && grep -q '^# ERROR: *0$' "$d/check.out" ||
			sed -n '/^FAIL\|^ERROR\|^not ok/p' "$d/test-suite.log" | head -40
	fi
done
[ $rc -eq 0 ] || tail -n 20 build/check.out build-asan/check.out
summary build build-asan
exit $rc
