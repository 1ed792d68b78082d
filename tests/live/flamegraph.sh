#!/bin/sh
# Live: the same workload through perf's pipeline (perf script, collapsed to folded stacks,
# rendered by kprof flamegraph) and through kprof (record, report --svg) gives the same frames
# with the same shares, within sampling noise.
. "$top_srcdir/tests/live/lib.sh"
require_perf_events
[ -n "$PERF" ] || skip_all "perf is not installed (the Debian package linux-perf)"

"$PERF" record -g -o "$WORK/p.data" -- "$SPLIT" 1 >/dev/null 2>&1 ||
	skip_all "perf record cannot record here"
# perf script's frames, leaf first under each sample's header, to "comm;root;...;leaf 1"
"$PERF" script -i "$WORK/p.data" -F comm,ip,sym 2>/dev/null | awk '
	function flush(  s, i) { if (comm == "") return; s = comm
		for (i = n; i >= 1; i--) s = s ";" f[i]; print s " 1"; comm = ""; n = 0 }
	/^[^ \t]/ { flush(); comm = $1; next }
	/^[ \t]+[0-9a-f]+ / { sym = $2; if (sym == "[unknown]" || sym == "") sym = "[unknown]"; f[++n] = sym; next }
	/^$/ { flush() }
	END { flush() }' >"$WORK/p.folded"
check "perf script collapses to folded stacks ($(wc -l <"$WORK/p.folded") samples of 1 s at 4 kHz)" \
	[ "$(wc -l <"$WORK/p.folded")" -gt 2000 ]
"$KPROF" flamegraph "$WORK/p.folded" >"$WORK/p.svg" 2>"$WORK/p.err"
check "kprof flamegraph renders perf's stacks" [ $? -eq 0 ]
check "...as well-formed XML" xmllint --noout "$WORK/p.svg"

"$KPROF" record -g -o "$WORK/k.kprof" -- "$SPLIT" 1 >/dev/null 2>&1
"$KPROF" report -i "$WORK/k.kprof" --svg -o "$WORK/k.svg"
check "kprof report --svg writes the graph" [ $? -eq 0 ]
check "...as well-formed XML" xmllint --noout "$WORK/k.svg"

# the share of each function over all its frames, from the titles: "name (N samples, P%)"
share() { # FUNCTION SVG
	awk -v f="$1" 'match($0, /<title>[^<]*<\/title>/) {
		t = substr($0, RSTART + 7, RLENGTH - 15); i = index(t, " (")
		if (substr(t, 1, i - 1) == f) { sub(/.*, /, "", t); sub(/%.*/, "", t); s += t } }
		END { printf "%.2f", s }' "$2"
}
for f in main via_left via_right work_a work_b work_c; do
	k=$(share "$f" "$WORK/k.svg"); p=$(share "$f" "$WORK/p.svg")
	check "$f: kprof ${k}% and perf's pipeline ${p}% within $SHARE_POINTS_2 points" \
		awk -v a="$k" -v b="$p" -v m=$SHARE_POINTS_2 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 0 && b > 0 && d <= m) }'
done
kn=$(grep -c '<g class="f"' "$WORK/k.svg"); pn=$(grep -c '<g class="f"' "$WORK/p.svg")
check "both graphs have frames (kprof $kn, perf $pn)" [ "$kn" -gt 5 -a "$pn" -gt 5 ]

done_testing
