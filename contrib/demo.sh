#!/bin/sh
# demo.sh - record the bundled demo workload with call chains and report where its time went:
# the call tree, the flat profile, and a flame graph (demo.svg).
# Run contrib/setup.sh first. The workload (tests/workloads/split.c) burns 2 s of CPU split
# 60/30/10 over work_a (reached through via_left and via_right), work_b and work_c.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
kprof="$top/build/kprof"
out=${1:-demo.kprof}

echo "\$ kprof record -e cycles -c 100000 -g -o $out -- tests/workloads/split 2"
"$kprof" record -e cycles -c 100000 -g -o "$out" -- "$top/build/tests/workloads/split" 2
echo
echo "\$ kprof report -i $out --percent-limit 0.5"
"$kprof" report -i "$out" --percent-limit 0.5
echo
echo "\$ kprof report -i $out --flat | head -8"
"$kprof" report -i "$out" --flat | head -8
echo
echo "\$ kprof report -i $out --svg -o ${out%.kprof}.svg    # the flame graph: open it in a browser"
"$kprof" report -i "$out" --svg -o "${out%.kprof}.svg"
echo "wrote ${out%.kprof}.svg ($(wc -c <"${out%.kprof}.svg") bytes)"
