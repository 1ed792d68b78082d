#!/bin/sh
# Live: container labels. Two copies of split run in two cgroups of their own (made here under
# the cgroup v2 hierarchy, removed at the end), for 0.6 and 0.3 s of CPU. The recording holds
# each process's cgroup; report --sort cgroup splits the samples between them as their CPU
# times do; --cgroup keeps one cgroup, both under their parent, or none for a path no process
# had.
. "$top_srcdir/tests/live/lib.sh"
require_perf_events
[ "$(id -u)" -eq 0 ] || skip_all "making cgroups needs root"
CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$CG" ] || skip_all "no cgroup v2 hierarchy is mounted"
TOP="$CG/kprof-test-$$"
mkdir "$TOP" 2>/dev/null || skip_all "cannot make a cgroup under $CG"
mkdir "$TOP/a" "$TOP/b" || skip_all "cannot make nested cgroups under $TOP"
# the cgroups end with the test: emptied first (their processes have exited by then)
trap 'rmdir "$TOP/a" "$TOP/b" "$TOP" 2>/dev/null; rm -rf "$WORK"' EXIT
trap 'exit 1' HUP INT TERM PIPE
rel=${TOP#"$CG"}

"$KPROF" record -g -o "$WORK/c.kprof" -- sh -c "
	sh -c 'echo \$\$ >$TOP/a/cgroup.procs && exec $SPLIT 0.6' >'$WORK/a.out' &
	sh -c 'echo \$\$ >$TOP/b/cgroup.procs && exec $SPLIT 0.3' >'$WORK/b.out' &
	wait" >/dev/null 2>"$WORK/c.err"
"$KPROF" report -i "$WORK/c.kprof" --flat --sort cgroup --color never >"$WORK/s.flat" 2>/dev/null
share() { awk -v c="$1" '$4 == c { sub("%", "", $1); print $1; exit }' "$2"; }
a=$(share "$rel/a" "$WORK/s.flat")
b=$(share "$rel/b" "$WORK/s.flat")
cpu() { sed -n 's/^cpu_ns=//p' "$1"; }
ta=$(awk -v a="$(cpu "$WORK/a.out")" -v b="$(cpu "$WORK/b.out")" 'BEGIN { printf "%.2f", 100 * a / (a + b) }')
tb=$(awk -v a="$ta" 'BEGIN { printf "%.2f", 100 - a }')
check "--sort cgroup: $rel/a has ${a:-none}% (its CPU time's share of the two: $ta%)" \
	points "${a:-0}" "$ta" "$SHARE_POINTS"
check "... and $rel/b ${b:-none}% ($tb%)" points "${b:-0}" "$tb" "$SHARE_POINTS"
"$KPROF" report -i "$WORK/c.kprof" --flat --sort cgroup,comm --cgroup "$rel/b" --color never \
	>"$WORK/b.flat" 2>/dev/null
check "--cgroup $rel/b keeps that cgroup's samples only" \
	sh -c '[ "$(awk "/^ +[0-9.]+%/ { print \$4 }" "$1" | sort -u)" = "$2" ]' - "$WORK/b.flat" "$rel/b"
n_b=$(awk '/^ +[0-9.]+%/ { n += $3 } END { print n + 0 }' "$WORK/b.flat")
n_all=$(awk '/^ +[0-9.]+%/ && $4 ~ /kprof-test/ { n += $3 } END { print n + 0 }' "$WORK/s.flat")
"$KPROF" report -i "$WORK/c.kprof" --flat --cgroup "$rel/" --color never >"$WORK/top.flat" 2>/dev/null
n_top=$(awk '/^ +[0-9.]+%/ { n += $3 } END { print n + 0 }' "$WORK/top.flat")
check "--cgroup of their parent keeps both: $n_top samples, the two cgroups' $n_all" \
	[ "$n_top" -eq "$n_all" -a "$n_b" -gt 0 -a "$n_b" -lt "$n_all" ]
"$KPROF" report -i "$WORK/c.kprof" --flat --cgroup /no/such/cgroup --color never >"$WORK/none.flat" 2>/dev/null
check "--cgroup of no process keeps nothing" \
	sh -c '! grep -q "^ *[0-9.]*%" "$1"' - "$WORK/none.flat"
done_testing
