#!/bin/sh
# times.sh [-n N] DIR...: each test's wall time, CPU time (s, user + system of all it ran)
# and largest process (MB of resident memory) in each build directory, from the NAME.time
# files tests/timed-driver.sh leaves, slowest first (by the wall time summed over the
# builds), the N slowest (all without -n), with each build's totals (and largest process) on
# the last line. The suite runs tests in parallel, so the totals are seconds of test
# scripts, not the wall time of `make check`; the CPU column says which tests keep the cores
# busy and which wait.
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
	{
		split($3, v, " ")
		w[$2, $1] = v[1]; c[$2, $1] = (2 in v) ? v[2] : "-"; r[$2, $1] = (3 in v) ? v[3] : "-"
		sum[$2] += v[1]; tot[$1] += v[1]; ctot[$1] += v[2]; seen[$2] = 1
		if (v[3] + 0 > rmax[$1]) rmax[$1] = v[3] + 0
	}
	END {
		if (!length(seen)) { print "no test times: run make check first"; exit }
		hdr = sprintf("%-30s", "test (wall s/cpu s/MB)")
		for (i = 1; i <= nd; i++) hdr = hdr sprintf(" %20s", d[i])
		print hdr
		m = 0
		for (k in seen) key[++m] = k
		for (i = 1; i <= m; i++)
			for (j = i + 1; j <= m; j++)
				if (sum[key[j]] > sum[key[i]]) { x = key[i]; key[i] = key[j]; key[j] = x }
		for (i = 1; i <= m && (n == 0 || i <= n); i++) {
			line = sprintf("%-30s", key[i])
			for (j = 1; j <= nd; j++)
				line = line sprintf(" %20s", ((key[i], d[j]) in w) ? \
					w[key[i], d[j]] "/" c[key[i], d[j]] "/" r[key[i], d[j]] : "-")
			print line
		}
		line = sprintf("%-30s", "all " m " tests")
		for (j = 1; j <= nd; j++)
			line = line sprintf(" %20s", sprintf("%.1f/%.1f/%d", tot[d[j]], ctot[d[j]], rmax[d[j]]))
		print line
	}'
