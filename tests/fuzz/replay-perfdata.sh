#!/bin/sh
# Replays the perf.data fuzz corpus (small files perf record wrote) through its target.
exec sh "$top_srcdir/tests/fuzz/replay.sh" corpus-perfdata replay-perfdata
