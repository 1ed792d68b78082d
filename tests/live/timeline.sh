#!/bin/sh
# Live: the timeline (report --timeline) of tests/workloads/waits recorded --off-cpu, run under
# a name that XML must escape: one lane per thread of the recording, the blocked time drawn for
# nap and wait_pipe and the on-CPU time drawn for the main thread against the workload's own
# clocks, --time's cut, the CPU lanes from sched:sched_switch (-a, root) against the thread's
# CPU time (the kernel drops a switch now and then: the time known to be the thread's is no
# more, and with the stretches around a missing switch no less), and the JavaScript in headless Chromium: a search's blocked time, and a zoom by a
# real drag whose boxes land where the file's times put them. The -a recording, after a few
# short-lived processes, also holds the layout of a system-wide picture: the CPU lanes first,
# the short-lived processes several to a row, the helper thread's last switch (tid -1 from the
# kernel) named as sched_switch's prev_pid names it; and the bound (--timeline-max), lowered
# below that picture's size: said, and kept by merging the boxes shorter than a pixel, or
# refused.
KPROF_PRIVATE_MOUNTS=1 # sched:sched_switch may mount tracefs: keep that mount inside this test
. "$top_srcdir/tests/live/lib.sh"
require_perf_events

# the workload under a name with XML's special characters (the comm is its first 15 bytes)
NAME="w<&\"'x"
cp "$top_builddir/tests/workloads/waits" "$WORK/$NAME"
CHROMIUM=${CHROMIUM:-chromium}

# svgtab SVG TID: what the file draws, by python's XML parser (which fails on bad escaping):
#   lanes=N threads=TIDS cpus=N t0=NS span=NS x0=PX pw=PX
#   KIND:NAME=NS      the time drawn in thread TID's lane, by box class and name
#   cpu=NS            the time of TID's tasks in the CPU lanes
#   unsure=NS         the time of the CPU lanes' stretches from or to TID whose switch was
#                     not recorded
#   comm=NAME         the lane's name
svgtab() {
	python3 - "$@" <<'EOF'
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
tid = sys.argv[2]
lanes = [g for g in root.iter(ns + "g") if "lane" in (g.get("class") or "").split()]
threads = [g.get("data-tid") for g in lanes if "thread" in g.get("class").split()]
cpus = [g for g in lanes if "cpu" in g.get("class").split()]
print("lanes=%d" % len(lanes))
print("threads=%s" % ",".join(sorted(threads)))
print("cpus=%d" % len(cpus))
# the lanes top to bottom, c for a CPU's and t for a thread's
print("order=%s" % "".join("c" if g in cpus else "t" for g in lanes))
for a in ("data-t0", "data-span", "data-x0", "data-pw"):
    print("%s=%s" % (a[5:], root.get(a)))
sums = {}
for g in lanes:
    for r in g.iter(ns + "rect"):
        c = r.get("class")
        if g.get("data-tid") == tid and c in ("c", "o", "q"):
            k = "%s:%s" % (c, r.get("data-n"))
            sums[k] = sums.get(k, 0) + int(r.get("data-d"))
            sums[c] = sums.get(c, 0) + int(r.get("data-d"))
        if c == "k" and r.get("data-tid") == tid:
            sums["cpu"] = sums.get("cpu", 0) + int(r.get("data-d"))
        if c == "u" and tid in (r.get("data-tid"), r.get("data-then")):
            sums["unsure"] = sums.get("unsure", 0) + int(r.get("data-d"))
    if g.get("data-tid") == tid:
        print("comm=%s" % g.get("data-name"))
for k, v in sums.items():
    print("%s=%d" % (k, v))
EOF
}
val() { sed -n "s/^$2=//p" "$1" | head -1; }

"$KPROF" record --off-cpu -g -o "$WORK/r.kprof" -- "$WORK/$NAME" >"$WORK/r.out" 2>"$WORK/r.err"
check "record --off-cpu -g of '$NAME' succeeds" [ $? -eq 0 ]
tid=$(val "$WORK/r.out" tid)
"$KPROF" report -i "$WORK/r.kprof" --timeline -o "$WORK/t.svg" 2>"$WORK/t.err"
check "report --timeline -o t.svg succeeds ($?)" [ -s "$WORK/t.svg" ]
svgtab "$WORK/t.svg" "$tid" >"$WORK/t.tab" 2>"$WORK/t.tab.err"
check "the timeline is well-formed XML" sh -c "[ ! -s '$WORK/t.tab.err' ] && [ -s '$WORK/t.tab' ]"
want=$("$KPROF" script -i "$WORK/r.kprof" -F tid 2>/dev/null | awk '{ print $1 }' | sort -u | paste -sd, -)
check "one lane per thread that kprof script shows ($(val "$WORK/t.tab" threads); script: $want)" \
	[ "$(val "$WORK/t.tab" threads)" = "$want" ]
check "the main thread's lane is named by its command, escaped and read back ($(val "$WORK/t.tab" comm))" \
	[ "$(val "$WORK/t.tab" comm)" = "$NAME" ]
# the kernel may drop a switch-out's sample: its interval, timed by the switch records, is then
# "[off-CPU without a stack]", which may be either function's
nostack() { val "$1" "o:\[off-CPU without a stack\]"; }
for f in nap wait_pipe; do
	got=$(val "$WORK/t.tab" "o:$f") want=$(val "$WORK/r.out" ${f}_ns) unsure=$(nostack "$WORK/t.tab")
	check "the blocked time drawn for $f is its clock's within 5% (${got:-none} ns, and ${unsure:-0} ns without a stack, $want ns)" \
		covers 5 "${got:-0}" "${unsure:-0}" "$want"
done
got=$(val "$WORK/t.tab" c) want=$(val "$WORK/r.out" cpu_ns)
check "the on-CPU time drawn for the main thread is its CPU time within 5% (${got:-none} ns, $want ns)" \
	within 5 "${got:-0}" "$want"
check "off-CPU boxes are hollow (no fill of their own) and name a stack in their title" \
	grep -q '<rect class="o" [^>]*><title>nap (blocked [0-9.]* ms, at [0-9.]* s): .*nap' "$WORK/t.svg"

# --time: the picture spans the window, what runs past it is cut
t0=$(val "$WORK/t.tab" t0) span=$(val "$WORK/t.tab" span)
a=$(awk -v t="$t0" -v s="$span" 'BEGIN { printf "%.6f", (t + s / 4) / 1e9 }')
b=$(awk -v t="$t0" -v s="$span" 'BEGIN { printf "%.6f", (t + s / 2) / 1e9 }')
"$KPROF" report -i "$WORK/r.kprof" --timeline --time "$a,$b" -o "$WORK/cut.svg" 2>/dev/null
svgtab "$WORK/cut.svg" "$tid" >"$WORK/cut.tab" 2>&1
check "--time $a,$b: the picture lies within the window ($(val "$WORK/cut.tab" t0) + $(val "$WORK/cut.tab" span) ns)" \
	awk -v t="$(val "$WORK/cut.tab" t0)" -v s="$(val "$WORK/cut.tab" span)" -v a="$a" -v b="$b" \
	'BEGIN { exit !(t != "" && s > 0 && t >= a * 1e9 - 1000 && t + s <= b * 1e9 + 1000) }'

# the bound (--timeline-max) far under the picture's size: nothing is written
"$KPROF" report -i "$WORK/r.kprof" --timeline --timeline-max 0.001 -o "$WORK/c.svg" 2>"$WORK/c.err"
rc=$?
check "--timeline-max 0.001: not written, and the report asks for a cut (exit status $rc)" \
	sh -c "[ $rc -eq 1 ] && [ ! -e '$WORK/c.svg' ] && grep -q '^hint: cut it with --time' '$WORK/c.err'"

# --- CPU lanes: which task ran where, from sched:sched_switch ---------------------------------
if [ "$(id -u)" -eq 0 ]; then
	# six short-lived processes of one thread (/bin/true), one after the other, then the workload
	"$KPROF" record -a --off-cpu -g -e cpu-clock -e sched:sched_switch -o "$WORK/a.kprof" \
		-- sh -c 'for i in 1 2 3 4 5 6; do /bin/true; done; exec "$0"' "$WORK/$NAME" \
		>"$WORK/a.out" 2>"$WORK/a.err"
	check "record -a --off-cpu -g -e cpu-clock -e sched:sched_switch succeeds" [ $? -eq 0 ]
	atid=$(val "$WORK/a.out" tid)
	"$KPROF" report -i "$WORK/a.kprof" --timeline -o "$WORK/a.svg" 2>/dev/null
	svgtab "$WORK/a.svg" "$atid" >"$WORK/a.tab" 2>&1
	ncpu=$(getconf _NPROCESSORS_ONLN)
	check "a lane per CPU that switched: $(val "$WORK/a.tab" cpus) of $ncpu" \
		sh -c "[ '$(val "$WORK/a.tab" cpus)' -ge 1 ] && [ '$(val "$WORK/a.tab" cpus)' -le $ncpu ]"
	got=$(val "$WORK/a.tab" cpu) want=$(val "$WORK/a.out" cpu_ns) unsure=$(val "$WORK/a.tab" unsure)
	check "the CPU lanes give the main thread its CPU time within 5% (${got:-none} ns and ${unsure:-0} ns around a switch not recorded, $want ns)" \
		covers 5 "$got" "${unsure:-0}" "$want"
	got=$(val "$WORK/a.tab" o:nap) want=$(val "$WORK/a.out" nap_ns) unsure=$(nostack "$WORK/a.tab")
	check "-a: the blocked time drawn for nap is its clock's within 5% (${got:-none} ns, and ${unsure:-0} ns without a stack, $want ns)" \
		covers 5 "${got:-0}" "${unsure:-0}" "$want"
	order=$(val "$WORK/a.tab" order)
	check "the CPU lanes come first, above every thread's ($order)" \
		sh -c "echo '$order' | grep -qE '^c+t+\$'"
	# the helper thread's last switch, after its exit: the kernel gives it pid and tid -1
	"$KPROF" script -i "$WORK/a.kprof" -F tid,event,trace >"$WORK/a.script" 2>/dev/null
	# (another event's sample of a dying task before any record named a task on its CPU stays
	# -1, as in perf: counted, not held to 0)
	got=$(awk '$1 == -1 || $1 == 4294967295 { unnamed++; if (/sched_switch/) uswitch++ }
		/sched_switch/ { for (i = 2; i <= NF; i++) if ($i ~ /^prev_pid=/) {
			n++; other += (substr($i, 10) != $1); dead += / prev_state=X /; break } }
		END { printf "%d %d %d %d %d", uswitch, n, other, dead, unnamed - uswitch }' "$WORK/a.script")
	set -- $got
	check "kprof script names every switching task: no sched_switch sample of tid -1, each its prev_pid's ($2 samples, $3 others, $4 of exited threads, $1 unnamed; $5 other samples of tid -1)" \
		sh -c "[ $1 -eq 0 ] && [ $2 -gt 0 ] && [ $3 -eq 0 ] && [ $4 -ge 1 ]"
	# the lanes of /bin/true, how many of them packed; all the packed lanes, in how many rows
	# (as many as overlap at once, at most: fewer than the lanes, as the trues follow each other)
	rows=$(python3 -c '
import sys, xml.etree.ElementTree as ET
g = [g for g in ET.parse(sys.argv[1]).getroot().iter("{http://www.w3.org/2000/svg}g")
     if "thread" in (g.get("class") or "").split()]
t = [x for x in g if x.get("data-name") == "true"]
p = [x for x in g if "packed" in x.get("class").split()]
print(len(t), sum(x in p for x in t), len(p), len({x.get("data-row") for x in p}))
' "$WORK/a.svg" 2>&1)
	set -- $rows
	check "the short-lived processes share rows: ${1:-no} lanes of /bin/true, ${2:-none} packed; ${3:-no} packed lanes in ${4:-no} rows" \
		sh -c "[ '${1:-0}' -ge 2 ] && [ '${2:-0}' = '${1:-0}' ] && [ '${4:-0}' -lt '${3:-0}' ]"
	# the bound, just under the picture's size: it merges
	size=$(wc -c <"$WORK/a.svg")
	max=$(awk -v s="$size" 'BEGIN { printf "%.3f", s * 0.99 / 1048576 }')
	bytes=$(awk -v m="$max" 'BEGIN { printf "%d", m * 1048576 }')
	"$KPROF" report -i "$WORK/a.kprof" --timeline --timeline-max "$max" -o "$WORK/b.svg" \
		2>"$WORK/b.err"
	rc=$? got=$(wc -c <"$WORK/b.svg" 2>/dev/null)
	svgtab "$WORK/b.svg" "$atid" >"$WORK/b.tab" 2>&1
	check "--timeline-max $max (MiB) under its $size bytes: said, and the picture kept under it by merging (exit status $rc, ${got:-no} bytes)" \
		sh -c "[ $rc -eq 0 ] && [ '${got:-0}' -gt 0 ] && [ '${got:-0}' -le $bytes ] &&
			grep -q 'would be over --timeline-max [0-9.]* MiB: .* merged' '$WORK/b.err' &&
			grep -q '<rect class=\"x\"' '$WORK/b.svg'"
	check "...with the same lanes, CPUs first ($(val "$WORK/b.tab" order))" \
		sh -c "[ '$(val "$WORK/b.tab" order)' = '$order' ] &&
			[ '$(val "$WORK/b.tab" threads)' = '$(val "$WORK/a.tab" threads)' ]"
else
	skips 9 "-a and sched:sched_switch need root"
fi


# --- the JavaScript, in headless Chromium ----------------------------------------------------
# chrome N FRAGMENT: load t.svg with the fragment; the DOM after the onload script ran goes to
# $WORK/domN, the console (with any uncaught error) to $WORK/consoleN
chrome() {
	timeout -k 5 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update --disable-sync \
		--disable-dev-shm-usage --user-data-dir="$WORK/chrome" --virtual-time-budget=2000 \
		--enable-logging=stderr --v=0 --window-size=1200,900 --dump-dom \
		"file://$WORK/t.svg#$2" >"$WORK/dom$1" 2>"$WORK/err$1"
	rc=$?
	grep "CONSOLE" "$WORK/err$1" >"$WORK/console$1"
	check "chromium loads t.svg#$2 (exit status $rc), no JavaScript error or console output" \
		sh -c "[ $rc -eq 0 ] && [ ! -s '$WORK/console$1' ]"
}
if ! command -v "$CHROMIUM" >/dev/null 2>&1; then
	skips 7 "chromium is not installed (contrib/setup.sh --check installs it)"
else
	chrome 1 "s=%5Enap%24"
	got=$(sed -n 's/.*id="matched"[^>]*>Matched: [^<]*blocked [0-9]* (\([0-9.]*\) ms).*/\1/p' "$WORK/dom1")
	want=$(val "$WORK/r.out" nap_ns)
	unsure=$(nostack "$WORK/t.tab")
	check "a search for ^nap\$ matches nap's blocked time, its clock's within 5% (${got:-none} ms, and ${unsure:-0} ns without a stack, $want ns)" \
		covers 5 "$(awk -v m="${got:-0}" 'BEGIN { printf "%.0f", m * 1e6 }')" "${unsure:-0}" "$want"
	x0=$(val "$WORK/t.tab" x0) pw=$(val "$WORK/t.tab" pw)
	# whole pixels: a mouse event's coordinates are
	x1=$(awk -v x="$x0" -v w="$pw" 'BEGIN { printf "%d", x + w / 4 }')
	x2=$(awk -v x="$x0" -v w="$pw" 'BEGIN { printf "%d", x + w / 2 }')
	chrome 2 "drag=$x1,$x2"
	# after the drag, the window is the time under x1 to the time under x2: a box inside it is
	# at x0 + (t - a) * pw / (b - a), a box wholly outside it hidden
	check "a drag from x $x1 to $x2 zooms there: boxes where their times put them, the rest hidden" \
		python3 - "$WORK/dom2" "$(val "$WORK/t.tab" span)" "$x0" "$pw" "$x1" "$x2" <<'EOF'
import re, sys
dom, span, x0, pw = open(sys.argv[1]).read(), float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
a, b = ((float(x) - x0) * span / pw for x in sys.argv[5:7])
ins = out = bad = 0
for m in re.finditer(r'<rect class="([coqk][^"]*)" data-t="(\d+)" data-d="(\d+)"[^>]*? x="([\d.]+)"', dom):
    cls, t, d, x = m.group(1).split(), int(m.group(2)), int(m.group(3)), float(m.group(4))
    if t > a and t + d < b:
        ins += 1
        bad += "hide" in cls or abs(x - (x0 + (t - a) * pw / (b - a))) > 1
    elif t + d < a or t > b:
        out += 1
        bad += "hide" not in cls
print("inside %d, outside %d, misplaced %d" % (ins, out, bad))
sys.exit(not (ins > 0 and out > 0 and bad == 0))
EOF
	check "...and shows the Reset Zoom button" \
		sh -c "grep -o '<text id=\"unzoom\"[^>]*>' '$WORK/dom2' | grep -qv 'hide'"
	# hovering the first blocked box of nap: its title in #details, naming nap and the wait
	n=$(tr '\n' ' ' <"$WORK/t.svg" | grep -o '<rect class="[coqkmu]"[^>]*>' |
		awk '/class="o"/ && /data-n="nap"/ { print NR - 1; exit }')
	chrome 3 "hover=$n"
	d=$(sed -n 's/.*<text id="details"[^>]*>\([^<]*\)<.*/\1/p' "$WORK/dom3")
	check "hovering nap's first blocked box shows what blocked and how long ($d)" \
		sh -c "echo '$d' | grep -q '^nap (blocked [0-9.]* ms, at [0-9.]* s): .*nap'"
fi
done_testing
