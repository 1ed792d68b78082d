#!/bin/sh
# The manual: a page per command of `kprof --help`, kprof(1) and kprof-data(5), built from
# src/man/*.scd; each renders without a warning: through man --warnings, through groff as it
# reads the file itself (no preconv: ASCII, every other character escaped), and by mandoc's lint
# at its warning level (a paragraph macro that starts no paragraph, as scdoc writes them before
# src/man/roff-tidy.awk, is one); every
# option of a command's --help is on an item line of its page's OPTIONS, and every option
# there is in --help and in the command's getopt tables (src/cmd-*.c, with the flame graph's
# shared ones of src/cli/svgopts.h); and kprof help CMD and --help point to the page.
. "$top_srcdir/tests/live/lib.sh"

# the pages: built in the build tree, or (from a tarball) distributed made in the source tree
MAN="$top_builddir/src/man"
[ -s "$MAN/kprof.1" ] || MAN="$top_srcdir/src/man"
cmds=$("$KPROF" --help | awk '/^commands:/ { on = 1; next } on && NF >= 2 && /^   / { print $1 }')
check "kprof --help lists commands ($(echo $cmds | wc -w))" [ "$(echo $cmds | wc -w)" -ge 13 ]

# opts_help CMD: the options of CMD's --help (its option lines start with spaces and a dash)
opts_help() {
	"$KPROF" "$1" --help 2>/dev/null | grep -E '^ {2,8}-' | sed -E 's/^ +//; s/ {2,}.*//' |
		grep -oE '(^|[ ,])(-[a-zA-Z0-9]|--[a-z][a-z0-9-]*)' | tr -d ' ,' | sort -u
}
# opts_page PAGE: the options on the item lines (bold, at the start) of its OPTIONS section
opts_page() {
	awk '/^\.SH/ { on = ($2 == "OPTIONS") } on' "$1" | grep -E '^\\fB-' |
		grep -oE '\\fB(-[a-zA-Z0-9]|\\-|--?[a-z][a-z0-9-]*|\\-\\-[a-z][a-z0-9\\-]*)' |
		sed -e 's/^\\fB//' -e 's/\\-/-/g' | sort -u
}
# opts_src CMD: the options of the getopt tables in CMD's source (and the shared ones it names:
# the flame graph's, the target options')
opts_src() {
	f="$top_srcdir/src/cmd/$1.c"
	[ -f "$f" ] || f=$(grep -l "cmd_$1(" "$top_srcdir"/src/cmd/*.c | head -1)
	{
		awk '/struct option [a-z_]*\[\] = \{/ { on = 1 } on && /^\};/ { on = 0 } on' "$f" |
			grep -oE '\{ "[a-z][a-z0-9-]*"' | sed 's/{ "/--/; s/"//'
		short=$(sed -n 's/^#define KP_TARGET_SHORT "\(.*\)"$/\1/p' "$top_srcdir/src/cli/target.h")
		grep -oE 'getopt_long\([^"]*"[^"]*"( KP_TARGET_SHORT)?' "$f" |
			sed "s/.*\"\\(.*\\)\"/\\1/; s/ KP_TARGET_SHORT\$/$short/" |
			tr -d '+:' | grep -oE '[a-zA-Z0-9]' | sed 's/^/-/'
		if grep -q KP_SVG_LONG_OPTS "$f"; then
			grep -oE '\{ "[a-z][a-z0-9-]*"' "$top_srcdir/src/cli/svgopts.h" | sed 's/{ "/--/; s/"//'
		fi
		# the target options' tables (src/cli/target.h), each as the command names it
		for m in KP_TARGET_OPTIONS KP_TARGET_CPU_OPTION KP_TARGET_DURATION_OPTIONS; do
			grep -qE "$m(,|$)" "$f" &&
				awk -v m="$m" '$0 ~ "^#define " m "( |$)" { on = 1 } on { print } on && !/\\$/ { on = 0 }' \
					"$top_srcdir/src/cli/target.h" |
				grep -oE '\{ "[a-z][a-z0-9-]*"' | sed 's/{ "/--/; s/"//'
		done
		# kprof report's views' own options (kp_view_option tables)
		if [ "$1" = report ]; then
			grep -hoE "^$(printf '\t')\\{ \"[a-z][a-z0-9-]*\", \"" "$top_srcdir"/report/views/view-*.c |
				sed 's/.*{ "/--/; s/", "//'
		fi
	} | sort -u
}

for page in kprof $(for c in $cmds; do echo "kprof-$c"; done) kprof-data; do
	sec=1; [ $page = kprof-data ] && sec=5
	f="$MAN/$page.$sec"
	if [ ! -s "$f" ]; then
		fail "$page($sec) is built from src/man/$page.scd" "no $f"
		continue
	fi
	warn=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$f" 2>&1 >/dev/null)
	check "$page($sec) renders without a warning${warn:+: $warn}" [ -z "$warn" ]
	warn=$({ groff -man -ww -z -Tutf8 "$f" 2>&1 >/dev/null
		LC_ALL=C grep -n '[^[:print:][:space:]]' "$f" | cut -d: -f1 | head -5 |
			paste -sd, - | sed -n 's/^./not ASCII at line &/p'; } | head -3)
	check "...and through groff without preconv, ASCII${warn:+: $warn}" [ -z "$warn" ]
	if command -v mandoc >/dev/null 2>&1; then
		lint=$(mandoc -Tlint -W warning "$f" 2>&1 | head -3)
		check "$page($sec) has no warning by mandoc -Tlint${lint:+: $lint}" [ -z "$lint" ]
	else
		skip "mandoc is not installed (contrib/setup.sh --check installs it)"
	fi
done

for c in $cmds; do
	f="$MAN/kprof-$c.1"
	[ -s "$f" ] || continue
	opts_help "$c" >"$WORK/$c.help"
	opts_page "$f" >"$WORK/$c.page"
	opts_src "$c" >"$WORK/$c.src"
	missing=$(comm -23 "$WORK/$c.help" "$WORK/$c.page" | paste -sd' ' -)
	check "kprof-$c(1) documents every option of kprof $c --help${missing:+ (not: $missing)}" [ -z "$missing" ]
	extra=$(comm -13 "$WORK/$c.help" "$WORK/$c.page" | paste -sd' ' -)
	check "...and every option it documents is in --help${extra:+ (not: $extra)}" [ -z "$extra" ]
	if [ -s "$WORK/$c.src" ]; then
		unknown=$(comm -23 "$WORK/$c.page" "$WORK/$c.src" | paste -sd' ' -)
		check "...and in the getopt tables of its source${unknown:+ (not: $unknown)}" [ -z "$unknown" ]
	else # kprof view reads its few arguments by hand: --help is its only table
		pass "...kprof $c has no getopt table: --help is its list of options"
	fi
done

"$KPROF" stat --help >"$WORK/h.out" 2>&1
check "kprof stat --help ends by pointing to its page" \
	sh -c "tail -1 '$WORK/h.out' | grep -qx 'The whole manual: man kprof-stat (or kprof help stat)'"
MANPAGER=cat PAGER=cat MANWIDTH=80 "$KPROF" help stat >"$WORK/help.out" 2>"$WORK/help.err" </dev/null
if [ -s "$top_builddir/src/man/kprof-stat.1" ] || man -w kprof-stat >/dev/null 2>&1; then
	check "kprof help stat shows kprof-stat(1) (installed, or the build tree's beside the binary)" \
		grep -q "kprof-stat - " "$WORK/help.out"
else
	check "kprof help stat, with no page installed or built, shows the usage and says so" \
		sh -c "grep -q '^usage: kprof stat' '$WORK/help.out' && grep -q 'kprof-stat(1) is not installed' '$WORK/help.err'"
fi
"$KPROF" help nosuch >/dev/null 2>"$WORK/nosuch.err"
check "kprof help nosuch: not a command (status $?)" \
	sh -c "[ $? -eq 2 ] && grep -q \"'nosuch' is not a kprof command\" '$WORK/nosuch.err'"
done_testing
