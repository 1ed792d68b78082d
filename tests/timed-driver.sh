#!/bin/sh
# timed-driver.sh DRIVER [ARGS...]: runs the test driver Automake gave (tap-driver.sh), then
# writes beside its log, as NAME.time, the test's wall time, the CPU time of everything it ran
# (user + system, s) and the largest resident set of any one process it ran (MB), for
# tests/times.sh. GNU time (the Debian package time) measures them; without it, the wall
# time alone.
log=
prev=
for a in "$@"; do
	[ "$prev" = --log-file ] && log=$a
	prev=$a
done
if [ -z "$log" ]; then
	exec "$@"
fi
if [ -x /usr/bin/time ]; then
	/usr/bin/time -q -f '%e %U %S %M' -o "${log%.log}.time.raw" "$@"
	rc=$?
	awk '{ printf "%.1f %.1f %.0f\n", $1, $2 + $3, $4 / 1024 }' "${log%.log}.time.raw" \
		>"${log%.log}.time"
	rm -f "${log%.log}.time.raw"
else
	start=$(date +%s.%N)
	"$@"
	rc=$?
	awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f\n", e - s }' >"${log%.log}.time"
fi
exit $rc
