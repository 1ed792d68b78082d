#!/bin/sh
# The rooms (HACKING.md's first table): each folder of code has one job, and the folders stand
# in one order, formats/ first and src/kprof.c last. A file includes headers of its own room or
# of a room before it: a bare #include "x.h" names a file beside it, any other names its folder
# from the top; config.h, which configure writes for the CLI, only the CLI's rooms. No two
# files include each other, directly or round a circle (a .c and its .h are one node), and no
# two object files call each other so (nm: an object that defines what another uses is below
# it), nor does an object use one of a later room. No .c is over 900 lines. Planted breaches of
# each rule show the checks can fail.
. "$top_srcdir/tests/live/lib.sh"

ROOMS="formats report/base report/symbols report/replay report/unwind report/profile
report/views report/tools src/record src/cli src/tui src/cmd src"

# ranked AWK-PROGRAM FILE...: awk with rank[ROOM] (its place in ROOMS; a folder that is no
# room has none) and the function rk(FOLDER) (its rank, 99 for no room)
ranked() {
	prog=$1; shift
	awk -v rooms="$ROOMS" 'BEGIN { n = split(rooms, r, /[ \n]+/); for (i = 1; i <= n; i++) rank[r[i]] = i }
		function rk(d) { return (d in rank) ? rank[d] : 99 }
		function dir(p) { sub(/\/[^\/]*$/, "", p); return p }'" $prog" "$@"
}

# includes TOP: "file target" for every #include "..." of the rooms' sources, the target as a
# path from TOP ("-" for config.h); a bare name that is no file beside it stays as written
includes() {
	(cd "$1" && for r in $ROOMS; do
		for f in "$r"/*.c "$r"/*.h; do [ -e "$f" ] && echo "$f"; done
	done) >"$WORK/sources"
	(cd "$1" && xargs grep -H '^[ \t]*#[ \t]*include[ \t]*"' <"$WORK/sources") |
		awk -F: 'NR == FNR { have[$0] = 1; next }
			{ f = $1; line = substr($0, length(f) + 2); match(line, /"[^"]*"/)
			  inc = substr(line, RSTART + 1, RLENGTH - 2); d = f; sub(/\/[^\/]*$/, "", d)
			  if (inc == "config.h") t = "-"
			  else if (inc ~ /\//) t = inc
			  else if ((d "/" inc) in have) t = d "/" inc
			  else t = inc
			  print f, t }' "$WORK/sources" -
}

# upward TOP: "file: include" for each include that runs up the rooms or names no room
upward() {
	includes "$1" | ranked '{ me = rk(dir($1))
		if ($2 == "-") { if (me < rk("src/cli")) print $1 ": config.h" }
		else if ($2 ~ /\//) { if (rk(dir($2)) > me) print $1 ": " $2 }
		else print $1 ": " $2 " (no such file beside it)" }'
}

# loops EDGES: the nodes of the circles tsort finds in "from to" lines (none: empty)
loops() {
	tsort "$1" 2>&1 >/dev/null | sed -n 's/^tsort: \([^ ]*\)$/\1/p' | sort -u | tr '\n' ' '
}

# include_edges TOP: "module module" for each include between two modules (x.c and x.h)
include_edges() {
	includes "$1" | awk '$2 ~ /\// { a = $1; b = $2; sub(/\.[ch]$/, "", a); sub(/\.[ch]$/, "", b)
		if (a != b) print a, b }'
}

# object_edges BUILD: "user definer" for each symbol one object of the rooms uses that another
# defines; an object is named by its source (report/views/libkpreport_a-svg.o: report/views/svg)
object_edges() {
	find "$1/formats" "$1/report" "$1/src" -name '*.o' 2>/dev/null | sort >"$WORK/objects"
	[ -s "$WORK/objects" ] || return 0
	xargs nm -A <"$WORK/objects" | awk -v b="$1/" -v top="$2/" -v top2="$top_srcdir/" '
		{ o = $1; sub(/:.*/, "", o)
		  if (!(o in name)) { m = substr(o, length(b) + 1); d = m; sub(/\/[^\/]*$/, "", d)
			f = m; sub(/.*\//, "", f); sub(/^[^-]*-/, "", f); sub(/\.o$/, "", f); m = d "/" f
			name[o] = exists(top m ".c") || exists(top2 m ".c") ? m : "" }
		  m = name[o]; if (m == "") next
		  if ($2 == "U") use[n++] = $3 " " m
		  else if ($2 ~ /^[TDBRC]$/) def[$3] = m }
		function exists(p,  x, r) { r = (getline x < p) >= 0; close(p); return r }
		END { for (i = 0; i < n; i++) { split(use[i], u, " ")
			if ((u[1] in def) && def[u[1]] != u[2]) print u[2], def[u[1]] } }' | sort -u
}

# later EDGES: "a uses b" for each object using one of a later room
later() {
	ranked '{ if (rk(dir($2)) > rk(dir($1))) print $1 " uses " $2 }' "$1"
}

# commands EDGES: "a uses b" for each command (src/cmd/) using another
commands() {
	awk '$1 ~ /^src\/cmd\// && $2 ~ /^src\/cmd\// { print $1 " uses " $2 }' "$1"
}

# The source folders are the rooms
extra=$(cd "$top_srcdir" && find formats report src -name '*.[ch]' | sed 's|/[^/]*$||' | sort -u |
	ranked '{ if (rk($0) == 99) print }' | tr '\n' ' ')
check "every folder of sources is a room${extra:+ (not: $extra)}" [ -z "$extra" ]

bad=$(upward "$top_srcdir" | head -5 | tr '\n' ' ')
check "every include names its own room or one before it${bad:+ (not: $bad)}" [ -z "$bad" ]

include_edges "$top_srcdir" >"$WORK/inc"
circle=$(loops "$WORK/inc")
check "no two files include each other${circle:+ (a circle through: $circle)}" [ -z "$circle" ]

object_edges "$top_builddir" "$top_srcdir" >"$WORK/obj"
check "the objects of the rooms are found ($(wc -l <"$WORK/obj") calls between them)" \
	[ "$(wc -l <"$WORK/obj")" -gt 200 ]
circle=$(loops "$WORK/obj")
check "no two objects call each other${circle:+ (a circle through: $circle)}" [ -z "$circle" ]
bad=$(later "$WORK/obj" | head -5 | tr '\n' ' ')
check "no object uses one of a later room${bad:+ (not: $bad)}" [ -z "$bad" ]

bad=$(commands "$WORK/obj" | head -5 | tr '\n' ' ')
check "no command calls another${bad:+ (not: $bad)}" [ -z "$bad" ]

long=$(cd "$top_srcdir" && for r in $ROOMS; do wc -l "$r"/*.c; done | awk '$2 != "total" && $1 > 900 { print $2 " (" $1 ")" }' | tr '\n' ' ')
check "no .c is over 900 lines${long:+ (not: $long)}" [ -z "$long" ]

# HACKING.md's file tables: a table per room under "### `ROOM/`", naming each of its files
unnamed=$(cd "$top_srcdir" && for r in $ROOMS; do
	[ "$r" = src ] && files=src/kprof.c || files=$(ls "$r"/*.c "$r"/*.h "$r"/*.js 2>/dev/null)
	table=$(awk -v h="### \`$r/\`" '$0 == h { on = 1; next } /^#/ { on = 0 } on' HACKING.md)
	for f in $files; do
		printf '%s\n' "$table" | grep -q "[\` ]${f##*/}[\`,]" || echo "$f"
	done
done | head -5 | tr '\n' ' ')
check "HACKING.md's tables name every file${unnamed:+ (not: $unnamed)}" [ -z "$unnamed" ]

# Planted breaches: an upward include, config.h below the CLI, a bare name that is no file
# beside it, an include circle, an object circle and an object using a later room
p=$WORK/p
mkdir -p "$p/formats" "$p/report/base" "$p/report/views" "$p/src/record" "$p/src/cmd"
printf '#include "util.h"\n#include "report/replay/session.h"\n' >"$p/formats/x.c"
: >"$p/formats/util.h"
printf '#include "config.h"\n#include "evset.h"\n#include "src/cmd/cmd.h"\n' >"$p/src/record/x.c"
printf '#include "report/base/b.h"\n' >"$p/report/base/a.h"
printf '#include "a.h"\nint b(void) { return 1; }\n' >"$p/report/base/b.c"
: >"$p/report/base/b.h"
got=$(upward "$p" | tr '\n' ' ')
check "planted upward includes are found ($got)" [ "$got" = "formats/x.c: report/replay/session.h \
src/record/x.c: config.h src/record/x.c: evset.h (no such file beside it) src/record/x.c: src/cmd/cmd.h " ]
include_edges "$p" >"$WORK/pinc"
circle=$(loops "$WORK/pinc")
check "a planted include circle is found ($circle)" [ "$circle" = "report/base/a report/base/b " ]

printf 'int g(void);\nint f(void) { return g(); }\n' >"$p/report/base/f.c"
printf 'int f(void);\nint g(void) { return f(); }\n' >"$p/report/base/g.c"
printf 'int v(void) { return 2; }\n' >"$p/report/views/v.c"
printf 'int v(void);\nint h(void) { return v(); }\n' >"$p/report/base/h.c"
printf 'int cmd_b(void);\nint cmd_a(void) { return cmd_b(); }\n' >"$p/src/cmd/a.c"
printf 'int cmd_b(void) { return 3; }\n' >"$p/src/cmd/b.c"
for n in report/base/f report/base/g report/base/h report/views/v src/cmd/a src/cmd/b; do
	${CC:-cc} -c -o "$p/${n%/*}/x-${n##*/}.o" "$p/$n.c" || fail "cc $n.c"
done
object_edges "$p" "$p" >"$WORK/pobj"
circle=$(loops "$WORK/pobj")
check "a planted object circle is found ($circle)" [ "$circle" = "report/base/f report/base/g " ]
got=$(later "$WORK/pobj")
check "a planted use of a later room is found ($got)" [ "$got" = "report/base/h uses report/views/v" ]
got=$(commands "$WORK/pobj")
check "a planted command calling another is found ($got)" [ "$got" = "src/cmd/a uses src/cmd/b" ]

done_testing
