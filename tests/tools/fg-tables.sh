#!/bin/sh
# fg-tables.sh - regenerate the frame tables in tests/fgpl/tables/ from FlameGraph itself, for
# every case of tests/fgpl/cases:
#   FLAMEGRAPH=DIR tests/tools/fg-tables.sh      DIR: a checkout of brendangregg/FlameGraph
# Needs perl. The corpus is valid UTF-8: flamegraph.pl writes nothing for names that are not
# (kprof-flamegraph(1): "Differences from flamegraph.pl").
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
fg=${FLAMEGRAPH:-}
[ -n "$fg" ] && [ -f "$fg/flamegraph.pl" ] && [ -f "$fg/difffolded.pl" ] || {
	echo "fg-tables.sh: set FLAMEGRAPH to a FlameGraph checkout (flamegraph.pl, difffolded.pl)" >&2
	exit 2
}
dir=$top/tests/fgpl
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
rm -f "$dir"/tables/*.tsv
mkdir -p "$dir/tables"
grep -v '^#' "$dir/cases" | while read -r name kind inputs opts; do
	a=$dir/corpus/${inputs%%,*} b=$dir/corpus/${inputs#*,}
	n=-n fgopts=
	for o in $opts; do
		case $o in
		--normalize) n=-n ;;
		--no-normalize) n= ;;
		*) fgopts="$fgopts $o" ;;
		esac
	done
	case $kind in
	fg) perl "$fg/flamegraph.pl" $fgopts "$a" ;;
	pair) case " $opts " in *" --normalize "*) ;; *) n= ;; esac
		perl "$fg/difffolded.pl" $n "$a" "$b" | perl "$fg/flamegraph.pl" $fgopts ;;
	diff) perl "$fg/difffolded.pl" $n "$a" "$b" | perl "$fg/flamegraph.pl" $fgopts ;;
	*) echo "fg-tables.sh: $name: unknown kind '$kind'" >&2; exit 1 ;;
	esac 2>"$tmp/err" >"$tmp/svg" || { cat "$tmp/err" >&2; exit 1; }
	sh "$top/tests/tools/fg-table.sh" "$tmp/svg" >"$dir/tables/$name.tsv"
	echo "$name: $(grep -c '^F' "$dir/tables/$name.tsv") frames"
done
