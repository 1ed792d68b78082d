/* SPDX-License-Identifier: MIT */
/*
 * stat.c - `kprof stat`: options in, src/record/counter.c counts, and the counts out in perf
 * stat's layouts: the table (with thousands separators and perf's rates), -x SEP, --json.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/cmd/cmd.h"
#include "src/cli/options.h"
#include "src/cli/target.h"
#include "src/record/counter.h"
#include "src/record/diag.h"
#include "src/record/recorder.h"
#include "src/cli/output.h"
#include "src/record/evspec.h"
#include "formats/util.h"
#include "src/record/perf.h"

static const char stat_usage[] =
	"usage: kprof stat [options] [--] [COMMAND [ARGS...]]\n"
	"\n"
	"Counts events exactly for COMMAND (its threads and children), for running processes\n"
	"(-p) or for whole CPUs (-a, -C), and prints the totals as perf stat does.\n"
	"\n"
	"  -e, --event EVENT[,EVENT]  events to count (default: task-clock, context-switches,\n"
	"                             cpu-migrations, page-faults, cycles, instructions,\n"
	"                             branches, branch-misses); also tracepoints SYS:NAME,\n"
	"                             uprobe:PATH:SYMBOL[+OFF], uretprobe:..., kprobe:FUNC,\n"
	"                             'uprobe:PATH:FUNC ARG...', usdt:PATH:PROVIDER:NAME,\n"
	"                             mem:ADDR[:rwx], PMU/TERM=VAL,.../ and groups {A,B};\n"
	"                             'kprof list' shows them all\n"
	"      --filter EXPR          a filter for the tracepoint(s) of the -e before it, in\n"
	"                             the kernel's syntax, e.g. 'common_pid != 1'\n"
	"  -a, --all-cpus             count everything on every CPU\n"
	"  -C, --cpu CPUS             count everything on these CPUs only, e.g. 0-3,6\n"
	"  -p, --pid PID[,PID]        count these running processes (all their threads)\n"
	"  -A, --no-aggr              with -a or -C: one line per CPU instead of the sum\n"
	"  -I, --interval-print MS    print the counts of each MS milliseconds (at least 10)\n"
	"  -x, --field-separator SEP  lines of count,unit,event,run_time,pct,metric,metric-unit\n"
	"  -j, --json                 one JSON object per event and line\n"
	"  -o, --output FILE          write the counts to FILE instead of standard error\n"
	"  -h, --help                 this text\n"
	"\n"
	"With -a, -C or -p, counting lasts until COMMAND ends or, without one, until the\n"
	"processes end (-p) or Ctrl-C. kprof exits with COMMAND's status. Events this machine\n"
	"lacks show as <not supported>.\n";

static const char default_events[] = "task-clock,context-switches,cpu-migrations,page-faults,"
				     "cycles,instructions,branches,branch-misses";

struct stat_opts {
	struct kp_counter_opts c;	/* its -C and -p lists owned */
	const char *cpu_arg, *pid_arg;	/* as given, for the heading */
	bool no_aggr;			/* -A */
	unsigned interval_ms;		/* -I, 0 = none */
	const char *sep;		/* -x */
	bool json;			/* -j */
	const char *output;		/* -o, NULL = stderr */
};

struct stat_print {
	const struct stat_opts *o;
	FILE *out;
	const struct kp_counter *c;
	struct kp_counter_count *last;	/* per counter, at the last print */
	struct timespec tlast;
	unsigned nr_intervals;
};

/* One printed row: an event summed over the targets (or on one CPU, for -A). */
struct row {
	const struct kp_evspec *e;
	const struct kp_evset_event *st;
	struct kp_counter_count c;	/* since the last print */
	int cpu;			/* -1 = all */
};

/* What the rows of one print share. */
struct period {
	double wall_ns;			/* for "CPUs utilized" */
	const struct timespec *ts;	/* since the start, for -I; else NULL */
};

/* ---- values ------------------------------------------------------------------------------- */

static bool is_clock(const struct kp_evspec *e)
{
	return e->attr.type == PERF_TYPE_SOFTWARE && (e->attr.config == PERF_COUNT_SW_CPU_CLOCK ||
						      e->attr.config == PERF_COUNT_SW_TASK_CLOCK);
}

static const char *row_state(const struct row *r)
{
	if (r->st->unsupported)
		return "<not supported>";
	return r->c.run ? NULL : "<not counted>";
}

/* The count, scaled up when the kernel multiplexed the counter (running < enabled). */
static double scaled(const struct kp_counter_count *c)
{
	return c->run && c->run < c->ena ? (double)c->val * c->ena / c->run : (double)c->val;
}

/* The count as perf prints it: msec with 2 decimals for the clocks, an integer otherwise. */
static void count_text(const struct row *r, char *buf, size_t len)
{
	if (is_clock(r->e))
		snprintf(buf, len, "%.2f", scaled(&r->c) / 1e6);
	else if (r->c.run < r->c.ena)
		snprintf(buf, len, "%.0f", scaled(&r->c));
	else
		snprintf(buf, len, "%llu", (unsigned long long)r->c.val);
}

/* "1234567.89" -> "1,234,567.89" */
static void grouped(const char *num, char *buf, size_t len)
{
	size_t int_len = strcspn(num, "."), o = 0;

	for (size_t i = 0; num[i] && o + 2 < len; i++) {
		if (i > 0 && i < int_len && (int_len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = num[i];
	}
	buf[o] = '\0';
}

/*
 * perf's metric: a clock's "CPUs utilized" (clock time over wall time), for any other event a
 * rate per second of clock time (K/M/G scaled) when a clock was counted alongside.
 */
static bool metric(const struct row *r, const struct period *p, double clock_ns, double *v,
		   char *unit, size_t len)
{
	static const struct { double min; const char *unit; } rates[] = {
		{ 1e9, "G/sec" }, { 1e6, "M/sec" }, { 1e3, "K/sec" }, { 0, "/sec" },
	};
	size_t i = 0;

	if (row_state(r))
		return false;
	if (is_clock(r->e)) {
		*v = p->wall_ns > 0 ? scaled(&r->c) / p->wall_ns : 0;
		snprintf(unit, len, "CPUs utilized");
		return true;
	}
	if (clock_ns <= 0)
		return false;
	*v = scaled(&r->c) * 1e9 / clock_ns;
	while (*v < rates[i].min)
		i++;
	*v /= rates[i].min ? rates[i].min : 1;
	snprintf(unit, len, "%s", rates[i].unit);
	return true;
}

static const char *row_name(const struct row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", r->e->spec, r->st->user_only ? ":u" : "");
	return buf;
}

/* ---- the three layouts -------------------------------------------------------------------- */

static void print_std(FILE *f, const struct row *r, const struct period *p, double clock_ns)
{
	const char *state = row_state(r);
	char num[64], text[96], unit[32], name[256], cpu[24];
	double v;

	if (p->ts)
		fprintf(f, "%6ld.%09ld ", (long)p->ts->tv_sec, p->ts->tv_nsec);
	if (r->cpu >= 0) {
		snprintf(cpu, sizeof(cpu), "CPU%d", r->cpu);
		fprintf(f, "%-11s", cpu);
	}
	count_text(r, num, sizeof(num));
	grouped(num, text, sizeof(text));
	fprintf(f, "%18s %-4s %-32s", state ? state : text, is_clock(r->e) ? "msec" : "",
		row_name(r, name, sizeof(name)));
	if (metric(r, p, clock_ns, &v, unit, sizeof(unit)))
		fprintf(f, " # %8.3f %-23s", v, unit);
	else
		fprintf(f, "%*s", state ? 28 : 35, "");
	if (!state && r->c.run < r->c.ena)
		fprintf(f, "  (%.2f%%)", 100.0 * r->c.run / r->c.ena);
	fputc('\n', f);
}

static double pct_running(const struct row *r)
{
	return r->c.ena ? 100.0 * r->c.run / r->c.ena : 100.0;
}

/* perf's -x layout: [time,][CPU,]count,unit,event,run_time,pct,metric,metric-unit */
static void print_csv(FILE *f, const char *sep, const struct row *r, const struct period *p,
		      double clock_ns)
{
	const char *state = row_state(r);
	char num[64], unit[32], name[256];
	bool has_metric;
	double v;

	if (p->ts)
		fprintf(f, "%6ld.%09ld%s", (long)p->ts->tv_sec, p->ts->tv_nsec, sep);
	if (r->cpu >= 0)
		fprintf(f, "CPU%d%s", r->cpu, sep);
	count_text(r, num, sizeof(num));
	has_metric = metric(r, p, clock_ns, &v, unit, sizeof(unit));
	fprintf(f, "%s%s%s%s%s%s%llu%s%.2f%s", state ? state : num, sep,
		is_clock(r->e) ? "msec" : "", sep, row_name(r, name, sizeof(name)), sep,
		(unsigned long long)r->c.run, sep, pct_running(r), sep);
	if (has_metric)
		fprintf(f, "%.3f%s%s\n", v, sep, unit);
	else
		fprintf(f, "%s\n", sep);
}

/* a number written with @decimals digits after the point, as perf writes it */
static json_object *json_fixed(int decimals, double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	return json_object_new_double_s(v, buf);
}

/* perf's --json keys, one object per line */
static void print_json(FILE *f, const struct row *r, const struct period *p, double clock_ns)
{
	json_object *o = json_object_new_object();
	const char *state = row_state(r);
	char buf[64], unit[32] = "", name[256];
	double v = 0;

	if (p->ts) {
		snprintf(buf, sizeof(buf), "%ld.%09ld", (long)p->ts->tv_sec, p->ts->tv_nsec);
		json_object_object_add(o, "interval", json_object_new_double_s(atof(buf), buf));
	}
	if (r->cpu >= 0) {
		snprintf(buf, sizeof(buf), "%d", r->cpu);
		json_object_object_add(o, "cpu", json_object_new_string(buf));
	}
	snprintf(buf, sizeof(buf), "%f", is_clock(r->e) ? scaled(&r->c) / 1e6 : scaled(&r->c));
	json_object_object_add(o, "counter-value", json_object_new_string(state ? state : buf));
	json_object_object_add(o, "unit", json_object_new_string(is_clock(r->e) ? "msec" : ""));
	json_object_object_add(o, "event", json_object_new_string(row_name(r, name, sizeof(name))));
	json_object_object_add(o, "event-runtime", json_object_new_uint64(r->c.run));
	json_object_object_add(o, "pcnt-running", json_fixed(2, pct_running(r)));
	metric(r, p, clock_ns, &v, unit, sizeof(unit));
	json_object_object_add(o, "metric-value", json_fixed(6, v));
	json_object_object_add(o, "metric-unit", json_object_new_string(unit));
	fprintf(f, "%s\n",
		json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							  JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

/* ---- rows --------------------------------------------------------------------------------- */

/* Event @ev since the last print, summed over the targets on @cpu (-1: all). */
static void sum_row(const struct stat_print *sp, size_t ev, int cpu, struct row *r)
{
	const struct kp_counter *c = sp->c;
	size_t per_ev = kp_evset_per_event(&c->set);

	memset(r, 0, sizeof(*r));
	r->e = &c->o->evs[ev];
	r->st = &c->set.ev[ev];
	r->cpu = cpu;
	for (size_t i = ev * per_ev; i < (ev + 1) * per_ev; i++) {
		if (cpu >= 0 && kp_evset_cpu(&c->set, i) != cpu)
			continue;
		r->c.val += c->now[i].val - sp->last[i].val;
		r->c.ena += c->now[i].ena - sp->last[i].ena;
		r->c.run += c->now[i].run - sp->last[i].run;
	}
}

/* The first counted clock event's nanoseconds on @cpu, the base of the rates; 0 if none. */
static double clock_base(const struct stat_print *sp, int cpu)
{
	struct row r;

	for (size_t ev = 0; ev < sp->c->o->nr_evs; ev++) {
		if (!is_clock(&sp->c->o->evs[ev]))
			continue;
		sum_row(sp, ev, cpu, &r);
		if (!row_state(&r))
			return scaled(&r.c);
	}
	return 0;
}

static void print_row(const struct stat_print *sp, size_t ev, int cpu, const struct period *p)
{
	struct row r;
	double clock_ns = clock_base(sp, cpu);

	sum_row(sp, ev, cpu, &r);
	if (sp->o->json)
		print_json(sp->out, &r, p, clock_ns);
	else if (sp->o->sep)
		print_csv(sp->out, sp->o->sep, &r, p, clock_ns);
	else
		print_std(sp->out, &r, p, clock_ns);
}

static int64_t ns_between(const struct timespec *a, const struct timespec *b)
{
	return (int64_t)(b->tv_sec - a->tv_sec) * 1000000000 + (b->tv_nsec - a->tv_nsec);
}

/* Print every event's counts since the last print (at @now), then make them the base. */
static void print_rows(struct stat_print *sp, const struct timespec *now, bool interval)
{
	const struct kp_counter *c = sp->c;
	int64_t since = ns_between(&c->t0, now);
	struct timespec ts = { since / 1000000000, since % 1000000000 };
	struct period p = { (double)ns_between(&sp->tlast, now), interval ? &ts : NULL };

	for (size_t ev = 0; ev < c->o->nr_evs; ev++) {
		if (!sp->o->no_aggr) {
			print_row(sp, ev, -1, &p);
			continue;
		}
		for (size_t i = 0; i < kp_evset_per_event(&c->set); i++)
			print_row(sp, ev, kp_evset_cpu(&c->set, i), &p);
	}
	memcpy(sp->last, c->now, kp_evset_nr_fds(&c->set) * sizeof(*sp->last));
	sp->tlast = *now;
}

static void print_interval(struct stat_print *sp, const struct timespec *now)
{
	/* perf repeats the column heading every 25 intervals */
	if (!sp->o->sep && !sp->o->json && sp->nr_intervals % 25 == 0)
		fputs(sp->o->no_aggr ? "#           time CPU                    counts unit events\n"
				     : "#           time             counts unit events\n",
		      sp->out);
	print_rows(sp, now, true);
}

/* ---- the summary -------------------------------------------------------------------------- */

static void print_heading(const struct stat_print *sp)
{
	const struct stat_opts *o = sp->o;

	fprintf(sp->out, "\n Performance counter stats for ");
	if (o->c.system_wide && o->cpu_arg)
		fprintf(sp->out, "'CPU(s) %s'", o->cpu_arg);
	else if (o->c.system_wide)
		fprintf(sp->out, "'system wide'");
	else if (o->c.nr_pids)
		fprintf(sp->out, "process id '%s'", o->pid_arg);
	else
		for (char **a = o->c.argv; *a; a++)
			fprintf(sp->out, "%s%s%s", a == o->c.argv ? "'" : " ", *a, a[1] ? "" : "'");
	fprintf(sp->out, ":\n\n");
}

static void print_footer(const struct stat_print *sp, const struct timespec *end)
{
	const struct rusage *ru = &sp->c->child.ru;

	fprintf(sp->out, "\n%18.9f seconds time elapsed\n\n",
		ns_between(&sp->c->t0, end) / 1e9);
	if (!sp->o->c.argv)
		return;
	fprintf(sp->out, "%18.9f seconds user\n%18.9f seconds sys\n\n\n",
		ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6,
		ru->ru_stime.tv_sec + ru->ru_stime.tv_usec / 1e6);
}

/* ---- the run ------------------------------------------------------------------------------ */

/* Milliseconds to the next interval's end (-1: no intervals). */
static int interval_timeout(const struct stat_print *sp, const struct timespec *now)
{
	int64_t due;

	if (!sp->o->interval_ms)
		return -1;
	due = ((int64_t)sp->nr_intervals + 1) * sp->o->interval_ms * 1000000 -
	      ns_between(&sp->c->t0, now);
	return due <= 0 ? 0 : (int)((due + 999999) / 1000000);
}

static void count_loop(struct kp_counter *c, struct stat_print *sp)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	while (kp_counter_wait(c, interval_timeout(sp, &now))) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (sp->o->interval_ms && interval_timeout(sp, &now) == 0) {
			kp_counter_read(c);
			print_interval(sp, &now);
			sp->nr_intervals++;
		}
	}
}

static int stat_run(const struct stat_opts *o, FILE *out)
{
	struct stat_print sp = { o, out, NULL, NULL, { 0, 0 }, 0 };
	struct kp_counter c;
	struct timespec end;
	int rc = kp_counter_start(&c, &o->c);

	if (!rc) {
		sp.c = &c;
		sp.last = kp_xcalloc(kp_evset_nr_fds(&c.set), sizeof(*sp.last));
		sp.tlast = c.t0;
		count_loop(&c, &sp);
		clock_gettime(CLOCK_MONOTONIC, &end);
		kp_counter_read(&c);
		if (o->interval_ms) {
			print_interval(&sp, &end);
		} else {
			if (!o->sep && !o->json)
				print_heading(&sp);
			print_rows(&sp, &end, false);
			if (!o->sep && !o->json)
				print_footer(&sp, &end);
		}
		rc = kp_counter_exit_code(&c);
	}
	kp_counter_release(&c);
	free(sp.last);
	return rc;
}

static int run_to(const struct stat_opts *o)
{
	struct kp_output out;
	FILE *f = kp_output_open(&out, o->output, stderr);
	int rc;

	if (!f)
		return 1;
	rc = stat_run(o, f);
	if (kp_output_commit(&out))
		rc = rc ? rc : 1;
	return rc;
}

/* ---- options ------------------------------------------------------------------------------ */

/*
 * -a, -C and -p, their lists read by the target options' parser of every command that records
 * (kp_target_opt()). As perf stat's, a second -p or -C replaces the first (the heading names
 * one list), -C counts those CPUs alone, as with -a, and -p takes at most what the counter
 * waits for.
 */
static int parse_target(int c, const char *arg, struct stat_opts *o)
{
	struct kp_record_opts t;
	int rc;

	memset(&t, 0, sizeof(t));
	rc = kp_target_opt("stat", c, arg, &t);
	if (rc) {
		free(t.cpus);
		free(t.pids);
		return rc;
	}
	if (c == 'p') {
		free(o->c.pids);
		o->c.pids = t.pids;
		o->c.nr_pids = t.nr_pids;
		o->pid_arg = arg;
		if (o->c.nr_pids > KP_COUNTER_MAX_PIDS)
			return kp_usage_error("stat", "-p takes at most %d processes",
					      KP_COUNTER_MAX_PIDS);
		return 0;
	}
	if (c == 'C') {
		free(o->c.cpus);
		o->c.cpus = t.cpus;
		o->c.nr_cpus = t.nr_cpus;
		o->cpu_arg = arg;
	}
	o->c.system_wide = true;
	return 0;
}

static int parse_interval(const char *arg, struct stat_opts *o)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*end || end == arg || v < 10 || v > 3600000)
		return kp_usage_error("stat", "-I must be from 10 to 3600000 ms, not '%s'", arg);
	o->interval_ms = (unsigned)v;
	return 0;
}

enum { OPT_FILTER = 256 };

static const struct option long_opts[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "filter", required_argument, NULL, OPT_FILTER },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "pid", required_argument, NULL, 'p' },
	{ "no-aggr", no_argument, NULL, 'A' },
	{ "interval-print", required_argument, NULL, 'I' },
	{ "field-separator", required_argument, NULL, 'x' },
	{ "json", no_argument, NULL, 'j' },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_opt(int c, struct stat_opts *o)
{
	switch (c) {
	case 'e':
		return kp_evspec_parse_arg(optarg, &o->c.evs, &o->c.nr_evs);
	case OPT_FILTER:
		return kp_evspec_filter(o->c.evs, o->c.nr_evs, optarg) ? 2 : 0;
	case 'a':
	case 'C':
	case 'p':
		return parse_target(c, optarg, o);
	case 'I':
		return parse_interval(optarg, o);
	case 'x':
		o->sep = optarg;
		return 0;
	case 'o':
		o->output = optarg;
		return 0;
	case 'A':
		o->no_aggr = true;
		return 0;
	case 'j':
		o->json = true;
		return 0;
	default:
		return 2;
	}
}

static int check_options(struct stat_opts *o)
{
	if (o->sep && o->json)
		return kp_usage_error("stat", "-x and --json do not go together");
	if (o->c.system_wide && o->c.nr_pids)
		return kp_usage_error("stat", "-p does not go with -a or -C");
	if (o->no_aggr && !o->c.system_wide)
		return kp_usage_error("stat", "-A needs -a or -C");
	if (!o->c.argv && !o->c.system_wide && !o->c.nr_pids)
		return kp_usage_error("stat", "no command to count (or -a, -C, -p)");
	if (!o->c.nr_evs && kp_evspec_parse(default_events, &o->c.evs, &o->c.nr_evs))
		return 1;
	return 0;
}

static int parse_options(int argc, char **argv, struct stat_opts *o)
{
	int c, rc;

	optind = 1;
	/* '+': stop at the command, so its own options are left alone */
	while ((c = getopt_long(argc, argv, "+e:aC:p:AI:x:jo:h", long_opts, NULL)) != -1) {
		if (c == 'h')
			return kp_cmd_help(stat_usage);
		rc = parse_opt(c, o);
		if (rc)
			return rc;
	}
	o->c.argv = optind < argc ? argv + optind : NULL;
	return check_options(o);
}

int cmd_stat(int argc, char **argv)
{
	struct stat_opts *o = kp_xcalloc(1, sizeof(*o));
	int rc = parse_options(argc, argv, o);

	if (rc == 0)
		rc = run_to(o);
	kp_evspec_free(o->c.evs, o->c.nr_evs);
	free(o->c.cpus);
	free(o->c.pids);
	free(o);
	return rc;
}
