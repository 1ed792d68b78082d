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

# rank ROOM: its place in ROOMS, 99 for a folder that is no room
rank() {
	i=0
	for r in $ROOMS; do
		[ "$r" = "$1" ] && { echo $i; return; }
		i=$((i + 1))
	done
	echo 99
}

# includes TOP: "file target" for every #include "..." of the rooms' sources, the target as a
# path from TOP ("-" for config.h); a bare name that is no file beside it stays as written
includes() {
	for r in $ROOMS; do
		for f in "$1/$r"/*.c "$1/$r"/*.h; do
			[ -e "$f" ] || continue
			sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$f" | while read -r inc; do
				case $inc in
				config.h) t=- ;;
				*/*) t=$inc ;;
				*) if [ -e "$1/$r/$inc" ]; then t=$r/$inc; else t=$inc; fi ;;
				esac
				echo "$r/${f##*/} $t"
			done
		done
	done
}

# upward TOP: "file: include" for each include that runs up the rooms or names no room
upward() {
	includes "$1" | while read -r f t; do
		me=$(rank "${f%/*}")
		case $t in
		-) [ "$me" -ge "$(rank src/cli)" ] || echo "$f: config.h" ;;
		*/*) [ "$(rank "${t%/*}")" -le "$me" ] || echo "$f: $t" ;;
		*) echo "$f: $t (no such file beside it)" ;;
		esac
	done
}

# loops EDGES: the nodes of the circles tsort finds in "from to" lines (none: empty)
loops() {
	tsort "$1" 2>&1 >/dev/null | sed -n 's/^tsort: \([^ ]*\)$/\1/p' | sort -u | tr '\n' ' '
}

# include_edges TOP: "module module" for each include between two modules (x.c and x.h)
include_edges() {
	includes "$1" | while read -r f t; do
		case $t in */*) ;; *) continue ;; esac
		a=${f%.[ch]} b=${t%.[ch]}
		[ "$a" = "$b" ] || echo "$a $b"
	done
}

# object_edges BUILD: "user definer" for each symbol one object of the rooms uses that another
# defines; an object is named by its source (report/views/libkpreport_a-svg.o: report/views/svg)
object_edges() {
	find "$1/formats" "$1/report" "$1/src" -name '*.o' 2>/dev/null | sort | while read -r o; do
		n=${o#"$1"/}
		d=${n%/*} b=${n##*/}
		echo "$d/${b#*-}" | sed 's/\.o$//' | {
			read -r m
			[ -e "$top_srcdir/$m.c" ] || [ -e "$2/$m.c" ] || exit 0
			nm "$o" | awk -v m="$m" '$2 ~ /^[TDBRC]$/ { print "D", $3, m } $1 == "U" { print "U", $2, m }'
		}
	done | awk '$1 == "D" { def[$2] = $3 } $1 == "U" { use[n++] = $2 " " $3 }
		END { for (i = 0; i < n; i++) { split(use[i], u, " ");
			if ((u[1] in def) && def[u[1]] != u[2]) print u[2], def[u[1]] } }' | sort -u
}

# later EDGES: "a uses b" for each object using one of a later room
later() {
	while read -r a b; do
		[ "$(rank "${b%/*}")" -le "$(rank "${a%/*}")" ] || echo "$a uses $b"
	done <"$1"
}

# commands EDGES: "a uses b" for each command (src/cmd/) using another
commands() {
	awk '$1 ~ /^src\/cmd\// && $2 ~ /^src\/cmd\// { print $1 " uses " $2 }' "$1"
}

# The source folders are the rooms
extra=$(cd "$top_srcdir" && find formats report src -name '*.[ch]' | sed 's|/[^/]*$||' | sort -u |
	while read -r d; do [ "$(rank "$d")" != 99 ] || echo "$d"; done | tr '\n' ' ')
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
