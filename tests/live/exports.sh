#!/bin/sh
# Live: the exports other tools open, read by those tools or against their formats, on a real
# recording of split, each held to what `kprof report` shows of the same file.
#  - speedscope: valid by the JSON schema the speedscope npm package ships (ajv); opened by
#    speedscope's own app, served on loopback, in headless Chromium: no error, and its
#    sandwich view's first function is work_a with the report's share of it (a screenshot is kept
#    in the build directory).
#  - Chrome trace events: speedscope's trace-event importer opens it the same way; per thread
#    no slice outlives its parent; process and thread names; µs of the recording's clock;
#    tracepoint samples as instants with their fields.
#  - Firefox (Gecko): neither Debian nor npm has the Firefox Profiler, so its structure is
#    held to the documented format (indices in range, prefixes before users, times in order),
#    and its sample count to the report's (that it streams is tests/unit/test-report.c's
#    check, by the allocator's count; its peak RSS is a row of the bench), and `kprof view
#    --once` is fetched over loopback with its CORS header.
# The npm packages are installed by contrib/setup.sh --check into $top_builddir/npm.
KPROF_PRIVATE_MOUNTS=1 # the tracepoint part may mount tracefs: keep that mount inside this test
. "$top_srcdir/tests/live/lib.sh"
require_perf_events
CHECK="$top_srcdir/tests/live/exports.cjs"
BUILD=$(cd "$top_builddir" && pwd)
NPM="$BUILD/npm"
CHROMIUM=${CHROMIUM:-chromium}
have_node=; command -v node >/dev/null 2>&1 && have_node=1
have_npm=; [ -n "$have_node" ] && [ -f "$NPM/node_modules/speedscope/dist/release/index.html" ] &&
	[ -d "$NPM/node_modules/ajv" ] && have_npm=1
have_chromium=; command -v "$CHROMIUM" >/dev/null 2>&1 && have_chromium=1
no_node="node is not installed (contrib/setup.sh --check installs nodejs)"
no_npm="the npm packages are not in $NPM (contrib/setup.sh --check runs npm ci there)"
no_chromium="chromium is not installed (contrib/setup.sh --check installs it)"

# val OUT KEY: the value of KEY= in a checker's output
val() { sed -n "s/^$2=//p" "$1" | head -1; }
# near GOT WANT POINTS
near() { awk -v g="$1" -v w="$2" -v t="$3" 'BEGIN { d = g - w; if (d < 0) d = -d
	exit !(g ~ /^-?[0-9.]+$/ && w ~ /^-?[0-9.]+$/ && d <= t) }'; }
# checker NAME MODE ARGS...: run exports.cjs, its output in $WORK/NAME.chk, pass if it is content
checker() {
	name=$1; shift
	node "$CHECK" "$@" >"$WORK/$name.chk" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then pass "$name: $1 reads it as its format says"
	else fail "$name: $1 reads it as its format says" "$(grep -m5 -v '=' "$WORK/$name.chk")"; fi
}

"$KPROF" record -g -o "$WORK/s.kprof" -- "$SPLIT" 1 >"$WORK/split.out" 2>"$WORK/record.err"
check "record split succeeds" [ $? -eq 0 ]
"$KPROF" report -i "$WORK/s.kprof" --flat --color never >"$WORK/flat" 2>/dev/null
# An export shows the profile the report shows: work_a's total share in `kprof report` of the
# same file is what each must give (to its rounding). That the recording holds split's own
# shares is record.sh's and report.sh's to check: on a busy machine it moves by points.
truth=$(total_of work_a "$WORK/flat")
nsamples=$(sed -n 's/^# kprof report of .*: \([0-9]*\) samples of.*/\1/p' "$WORK/flat")
"$KPROF" script -i "$WORK/s.kprof" >"$WORK/script" 2>/dev/null
pid=$(awk '{ print $2; exit }' "$WORK/script")
first_s=$(awk '{ t = $4; sub(/:$/, "", t); print t; exit }' "$WORK/script")

for f in speedscope chrome firefox; do
	"$KPROF" report -i "$WORK/s.kprof" --format $f -o "$WORK/s.$f" 2>"$WORK/$f.err"
	check "report --format $f -o FILE succeeds" [ $? -eq 0 ]
	check "...and leaves no temporary file beside it" \
		[ -z "$(find "$WORK" -maxdepth 1 -name ".s.$f.*")" ]
done
check "the firefox export is gzip-compressed" \
	[ "$(od -An -tx1 -N2 "$WORK/s.firefox" | tr -d ' ')" = 1f8b ]

# --- speedscope --------------------------------------------------------------------------------
if [ -n "$have_npm" ]; then
	checker speedscope-schema schema "$NPM" "$WORK/s.speedscope"
else
	skip "speedscope's schema: $no_npm"
fi
if [ -n "$have_node" ]; then
	checker speedscope speedscope "$WORK/s.speedscope" work_a
	got=$(val "$WORK/speedscope.chk" share)
	check "speedscope: work_a holds ${got:-none}% of the weights, the report's $truth%" \
		near "${got:-x}" "$truth" 0.1
	check "speedscope: a profile per thread, named 'comm (tid)' ($(val "$WORK/speedscope.chk" names))" \
		[ "$(val "$WORK/speedscope.chk" names)" = "split ($pid)" ]
else
	skips 3 "$no_node"
fi

# --- Chrome trace events -------------------------------------------------------------------------
if [ -n "$have_node" ]; then
	checker chrome chrome "$WORK/s.chrome" work_a
	c="$WORK/chrome.chk"
	check "chrome: $(val "$c" slices) slices on $(val "$c" threads) thread(s), none outliving its parent, $(val "$c" cut) cut in two" \
		eval '[ "$(val "$c" improper)" = 0 ] && [ "$(val "$c" cut)" = 0 ] && [ "$(val "$c" slices)" -gt 10 ]'
	got=$(val "$c" share)
	# a slice's time is its samples' intervals, cut at the next sample's time
	check "chrome: work_a's slices hold ${got:-none}% of the thread's time, the report's $truth% of its samples" \
		near "${got:-x}" "$truth" 0.5
	first_us=$(val "$c" first_us)
	check "chrome: timestamps are µs of the recording's clock (first ${first_us:-none} µs, kprof script's first sample at $first_s s)" \
		awk -v a="${first_us:-0}" -v b="$first_s" 'BEGIN { d = a / 1e6 - b; exit !(b > 0 && d < 1e-5 && d > -1e-5) }'
	cpu_us=$(awk -F= '$1 == "cpu_ns" { printf "%.0f", $2 / 1000 }' "$WORK/split.out")
	check "chrome: the thread's slices last $(val "$c" busy_us) µs, split ran $cpu_us µs of CPU (within 10%)" \
		within 10 "$(val "$c" busy_us)" "$cpu_us"
else
	skips 5 "$no_node"
fi

# --- Firefox's Gecko profile -----------------------------------------------------------------------
if [ -n "$have_node" ]; then
	checker gecko gecko "$WORK/s.firefox" work_a
	g="$WORK/gecko.chk"
	check "firefox: $(val "$g" samples) samples, the report's $nsamples" [ "$(val "$g" samples)" = "$nsamples" ]
	got=$(val "$g" share)
	check "firefox: work_a is on ${got:-none}% of the samples' stacks, the report's $truth%" \
		near "${got:-x}" "$truth" 0.1
	check "firefox: one thread, named 'comm (tid)' as the Gecko format does ($(val "$g" names))" \
		[ "$(val "$g" names)" = "split ($pid)" ]
	# every report filter applies: the first half of the samples' time
	last_s=$(awk '$4 ~ /:$/ { t = $4 } END { sub(/:$/, "", t); print t }' "$WORK/script")
	mid=$(awk -v a="$first_s" -v b="$last_s" 'BEGIN { printf "%.6f", (a + b) / 2 }')
	"$KPROF" report -i "$WORK/s.kprof" --format firefox --time ",$mid" -o "$WORK/half.firefox" 2>/dev/null
	node "$CHECK" gecko "$WORK/half.firefox" work_a >"$WORK/half.chk" 2>&1
	half=$(val "$WORK/half.chk" samples)
	# the report's own filter on the same file is the truth: how many samples fall in the first
	# half of the time depends on how much CPU split had then, which a busy machine moves
	want=$("$KPROF" report -i "$WORK/s.kprof" --flat --time ",$mid" 2>/dev/null |
		sed -n 's/^# kprof report of .*: \([0-9]*\) samples of.*/\1/p')
	check "firefox: --time ,$mid keeps the samples report --time keeps (${half:-none} and ${want:-none} of $nsamples)" \
		sh -c "[ -n '$half' ] && [ '$half' = '$want' ] && [ '$half' -gt 0 ] && [ '$half' -lt '$nsamples' ]"
else
	skips 5 "$no_node"
fi

# --- an empty profile: valid files and a notice ------------------------------------------------------
for f in speedscope chrome firefox; do
	"$KPROF" report -i "$WORK/s.kprof" --format $f --comm nosuchcommand -o "$WORK/e.$f" 2>"$WORK/e.$f.err"
	check "$f with no sample left: succeeds, saying the profile is empty" \
		sh -c "[ $? -eq 0 ] && grep -q 'has no samples of cpu-clock that pass the filters: the $f output is an empty profile' '$WORK/e.$f.err'"
done
"$KPROF" report -i "$WORK/s.kprof" --flat --tid 99999 >/dev/null 2>"$WORK/e.flat.err"
check "a text report with no sample left says so on stderr" \
	sh -c "[ $? -eq 0 ] && grep -q 'has no samples of cpu-clock that pass the filters: the flat output is an empty profile' '$WORK/e.flat.err'"
if [ -n "$have_node" ]; then
	node "$CHECK" speedscope "$WORK/e.speedscope" work_a >"$WORK/e1.chk" 2>&1 &&
		node "$CHECK" chrome "$WORK/e.chrome" work_a >"$WORK/e2.chk" 2>&1 &&
		node "$CHECK" gecko "$WORK/e.firefox" work_a >"$WORK/e3.chk" 2>&1
	check "...each a valid file of no profile, slice or thread" \
		eval '[ "$(val "$WORK/e1.chk" profiles)" = 0 ] && [ "$(val "$WORK/e2.chk" slices)" = 0 ] && [ "$(val "$WORK/e3.chk" threads)" = 0 ]'
	[ -n "$have_npm" ] && checker empty-schema schema "$NPM" "$WORK/e.speedscope"
	[ -n "$have_npm" ] || skip "the empty speedscope file's schema: $no_npm"
else
	skips 2 "$no_node"
fi

# --- in speedscope's own app, in headless Chromium -----------------------------------------------------
# open N FILE: the app, served with FILE from one loopback server, opens FILE in its sandwich
# view (functions by time); the DOM goes to $WORK/domN, the console to $WORK/consoleN
open_in_app() {
	n=$1 file=$2; shift 2
	cp "$file" "$SITE/p$n.json"
	url="http://127.0.0.1:$PORT/p$n.json"
	case "$*" in *--screenshot*) dom= ;; *) dom=1; set -- --dump-dom "$@" ;; esac
	# on a busy machine the page's 8 s of virtual time can pass before the import ends, and
	# the DOM has no table yet: the page is loaded again, up to three times, until it has one
	for try in 1 2 3; do
		timeout -k 5 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic \
			--no-first-run --disable-background-networking --disable-component-update \
			--disable-sync --disable-dev-shm-usage --user-data-dir="$WORK/chrome" \
			--virtual-time-budget=8000 --enable-logging=stderr --v=0 "$@" \
			"http://127.0.0.1:$PORT/index.html#profileURL=$(printf %s "$url" | sed 's|:|%3A|g; s|/|%2F|g')&view=sandwich" \
			>"$WORK/dom$n" 2>"$WORK/err$n"
		rc=$?
		[ -z "$dom" ] || [ -n "$(first_row "$WORK/dom$n")" ] && break
	done
	grep "CONSOLE" "$WORK/err$n" >"$WORK/console$n"
}
# first_row DOM: "NAME TOTAL%" of the sandwich table's first row (its first bar is the total,
# its second the self)
first_row() {
	sed 's/<tr/\n<tr/g' "$1" | grep -m1 '^<tr.*</td>' | awk '{
		w = $0; sub(/width: /, "\001", w); sub(/^[^\001]*\001/, "", w); sub(/%.*/, "", w)
		n = $0; sub(/<\/td><\/tr>.*/, "", n); sub(/.*<\/span>/, "", n)
		print n, w }'
}
# app_checks N WHAT IMPORTER: the app's first function is work_a with the report's share of it
app_checks() {
	n=$1 what=$2 want=$truth
	check "$what: chromium opens it in speedscope's app (exit status $rc)" [ $rc -eq 0 ]
	check "$what: the app imports it as $3" grep -q "Importing as $3" "$WORK/console$n"
	bad=$(grep -Ei "uncaught|error|failed|cannot|ignoring|tried to end" "$WORK/console$n" | head -2)
	check "$what: ...with no error on the console${bad:+ ($bad)}" [ -z "$bad" ]
	row=$(first_row "$WORK/dom$n")
	fn=${row% *} share=${row##* }
	check "$what: the app's first function is '${fn:-none}' with ${share:-no}% of the time, work_a with $want% in the report" \
		eval '[ "$fn" = work_a ] && near "${share:-x}" "$want" 0.1'
}
if [ -n "$have_npm" ] && [ -n "$have_chromium" ]; then
	SITE="$WORK/site"
	cp -r "$NPM/node_modules/speedscope/dist/release" "$SITE"
	node "$CHECK" serve "$SITE" >"$WORK/port" 2>&1 &
	server=$!
	i=0; while [ ! -s "$WORK/port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	PORT=$(cat "$WORK/port")
	open_in_app 1 "$WORK/s.speedscope"
	app_checks 1 speedscope "speedscope json file"
	open_in_app 2 "$WORK/s.chrome"
	app_checks 2 chrome "Trace Event Format profile"
	open_in_app 3 "$WORK/s.speedscope" --screenshot="$WORK/speedscope.png" --window-size=1200,800
	size=$(stat -c %s "$WORK/speedscope.png" 2>/dev/null || echo 0)
	check "a screenshot of the app with the profile ($size bytes, kept as $BUILD/tests/live/exports-speedscope.png)" \
		[ "$size" -gt 10240 ]
	mkdir -p "$BUILD/tests/live" && cp "$WORK/speedscope.png" "$BUILD/tests/live/exports-speedscope.png" 2>/dev/null
	kill "$server" 2>/dev/null
	wait "$server" 2>/dev/null
else
	skips 9 "speedscope's app in Chromium: ${have_npm:+$no_chromium}${have_npm:-$no_npm}"
fi

# --- tracepoints as Chrome instants -----------------------------------------------------------------------
GETUID="$top_builddir/tests/workloads/getuid"
if [ "$(id -u)" -ne 0 ]; then
	skips 2 "tracepoints need root here (tracefs is root-only)"
elif ! "$KPROF" record -e syscalls:sys_enter_getuid -o "$WORK/g.kprof" -- "$GETUID" 500 >/dev/null 2>"$WORK/g.err"; then
	skips 2 "tracepoints cannot be recorded here: $(grep -m1 kprof "$WORK/g.err")"
elif [ -z "$have_node" ]; then
	skips 2 "$no_node"
else
	"$KPROF" report -i "$WORK/g.kprof" --format chrome -o "$WORK/g.chrome" 2>/dev/null
	node "$CHECK" chrome "$WORK/g.chrome" getuid >"$WORK/g.chk" 2>&1
	check "chrome: a getuid tracepoint sample is an instant event: $(val "$WORK/g.chk" instants) of 500 calls" \
		[ "$(val "$WORK/g.chk" instants)" = 500 ]
	check "...each with its decoded fields in args" \
		sh -c "[ '$(val "$WORK/g.chk" instants_with_args)' = 500 ] && grep -q '\"__syscall_nr\":\"102\"' '$WORK/g.chrome'"
fi

# --- kprof view --once, fetched over loopback ----------------------------------------------------------
"$KPROF" view "$WORK/s.kprof" --once --no-browser >"$WORK/view.out" 2>"$WORK/view.err" &
viewer=$!
i=0; while ! grep -q "serving" "$WORK/view.err" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
url=$(sed -n 's|.*serving [0-9]* bytes at \(http://127\.0\.0\.1:[0-9]*/[0-9a-f]\{32\}/[^ ;]*\).*|\1|p' "$WORK/view.err")
check "kprof view serves on 127.0.0.1 at a random token path (${url:-none})" [ -n "$url" ]
enc=$(printf %s "$url" | sed 's|:|%3A|g; s|/|%2F|g')
check "...and prints the Firefox Profiler's from-url link to it" \
	grep -qx "https://profiler.firefox.com/from-url/$enc/" "$WORK/view.out"
if command -v curl >/dev/null 2>&1 && [ -n "$url" ]; then
	code=$(curl -s -o /dev/null -w %{http_code} "${url%/*/*}/0123456789abcdef0123456789abcdef/profile.json.gz")
	check "another token is not found ($code)" [ "$code" = 404 ]
	curl -s -D "$WORK/view.head" -o "$WORK/view.body" "$url"
	check "the download carries the CORS header the profiler's page needs" \
		grep -qi '^Access-Control-Allow-Origin: \*' "$WORK/view.head"
	check "...and is the firefox export of the same recording" cmp -s "$WORK/view.body" "$WORK/s.firefox"
	i=0; while kill -0 $viewer 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	check "--once ends kprof view after that download" sh -c "! kill -0 $viewer 2>/dev/null"
else
	skips 4 "curl is not installed"
fi
kill $viewer 2>/dev/null
wait $viewer
rc=$?
check "kprof view exits with status 0 ($rc)" [ $rc -eq 0 ]

done_testing
