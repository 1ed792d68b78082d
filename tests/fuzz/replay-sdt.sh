#!/bin/sh
# Replays the SDT notes fuzz corpus (ELF files with .note.stapsdt) through its target.
exec sh "$top_srcdir/tests/fuzz/replay.sh" corpus-sdt replay-sdt
