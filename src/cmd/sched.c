/* SPDX-License-Identifier: MIT */
/*
 * sched.c - `kprof sched`: the scheduler's view (report/tools/sched.h), as perf sched gives it:
 * record the switches and wakeups of every CPU while a command runs (or read -i FILE), then
 * latency (per task its run time and scheduling delays), timehist (each switch-out with its
 * wait, delay and run time) or map (which task runs on each CPU, switch by switch).
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/util.h"
#include "report/tools/sched.h"
#include "src/cli/fetch.h"
#include "src/cli/input.h"
#include "src/cli/options.h"
#include "src/cli/target.h"
#include "src/cmd/cmd.h"
#include "src/record/diag.h"
#include "src/record/idlist.h"
#include "src/record/opts.h"

static const char sched_usage[] =
	"usage: kprof sched record [options] [--] [COMMAND [ARGS...]]\n"
	"       kprof sched latency|timehist|map [options] [--] [COMMAND [ARGS...]]\n"
	"       kprof sched latency|timehist|map [options] -i FILE\n"
	"\n"
	"The scheduler's view, as perf sched gives it: sched:sched_switch, sched_wakeup and\n"
	"sched_wakeup_new of every CPU (root), recorded while COMMAND runs (or for --duration,\n"
	"or until Ctrl-C), then\n"
	"  record    only record them (into -o FILE, default kprof.data)\n"
	"  latency   per command (or task): run time, switch-ins after being runnable, their\n"
	"            average and longest scheduling delay (the time runnable before running)\n"
	"  timehist  each switch-out: the task's wait before its stretch on the CPU, the\n"
	"            scheduling delay part of it, and the stretch's run time\n"
	"  map       which task runs on each CPU, switch by switch\n"
	"\n"
	"  -C, --cpu LIST         only these CPUs, e.g. 0,2-3\n"
	"      --duration SECONDS stop after this long\n"
	"      --time SECONDS     the same as --duration\n"
	"  -m, --mmap-pages N     data pages per CPU ring, a power of two (default 256)\n"
	"  -o, --output FILE      keep the recording in FILE\n"
	"  -i, --input FILE       show a recording instead of recording\n"
	"      --pid LIST, --tid LIST, --comm LIST\n"
	"                         latency, timehist: only these processes, threads or commands\n"
	"  -p, --pids             latency: a row per task, not per command\n"
	"  -s, --summary          timehist: per task its runs, run time, waits (sleep, iowait,\n"
	"                         preempted) and scheduling delays, not each switch\n"
	"  -S, --with-summary     timehist: each switch, then the summary\n"
	"  -a, --all-cpus         every CPU (what kprof sched records in any case)\n"
	"  -h, --help             this text\n";

enum view { V_RECORD, V_LATENCY, V_TIMEHIST, V_MAP };

struct sched {
	enum view view;
	const char *output, *input;
	struct kp_sched_filter f;
	int *pids, *tids;
	char **comms;
	bool by_task, summary, rows;
	struct kp_record_opts ro;
};

enum { OPT_PID = 256, OPT_TID, OPT_COMM };

static const struct option long_opts[] = {
	{ "all-cpus", no_argument, NULL, 'a' },
	KP_TARGET_CPU_OPTION,
	KP_TARGET_DURATION_OPTIONS,
	{ "mmap-pages", required_argument, NULL, 'm' },
	{ "output", required_argument, NULL, 'o' },
	{ "input", required_argument, NULL, 'i' },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "tid", required_argument, NULL, OPT_TID },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "pids", no_argument, NULL, 'p' },
	{ "summary", no_argument, NULL, 's' },
	{ "with-summary", no_argument, NULL, 'S' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int add_comms(struct sched *s, const char *list)
{
	char *copy = kp_xstrdup(list), *save = NULL, *tok;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		s->comms = kp_xrealloc(s->comms, (s->f.nr_comms + 1) * sizeof(*s->comms));
		s->comms[s->f.nr_comms++] = kp_xstrdup(tok);
	}
	free(copy);
	return 0;
}

static int parse_opt(struct sched *s, int c)
{
	switch (c) {
	case 'o': s->output = optarg; return 0;
	case 'i': s->input = optarg; return 0;
	case 'p': s->by_task = true; return 0;
	case 's': s->summary = true; s->rows = false; return 0;
	case 'S': s->summary = s->rows = true; return 0;
	case OPT_PID:
		return kp_cmd_idlist("sched", "--pid", optarg, false, 0, KP_MAX_PID, &s->pids,
				     &s->f.nr_pids);
	case OPT_TID:
		return kp_cmd_idlist("sched", "--tid", optarg, false, 0, KP_MAX_PID, &s->tids,
				     &s->f.nr_tids);
	case OPT_COMM: return add_comms(s, optarg);
	default: return kp_target_opt("sched", c, optarg, &s->ro);
	}
}

static int parse_view(struct sched *s, const char *name)
{
	static const char *const names[] = { "record", "latency", "timehist", "map" };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i])) {
			s->view = (enum view)i;
			return 0;
		}
	return kp_usage_error("sched", "no view '%s' (record, latency, timehist or map)", name);
}

static int parse_options(struct sched *s, int argc, char **argv)
{
	int c, rc;

	s->ro.pages = 256;
	s->ro.level = KP_WRITER_DEFAULT_LEVEL;
	s->rows = true;
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return kp_cmd_help(sched_usage);
	if (argc < 2 || argv[1][0] == '-')
		return kp_usage_error("sched", "what to show first: record, latency, timehist or "
				      "map");
	if ((rc = parse_view(s, argv[1])))
		return rc;
	optind = 1;
	argc--;
	argv++;
	while ((c = getopt_long(argc, argv, "+ao:i:C:m:psSh", long_opts, NULL)) != -1) {
		if (c == 'h')
			return kp_cmd_help(sched_usage);
		if ((rc = parse_opt(s, c)))
			return rc;
	}
	if (optind < argc)
		s->ro.argv = argv + optind;
	s->ro.system_wide = false; /* -a or not, every CPU is recorded: said once below */
	if (s->input && (s->ro.argv || s->ro.cpus || s->ro.duration))
		return kp_usage_error("sched", "-i shows a recording: no command, -C or --duration");
	if (s->input && (s->output || s->view == V_RECORD))
		return kp_usage_error("sched", "-i and %s: the recording is already there",
				      s->output ? "-o" : "record");
	if ((s->by_task && s->view != V_LATENCY) ||
	    ((s->summary || !s->rows) && s->view != V_TIMEHIST))
		return kp_usage_error("sched", "%s applies to %s", s->by_task ? "-p" : "-s and -S",
				      s->by_task ? "latency" : "timehist");
	if ((s->f.nr_pids || s->f.nr_tids || s->f.nr_comms) &&
	    (s->view == V_RECORD || s->view == V_MAP))
		return kp_usage_error("sched", "--pid, --tid and --comm apply to latency and "
				      "timehist");
	s->f.pids = s->pids;
	s->f.tids = s->tids;
	s->f.comms = s->comms;
	if (!s->input)
		s->ro.system_wide = true;
	return 0;
}

static void each_switch(void *ctx, const struct kp_sched *m, const struct kp_sched_switch *sw)
{
	const struct sched *s = ctx;

	if (s->view == V_MAP)
		kp_sched_map_row(stdout, m, sw);
	else if (s->view == V_TIMEHIST && s->rows && kp_sched_keep(m, &s->f, sw->prev))
		kp_sched_timehist_row(stdout, m, sw);
}

static int show(struct sched *s, const char *path)
{
	struct kp_sched_opts o = { .input = path, .on_switch = each_switch, .ctx = s };
	struct kp_sched m;
	int rc, out = 0;

	o.dso.debuginfod = kp_fetch_client();
	if (s->view == V_TIMEHIST && s->rows)
		kp_sched_timehist_head(stdout);
	rc = kp_sched_run(&m, &o);
	if (rc == -KP_SCHED_EOPEN) {
		out = kp_input_explain(&m.s.r, path, m.open_err);
	} else if (rc == -KP_SCHED_ENOSWITCH) {
		if (m.s.evl.nr)
			kp_error("'%s' has no sched:sched_switch events", path);
		kp_hint("record them with: kprof sched record -- COMMAND (as root)");
		out = 1;
	} else {
		if (s->view == V_LATENCY)
			kp_sched_latency(stdout, &m, &s->f, s->by_task);
		if (s->view == V_TIMEHIST && s->summary)
			kp_sched_summary(stdout, &m, &s->f);
		fflush(stdout);
		if (m.ev_waking < 0)
			kp_warn("'%s' has no sched:sched_wakeup nor sched_waking: no scheduling delay "
				"after a sleep is known", path);
		if (!m.system_wide)
			kp_warn("'%s' is not a recording of every CPU: a task's switches on the "
				"others are missing, and its figures with them", path);
		if (m.not_current)
			kp_warn("%llu switch-outs were of a task that the CPU's last recorded switch "
				"had not put there: the switches between were not recorded (the kernel "
				"sends none out of some tasks, as of another PID namespace), so their "
				"tasks' run time may count too much, their waits and delays too little "
				"(timehist -s: unsure)", (unsigned long long)m.not_current);
		if (m.s.have_stats && m.s.stats.lost)
			kp_warn("%llu events were lost (a larger -m keeps them): the figures around "
				"them are wrong", (unsigned long long)m.s.stats.lost);
	}
	out |= kp_input_replayed(&m.s, path);
	kp_debuginfod_free(o.dso.debuginfod);
	kp_sched_release(&m);
	return out;
}

int cmd_sched(int argc, char **argv)
{
	struct sched s;
	char *path = NULL;
	int rc, status = 0, fd = -1;

	memset(&s, 0, sizeof(s));
	rc = parse_options(&s, argc, argv);
	if (rc) /* or the help, shown */
		goto out;
	if (!s.input) {
		s.ro.period = 1;
		rc = kp_evspec_parse_arg("sched:sched_switch,sched:sched_wakeup,"
					 "sched:sched_wakeup_new", &s.ro.evs, &s.ro.nr_evs);
		if (!rc) {
			status = kp_target_record_into(&s.ro, s.view == V_RECORD && !s.output
							      ? "kprof.data" : s.output,
						       argc - 1, argv + 1, &path, &fd);
			if (!kp_target_recorded(path))
				rc = status ? status : 1;
		}
	}
	if (!rc && s.view != V_RECORD)
		rc = show(&s, s.input ? s.input : path);
	rc = rc ? rc : status;
	if (fd >= 0)
		close(fd);
out:
	free(path);
	free(s.pids);
	free(s.tids);
	for (size_t i = 0; i < s.f.nr_comms; i++)
		free(s.comms[i]);
	free(s.comms);
	kp_evspec_free(s.ro.evs, s.ro.nr_evs);
	free(s.ro.cpus);
	return rc;
}
