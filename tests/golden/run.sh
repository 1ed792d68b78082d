#!/bin/sh
# Golden reports: kprof report on tests/golden/basic.kprof (made by mkfixture from synthetic
# records over the checked-in root/usr/bin/tiny), compared byte for byte with the expected
# files. KPROF_BLESS=1 rewrites the fixture and the expected files from what kprof prints now.
. "$top_srcdir/tests/live/lib.sh"
g="$top_srcdir/tests/golden"

if [ -n "${KPROF_BLESS:-}" ]; then
	"$top_builddir/tests/golden/mkfixture" "$g/basic.kprof" || exit 1
fi

# case NAME ARGS...: one report, compared with $g/expected/NAME
case_() {
	name=$1; shift
	# from inside the directory, so that the paths in the output do not depend on the build
	(cd "$g" && "$KPROF" report -i basic.kprof --symfs root --color never "$@") \
		>"$WORK/$name" 2>"$WORK/$name.err"
	rc=$?
	if [ -n "${KPROF_BLESS:-}" ]; then
		mkdir -p "$g/expected"
		cp "$WORK/$name" "$g/expected/$name"
	fi
	if [ $rc -eq 0 ] && diff -u "$g/expected/$name" "$WORK/$name" >"$WORK/$name.diff"; then
		pass "golden $name: report $*"
	else
		fail "golden $name: report $* (status $rc)" "$(head -40 "$WORK/$name.diff")" \
			"$(cat "$WORK/$name.err")"
	fi
}

case_ tree --tree
case_ tree-srcline --tree --srcline
case_ tree-no-inline --tree --no-inline
case_ tree-inverted --tree --inverted
case_ tree-limit --tree --percent-limit 10
case_ flat --flat
case_ flat-comm-dso --flat --sort comm,dso,sym
case_ folded --folded
case_ folded-annotate --folded --annotate
case_ stats --flat --stats
case_ filter-tid --folded --tid 4243
case_ filter-comm --folded --comm other,worker
case_ filter-time --folded --time 1.000002,1.000010
case_ filter-cpu --folded --cpu 1

# The binary that is on disk with another build-id is reported once, not per sample.
(cd "$g" && "$KPROF" report -i basic.kprof --symfs root) >/dev/null 2>"$WORK/warn"
n=$(grep -c "build-id mismatch" "$WORK/warn")
check "a rebuilt binary is reported once ($n)" [ "$n" -eq 1 ]
check "a missing library is reported once" [ "$(grep -c "libgone.so': missing" "$WORK/warn")" -eq 1 ]

done_testing
