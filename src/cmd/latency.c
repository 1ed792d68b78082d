/* SPDX-License-Identifier: MIT */
/*
 * latency.c - `kprof latency`: the durations between two events, paired by a key
 * (report/tools/latency.h), as bcc's funclatency, biolatency and runqlat show them: a log2 (or
 * linear) histogram, percentiles, a breakdown on request, and what no BPF one-liner gives:
 * the call chains of the slowest STARTs, and a flame graph of every START weighted by its
 * duration. It records the two events with call chains (or reads -i FILE).
 */
#include "config.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/cmd/cmd.h"
#include "src/cli/options.h"
#include "src/cli/target.h"
#include "src/record/diag.h"
#include "formats/util.h"
#include "src/cli/fetch.h"
#include "src/cli/input.h"
#include "src/cli/output.h"
#include "src/record/recorder.h"
#include "report/tools/latency.h"
#include "report/base/text.h"
#include "report/views/view.h"

static const char latency_usage[] =
	"usage: kprof latency --pair START/END [options] [--] COMMAND [ARGS...]\n"
	"       kprof latency --pair START/END [options] -a | -p PID | -t TID | -u USER\n"
	"       kprof latency --pair START/END [options] -i FILE\n"
	"\n"
	"The time from each START event to the END event of the same key: a histogram,\n"
	"percentiles, the call chains of the slowest STARTs, and a flame graph of them all.\n"
	"Known pairs and their keys:\n"
	"  block:block_rq_issue/block:block_rq_complete         dev,sector (as biolatency)\n"
	"  sched:sched_wakeup/sched:sched_switch                 pid/next_pid (as runqlat: also\n"
	"      from sched_wakeup_new, and from a sched_switch that leaves its task runnable)\n"
	"  lock:contention_begin/lock:contention_end             tid,lock_addr (a task's wait\n"
	"      for a kernel lock, from its first begin, as perf lock contention)\n"
	"  uprobe:PATH:FUNC/uretprobe:PATH:FUNC                  tid (as funclatency)\n"
	"  syscalls:sys_enter_NAME/syscalls:sys_exit_NAME        tid\n"
	"any other pair is keyed by the thread (tid) unless --key says otherwise. Named pairs:\n"
	"--pair lock, runqlat (sched_wakeup) and biolatency (block_rq_issue).\n"
	"\n"
	"      --pair START/END   the two events (tracepoints, probes), or a pair's name\n"
	"      --key K[/K2]       the key fields, comma-separated: a tracepoint's fields, or the\n"
	"                         sample's tid, pid or cpu; K2 for END when its names differ\n"
	"      --by FIELD         a table of the durations by this START field, or by the\n"
	"                         comm, pid or tid of the task it names (sched_wakeup's woken)\n"
	"      --linear US        a linear histogram, buckets of US microseconds\n"
	"      --top N            the N slowest with their START's call chain (default 5)\n"
	"      --svg FILE         a flame graph of the STARTs' stacks weighted by duration\n"
	"  -a, --all-cpus         every process\n"
	"  -p, --pid PID[,PID]    attach to running processes\n"
	"  -t, --tid TID[,TID]    attach to threads\n"
	"  -u, --uid USER         attach to the processes of USER\n"
	"      --duration SECONDS\n"
	"                         with -a, -p, -t or -u: stop after this long\n"
	"      --time SECONDS     the same as --duration (its former name, as kprof trace's)\n"
	"  -m, --mmap-pages N     data pages per CPU ring, a power of two (default 256)\n"
	"  -o, --output FILE      keep the recording in FILE\n"
	"  -i, --input FILE       pair the events of a recording instead of recording\n"
	"  -h, --help             this text\n";

/* A known pair: its key fields, START's and END's, and what more it takes to be what the tool
 * its users know measures: more STARTs (@also, with what the header says of them, @said), and
 * a test on its ENDs. */
struct known {
	const char *name;		/* its name for --pair, or NULL */
	const char *start, *end, *keys;
	const struct kp_latency_part *also;
	size_t nr_also;
	struct kp_latency_test end_when;
	const char *said;
	bool first;			/* START keeps the first of a key (kp_latency_part.first) */
	const char *note;		/* what the header says of the pairing, or NULL */
};

/* The idle task (pid 0) runs when nothing waits: it never waits on a run queue itself. */
#define NOT_IDLE(f) { f, ~0ull, 0, true }

/*
 * runqlat's STARTs beside the wakeup: a new task's first (sched_wakeup_new), and a task
 * switched out still runnable (prev_state R, preempted or yielding: the state's bits below
 * TASK_REPORT_MAX, 0x100, all clear), which is back on the run queue until switched in.
 */
static const struct kp_latency_part runq[] = {
	{ .event = "sched:sched_wakeup_new", .keys = { "pid" }, .optional = true },
	{ .event = "sched:sched_switch", .keys = { "prev_pid" }, .prefix = "prev_",
	  .when = { { "prev_state", 0xff, 0, false }, NOT_IDLE("prev_pid") } },
};
#define RUNQ .also = runq, .nr_also = ARRAY_SIZE(runq), .end_when = NOT_IDLE("next_pid"), \
	.said = "a new task (sched:sched_wakeup_new, by pid), and of a task switched out " \
		"runnable (sched:sched_switch with prev_state R: preempted), by prev_pid, as " \
		"runqlat"
#define PAIR(s, e, k) .start = s, .end = e, .keys = k

static const struct known known[] = {
	{ PAIR("block:block_rq_issue", "block:block_rq_complete", "dev,sector"),
	  .name = "biolatency" },
	{ PAIR("block:block_rq_insert", "block:block_rq_complete", "dev,sector") },
	{ PAIR("block:block_rq_insert", "block:block_rq_issue", "dev,sector") },
	{ PAIR("sched:sched_wakeup", "sched:sched_switch", "pid/next_pid"), RUNQ,
	  .name = "runqlat" },
	{ PAIR("sched:sched_waking", "sched:sched_switch", "pid/next_pid"), RUNQ },
	{ PAIR("sched:sched_wakeup_new", "sched:sched_switch", "pid/next_pid"),
	  .end_when = NOT_IDLE("next_pid") },
	/* a task waiting for a kernel lock (mutex, rwsem, spinlock, ...): the same task begins
	 * and ends it, so by the thread and the lock; a mutex's contention begins again when the
	 * task stops spinning on it to sleep, and the first begin counts, as perf lock contention
	 * counts it */
	{ PAIR("lock:contention_begin", "lock:contention_end", "tid,lock_addr"), .name = "lock",
	  .first = true,
	  .note = "a contention for a lock that begins again before it ends (a mutex's spinning "
		  "given up for sleeping) counts from its first begin" },
};

struct latency {
	struct kp_latency_opts lo;
	const char *pair, *key, *svg, *output, *input;
	char *start, *end;
	char *keybuf;
	uint64_t linear_ns;
	const struct known *known;	/* the known pair taken, with its parts */
	struct kp_output svg_out;
	FILE *svg_f;
	struct kp_record_opts ro;
};

/*
 * System calls that glibc (2.36, x86-64) does not make for the functions of their name: it
 * makes another (or none: the vDSO answers them), and some have no tracepoint at all here. A
 * pair of their events that never fired, or that names no tracepoint, names the one to trace.
 */
#define STATX " (coreutils' stat and ls make statx)"
static const struct {
	const char *name, *makes, *funcs;
} glibc_calls[] = {
	{ "nanosleep", "clock_nanosleep", "nanosleep(), sleep() and usleep()" },
	{ "open", "openat", "open(), fopen() and opendir()" },
	{ "stat", "newfstatat", "stat()" STATX },
	{ "newstat", "newfstatat", "stat()" STATX },
	{ "lstat", "newfstatat", "lstat()" STATX },
	{ "newlstat", "newfstatat", "lstat()" STATX },
	{ "fstat", "newfstatat", "fstat()" },
	{ "newfstat", "newfstatat", "fstat()" },
	{ "pipe", "pipe2", "pipe()" },
	{ "select", "pselect6", "select()" },
	{ "getrlimit", "prlimit64", "getrlimit()" },
	{ "setrlimit", "prlimit64", "setrlimit()" },
	{ "utime", "utimensat", "utime()" },
	{ "utimes", "utimensat", "utimes()" },
	{ "getdents", "getdents64", "readdir()" },
	{ "fork", "clone", "fork()" },
	{ "clone", "clone3", "pthread_create(), posix_spawn() and system()" },
	{ "wait", "wait4", "wait() and waitpid()" },
	{ "waitpid", "wait4", "wait() and waitpid()" },
	{ "sigaction", "rt_sigaction", "sigaction() and signal()" },
	{ "signal", "rt_sigaction", "sigaction() and signal()" },
	{ "sigprocmask", "rt_sigprocmask", "sigprocmask()" },
	{ "gettimeofday", NULL, "gettimeofday()" },
	{ "clock_gettime", NULL, "clock_gettime()" },
	{ "time", NULL, "time()" },
};

/* The system call of a syscalls:sys_enter_NAME or sys_exit_NAME event, or NULL. */
static const char *syscall_of(const char *event)
{
	static const char *const prefixes[] = { "syscalls:sys_enter_", "syscalls:sys_exit_" };

	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(event, prefixes[i], strlen(prefixes[i])))
			return event + strlen(prefixes[i]);
	return NULL;
}

/* A hint for a system call's event that never fired (or is no tracepoint): the one glibc
 * makes instead, and the pair to ask for. Whether it gave one. */
static bool hint_glibc(const char *event)
{
	const char *name = syscall_of(event);

	for (size_t i = 0; name && i < ARRAY_SIZE(glibc_calls); i++) {
		if (strcmp(name, glibc_calls[i].name))
			continue;
		if (!glibc_calls[i].makes)
			kp_hint("glibc answers %s in the vDSO, without a system call",
				glibc_calls[i].funcs);
		else
			kp_hint("glibc makes the %s system call for %s: --pair "
				"syscalls:sys_enter_%s/syscalls:sys_exit_%s", glibc_calls[i].makes,
				glibc_calls[i].funcs, glibc_calls[i].makes, glibc_calls[i].makes);
		return true;
	}
	return false;
}

/* START/END: the END is the part after a '/' that begins a probe ("/uretprobe:"), else after
 * the last '/' (tracepoint names hold none; a probe's path does). */
static int split_pair(struct latency *l)
{
	static const char *const probes[] = { "/uretprobe:", "/uprobe:", "/kretprobe:",
					      "/kprobe:", "/usdt:" };
	const char *cut = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(known); i++) /* a known pair by its name */
		if (known[i].name && !strcmp(l->pair, known[i].name)) {
			l->start = kp_xstrdup(known[i].start);
			l->end = kp_xstrdup(known[i].end);
			goto parts;
		}
	for (size_t i = 0; i < ARRAY_SIZE(probes) && !cut; i++)
		cut = strstr(l->pair, probes[i]);
	if (!cut)
		cut = strrchr(l->pair, '/');
	if (!cut || cut == l->pair || !cut[1])
		return kp_usage_error("latency", "--pair takes START/END or a pair's name (lock, "
				      "runqlat, biolatency), not '%s'", l->pair);
	l->start = strndup(l->pair, (size_t)(cut - l->pair));
	l->end = kp_xstrdup(cut + 1);
parts:
	l->lo.parts[0] = (struct kp_latency_part){ .event = l->start };
	l->lo.parts[1] = (struct kp_latency_part){ .event = l->end, .ends = true };
	l->lo.nr_parts = 2;
	return 0;
}

/* "dev,sector" or "pid/next_pid" into START's and END's key lists (in l->keybuf). */
static int parse_keys(struct latency *l, const char *spec, const char **said)
{
	char *slash, *tok, *save = NULL;
	const char **keys[2] = { l->lo.parts[0].keys, l->lo.parts[1].keys };

	free(l->keybuf);
	l->keybuf = kp_xstrdup(spec);
	slash = strchr(l->keybuf, '/');
	if (slash)
		*slash++ = '\0';
	for (int side = 0; side < 2; side++) {
		size_t n = 0;
		char *list = side && slash ? slash : l->keybuf;
		if (side && !slash) { /* the same names for END */
			memcpy(keys[1], keys[0], sizeof(l->lo.parts[0].keys));
			break;
		}
		for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			if (n == KP_LAT_MAX_KEYS - 1)
				return kp_usage_error("latency", "--key takes up to %d fields a side",
						      KP_LAT_MAX_KEYS - 1);
			keys[side][n++] = tok;
		}
		if (!n)
			return kp_usage_error("latency", "--key names no field in '%s'", spec);
		keys[side][n] = NULL;
	}
	*said = spec;
	return 0;
}

/* The keys: --key's, or the known pair's with its parts (which --key of other fields leaves
 * out: they are keyed as the pair is), or the thread. */
static int pair_keys(struct latency *l, const char **said)
{
	for (size_t i = 0; i < ARRAY_SIZE(known); i++)
		if (!strcmp(l->start, known[i].start) && !strcmp(l->end, known[i].end) &&
		    (!l->key || !strcmp(l->key, known[i].keys))) {
			l->known = &known[i];
			l->lo.parts[0].first = known[i].first;
			l->lo.parts[1].when[0] = known[i].end_when;
			for (size_t j = 0; j < known[i].nr_also; j++)
				l->lo.parts[l->lo.nr_parts++] = known[i].also[j];
			return parse_keys(l, known[i].keys, said);
		}
	return parse_keys(l, l->key ? l->key : "tid", said);
}

/* The events to record: each part's, once. */
static int pair_events(struct latency *l)
{
	int rc = 0;

	for (size_t i = 0; i < l->lo.nr_parts && !rc; i++) {
		size_t j = 0;
		while (j < i && strcmp(l->lo.parts[j].event, l->lo.parts[i].event))
			j++;
		if (j == i)
			rc = kp_evspec_parse_arg(l->lo.parts[i].event, &l->ro.evs, &l->ro.nr_evs);
		if (rc == 2) /* said why; and a system call glibc does not make, which it does */
			hint_glibc(l->lo.parts[i].event);
	}
	return rc;
}

/* --- printing -------------------------------------------------------------------------------- */

static void put_dur(uint64_t ns)
{
	if (ns >= 1000000)
		printf("%.3f ms", ns / 1e6);
	else
		printf("%.3f us", ns / 1e3);
}

/* bcc's histogram: a row from the first to the last one with a count, each labelled with the
 * µs it holds as bpftrace labels them, [lo, hi) (kp_latency_row_range()) */
static void histogram(const struct kp_latency *l, uint64_t linear_ns)
{
	uint64_t counts[KP_LAT_ROWS] = { 0 }, max = 0;
	size_t first = SIZE_MAX, last = 0;

	for (size_t i = 0; i < l->nr; i++) {
		size_t b = kp_latency_row(l->ns[i], linear_ns);
		counts[b]++;
		first = b < first ? b : first;
		last = b > last ? b : last;
	}
	if (!l->nr)
		return;
	for (size_t b = first; b <= last; b++)
		max = counts[b] > max ? counts[b] : max;
	printf("\n%23s : count     distribution\n", "usecs");
	for (size_t b = first; b <= last; b++) {
		uint64_t lo, hi;
		char label[64];
		int stars = max ? (int)(counts[b] * 40 / max) : 0;

		kp_latency_row_range(b, linear_ns, &lo, &hi);
		if (hi == UINT64_MAX)
			snprintf(label, sizeof(label), "[%llu, ...)", (unsigned long long)lo);
		else
			snprintf(label, sizeof(label), "[%llu, %llu)", (unsigned long long)lo,
				 (unsigned long long)hi);
		printf("%23s : %-8llu |%-40.*s|\n", label, (unsigned long long)counts[b], stars,
		       "****************************************");
	}
}

static void stack(const struct kp_profile *p, uint32_t node)
{
	size_t n = 0;

	for (uint32_t c = node; c && n < 32; c = p->nodes[c].parent)
		if (!(p->locs[p->nodes[c].loc].flags & KP_LOC_COMM)) {
			printf("        ");
			kp_text_put(stdout, 0, kp_profile_name(p, c));
			putchar('\n');
			n++;
		}
	if (!n)
		printf("        [no call chain]\n");
}

static void slowest(const struct kp_latency *l)
{
	if (!l->nr_top)
		return;
	printf("\n# the %zu slowest, with the call chain of their START (leaf first):\n",
	       l->nr_top);
	for (size_t i = 0; i < l->nr_top; i++) {
		const struct kp_latency_pair *p = &l->top[i];
		const char *comm = kp_strtab_get(&l->s.strs, p->comm);
		printf("  ");
		put_dur(p->ns);
		printf(" from %llu.%06llu s, ", (unsigned long long)(p->start / 1000000000),
		       (unsigned long long)(p->start % 1000000000 / 1000));
		kp_text_put(stdout, 0, *comm ? comm : "[unknown]");
		printf("/%u\n", p->tid);
		stack(&l->prof, p->node);
	}
}

static int by_count(const void *a, const void *b)
{
	const struct kp_latency_group *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return (x->value > y->value) - (x->value < y->value);
}

static void groups(struct kp_latency *l)
{
	if (!l->o->by || !l->nr_groups)
		return;
	qsort(l->groups, l->nr_groups, sizeof(*l->groups), by_count);
	printf("\n# by %s: count, average, max\n", l->o->by);
	for (size_t i = 0; i < l->nr_groups; i++) {
		const struct kp_latency_group *g = &l->groups[i];
		if (!strcmp(l->o->by, "comm")) {
			printf("  ");
			kp_text_put(stdout, -20, kp_strtab_get(&l->s.strs, g->comm));
		} else if (g->value > UINT32_MAX) { /* an address: lock_addr */
			char hex[32];

			snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)g->value);
			printf("  %-20s", hex);
		} else {
			printf("  %-20llu", (unsigned long long)g->value);
		}
		printf(" %8llu  ", (unsigned long long)g->count);
		put_dur(g->total / g->count);
		printf("  ");
		put_dur(g->max);
		putchar('\n');
	}
}

static int flame_graph(struct latency *lt, struct kp_latency *l)
{
	struct kp_view_opts vo = { .event = 0 };

	kp_svg_opts_init(&vo.svg);
	vo.svg.countname = "ns";
	vo.svg.title = "Latency";
	vo.svg.subtitle = lt->pair;
	kp_view_svg(&l->prof, &vo, lt->svg_f);
	lt->svg_f = NULL;
	return kp_output_commit(&lt->svg_out);
}

/* --- what a pair that never paired says ------------------------------------------------------ */

/* No pair at all: why, as far as the recording tells, and what to do. */
static void no_pairs(const struct latency *lt, const struct kp_latency *l, const char *keys)
{
	uint64_t n[2] = { 0, 0 }; /* STARTs and ENDs taken */
	bool glibc = false;

	for (size_t i = 0; i < lt->lo.nr_parts; i++)
		n[lt->lo.parts[i].ends] += l->taken[i];
	if (!l->fired[0] && !l->fired[1] && !strcmp(lt->start, lt->end))
		kp_error("no pairs: '%s' never fired", lt->start);
	else if (!l->fired[0] && !l->fired[1])
		kp_error("no pairs: neither '%s' nor '%s' fired", lt->start, lt->end);
	else if (!l->fired[0] || !l->fired[1])
		kp_error("no pairs: '%s' fired %llu times, '%s' never",
			 l->fired[0] ? lt->start : lt->end,
			 (unsigned long long)l->fired[l->fired[0] ? 0 : 1],
			 l->fired[0] ? lt->end : lt->start);
	else
		kp_error("no pairs: %llu STARTs and %llu ENDs, but no END's key met an open "
			 "START's", (unsigned long long)n[0], (unsigned long long)n[1]);
	for (int side = 0; side < 2; side++) /* once for a system call's two events */
		if (!l->fired[side] && !(side && !l->fired[0] && syscall_of(lt->start) &&
					 syscall_of(lt->end) &&
					 !strcmp(syscall_of(lt->start), syscall_of(lt->end))))
			glibc |= hint_glibc(side ? lt->end : lt->start);
	if (l->fired[0] && l->fired[1])
		kp_hint("the key is %s: --key names the fields by which an END finds its START",
			keys);
	if (l->system_wide || glibc)
		return;
	if (!l->fired[0] != !l->fired[1])
		kp_hint("'%s' may fire in an interrupt or in another task (as a block request's "
			"completion does), where a recording of the command's own tasks (or of -p, "
			"-t or -u's) does not see it: -a records every process",
			l->fired[0] ? lt->end : lt->start);
	else
		kp_hint("an event that fires in an interrupt or in another task (as a block "
			"request's completion does) is not seen by a recording of the command's "
			"own tasks (or of -p, -t or -u's): -a records every process");
}

/* "'PATH' has no A and no B events": the parts' events the recording lacks. */
static void no_events(const struct latency *lt, const struct kp_latency *l, const char *path)
{
	char names[1024];
	size_t n = 0, said = 0;

	names[0] = '\0';
	for (size_t i = 0; i < lt->lo.nr_parts; i++) {
		size_t j = 0;
		if (l->ev[i] >= 0 || lt->lo.parts[i].optional)
			continue;
		while (j < i && strcmp(lt->lo.parts[j].event, lt->lo.parts[i].event))
			j++;
		if (j < i)
			continue;
		said++;
		n += (size_t)snprintf(names + n, n < sizeof(names) ? sizeof(names) - n : 0, "%s%s",
				      said > 1 ? " and no " : "", lt->lo.parts[i].event);
		if (n >= sizeof(names))
			break;
	}
	kp_error("'%s' has no %s events", path, names);
	kp_hint("the recording's events: kprof script --header -i %s", path);
}

static int show(struct latency *lt, const char *path, const char *keys_said)
{
	const char *what = lt->input || lt->output ? path : "this run";
	struct kp_latency l;
	int rc = kp_latency_run(&l, &lt->lo), out = 0;
	bool nest = !strcmp(keys_said, "tid") || !strcmp(keys_said, "tid/tid");

	if (rc == -KP_LAT_EOPEN) {
		kp_input_explain(&l.s.r, path, l.open_err);
		out = 1;
	} else if (rc == -KP_LAT_ENOEVENTS) {
		if (l.s.evl.nr) /* else kp_input_replayed() says it has none */
			no_events(lt, &l, path);
		kp_input_replayed(&l.s, path); /* and whether it was cut before them */
		out = 1;
	} else if (rc == -KP_LAT_EKEY || rc == -KP_LAT_EBY) {
		kp_error("%s %s: %s", rc == -KP_LAT_EBY ? "--by" : "--key",
			 rc == -KP_LAT_EBY ? lt->lo.by : keys_said, l.key_error);
		out = 2;
	} else {
		printf("# kprof latency of %s%s%s: %zu pairs of %s and %s, keyed by %s (%s)\n",
		       what == path ? "'" : "", what, what == path ? "'" : "",
		       l.nr, lt->start, lt->end, keys_said,
		       nest ? "an END closes its thread's latest START, as a return its call"
		       : lt->lo.parts[0].first ? "the first START of a key counts until its END"
			    : "a second START of a key replaces the first");
		if (lt->known && lt->known->said)
			printf("# and the STARTs of %s\n", lt->known->said);
		if (lt->known && lt->known->note)
			printf("# %s\n", lt->known->note);
		for (size_t i = 2; i < lt->lo.nr_parts; i++)
			if (l.ev[i] < 0)
				printf("# not in the recording: %s, whose STARTs are left out\n",
				       lt->lo.parts[i].event);
		printf("# unpaired: %llu ENDs without a START, %llu STARTs without an END%s",
		       (unsigned long long)l.no_start, (unsigned long long)l.no_end,
		       nest ? "" : ", ");
		if (!nest && lt->lo.parts[0].first)
			printf("%llu STARTs of a key already open left out", (unsigned long long)l.kept);
		else if (!nest)
			printf("%llu STARTs replaced", (unsigned long long)l.replaced);
		putchar('\n');
		if (l.lost)
			printf("# warning: %llu events were lost: pairs around them are missing or "
			       "unpaired (a larger -m keeps them)\n", (unsigned long long)l.lost);
		if (l.nr) {
			static const double pcts[] = { 50, 90, 99, 99.9 };
			printf("#");
			for (size_t i = 0; i < ARRAY_SIZE(pcts); i++) {
				printf(" p%g ", pcts[i]);
				put_dur(kp_latency_pct(&l, pcts[i]));
				printf(",");
			}
			printf(" max ");
			put_dur(l.ns[l.nr - 1]);
			putchar('\n');
		}
		histogram(&l, lt->linear_ns);
		groups(&l);
		slowest(&l);
		fflush(stdout);
		if (!l.nr) { /* and no flame graph of nothing */
			no_pairs(lt, &l, keys_said);
			out = 1;
		} else if (lt->svg_f) {
			out = flame_graph(lt, &l);
		}
		out |= kp_input_replayed(&l.s, path);
	}
	kp_latency_release(&l);
	return out;
}

/* --- options and the run --------------------------------------------------------------------- */

enum { OPT_PAIR = 256, OPT_KEY, OPT_BY, OPT_LINEAR, OPT_TOP, OPT_SVG };

static const struct option long_opts[] = {
	{ "pair", required_argument, NULL, OPT_PAIR },
	{ "key", required_argument, NULL, OPT_KEY },
	{ "by", required_argument, NULL, OPT_BY },
	{ "linear", required_argument, NULL, OPT_LINEAR },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "svg", required_argument, NULL, OPT_SVG },
	KP_TARGET_OPTIONS,
	KP_TARGET_DURATION_OPTIONS,
	{ "output", required_argument, NULL, 'o' },
	{ "input", required_argument, NULL, 'i' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_opt(struct latency *l, int c)
{
	uint64_t v;

	switch (c) {
	case OPT_PAIR: l->pair = optarg; return 0;
	case OPT_KEY: l->key = optarg; return 0;
	case OPT_BY: l->lo.by = optarg; return 0;
	case OPT_LINEAR:
		if (kp_cmd_number("latency", "--linear", optarg, 1, 1000000000, &v))
			return 2;
		l->linear_ns = v * 1000;
		return 0;
	case OPT_TOP:
		if (kp_cmd_number("latency", "--top", optarg, 0, 1000, &v))
			return 2;
		l->lo.top = v;
		return 0;
	case OPT_SVG: l->svg = optarg; return 0;
	case 'o': l->output = optarg; return 0;
	case 'i': l->input = optarg; return 0;
	default: return kp_target_opt("latency", c, optarg, &l->ro);
	}
}

static int parse_options(struct latency *l, int argc, char **argv)
{
	int c, rc;

	l->lo.top = 5;
	l->lo.dso.inline_frames = l->lo.dso.demangle = true;
	l->ro.pages = 256;
	l->ro.level = KP_WRITER_DEFAULT_LEVEL;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:i:h" KP_TARGET_SHORT, long_opts, NULL)) != -1) {
		if (c == 'h')
			return kp_cmd_help(latency_usage);
		if ((rc = parse_opt(l, c)))
			return rc;
	}
	if (optind < argc)
		l->ro.argv = argv + optind;
	if (!l->pair)
		return kp_usage_error("latency", "--pair START/END is needed");
	if ((rc = split_pair(l)))
		return rc;
	return kp_target_check("latency", &l->ro, l->input, l->output);
}

int cmd_latency(int argc, char **argv)
{
	struct latency l;
	const char *said = NULL;
	char *path = NULL;
	int rc, status = 0, fd = -1;

	memset(&l, 0, sizeof(l));
	rc = parse_options(&l, argc, argv);
	if (!rc)
		rc = pair_keys(&l, &said);
	/* the flame graph's file is made before anything runs, as a recording's is */
	if (!rc && l.svg && !(l.svg_f = kp_output_open(&l.svg_out, l.svg, NULL)))
		rc = 1;
	if (!rc) {
		if (!l.input) {
			l.ro.callchain = true;
			l.ro.period = 1;
			rc = pair_events(&l);
			if (!rc) {
				status = kp_target_record_into(&l.ro, l.output, argc, argv, &path, &fd);
				if (!kp_target_recorded(path))
					rc = status ? status : 1;
			}
		}
		l.lo.input = l.input ? l.input : path;
		if (!rc) {
			l.lo.dso.debuginfod = kp_fetch_client();
			rc = show(&l, l.lo.input, said);
			rc = rc ? rc : status;
		}
		if (fd >= 0)
			close(fd);
	}
	if (l.svg_f) /* not written */
		kp_output_abort(&l.svg_out);
	free(path);
	free(l.start);
	free(l.end);
	free(l.keybuf);
	kp_debuginfod_free(l.lo.dso.debuginfod);
	kp_evspec_free(l.ro.evs, l.ro.nr_evs);
	free(l.ro.pids);
	free(l.ro.tids);
	return rc;
}
