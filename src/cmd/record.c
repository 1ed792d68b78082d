/* SPDX-License-Identifier: MIT */
/*
 * record.c - `kprof record`: options in, a kp_record_opts out, then the recorder.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "src/cli/archive.h"
#include "src/cmd/cmd.h"
#include "src/cli/options.h"
#include "src/cli/target.h"
#include "src/record/diag.h"
#include "src/cli/output.h"
#include "src/record/evspec.h"
#include "formats/util.h"
#include "formats/writer.h"
#include "src/cli/fetch.h"
#include "src/cli/input.h"
#include "src/record/recorder.h"
#include "report/replay/unwind-stats.h"

static const char record_usage[] =
	"usage: kprof record [options] [--] COMMAND [ARGS...]\n"
	"       kprof record [options] -a | -p PID | -t TID | -u USER [-- COMMAND [ARGS...]]\n"
	"\n"
	"Runs COMMAND and samples it, its threads and its children on every CPU; or samples\n"
	"the whole machine (-a) or processes that already run, until COMMAND ends, --duration\n"
	"passes, or Ctrl-C.\n"
	"\n"
	"  -a, --all-cpus             every process on every CPU (-C for some CPUs)\n"
	"  -C, --cpu LIST             with -a: only these CPUs, e.g. 0,2-3\n"
	"  -p, --pid PID[,PID]        attach to running processes: their threads and children\n"
	"  -t, --tid TID[,TID]        attach to these threads only\n"
	"  -u, --uid USER             attach to the processes of USER (a name or a number)\n"
	"      --duration SECONDS     stop after this long\n"
	"      --time SECONDS         the same as --duration (as kprof trace spells it)\n"
	"  -e, --event EVENT[,EVENT]  events to sample (default cpu-clock); modifiers :u :k;\n"
	"                             tracepoints SYS:NAME (globs), sampled at every hit;\n"
	"                             probes with values 'uprobe:PATH:FUNC ARG...' (perf\n"
	"                             probe's syntax) and usdt:PATH:PROVIDER:NAME\n"
	"      --filter EXPR          a filter for the tracepoint before it, e.g.\n"
	"                             'common_pid == 1234' (the kernel's syntax)\n"
	"  -c, --count PERIOD         one sample every PERIOD events (ns for cpu-clock)\n"
	"  -F, --freq HZ              samples per second (default 4000)\n"
	"  -g                         record frame-pointer call chains, kernel frames included\n"
	"      --call-graph fp        the same as -g\n"
	"      --call-graph dwarf[,SIZE]  copy SIZE bytes of user stack (default 32768, at\n"
	"                             most 65528) and the registers with each sample, and\n"
	"                             unwind them with DWARF CFI while recording (code without\n"
	"                             frame pointers): the file keeps the call chains, not the\n"
	"                             copies\n"
	"      --keep-stacks          with dwarf: store the stack copies instead, as perf\n"
	"                             does, and unwind them at report time\n"
	"      --off-cpu              also record where threads block and for how long: each\n"
	"                             switch-out's stack (event offcpu), timed by the switch\n"
	"                             records (kprof report --event offcpu, --wall)\n"
	"      --latency              also the switch records, which say how many threads run\n"
	"                             at once (kprof report --latency; --off-cpu has them)\n"
	"      --wakers               with --off-cpu: also who woke each blocked thread, the\n"
	"                             stack of each sched:sched_waking (root; kprof report\n"
	"                             --wakers); -a records the wakers outside COMMAND\n"
	"      --unwind-backlog MIB   with dwarf: samples waiting to be unwound beyond this\n"
	"                             are stored with their stack copies (default 64)\n"
	"      --sample FIELDS        sample fields, comma-separated, instead of the default\n"
	"                             ip,tid,time,cpu,period (see below)\n"
	"  -o, --output FILE          output file (default kprof.data; an old one becomes\n"
	"                             FILE.old)\n"
	"  -m, --mmap-pages PAGES     data pages per CPU ring, a power of two (default 128)\n"
	"  -z, --compression-level N  zstd level (default 1)\n"
	"      --all-kallsyms         store all of /proc/kallsyms, not only the symbols that\n"
	"                             samples hit\n"
	"      --embed-symbols        when recording ends, store in the file the symbols of\n"
	"                             the binaries its samples hit (kprof archive), so that it\n"
	"                             reports on any machine\n"
	"      --switch-output[=WHEN] cut the recording into files FILE.YYYYMMDDhhmmssff, each\n"
	"                             complete on its own: on SIGUSR2, and every WHEN, a time\n"
	"                             (10s, 5m, 1h; plain seconds) or a size (100M; B K M G)\n"
	"      --switch-max-files N   keep only the newest N of them\n"
	"      --switch-output-exec CMD  run sh -c CMD with each closed file as $1, e.g.\n"
	"                             'kprof report --format pprof -i \"$1\" -o \"$1.pb.gz\"'\n"
	"      --switch-output-event EVENT  also a new file after each sample of EVENT (a\n"
	"                             tracepoint or probe, recorded too); implies\n"
	"                             --switch-output\n"
	"  -h, --help                 this text\n"
	"\n"
	"Events a CPU without a hardware PMU lacks (cycles, instructions, ...) fall back to\n"
	"cpu-clock with a notice; the recording names the event really used.\n"
	"\n";

struct sample_field {
	const char *name;
	uint64_t bit;
};

static const struct sample_field sample_fields[] = {
	{ "ip", PERF_SAMPLE_IP },
	{ "tid", PERF_SAMPLE_TID },
	{ "time", PERF_SAMPLE_TIME },
	{ "addr", PERF_SAMPLE_ADDR },
	{ "id", PERF_SAMPLE_ID },
	{ "stream_id", PERF_SAMPLE_STREAM_ID },
	{ "cpu", PERF_SAMPLE_CPU },
	{ "period", PERF_SAMPLE_PERIOD },
	{ "callchain", PERF_SAMPLE_CALLCHAIN },
	{ "raw", PERF_SAMPLE_RAW },
	{ "identifier", PERF_SAMPLE_IDENTIFIER },
	{ "weight", PERF_SAMPLE_WEIGHT },
	{ "data_src", PERF_SAMPLE_DATA_SRC },
	{ "transaction", PERF_SAMPLE_TRANSACTION },
	{ "phys_addr", PERF_SAMPLE_PHYS_ADDR },
	{ "cgroup", PERF_SAMPLE_CGROUP },
	{ "data_page_size", PERF_SAMPLE_DATA_PAGE_SIZE },
	{ "code_page_size", PERF_SAMPLE_CODE_PAGE_SIZE },
};

static int help(void)
{
	int rc = kp_cmd_help(record_usage);

	printf("Sample fields for --sample:");
	for (size_t i = 0; i < ARRAY_SIZE(sample_fields); i++)
		printf("%s%s", i ? "," : " ", sample_fields[i].name);
	printf("\n\nEvents:\n");
	kp_evspec_list();
	return rc;
}

static int parse_sample(const char *list, uint64_t *bits)
{
	char *copy = kp_xstrdup(list), *save = NULL, *tok;
	int rc = 0;

	*bits = 0;
	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		size_t i;
		for (i = 0; i < ARRAY_SIZE(sample_fields); i++)
			if (!strcmp(tok, sample_fields[i].name))
				break;
		if (i == ARRAY_SIZE(sample_fields))
			rc = kp_usage_error("record", "unknown sample field '%s'", tok);
		else
			*bits |= sample_fields[i].bit;
	}
	free(copy);
	if (!rc && !*bits)
		rc = kp_usage_error("record", "--sample needs at least one field");
	return rc;
}

/* Parse an unsigned number in [min, max]; "what" names it in the error. */
static int parse_num(const char *s, const char *what, uint64_t min, uint64_t max, uint64_t *out)
{
	return kp_cmd_number("record", what, s, min, max, out);
}

/*
 * --switch-output's WHEN, as perf spells it: "signal" (SIGUSR2 only, and the default), a time
 * (N with s, m, h or d; a plain N is seconds) or a size (N with B, K, M or G).
 */
static int parse_switch(const char *s, struct kp_switch_opts *sw)
{
	static const struct {
		char suffix;
		double secs;
		uint64_t bytes;
	} units[] = { { 's', 1, 0 }, { 'm', 60, 0 }, { 'h', 3600, 0 }, { 'd', 86400, 0 },
		      { 'B', 0, 1 }, { 'K', 0, 1ull << 10 }, { 'M', 0, 1ull << 20 },
		      { 'G', 0, 1ull << 30 } };
	char *end;
	double v;

	sw->on = true;
	if (!s || !strcmp(s, "signal"))
		return 0;
	v = strtod(s, &end);
	if (end == s || !(v > 0 && v < 1e9))
		goto bad;
	if (!*end) {
		sw->secs = v;
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		if (end[0] != units[i].suffix || end[1])
			continue;
		if (units[i].secs) {
			sw->secs = v * units[i].secs;
		} else {
			sw->bytes = (uint64_t)(v * (double)units[i].bytes);
			if (sw->bytes < 4096)
				return kp_usage_error("record", "--switch-output=%s: a file of at least "
						      "4K", s);
		}
		return 0;
	}
bad:
	return kp_usage_error("record", "--switch-output takes signal, a time (10s, 5m, 1h, 1d) "
			      "or a size (100M; B K M G), not '%s'", s);
}

/*
 * "fp", or "dwarf[,SIZE]": SIZE bytes of user stack per sample, a multiple of 8 below 64 KiB.
 * The default, 32 KiB, takes 99.5% of sqlite3's stacks (8 KiB: 0.6%) to their entry, for no
 * more CPU than perf's 8 KiB (README.md, "How much stack --call-graph dwarf copies").
 */
static int parse_call_graph(const char *s, struct kp_record_opts *o)
{
	uint64_t size = 32768;

	if (!strcmp(s, "fp")) {
		o->callchain = true;
		return 0;
	}
	if (strncmp(s, "dwarf", 5) || (s[5] && s[5] != ','))
		return kp_usage_error("record", "unknown call-graph mode '%s' (known: fp, dwarf[,SIZE])",
				      s);
	if (s[5] && parse_num(s + 6, "the dwarf stack size", 8, KP_STACK_COPY_MAX, &size))
		return 2;
	if (size % 8)
		return kp_usage_error("record", "the dwarf stack size must be a multiple of 8, not %llu",
				      (unsigned long long)size);
	o->stack_user = (uint32_t)size;
	return 0;
}

static int parse_level(const char *s, int *level)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < ZSTD_minCLevel() || v > ZSTD_maxCLevel())
		return kp_usage_error("record", "-z must be a zstd level from %d to %d, not '%s'",
				      ZSTD_minCLevel(), ZSTD_maxCLevel(), s);
	*level = (int)v;
	return 0;
}

enum {
	OPT_CALL_GRAPH = 256, OPT_SAMPLE, OPT_ALL_KALLSYMS, OPT_FILTER,
	OPT_KEEP_STACKS, OPT_UNWIND_BACKLOG, OPT_OFF_CPU, OPT_WAKERS, OPT_LATENCY, OPT_EMBED_SYMBOLS, OPT_SWITCH_OUTPUT,
	OPT_SWITCH_MAX_FILES, OPT_SWITCH_OUTPUT_EXEC, OPT_SWITCH_OUTPUT_EVENT,
};

static const struct option long_opts[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "count", required_argument, NULL, 'c' },
	{ "freq", required_argument, NULL, 'F' },
	{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
	{ "sample", required_argument, NULL, OPT_SAMPLE },
	{ "output", required_argument, NULL, 'o' },
	{ "compression-level", required_argument, NULL, 'z' },
	{ "all-kallsyms", no_argument, NULL, OPT_ALL_KALLSYMS },
	{ "embed-symbols", no_argument, NULL, OPT_EMBED_SYMBOLS },
	KP_TARGET_OPTIONS,
	KP_TARGET_CPU_OPTION,
	KP_TARGET_DURATION_OPTIONS,
	{ "filter", required_argument, NULL, OPT_FILTER },
	{ "keep-stacks", no_argument, NULL, OPT_KEEP_STACKS },
	{ "off-cpu", no_argument, NULL, OPT_OFF_CPU },
	{ "wakers", no_argument, NULL, OPT_WAKERS },
	{ "latency", no_argument, NULL, OPT_LATENCY },
	{ "unwind-backlog", required_argument, NULL, OPT_UNWIND_BACKLOG },
	{ "switch-output", optional_argument, NULL, OPT_SWITCH_OUTPUT },
	{ "switch-max-files", required_argument, NULL, OPT_SWITCH_MAX_FILES },
	{ "switch-output-exec", required_argument, NULL, OPT_SWITCH_OUTPUT_EXEC },
	{ "switch-output-event", required_argument, NULL, OPT_SWITCH_OUTPUT_EVENT },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_opt(int c, struct kp_record_opts *o)
{
	uint64_t v;

	switch (c) {
	case 'e':
		return kp_evspec_parse_arg(optarg, &o->evs, &o->nr_evs);
	case 'c':
		o->freq = 0;
		return parse_num(optarg, "-c", 1, UINT64_MAX >> 1, &o->period);
	case 'F':
		o->period = 0;
		return parse_num(optarg, "-F", 1, 1000000, &o->freq);
	case 'g':
		o->callchain = true;
		return 0;
	case OPT_CALL_GRAPH:
		return parse_call_graph(optarg, o);
	case OPT_SAMPLE:
		return parse_sample(optarg, &o->sample_type);
	case 'o':
		o->output = optarg;
		return 0;
	case 'z':
		return parse_level(optarg, &o->level);
	case OPT_ALL_KALLSYMS:
		o->all_kallsyms = true;
		return 0;
	case OPT_EMBED_SYMBOLS:
		o->embed_symbols = true;
		return 0;
	case OPT_FILTER:
		return kp_evspec_filter(o->evs, o->nr_evs, optarg) ? 2 : 0;
	case OPT_KEEP_STACKS:
		o->keep_stacks = true;
		return 0;
	case OPT_OFF_CPU:
		o->off_cpu = true;
		return 0;
	case OPT_WAKERS:
		o->wakers = true;
		return 0;
	case OPT_LATENCY:
		o->latency = true;
		return 0;
	case OPT_UNWIND_BACKLOG:
		if (parse_num(optarg, "--unwind-backlog", 0, 1u << 20, &v))
			return 2;
		o->unwind_backlog = (size_t)v << 20;
		return 0;
	case OPT_SWITCH_OUTPUT:
		return parse_switch(optarg, &o->sw);
	case OPT_SWITCH_MAX_FILES:
		if (parse_num(optarg, "--switch-max-files", 1, 1u << 20, &v))
			return 2;
		o->sw.max_files = (size_t)v;
		return 0;
	case OPT_SWITCH_OUTPUT_EXEC:
		o->sw.exec = optarg;
		return 0;
	case OPT_SWITCH_OUTPUT_EVENT: /* as perf's: the signal, and these events' samples */
		o->sw.event = optarg;
		o->sw.on = true;
		return 0;
	default:
		return kp_target_opt("record", c, optarg, o);
	}
}

/*
 * The pages of a ring for stack copies of @size bytes, unless -m says: room for 64 copies, and
 * 512 pages (2 MiB) at least. A ring then holds 16 ms of one CPU's samples at 4 kHz with
 * 32 KiB copies, and with 64 KiB ones in 1024 pages (in 512, a busy machine lost a few).
 */
static size_t dwarf_pages(uint32_t size)
{
	size_t psize = (size_t)sysconf(_SC_PAGESIZE), pages = 512;

	while (pages * psize < (size_t)64 * size)
		pages *= 2;
	return pages;
}

static int parse_options(int argc, char **argv, struct kp_record_opts *o)
{
	int c, rc;

	o->freq = 4000;
	o->output = "kprof.data";
	o->pages = 128;
	o->level = KP_WRITER_DEFAULT_LEVEL;
	o->unwind_backlog = (size_t)64 << 20;
	optind = 1;
	/* '+': stop at the command, so its own options are left alone */
	while ((c = getopt_long(argc, argv, "+e:c:F:go:z:hC:" KP_TARGET_SHORT, long_opts, NULL)) != -1) {
		if (c == 'h')
			return help();
		rc = parse_opt(c, o);
		if (rc)
			return rc;
	}
	if (optind < argc)
		o->argv = argv + optind;
	if (o->stack_user && !o->pages_given)
		o->pages = dwarf_pages(o->stack_user);
	if (o->embed_symbols && kp_path_is_stream(o->output))
		return kp_usage_error("record", "--embed-symbols reads the recording back: not with "
				      "-o '%s' (kprof archive the file it goes to)", o->output);
	if ((o->sw.max_files || o->sw.exec) && !o->sw.on)
		return kp_usage_error("record", "--switch-max-files and --switch-output-exec apply "
				      "to --switch-output");
	if (o->sw.on && kp_path_is_stream(o->output))
		return kp_usage_error("record", "--switch-output cuts files: not with -o '%s'",
				      o->output);
	if (o->sw.on && o->embed_symbols)
		return kp_usage_error("record", "--embed-symbols applies to one file: with "
				      "--switch-output, use --switch-output-exec 'kprof archive -i "
				      "\"$1\"'");
	if (o->wakers && !o->off_cpu)
		return kp_usage_error("record", "--wakers says who woke the off-CPU intervals: it "
				      "applies to --off-cpu");
	if (o->keep_stacks && !o->stack_user)
		return kp_usage_error("record", "--keep-stacks applies to --call-graph dwarf");
	if (!o->argv && !o->system_wide && !o->nr_pids && !o->nr_tids)
		return kp_usage_error("record", "no command to record (or -a, -p, -t, -u)");
	if (o->cpus && !o->system_wide)
		return kp_usage_error("record", "-C applies to -a");
	if ((o->nr_pids || o->nr_tids) && (o->system_wide || o->argv))
		return kp_usage_error("record", "-p, -t and -u attach: not with -a or a command");
	if (!o->nr_evs && kp_evspec_parse("cpu-clock", &o->evs, &o->nr_evs))
		return 1;
	if (o->sw.event) { /* after the others, so that its samples are known by their index */
		o->sw.first_event = o->nr_evs;
		if ((rc = kp_evspec_parse_arg(o->sw.event, &o->evs, &o->nr_evs)))
			return rc;
	}
	if (o->off_cpu) { /* beside the CPU samples: every switch-out, its stack and its length */
		if (kp_evspec_parse("context-switches", &o->evs, &o->nr_evs))
			return 1;
		struct kp_evspec *e = &o->evs[o->nr_evs - 1];

		e->off_cpu = true;
		e->name = "offcpu";
		free(e->spec);
		e->spec = kp_xstrdup("offcpu");
	}
	/* who woke each: sched_waking fires in the waker's context, where sched_wakeup may fire
	 * on the woken thread's idle CPU instead (report/profile/offcpu.h) */
	if (o->wakers && kp_evspec_parse("sched:sched_waking", &o->evs, &o->nr_evs))
		return 1;
	return 0;
}

/*
 * --embed-symbols: the recording, once written, made self-contained (kprof archive), the
 * binaries of processes in other mount namespaces read as those processes saw them (@ns).
 */
static int embed(const char *path, const struct kp_nsfiles *ns)
{
	struct kp_debuginfod *debuginfod;
	int rc;

	if (kp_is_recording(path) != 1)
		return 1; /* the recorder said why there is none */
	if (ns->missed)
		kp_warn("%llu binaries of processes in other mount namespaces were gone before they "
			"could be opened: their frames keep only offsets elsewhere",
			(unsigned long long)ns->missed);
	debuginfod = kp_fetch_client();
	rc = kp_archive_file(path, NULL, NULL, "record", ns->alts, ns->nr_alts, debuginfod);
	kp_debuginfod_free(debuginfod);
	return rc;
}

int cmd_record(int argc, char **argv)
{
	struct kp_record_opts o;
	struct kp_recorder rec;
	struct kp_nsfiles ns;
	int rc;

	memset(&o, 0, sizeof(o));
	o.argc_all = argc;
	o.argv_all = argv;
	o.version = PACKAGE_VERSION;
	rc = parse_options(argc, argv, &o);
	/* the recording is written in place, so that a killed one is at its path: never through
	 * a link */
	if (rc == 0) {
		kp_nsfiles_init(&ns, o.embed_symbols);
		o.nsfiles = &ns;
		rc = kp_output_check_path(o.output) ? 1 : kp_recorder_run(&rec, &o);
		/* the command's exit code is kept: an archive that fails makes only 0 a 1 */
		if (o.embed_symbols && embed(o.output, &ns) && !rc)
			rc = 1;
		else if (!o.embed_symbols && kp_nsfiles_count(&ns))
			kp_notice("%zu binaries were mapped by processes in other mount namespaces "
				  "(containers): a report here may not reach them; record "
				  "--embed-symbols stores their symbols while they can be read",
				  kp_nsfiles_count(&ns));
		kp_nsfiles_release(&ns);
	}
	kp_evspec_free(o.evs, o.nr_evs);
	free(o.cpus);
	free(o.pids);
	free(o.tids);
	return rc;
}
