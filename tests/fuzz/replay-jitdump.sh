#!/bin/sh
# Replays the jitdump fuzz corpus (dumps of tests/workloads/jit) through its target.
exec sh "$top_srcdir/tests/fuzz/replay.sh" corpus-jitdump replay-jitdump
