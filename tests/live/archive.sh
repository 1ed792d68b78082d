#!/bin/sh
# Live: recordings that travel (kprof archive, record --embed-symbols). A recording archived
# where it was made reports the same folded stacks once its binaries are gone: the workload's
# deleted, the system's libraries hidden by --symfs (an empty folder, as on another machine),
# under every naming option (--srcline, --no-inline, --inline, --no-demangle), on split, on the
# C++ inline workload and on Debian's stripped gzip unwound with DWARF, whose own functions
# only their FDEs name. A binary rebuilt after
# recording (another build-id) is named from the embedded symbols, and --stats says which
# source named each binary. Stack copies kept for the report unwind the same elsewhere: the
# binaries' unwind tables are stored with them. Then the edges: a recording cut short is refused in place and
# copied whole with -o; a damaged symbols chunk, or a header pointing nowhere, is a warning
# and costs only the names; a second archive on a machine without the binaries keeps them;
# a binary the samples hit that is rebuilt, truncated, a FIFO (never waited on), a directory,
# missing or unreadable (as nobody) is named with why, the rest stored, and the status is 1;
# perf.data, a stream and a FIFO as the recording are refused with the reason.
. "$top_srcdir/tests/live/lib.sh"
require_perf_events

mkdir -p "$WORK/bin" "$WORK/empty"
cp "$SPLIT" "$WORK/bin/app"
folded() { f=$1; shift; "$KPROF" report -i "$f" --folded "$@" 2>/dev/null; }
tree() { f=$1; shift; "$KPROF" report -i "$f" --tree "$@" 2>/dev/null; }
stats_line() { "$KPROF" report -i "$1" --stats ${2:+--symfs "$2"} 2>/dev/null | grep -m1 "^#   $3: "; }

# --- split: archive in place, delete the binary, hide the libraries
"$KPROF" record -g -o "$WORK/a.kprof" -- "$WORK/bin/app" 0.5 >/dev/null 2>&1
folded "$WORK/a.kprof" >"$WORK/a.before"
size0=$(stat -c %s "$WORK/a.kprof")
"$KPROF" archive -i "$WORK/a.kprof" 2>"$WORK/a.err"
rc=$?
check "kprof archive succeeds ($rc) and says what it stored" \
	grep -q "stored the symbols of [1-9][0-9]* binaries in '$WORK/a.kprof'" "$WORK/a.err"
size1=$(stat -c %s "$WORK/a.kprof")
check "the symbols are appended: $size0 bytes, then $size1" [ "$size1" -gt "$size0" ]
check "with the binaries present, the archived recording reports as before" \
	cmp -s "$WORK/a.before" "$(folded "$WORK/a.kprof" >"$WORK/a.same"; echo "$WORK/a.same")"
rm "$WORK/bin/app"
folded "$WORK/a.kprof" >"$WORK/a.gone"
check "the workload deleted: the same folded stacks ($(wc -l <"$WORK/a.before") lines)" \
	cmp -s "$WORK/a.before" "$WORK/a.gone"
check "... which name work_a" grep -q "via_left;work_a" "$WORK/a.gone"
folded "$WORK/a.kprof" --symfs "$WORK/empty" >"$WORK/a.symfs"
check "no binary reachable (--symfs of an empty folder): the same folded stacks" \
	cmp -s "$WORK/a.before" "$WORK/a.symfs"
check "--stats: the workload was named by the embedded symbols, its file missing" \
	grep -q "from the recording's embedded symbols (the file: missing)" \
	"$(stats_line "$WORK/a.kprof" "" "$WORK/bin/app" >"$WORK/a.st"; echo "$WORK/a.st")"
libc=$(stats_line "$WORK/a.kprof" "" '/[^:]*libc\.so\.6')
check "--stats: libc, present, was named by its file (${libc#\#   })" \
	sh -c 'echo "$1" | grep -q ", from the file$"' - "$libc"
cp "$WORK/a.kprof" "$WORK/a2.kprof"
"$KPROF" archive -i "$WORK/a2.kprof" 2>/dev/null
check "archived again without the binary, it keeps the workload's symbols" \
	cmp -s "$WORK/a.before" "$(folded "$WORK/a2.kprof" --symfs "$WORK/empty" >"$WORK/a2.f"; echo "$WORK/a2.f")"

# --- the C++ inline workload, under every naming option (the call tree: inline marks, lines)
cp "$top_builddir/tests/workloads/inline" "$WORK/bin/inline"
"$KPROF" record -g -o "$WORK/i.kprof" -- "$WORK/bin/inline" 0.5 >/dev/null 2>&1
for o in "" --srcline --no-inline "--srcline --no-inline" "--srcline --inline-self" --inline --no-demangle; do
	# shellcheck disable=SC2086 # $o is zero, one or two options
	tree "$WORK/i.kprof" $o >"$WORK/i.before$(echo "$o" | tr -d ' ')"
done
"$KPROF" archive -i "$WORK/i.kprof" 2>/dev/null
rm "$WORK/bin/inline"
for o in "" --srcline --no-inline "--srcline --no-inline" "--srcline --inline-self" --inline --no-demangle; do
	n=$(echo "$o" | tr -d ' ')
	# shellcheck disable=SC2086
	tree "$WORK/i.kprof" $o --symfs "$WORK/empty" >"$WORK/i.after$n"
	check "inline workload, report --tree ${o:-(default options)}: the same tree without any binary" \
		cmp -s "$WORK/i.before$n" "$WORK/i.after$n"
done
check "... with the inlined function and its source line" \
	grep -q "shapes::Accumulator<double>::add(double) (inlined) inline.cc:[0-9]" "$WORK/i.after--srcline--inline-self"

# --- Debian's gzip, stripped, unwound with DWARF while recording
if [ -x /usr/bin/gzip ]; then
	cp /usr/bin/gzip "$WORK/bin/gzip"
	head -c 20000000 /dev/urandom >"$WORK/rnd"
	"$KPROF" record --call-graph dwarf -o "$WORK/g.kprof" -- "$WORK/bin/gzip" -9 -c "$WORK/rnd" \
		>/dev/null 2>"$WORK/g.err"
	folded "$WORK/g.kprof" >"$WORK/g.before"
	"$KPROF" archive -i "$WORK/g.kprof" 2>/dev/null
	rm "$WORK/bin/gzip"
	folded "$WORK/g.kprof" --symfs "$WORK/empty" >"$WORK/g.after"
	# copies the recorder kept (it fell behind, or no frame came out) are unwound at report
	# time with the binaries' CFI, which an archive does not store (kprof archive says so)
	kept=$(sed -n 's/.*; \([0-9]*\) kept as copies.*/\1/p' "$WORK/g.err")
	if [ "${kept:-0}" -eq 0 ]; then
		check "gzip (stripped, DWARF stacks): the same folded stacks without any binary" \
			cmp -s "$WORK/g.before" "$WORK/g.after"
	else
		skip "the recorder kept $kept stack copies on this busy machine: they need the binaries"
	fi
	check "... which name libc's functions" grep -q "__libc_start_call_main" "$WORK/g.after"
	check "... and gzip's own, which only their FDEs name (sub_HEX@gzip)" \
		grep -q ";sub_[0-9a-f]*@gzip;" "$WORK/g.after"
	"$KPROF" report -i "$WORK/g.kprof" --flat --stats --symfs "$WORK/empty" >"$WORK/g.stats" 2>/dev/null
	check "... counted by --stats as named by their FDE" \
		grep -q "^#   [^ ]*/gzip: [0-9]* frames, [0-9]* unnamed, [1-9][0-9]* named by their unwind table's FDE, from the recording's embedded symbols" "$WORK/g.stats"
else
	skips 4 "no /usr/bin/gzip"
fi

# --- stack copies kept for the report (--keep-stacks): the unwind tables travel too
cp "$SPLIT" "$WORK/bin/ks"
"$KPROF" record --call-graph dwarf --keep-stacks -o "$WORK/k.kprof" -- "$WORK/bin/ks" 0.3 \
	>/dev/null 2>&1
folded "$WORK/k.kprof" >"$WORK/k.before"
"$KPROF" archive -i "$WORK/k.kprof" 2>"$WORK/k.err"
check "a recording with stack copies: their binaries' unwind tables are stored too" \
	grep -q "and the unwind tables of [1-9][0-9]* binaries" "$WORK/k.err"
rm "$WORK/bin/ks"
folded "$WORK/k.kprof" --symfs "$WORK/empty" >"$WORK/k.after"
check "... and its stacks unwind the same without any binary ($(wc -l <"$WORK/k.before") lines)" \
	cmp -s "$WORK/k.before" "$WORK/k.after"
check "... down to main" grep -q "__libc_start_call_main;main;via_left;work_a" "$WORK/k.after"

# --- a binary rebuilt after recording: another build-id
CC=${CC:-cc}
if command -v "$CC" >/dev/null 2>&1; then
	mkdir -p "$WORK/rb"
	"$CC" -O2 -g -fno-omit-frame-pointer -o "$WORK/rb/app" "$top_srcdir/tests/workloads/split.c"
	"$KPROF" record -g --embed-symbols -o "$WORK/r.kprof" -- "$WORK/rb/app" 0.5 \
		>/dev/null 2>"$WORK/r.err"
	check "record --embed-symbols stores the symbols when recording ends" \
		grep -q "kprof record: stored the symbols of [1-9]" "$WORK/r.err"
	folded "$WORK/r.kprof" >"$WORK/r.before"
	"$CC" -O0 -g -fno-omit-frame-pointer -o "$WORK/rb/app" "$top_srcdir/tests/workloads/split.c"
	folded "$WORK/r.kprof" >"$WORK/r.after"
	check "rebuilt (-O0 after -O2): the same folded stacks, from the embedded symbols" \
		cmp -s "$WORK/r.before" "$WORK/r.after"
	check "--stats says the file is not the one recorded" \
		grep -q "from the recording's embedded symbols (the file: build-id mismatch)" \
		"$(stats_line "$WORK/r.kprof" "" "$WORK/rb/app" >"$WORK/r.st"; echo "$WORK/r.st")"
else
	skips 3 "no C compiler ($CC) to rebuild a binary with"
fi

# --- a binary the samples need that cannot be stored: named with why, exit 1, the rest stored.
# The workload sits in a folder every user reaches (for the unreadable file, read as nobody).
unpriv_copy "$SPLIT" && mv "$UNPRIV/split" "$UNPRIV/lo"
"$KPROF" record -g -o "$UNPRIV/out/l.kprof" -- "$UNPRIV/lo" 0.2 >/dev/null 2>&1
chmod 644 "$UNPRIV/out/l.kprof"
"$KPROF" archive -i "$UNPRIV/out/l.kprof" -o "$WORK/l0.kprof" 2>"$WORK/l0.err"
rc=$?
check "every binary there: archive exits 0 ($rc), leaving nothing out" \
	sh -c '[ "$1" -eq 0 ] && ! grep -q "not stored\|incomplete" "$2"' - "$rc" "$WORK/l0.err"
# left CASE WHY: archive -o of l.kprof, the workload's file damaged as CASE says: status 1, the
# workload named with WHY, the rest stored in the copy
left() {
	rm -f "$WORK/l.out"
	timeout 60 "$KPROF" archive -i "$UNPRIV/out/l.kprof" -o "$WORK/l.out" 2>"$WORK/l.err"
	rc=$?
	check "$1: exit 1 ($rc), '$(grep -m1 "not stored" "$WORK/l.err" | sed "s|.*: not stored|not stored|")'" \
		sh -c '[ "$1" -eq 1 ] && grep -q "^kprof: '\''$2'\'': not stored ([1-9][0-9]* frames of the samples): $3" "$4" &&
			grep -q "is incomplete: 1 binary the samples need left out" "$4"' - "$rc" "$UNPRIV/lo" "$2" "$WORK/l.err"
	check "$1: ... the other binaries stored in the copy" \
		sh -c '[ -s "$1" ] && grep -q "stored the symbols of [1-9][0-9]* binaries" "$2"' - "$WORK/l.out" "$WORK/l.err"
}
cp "$top_builddir/tests/workloads/split-nofp" "$UNPRIV/lo"
left "rebuilt since (another build-id)" "the file is another build, rebuilt since the recording (build-id [0-9a-f]*, the recording's [0-9a-f]*)"
head -c 9000 "$SPLIT" >"$UNPRIV/lo"
left "truncated" "truncated: 9000 bytes of the [0-9]* its headers describe"
rm "$UNPRIV/lo" && mkfifo "$UNPRIV/lo"
left "a FIFO (never waited on)" "a FIFO, not a regular file"
rm "$UNPRIV/lo" && mkdir "$UNPRIV/lo"
left "a directory" "a directory, not a regular file"
rmdir "$UNPRIV/lo"
left "missing" "no such file here"
if [ "$(id -u)" -eq 0 ] && command -v runuser >/dev/null; then
	cp "$SPLIT" "$UNPRIV/lo" && chmod 000 "$UNPRIV/lo"
	as_user nobody "$UNPRIV/kprof" archive -i "$UNPRIV/out/l.kprof" -o "$UNPRIV/out/n.kprof" \
		2>"$WORK/n.err"
	rc=$?
	check "unreadable (mode 000, as nobody): exit 1 ($rc), '$(grep -m1 "not stored" "$WORK/n.err")'" \
		sh -c '[ "$1" -eq 1 ] && grep -q "^kprof: '\''$2'\'': not stored ([1-9][0-9]* frames of the samples): cannot open it: Permission denied" "$3"' \
		- "$rc" "$UNPRIV/lo" "$WORK/n.err"
else
	skip "an unreadable binary: needs root and runuser to read it as nobody"
fi
mkfifo "$WORK/in.fifo"
timeout 60 "$KPROF" archive -i "$WORK/in.fifo" 2>"$WORK/fifo.err"
rc=$?
check "a FIFO as the recording: refused at once ($rc)" \
	sh -c '[ "$1" -eq 1 ] && grep -q "in.fifo'\'' is not a regular file" "$2"' - "$rc" "$WORK/fifo.err"

# --- a recording cut short: refused in place, copied whole with -o
cp "$SPLIT" "$WORK/bin/app"
"$KPROF" record -g -o "$WORK/t.kprof" -- "$WORK/bin/app" 1.5 >/dev/null 2>&1
folded "$WORK/t.kprof" >"$WORK/t.whole"
size=$(stat -c %s "$WORK/t.kprof")
head -c $((size - 3)) "$WORK/t.kprof" >"$WORK/cut.kprof" # inside the last chunk
cp "$WORK/cut.kprof" "$WORK/cut0.kprof"
"$KPROF" archive -i "$WORK/cut.kprof" 2>"$WORK/cut.err"
rc=$?
check "a recording cut short is refused in place (exit $rc)" [ "$rc" -eq 1 ]
check "... saying where it ends, and that -o copies it" \
	sh -c 'grep -q "truncated at offset" "$1" && grep -q "hint: kprof archive -o" "$1"' - "$WORK/cut.err"
check "... and left as it was" cmp -s "$WORK/cut.kprof" "$WORK/cut0.kprof"
folded "$WORK/cut.kprof" >"$WORK/cut.before"
"$KPROF" archive -i "$WORK/cut.kprof" -o "$WORK/copy.kprof" 2>"$WORK/copy.err"
rc=$?
check "-o writes a copy of what reads, with the symbols (exit $rc)" \
	sh -c '[ "$1" -eq 0 ] && grep -q "stored the symbols" "$2"' - "$rc" "$WORK/copy.err"
rm "$WORK/bin/app"
check "the copy reports the readable samples, named, without the binary" \
	cmp -s "$WORK/cut.before" "$(folded "$WORK/copy.kprof" >"$WORK/copy.f"; echo "$WORK/copy.f")"
"$KPROF" archive -i "$WORK/copy.kprof" -o "$WORK/copy.kprof" 2>"$WORK/same.err"
check "-o the input itself is refused" grep -q "is the input" "$WORK/same.err"

# --- damaged symbols: a warning, the samples all there, only the names lost
cp "$WORK/a.kprof" "$WORK/d.kprof"
off=$(od -An -tu8 -j40 -N8 "$WORK/d.kprof" | tr -d ' ')
check "the header points at the symbols (offset $off of $size1)" [ "$off" -eq "$size0" ]
printf '\377\377\377\377' | dd of="$WORK/d.kprof" bs=1 seek=$((off + 40)) conv=notrunc 2>/dev/null
"$KPROF" report -i "$WORK/d.kprof" --folded >"$WORK/d.f" 2>"$WORK/d.err"
check "a damaged symbols chunk: the report warns that the embedded symbols could not be read" \
	grep -q "embedded symbols could not be read (chunk checksum mismatch, in the chunk at offset $off)" "$WORK/d.err"
check "... and ends as for any damaged chunk, naming it" \
	grep -q "chunk checksum mismatch in the chunk at offset $off: skipped it" "$WORK/d.err"
check "... with every sample there: $(awk '{ n += $NF } END { print n }' "$WORK/d.f") of $(awk '{ n += $NF } END { print n }' "$WORK/a.before")" \
	[ "$(awk '{ n += $NF } END { print n }' "$WORK/d.f")" = "$(awk '{ n += $NF } END { print n }' "$WORK/a.before")" ]
cp "$WORK/a.kprof" "$WORK/p.kprof"
printf '\001\000\000\000\000\000\000\000' | dd of="$WORK/p.kprof" bs=1 seek=40 conv=notrunc 2>/dev/null
"$KPROF" report -i "$WORK/p.kprof" --folded >/dev/null 2>"$WORK/p.err"
rc=$?
check "a header pointing before the chunks: a warning ($rc)" \
	sh -c '[ "$1" -eq 0 ] && grep -q "embedded symbols could not be read" "$2"' - "$rc" "$WORK/p.err"

# --- what cannot be archived
if command -v perf >/dev/null 2>&1 && perf record -q -o "$WORK/perf.data" -- true >/dev/null 2>&1; then
	"$KPROF" archive -i "$WORK/perf.data" 2>"$WORK/perf.err"
	rc=$?
	check "a perf.data is refused ($rc), naming kprof convert" \
		sh -c '[ "$1" -eq 1 ] && grep -q "kprof convert --to kprof" "$2"' - "$rc" "$WORK/perf.err"
else
	skip "perf cannot record here"
fi
"$KPROF" record --embed-symbols -o - -- true >/dev/null 2>"$WORK/s.err"
rc=$?
check "record --embed-symbols -o - is a usage error ($rc)" \
	sh -c '[ "$1" -eq 2 ] && grep -q "embed-symbols reads the recording back" "$2"' - "$rc" "$WORK/s.err"
done_testing
