#!/bin/sh
# Replays the session fuzz corpus (an ELF file and records about it) through its target.
exec sh "$top_srcdir/tests/fuzz/replay.sh" corpus-session replay-session
