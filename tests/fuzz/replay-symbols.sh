#!/bin/sh
# Replays the embedded-symbols fuzz corpus (SYMBOLS records of real archives) through its target.
exec sh "$top_srcdir/tests/fuzz/replay.sh" corpus-symbols replay-symbols
