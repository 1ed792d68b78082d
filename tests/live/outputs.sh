#!/bin/sh
# Live: every command that writes (record, report, stat, flamegraph, diff, convert both ways,
# unwind, script) with its output a character device, a FIFO, /dev/stdout and "-". A regular
# file is replaced atomically (a temporary file beside it, renamed); anything else that exists
# is written as it is. Renaming a file over /dev/null, as root, would leave the machine without
# one: the device here is a node of the null device made for the test (as root), so that a
# writer that replaces it loses only the test's node, and the test sees it.
. "$top_srcdir/tests/live/lib.sh"
require_perf_events

"$KPROF" record -g -o "$WORK/r.kprof" -- "$SPLIT" 0.3 >/dev/null 2>&1 ||
	skip_all "kprof record cannot record here"
printf 'main;a 3\nmain;b 1\n' >"$WORK/base.folded"
printf 'main;a 1\nmain;b 3\n' >"$WORK/new.folded"

if [ "$(id -u)" -eq 0 ] && mknod -m 666 "$WORK/null" c 1 3 2>/dev/null; then
	DEV="$WORK/null"
else
	DEV=/dev/null # not root: nothing can replace it
fi
mkfifo "$WORK/fifo"

# The writers, each as "NAME|ARGS", its output given as @OUT@; what it writes to a regular
# file is what a device, a FIFO and standard output must receive.
writers() {
	cat <<EOF
record|record -o @OUT@ -- $SPLIT 0.05
report --flat|report -i $WORK/r.kprof --flat -o @OUT@
report --svg|report -i $WORK/r.kprof --svg -o @OUT@
report --format pprof|report -i $WORK/r.kprof --format pprof -o @OUT@
stat -x,|stat -x, -e task-clock -o @OUT@ -- true
flamegraph|flamegraph -o @OUT@ $WORK/base.folded
diff|diff -o @OUT@ $WORK/base.folded $WORK/new.folded
convert --to perf|convert --to perf -i $WORK/r.kprof -o @OUT@
convert --to kprof|convert --to kprof -i $WORK/r.kprof -o @OUT@
unwind|unwind -i $WORK/r.kprof -o @OUT@
EOF
}
# run ARGS OUT: the writer with its output OUT, its stderr in $WORK/err
run() { eval "\"\$KPROF\" $(printf '%s' "$1" | sed "s|@OUT@|$2|g")" </dev/null 2>"$WORK/err"; }
# same NAME A B: two outputs of one writer are the same: the same bytes, the same stacks of
# two recordings made from one, or for a new recording or count, the same kind of content
same() {
	case $1 in
	record) "$KPROF" report -i "$3" --folded >"$WORK/same.b" 2>&1 && [ -s "$WORK/same.b" ] ;;
	unwind|convert\ --to\ kprof)
		"$KPROF" report -i "$2" --folded >"$WORK/same.a" 2>&1 &&
			"$KPROF" report -i "$3" --folded >"$WORK/same.b" 2>&1 &&
			[ -s "$WORK/same.a" ] && cmp -s "$WORK/same.a" "$WORK/same.b" ;;
	stat*) [ -s "$3" ] && [ "$(cut -d, -f3 "$2")" = "$(cut -d, -f3 "$3")" ] ;;
	*) [ -s "$3" ] && cmp -s "$2" "$3" ;;
	esac
}
# verdict DESCRIPTION OK: pass, or fail with the writer's stderr
verdict() { if [ "$2" = 1 ]; then pass "$1"; else fail "$1" "$(cat "$WORK/err")"; fi; }

writers >"$WORK/writers"
while IFS='|' read -r name args; do
	rm -f "$WORK/file.out" "$WORK/fifo.out" "$WORK/stdout.out" "$WORK/dash.out"
	run "$args" "$WORK/file.out" >/dev/null
	ok=0; [ $? -eq 0 ] && [ -s "$WORK/file.out" ] && ok=1
	verdict "$name: a regular file is written" $ok

	run "$args" "$DEV" >/dev/null
	ok=0; [ $? -eq 0 ] && [ -c "$DEV" ] && ok=1
	verdict "$name -o a character device: status 0, and it is still a device" $ok

	cat "$WORK/fifo" >"$WORK/fifo.out" &
	reader=$!
	run "$args" "$WORK/fifo" >/dev/null
	rc=$?
	wait $reader
	ok=0; [ $rc -eq 0 ] && [ -p "$WORK/fifo" ] && same "$name" "$WORK/file.out" "$WORK/fifo.out" && ok=1
	verdict "$name -o a FIFO: status 0, its reader gets what a file gets, and it is still a FIFO" $ok

	run "$args" /dev/stdout >"$WORK/stdout.out"
	ok=0; [ $? -eq 0 ] && same "$name" "$WORK/file.out" "$WORK/stdout.out" && ok=1
	verdict "$name -o /dev/stdout, standard output a file: status 0, what a file gets" $ok

	{ run "$args" -; echo $? >"$WORK/rc"; } | cat >"$WORK/dash.out"
	ok=0; [ "$(cat "$WORK/rc")" -eq 0 ] && same "$name" "$WORK/file.out" "$WORK/dash.out" && ok=1
	verdict "$name -o -, standard output a pipe: status 0, what a file gets" $ok
done <"$WORK/writers"

# a recording on standard output: the command's own output goes to standard error, not into it
"$KPROF" record -o - -- "$SPLIT" 0.05 2>"$WORK/err" | cat >"$WORK/dash.out"
"$KPROF" report -i "$WORK/dash.out" --flat >"$WORK/dash.flat" 2>&1
check "record -o -: the recording reads back, the command's output not in it (status $?)" \
	grep -q '^# kprof report of' "$WORK/dash.flat"
check "...it went to standard error" grep -q '^cpu_ns=' "$WORK/err"
check "...which says so" grep -q "the recording goes to standard output: '$SPLIT' writes to standard error" "$WORK/err"

# script has no -o: its standard output is the device or the FIFO
"$KPROF" script -i "$WORK/r.kprof" >"$DEV"
check "script > a character device: status $?, and it is still a device" [ -c "$DEV" ]
cat "$WORK/fifo" >"$WORK/fifo.out" &
reader=$!
"$KPROF" script -i "$WORK/r.kprof" >"$WORK/fifo"
wait $reader
"$KPROF" script -i "$WORK/r.kprof" >"$WORK/file.out"
check "script > a FIFO: its reader gets the whole output" cmp -s "$WORK/fifo.out" "$WORK/file.out"

# a recording's old file is kept as FILE.old; a device is not renamed to DEV.old
"$KPROF" record -o "$DEV" -- true >/dev/null 2>&1
check "record -o a device keeps no DEV.old" [ ! -e "$DEV.old" ]
# a recording that fails leaves a device where it was (a file it made is removed)
"$KPROF" record -o "$DEV" -e no-such-event -- true >/dev/null 2>&1
check "a failed record -o a device leaves the device in place" [ -c "$DEV" ]
# a directory is an error that names it
"$KPROF" report -i "$WORK/r.kprof" --flat -o "$WORK" >/dev/null 2>"$WORK/err"
check "report -o a directory fails with status 1 ($?)" [ $? -eq 1 ]
check "...saying so" grep -q "cannot write '$WORK': Is a directory" "$WORK/err"
# a link to a regular file is still refused; a link to a device is written through
ln -s "$WORK/file.out" "$WORK/link"
"$KPROF" report -i "$WORK/r.kprof" --flat -o "$WORK/link" >/dev/null 2>"$WORK/err"
check "a symbolic link to a file is refused (status $?)" grep -q "is a symbolic link" "$WORK/err"
ln -s "$DEV" "$WORK/devlink"
"$KPROF" report -i "$WORK/r.kprof" --flat -o "$WORK/devlink" >/dev/null 2>&1
check "a symbolic link to a device is written through (status $?), and stays a link" \
	sh -c "[ -L '$WORK/devlink' ] && [ -c '$DEV' ]"
check "/dev/null is a character device after all of this" [ -c /dev/null ]
done_testing
