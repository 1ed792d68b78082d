#!/bin/sh
# Live: the SVG flame graph's JavaScript (report/views/flamegraph.js) in a real browser, headless
# Chromium: a search given in the URL fragment against the share computed from the file
# itself, a zoom by a real click event (the #click= test hook), the fragment surviving a
# reload, bad fragments, and a screenshot.
#   KPROF_BROWSER_SVG=FILE  test FILE instead of recording split (for work on the JS alone)
#   CHROMIUM=PROGRAM        the browser (default: chromium)
#   KPROF_BROWSER_KEEP=DIR  copy the SVG and the screenshot there
. "$top_srcdir/tests/live/lib.sh"
CHROMIUM=${CHROMIUM:-chromium}
command -v "$CHROMIUM" >/dev/null 2>&1 ||
	skip_all "chromium is not installed (contrib/setup.sh --check installs it)"

SVG="$WORK/fg.svg"
if [ -n "${KPROF_BROWSER_SVG:-}" ]; then
	echo "# testing $KPROF_BROWSER_SVG (KPROF_BROWSER_SVG) instead of a recording"
	cp "$KPROF_BROWSER_SVG" "$SVG"
else
	require_perf_events
	"$KPROF" record -g -o "$WORK/s.kprof" -- "$SPLIT" 1 >/dev/null 2>"$WORK/record.err"
	check "record split succeeds" [ $? -eq 0 ]
	"$KPROF" report -i "$WORK/s.kprof" --svg -o "$SVG" 2>"$WORK/svg.err"
	check "report --svg succeeds" [ $? -eq 0 ]
fi
check "the SVG is written and non-empty" [ -s "$SVG" ]

# chrome N URL-FRAGMENT [FLAGS...]: load the SVG with the fragment; the DOM after the onload
# script ran goes to $WORK/domN (unless FLAGS ask for a screenshot), the console (with any
# uncaught error) to $WORK/consoleN.
chrome() {
	n=$1 frag=$2; shift 2
	case "$*" in *--screenshot*) ;; *) set -- --dump-dom "$@" ;; esac
	timeout -k 5 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update --disable-sync \
		--disable-dev-shm-usage --user-data-dir="$WORK/chrome" --virtual-time-budget=2000 \
		--enable-logging=stderr --v=0 "$@" "file://$SVG#$frag" >"$WORK/dom$n" 2>"$WORK/err$n"
	rc=$?
	grep "CONSOLE" "$WORK/err$n" >"$WORK/console$n"
	check "chromium loads fg.svg#$frag (exit status $rc)" [ $rc -eq 0 ]
	if [ -s "$WORK/console$n" ]; then
		fail "...with no JavaScript error or console output" "$(head -3 "$WORK/console$n")"
	else
		pass "...with no JavaScript error or console output"
	fi
}

# table FILE: one line per item of an SVG file or dumped DOM, tab-separated:
#   S  width xpad total                                         the <svg>
#   T  id class text                                             a <text> with an id
#   F  id data-x data-v data-d data-p class rect-x rect-width box-text name rect-fill   a frame
# (one tag a line first; the script is dropped; names are XML-unescaped)
table() {
	tr '\n' ' ' <"$1" | sed -e 's/<script.*<\/script>//' -e 's/</\n</g' | awk '
	function attr(s, a) {
		if (!match(s, "[ \t]" a "=\"[^\"]*\"")) return ""
		return substr(s, RSTART + length(a) + 3, RLENGTH - length(a) - 4)
	}
	function body(s) { sub(/^[^>]*>/, "", s); sub(/[ \t]+$/, "", s); return s }
	function unxml(s) {
		gsub(/&lt;/, "<", s); gsub(/&gt;/, ">", s); gsub(/&quot;/, "\"", s)
		gsub(/&apos;/, "\047", s); gsub(/&amp;/, "\\&", s); return s
	}
	function name(t,   i, j) {	# everything before the last " ("
		for (i = 0; (j = index(substr(t, i + 1), " (")) > 0; ) i += j
		return i ? substr(t, 1, i - 1) : t
	}
	BEGIN { OFS = "\t" }
	/^<svg[ \t]/ { print "S", attr($0, "width"), attr($0, "data-xpad"), attr($0, "data-total") }
	/^<g[ \t]/ && (" " attr($0, "class") " ") ~ / f / {
		id = attr($0, "id"); x = attr($0, "data-x"); v = attr($0, "data-v")
		d = attr($0, "data-d"); p = attr($0, "data-p"); cls = attr($0, "class")
		title = rx = rw = fill = txt = ""; inframe = 1; next
	}
	inframe && /^<title>/ { title = unxml(body($0)) }
	inframe && /^<rect[ \t]/ && rx == "" {
		rx = attr($0, "x"); rw = attr($0, "width"); fill = attr($0, "fill")
	}
	inframe && /^<text[ \t>]/ { txt = unxml(body($0)) }
	inframe && /^<\/g>/ { print "F", id, x, v, d, p, cls, rx, rw, txt, name(title), fill; inframe = 0 }
	!inframe && /^<text[ \t]/ && attr($0, "id") != "" {
		print "T", attr($0, "id"), attr($0, "class"), unxml(body($0))
	}'
}
# field TABLE KIND KEY COLUMN: COLUMN of the first KIND line whose second field is KEY
field() { awk -F '\t' -v k="$2" -v id="$3" -v c="$4" '$1 == k && $2 == id { print $c; exit }' "$1"; }
# near GOT WANT TOLERANCE: |GOT - WANT| <= TOLERANCE, both numbers
near() { awk -v g="$1" -v w="$2" -v t="$3" 'BEGIN { d = g - w; if (d < 0) d = -d
	exit !(g ~ /^-?[0-9.]+$/ && w ~ /^-?[0-9.]+$/ && d <= t + 1e-9) }'; }
# hidden CLASS: the class list has "hide"
hidden() { case " $1 " in *" hide "*) return 0 ;; *) return 1 ;; esac; }
# spans X WIDTH [CLASS]: a box across the full width (within 1 px) that is not hidden
spans() { near "${1:-x}" "$XPAD" 1 && near "${2:-x}" "$FULL" 1 && ! hidden "$3"; }
# has TABLE KIND ID: the table has that line
has() { [ -n "$(awk -F '\t' -v k="$2" -v id="$3" '$1 == k && $2 == id { print "y"; exit }' "$1")" ]; }
# is_png FILE: FILE starts as a PNG does
is_png() { [ "$(head -c 4 "$1" | tail -c 3)" = PNG ]; }

# --- what the file says, read independently of the JavaScript ---------------------------------
table "$SVG" >"$WORK/svg.tab"
W=$(awk -F '\t' '$1 == "S" { print $2; exit }' "$WORK/svg.tab")
XPAD=$(awk -F '\t' '$1 == "S" { print $3; exit }' "$WORK/svg.tab")
TOTAL=$(awk -F '\t' '$1 == "S" { print $4; exit }' "$WORK/svg.tab")
NFRAMES=$(grep -c '^F' "$WORK/svg.tab")
check "the SVG has its size, pad and total (width ${W:-none}, xpad ${XPAD:-none}, total ${TOTAL:-none})" \
	awk -v w="$W" -v x="$XPAD" -v t="$TOTAL" 'BEGIN { exit !(w > 2 * x && x != "" && t > 0) }'
check "the SVG has frames ($NFRAMES)" [ "$NFRAMES" -gt 3 ]
FULL=$(awk -v w="$W" -v x="$XPAD" 'BEGIN { print w - 2 * x }')

# the expected share of /work_a/: matched frames' widths, a match under a match counted once
want=$(awk -F '\t' -v t="$TOTAL" '
	$1 == "F" { par[$2] = $6; v[$2] = $4; if ($11 ~ /work_a/) hit[$2] = 1 }
	END {
		for (id in hit) {
			for (a = par[id]; a != "" && !(a in hit); a = par[a]) ;
			if (a == "") sum += v[id]
		}
		if (t > 0) printf "%.1f", 100 * sum / t
	}' "$WORK/svg.tab")
check "work_a frames hold a share of the graph (${want:-none}% by the file)" \
	awk -v w="${want:-0}" 'BEGIN { exit !(w > 0) }'

# the work_a frame under via_left, its parent, and the frames outside it
FID=$(awk -F '\t' '$1 == "F" { nm[$2] = $11; if ($11 == "work_a") cand[$2] = $6 }
	END { for (id in cand) if (nm[cand[id]] == "via_left") { print id; exit } }' "$WORK/svg.tab")
check "the SVG has a work_a frame under via_left (${FID:-none})" [ -n "$FID" ]
PID=$(field "$WORK/svg.tab" F "$FID" 6)
OUTSIDE=$(awk -F '\t' '$1 == "F" && ($11 == "work_b" || $11 == "via_right") { printf "%s ", $2 }' \
	"$WORK/svg.tab")
check "the SVG has work_b and via_right frames (${OUTSIDE:-none})" [ -n "$OUTSIDE" ]

# --- search from the fragment -------------------------------------------------------------------
chrome 1 "s=work_a"
table "$WORK/dom1" >"$WORK/dom1.tab"
check "the dumped DOM holds the graph ($(grep -c '^F' "$WORK/dom1.tab") of $NFRAMES frames)" \
	[ "$(grep -c '^F' "$WORK/dom1.tab")" -eq "$NFRAMES" ]
matched=$(field "$WORK/dom1.tab" T matched 4)
got=$(echo "$matched" | sed -n 's/^Matched: \([0-9.]*\)%$/\1/p')
check "#matched says '$matched', the file says $want% (within 0.1)" near "${got:-x}" "${want:-y}" 0.1
check "#search offers 'Reset Search' while a search is on" \
	[ "$(field "$WORK/dom1.tab" T search 4)" = "Reset Search" ]
bad=$(awk -F '\t' '$1 == "F" && (($11 ~ /work_a/) != ($12 == "rgb(230,0,230)")) { printf "%s ", $2 }' \
	"$WORK/dom1.tab")
n=$(awk -F '\t' '$1 == "F" && $12 == "rgb(230,0,230)"' "$WORK/dom1.tab" | wc -l)
check "exactly the frames matching /work_a/ are purple ($n purple; wrong: ${bad:-none})" \
	eval '[ -z "$bad" ] && [ "$n" -gt 0 ]'

# --- a real click event on the work_a frame under via_left --------------------------------------
check_zoomed() {	# check_zoomed TAB HOW
	tab=$1 cls=$(field "$1" T unzoom 3)
	check "$2: #unzoom is shown (class '$cls')" eval 'has "$tab" T unzoom && ! hidden "$cls"'
	x=$(field "$1" F "$FID" 8) w=$(field "$1" F "$FID" 9) c=$(field "$1" F "$FID" 7)
	check "$2: the clicked $FID is shown across the width (x ${x:-none} ~ $XPAD, width ${w:-none} ~ $FULL, class '$c')" \
		spans "$x" "$w" "$c"
	check "$2: its label is the full name ('$(field "$1" F "$FID" 10)')" \
		[ "$(field "$1" F "$FID" 10)" = "work_a" ]
	x=$(field "$1" F "$PID" 8) w=$(field "$1" F "$PID" 9) c=$(field "$1" F "$PID" 7)
	check "$2: its parent via_left ($PID) stays, stretched (x ${x:-none}, width ${w:-none}, class '$c')" \
		spans "$x" "$w" "$c"
	for id in $OUTSIDE; do
		c=$(field "$1" F "$id" 7)
		check "$2: $(field "$1" F "$id" 11) ($id), outside it, is hidden (class '$c')" hidden "$c"
	done
}
chrome 2 "click=$FID"
table "$WORK/dom2" >"$WORK/dom2.tab"
check "the dumped DOM holds the graph ($(grep -c '^F' "$WORK/dom2.tab") of $NFRAMES frames)" \
	[ "$(grep -c '^F' "$WORK/dom2.tab")" -eq "$NFRAMES" ]
check_zoomed "$WORK/dom2.tab" "click"

# --- the zoom as a reload finds it in the fragment ----------------------------------------------
chrome 3 "x=$FID"
table "$WORK/dom3" >"$WORK/dom3.tab"
check_zoomed "$WORK/dom3.tab" "reload with #x=$FID"

# --- bad fragments: an unknown frame is ignored, a bad regex is reported ------------------------
chrome 4 "x=f999999999&s=%28"
table "$WORK/dom4" >"$WORK/dom4.tab"
check "an unknown frame in #x= leaves the graph unzoomed" \
	hidden "$(field "$WORK/dom4.tab" T unzoom 3)"
check "an invalid regex says so ('$(field "$WORK/dom4.tab" T matched 4)')" \
	[ "$(field "$WORK/dom4.tab" T matched 4)" = "Matched: invalid regex" ]

# --- a screenshot of the search and zoom together -----------------------------------------------
chrome 5 "s=work_a&click=$FID" --screenshot="$WORK/fg.png" --window-size=1200,800
size=$(stat -c %s "$WORK/fg.png" 2>/dev/null || echo 0)
# 1200x800: a blank page is about 4.5 KB, the boxes without any font 7 KB, this graph 15 KB
# (chromium always brings a font: libfontconfig1 needs fontconfig-config, which needs one)
check "the screenshot is a PNG of over 10 KB ($size bytes)" eval '[ "$size" -gt 10240 ] && is_png "$WORK/fg.png"'
[ -n "${KPROF_BROWSER_KEEP:-}" ] && cp "$WORK/fg.png" "$WORK/fg.svg" "$KPROF_BROWSER_KEEP/"

done_testing
