#!/bin/sh
# timed-driver.sh DRIVER [ARGS...]: runs the test driver Automake gave (tap-driver.sh), then
# writes the test's wall time in seconds beside its log, as NAME.time, for tests/times.sh.
log=
prev=
for a in "$@"; do
	[ "$prev" = --log-file ] && log=$a
	prev=$a
done
start=$(date +%s.%N)
"$@"
rc=$?
if [ -n "$log" ]; then
	awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f\n", e - s }' >"${log%.log}.time"
fi
exit $rc
