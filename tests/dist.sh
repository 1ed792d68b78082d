#!/bin/sh
# The tarball of `make dist` holds sources alone, whichever tree it is made from (a build in the
# source tree leaves its objects and programs beside the sources): no object file, archive,
# dependency file or output of configure, nothing the Makefile builds or cleans (its programs,
# the fuzz targets, generated headers, test logs); and, made from a git checkout, every file
# git tracks but .gitignore and .ci/.
. "$top_srcdir/tests/live/lib.sh"
command -v tar >/dev/null 2>&1 || skip_all "tar is not installed"
b=$(cd "$top_builddir" && pwd) || exit 1

# make as a command of its own: the MAKEFLAGS of `make check` would carry its -j, its jobserver
# and its TESTS into it
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$b" "$@"; }

name=kprof-dist-check
if mk dist distdir=$name GZIP_ENV=--fast >"$WORK/dist.out" 2>&1 && mv "$b/$name.tar.gz" "$WORK/dist.tar.gz"; then
	pass "make dist writes a tarball"
else
	fail "make dist writes a tarball" "$(tail -n 3 "$WORK/dist.out")"
	rm -rf "$b/$name" "$b/$name.tar.gz"
	done_testing
	exit
fi
tar tzf "$WORK/dist.tar.gz" | sed -n "s|^$name/||p" | grep -v '/$' | sort >"$WORK/files"
n=$(wc -l <"$WORK/files")

# what a build makes, by name, and what configure writes
grep -E '\.(o|a|so|Po|Plo|d|trs|log|time)$|(^|/)\.deps/|(^|/)\.dirstamp$|(^|/)(Makefile|config\.h|config\.status|stamp-h1)$' \
	"$WORK/files" >"$WORK/products"
check "its $n files hold no object file, archive, dependency file or output of configure$(
	[ -s "$WORK/products" ] && printf ' (not: %s)' "$(head -n 5 "$WORK/products" | tr '\n' ' ')")" \
	[ ! -s "$WORK/products" ]

# what the Makefile builds or cleans, as its own variables name it
cat >"$WORK/built.mk" <<'EOF'
kp-dist-built:
	@for f in $(PROGRAMS) $(check_PROGRAMS) $(FUZZ_PROGS) $(BUILT_SOURCES) $(CLEANFILES) $(check_DATA); do echo "$$f"; done
EOF
mk -f Makefile -f "$WORK/built.mk" kp-dist-built | sort -u >"$WORK/built"
comm -12 "$WORK/files" "$WORK/built" >"$WORK/both"
check "...nor any of the $(wc -l <"$WORK/built") programs and files the Makefile builds$(
	[ -s "$WORK/both" ] && printf ' (not: %s)' "$(head -n 5 "$WORK/both" | tr '\n' ' ')")" \
	sh -c "[ -s '$WORK/built' ] && [ ! -s '$WORK/both' ]"

# every source: what git tracks, when the source tree is a checkout of its own
src=$(cd "$top_srcdir" && pwd -P)
if command -v git >/dev/null 2>&1 &&
	[ "$(git -C "$src" rev-parse --show-toplevel 2>/dev/null)" = "$src" ]; then
	git -C "$src" ls-files | grep -v -E '^(\.gitignore|\.ci/.*)$' | sort >"$WORK/tracked"
	comm -23 "$WORK/tracked" "$WORK/files" >"$WORK/missing"
	check "...and every one of the $(wc -l <"$WORK/tracked") files git tracks$(
		[ -s "$WORK/missing" ] && printf ' (not: %s)' "$(head -n 5 "$WORK/missing" | tr '\n' ' ')")" \
		[ ! -s "$WORK/missing" ]
else
	skip "the source tree is not a git checkout: no list of its sources to hold the tarball to"
fi
done_testing
