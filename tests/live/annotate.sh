#!/bin/sh
# Live: `kprof annotate` on real recordings. loops' two loops (3:1 by construction, each timed
# by the workload's own thread clock) by line and by instruction, within 5 points; the shares
# of a function summing to 100; labels, source text and inline frames; perf annotate --stdio on
# the same perf.data (the same hottest instruction, the top 10 within 1 point); --callers
# against the folded stacks; a stripped binary, a rebuilt one, a misspelt name, the kernel's
# code, and mangled copies of a real binary (under ASan in the suite's second run).
. "$top_srcdir/tests/live/lib.sh"
require_perf_events

PERF=${PERF:-perf}
LOOPS="$(cd "$top_builddir/tests/workloads" && pwd)/loops"
LOOPS_SRC="$top_srcdir/tests/workloads/loops.c"
line_a=$(grep -n 'LOOP_A \*/' "$LOOPS_SRC" | cut -d: -f1)
line_b=$(grep -n 'LOOP_B \*/' "$LOOPS_SRC" | cut -d: -f1)
# build_id FILE: the GNU build-id of an ELF file
build_id() { readelf -n "$1" 2>/dev/null | awk '/Build ID:/ { print $3; exit }'; }
# jq-like checks on an annotation's JSON: json FILE PYTHON-EXPR (with f, the function named by
# $FUNC, and d, the whole array); exits 0 when the expression is true
json() {
	FUNC=${FUNC:-two_loops} python3 -c '
import json, os, sys
d = json.load(open(sys.argv[1]))
f = next((x for x in d if x["function"] == os.environ["FUNC"]), None)
sys.exit(0 if eval(sys.argv[2]) else 1)' "$@"
}
# jval FILE PYTHON-EXPR: print the expression's value
jval() {
	FUNC=${FUNC:-two_loops} python3 -c '
import json, os, sys
d = json.load(open(sys.argv[1]))
f = next((x for x in d if x["function"] == os.environ["FUNC"]), None)
print(eval(sys.argv[2]))' "$@" 2>/dev/null
}

# --- the two loops, by line and by instruction ----------------------------------------------
"$KPROF" record -c 100000 -o "$WORK/l.kprof" -- "$LOOPS" 1 >"$WORK/l.out" 2>"$WORK/l.err"
check "record loops succeeds" [ $? -eq 0 ]
truth_a=$(awk -F= '{ v[$1] = $2 } END { printf "%.2f", 100 * v["loop_a_ns"] / (v["loop_a_ns"] + v["loop_b_ns"]) }' "$WORK/l.out")
"$KPROF" annotate -i "$WORK/l.kprof" --json two_loops >"$WORK/l.json" 2>"$WORK/l.json.err"
check "annotate --json two_loops succeeds" [ $? -eq 0 ]
check "two_loops has instructions" json "$WORK/l.json" 'f and len(f["instructions"]) > 10'
by_line_a=$(jval "$WORK/l.json" "sum(l['percent'] for l in f['lines'] if l['line'] == $line_a)")
by_line_b=$(jval "$WORK/l.json" "sum(l['percent'] for l in f['lines'] if l['line'] == $line_b)")
by_insn_a=$(jval "$WORK/l.json" "sum(i['percent'] for i in f['instructions'] if i.get('line') == $line_a)")
check "loop A's line holds ${by_line_a}% of two_loops, its clock ${truth_a}% (5 points)" \
	points "$by_line_a" "$truth_a" 5
check "loop B's line holds ${by_line_b}%, its clock $(awk -v a="$truth_a" 'BEGIN { print 100 - a }')%" \
	points "$by_line_b" "$(awk -v a="$truth_a" 'BEGIN { print 100 - a }')" 5
check "loop A's instructions hold ${by_insn_a}% (5 points of ${truth_a}%)" points "$by_insn_a" "$truth_a" 5
check "two_loops' instruction shares sum to 100 (0.1)" \
	json "$WORK/l.json" 'abs(sum(i["percent"] for i in f["instructions"]) - 100) <= 0.1'
check "its samples are counted at instructions: none inside one, none past the last" \
	json "$WORK/l.json" 'f["stray_samples"] == 0 and sum(i["self"]["samples"] for i in f["instructions"]) == f["self"]["samples"]'
check "each instruction has its bytes, mnemonic and source line" \
	json "$WORK/l.json" 'all(len(i["bytes"]) == 2 * (int(f["instructions"][k + 1]["addr"], 16) - int(i["addr"], 16)) for k, i in enumerate(f["instructions"][:-1])) and all(i["mnemonic"] for i in f["instructions"]) and all(i.get("file", "").endswith("loops.c") for i in f["instructions"])'
check "thread_ns's code is named inlined in two_loops" \
	json "$WORK/l.json" 'any(i["inline"] == ["thread_ns"] for i in f["instructions"])'
check "the loops' back jumps land on labels" \
	json "$WORK/l.json" 'sum(1 for i in f["instructions"] if "target_label" in i) >= 2 and all(any(j.get("label") == i["target_label"] and j["addr"] == i["target"] for j in f["instructions"]) for i in f["instructions"] if "target_label" in i)'

"$KPROF" annotate -i "$WORK/l.kprof" --stdio >"$WORK/l.txt" 2>"$WORK/l.txt.err"
check "annotate without a name annotates the hottest: two_loops" \
	sh -c "grep '^## ' '$WORK/l.txt' | head -1 | grep -q '^## two_loops in .*loops:'"
check "the text interleaves loop A's source line" grep -q "loops.c:$line_a .*LOOP_A" "$WORK/l.txt"
check "the text shows jumps to labels" grep -q -- '-> L[0-9]' "$WORK/l.txt"
check "the lines of two_loops, hottest first, start with loop A's" \
	sh -c "sed -n '/^# source lines of two_loops/{n;p;q}' '$WORK/l.txt' | grep -q 'loops.c:$line_a '"
check "--stdio has no colour" sh -c "! grep -q \"$(printf '\033')\" '$WORK/l.txt'"
"$KPROF" annotate -i "$WORK/l.kprof" --color always two_loops >"$WORK/l.color" 2>/dev/null
check "--color always colours the hottest instruction red" grep -q "$(printf '\033')\[31m" "$WORK/l.color"
"$KPROF" annotate -i "$WORK/l.kprof" --stdio --no-source two_loops >"$WORK/l.nosrc" 2>/dev/null
check "--no-source keeps file:line, not the text" \
	sh -c "grep -q 'loops.c:$line_a' '$WORK/l.nosrc' && ! grep -q LOOP_A '$WORK/l.nosrc'"
"$KPROF" report -i "$WORK/l.kprof" --flat --annotate 1 --color never >"$WORK/l.flat" 2>/dev/null
check "report --flat --annotate 1 appends two_loops' annotation" \
	sh -c "grep -q '^## two_loops in' '$WORK/l.flat' && grep -q 'loops.c:$line_a' '$WORK/l.flat'"

"$KPROF" annotate -i "$WORK/l.kprof" two_loop >/dev/null 2>"$WORK/miss.err"
check "a misspelt name fails (status $?)" [ $? -eq 1 ]
check "... saying so, and suggesting two_loops" \
	sh -c "grep -q \"no function called 'two_loop'\" '$WORK/miss.err' && grep -q \"did you mean 'two_loops'\" '$WORK/miss.err'"

# --- perf annotate --stdio on the same perf.data ------------------------------------------
# perf 6.1 sometimes aborts at the end of a recording: it gets three tries
perf_recorded() {
	command -v "$PERF" >/dev/null 2>&1 || return 1
	for try in 1 2 3; do
		"$PERF" record -q -e cpu-clock -c 100000 -o "$WORK/p.data" -- "$LOOPS" 1 \
			>/dev/null 2>"$WORK/perf.err" && return 0
	done
	return 1
}
if perf_recorded; then
	"$PERF" annotate --stdio -i "$WORK/p.data" two_loops 2>/dev/null |
		awk '$2 == ":" && $3 ~ /^[0-9a-f]+:$/ { sub(":", "", $3); print $3, $1 }' >"$WORK/perf.pct"
	"$KPROF" annotate -i "$WORK/p.data" --json two_loops >"$WORK/p.json" 2>"$WORK/p.err"
	check "annotate -i perf.data succeeds" [ $? -eq 0 ]
	jval "$WORK/p.json" "'\n'.join('%x %.4f' % (int(i['addr'], 16), i['percent']) for i in f['instructions'])" >"$WORK/kprof.pct"
	check "perf annotate gives two_loops' instructions" [ -s "$WORK/perf.pct" ]
	hot_perf=$(sort -k2 -g -r "$WORK/perf.pct" | head -1 | cut -d' ' -f1)
	hot_kprof=$(sort -k2 -g -r "$WORK/kprof.pct" | head -1 | cut -d' ' -f1)
	check "the hottest instruction is perf's ($hot_perf, kprof $hot_kprof)" [ "$hot_perf" = "$hot_kprof" ]
	off=$(sort -k2 -g -r "$WORK/perf.pct" | head -10 | awk 'NR == FNR { k[$1] = $2; next }
		{ d = $2 - ($1 in k ? k[$1] : -100); if (d < 0) d = -d; if (d > 1) print $1, $2, k[$1] }' \
		"$WORK/kprof.pct" -)
	check "perf's top 10 instructions have kprof's shares within 1 point${off:+ (off: $off)}" [ -z "$off" ]
else
	skips 4 "perf record failed three times: $(tail -1 "$WORK/perf.err" 2>/dev/null)"
fi

# --- --callers against the folded stacks ----------------------------------------------------
"$KPROF" record -g -o "$WORK/s.kprof" -- "$SPLIT" 0.5 >/dev/null 2>&1
check "record split -g succeeds" [ $? -eq 0 ]
"$KPROF" annotate -i "$WORK/s.kprof" --callers --json main >"$WORK/s.json" 2>/dev/null
check "annotate --callers main (no self samples) succeeds" [ $? -eq 0 ]
"$KPROF" script -i "$WORK/s.kprof" >"$WORK/s.script" 2>/dev/null
for callee in via_left work_b; do
	through=$(FUNC=main jval "$WORK/s.json" "sum(i['callers']['samples'] for i in f['instructions'] if i.get('target_function') == '$callee')")
	# the call's return address, as kprof script prints a caller's frame
	ret=$(FUNC=main jval "$WORK/s.json" "'%x' % next(int(i['addr'], 16) + len(i['bytes']) // 2 for i in f['instructions'] if i.get('target_function') == '$callee')")
	# samples with that return address among their user frames, the first (the IP) aside
	truth=$(awk -v ret="$ret" -v dso="/$(basename "$SPLIT"))" '
		/^[^\t]/ { n += hit; hit = 0; user = 0; next }
		/^\t/ && $NF != "([kernel.kallsyms])" { if (++user > 1 && $1 == ret && substr($NF, length($NF) - length(dso) + 1) == dso) hit = 1 }
		END { print n + hit }' "$WORK/s.script")
	check "main's call of $callee counts the $truth samples whose chains return there ($through)" \
		[ "$through" = "$truth" ] && [ "$truth" -gt 0 ]
done

# --- a stripped binary, a rebuilt one ---------------------------------------------------------
cp "$top_builddir/tests/workloads/split-export-rdynamic" "$WORK/stripped"
strip "$WORK/stripped"
"$KPROF" record -o "$WORK/st.kprof" -- "$WORK/stripped" 0.5 >/dev/null 2>&1
"$KPROF" annotate -i "$WORK/st.kprof" --json work_a >"$WORK/st.json" 2>/dev/null
export FUNC=work_a
check "a stripped binary's work_a (named by .dynsym) is disassembled" \
	json "$WORK/st.json" 'f and len(f["instructions"]) > 5'
check "... without source lines, saying why" \
	json "$WORK/st.json" 'all("file" not in i for i in f["instructions"]) and "DWARF" in (f["no_source_lines"] or "")'
unset FUNC
# stripped of its .symtab with no debug file anywhere (and without -rdynamic, no name in .dynsym):
# its functions are known by their FDEs alone, annotated over the FDE's range, as sub_HEX@bare
cp "$SPLIT" "$WORK/bare"
strip "$WORK/bare"
"$KPROF" record -o "$WORK/bare.kprof" -- "$WORK/bare" 0.1 >/dev/null 2>&1
"$KPROF" annotate -i "$WORK/bare.kprof" --stdio --top 1 >"$WORK/bare.ann" 2>&1
check "a stripped binary with no debug file: its hottest function, named after its FDE, is disassembled" \
	sh -c "grep -q '^## sub_[0-9a-f]*@bare in $WORK/bare: .*, 0x[0-9a-f]*-0x[0-9a-f]* ([0-9]* bytes)' '$WORK/bare.ann' &&
		[ \$(grep -c '^ *[0-9.%]* *[0-9]* *[0-9a-f]*:  ' '$WORK/bare.ann') -gt 5 ]"
# ... and one built without CFI, whose code no FDE covers either: not annotated, and why, no
# debug file claimed
cp "$top_builddir/tests/workloads/noframe" "$WORK/bare-nocfi"
strip "$WORK/bare-nocfi"
"$KPROF" record -o "$WORK/nocfi.kprof" -- "$WORK/bare-nocfi" 0.1 >/dev/null 2>&1
"$KPROF" annotate -i "$WORK/nocfi.kprof" --stdio --top 1 >"$WORK/nocfi.ann" 2>&1
check "a stripped binary without CFI and no debug file: not annotated, and why (no debug file was found)" \
	sh -c "grep -qF \"'$WORK/bare-nocfi' covers these addresses, nor an FDE of its unwind tables: it is stripped of its .symtab, and no debug file of it was found\" '$WORK/nocfi.ann' && ! grep -q 'its debug file has' '$WORK/nocfi.ann'"

cp "$LOOPS" "$WORK/rebuilt"
"$KPROF" record -o "$WORK/rb.kprof" -- "$WORK/rebuilt" 0.3 >/dev/null 2>&1
old_id=$(build_id "$WORK/rebuilt")
cp "$top_builddir/tests/workloads/split" "$WORK/rebuilt"
new_id=$(build_id "$WORK/rebuilt")
"$KPROF" annotate -i "$WORK/rb.kprof" --json two_loops >"$WORK/rb.json" 2>"$WORK/rb.err"
check "two_loops of a binary rebuilt since the recording is refused (status $?)" [ $? -eq 1 ]
check "... naming the file and both build-ids" \
	sh -c "grep -q \"'$WORK/rebuilt' is not the binary that was recorded\" '$WORK/rb.err' && grep -q '$old_id' '$WORK/rb.err' && grep -q '$new_id' '$WORK/rb.err'"
check "... and disassembling nothing" \
	python3 -c 'import json, sys; sys.exit(any(x["instructions"] for x in json.load(open(sys.argv[1]))))' "$WORK/rb.json"

# --- the kernel's code ------------------------------------------------------------------------
"$KPROF" record -c 20000 -o "$WORK/k.kprof" -- "$top_builddir/tests/workloads/getuid" >/dev/null 2>&1
"$KPROF" annotate -i "$WORK/k.kprof" --json --top 20 >"$WORK/k.json" 2>"$WORK/k.err"
if python3 -c 'import json, sys; sys.exit(not any(x["kernel"] for x in json.load(open(sys.argv[1]))))' "$WORK/k.json"; then
	check "kernel functions are disassembled from /proc/kcore, or say why not" python3 -c '
import json, sys
k = [x for x in json.load(open(sys.argv[1])) if x["kernel"] and not x["start"] == hex(2**64 - 1)]
sys.exit(not k or not all(x["instructions"] or "/proc/kcore" in (x["error"] or "") for x in k))' "$WORK/k.json"
	"$KPROF" annotate -i "$WORK/k.kprof" --json --top 20 --vmlinux "$WORK/no-vmlinux" >"$WORK/kv.json" 2>"$WORK/kv.err"
	check "--vmlinux that does not exist is named in the error" grep -q "'$WORK/no-vmlinux'" "$WORK/kv.err"
else
	skips 2 "getuid's recording has no kernel samples"
fi

# --- mangled copies of a real binary ------------------------------------------------------
mkdir -p "$WORK/symfs$(dirname "$LOOPS")"
# two_loops' symbol 1 TiB long: bounded work and a message, not a hang
python3 - "$LOOPS" "$WORK/symfs$LOOPS" <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
shoff = struct.unpack_from("<Q", d, 0x28)[0]
shnum = struct.unpack_from("<H", d, 0x3c)[0]
secs = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + 64 * i) for i in range(shnum)]
for s in secs:
    if s[1] != 2:  # SHT_SYMTAB
        continue
    strs = secs[s[6]][4]
    for k in range(s[5] // 24):
        at = s[4] + 24 * k
        name = struct.unpack_from("<I", d, at)[0]
        if d[strs + name:d.index(b"\0", strs + name)] == b"two_loops":
            struct.pack_into("<Q", d, at + 16, 1 << 40)
open(sys.argv[2], "wb").write(d)
EOF
"$KPROF" annotate -i "$WORK/l.kprof" --symfs "$WORK/symfs" --json two_loops >"$WORK/big.json" 2>"$WORK/big.err"
check "a function 1 TiB long is not disassembled (status $?), and says so" \
	grep -q 'two_loops: not annotated: two_loops is 1099511627776 bytes, more than 1024 KiB' "$WORK/big.err"
# the 40 copies made by one python3, their JSON checked by another: 80 starts spared
python3 - "$LOOPS" "$WORK/mangled" <<'EOF'
import os, random, struct, sys
orig = open(sys.argv[1], "rb").read()
for i in range(40):
    data = bytearray(orig)
    r = random.Random(i)
    kind = i % 4
    if kind == 0:            # code and data bytes
        for _ in range(64):
            data[r.randrange(len(data))] = r.randrange(256)
    elif kind == 1:          # section headers: offsets and sizes
        shoff = struct.unpack_from("<Q", data, 0x28)[0]
        shnum = struct.unpack_from("<H", data, 0x3c)[0]
        for _ in range(4):
            at = shoff + 64 * r.randrange(max(shnum, 1)) + r.choice([0x18, 0x20])
            if at + 8 <= len(data):
                struct.pack_into("<Q", data, at, r.choice([0, 2**63, 2**32, r.randrange(2**64)]))
    elif kind == 2:          # program headers
        phoff = struct.unpack_from("<Q", data, 0x20)[0]
        for _ in range(4):
            at = phoff + 56 * r.randrange(13) + r.choice([8, 0x10, 0x20, 0x28])
            if at + 8 <= len(data):
                struct.pack_into("<Q", data, at, r.randrange(2**64))
    else:                    # cut short
        data = data[:r.randrange(64, len(data))]
    path = "%s/%d%s" % (sys.argv[2], i, sys.argv[1])
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "wb").write(data)
EOF
bad=0
missing=0
i=0
while [ $i -lt 40 ]; do
	"$KPROF" annotate -i "$WORK/l.kprof" --symfs "$WORK/mangled/$i" --json --top 3 \
		>"$WORK/m$i.json" 2>"$WORK/m$i.err"
	rc=$?
	grep -q "$WORK/mangled/$i$LOOPS': missing" "$WORK/m$i.err" && missing=$((missing + 1))
	if [ $rc -gt 1 ] || grep -q "Sanitizer\|runtime error" "$WORK/m$i.err"; then
		bad=$((bad + 1))
		echo "# mangled copy $i: status $rc: $(head -3 "$WORK/m$i.err")"
	fi
	i=$((i + 1))
done
invalid=$(python3 - "$WORK" <<'EOF'
import json, sys
bad = []
for i in range(40):
    try:
        json.load(open("%s/m%d.json" % (sys.argv[1], i)))
    except ValueError:
        bad.append(str(i))
print(" ".join(bad))
EOF
)
[ -z "$invalid" ] || echo "# mangled copies whose JSON is not valid: $invalid"
bad=$((bad + $(echo $invalid | wc -w)))
check "40 mangled copies of loops: each annotation ends cleanly with valid JSON ($bad did not)" [ $bad -eq 0 ]
check "... each copy read from the symfs ($missing were not found)" [ $missing -eq 0 ]

# capstone is opened on first use, not linked: kprof starts without it, and annotate says what
# is missing when it cannot be loaded (here hidden by an empty file bound over it, in a mount
# namespace of this test's own)
check "kprof is not linked with capstone" sh -c "! readelf -d '$KPROF' | grep -q 'NEEDED.*libcapstone'"
cslib=$(ldconfig -p 2>/dev/null | awk '/libcapstone\.so\.[0-9]+ / { print $NF; exit }')
if [ "$(id -u)" -eq 0 ] && [ -n "$cslib" ] && command -v unshare >/dev/null &&
	unshare -m true 2>/dev/null; then
	unshare -m sh -c "mount --bind /dev/null '$cslib' && exec '$KPROF' annotate -i '$WORK/l.kprof' --top 1" \
		>"$WORK/nocs.out" 2>"$WORK/nocs.err"
	rc=$?
	check "without capstone: annotate exits 1 ($rc), naming the library and the package" sh -c \
		"[ $rc -eq 1 ] && grep -q \"not annotated: cannot load capstone: $cslib: .* (install the Debian package 'libcapstone4')\" '$WORK/nocs.err'"
	unshare -m sh -c "mount --bind /dev/null '$cslib' && exec '$KPROF' report -i '$WORK/l.kprof' --flat" \
		>"$WORK/nocs.flat" 2>&1
	check "...while report runs as before ($?)" grep -q "two_loops" "$WORK/nocs.flat"
else
	skips 2 "hiding capstone needs root, unshare -m and capstone's path from ldconfig"
fi

done_testing
