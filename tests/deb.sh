#!/bin/sh
# The Debian package of make deb (contrib/debian/), unpacked with dpkg-deb -x into a
# directory of its own, never installed: its kprof records and reports the demo's workload
# with the system's libraries, its manual and completion are in it, its dependencies are the
# libraries kprof links, and lintian finds no error.
. "$top_srcdir/tests/live/lib.sh"
deb=$(ls "$top_builddir"/kprof_*.deb 2>/dev/null | tail -1)
[ -n "$deb" ] || skip_all "no package in $top_builddir: make deb builds it (contrib/setup.sh --check does)"
command -v dpkg-deb >/dev/null 2>&1 || skip_all "dpkg-deb is not installed"

root="$WORK/root"
dpkg-deb -x "$deb" "$root"
check "dpkg-deb -x unpacks $(basename "$deb")" [ -x "$root/usr/bin/kprof" ]
K="$root/usr/bin/kprof"
check "its kprof runs: $("$K" --version 2>&1)" sh -c "'$K' --version | grep -q '^kprof [0-9]'"
n=$(ls "$root/usr/share/man/man1" 2>/dev/null | grep -c '^kprof.*\.1\.gz$')
check "it has the manual: $n pages in man1, kprof-data(5) in man5" \
	sh -c "[ $n -ge 10 ] && [ -s '$root/usr/share/man/man5/kprof-data.5.gz' ] && [ -s '$root/usr/share/man/man1/kprof-record.1.gz' ]"
check "...which man renders" sh -c "MANWIDTH=80 man -l '$root/usr/share/man/man1/kprof-record.1.gz' 2>/dev/null | grep -q 'kprof-record - '"
check "it has the bash completion where bash-completion looks" \
	grep -q 'complete -F _kprof kprof' "$root/usr/share/bash-completion/completions/kprof"
deps=$(dpkg-deb -f "$deb" Depends)
check "its dependencies are the libraries kprof links (${deps})" \
	sh -c "echo '$deps' | grep -q libdw1 && echo '$deps' | grep -q libzstd1 && echo '$deps' | grep -q libtraceevent1"

require_perf_events
"$K" record -g -o "$WORK/demo.kprof" -- "$top_builddir/tests/workloads/split" 0.3 >/dev/null 2>"$WORK/rec.err"
check "the package's kprof records the demo's workload ($?)" [ -s "$WORK/demo.kprof" ]
"$K" report -i "$WORK/demo.kprof" --percent-limit 0.5 --color never >"$WORK/tree" 2>/dev/null
check "...and reports it: work_a and work_b in the tree" \
	sh -c "grep -q work_a '$WORK/tree' && grep -q work_b '$WORK/tree'"
"$K" report -i "$WORK/demo.kprof" --svg -o "$WORK/demo.svg" 2>/dev/null
check "...and draws its flame graph" grep -q '<title>work_a' "$WORK/demo.svg"
if command -v lintian >/dev/null 2>&1; then
	lintian --fail-on error "$deb" >"$WORK/lintian" 2>&1
	check "lintian finds no error ($?)" sh -c "[ $? -eq 0 ] && ! grep -q '^E:' '$WORK/lintian'"
else
	skip "lintian is not installed (contrib/setup.sh --check installs it)"
fi
done_testing
