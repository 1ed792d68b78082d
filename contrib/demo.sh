#!/bin/sh
# demo.sh - record the bundled demo workload with call chains and show what kprof makes of it.
# Run contrib/setup.sh first. The workload (tests/workloads/split.c) burns 2 s of CPU split
# 60/30/10 over work_a (reached through via_left and via_right), work_b and work_c.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
kprof="$top/build/kprof"
out=${1:-demo.kprof}

echo "\$ kprof record -e cycles -c 100000 -g -o $out -- tests/workloads/split 2"
"$kprof" record -e cycles -c 100000 -g -o "$out" -- "$top/build/tests/workloads/split" 2
echo
echo "\$ kprof script -i $out --stats"
"$kprof" script -i "$out" --stats
echo
echo "\$ kprof script -i $out | head -12"
"$kprof" script -i "$out" | head -12
