#!/bin/sh
# Live: separate debug info. A debug file (libc6-dbg's, or one beside a stripped binary through
# its .gnu_debuglink) names the functions its .symtab has without its compressed DWARF being
# read; the DWARF is read for what only it has (--srcline, --inline), and --stats says which
# files were opened and why. libdw's debuginfod client is loaded only when $DEBUGINFOD_URLS
# names a server. A FIFO where a debug file is looked for is passed over, not waited on.
. "$top_srcdir/tests/live/lib.sh"
require_perf_events

"$KPROF" record -g -o "$WORK/s.kprof" -- "$SPLIT" 0.3 >/dev/null 2>&1
check "record split" [ -s "$WORK/s.kprof" ]

# --- libc's debug file (libc6-dbg) ------------------------------------------------------------
libc=$(readlink -f /lib/x86_64-linux-gnu/libc.so.6)
id=$(readelf -n "$libc" 2>/dev/null | awk '/Build ID:/ { print $3; exit }')
dbg=/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
if [ -z "$id" ] || [ ! -r "$dbg" ]; then
	skips 5 "no debug file for libc (the Debian package libc6-dbg)"
else
	"$KPROF" report -i "$WORK/s.kprof" --flat --stats >"$WORK/stats" 2>&1
	check "--stats: libc's debug file opened for its symbols only" \
		grep -qxF "#   $libc: $dbg, symbols only" "$WORK/stats"
	check "--stats: no DWARF read, nothing inflated" \
		grep -qE '^# debug files: [0-9]+ opened for their symbols, the DWARF of 0 read \(0\.0 MB inflated\)$' "$WORK/stats"
	# the names are those the DWARF gives the outermost function of each frame: the default
	# report's folded stacks equal --inline's once its inlined frames are dropped. split spends
	# its time in its own code and in clock_gettime, where libc inlines nothing, so whether a
	# sample falls in libc's inlined code is chance; a hundred runs of true do it every time, in
	# ld.so relocating libc (ld.so's debug file is libc6-dbg's too)
	"$KPROF" record -g -o "$WORK/t.kprof" -- sh -c 'i=0; while [ $i -lt 100 ]; do /bin/true; i=$((i + 1)); done' \
		>/dev/null 2>&1
	# (with --inline-self, as the inlined code sampled is what ld.so's has: its frame-pointer
	# chains have no return address in libc's inlined code to show)
	"$KPROF" report -i "$WORK/t.kprof" --folded --annotate --inline-self >"$WORK/plain" 2>/dev/null
	"$KPROF" report -i "$WORK/t.kprof" --folded --annotate --inline-self --inline >"$WORK/inl" 2>/dev/null
	strip_inlined() {
		awk '{ c = $NF; $NF = ""; n = split($0, f, ";"); s = ""
			for (i = 1; i <= n; i++) { x = f[i]; sub(/ +$/, "", x); if (x !~ /_\[i\]$/) s = s (s == "" ? "" : ";") x }
			t[s] += c } END { for (s in t) print s, t[s] }' "$1" | sort
	}
	strip_inlined "$WORK/plain" >"$WORK/plain.s"
	strip_inlined "$WORK/inl" >"$WORK/inl.s"
	ni=$(grep -o '_\[i\]' "$WORK/inl" | wc -l); np=$(grep -o '_\[i\]' "$WORK/plain" | wc -l)
	check "--inline adds inline frames ($ni against $np) and renames nothing ($(wc -l <"$WORK/inl.s") stacks)" \
		sh -c "[ $ni -gt $np ] && [ -s '$WORK/plain.s' ] && cmp -s '$WORK/plain.s' '$WORK/inl.s'"
	"$KPROF" report -i "$WORK/s.kprof" --flat --stats --inline >"$WORK/stats.inl" 2>&1
	check "--inline: --stats says libc's DWARF was read for inline frames" \
		grep -qE "^#   $libc: $dbg, DWARF read for inline frames \(--inline\) \([0-9.]+ MB inflated\)\$" "$WORK/stats.inl"
	"$KPROF" report -i "$WORK/s.kprof" --flat --stats --srcline >"$WORK/stats.src" 2>&1
	check "--srcline: ... and for source lines" \
		grep -qE "^#   $libc: $dbg, DWARF read for source lines \(--srcline\) \([0-9.]+ MB inflated\)\$" "$WORK/stats.src"
fi

# --- debuginfod: its client only for a server -------------------------------------------------
(unset DEBUGINFOD_URLS; LD_DEBUG=files "$KPROF" report -i "$WORK/s.kprof" --flat) \
	>/dev/null 2>"$WORK/ld.plain"
check "without DEBUGINFOD_URLS, libdw's debuginfod client is not loaded" \
	sh -c "grep -q 'file=libdw.so' '$WORK/ld.plain' && ! grep -q 'file=libdebuginfod' '$WORK/ld.plain'"
# a server on loopback that refuses the connection (the discard port): the client is asked
mkdir -p "$WORK/cache"
DEBUGINFOD_URLS=http://127.0.0.1:9 DEBUGINFOD_CACHE_PATH="$WORK/cache" LD_DEBUG=files \
	"$KPROF" report -i "$WORK/s.kprof" --flat >"$WORK/d.out" 2>"$WORK/ld.urls"
rc=$?
check "with DEBUGINFOD_URLS it is, and a refused server costs nothing but the lookup ($rc)" \
	sh -c "[ $rc -eq 0 ] && grep -q 'file=libdebuginfod' '$WORK/ld.urls' && grep -q ' work_a\$' '$WORK/d.out'"

# --- a stripped binary with its debug file beside it (.gnu_debuglink) -------------------------
mkdir -p "$WORK/bin/.debug"
objcopy --only-keep-debug "$SPLIT" "$WORK/bin/.debug/split.debug"
objcopy --strip-all --add-gnu-debuglink="$WORK/bin/.debug/split.debug" "$SPLIT" "$WORK/bin/split"
check "the copy is stripped (no .symtab)" sh -c "! readelf -S '$WORK/bin/split' | grep -q ' .symtab '"
"$KPROF" record -g -o "$WORK/x.kprof" -- "$WORK/bin/split" 0.3 >/dev/null 2>&1
"$KPROF" report -i "$WORK/x.kprof" --flat --stats --color never >"$WORK/x.flat" 2>&1
check "its functions are named from the debug file in .debug/ beside it" \
	grep -qE ' work_a$' "$WORK/x.flat"
check "...which --stats names" grep -qxF "#   $WORK/bin/split: $WORK/bin/.debug/split.debug, symbols only" "$WORK/x.flat"
# a debug file of another build under that name is not taken
objcopy --only-keep-debug "$top_builddir/tests/workloads/calls" "$WORK/bin/.debug/split.debug"
"$KPROF" report -i "$WORK/x.kprof" --flat --stats --color never >"$WORK/y.flat" 2>&1
check "a debug file of another build is refused: no name from it" \
	sh -c "! grep -qE ' work_a\$' '$WORK/y.flat' && ! grep -q '.debug/split.debug' '$WORK/y.flat'"
# a FIFO where the debug file is looked for first, beside the binary: passed over, never waited
# on (a report that hangs is cut at 60 s and fails here), and the one in .debug/ taken
objcopy --only-keep-debug "$SPLIT" "$WORK/bin/.debug/split.debug"
mkfifo "$WORK/bin/split.debug"
timeout 60 "$KPROF" report -i "$WORK/x.kprof" --flat --stats --color never >"$WORK/z.flat" 2>&1
rc=$?
check "a FIFO at the debug link's first place: the report ends ($rc), named from .debug/" \
	sh -c "[ $rc -eq 0 ] && grep -qxF '#   $WORK/bin/split: $WORK/bin/.debug/split.debug, symbols only' '$WORK/z.flat'"

done_testing
