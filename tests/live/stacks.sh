# stacks.sh - how deep DWARF stacks go and how many reach the thread's entry, read the same
# way from kprof's folded stacks and from perf script: for tests/live/distro.sh and the bench.
# Sourced; POSIX sh and mawk.

# kstats FOLDED [RE [ENTRY]]: "REACH DEPTH SAMPLES" of kprof's folded stacks (--weight samples
# --no-inline --annotate): the share (%) of samples whose stack holds __libc_start_call_main,
# and the mean number of user frames (kernel ones, marked _[k], follow whatever the kernel was
# doing); with RE, only of the stacks through a function matching it (not start-up's, whose
# share a busy machine changes from run to run); with ENTRY, the stacks that hold a function of
# that name (an awk regular expression: "__libc_start_call_main|start_thread" for threads too)
kstats() {
	awk -v re="${2:-}" -v entry="^(${3:-__libc_start_call_main})\$" '{
		c = $NF; s = $0; sub(/ [0-9]+$/, "", s); m = split(s, a, ";"); n = 0
		if (re != "") { k = 0; for (i = 2; i <= m; i++) if (a[i] ~ re) k = 1; if (!k) next }
		for (i = 2; i <= m; i++) if (a[i] !~ /_\[k\]$/) n++
		t += c; d += n * c
		for (i = 2; i <= m; i++) if (a[i] ~ entry) { r += c; break } }
	END { printf "%.2f %.2f %d", t ? 100 * r / t : 0, t ? d / t : 0, t }' "$1"
}
# pstats SCRIPT [RE [ENTRY]]: the same of `perf script -F ip,sym,dso --no-inline` (one line a
# frame, a blank line after each sample); the -1 that perf puts where a stack copy ran out is no
# frame
pstats() {
	awk -v re="${2:-}" -v entry=" (${3:-__libc_start_call_main}) [(]" '
		function end() { if (t0 && (re == "" || in_re)) { t++; d += n; if (hit) r++ }
			n = hit = t0 = in_re = 0 }
		NF == 0 { end(); next }
		{ t0 = 1; if (re != "" && $2 ~ re) in_re = 1 }
		$1 == "ffffffffffffffff" || / \(\[kernel\.kallsyms\]\)$/ { next }
		{ n++; if ($0 ~ entry) hit = 1 }
		END { end(); printf "%.2f %.2f %d", t ? 100 * r / t : 0, t ? d / t : 0, t }' "$1"
}
