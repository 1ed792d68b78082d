#!/bin/sh
# kprof script on damaged and foreign input: clear errors with offsets, and what is intact.
. "$top_srcdir/tests/live/lib.sh"
require_perf_events

# 3 s at 10 kHz with call chains: about 3 MiB of records, so several chunks
"$KPROF" record -F 10000 -g -o "$WORK/a.kprof" -- "$SPLIT" 3 >/dev/null 2>&1
"$KPROF" script -i "$WORK/a.kprof" --raw >"$WORK/all.txt"
full=$(wc -l <"$WORK/all.txt")
tail -1 "$WORK/all.txt" >"$WORK/last.txt"
size=$(stat -c %s "$WORK/a.kprof")
check "a 3 s recording at 10 kHz prints records ($full)" [ "$full" -gt 20000 ]

head -c $((size - 100)) "$WORK/a.kprof" >"$WORK/cut.kprof"
"$KPROF" script -i "$WORK/cut.kprof" --raw >"$WORK/cut.txt" 2>"$WORK/cut.err"
check "a cut file fails with status 1" [ $? -eq 1 ]
check "a cut file names the offset and records read" \
	grep -q "'$WORK/cut.kprof': truncated at offset [0-9]* after [0-9]* records" "$WORK/cut.err"
cut=$(wc -l <"$WORK/cut.txt")
# a torn chunk loses at most one 16 KiB block of records: a few hundred lines
check "a cut file still prints what comes before the cut ($cut of $full lines)" \
	[ "$cut" -ge $((full - 400)) -a "$cut" -le "$full" ]

# a corrupted byte in a chunk of the middle: that chunk is skipped, the later ones are read
mid=$(( $(stat -c %s "$WORK/a.kprof") / 2 ))
cp "$WORK/a.kprof" "$WORK/bad.kprof"
# the byte's bits flipped: writing a fixed byte left the file as it was when that byte was there
b=$(od -An -tu1 -j $mid -N1 "$WORK/a.kprof" | tr -d ' ')
printf "$(printf '\\%03o' $((b ^ 255)))" | dd of="$WORK/bad.kprof" bs=1 seek=$mid conv=notrunc 2>/dev/null
check "the corrupted copy differs from the recording in one byte" \
	sh -c "[ \$(cmp -l '$WORK/a.kprof' '$WORK/bad.kprof' | wc -l) -eq 1 ]"
"$KPROF" script -i "$WORK/bad.kprof" --raw >"$WORK/bad.txt" 2>"$WORK/bad.err"
# (in a chunk's payload a checksum error; in one of its headers a corrupt header, also read past)
check "a corrupted byte is a checksum error with its offset, status 1 ($?)" \
	grep -Eq "(chunk checksum mismatch|corrupt chunk header) in the chunk at offset [0-9]*: skipped it, [0-9]* records" "$WORK/bad.err"
bad=$(wc -l <"$WORK/bad.txt")
check "...and the chunks after it are still printed ($bad of $full lines)" \
	sh -c "[ $bad -lt $full ] && tail -1 '$WORK/bad.txt' | cmp -s - '$WORK/last.txt'"

printf 'hello, world\n' >"$WORK/text"
"$KPROF" script -i "$WORK/text" >/dev/null 2>"$WORK/text.err"
check "a text file is not a kprof file" grep -q "cannot read '$WORK/text': not a kprof file" "$WORK/text.err"
"$KPROF" script -i "$WORK/missing" >/dev/null 2>"$WORK/missing.err"
check "a missing file says so" grep -q "cannot read '$WORK/missing': No such file or directory" "$WORK/missing.err"

# kprof --help and friends
"$KPROF" --help | grep -q "^   record " && "$KPROF" --help | grep -q "^   script "
check "kprof --help lists the commands from the table" [ $? -eq 0 ]
check "kprof --version" sh -c "'$KPROF' --version | grep -q '^kprof [0-9]'"
check "kprof record --help lists the events" sh -c "'$KPROF' record --help | grep -q '^cache-misses '"
"$KPROF" frobnicate 2>/dev/null
check "an unknown command is a usage error" [ $? -eq 2 ]

done_testing
