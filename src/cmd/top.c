/* SPDX-License-Identifier: MIT */
/*
 * top.c - kprof top: the hottest functions of the whole machine (or of some processes),
 * live. The recorder's records go to report/tools/top.c's model instead of a file; every -d seconds
 * it shows the last interval's shares, older ones decayed, as perf top does. On a terminal
 * the screen is redrawn until Ctrl-C; otherwise one snapshot is printed, and kprof exits.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "src/cmd/cmd.h"
#include "src/cli/options.h"
#include "src/cli/output.h"
#include "src/cli/target.h"
#include "formats/util.h"
#include "src/record/diag.h"
#include "src/record/recorder.h"
#include "report/base/hash.h"
#include "report/tools/top.h"
#include "src/tui/ann-page.h"
#include "src/tui/tui.h"

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
	"  -E, --entries N       the functions shown (default 20; on a terminal, all that fit)\n"
	"  -s, --sort KEY        sym (the default), dso, comm or comm,sym\n"
	"  -K, --hide-kernel     count kernel samples for the user function below them\n"
	"      --inline-self     count a sample for the function inlined where it fell, not\n"
	"                        for the function holding its code (perf's name, the default)\n"
	"  -m, --mmap-pages N    data pages per CPU ring, a power of two (default 128)\n"
	"  -o, --output FILE     also write the recording to FILE, for kprof report\n"
	"\n"
	"On a terminal: q or Escape quits (as Ctrl-C does), h or ? lists every key, / filters by\n"
	"a regular expression on the symbol, s changes the sort, g (or Enter) shows the selected\n"
	"function's callers (with -g), E and C every function's or none, a annotates the\n"
	"selected function, k hides or shows kernel functions, z zeroes the counts, and the\n"
	"arrow and page keys move the selection, which stays on its function as the list is\n"
	"redrawn.\n"
	"  -h, --help            this text\n";

struct top_run {
	struct kp_top model;
	double delay, last;	/* the refresh interval; when the last refresh was */
	size_t entries;
	bool tty;		/* output on a terminal: the screen is redrawn until q */
	struct timespec t0;
	struct kp_tui ui;
	enum kp_top_sort sort;
	bool kernel;		/* kernel functions shown (k) */
	bool inline_self;	/* --inline-self: inline frames read, the innermost counted */
	/* whose callers are shown under them: every function's but those in @toggled (E), or
	 * only those (C, and at the start); g and Enter toggle one */
	bool all_open;
	struct kp_hash toggled;
	bool chains;		/* -g: there are callers to show */
	struct kp_top_row *rows, *crows;
	size_t cap, ccap, nr_crows;
	struct kp_hash runs;	/* a function -> where its callers start in @crows */
	struct row_info {
		uint32_t func;	/* the function of the screen's row, 0 for none */
		uint32_t root;	/* a caller's row: the function it is a caller of */
	} *info;		/* per row of the screen */
	size_t info_cap;
	char head[256];
	const char *output;	/* -o: the recording also goes to this file, */
	struct kp_output out;
	struct kp_writer file;	/* through this writer */
};

static const char top_keys[] =
	" q quit  h help  / filter  s sort  g callers  E/C all  a annotate  k kernel  z zero ";

/* Every key, for h and ? (kprof-top(1) lists them too). */
static const char top_help[] =
	"Up, Down, Page Up, Page Down, Home, End\n"
	"             move the selection, which stays on its function as the\n"
	"             list is redrawn\n"
	"g, Enter     the selected function's callers, three deep, below it, or\n"
	"             not (with -g)\n"
	"Right, +     show them\n"
	"Left, -      hide them (on a caller's row: its function's)\n"
	"E            every function's callers shown\n"
	"C            none shown\n"
	"a            the selected function annotated, as kprof annotate prints\n"
	"             it, from the samples so far, at its hottest instruction\n"
	"Tab          (on an annotation) the next hottest instruction\n"
	"Shift-Tab    (on an annotation) the one before\n"
	"/            filter: a regular expression on the symbol (empty: none)\n"
	"s            sort: sym, dso, comm, comm,sym in turn\n"
	"k            kernel functions hidden: their samples count for the user\n"
	"             function below them in the stack (with -g), or are left out\n"
	"z            zero the counts\n"
	"h, ?         this page\n"
	"q, Escape    back from a page (this one, an annotation), or quit (as\n"
	"             Ctrl-C and SIGTERM do)\n"
	"Ctrl-L       draw the screen again\n";

#define CALLER_DEPTH 3

static uint64_t row_id(const struct top_run *r, const struct kp_top_row *row)
{
	switch (r->sort) {
	case KP_TOP_DSO:
		return row->dso;
	case KP_TOP_COMM:
		return row->comm;
	case KP_TOP_COMM_SYM:
		return (uint64_t)row->comm << 32 | row->func;
	default:
		return row->func;
	}
}

/* What the filter is held to: the function's name, or the row's key. */
static const char *filter_text(const struct top_run *r, const struct kp_top_row *row,
			       const char *name)
{
	if (r->sort == KP_TOP_SYM || r->sort == KP_TOP_COMM_SYM)
		return kp_strtab_get(&r->model.rep.s.strs,
				     r->model.rep.prof.funcs[row->func].name);
	return name;
}

/* Whether @func's callers are shown (kp_top_callers()'s question). */
static bool callers_open(void *ctx, uint32_t func)
{
	const struct top_run *r = ctx;
	const uint64_t *v = kp_hash_get(&r->toggled, func);

	return r->all_open != (v && *v);
}

/* A screen row, and what it is of. */
static void add_row(struct top_run *r, uint64_t id, double pct, double pct2, unsigned depth,
		    char mark, const char *name, uint32_t func, uint32_t root)
{
	KP_GROW(r->info, r->info_cap, r->ui.nr + 1);
	r->info[r->ui.nr] = (struct row_info){ func, root };
	kp_tui_row(&r->ui, id, pct, pct2, depth, mark, "%s", name);
}

/* The callers of @of's function, from @r->crows, under its row. */
static void add_callers(struct top_run *r, const struct kp_top_row *of, double sum)
{
	uint64_t *at = kp_hash_get(&r->runs, of->func);
	size_t n = 0;
	char name[1024];

	if (!at) {
		snprintf(name, sizeof(name), "(no callers: %s)",
			 r->chains ? "a root of its stacks" : "record them with -g");
		add_row(r, 1ull << 63 | (uint64_t)of->func << 24, -1, -1, 1, ' ', name, 0,
			of->func);
		return;
	}
	/* a caller's id: its function's and its place among them, as the list is redrawn */
	for (size_t i = (size_t)*at; i < r->nr_crows && r->crows[i].root == of->func; i++, n++) {
		kp_top_row_name(&r->model, &r->crows[i], KP_TOP_SYM, name, sizeof(name));
		add_row(r, 1ull << 63 | (uint64_t)of->func << 24 | (n & 0xffffff),
			100.0 * r->crows[i].w / sum, of->w > 0 ? 100.0 * r->crows[i].w / of->w : -1,
			r->crows[i].depth, ' ', name, r->crows[i].func, of->func);
	}
}

/* The rows of the screen, from the model's weights as they are now. */
static void fill(struct top_run *r)
{
	double sum;
	size_t n = kp_top_rows(&r->model, r->sort, r->kernel, &r->rows, &r->cap, &sum), shown = 0;
	bool by_func = r->sort == KP_TOP_SYM || r->sort == KP_TOP_COMM_SYM;
	char name[1024];

	kp_tui_head(&r->ui, 0, "%s", r->head);
	kp_tui_head(&r->ui, 1, "sort: %s (s)   kernel functions: %s (k)",
		    kp_top_sort_names[r->sort], r->kernel ? "shown" : "hidden, their samples to the "
		    "user function below");
	r->nr_crows = 0;
	kp_hash_release(&r->runs);
	if (by_func && (r->all_open || r->toggled.nr)) {
		r->nr_crows = kp_top_callers(&r->model, callers_open, r, r->kernel, CALLER_DEPTH,
					     &r->crows, &r->ccap);
		for (size_t i = 0; i < r->nr_crows; i++)
			if (!i || r->crows[i].root != r->crows[i - 1].root)
				kp_hash_put(&r->runs, r->crows[i].root, i);
	}
	kp_tui_rows_begin(&r->ui);
	for (size_t i = 0; i < n && shown < r->entries; i++) {
		bool open = by_func && callers_open(r, r->rows[i].func);

		kp_top_row_name(&r->model, &r->rows[i], r->sort, name, sizeof(name));
		if (!kp_tui_match(&r->ui, filter_text(r, &r->rows[i], name)))
			continue;
		add_row(r, row_id(r, &r->rows[i]), 100.0 * r->rows[i].w / sum, -1, 0,
			!by_func ? ' ' : open ? '-' : '+', name, by_func ? r->rows[i].func : 0,
			by_func ? r->rows[i].func : 0);
		shown++;
		if (open)
			add_callers(r, &r->rows[i], sum);
	}
	kp_tui_rows_end(&r->ui);
}

/* The function of the selected row, 0 (said why) when it is none's. */
static uint32_t selected_func(struct top_run *r)
{
	if (r->sort != KP_TOP_SYM && r->sort != KP_TOP_COMM_SYM) {
		kp_tui_msg(&r->ui, "a row of functions is needed: sort by sym (s)");
		return 0;
	}
	if (!kp_tui_selected(&r->ui) || !r->info[r->ui.sel].func) {
		kp_tui_msg(&r->ui, "no function is selected");
		return 0;
	}
	return r->info[r->ui.sel].func;
}

/* g, Enter, Right, Left: the selected function's callers, shown or hidden; on a caller's row,
 * its function's (Left then selects the function's row, as a file browser goes up). */
static void toggle_callers(struct top_run *r, enum kp_tui_act act)
{
	const struct kp_tui_row *sel = kp_tui_selected(&r->ui);
	uint32_t func = sel ? r->info[r->ui.sel].root : 0;
	bool open = callers_open(r, func), added;
	uint64_t *v;

	if (r->sort != KP_TOP_SYM && r->sort != KP_TOP_COMM_SYM) {
		kp_tui_msg(&r->ui, "callers are a function's: sort by sym (s)");
		return;
	}
	if (!func)
		return;
	if (act == KP_TUI_COLLAPSE && sel->depth) {
		size_t i = r->ui.sel;

		while (i && r->ui.rows[i].depth)
			i--;
		kp_tui_select(&r->ui, r->ui.rows[i].id);
	}
	if ((act == KP_TUI_EXPAND && open) || (act == KP_TUI_COLLAPSE && !open))
		return;
	v = kp_hash_add(&r->toggled, func, 0, &added);
	*v = !*v;
}

/* E, C: every function's callers shown, or none. */
static void all_callers(struct top_run *r, bool open)
{
	if (open && !r->chains) {
		kp_tui_msg(&r->ui, "no callers to show: record them with -g");
		return;
	}
	r->all_open = open;
	kp_hash_release(&r->toggled);
	kp_tui_msg(&r->ui, "%s", open ? "every function's callers shown (C hides them)"
				      : "no callers shown (E shows every function's)");
}

/* a: the selected function annotated from the samples so far, on a page over the list. */
static void annotate(struct top_run *r)
{
	uint32_t func = selected_func(r);
	struct kp_report *rep = func ? kp_top_report(&r->model) : NULL;

	if (!func)
		return;
	if (!rep) {
		kp_tui_msg(&r->ui, "no samples yet");
		return;
	}
	kp_tui_annotate(&r->ui, rep, kp_strtab_get(&rep->s.strs, rep->prof.funcs[func].name), 0,
			true);
}

/* One key's doing; 1 when it quits. */
static int act(struct top_run *r, enum kp_tui_act a)
{
	switch (a) {
	case KP_TUI_QUIT:
		return 1;
	case KP_TUI_SORT:
		r->sort = (r->sort + 1) % KP_TOP_NR_SORTS;
		kp_tui_msg(&r->ui, "sorted by %s", kp_top_sort_names[r->sort]);
		break;
	case KP_TUI_KERNEL:
		r->kernel = !r->kernel;
		kp_tui_msg(&r->ui, "kernel functions %s", r->kernel ? "shown" : "hidden");
		break;
	case KP_TUI_ZERO:
		kp_top_zero(&r->model);
		kp_tui_msg(&r->ui, "counts zeroed");
		break;
	case KP_TUI_CALLERS: case KP_TUI_TOGGLE: case KP_TUI_EXPAND: case KP_TUI_COLLAPSE:
		toggle_callers(r, a);
		break;
	case KP_TUI_EXPAND_ALL: case KP_TUI_COLLAPSE_ALL:
		all_callers(r, a == KP_TUI_EXPAND_ALL);
		break;
	case KP_TUI_ANNOTATE:
		annotate(r);
		break;
	case KP_TUI_FILTER: case KP_TUI_REDRAW:
		break;
	default:
		return 0;
	}
	fill(r);
	kp_tui_draw(&r->ui);
	return 0;
}

static double now_s(const struct top_run *r)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts.tv_sec - r->t0.tv_sec) + (ts.tv_nsec - r->t0.tv_nsec) / 1e9;
}

/* The terminal, taken at the first tick (the recorder's own signal handlers are in place by
 * then, and ncurses leaves them be); false when it cannot be driven. */
static bool screen_on(struct top_run *r)
{
	if (r->ui.on)
		return true;
	if (kp_tui_start(&r->ui)) {
		kp_warn("top: cannot drive this terminal (TERM=%s): one snapshot instead",
			getenv("TERM") ? getenv("TERM") : "unset");
		r->tty = false;
		return false;
	}
	kp_top_header(&r->model, 0, r->head, sizeof(r->head));
	fill(r);
	kp_tui_draw(&r->ui);
	return true;
}

/* After each drain: the keys typed since, and a refresh when it is due; without a terminal,
 * the first refresh prints and ends it. */
static int tick(void *ctx)
{
	struct top_run *r = ctx;
	double t = now_s(r);
	enum kp_tui_act a;

	if (r->tty && screen_on(r))
		while ((a = kp_tui_key(&r->ui, 0)) != KP_TUI_NONE)
			if (act(r, a))
				return 1;
	if (t - r->last < r->delay)
		return 0;
	if (!r->tty) {
		kp_top_print(&r->model, stdout, r->sort, r->kernel, r->entries, t - r->last);
		return 1;
	}
	kp_top_header(&r->model, t - r->last, r->head, sizeof(r->head));
	fill(r);
	kp_tui_draw(&r->ui);
	kp_top_roll(&r->model);
	r->last = t;
	return 0;
}

/*
 * The recorder's chunks: with -o, their records into the file first (its writer closes its
 * chunks by size and age, at the rounds, as kprof record's does), then to the model.
 */
static int top_sink(void *ctx, uint8_t **buf, size_t *cap, size_t len, uint32_t nrec)
{
	struct top_run *r = ctx;
	const struct kp_rec_header *h;

	for (size_t pos = 0; r->output && (h = kp_rec_next(*buf, len, &pos));) {
		if (h->type == KP_REC_ROUND)
			kp_writer_round(&r->file);
		else
			kp_writer_add(&r->file, h);
	}
	if (r->output && r->file.err)
		return r->file.err; /* the recorder says it cannot write, and stops */
	return kp_top_sink(&r->model, buf, cap, len, nrec);
}

/* -o: the file, written from the start (header and events) as kprof record writes one. */
static int open_file(struct top_run *r)
{
	int fd = kp_output_open_recording(&r->out, r->output);

	if (fd < 0)
		return 1;
	if (kp_writer_init(&r->file, fd, KP_WRITER_DEFAULT_LEVEL, KP_WRITER_CHUNK)) {
		kp_output_abort(&r->out);
		return kp_error("cannot write '%s': %s", r->output, kp_strerror(r->file.err));
	}
	return 0;
}

static int close_file(struct top_run *r)
{
	int err = kp_writer_close(&r->file);

	if (err) {
		kp_output_abort(&r->out);
		return kp_error("cannot write '%s': %s", r->output, kp_strerror(err));
	}
	if (kp_output_commit(&r->out))
		return 1;
	kp_notice("the recording is in '%s' (%.3f MiB): kprof report -i %s", r->output,
		  r->file.off / 1048576.0, r->output);
	return 0;
}

static int parse_u64(const char *s, const char *what, uint64_t min, uint64_t max, uint64_t *out)
{
	return kp_cmd_number("top", what, s, min, max, out);
}

enum { OPT_INLINE_SELF = 256 };

static int parse_opt(int c, struct kp_record_opts *o, struct top_run *r)
{
	uint64_t v;

	switch (c) {
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
		return kp_cmd_real("top", "-d", optarg, 0.1, 3600, &r->delay);
	case 'E':
		if (parse_u64(optarg, "-E", 1, 100000, &v))
			return 2;
		r->entries = (size_t)v;
		return 0;
	case 's':
		for (int i = 0; i < KP_TOP_NR_SORTS; i++)
			if (!strcmp(optarg, kp_top_sort_names[i])) {
				r->sort = (enum kp_top_sort)i;
				return 0;
			}
		return kp_usage_error("top", "--sort takes sym, dso, comm or comm,sym, not '%s'",
				      optarg);
	case 'K':
		r->kernel = false;
		return 0;
	case OPT_INLINE_SELF:
		r->inline_self = true;
		return 0;
	case 'o':
		r->output = optarg;
		return 0;
	default:
		return kp_target_opt("top", c, optarg, o);
	}
}

int cmd_top(int argc, char **argv)
{
	static const struct option opts[] = {
		KP_TARGET_OPTIONS, KP_TARGET_CPU_OPTION, { "event", required_argument, NULL, 'e' },
		{ "freq", required_argument, NULL, 'F' }, { "count", required_argument, NULL, 'c' },
		{ "delay", required_argument, NULL, 'd' }, { "entries", required_argument, NULL, 'E' },
		{ "sort", required_argument, NULL, 's' }, { "hide-kernel", no_argument, NULL, 'K' },
		{ "output", required_argument, NULL, 'o' },
		{ "inline-self", no_argument, NULL, OPT_INLINE_SELF },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	struct kp_dso_opts dso = { .inline_frames = false, .demangle = true };
	struct kp_record_opts o;
	struct kp_recorder rec;
	struct top_run r = { .delay = 2, .entries = 0, .kernel = true };
	int c, rc = 0;

	memset(&o, 0, sizeof(o));
	o.freq = 4000;
	o.pages = 128;
	o.level = KP_WRITER_DEFAULT_LEVEL;
	o.argc_all = argc;
	o.argv_all = argv;
	o.quiet = true;
	optind = 1;
	while (!rc &&
	       (c = getopt_long(argc, argv, "C:e:F:c:gd:E:s:Ko:h" KP_TARGET_SHORT, opts, NULL)) != -1)
		rc = c == 'h' ? kp_cmd_help(top_usage) : parse_opt(c, &o, &r);
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
		if (!r.entries) /* a terminal shows as many as its screen has room for */
			r.entries = r.tty ? SIZE_MAX : 20;
		r.chains = o.callchain;
		kp_tui_init(&r.ui, "   share  of func  symbol  [binary]", top_keys);
		r.ui.help = top_help;
		clock_gettime(CLOCK_MONOTONIC, &r.t0);
		/* without --inline-self a sample counts for the function holding its code: no
		 * DWARF is read for the inline frames it would drop */
		dso.inline_frames = dso.inline_self = r.inline_self;
		kp_top_init(&r.model, &dso);
		if (r.output && open_file(&r)) {
			kp_top_release(&r.model);
			r.output = NULL;
			rc = 1;
			goto out;
		}
		o.output = r.output;
		o.live = top_sink;
		o.tick = tick;
		o.live_ctx = &r;
		rc = kp_recorder_run(&rec, &o);
		kp_tui_release(&r.ui); /* the terminal back before anything more is said */
		if (!rc && r.model.err)
			rc = kp_error("the live records could not be read: %s",
				      kp_strerror(r.model.err));
		if (r.output && close_file(&r) && !rc)
			rc = 1;
		kp_top_release(&r.model);
		free(r.rows);
		free(r.crows);
		free(r.info);
		kp_hash_release(&r.runs);
		kp_hash_release(&r.toggled);
	}
out:
	kp_evspec_free(o.evs, o.nr_evs);
	free(o.cpus);
	free(o.pids);
	free(o.tids);
	return rc;
}
