#!/bin/sh
# The layers include only downwards: formats/ <- report/ <- src/record/ (the recording engine)
# <- src/ (the CLI). Every #include "..." of formats/ names formats/ (or a file beside it); of
# report/, formats/ or report/; of src/record/, formats/, report/ or a file of its own, never
# one of the CLI's (src/*.h), nor config.h, which configure writes for the CLI (the version
# reaches the engine as an option). Planted upward includes show the check can fail.
. "$top_srcdir/tests/live/lib.sh"

# upward DIR ALLOWED...: the "file:line: include" of DIR's sources that name none of ALLOWED
# (directories, as the include is written) and no file in DIR itself
upward() {
	dir=$1; shift
	for f in "$dir"/*.c "$dir"/*.h; do
		[ -e "$f" ] || continue
		sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$f" | while read -r inc; do
			ok=0
			for a in "$@"; do case $inc in "$a"/*) ok=1 ;; esac; done
			case $inc in */*) ;; *) [ -e "$dir/$inc" ] && ok=1 ;; esac
			[ $ok = 1 ] || echo "$f: $inc"
		done
	done
}

for layer in "formats:formats" "report:formats report" "src/record:formats report"; do
	dir=${layer%%:*}
	bad=$(upward "$top_srcdir/$dir" ${layer#*:} | sed "s|^$top_srcdir/||" | head -5 | tr '\n' ' ')
	check "$dir/ includes only ${layer#*:}${bad:+ (not: $bad)}" [ -z "$bad" ]
done

mkdir -p "$WORK/formats"
printf '#include "util.h"\n#include "report/replay/session.h"\n' >"$WORK/formats/x.c"
: >"$WORK/formats/util.h"
bad=$(upward "$WORK/formats" formats)
check "a planted upward include is found ($bad)" [ "$bad" = "$WORK/formats/x.c: report/replay/session.h" ]

# src/record/ naming the CLI: by its bare name (a header beside the commands, not beside it),
# by its path, or from above
mkdir -p "$WORK/src/record"
printf '#include "config.h"\n#include "evset.h"\n#include "report/replay/session.h"\n#include "cmd.h"\n' \
	>"$WORK/src/record/x.c"
printf '#include "src/cli/cmd-report.h"\n#include "../input.h"\n' >"$WORK/src/record/y.h"
: >"$WORK/src/record/evset.h"
bad=$(upward "$WORK/src/record" formats report | sed "s|^$WORK/src/record/||" | tr '\n' ' ')
check "planted includes of the CLI's headers from src/record/ are found ($bad)" \
	[ "$bad" = "x.c: config.h x.c: cmd.h y.h: src/cli/cmd-report.h y.h: ../input.h " ]

done_testing
