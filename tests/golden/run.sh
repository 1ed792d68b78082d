#!/bin/sh
# Golden reports: kprof report on tests/golden/basic.kprof (made by mkfixture from synthetic
# records over the checked-in root/usr/bin/tiny), compared byte for byte with the expected
# files. KPROF_BLESS=1 rewrites the fixture and the expected files from what kprof prints now.
. "$top_srcdir/tests/live/lib.sh"
g="$top_srcdir/tests/golden"

if [ -n "${KPROF_BLESS:-}" ]; then
	"$top_builddir/tests/golden/mkfixture" "$g/basic.kprof" || exit 1
	"$top_builddir/tests/golden/mkfixture" "$g/basic2.kprof" --variant || exit 1
fi

# run NAME COMMAND...: one kprof command in $g, its output compared with $g/expected/NAME
run() {
	name=$1; shift
	# from inside the directory, so that the paths in the output do not depend on the build
	(cd "$g" && "$KPROF" "$@") >"$WORK/$name" 2>"$WORK/$name.err"
	rc=$?
	if [ -n "${KPROF_BLESS:-}" ]; then
		mkdir -p "$g/expected"
		cp "$WORK/$name" "$g/expected/$name"
	fi
	if [ $rc -eq 0 ] && diff -u "$g/expected/$name" "$WORK/$name" >"$WORK/$name.diff"; then
		pass "golden $name: kprof $*"
	else
		fail "golden $name: kprof $* (status $rc)" "$(head -40 "$WORK/$name.diff")" \
			"$(cat "$WORK/$name.err")"
	fi
	case $name in
	*.svg) check "$name is well-formed XML" xmllint --noout "$WORK/$name" ;;
	*.json) check "$name is JSON" sh -c "python3 -m json.tool '$WORK/$name' >/dev/null" ;;
	*.json.gz) check "$name is gzip-compressed JSON" \
		sh -c "gzip -dc '$WORK/$name' | python3 -m json.tool >/dev/null" ;;
	esac
}

# case NAME ARGS...: a report of basic.kprof
case_() {
	name=$1; shift
	run "$name" report -i basic.kprof --symfs root --color never "$@"
}

case_ tree --tree
# annotate: the two hottest functions of tiny, disassembled from root/usr/bin/tiny
run annotate annotate -i basic.kprof --symfs root --stdio --no-source --top 2
run annotate.json annotate -i basic.kprof --symfs root --json --no-source --top 2
run annotate-stray annotate -i basic2.kprof --symfs root --stdio --no-source --callers top
case_ tree-srcline --tree --srcline
case_ tree-no-inline --tree --no-inline
# a sample's own inlined function (tiny's hot, in top) takes its self only with --inline-self
case_ tree-inline-self --tree --inline-self
case_ flat-inline-self --flat --inline-self
case_ tree-inverted --tree --inverted
case_ tree-limit --tree --percent-limit 10
case_ flat --flat
case_ flat-comm-dso --flat --sort comm,dso,sym
case_ folded --folded
case_ folded-annotate --folded --annotate
case_ stats --flat --stats
case_ filter-tid --folded --tid 4243
case_ filter-comm --folded --comm other,worker
case_ filter-time --folded --time 1.000002,1.000010
case_ filter-cpu --folded --cpu 1
# the lists are record's and stat's: ranges for CPUs, each number once, in range
(cd "$g" && "$KPROF" report -i basic.kprof --symfs root --folded --cpu 1-1,1) >"$WORK/cpu-range" 2>/dev/null
check "report --cpu 1-1,1 is --cpu 1" cmp -s "$WORK/cpu-range" "$g/expected/filter-cpu"
(cd "$g" && "$KPROF" report -i basic.kprof --pid 4294967297) >/dev/null 2>"$WORK/pid-range"
check "report --pid beyond the kernel's largest pid is a usage error" \
	sh -c "[ $? -eq 2 ] && grep -q 'from 0 to 4194304' '$WORK/pid-range'"
case_ tree-diff --tree --diff basic2.kprof
# pprof: the protobuf inside the gzip (whose bytes are zlib's business), against its golden
(cd "$g" && "$KPROF" report -i basic.kprof --symfs root --format pprof | gzip -dc) >"$WORK/pprof.pb"
[ -n "${KPROF_BLESS:-}" ] && cp "$WORK/pprof.pb" "$g/expected/pprof.pb"
check "golden pprof.pb: kprof report --format pprof, decompressed" cmp "$g/expected/pprof.pb" "$WORK/pprof.pb"
case_ flame.svg --svg --no-js --hash
case_ icicle-blue.svg --svg --no-js --hash --inverted --colors blue --title "<icicle> & co"
case_ reverse.svg --svg --no-js --hash --reverse --minwidth 50
case_ chart.svg --svg --no-js --hash --flamechart
case_ speedscope.json --format speedscope
case_ chrome.json --format chrome
case_ firefox.json.gz --format firefox
case_ timeline.svg --timeline --no-js --title "<timeline> & co"
case_ speedscope-tid.json --format speedscope --tid 4243 --weight samples
run flamegraph.svg flamegraph --no-js --hash --title "folded input" input.folded
run hostile.svg flamegraph --no-js --hash hostile.folded
run diff.svg diff --no-js --hash --symfs root basic.kprof basic2.kprof
run diff.folded diff --folded --symfs root basic.kprof basic2.kprof
run diff-raw.folded diff --folded --no-normalize base.folded new.folded
run diff-folded.svg diff --no-js --hash base.folded new.folded
run diff-gone.svg diff --no-js --hash gone.folded new.folded

# Widths are proportional to values: every rect against its data-v, within a pixel.
for f in flame.svg flamegraph.svg diff.svg; do
	bad=$(awk '
		/<svg / { match($0, /width="[0-9.]+"/); W = substr($0, RSTART + 7, RLENGTH - 8)
			  match($0, /data-total="[0-9.]+"/); T = substr($0, RSTART + 12, RLENGTH - 13) }
		/<g class="f"/ { match($0, /data-v="[0-9.]+"/); v = substr($0, RSTART + 8, RLENGTH - 9)
			  match($0, /<rect x="[0-9.]+" y="[0-9.]+" width="[0-9.]+"/); r = substr($0, RSTART, RLENGTH)
			  sub(/.*width="/, "", r); sub(/"$/, "", r)
			  want = v * (W - 20) / T; d = r - want; if (d < 0) d = -d
			  n++; if (d > 1) bad++ }
		END { print (n ? bad + 0 : "none") }' "$WORK/$f")
	check "$f: every frame's width follows its count within a pixel" [ "$bad" = 0 ]
done

# A differential graph draws no frame past its parent or the image (x and width are rounded
# to 0.1 px each), though BASE has stacks
# (main;gc;mark, main;parse;lex;old) that NEW lacks.
for f in diff.svg diff-folded.svg diff-gone.svg; do
	bad=$(awk '
		/<svg / { match($0, /width="[0-9.]+"/); W = substr($0, RSTART + 7, RLENGTH - 8) }
		/<g class="f"/ { match($0, /id="f[0-9]+"/); id = substr($0, RSTART + 4, RLENGTH - 5)
			  match($0, /data-p="[^"]*"/); up = substr($0, RSTART + 8, RLENGTH - 9)
			  match($0, /<rect x="[0-9.]+"/); x = substr($0, RSTART + 9, RLENGTH - 10) + 0
			  match($0, /<rect x="[0-9.]+" y="[0-9.]+" width="[0-9.]+"/); r = substr($0, RSTART, RLENGTH)
			  sub(/.*width="/, "", r); sub(/"$/, "", r); w = r + 0
			  X[id] = x; R[id] = x + w; n++
			  if (x + w > W - 10 + 0.15) bad++
			  else if (up != "" && (x < X[up] - 0.15 || x + w > R[up] + 0.15)) bad++ }
		END { print (n ? bad + 0 : "none") }' "$WORK/$f")
	check "$f: every frame lies within its parent and the image" [ "$bad" = 0 ]
done

# Hostile names stay text: the escapes are in the titles, nothing became markup.
check "hostile: '</text><script>' is escaped in a title" \
	grep -q '<title>&lt;/text&gt;&lt;script&gt;alert(1)&lt;/script&gt; (' "$WORK/hostile.svg"
check "hostile: no script element in a --no-js graph" sh -c "! grep -q '<script' '$WORK/hostile.svg'"
check "hostile: quotes and ampersands are escaped" \
	grep -q '<title>say &quot;hi&quot; &amp; &apos;bye&apos; (' "$WORK/hostile.svg"
check "hostile: bytes that are not UTF-8 became U+FFFD" grep -q "bad$(printf '\357\277\275\357\277\275')name" "$WORK/hostile.svg"
long=$(grep -o '<title>std::vector&lt;[^<]*' "$WORK/hostile.svg" | head -1 | wc -c)
check "hostile: a 5000-character template keeps its whole name in the title ($long)" [ "$long" -gt 5000 ]
check "hostile: malformed lines are reported with their numbers" grep -q "line 7: no count at the end of the line" "$WORK/hostile.svg.err"
# a file that is not folded stacks at all (a user's /etc/passwd): five lines named, then the
# count of the rest, then why there is no graph
awk 'BEGIN { for (i = 1; i <= 24; i++) print "user" i ":x:" i ":" i "::/home:/bin/sh" }' >"$WORK/passwd"
"$KPROF" flamegraph "$WORK/passwd" >"$WORK/passwd.svg" 2>"$WORK/passwd.err"
rc=$?
{
	for i in 1 2 3 4 5; do
		echo "kprof: warning: '$WORK/passwd', line $i: no count at the end of the line; skipped"
	done
	echo "kprof: warning: '$WORK/passwd': 19 more malformed lines skipped"
	echo "kprof: '$WORK/passwd' has no stacks"
} >"$WORK/passwd.want"
check "a file of 24 lines that are not stacks: status 1 ($rc), five lines named, then the count, then 'has no stacks'" \
	sh -c "[ $rc -eq 1 ] && [ ! -s '$WORK/passwd.svg' ] && cmp -s '$WORK/passwd.err' '$WORK/passwd.want'"

# The binary that is on disk with another build-id is reported once, not per sample.
(cd "$g" && "$KPROF" report -i basic.kprof --symfs root) >/dev/null 2>"$WORK/warn"
n=$(grep -c "build-id mismatch" "$WORK/warn")
check "a rebuilt binary is reported once ($n)" [ "$n" -eq 1 ]
check "a missing library is reported once" [ "$(grep -c "libgone.so': missing" "$WORK/warn")" -eq 1 ]

# Folded input is never cut: a 5000-frame stack gives 5000 frames (and the root).
awk 'BEGIN { s = "f0"; for (i = 1; i < 5000; i++) s = s ";f" i; print s, 7 }' >"$WORK/deep.folded"
"$KPROF" flamegraph --no-js "$WORK/deep.folded" >"$WORK/deep.svg" 2>"$WORK/deep.err"
n=$(grep -c '<g class="f"' "$WORK/deep.svg")
check "a 5000-frame folded stack is drawn whole ($n frames with the root)" [ "$n" -eq 5001 ]
"$KPROF" flamegraph --no-js --flamechart "$WORK/deep.folded" >"$WORK/deep-chart.svg" 2>&1
n=$(grep -c '<g class="f"' "$WORK/deep-chart.svg")
check "...and so is it in a flame chart ($n frames with the root)" [ "$n" -eq 5001 ]
# ... and deeper than a recursive layout could go on the stack: 150,000 frames
awk 'BEGIN { printf "f0"; for (i = 1; i < 150000; i++) printf ";f%d", i; print " 7" }' >"$WORK/deeper.folded"
n=$("$KPROF" flamegraph --no-js "$WORK/deeper.folded" 2>&1 | grep -c '<g class="f"')
check "a 150,000-frame folded stack is drawn whole ($n frames with the root)" [ "$n" -eq 150001 ]

# report --diff: BASE is filtered as the report is, and what vanished from it is shown
(cd "$g" && "$KPROF" report -i basic.kprof --symfs root --color never --tree --diff basic2.kprof --comm worker) \
	>"$WORK/dcomm" 2>&1
check "--diff --comm worker: BASE is filtered too (4000 ns against 4000, no change)" \
	sh -c "head -1 '$WORK/dcomm' | grep -q 'cpu-clock, 4000 ns against 4000\$' && ! grep -v '^#' '$WORK/dcomm' | grep -vq '+0.00%'"
"$top_builddir/tests/golden/mkfixture" "$WORK/nojit.kprof" --no-jit
(cd "$g" && "$KPROF" report -i "$WORK/nojit.kprof" --symfs root --color never --tree --diff basic.kprof) \
	>"$WORK/dvanish" 2>&1
check "--diff: a function that vanished is shown at 0% with its loss" \
	grep -Eq '^ +0\.00% +0\.00% +-[0-9]+\.[0-9]+%  .*jit_compiled_fn' "$WORK/dvanish"

# One weight rule: hot()'s samples stand for 3 times the period of the others. By period (the
# default) and with --weight samples, its share is one number in tree, flat, folded and the SVG
# (hot being inlined, --inline-self gives it its samples).
"$top_builddir/tests/golden/mkfixture" "$WORK/periods.kprof" --periods
share() { # share WEIGHT VIEW: hot()'s share of the whole, in percent, as VIEW shows it
	case $2 in
	flat) "$KPROF" report -i "$WORK/periods.kprof" --symfs "$g/root" --inline-self --color never --flat --weight $1 |
		awk '$NF == "hot" { sub("%", "", $1); print $1 }' ;;
	tree) "$KPROF" report -i "$WORK/periods.kprof" --symfs "$g/root" --inline-self --color never --tree --weight $1 |
		awk '/[- ]hot( \(inlined\))?$/ { sub("%", "", $2); s += $2 } END { printf "%.2f\n", s }' ;;
	folded) "$KPROF" report -i "$WORK/periods.kprof" --symfs "$g/root" --inline-self --folded --weight $1 |
		awk '{ t += $NF } /;hot [0-9]+$/ { h += $NF } END { printf "%.2f\n", 100 * h / t }' ;;
	svg) "$KPROF" report -i "$WORK/periods.kprof" --symfs "$g/root" --inline-self --svg --no-js --weight $1 |
		awk '/<svg / { match($0, /data-total="[0-9.]+"/); T = substr($0, RSTART + 12, RLENGTH - 13) }
			/<title>hot \(/ { match($0, /data-v="[0-9.]+"/); v += substr($0, RSTART + 8, RLENGTH - 9) }
			END { printf "%.2f\n", 100 * v / T }' ;;
	esac 2>/dev/null
}
for w in period:40.00 samples:18.18; do
	want=${w#*:} w=${w%:*} got=
	for v in flat tree folded svg; do got="$got $v $(share $w $v)"; done
	check "--weight $w: hot() holds $want% in every view ($got)" \
		sh -c "echo '$got' | awk -v w=$want '{ for (i = 2; i <= NF; i += 2) if (\$i != w) exit 1; exit NF != 8 }'"
done

# An event description after the first sample (no recorder writes one there) is ignored, and
# said so: the per-event state was sized before it, and the report is basic.kprof's.
"$top_builddir/tests/golden/mkfixture" "$WORK/late.kprof" --late-attr
for view in flat tree folded; do
	(cd "$g" && "$KPROF" report -i "$WORK/late.kprof" --symfs root --color never --$view) \
		>"$WORK/late.$view" 2>"$WORK/late.$view.err"
	check "late ATTR: report --$view succeeds" [ $? -eq 0 ]
	check "late ATTR: report --$view shows what basic.kprof's does" \
		sh -c "sed 's|$WORK/late.kprof|basic.kprof|' '$WORK/late.$view' | diff - '$g/expected/$view'"
done
check "late ATTR: the warning names the record and its chunk" \
	grep -q "1 event descriptions (ATTR records) came after the first sample, the first in the chunk at offset [0-9]*: ignored" "$WORK/late.flat.err"
check "late ATTR: its event's samples are counted as skipped" \
	grep -q "3 records belong to no recorded event and were skipped" "$WORK/late.flat.err"
"$KPROF" script -i "$WORK/late.kprof" >"$WORK/late.script" 2>"$WORK/late.script.err"
check "late ATTR: script succeeds" [ $? -eq 0 ]
check "late ATTR: script warns the same" grep -q "came after the first sample" "$WORK/late.script.err"

# A file of format version 1 (verbatim records in each chunk, what kprof wrote before the
# packed chunks of version 2) reads back to the same reports: basic-v1.kprof is basic.kprof's
# records as version 1 wrote them.
check "basic.kprof is format version 2, basic-v1.kprof version 1" \
	sh -c "[ \$(od -An -tu4 -j8 -N4 '$g/basic.kprof') = 2 ] && [ \$(od -An -tu4 -j8 -N4 '$g/basic-v1.kprof') = 1 ]"
for view in flat tree folded; do
	(cd "$g" && "$KPROF" report -i basic-v1.kprof --symfs root --color never --$view) >"$WORK/v1.$view" 2>/dev/null
	check "version 1: report --$view of basic-v1.kprof is basic.kprof's" \
		sh -c "sed 's|basic-v1.kprof|basic.kprof|' '$WORK/v1.$view' | diff - '$g/expected/$view'"
done

done_testing
