#!/bin/sh
# Replays the whole-report fuzz corpus (recordings over tests/golden/root) through its target.
exec sh "$top_srcdir/tests/fuzz/replay.sh" corpus-report replay-report
