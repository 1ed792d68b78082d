#!/bin/sh
# Live: binaries fetched by build-id from a real debuginfod (Debian's package), started here on
# a port of 127.0.0.1 with a scanned folder that holds the workload's binary, and stopped by its
# pid. A recording whose binary was deleted reports the same folded stacks as with it present,
# --stats says debuginfod named it, and the file is in libdebuginfod's cache; --no-debuginfod
# asks nothing; on a terminal the fetch shows its progress. A server that is down is named in
# one warning, and one that accepts and never answers costs one connection, not one per binary,
# and the report's time for the servers (DEBUGINFOD_TIMEOUT): the warning says which files were
# not fetched. A server that answers with garbage costs nothing (no leak, under ASan). kprof
# archive stores the symbols of what it fetched.
. "$top_srcdir/tests/live/lib.sh"
require_perf_events
command -v debuginfod >/dev/null 2>&1 || skip_all "no debuginfod (the Debian package 'debuginfod')"

mkdir -p "$WORK/srv" "$WORK/bin" "$WORK/empty"
cp "$SPLIT" "$WORK/bin/app"
cp "$SPLIT" "$WORK/srv/app"
bid=$(readelf -n "$WORK/bin/app" | awk '/Build ID:/ { print $3 }')
"$KPROF" record -g -o "$WORK/r.kprof" -- "$WORK/bin/app" 0.5 >/dev/null 2>&1
env -u DEBUGINFOD_URLS "$KPROF" report -i "$WORK/r.kprof" --folded >"$WORK/before" 2>/dev/null
rm "$WORK/bin/app"
folded() { "$KPROF" report -i "$WORK/r.kprof" --folded "$@"; }

# a free port: one nothing listens on now (ss, else /proc/net/tcp)
free_port() {
	while :; do
		p=$(awk 'BEGIN { srand(); printf "%d", 20000 + 30000 * rand() }')
		hex=$(printf '%04X' "$p")
		grep -q ":$hex " /proc/net/tcp /proc/net/tcp6 2>/dev/null || { echo "$p"; return; }
		sleep 0.1
	done
}
port=$(free_port)
url="http://127.0.0.1:$port"
debuginfod -F -p "$port" -d "$WORK/db.sqlite" -t 0 -g 0 -c 1 "$WORK/srv" >"$WORK/srv.log" 2>&1 &
srv=$!
# the servers this test starts end with it, however it ends
trap 'kill $srv ${mute:-} ${junk:-} 2>/dev/null; rm -rf "$WORK"' EXIT
trap 'exit 1' HUP INT TERM PIPE
# ready once it serves the binary, asked with its own client into a fresh cache each time
# (libdebuginfod caches a "not found" for ten minutes)
served() {
	rm -rf "$WORK/probe"
	DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$WORK/probe debuginfod-find executable "$bid" \
		>/dev/null 2>&1
}
i=0
until served || [ $i -ge 300 ] || ! kill -0 $srv 2>/dev/null; do
	sleep 0.2; i=$((i + 1))
done
check "debuginfod serves the workload's build-id on $url" served

env -u DEBUGINFOD_URLS "$KPROF" report -i "$WORK/r.kprof" --folded >"$WORK/none" 2>/dev/null
check "without a server, the deleted binary's frames are offsets" grep -q ";app+0x" "$WORK/none"
DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$WORK/cache folded >"$WORK/fetched" 2>"$WORK/fetched.err"
check "with the server, the same folded stacks as with the binary present" \
	cmp -s "$WORK/before" "$WORK/fetched"
check "... every frame named (no app+0x)" sh -c '! grep -q ";app+0x" "$1"' - "$WORK/fetched"
check "... and the binary is in libdebuginfod's cache" \
	sh -c 'find "$1" -name executable | grep -q "$2"' - "$WORK/cache" "$bid"
DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$WORK/cache \
	"$KPROF" report -i "$WORK/r.kprof" --stats >"$WORK/stats" 2>/dev/null
check "--stats: the binary was named by debuginfod, its file missing" \
	grep -q "^#   $WORK/bin/app: .*, from debuginfod (the file: missing)" "$WORK/stats"
DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$WORK/cache2 folded --no-debuginfod >"$WORK/off" 2>/dev/null
check "--no-debuginfod: the frames stay offsets" grep -q ";app+0x" "$WORK/off"
check "... and nothing was fetched" sh -c '! find "$1" -name executable 2>/dev/null | grep -q .' - "$WORK/cache2"
if command -v script >/dev/null 2>&1; then
	DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$WORK/cache3 \
		script -qec "'$KPROF' report -i '$WORK/r.kprof' --folded -o '$WORK/tty.f'" /dev/null \
		>"$WORK/tty.out" 2>&1
	check "on a terminal, the fetch shows its progress, naming the server" \
		grep -q "kprof: debuginfod: $url.* KiB" "$WORK/tty.out"
else
	skip "no script(1) to give the report a terminal"
fi
cp "$WORK/r.kprof" "$WORK/a.kprof"
DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$WORK/cache "$KPROF" archive -i "$WORK/a.kprof" 2>/dev/null
"$KPROF" report -i "$WORK/a.kprof" --folded --no-debuginfod >"$WORK/archived" 2>/dev/null
check "kprof archive with the server stores what it fetched: the same stacks with no server" \
	cmp -s "$WORK/before" "$WORK/archived"
kill $srv
wait $srv 2>/dev/null

# --- a server that is down: one warning that names it; the report still succeeds
DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$WORK/cache4 folded >"$WORK/down" 2>"$WORK/down.err"
rc=$?
check "a server that is down: the report succeeds ($rc) with offsets" \
	sh -c '[ "$1" -eq 0 ] && grep -q ";app+0x" "$2"' - "$rc" "$WORK/down"
check "... and says once that $url did not answer" \
	sh -c '[ "$(grep -c "debuginfod at $2 did not answer" "$1")" -eq 1 ]' - "$WORK/down.err" "$url"

# --- servers of python3's on loopback: one that answers every query with random bytes, and
# one that accepts and never answers
if command -v python3 >/dev/null 2>&1; then
	listening() { # listening PORT: wait (up to 10 s) until something listens on it
		i=0
		while ! grep -q ":$(printf '%04X' "$1") " /proc/net/tcp && [ $i -lt 100 ]; do
			sleep 0.1; i=$((i + 1))
		done
	}
	# garbage for a binary and for its debug file: not ELF, refused, and nothing leaks of it
	port3=$(free_port)
	python3 -c '
import http.server, os, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = os.urandom(4096)
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
' "$port3" &
	junk=$!
	listening "$port3"
	DEBUGINFOD_URLS=http://127.0.0.1:$port3 DEBUGINFOD_CACHE_PATH=$WORK/cache6 \
		folded --stats >"$WORK/junk" 2>"$WORK/junk.err"
	rc=$?
	check "a server that answers with garbage: the report succeeds ($rc; a leak fails it under ASan)" \
		sh -c '[ "$1" -eq 0 ] && grep -q ";app+0x" "$2"' - "$rc" "$WORK/junk"
	check "... and --stats says what it gave is not ELF" \
		grep -q "^#   $WORK/bin/app: .*, from debuginfod: not ELF (the file: missing)" "$WORK/junk.err"
	kill $junk
	wait $junk 2>/dev/null

	# a server that accepts and never answers: one connection, whatever the binaries missing
	# (the query is not tried again once out of time), and the report ends once the time it
	# gives the servers, all queries together, has run out: DEBUGINFOD_TIMEOUT, 2 s here
	port2=$(free_port)
	python3 -c '
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(16)
n = 0; held = []
s.settimeout(0.2)
end = time.time() + 120
while time.time() < end:
    try:
        c, _ = s.accept(); held.append(c); n += 1
        open(sys.argv[2], "w").write("%d\n" % n)
    except socket.timeout:
        pass
' "$port2" "$WORK/conns" &
	mute=$!
	listening "$port2"
	echo 0 >"$WORK/conns"
	t0=$(date +%s.%N)
	DEBUGINFOD_URLS=http://127.0.0.1:$port2 DEBUGINFOD_TIMEOUT=2 DEBUGINFOD_CACHE_PATH=$WORK/cache5 \
		timeout 100 "$KPROF" report -i "$WORK/r.kprof" --folded --symfs "$WORK/empty" \
		>"$WORK/mute" 2>"$WORK/mute.err"
	rc=$?
	took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	missing=$("$KPROF" report -i "$WORK/r.kprof" --stats --symfs "$WORK/empty" --no-debuginfod 2>/dev/null | grep -c ": missing$")
	# the bound is loose (a busy machine runs the report slowly): without the limit, the
	# query alone took libdebuginfod's 90 s, three times
	check "a server that never answers, DEBUGINFOD_TIMEOUT=2: the report ends ($rc) in $took s" \
		sh -c '[ "$1" -eq 0 ] && awk -v t="$2" "BEGIN { exit !(t < 30) }"' - "$rc" "$took"
	[ $rc -eq 0 ] || grep -v "^kprof: warning: .*: missing: " "$WORK/mute.err" | head -20 | sed 's/^/# /'
	check "... after $(cat "$WORK/conns") connection for $missing missing binaries" \
		sh -c '[ "$(cat "$1")" -eq 1 ] && [ "$2" -ge 2 ]' - "$WORK/conns" "$missing"
	check "... and the warning names it, the time, and the files not fetched" grep -q \
		"debuginfod at http://127.0.0.1:$port2 did not answer within the 2 s a report gives it (DEBUGINFOD_TIMEOUT sets it): not fetched: the binary of '$WORK/empty/" \
		"$WORK/mute.err"
	kill $mute
	wait $mute 2>/dev/null
else
	skips 5 "no python3 for a server of garbage, and one that never answers"
fi
done_testing
