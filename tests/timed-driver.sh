#!/bin/sh
# timed-driver.sh DRIVER [ARGS...]: runs the test driver Automake gave (tap-driver.sh), then
# writes the test's wall time and the CPU time of everything it ran (user + system, in
# seconds) beside its log, as NAME.time ("WALL CPU"), for tests/times.sh.
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
	end=$(date +%s.%N)
	# times: the shell's own user and system time, then its children's (into a file: in a
	# pipeline it would be a subshell's, which has no children)
	times >"${log%.log}.time"
	awk -v s="$start" -v e="$end" '
		function sec(t) { split(t, p, "m"); sub("s", "", p[2]); return p[1] * 60 + p[2] }
		NR == 2 { printf "%.1f %.1f\n", e - s, sec($1) + sec($2) }' "${log%.log}.time" \
		>"${log%.log}.time.new" && mv "${log%.log}.time.new" "${log%.log}.time"
fi
exit $rc
