#!/bin/sh
# times.sh [-n N] DIR...: each test's wall time (s) in each build directory, from the NAME.time
# files tests/timed-driver.sh leaves, slowest first (by the sum over the builds), the N slowest
# (all without -n), with each build's total of every test's time on the last line. The suite
# runs tests in parallel, so the totals are CPU-ish seconds of test scripts, not the wall time
# of `make check`.
n=0
if [ "${1:-}" = -n ]; then n=$2; shift 2; fi
[ $# -gt 0 ] || { echo "usage: times.sh [-n N] DIR..." >&2; exit 2; }
for d in "$@"; do
	find "$d" -name '*.time' 2>/dev/null | while read -r f; do
		t=${f#"$d"/}
		printf '%s\t%s\t%s\n' "$d" "${t%.time}" "$(cat "$f")"
	done
done | awk -F '\t' -v n="$n" -v dirs="$*" '
	BEGIN { nd = split(dirs, d, " ") }
	{ t[$2, $1] = $3; sum[$2] += $3; tot[$1] += $3; seen[$2] = 1 }
	END {
		if (!length(seen)) { print "no test times: run make check first"; exit }
		hdr = sprintf("%-34s", "test (wall s)")
		for (i = 1; i <= nd; i++) hdr = hdr sprintf(" %11s", d[i])
		print hdr
		m = 0
		for (k in seen) key[++m] = k
		for (i = 1; i <= m; i++)
			for (j = i + 1; j <= m; j++)
				if (sum[key[j]] > sum[key[i]]) { x = key[i]; key[i] = key[j]; key[j] = x }
		for (i = 1; i <= m && (n == 0 || i <= n); i++) {
			line = sprintf("%-34s", key[i])
			for (j = 1; j <= nd; j++)
				line = line sprintf(" %11s", ((key[i], d[j]) in t) ? t[key[i], d[j]] : "-")
			print line
		}
		line = sprintf("%-34s", "all " m " tests")
		for (j = 1; j <= nd; j++) line = line sprintf(" %11.1f", tot[d[j]])
		print line
	}'
