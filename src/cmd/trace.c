/* SPDX-License-Identifier: MIT */
/*
 * trace.c - `kprof trace`: the system calls of a command, processes or the machine, as
 * `perf trace` and strace show them, recorded with raw_syscalls:sys_enter and sys_exit (the
 * system calls chosen with -e become the kernel's filter, so that the rings carry nothing
 * else) and paired by report/tools/trace.h as the recorder drains them. One line per call, printed
 * while the command runs, or with -s the per-thread summary of `perf trace -s`, on stderr as
 * strace writes them (or into -o FILE); --record keeps the recording, -i replays one.
 */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "src/cmd/cmd.h"
#include "src/cli/options.h"
#include "src/cli/target.h"
#include "src/record/diag.h"
#include "src/record/idlist.h"
#include "formats/util.h"
#include "src/cli/input.h"
#include "src/cli/output.h"
#include "src/record/recorder.h"
#include "src/record/tracefs.h"
#include "report/replay/syscall.h"
#include "report/tools/trace.h"
#include "report/base/text.h"

static const char trace_usage[] =
	"usage: kprof trace [options] [--] COMMAND [ARGS...]\n"
	"       kprof trace [options] -a | -p PID | -t TID | -u USER\n"
	"       kprof trace [options] -i FILE\n"
	"\n"
	"Shows the system calls of COMMAND (its threads and children), of running processes or\n"
	"of the whole machine, as strace and perf trace do: one line per call with its time,\n"
	"duration, thread, arguments and result, printed while it runs, as the calls return\n"
	"(one that waits is shown unfinished first); or with -s a summary per thread of each\n"
	"call's count, errors and times. On standard error, as strace writes them, unless -o\n"
	"says where.\n"
	"\n"
	"  -e, --expr LIST        only these system calls: names or globs, e.g. 'open*,read'\n"
	"                         (the kernel filters the rest out)\n"
	"      --filter EXPR      a filter of the kernel's syntax on both events, of the fields\n"
	"                         they share: id (the call's number), common_pid\n"
	"  -s, --summary          only the summary, per thread and call\n"
	"  -S, --with-summary     the calls, then the summary\n"
	"      --duration MS      only calls that took at least MS milliseconds\n"
	"      --failure          only calls that failed\n"
	"  -a, --all-cpus         every process\n"
	"  -p, --pid PID[,PID]    attach to running processes\n"
	"  -t, --tid TID[,TID]    attach to threads\n"
	"  -u, --uid USER         attach to the processes of USER\n"
	"      --time SECONDS     with -a, -p, -t or -u: stop after this long\n"
	"  -o, --output FILE      write the calls and the summary to FILE, not standard error\n"
	"      --record FILE      keep the recording in FILE (kprof report, script, trace -i\n"
	"                         read it)\n"
	"  -i, --input FILE       show a recording made by kprof trace --record\n"
	"  -m, --mmap-pages N     data pages per CPU ring, a power of two (default 1024, less\n"
	"                         beyond 16 CPUs: 64 MiB in all)\n"
	"  -h, --help             this text\n";

struct trace {
	const char *input, *output, *record;
	bool summary, calls;
	double min_ms;
	bool failure;
	bool *only;			/* [kp_syscall_max()], NULL: all */
	const char *filter;		/* --filter, ANDed with -e's */
	struct kp_record_opts ro;
	char **argnames;		/* [kp_syscall_max()]: each call's argument names, read
					 * from tracefs once ("" when not known) */
	bool tracefs_tried, tracefs_ok;
	struct kp_tracefs fs;
	uint64_t t0;
	FILE *out;
	struct kp_trace t;		/* the calls, paired as they are recorded or read */
};

/* --- what -e names --------------------------------------------------------------------------- */

static int parse_expr(struct trace *tr, const char *list)
{
	char *copy = kp_xstrdup(list), *save = NULL, *tok;
	long max = kp_syscall_max();
	int rc = 0;

	if (!tr->only)
		tr->only = kp_xcalloc((size_t)max, sizeof(bool));
	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		bool any = false;
		for (long nr = 0; nr < max; nr++) {
			const char *name = kp_syscall_name(nr);
			if (name && !fnmatch(tok, name, 0))
				tr->only[nr] = any = true;
		}
		if (!any)
			rc = kp_usage_error("trace", "-e: no system call is called '%s'", tok);
	}
	free(copy);
	return rc;
}

/* The kernel's filter for the chosen calls: "id == 0 || id == 1 ...", with -a not the calls of
 * kprof's thread that drains the rings (each drain would make more to drain), and --filter's.
 * NULL for none. */
static char *kernel_filter(const struct trace *tr)
{
	char *f = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&f, &len);
	bool any = false;

	if (!m)
		abort(); /* out of memory, as kp_xmalloc() */
	if (tr->only) {
		fputc('(', m);
		for (long nr = 0; nr < kp_syscall_max(); nr++)
			if (tr->only[nr]) {
				fprintf(m, "%sid == %ld", any ? " || " : "", nr);
				any = true;
			}
		fputc(')', m);
	}
	if (tr->ro.system_wide) {
		fprintf(m, "%scommon_pid != %d", any ? " && " : "", (int)getpid());
		any = true;
	}
	if (tr->filter) {
		fprintf(m, "%s(%s)", any ? " && " : "", tr->filter);
		any = true;
	}
	fclose(m);
	if (!any) {
		free(f);
		return NULL;
	}
	return f;
}

/* --- one line per call ----------------------------------------------------------------------- */

/* The names of system call @nr's arguments, from tracefs's syscalls:sys_enter_NAME format: the
 * fields after __syscall_nr, ", "-separated ("" for a call of none); NULL when unknown (no
 * tracefs, another kernel). */
static const char *arg_names(struct trace *tr, long nr)
{
	char sys[128], *fmt = NULL, *f, *p;
	const char *name = kp_syscall_name(nr);

	if (nr < 0 || nr >= kp_syscall_max() || !name)
		return NULL;
	if (!tr->argnames)
		tr->argnames = kp_xcalloc((size_t)kp_syscall_max(), sizeof(char *));
	if (tr->argnames[nr])
		return *tr->argnames[nr] == '?' ? NULL : tr->argnames[nr];
	if (!tr->tracefs_tried) {
		tr->tracefs_tried = true;
		tr->tracefs_ok = !kp_tracefs_open(&tr->fs);
	}
	snprintf(sys, sizeof(sys), "sys_enter_%s", name);
	if (tr->tracefs_ok && !kp_tracefs_format(&tr->fs, "syscalls", sys, &fmt)) {
		f = kp_tracefs_fields(fmt);
		p = strstr(f, "__syscall_nr");
		tr->argnames[nr] = kp_xstrdup(p ? p + strlen("__syscall_nr") + (p[12] ? 2 : 0) : "");
		free(f);
		free(fmt);
	} else {
		tr->argnames[nr] = kp_xstrdup("?"); /* unknown, asked once */
		return NULL;
	}
	return tr->argnames[nr];
}

/* A value as perf trace shows one: small numbers (and small negative ones, as a file
 * descriptor's AT_FDCWD) in decimal, anything else, pointers and flags, in hex. */
static void put_value(FILE *out, uint64_t v)
{
	int64_t s = (int64_t)v;
	int32_t w = (int32_t)(uint32_t)v;

	if (s > -65536 && s < 65536)
		fprintf(out, "%lld", (long long)s);
	else if (v >> 32 == 0 && w < 0 && w > -65536)
		fprintf(out, "%d", w);
	else
		fprintf(out, "0x%llx", (unsigned long long)v);
}

static void put_args(struct trace *tr, const struct kp_trace_call *c)
{
	const char *names = arg_names(tr, c->nr);
	unsigned n = 0;

	if (!c->enter) {
		fputs("...", tr->out); /* its entry was not recorded */
		return;
	}
	while (names && *names && n < 6) {
		size_t len = strcspn(names, ",");
		fprintf(tr->out, "%s%.*s: ", n ? ", " : "", (int)len, names);
		put_value(tr->out, c->args[n++]);
		names += len + (names[len] == ',') + (names[len] == ',' && names[len + 1] == ' ');
	}
	if (!names) /* unnamed: all six, as the entry holds them */
		for (; n < 6; n++) {
			fprintf(tr->out, "%sarg%u: ", n ? ", " : "", n);
			put_value(tr->out, c->args[n]);
		}
}

static void put_result(FILE *out, const struct kp_trace_call *c)
{
	if (!c->exit) {
		fputs(kp_syscall_never_returns(c->nr) ? " = ?" : " = ? (no exit recorded)", out);
		return;
	}
	if (c->ret < 0 && c->ret > -4096) {
		const char *e = kp_errno_name(-c->ret);
		fprintf(out, " = -1 %s (%s)", e ? e : "?", strerror((int)-c->ret));
		return;
	}
	fputs(" = ", out);
	put_value(out, (uint64_t)c->ret);
}

/* The stream's buffer (open_out()), and room always left in it for a whole line. */
#define OUT_BUF (64u << 10)
#define OUT_LINE (4u << 10)

/* A line starts: the buffer goes out first if the line might not fit, so that every write
 * holds whole lines, whatever the command writes to the same file between them. */
static void line_start(FILE *out)
{
	if (__fpending(out) > OUT_BUF - OUT_LINE)
		fflush(out);
}

/*
 * One line per call: its entry's time, duration, thread, name, arguments and result. A call
 * shown while in flight (KP_TRACE_UNFINISHED) ends its line with "<unfinished ...>", and its
 * return (KP_TRACE_RESUMED) is a line of its own at the exit's time, as strace writes them.
 */
static void on_call(void *ctx, const struct kp_trace_call *c)
{
	struct trace *tr = ctx;
	const char *name = kp_syscall_name(c->nr);
	bool resumed = c->part == KP_TRACE_RESUMED;
	uint64_t at = c->enter && !resumed ? c->enter : c->exit ? c->exit : c->enter;
	bool both = c->enter && c->exit;
	double ms = both && c->exit > c->enter ? (c->exit - c->enter) / 1e6 : 0;
	char nrbuf[32];

	if (!tr->t0)
		tr->t0 = at; /* the first call's time: the lines count from it, as perf trace's */
	if (!tr->calls || (tr->min_ms > 0 && (!both || ms < tr->min_ms)) ||
	    (tr->failure && !(c->exit && c->ret < 0 && c->ret > -4096)))
		return;
	if (!name) {
		snprintf(nrbuf, sizeof(nrbuf), "syscall_%ld", c->nr);
		name = nrbuf;
	}
	line_start(tr->out);
	fprintf(tr->out, "%10.3f (", at > tr->t0 ? (at - tr->t0) / 1e6 : 0.0);
	if (both)
		fprintf(tr->out, "%6.3f ms", ms);
	else
		fputs("     ? ms", tr->out);
	fputs("): ", tr->out);
	kp_text_put(tr->out, 0, *c->comm ? c->comm : "[unknown]");
	fprintf(tr->out, "/%u ", c->tid);
	if (resumed) {
		fprintf(tr->out, "<... %s resumed>)", name);
	} else {
		fprintf(tr->out, "%s(", name);
		put_args(tr, c);
		if (c->part == KP_TRACE_UNFINISHED) {
			fputs(" <unfinished ...>\n", tr->out);
			return;
		}
		fputc(')', tr->out);
	}
	put_result(tr->out, c);
	fputc('\n', tr->out);
}

/* --- the summary ----------------------------------------------------------------------------- */

static int by_total(const void *a, const void *b)
{
	const struct kp_trace_stat *x = *(const struct kp_trace_stat *const *)a;
	const struct kp_trace_stat *y = *(const struct kp_trace_stat *const *)b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return x->calls != y->calls ? (x->calls > y->calls ? -1 : 1) : (x->nr > y->nr) - (x->nr < y->nr);
}

/* perf's stddev: of the mean, relative to it, in percent */
static double rel_stddev(const struct kp_trace_stat *s)
{
	double n = (double)s->calls, mean = n ? s->total / n : 0, var;

	if (s->calls < 2 || mean <= 0)
		return 0;
	var = (s->sumsq - n * mean * mean) / (n - 1);
	return var > 0 ? 100 * sqrt(var / n) / mean : 0;
}

static void thread_summary(struct trace *tr, const struct kp_trace *t, size_t th, uint64_t events)
{
	const struct kp_trace_thread *x = &t->threads[th];
	const char *comm = kp_strtab_get(&t->s.strs, x->comm);
	const struct kp_trace_stat **rows = NULL;
	size_t n = 0;

	for (size_t i = 0; i < t->nr_stats; i++)
		if (t->stats[i].thread == th) {
			rows = kp_xrealloc(rows, (n + 1) * sizeof(*rows));
			rows[n++] = &t->stats[i];
		}
	if (!n)
		return;
	qsort(rows, n, sizeof(*rows), by_total);
	line_start(tr->out);
	fputs("\n ", tr->out);
	kp_text_put(tr->out, 0, *comm ? comm : "[unknown]");
	fprintf(tr->out, " (%u), %llu events, %.1f%%\n\n", x->tid, (unsigned long long)x->events,
		events ? 100.0 * x->events / events : 0.0);
	fprintf(tr->out, "   syscall            calls  errors  total       min       avg       max"
			 "       stddev\n"
			 "                                     (msec)    (msec)    (msec)    (msec)"
			 "        (%%)\n"
			 "   --------------- --------  ------ -------- --------- --------- ---------"
			 "     ------\n");
	for (size_t i = 0; i < n; i++) {
		const struct kp_trace_stat *s = rows[i];
		const char *name = kp_syscall_name(s->nr);
		char buf[32];

		if (!s->calls)
			continue;
		if (!name)
			snprintf(buf, sizeof(buf), "syscall_%ld", s->nr);
		line_start(tr->out);
		fprintf(tr->out, "   %-15s %8llu %7llu %8.3f %9.3f %9.3f %9.3f %9.2f%%\n",
			name ? name : buf, (unsigned long long)s->calls,
			(unsigned long long)s->errors, s->total / 1e6, s->min / 1e6,
			s->total / 1e6 / (double)s->calls, s->max / 1e6, rel_stddev(s));
	}
	for (size_t i = 0; i < n; i++) { /* what the table cannot time */
		const struct kp_trace_stat *s = rows[i];
		const char *name = kp_syscall_name(s->nr);

		line_start(tr->out);
		if (s->no_entry)
			fprintf(tr->out, "   %s: %llu exit%s without %s entry (in flight when the "
				"recording began, or a new thread's return): not timed\n",
				name ? name : "?", (unsigned long long)s->no_entry,
				s->no_entry == 1 ? "" : "s", s->no_entry == 1 ? "its" : "their");
		if (s->no_exit)
			fprintf(tr->out, "   %s: %llu call%s without %s\n", name ? name : "?",
				(unsigned long long)s->no_exit, s->no_exit == 1 ? "" : "s",
				kp_syscall_never_returns(s->nr) ? "a return (it ends the thread)"
								 : "an exit recorded: not timed");
	}
	free(rows);
}

static void summary(struct trace *tr, const struct kp_trace *t)
{
	uint64_t events = 0;

	for (size_t i = 0; i < t->nr_threads; i++)
		events += t->threads[i].events;
	fputs("\n Summary of events:\n", tr->out);
	for (size_t i = 0; i < t->nr_threads; i++)
		thread_summary(tr, t, i, events);
	fputc('\n', tr->out);
}

/*
 * What was not a complete call, said once at the end, after the calls and the summary; and
 * the events lost, with what keeps them: rings larger than the @pages a CPU they had, at least
 * @dflt (0 for a recording read back, whose rings are not known).
 */
static void incomplete(const struct kp_trace *t, size_t pages, size_t dflt)
{
	const struct kp_rec_stats *st = &t->s.stats;
	unsigned long long lost = t->s.have_stats ? st->lost : 0;
	size_t more = pages * 8 > dflt ? pages * 8 : dflt;

	if (t->no_entry || t->no_exit || t->lost_exit)
		kp_notice("%llu call%s without %s entry recorded, %llu still in flight when the "
			  "recording ended, %llu whose exit was lost: shown, not timed",
			  (unsigned long long)t->no_entry, t->no_entry == 1 ? "" : "s",
			  t->no_entry == 1 ? "its" : "their", (unsigned long long)t->no_exit,
			  (unsigned long long)t->lost_exit);
	if (lost && !pages)
		kp_warn("%llu events were lost (the rings overflowed): calls around them are "
			"missing; a larger -m keeps them, when recording again", lost);
	else if (lost && pages < kp_target_pages_max())
		kp_warn("%llu events were lost (the rings of %zu page%s a CPU overflowed): calls "
			"around them are missing; a larger -m keeps them, e.g. -m %zu", lost, pages,
			pages == 1 ? "" : "s", more < kp_target_pages_max() ? more : kp_target_pages_max());
	else if (lost)
		kp_warn("%llu events were lost (the rings of %zu pages a CPU, the most -m gives, "
			"overflowed): calls around them are missing; -e traces fewer calls", lost,
			pages);
	if (t->bad)
		kp_warn("%llu events could not be decoded", (unsigned long long)t->bad);
}

/* --- options and the run --------------------------------------------------------------------- */

enum { OPT_DURATION = 256, OPT_FAILURE, OPT_FILTER, OPT_RECORD };

static const struct option long_opts[] = {
	{ "expr", required_argument, NULL, 'e' },
	{ "summary", no_argument, NULL, 's' },
	{ "with-summary", no_argument, NULL, 'S' },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "failure", no_argument, NULL, OPT_FAILURE },
	{ "filter", required_argument, NULL, OPT_FILTER },
	KP_TARGET_OPTIONS,
	{ "time", required_argument, NULL, KP_OPT_TARGET_TIME },
	{ "output", required_argument, NULL, 'o' },
	{ "record", required_argument, NULL, OPT_RECORD },
	{ "input", required_argument, NULL, 'i' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_opt(struct trace *tr, int c)
{
	struct kp_record_opts *o = &tr->ro;

	switch (c) {
	case 'e': return parse_expr(tr, optarg);
	case 's': tr->summary = true; tr->calls = false; return 0;
	case 'S': tr->summary = tr->calls = true; return 0;
	case OPT_DURATION: return kp_cmd_real("trace", "--duration", optarg, 0, 1e9, &tr->min_ms);
	case OPT_FAILURE: tr->failure = true; return 0;
	case OPT_FILTER: tr->filter = optarg; return 0;
	case 'o': tr->output = optarg; return 0;
	case OPT_RECORD: tr->record = optarg; return 0;
	case 'i': tr->input = optarg; return 0;
	default: return kp_target_opt("trace", c, optarg, o);
	}
}

static bool same_path(const char *x, const char *y)
{
	return x && y && (!strcmp(x, y) || kp_output_same_file(x, y));
}

static int parse_options(struct trace *tr, int argc, char **argv)
{
	int c, rc;

	tr->calls = true;
	tr->ro.level = KP_WRITER_DEFAULT_LEVEL;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+e:sSo:i:h" KP_TARGET_SHORT, long_opts, NULL)) != -1) {
		if (c == 'h')
			return kp_cmd_help(trace_usage);
		if ((rc = parse_opt(tr, c)))
			return rc;
	}
	if (optind < argc)
		tr->ro.argv = argv + optind;
	/* -o is the text here, not the recording: the shared check is told of none */
	rc = kp_target_check("trace", &tr->ro, tr->input, NULL);
	if (!rc && tr->input && tr->record)
		rc = kp_usage_error("trace", "-i and --record: the recording is already there");
	if (!rc && same_path(tr->output, tr->input ? tr->input : tr->record))
		rc = kp_usage_error("trace", "-o '%s' would replace the recording %s", tr->output,
				    tr->input ? "it reads (-i)" : "it keeps (--record)");
	return rc;
}

/* The recording's events: every system call's entry and exit, filtered in the kernel. */
static int events(struct trace *tr)
{
	char *filter = kernel_filter(tr);
	int rc = kp_evspec_parse("raw_syscalls:sys_enter", &tr->ro.evs, &tr->ro.nr_evs) ||
		 (filter && kp_evspec_filter(tr->ro.evs, tr->ro.nr_evs, filter)) ||
		 kp_evspec_parse("raw_syscalls:sys_exit", &tr->ro.evs, &tr->ro.nr_evs) ||
		 (filter && kp_evspec_filter(tr->ro.evs, tr->ro.nr_evs, filter));

	free(filter);
	tr->ro.period = 1;
	tr->ro.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			     PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW;
	return rc ? 1 : 0;
}

/* A call in flight this long (a read that waits, a sleep) is shown before it returns. */
#define UNFINISHED_NS 500000000ull

/*
 * The recorder's chunks, a tenth of a second of records or less each, in the recorder's thread
 * for them: the calls paired and printed, those that wait shown, and the lines out. A failure
 * to pair is kept (t->err) and said at the end: the recording goes on.
 */
static int on_chunk(void *ctx, uint8_t **buf, size_t *cap, size_t len, uint32_t nrec)
{
	struct trace *tr = ctx;
	struct timespec now;
	uint64_t ns;

	kp_trace_sink(&tr->t, buf, cap, len, nrec);

	/* --duration and --failure choose by the exit: their calls wait for it */
	if (tr->calls && !tr->min_ms && !tr->failure &&
	    !clock_gettime(CLOCK_MONOTONIC, &now)) { /* the recording's clock */
		ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
		if (ns > UNFINISHED_NS)
			kp_trace_pending(&tr->t, ns - UNFINISHED_NS);
	}
	fflush(tr->out);
	return 0;
}

/*
 * The rings' default size: 1024 pages (4 MiB) a CPU, so that all of them together stay within
 * 64 MiB (and no fewer than 256 pages a CPU). What decides it is how long the drain loop may be
 * kept off the CPU while one CPU makes records as fast as it can (README, kprof trace).
 */
static size_t trace_pages(void)
{
	size_t pages = 1024, page = (size_t)sysconf(_SC_PAGESIZE);
	size_t ncpus = (size_t)sysconf(_SC_NPROCESSORS_ONLN);

	while (pages > 256 && ncpus * pages * page > ((size_t)64 << 20))
		pages /= 2;
	return pages;
}

/*
 * Record, the calls paired and printed as the rings are drained, in the recorder's thread for
 * them (and into --record's file as well); the recorder's exit code.
 */
static int record(struct trace *tr, int argc, char **argv)
{
	struct kp_recorder rec;

	if (events(tr))
		return 1;
	if (!tr->ro.pages_given)
		tr->ro.pages = trace_pages();
	kp_target_recording_of(&tr->ro, tr->record, argc, argv);
	tr->ro.live = on_chunk;
	tr->ro.live_ctx = tr;
	tr->ro.live_thread = true;
	if (tr->record && kp_output_check_path(tr->record))
		return 1;
	return kp_recorder_run(&rec, &tr->ro);
}

/* The lines' and the summary's stream: -o's file, or standard error through a buffer of its
 * own (flushed after each drain), so that a line is one write. NULL after saying why. */
static FILE *open_out(struct trace *tr, struct kp_output *o)
{
	int fd;
	FILE *f;

	if (tr->output) {
		f = kp_output_open_log(o, tr->output); /* as strace -o: tail -f can read it */
	} else {
		fd = dup(STDERR_FILENO);
		f = fd < 0 ? NULL : fdopen(fd, "w");
		if (!f && fd >= 0)
			close(fd);
		if (!f)
			kp_error("cannot write to standard error: %s", strerror(errno));
		kp_output_open(o, NULL, f);
	}
	if (f)
		setvbuf(f, NULL, _IOFBF, OUT_BUF);
	return f;
}

/* Done with the stream: 0, or 1 after saying what could not be written. */
static int close_out(struct trace *tr, struct kp_output *o)
{
	int rc = kp_output_commit(o);

	if (!tr->output && fclose(tr->out) && !rc)
		rc = kp_error("cannot write to standard error: %s", strerror(errno));
	tr->out = NULL;
	return rc;
}

/*
 * The calls were paired (@rc, kp_trace_end()'s or kp_trace_run()'s): the summary and what was
 * incomplete, or why there was nothing to show. Returns 0, or the exit code after saying why.
 */
static int show(struct trace *tr, const char *input, int rc)
{
	struct kp_trace *t = &tr->t;

	if (rc == -KP_TRACE_EOPEN)
		return kp_input_explain(&t->s.r, input, t->open_err);
	if (rc == -KP_TRACE_ENOEVENTS) {
		if (input && t->s.evl.nr) { /* else kp_input_replayed() says it has none */
			kp_error("'%s' has no raw_syscalls:sys_enter and sys_exit events: it is no "
				 "recording of kprof trace", input);
			kp_hint("kprof trace --record FILE records one; kprof report and script "
				"read others");
		}
		if (input)
			kp_input_replayed(&t->s, input); /* and whether it was cut before them */
		return 1;
	}
	if (tr->summary)
		summary(tr, t);
	fflush(tr->out); /* the lines before what is said of them */
	incomplete(t, input ? 0 : tr->ro.pages, trace_pages());
	/* the calls read, then what was cut or damaged, with status 1, as report */
	if (input)
		return kp_input_replayed(&t->s, input);
	return rc ? kp_error("cannot pair the calls: %s", kp_strerror(rc)) : 0;
}

int cmd_trace(int argc, char **argv)
{
	struct trace tr;
	struct kp_output o;
	int rc, status;

	memset(&tr, 0, sizeof(tr));
	rc = parse_options(&tr, argc, argv);
	if (rc < 0) {
		/* --help */
	} else if (!rc && !(tr.out = open_out(&tr, &o))) {
		rc = 1;
	} else if (!rc && tr.input) {
		rc = show(&tr, tr.input, kp_trace_run(&tr.t, tr.input, tr.only, on_call, &tr));
		kp_trace_release(&tr.t);
	} else if (!rc) {
		kp_trace_init(&tr.t, tr.only, on_call, &tr);
		/* with -a, the calls of kprof's threads but the first, which the kernel's filter
		 * leaves out (the thread that pairs and prints is made once it is set) */
		tr.t.skip_pid = (uint32_t)getpid();
		status = record(&tr, argc, argv);
		rc = kp_trace_end(&tr.t);
		/* nothing recorded (no end, no call): the recorder said why */
		if (status && !tr.t.s.have_stats && !tr.t.nr_threads)
			rc = status;
		else
			rc = show(&tr, NULL, rc);
		rc = rc ? rc : status;
		kp_trace_release(&tr.t);
	}
	if (tr.out && close_out(&tr, &o) && !rc)
		rc = 1;
	if (tr.argnames)
		for (long i = 0; i < kp_syscall_max(); i++)
			free(tr.argnames[i]);
	free(tr.argnames);
	free(tr.only);
	kp_evspec_free(tr.ro.evs, tr.ro.nr_evs);
	free(tr.ro.pids);
	free(tr.ro.tids);
	return rc;
}
