#!/bin/sh
# Replays the folded-stack fuzz corpus through its fuzz target (built without libFuzzer).
corpus="$top_srcdir/tests/fuzz/corpus-folded"
set -- "$corpus"/*
if [ ! -e "$1" ]; then
	echo "1..1"
	echo "not ok 1 - the fuzz corpus in $corpus is empty"
	exit 1
fi
exec "$top_builddir/tests/fuzz/replay-folded" "$@"
