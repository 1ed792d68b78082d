#!/bin/sh
# Replays a fuzz corpus through its fuzz target (built without libFuzzer). With no arguments
# it is the reader's; tests/fuzz/replay-folded.sh passes the folded parser's.
corpus="$top_srcdir/tests/fuzz/${1:-corpus}"
target="$top_builddir/tests/fuzz/${2:-replay-reader}"
set -- "$corpus"/*
if [ ! -e "$1" ]; then
	echo "1..1"
	echo "not ok 1 - the fuzz corpus in $corpus is empty"
	exit 1
fi
exec "$target" "$@"
