#!/bin/sh
# Replays the reader's fuzz corpus through the fuzz target (built without libFuzzer).
corpus="$top_srcdir/tests/fuzz/corpus"
set -- "$corpus"/*
if [ ! -e "$1" ]; then
	echo "1..1"
	echo "not ok 1 - the fuzz corpus in $corpus is empty"
	exit 1
fi
exec "$top_builddir/tests/fuzz/replay-reader" "$@"
