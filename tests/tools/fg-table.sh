#!/bin/sh
# fg-table.sh SVG - the frame table of a flame graph, flamegraph.pl's or kprof's, one line per
# frame, tab-separated, names XML-unescaped:
#   S  width height title                                   the image
#   F  depth x width fill samples name label title           a frame
# Depth is counted from the root by the frames' y; the frames are sorted by depth, then x, then
# title, so that two tables compare line by line.
[ $# -eq 1 ] || { echo "usage: fg-table.sh SVG" >&2; exit 2; }
export LC_ALL=C
tr '\n' ' ' <"$1" | sed 's/</\n</g' | awk '
function attr(s, a) {
	if (!match(s, "[ \t]" a "=\"[^\"]*\"")) return ""
	return substr(s, RSTART + length(a) + 3, RLENGTH - length(a) - 4)
}
function body(s) { sub(/^[^>]*>/, "", s); return s }
function unxml(s) {
	gsub(/&lt;/, "<", s); gsub(/&gt;/, ">", s); gsub(/&quot;/, "\"", s)
	gsub(/&apos;/, "\047", s); gsub(/&amp;/, "\\&", s); return s
}
function lastparen(t,   i, j) { for (i = 0; (j = index(substr(t, i + 1), " (")) > 0; ) i += j; return i }
BEGIN { OFS = "\t" }
/^<svg[ \t]/ { W = attr($0, "width"); H = attr($0, "height") }
/^<text[ \t]/ && attr($0, "id") == "title" { T = unxml(body($0)) }
/^<g[ \t>]/ && attr($0, "id") != "frames" { inframe = 1; title = rx = rw = fill = txt = ""; next }
inframe && /^<title>/ { title = unxml(body($0)) }
inframe && /^<rect[ \t]/ && rx == "" { rx = attr($0, "x"); rw = attr($0, "width"); fill = attr($0, "fill"); ry = attr($0, "y") }
inframe && /^<text[ \t>]/ { txt = unxml(body($0)) }
inframe && /^<\/g>/ {
	i = lastparen(title); s = substr(title, i + 2); sub(/ .*/, "", s)
	row[++n] = rx OFS rw OFS fill OFS s OFS (i ? substr(title, 1, i - 1) : title) OFS txt OFS title
	y[n] = ry + 0; ys[ry + 0] = 1; inframe = 0
	if (title ~ /^all \(.*, 100%(\)|;)/) rooty = ry + 0
}
END {
	print "S", W, H, T
	for (v in ys) {	# the ys between the root and v, v included
		r = 0; lo = v + 0 < rooty ? v + 0 : rooty; hi = v + 0 < rooty ? rooty : v + 0
		for (u in ys) if (u + 0 != rooty && u + 0 >= lo && u + 0 <= hi) r++
		rank[v] = r
	}
	for (i = 1; i <= n; i++) print "F", rank[y[i]], row[i]
}' | sort -t "$(printf '\t')" -k1,1r -k2,2n -k3,3n -k9,9
