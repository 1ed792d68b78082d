#!/bin/sh
# Replays the folded-stack fuzz corpus through its fuzz target (built without libFuzzer).
exec sh "$top_srcdir/tests/fuzz/replay.sh" corpus-folded replay-folded
