#!/bin/sh
# Live: record --off-cpu on tests/workloads/waits, whose main thread spins, sleeps and blocks
# on a pipe for known times each round, timed by its own CLOCK_MONOTONIC: the off-CPU shares of
# nap and wait_pipe, and the wall-clock shares of all three (report --wall), within 5 points;
# with DWARF unwinding and with frame pointers, system-wide (-a), and as an unprivileged user;
# the intervals' ns in the folded stacks and the Chrome trace's slices, --stats, an interval
# still open when the recording ends (closed there, counted, not dropped), and --wall's
# refusal without off-CPU data.
# Waker stacks (record --off-cpu --wakers, root): the main thread's waits on the pipe joined,
# below a "--" frame, with the stack of the helper's answer() that wrote it, in 95% of them or
# more, in the folded, tree and SVG views; --stats counts the intervals without a recorded
# waker (the naps, woken by a timer interrupt the recording of the command does not see); -a
# records those too: nap woken by hrtimer_wakeup in 95% or more.
# The exports of a system-wide recording with sched:sched_switch (root): the Chrome trace's
# CPU tracks and the Firefox profile's CPU threads give the main thread its own clock's CPU
# time (no more, and with the stretches around a switch the kernel did not record no less),
# the Firefox profile's [blocked] markers its nap and wait_pipe time, each within 5%.
KPROF_PRIVATE_MOUNTS=1 # sched:sched_switch may mount tracefs: keep that mount inside this test
. "$top_srcdir/tests/live/lib.sh"
require_perf_events
CHECK="$top_srcdir/tests/live/exports.cjs"

WAITS="$top_builddir/tests/workloads/waits"
# truth OUT NAME [NAME...]: the share in % of the NAMEs' time among all of them, or of the
# whole wall time with --wall as NAME
truth() {
	out=$1; shift
	awk -F= -v names="$*" 'BEGIN { n = split(names, w, " ") }
		{ v[$1] = $2 } END {
			if (w[1] == "--wall") { f = w[2]; t = v["wall_ns"] }
			else { f = w[1]; t = 0; for (i = 1; i <= n; i++) t += v[w[i] "_ns"] }
			if (t > 0) printf "%.2f", 100 * v[f "_ns"] / t }' "$out"
}
# share FUNC FLAT: FUNC's total share in a --flat listing
share() { awk -v f="$1" '$NF == f { sub("%", "", $2); print $2; exit }' "$2"; }
tid_of() { sed -n 's/^tid=//p' "$1"; }
# val CHK KEY: the value of KEY= in an exports.cjs checker's output
val() { sed -n "s/^$2=//p" "$1" | head -1; }
# ns_of_ms MS: milliseconds (a float) as whole ns
ns_of_ms() { awk -v m="$1" 'BEGIN { if (m != "") printf "%.0f", m * 1e6 }'; }

# off_shares TAG FILE OUT: the off-CPU shares of nap and wait_pipe in the main thread
off_shares() {
	tag=$1 file=$2 out=$3 tid=$(tid_of "$3")
	"$KPROF" report -i "$file" --event offcpu --flat --tid "$tid" --color never >"$WORK/$tag.off" 2>"$WORK/$tag.off.err"
	for f in nap wait_pipe; do
		other=nap; [ $f = nap ] && other=wait_pipe
		got=$(share $f "$WORK/$tag.off") want=$(truth "$out" $f $other)
		check "$tag: $f holds $got% of the main thread's off-CPU time, its clock $want% (5 points)" \
			points "$got" "$want" 5
	done
}
# wall_shares TAG FILE OUT: the wall-clock shares of spin, nap and wait_pipe
wall_shares() {
	tag=$1 file=$2 out=$3 tid=$(tid_of "$3")
	"$KPROF" report -i "$file" --wall --flat --tid "$tid" --color never >"$WORK/$tag.wall" 2>"$WORK/$tag.wall.err"
	for f in spin nap wait_pipe; do
		got=$(share $f "$WORK/$tag.wall") want=$(truth "$out" --wall $f)
		check "$tag --wall: $f holds $got% of the main thread's wall time, its clock $want% (5 points)" \
			points "$got" "$want" 5
	done
}

"$KPROF" record --off-cpu --call-graph dwarf -o "$WORK/d.kprof" -- "$WAITS" >"$WORK/d.out" 2>"$WORK/d.err"
check "record --off-cpu --call-graph dwarf succeeds" [ $? -eq 0 ]
check "... and says how many switch records it took" grep -q "^kprof: off-CPU: [1-9][0-9]* switch records" "$WORK/d.err"
off_shares dwarf "$WORK/d.kprof" "$WORK/d.out"
wall_shares dwarf "$WORK/d.kprof" "$WORK/d.out"
check "the off-CPU header gives time in all" grep -q "samples of offcpu, .* in all" "$WORK/dwarf.off"
check "the flat view shows the self time" grep -q "self time" "$WORK/dwarf.off"
check "--wall names its event wall" grep -q "samples of wall, " "$WORK/dwarf.wall"

"$KPROF" report -i "$WORK/d.kprof" --event offcpu --folded --tid "$(tid_of "$WORK/d.out")" >"$WORK/d.folded" 2>/dev/null
total=$("$KPROF" report -i "$WORK/d.kprof" --event offcpu --stats --flat --tid "$(tid_of "$WORK/d.out")" 2>/dev/null |
	sed -n 's/^# off-CPU intervals: [0-9]* blocked (\([0-9.]*\) s).*/\1/p')
sum=$(awk '{ s += $NF } END { printf "%.3f", s / 1e9 }' "$WORK/d.folded")
check "the folded off-CPU weights are ns: $sum s, --stats' blocked time $total s" \
	awk -v a="$sum" -v b="$total" 'BEGIN { d = a - b; exit !(b > 0 && d < 0.002 && d > -0.002) }'
nap_ns=$(sed -n 's/^nap_ns=//p' "$WORK/d.out")
nap_folded=$(awk '/;nap;/ || / nap;/ { s += $NF } END { print s + 0 }' "$WORK/d.folded")
check "nap's folded ns are its clock's $nap_ns within 5% ($nap_folded)" within 5 "$nap_folded" "$nap_ns"
# --folded-unit: the same stacks with their ns as µs or ms (thousandths kept); refused for a
# profile that is not time, before anything is written
for u in us:1000 ms:1000000; do
	"$KPROF" report -i "$WORK/d.kprof" --event offcpu --folded --folded-unit ${u%%:*} \
		--tid "$(tid_of "$WORK/d.out")" >"$WORK/d.${u%%:*}" 2>/dev/null
	check "--folded-unit ${u%%:*}: the same stacks, each count its ns / ${u#*:}" awk -v d=${u#*:} '
		NR == FNR { ns[substr($0, 1, length($0) - length($NF))] = $NF; n++; next }
		{ k = substr($0, 1, length($0) - length($NF)); m++
		  if (!(k in ns) || ($NF - ns[k] / d > 0.0006 || ns[k] / d - $NF > 0.0006)) exit 1 }
		END { exit !(n > 0 && n == m) }' "$WORK/d.folded" "$WORK/d.${u%%:*}"
done
"$KPROF" report -i "$WORK/d.kprof" --event offcpu --folded --folded-unit s >"$WORK/fu.out" 2>"$WORK/fu.err"
check "--folded-unit s is a usage error naming the units ($?), nothing on stdout" sh -c \
	"[ $? -eq 2 ] && [ ! -s '$WORK/fu.out' ] && grep -qxF \"kprof report: bad --folded-unit 's' (known: ns, us, ms)\" '$WORK/fu.err'"
"$KPROF" report -i "$WORK/d.kprof" --event offcpu --weight samples --folded --folded-unit ms \
	-o "$WORK/fu.folded" 2>"$WORK/fu.err"
check "--folded-unit on a profile of samples is an error ($?) that says so, and no file" sh -c \
	"[ $? -eq 1 ] && [ ! -e '$WORK/fu.folded' ] && grep -qF \"kprof: --folded-unit ms: 'offcpu' is not a time profile (its counts are samples)\" '$WORK/fu.err'"

# the Chrome trace (Perfetto): each interval a slice of its length under its stack, with a
# "[blocked]" leaf; the slices of nap and wait_pipe, and the leaves, add up to the clocks
# chrome_ms JSON NAME: the sum of NAME's complete events' durations, in ms
chrome_ms() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print("%.3f" % (sum(e["dur"] for e in d["traceEvents"] if e["ph"] == "X" and e["name"] == sys.argv[2]) / 1000))' "$@"
}
for v in "offcpu|--event offcpu" "wall|--wall"; do
	"$KPROF" report -i "$WORK/d.kprof" ${v#*|} --format chrome --tid "$(tid_of "$WORK/d.out")" \
		-o "$WORK/d.${v%%|*}.json" 2>/dev/null
	for f in nap wait_pipe; do
		want=$(sed -n "s/^${f}_ns=//p" "$WORK/d.out") got=$(chrome_ms "$WORK/d.${v%%|*}.json" $f)
		check "chrome trace of ${v#*|}: $f's slices add up to its clock within 5% ($got ms, ${want} ns)" \
			within 5 "$(awk -v m="$got" 'BEGIN { printf "%.0f", m * 1e6 }')" "$want"
	done
	want=$(sed -n 's/^\(nap\|wait_pipe\)_ns=//p' "$WORK/d.out" | awk '{ s += $1 } END { print s }')
	got=$(chrome_ms "$WORK/d.${v%%|*}.json" "[blocked]")
	check "chrome trace of ${v#*|}: the [blocked] slices add up to nap's and wait_pipe's clocks within 5% ($got ms)" \
		within 5 "$(awk -v m="$got" 'BEGIN { printf "%.0f", m * 1e6 }')" "$want"
done
check "a [blocked] slice is of category offcpu and gives its wait in ns" python3 -c 'import json, sys
e = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("name") == "[blocked]"]
sys.exit(not (e and all(x["cat"] == "offcpu" and abs(x["args"]["wait_ns"] / 1000 - x["dur"]) < 1 for x in e)))' "$WORK/d.offcpu.json"

"$KPROF" report -i "$WORK/d.kprof" --event offcpu --flat --stats --tid "$(tid_of "$WORK/d.out")" >"$WORK/d.stats" 2>&1
check "--stats counts the main thread's 20 blocked intervals or more, none lost" \
	awk '/^# off-CPU intervals:/ { exit !($4 >= 20 && / without their stack 0,/) } END { if (!NR) exit 1 }' "$WORK/d.stats"

wakers=; [ "$(id -u)" -eq 0 ] && wakers=--wakers # sched:sched_waking is a tracepoint: root's
"$KPROF" record --off-cpu $wakers -g -o "$WORK/g.kprof" -- "$WAITS" >"$WORK/g.out" 2>/dev/null
check "record --off-cpu $wakers -g succeeds" [ $? -eq 0 ]
off_shares -g "$WORK/g.kprof" "$WORK/g.out"

# woken FOLDED BLOCKED WAKER: "N M", the intervals (--weight samples) whose blocked stack, the
# part before "--", names BLOCKED, and of those the ones whose waker's stack names WAKER
woken() {
	awk -v b="$2" -v w="$3" '{ c = $NF; sub(/ [0-9]+$/, ""); i = index($0, ";--;")
		if (!i || index(substr($0, 1, i), ";" b ";") == 0) next
		n += c; if (index(substr($0, i + 3) ";", ";" w ";")) m += c }
		END { print n + 0, m + 0 }' "$1"
}
# most N M: M is 95% of N or more, and N at least the workload's 10 rounds
most() { awk -v n="$1" -v m="$2" 'BEGIN { exit !(n >= 10 && m * 100 >= 95 * n) }'; }
if [ -n "$wakers" ]; then
	tid=$(tid_of "$WORK/g.out")
	"$KPROF" report -i "$WORK/g.kprof" --event offcpu --wakers --folded --weight samples \
		--tid "$tid" >"$WORK/g.wakers" 2>"$WORK/g.wakers.err"
	nm=$(woken "$WORK/g.wakers" wait_pipe answer)
	check "--wakers: ${nm#* } of the main thread's ${nm% *} waits on the pipe woken by the helper's answer() (95%)" \
		most ${nm% *} ${nm#* }
	check "... as offwaketime folds them: blocked stack from its root, --, the waker's from its leaf to its comm" \
		grep -q '^waits;.*;main;wait_pipe;.*;schedule;--;try_to_wake_up;.*;answer;helper;start_thread;waits [0-9]*$' "$WORK/g.wakers"
	check "... every blocked interval has one -- frame, and a waker or [waker not recorded] above it" \
		awk '{ if (gsub(/;--;/, "&") != 1) exit 1 } END { exit !NR }' "$WORK/g.wakers"
	"$KPROF" report -i "$WORK/g.kprof" --event offcpu --wakers --stats --flat --tid "$tid" >"$WORK/g.wstats" 2>&1
	blocked=$(awk '/^# off-CPU intervals:/ { print $4 }' "$WORK/g.wstats")
	ww=$(sed -n 's/^# wakers: \([0-9]*\) blocked intervals .*, \([0-9]*\) without a recorded waker .*/\1 \2/p' "$WORK/g.wstats")
	w=${ww% *} nw=${ww#* }
	check "--stats: ${w:-no} intervals with their waker, ${nw:-no} without (the naps' timer interrupts: 10 or more), of ${blocked:-no} blocked" \
		sh -c "[ '${w:-0}' -ge 10 ] && [ '${nw:-0}' -ge 10 ] && [ \$(( ${w:-0} + ${nw:-0} )) -le '${blocked:-0}' ]"
	"$KPROF" report -i "$WORK/g.kprof" --event offcpu --wakers --tid "$tid" --color never >"$WORK/g.wtree" 2>/dev/null
	check "--wakers --tree: answer in the subtree of a -- frame in wait_pipe's" awk '
		!match($0, /[|`]- /) { next } { d = RSTART; n = substr($0, RSTART + 3) }
		at && d <= at { at = sep = 0 } n == "wait_pipe" { at = d; next }
		at && n == "--" { sep = d } at && sep && d > sep && n == "answer" { ok = 1 }
		END { exit !ok }' "$WORK/g.wtree"
	"$KPROF" report -i "$WORK/g.kprof" --event offcpu --wakers --svg --tid "$tid" -o "$WORK/g.wakers.svg" 2>/dev/null
	check "--wakers --svg: the -- frames and answer() in the flame graph" \
		sh -c "grep -q '<title>-- (' '$WORK/g.wakers.svg' && grep -q '<title>answer (' '$WORK/g.wakers.svg'"
	"$KPROF" report -i "$WORK/d.kprof" --event offcpu --wakers >"$WORK/nowakers" 2>"$WORK/nowakers.err"
	check "--wakers of a recording without them fails (status $?), naming what it needs" \
		sh -c "[ $? -eq 1 ] && [ ! -s '$WORK/nowakers' ] && grep -q 'sched:sched_waking' '$WORK/nowakers.err' && grep -q 'hint: record with: kprof record --off-cpu --wakers' '$WORK/nowakers.err'"
else
	skips 7 "--wakers needs root (sched:sched_waking)"
fi

# cpu_exports FILE OUT: the Chrome trace and the Firefox profile of FILE, a system-wide
# recording with sched:sched_switch of the workload that wrote OUT, run as $ODD_COMM
cpu_exports() {
	file=$1 out=$2 tid=$(tid_of "$2")
	cpu_ns=$(sed -n 's/^cpu_ns=//p' "$out")
	off_ns=$(sed -n 's/^\(nap\|wait_pipe\)_ns=//p' "$out" | awk '{ s += $1 } END { print s }')
	"$KPROF" report -i "$file" --format chrome -o "$WORK/cpu.chrome" 2>/dev/null
	"$KPROF" report -i "$file" --format firefox -o "$WORK/cpu.firefox" 2>/dev/null
	c="$WORK/cpus.chk" g="$WORK/markers.chk" w="$WORK/whole.chk"
	node "$CHECK" cpus "$WORK/cpu.chrome" >"$c" 2>&1
	rc=$?
	check "chrome: $(val "$c" tracks) CPU tracks in a process CPUs, named and sorted by CPU, $(val "$c" cpu_slices) slices, $(val "$c" overlaps) overlapping" \
		sh -c "[ $rc -eq 0 ] && [ '$(val "$c" tracks)' -ge 1 ] && [ '$(val "$c" overlaps)' = 0 ]"
	got=$(val "$c" "task_us.$tid") unsure=$(val "$c" "unsure_us.$tid")
	check "chrome: the CPU tracks give the main thread ${got:-no} µs (and ${unsure:-0} µs around a switch not recorded), its clock's CPU time $cpu_ns ns (5%)" \
		covers 5 "$(awk -v u="$got" 'BEGIN { if (u != "") printf "%.0f", u * 1000 }')" \
		"$(awk -v u="${unsure:-0}" 'BEGIN { printf "%.0f", u * 1000 }')" "$cpu_ns"
	check "chrome: its slices are named by its command, quote and backslash escaped ($(val "$c" "task_names.$tid"))" \
		has_name "$c" "$tid"
	node "$CHECK" chrome "$WORK/cpu.chrome" spin >"$w" 2>&1
	rc=$?
	check "chrome: the whole trace nests, CPU tracks and all ($(val "$w" improper) improper, $(val "$w" cut) cut)" \
		sh -c "[ $rc -eq 0 ] && [ '$(val "$w" improper)' = 0 ]"
	node "$CHECK" markers "$WORK/cpu.firefox" >"$g" 2>&1
	rc=$?
	check "firefox: $(val "$g" markers) markers, each an interval of a declared type that ends after it starts" \
		sh -c "[ $rc -eq 0 ] && [ '$(val "$g" markers)' -gt 0 ]"
	got=$(val "$g" "blocked_ms.$tid")
	check "firefox: the main thread's [blocked] markers last ${got:-no} ms, its nap and wait_pipe $off_ns ns (5%)" \
		within 5 "$(ns_of_ms "$got")" "$off_ns"
	got=$(val "$g" "task_ms.$tid") unsure=$(val "$g" "unsure_ms.$tid")
	check "firefox: the $(val "$g" cpu_threads) CPU threads give the main thread ${got:-no} ms (and ${unsure:-0} ms around a switch not recorded), its CPU time $cpu_ns ns (5%)" \
		covers 5 "$(ns_of_ms "$got")" "$(ns_of_ms "${unsure:-0}")" "$cpu_ns"
	check "firefox: their markers are named by its command ($(val "$g" "task_names.$tid"))" \
		has_name "$g" "$tid"
	want=$("$KPROF" report -i "$file" --flat 2>/dev/null |
		sed -n 's/^# kprof report of .*: \([0-9]*\) samples of cpu-clock.*/\1/p' | head -1)
	check "firefox: $(val "$g" samples) samples, the report's $want of cpu-clock (markers are no samples)" \
		[ "$(val "$g" samples)" = "$want" ]
}
# has_name CHK TID: the task TID ran under the name $ODD_COMM, by the checker CHK
has_name() { printf '|%s|' "$(val "$1" "task_names.$2")" | grep -qF "|$ODD_COMM|"; }

if [ "$(id -u)" -eq 0 ]; then
	"$KPROF" record -a --off-cpu --wakers -g -o "$WORK/a.kprof" -- "$WAITS" >"$WORK/a.out" 2>/dev/null
	check "record -a --off-cpu --wakers -g succeeds (per-CPU switch records)" [ $? -eq 0 ]
	off_shares -a "$WORK/a.kprof" "$WORK/a.out"
	"$KPROF" report -i "$WORK/a.kprof" --event offcpu --wakers --folded --weight samples \
		--tid "$(tid_of "$WORK/a.out")" >"$WORK/a.wakers" 2>/dev/null
	nm=$(woken "$WORK/a.wakers" nap hrtimer_wakeup)
	check "-a --wakers: ${nm#* } of the main thread's ${nm% *} naps woken by the timer's interrupt, hrtimer_wakeup (95%)" \
		most ${nm% *} ${nm#* }
	# the workload under a name with a quote and a backslash, which sched_switch's comm
	# fields carry into the JSON files
	ODD_COMM='wa"it\s'
	cp "$WAITS" "$WORK/$ODD_COMM"
	"$KPROF" record -a --off-cpu -g -e cpu-clock -e sched:sched_switch -o "$WORK/cpu.kprof" \
		-- "$WORK/$ODD_COMM" >"$WORK/cpu.out" 2>"$WORK/cpu.err"
	rc=$?
	check "record -a --off-cpu -g -e cpu-clock -e sched:sched_switch succeeds ($rc)" [ $rc -eq 0 ]
	if command -v node >/dev/null 2>&1; then
		cpu_exports "$WORK/cpu.kprof" "$WORK/cpu.out"
	else
		skips 9 "node is not installed (contrib/setup.sh --check installs nodejs)"
	fi
else
	skips 14 "-a needs root"
fi

# an interval open when the recording stops: closed at its end, counted. The shell attached to
# blocks in wait4 for each of its sleeps, and is blocked there when --duration ends.
sh -c 'while :; do sleep 0.3; done' &
loop=$!
"$KPROF" record --off-cpu -g --duration 0.5 -p "$loop" -o "$WORK/e.kprof" >/dev/null 2>"$WORK/e.err"
kill "$loop"
"$KPROF" report -i "$WORK/e.kprof" --event offcpu --flat --stats --pid "$loop" >"$WORK/e.stats" 2>&1
check "a shell still blocked when the recording ends is closed there and counted" \
	grep -q "at the end of the recording [1-9]" "$WORK/e.stats"
blocked=$(sed -n 's/^# off-CPU intervals: [0-9]* blocked (\([0-9.]*\) s).*/\1/p' "$WORK/e.stats")
check "... its time within the recording's 0.5 s, not more ($blocked s)" \
	awk -v b="$blocked" 'BEGIN { exit !(b > 0.1 && b <= 0.6) }'
"$KPROF" record --off-cpu --duration 0.3 -o "$WORK/d2.kprof" -- sleep 5 >/dev/null 2>&1
check "--duration with a command ends the recording once the command has ended (status $?)" \
	[ -s "$WORK/d2.kprof" ]

"$KPROF" record -g -o "$WORK/plain.kprof" -- "$WAITS" 2 >/dev/null 2>&1
"$KPROF" report -i "$WORK/plain.kprof" --wall >"$WORK/nowall" 2>"$WORK/nowall.err"
check "--wall without off-CPU data fails (status $?) saying why" \
	sh -c "[ -s '$WORK/nowall.err' ] && grep -q 'cannot give a wall-clock profile' '$WORK/nowall.err' && grep -q 'record --off-cpu' '$WORK/nowall.err' && [ ! -s '$WORK/nowall' ]"

# --- an unprivileged user: one's own processes need no privilege ---------------------------
if temp_user 3 "$WAITS"; then
	as_user "$user" "$UNPRIV/kprof" record --off-cpu -g -o "$UNPRIV/out/u.kprof" -- "$UNPRIV/waits" \
		>"$WORK/u.out" 2>"$WORK/u.err"
	rc=$?
	cp "$UNPRIV/out/u.kprof" "$WORK/u.kprof" 2>/dev/null
	check "unprivileged: record --off-cpu -g succeeds ($rc)" sh -c "[ $rc -eq 0 ] && [ -s '$WORK/u.kprof' ]"
	if [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 2 ]; then
		# switch-outs happen in the kernel, which this user may not sample: the
		# switch records still time the intervals
		check "... saying that the switch-outs have no stacks in user space only" \
			grep -q "switch-outs cannot be sampled in user space only" "$WORK/u.err"
		tid=$(tid_of "$WORK/u.out")
		"$KPROF" report -i "$WORK/u.kprof" --event offcpu --flat --tid "$tid" --color never >"$WORK/u.off" 2>/dev/null
		got=$(awk '$NF == "stack]" { print $3; exit }' "$WORK/u.off")
		want=$(awk -F= '{ v[$1] = $2 } END { printf "%.3f", (v["nap_ns"] + v["wait_pipe_ns"]) / 1e6 }' "$WORK/u.out")
		check "... the main thread's off-CPU time is its clocks' nap and wait_pipe: $got ms of $want ms (5%)" \
			within 5 "$got" "$want"
	else
		off_shares unprivileged "$WORK/u.kprof" "$WORK/u.out"
	fi
	userdel "$user" 2>/dev/null
fi

done_testing
