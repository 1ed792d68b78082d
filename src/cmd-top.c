/* SPDX-License-Identifier: MIT */
/*
 * cmd-top.c - kprof top: the hottest functions of the whole machine (or of some processes),
 * live. The recorder's records go to report/top.c's model instead of a file; every -d seconds
 * it shows the last interval's shares, older ones decayed, as perf top does. On a terminal
 * the screen is redrawn until Ctrl-C; otherwise one snapshot is printed, and kprof exits.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "formats/util.h"
#include "record/recorder.h"
#include "report/top.h"

static const char top_usage[] =
	"usage: kprof top [-a | -p PID,... | -t TID,... | -u USER] [options]\n"
	"\n"
	"Shows the hottest functions of the whole machine as they run, refreshed every few\n"
	"seconds; with standard output not a terminal, one snapshot after the first interval.\n"
	"\n"
	"  -a, --all-cpus        every process on every CPU (the default)\n"
	"  -p, --pid PID,...     these processes, their threads and later children\n"
	"  -t, --tid TID,...     these threads\n"
	"  -u, --uid USER        the processes of USER\n"
	"  -C, --cpu LIST        with -a, these CPUs only (e.g. 0-3,6)\n"
	"  -e, --event EVENT     the event to sample (default cpu-clock)\n"
	"  -F, --freq HZ         samples per second (default 4000)\n"
	"  -c, --count PERIOD    one sample every PERIOD events instead\n"
	"  -g                    record call chains (the stacks are cached as they repeat)\n"
	"  -d, --delay SECONDS   the refresh interval (default 2)\n"
	"  -E, --entries N       the functions shown (default 20)\n"
	"\n"
	"On a terminal, q quits (as Ctrl-C does).\n"
	"  -h, --help            this text\n";

struct top_run {
	struct kp_top model;
	double delay, last;	/* the refresh interval; when the last refresh was */
	size_t entries;
	bool tty, keys;		/* output on a terminal; keys read from one */
	struct timespec t0;
};

/*
 * Keys: the terminal's input without line editing or echo, so that q is read as it is
 * pressed; Ctrl-C still interrupts. Its settings are put back at exit, and by a crash's
 * handler (tcsetattr() may be called there) before the crash goes on.
 */
static struct termios saved_tty;
static volatile sig_atomic_t tty_raw;

static void restore_tty(void)
{
	if (tty_raw) {
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_tty);
		tty_raw = 0;
	}
}

static void on_crash(int sig)
{
	restore_tty();
	signal(sig, SIG_DFL);
	raise(sig);
}

static bool keys_on(void)
{
	static const int crashes[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	struct termios t;

	if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &saved_tty))
		return false;
	t = saved_tty;
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	t.c_cc[VMIN] = 0; /* read() returns at once, with what was typed */
	t.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSANOW, &t))
		return false;
	tty_raw = 1;
	atexit(restore_tty);
	for (size_t i = 0; i < ARRAY_SIZE(crashes); i++)
		signal(crashes[i], on_crash);
	return true;
}

/* q typed since the last look: quit. */
static bool quit_typed(void)
{
	char c;

	while (read(STDIN_FILENO, &c, 1) == 1)
		if (c == 'q' || c == 'Q')
			return true;
	return false;
}

static double now_s(const struct top_run *r)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts.tv_sec - r->t0.tv_sec) + (ts.tv_nsec - r->t0.tv_nsec) / 1e9;
}

/* After each drain: a refresh when it is due; without a terminal, the first one ends it. */
static int tick(void *ctx)
{
	struct top_run *r = ctx;
	double t = now_s(r);

	if (r->keys && quit_typed())
		return 1;
	if (t - r->last < r->delay)
		return 0;
	if (r->tty)
		fputs("\033[H\033[2J", stdout); /* home, clear: plain ANSI, no curses needed */
	kp_top_print(&r->model, stdout, r->entries, t - r->last);
	r->last = t;
	return !r->tty;
}

static int parse_u64(const char *s, const char *what, uint64_t min, uint64_t max, uint64_t *out)
{
	return kp_cmd_number("top", what, s, min, max, out);
}

static int parse_opt(int c, struct kp_record_opts *o, struct top_run *r)
{
	uint64_t v;
	char *end;

	switch (c) {
	case 'a': case 'p': case 't': case 'u':
		return kp_cmd_target_opt("top", c, optarg, o);
	case 'C':
		return kp_cmd_cpus("top", optarg, &o->cpus, &o->nr_cpus);
	case 'e':
		return kp_evspec_parse_arg(optarg, &o->evs, &o->nr_evs);
	case 'F':
		o->period = 0;
		return parse_u64(optarg, "-F", 1, 1000000, &o->freq);
	case 'c':
		o->freq = 0;
		return parse_u64(optarg, "-c", 1, UINT64_MAX >> 1, &o->period);
	case 'g':
		o->callchain = true;
		return 0;
	case 'd':
		r->delay = strtod(optarg, &end);
		if (end == optarg || *end || !(r->delay >= 0.1 && r->delay <= 3600))
			return kp_usage_error("top", "-d takes seconds from 0.1 to 3600, not '%s'",
					      optarg);
		return 0;
	case 'E':
		if (parse_u64(optarg, "-E", 1, 100000, &v))
			return 2;
		r->entries = (size_t)v;
		return 0;
	default:
		return 2;
	}
}

int cmd_top(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all-cpus", no_argument, NULL, 'a' }, { "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' }, { "uid", required_argument, NULL, 'u' },
		{ "cpu", required_argument, NULL, 'C' }, { "event", required_argument, NULL, 'e' },
		{ "freq", required_argument, NULL, 'F' }, { "count", required_argument, NULL, 'c' },
		{ "delay", required_argument, NULL, 'd' }, { "entries", required_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	struct kp_dso_opts dso = { .inline_frames = false, .demangle = true };
	struct kp_record_opts o;
	struct kp_recorder rec;
	struct top_run r = { .delay = 2, .entries = 20 };
	int c, rc = 0;

	memset(&o, 0, sizeof(o));
	o.freq = 4000;
	o.pages = 128;
	o.level = KP_WRITER_DEFAULT_LEVEL;
	o.argc_all = argc;
	o.argv_all = argv;
	o.quiet = true;
	optind = 1;
	while (!rc && (c = getopt_long(argc, argv, "ap:t:u:C:e:F:c:gd:E:h", opts, NULL)) != -1)
		rc = c == 'h' ? kp_cmd_help(top_usage) - 1 : parse_opt(c, &o, &r);
	if (!rc && optind < argc)
		rc = kp_usage_error("top", "no command: top watches what runs (-a, -p, -t, -u)");
	if (!rc && o.cpus && (o.nr_pids || o.nr_tids))
		rc = kp_usage_error("top", "-C applies to -a");
	if (!rc && !o.nr_pids && !o.nr_tids)
		o.system_wide = true;
	if (!rc && !o.nr_evs && kp_evspec_parse("cpu-clock", &o.evs, &o.nr_evs))
		rc = 1;
	if (!rc) {
		r.tty = isatty(STDOUT_FILENO);
		r.keys = r.tty && keys_on();
		clock_gettime(CLOCK_MONOTONIC, &r.t0);
		kp_top_init(&r.model, &dso);
		o.live = kp_top_sink;
		o.tick = tick;
		o.live_ctx = &r;
		rc = kp_recorder_run(&rec, &o);
		if (!rc && r.model.err)
			rc = 1;
		kp_top_release(&r.model);
		restore_tty();
	}
	kp_evspec_free(o.evs, o.nr_evs);
	free(o.cpus);
	free(o.pids);
	free(o.tids);
	return rc < 0 ? 0 : rc;
}
