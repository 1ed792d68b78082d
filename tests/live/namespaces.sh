#!/bin/sh
# Live: a process in a mount namespace of its own (unshare -m), as in a container, whose binary
# is bind-mounted at a path that does not exist outside it. record --embed-symbols reads the
# binary through /proc/PID/root while the process lives, and the recording reports with names
# after the process is gone, --stats saying how the binary was found; the same for a running
# process recorded with -a, whose maps are synthesized from /proc. Without --embed-symbols the
# recorder says what a report will lack, and --symfs over a copy of the container's files
# covers it.
. "$top_srcdir/tests/live/lib.sh"
require_perf_events
[ "$(id -u)" -eq 0 ] || skip_all "mount namespaces and bind mounts need root"
command -v unshare >/dev/null 2>&1 || skip_all "no unshare(1)"
unshare -m --propagation private true 2>/dev/null || skip_all "unshare -m is not permitted here"

mkdir -p "$WORK/hidden" "$WORK/mnt" "$WORK/root$WORK/mnt"
cp "$SPLIT" "$WORK/hidden/app"
# in_ns SECONDS: split, run from the bind mount inside a namespace of its own
in_ns() {
	unshare -m --propagation private sh -c \
		"mount --bind '$WORK/hidden' '$WORK/mnt' && exec '$WORK/mnt/app' $1"
}
self_of() { awk -v f="$1" '$NF == f { sub("%", "", $1); print $1; exit }' "$2"; }

"$KPROF" record -g --embed-symbols -o "$WORK/e.kprof" -- sh -c \
	"unshare -m --propagation private sh -c \"mount --bind '$WORK/hidden' '$WORK/mnt' && exec '$WORK/mnt/app' 0.5\"" \
	>"$WORK/e.out" 2>"$WORK/e.err"
check "the binary's path does not exist outside the namespace" [ ! -e "$WORK/mnt/app" ]
"$KPROF" report -i "$WORK/e.kprof" --flat --color never >"$WORK/e.flat" 2>/dev/null
# work_a's total, the kernel's time under it included, as split's thread clock counts it, among
# the samples of split's process (sh, unshare and mount ran before it: 5% of a loaded run's)
"$KPROF" report -i "$WORK/e.kprof" --flat --color never --pid "$(sed -n 's/^pid=//p' "$WORK/e.out")" \
	>"$WORK/e.split" 2>/dev/null
a=$(total_of work_a "$WORK/e.split")
check "--embed-symbols: the namespaced binary's functions are named (work_a ${a:-none}% in all, its clock's $(truth_of work_a "$WORK/e.out")%)" \
	points "${a:-0}" "$(truth_of work_a "$WORK/e.out")" "$SHARE_POINTS"
"$KPROF" report -i "$WORK/e.kprof" --stats >"$WORK/e.stats" 2>/dev/null
check "--stats: read while recording in the process's mount namespace, the file here missing" \
	grep -q "^#   $WORK/mnt/app: .*, from the recording's embedded symbols, read while recording in the mount namespace of the process that mapped it (the file: missing)" "$WORK/e.stats"

# without --embed-symbols: said at the end; --symfs over the container's files names them
"$KPROF" record -g -o "$WORK/p.kprof" -- sh -c \
	"unshare -m --propagation private sh -c \"mount --bind '$WORK/hidden' '$WORK/mnt' && exec '$WORK/mnt/app' 0.3\"" \
	>/dev/null 2>"$WORK/p.err"
check "without --embed-symbols, the recorder says binaries were in other mount namespaces" \
	grep -q "mapped by processes in other mount namespaces (containers).*--embed-symbols" "$WORK/p.err"
"$KPROF" report -i "$WORK/p.kprof" --folded >"$WORK/p.f" 2>/dev/null
check "... and a report here leaves them offsets" grep -q ";app+0x" "$WORK/p.f"
cp "$SPLIT" "$WORK/root$WORK/mnt/app"
"$KPROF" report -i "$WORK/p.kprof" --folded --symfs "$WORK/root" >"$WORK/s.f" 2>/dev/null
check "--symfs over a copy of the container's files names them" grep -q ";work_a " "$WORK/s.f"

# -a: a process already running in its namespace, its maps synthesized from /proc
in_ns 3 >"$WORK/bg.out" 2>&1 &
bg=$!
i=0
while ! pgrep -f "$WORK/mnt/app" >/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.3
"$KPROF" record -a -g --embed-symbols --duration 1 -o "$WORK/a.kprof" >/dev/null 2>"$WORK/a.err"
wait $bg
"$KPROF" report -i "$WORK/a.kprof" --flat --color never --pid "$(sed -n 's/^pid=//p' "$WORK/bg.out")" \
	>"$WORK/a.flat" 2>/dev/null
check "-a: a running namespaced process's functions are named (work_a $(self_of work_a "$WORK/a.flat")%)" \
	grep -q " work_a$" "$WORK/a.flat"
"$KPROF" report -i "$WORK/a.kprof" --stats >"$WORK/a.stats" 2>/dev/null
check "... its binary read in its mount namespace" \
	grep -q "^#   $WORK/mnt/app: .*read while recording in the mount namespace" "$WORK/a.stats"
done_testing
