/* SPDX-License-Identifier: MIT */
/*
 * report-tui.c - kprof report --tui: a recording browsed on the terminal, through tui.h's
 * screen. The call tree (callers at the top, or callees with c) opens on the path to the
 * hottest function, which is selected, and opens and closes node by node, or all at once (E,
 * C); the flat list (f) is the flat view's rows, grouped by the key s chooses; / keeps what
 * matches (in the tree, with the path to it); e changes the event; t keeps one command (the
 * tree) or splits the list by command; a annotates the selected function, as kprof annotate
 * does, on a page of its own (ann-page.h); h shows the keys; q or Escape goes back from a
 * page, and quits from the report.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report-tui.h"
#include "ann-page.h"
#include "formats/util.h"
#include "src/cli/input.h"
#include "src/record/diag.h"
#include "report/base/text.h"
#include "report/views/view.h"
#include "tui.h"

static const char keys_help[] =
	" q quit  h help  Enter/+/- open/close  E/C all  / filter  f flat/tree  s sort  "
	"c callers/callees  e event  t command  a annotate ";

/* Every key, for h and ? (kprof-report(1) lists them too, under "On the terminal"). */
static const char help[] =
	"Up, Down, Page Up, Page Down, Home, End\n"
	"             move the selection\n"
	"Enter        open or close the selected node\n"
	"Right, +     open it\n"
	"Left, -      close it; on a closed node, go to its parent\n"
	"E            open every node\n"
	"C            close every node (the selection goes to its top row)\n"
	"f            the flat list (self, total, by self) or the tree\n"
	"s            the list's grouping: sym, dso,sym, dso, comm, comm,sym\n"
	"/            keep what matches a regular expression on the function\n"
	"             (in the tree, with the path to it, opened); empty: all\n"
	"c            callers at the top, or callees\n"
	"e            the next event that has samples\n"
	"t            the tree of the selected node's command only, or all of\n"
	"             them; in the list, split by command or not\n"
	"a            the selected function annotated, as kprof annotate prints\n"
	"             it, on a page of its own, at its hottest instruction\n"
	"Tab          (on an annotation) the next hottest instruction\n"
	"Shift-Tab    (on an annotation) the one before\n"
	"h, ?         this page\n"
	"q, Escape    back from a page (this one, an annotation), or quit\n"
	"Ctrl-L       draw the screen again\n";

/* The flat list's groupings, in the order s goes through them. */
static const unsigned flat_sorts[] = { KP_SORT_SYM, KP_SORT_DSO | KP_SORT_SYM, KP_SORT_DSO,
				       KP_SORT_COMM, KP_SORT_COMM | KP_SORT_SYM };

struct browser {
	const struct kp_report_opts *ro;
	struct kp_report_opts ros[2];	/* what reps[1] and arep were built with (they keep it) */
	struct kp_report reps[2];	/* [0] the report as built, [1] its inverse once asked */
	bool built[2];
	int cur;			/* which of them is shown */
	struct kp_report arep;		/* with addresses, for a: built at the first */
	bool abuilt;
	struct kp_view_opts vo;
	struct kp_tui ui;
	bool flat;
	size_t sort;			/* into flat_sorts */
	uint8_t *open[2];		/* per node of reps[i].prof: shown open */
	uint32_t zoom;			/* the command node the tree keeps (t), 0 for all */
	bool *keep;			/* with a filter: the nodes on a path to a match */
	struct kp_flat_row *rows;	/* the list's, filtered or not */
	size_t nr_rows;
};

/* The report shown: the tree's (b->cur), or for the list the one built callers first, whose
 * nodes' self is the samples' own (inverted, it is the outermost frame's). */
static struct kp_report *shown(const struct browser *b)
{
	return (struct kp_report *)&b->reps[b->flat ? b->ro->reverse : b->cur];
}

static struct kp_profile *prof(struct browser *b)
{
	return &shown(b)->prof;
}

/* The tree's profile, shown or not. */
static struct kp_profile *tree(struct browser *b)
{
	return &b->reps[b->cur].prof;
}

static const char *func_name(const struct kp_profile *p, uint32_t node)
{
	return kp_strtab_get(p->strs, p->funcs[p->locs[p->nodes[node].loc].func].name);
}

/* Whether the tree shown is the inverted one: callees at the top. */
static bool inverted(const struct browser *b)
{
	return b->cur ? !b->ro->reverse : b->ro->reverse;
}

/* @n's path open: its ancestors are. */
static void open_path(struct browser *b, uint32_t n)
{
	const struct kp_profile *p = tree(b);

	while (n && (n = p->nodes[n].parent))
		b->open[b->cur][n] = 1;
}

static double share(const struct browser *b, const struct kp_weight *w)
{
	const struct kp_profile *p = &shown(b)->prof;
	uint32_t whole = b->flat ? 0 : b->zoom; /* the list is every command's */

	return kp_pct(kp_view_weight(&b->vo, w),
			   kp_view_weight(&b->vo, kp_profile_total(p, whole, b->vo.event)));
}

/* With a filter: keep[n] for each node that matches or has a match below it. */
static void mark_matches(struct browser *b)
{
	const struct kp_profile *p = tree(b);

	free(b->keep);
	b->keep = NULL;
	if (!b->ui.filter[0])
		return;
	b->keep = kp_xcalloc(p->nr_nodes, sizeof(*b->keep));
	for (uint32_t n = 1; n < p->nr_nodes; n++)
		b->keep[n] = kp_tui_match(&b->ui, func_name(p, n));
	for (uint32_t n = (uint32_t)p->nr_nodes; n-- > 1;) /* children come after parents */
		if (b->keep[n])
			b->keep[p->nodes[n].parent] = true;
}

static void tree_rows(struct browser *b, uint32_t node, unsigned depth)
{
	const struct kp_profile *p = prof(b);
	uint32_t *kids;
	size_t n = kp_view_children(p, &b->vo, node, &kids);

	for (size_t i = 0; i < n; i++) {
		uint32_t k = kids[i];
		const struct kp_loc *l = &p->locs[p->nodes[k].loc];
		/* children with samples of the event: the node's total is more than its self */
		bool kids_in = kp_profile_total(p, k, b->vo.event)->count >
			  kp_profile_self(p, k, b->vo.event)->count;
		bool open;

		if (b->keep && !b->keep[k])
			continue;
		/* a filter opens the way to what it found, down to the match */
		open = kids_in && (b->open[b->cur][k] ||
			      (b->keep && !kp_tui_match(&b->ui, func_name(p, k))));
		/* inverted, a root's samples are its own self, as perf shows a callee's; the
		 * rows below it, its callers, have none of their own */
		kp_tui_row(&b->ui, k, share(b, kp_profile_total(p, k, b->vo.event)),
			   !inverted(b) ? share(b, kp_profile_self(p, k, b->vo.event))
			   : !p->nodes[k].parent ? share(b, kp_profile_total(p, k, b->vo.event))
						 : -1, depth,
			   !kids_in ? ' ' : open ? '-' : '+', "%s%s%s", func_name(p, k),
			   l->flags & KP_LOC_KERNEL ? " [k]" : "",
			   l->flags & KP_LOC_INLINED ? " (inlined)" : "");
		if (open)
			tree_rows(b, k, depth + 1);
	}
	free(kids);
}

/* A list row's id: its keys, so that the selection follows them as the list is regrouped. */
static uint64_t flat_id(const struct kp_flat_row *r)
{
	return (uint64_t)r->sym << 32 ^ (uint64_t)r->dso << 16 ^ r->comm;
}

static void flat_rows(struct browser *b)
{
	const struct kp_profile *p = prof(b);
	const struct kp_strtab *s = p->strs;
	unsigned keys = flat_sorts[b->sort];
	size_t n;

	free(b->rows);
	b->rows = NULL;
	b->vo.sort = keys;
	n = b->nr_rows = kp_flat_rows(p, &b->vo, &b->rows);
	for (size_t i = 0; i < n; i++) {
		const struct kp_flat_row *r = &b->rows[i];
		char text[1024];

		snprintf(text, sizeof(text), "%s%-*s%s%-*s%s",
			 keys & KP_SORT_COMM ? kp_strtab_get(s, r->comm) : "",
			 keys & KP_SORT_COMM ? 16 - (int)strlen(kp_strtab_get(s, r->comm)) : 0, "",
			 keys & KP_SORT_DSO ? (r->dso ? kp_strtab_get(s, r->dso) : "[unknown]") : "",
			 keys & KP_SORT_DSO && keys & KP_SORT_SYM ? 2 : 0, "",
			 keys & KP_SORT_SYM ? kp_strtab_get(s, r->sym) : "");
		if (!kp_tui_match(&b->ui, keys & KP_SORT_SYM ? kp_strtab_get(s, r->sym) : text))
			continue;
		kp_tui_row(&b->ui, flat_id(r),
			   share(b, &r->self), share(b, &r->total), 0, ' ', "%s", text);
	}
}

static void fill(struct browser *b)
{
	const struct kp_report *rep = shown(b);
	const struct kp_profile *p = &rep->prof;
	size_t e = b->vo.event;

	kp_tui_head(&b->ui, 0, "kprof report: '%s', %s: %llu samples, %llu %s%s%s", b->ro->input,
		    rep->s.evl.nr ? rep->s.evl.ev[e].name : "?",
		    (unsigned long long)kp_profile_total(p, 0, e)->count,
		    (unsigned long long)kp_view_weight(&b->vo, kp_profile_total(p, 0, e)),
		    kp_report_event_unit(rep, e, b->vo.by_samples),
		    b->zoom && !b->flat ? "; only " : "",
		    b->zoom && !b->flat ? func_name(p, b->zoom) : "");
	kp_tui_head(&b->ui, 1, "%s",
		    b->flat ? "the flat list (f: the tree)"
		    : inverted(b) ? "callees at the top, their callers below (c: callers)"
				  : "callers at the top, their callees below (c: callees)");
	b->ui.heading = b->flat ? "    self    total  " : "   total     self  ";
	kp_tui_rows_begin(&b->ui);
	if (b->flat)
		flat_rows(b);
	else
		tree_rows(b, b->zoom, 0);
	kp_tui_rows_end(&b->ui);
}

static int build(struct browser *b, int which)
{
	struct kp_report_opts *ro = &b->ros[0];

	if (b->built[which])
		return 0;
	*ro = *b->ro;
	ro->reverse = which ? !b->ro->reverse : b->ro->reverse;
	ro->progress = NULL;
	if (kp_input_build(ro, &b->reps[which])) {
		kp_report_release(&b->reps[which]);
		return -1;
	}
	b->built[which] = true;
	b->open[which] = kp_xcalloc(b->reps[which].prof.nr_nodes + 1, 1);
	return 0;
}

/* The selected row's function name, or NULL (with a message) when it is no function's. */
static const char *selected_func(struct browser *b)
{
	const struct kp_tui_row *sel = kp_tui_selected(&b->ui);
	const struct kp_profile *p = prof(b);

	if (!sel)
		return NULL;
	if (b->flat) {
		const struct kp_flat_row *r = NULL;

		for (size_t i = 0; i < b->nr_rows; i++) /* the row of the same id */
			if (flat_id(&b->rows[i]) == sel->id)
				r = &b->rows[i];
		if (!r || !(flat_sorts[b->sort] & KP_SORT_SYM)) {
			kp_tui_msg(&b->ui, "this list is not of functions: s for one that is");
			return NULL;
		}
		return kp_strtab_get(p->strs, r->sym);
	}
	if (p->locs[p->nodes[sel->id].loc].flags & KP_LOC_COMM) {
		kp_tui_msg(&b->ui, "a command, not a function");
		return NULL;
	}
	return func_name(p, (uint32_t)sel->id);
}

/* a: the function annotated, as kprof annotate prints it, on a page of its own. */
static void annotate(struct browser *b)
{
	const char *name = selected_func(b);

	if (!name)
		return;
	if (!b->abuilt) {
		struct kp_report_opts *ro = &b->ros[1];

		*ro = *b->ro;
		ro->addrs = true;
		ro->seq = ro->tp_fields = ro->reverse = false;
		ro->progress = NULL;
		if (kp_input_build(ro, &b->arep)) {
			kp_report_release(&b->arep);
			kp_tui_msg(&b->ui, "the recording did not read again with addresses");
			return;
		}
		b->abuilt = true;
	}
	kp_tui_annotate(&b->ui, &b->arep, name, b->vo.event, b->vo.by_samples);
}

static void open_node(struct browser *b, enum kp_tui_act a)
{
	const struct kp_tui_row *sel = kp_tui_selected(&b->ui);
	uint8_t *o = b->open[b->cur];

	if (b->flat || !sel)
		return;
	if (a == KP_TUI_COLLAPSE && !o[sel->id] && prof(b)->nodes[sel->id].parent != b->zoom) {
		/* Left on a closed node: to its parent, as a file browser does */
		kp_tui_select(&b->ui, prof(b)->nodes[sel->id].parent);
		return;
	}
	o[sel->id] = a == KP_TUI_EXPAND ? 1 : a == KP_TUI_COLLAPSE ? 0 : !o[sel->id];
}

/* E, C: every node of the tree open, or closed; closed, the selection goes to the row at the
 * top of its path. */
static void open_all(struct browser *b, bool open)
{
	const struct kp_tui_row *sel = kp_tui_selected(&b->ui);
	const struct kp_profile *p = tree(b);
	uint32_t n = sel ? (uint32_t)sel->id : 0;

	if (b->flat) {
		kp_tui_msg(&b->ui, "the list has nothing to open: f for the tree");
		return;
	}
	memset(b->open[b->cur], open, p->nr_nodes + 1);
	while (!open && n && p->nodes[n].parent != b->zoom)
		n = p->nodes[n].parent;
	if (!open && n)
		kp_tui_select(&b->ui, n);
}

/*
 * The first screen: the path to the hottest function (by self, summed over its call paths)
 * open down to its heaviest node, which is returned to be selected, as hotspot opens its tree.
 * 0 when there is none, or when the tree is inverted (the hottest is its first row then).
 */
static uint32_t open_hottest(struct browser *b)
{
	const struct kp_profile *p = tree(b);
	struct kp_view_opts vo = b->vo;
	struct kp_flat_row *rows = NULL;
	uint32_t best = 0;
	uint64_t most = 0;

	vo.sort = KP_SORT_SYM;
	if (!inverted(b) && kp_flat_rows(p, &vo, &rows))
		for (uint32_t n = 1; n < p->nr_nodes; n++) {
			const struct kp_loc *l = &p->locs[p->nodes[n].loc];
			uint64_t w = kp_view_weight(&b->vo, kp_profile_self(p, n, b->vo.event));

			if (p->funcs[l->func].name == rows[0].sym && w > most &&
			    !(l->flags & (KP_LOC_COMM | KP_LOC_CGROUP))) {
				best = n;
				most = w;
			}
		}
	free(rows);
	open_path(b, best);
	return best;
}

/* t: the tree keeps the selected row's command; again, every command. The list: split by
 * command, or not. */
static void threads(struct browser *b)
{
	const struct kp_tui_row *sel = kp_tui_selected(&b->ui);
	const struct kp_profile *p = prof(b);
	uint32_t n;

	if (b->flat) {
		b->sort = flat_sorts[b->sort] & KP_SORT_COMM ? 0 : ARRAY_SIZE(flat_sorts) - 1;
		return;
	}
	if (b->zoom || !sel) {
		b->zoom = 0;
		return;
	}
	for (n = (uint32_t)sel->id; n && !(p->locs[p->nodes[n].loc].flags & KP_LOC_COMM);)
		n = p->nodes[n].parent;
	if (!n)
		kp_tui_msg(&b->ui, "these stacks have no command above them (an inverted tree: c)");
	b->zoom = n;
	b->open[b->cur][n] = 1;
}

static void next_event(struct browser *b)
{
	const struct kp_profile *p = prof(b);

	for (size_t i = 1; i <= p->nr_events; i++) {
		size_t e = (b->vo.event + i) % p->nr_events;

		if (kp_profile_total(p, 0, e)->count) {
			if (e == b->vo.event)
				kp_tui_msg(&b->ui, "no other event has samples");
			b->vo.event = e;
			return;
		}
	}
}

/* One key's doing; 1 when it quits. */
static int act(struct browser *b, enum kp_tui_act a)
{
	switch (a) {
	case KP_TUI_QUIT:
		return 1;
	case KP_TUI_EXPAND: case KP_TUI_COLLAPSE: case KP_TUI_TOGGLE:
		open_node(b, a);
		break;
	case KP_TUI_EXPAND_ALL: case KP_TUI_COLLAPSE_ALL:
		open_all(b, a == KP_TUI_EXPAND_ALL);
		break;
	case KP_TUI_FLAT:
		if (!b->flat && build(b, b->ro->reverse)) {
			kp_tui_msg(&b->ui, "the recording did not read again");
			break;
		}
		b->flat = !b->flat;
		break;
	case KP_TUI_SORT:
		if (!b->flat)
			kp_tui_msg(&b->ui, "the tree goes by weight; f for the list, which sorts");
		b->sort = (b->sort + 1) % ARRAY_SIZE(flat_sorts);
		break;
	case KP_TUI_INVERT:
		if (b->flat) {
			kp_tui_msg(&b->ui, "c turns the tree over: f for the tree");
			break;
		}
		if (build(b, !b->cur)) {
			kp_tui_msg(&b->ui, "the recording did not read again");
			break;
		}
		b->cur = !b->cur;
		b->zoom = 0;
		mark_matches(b);
		break;
	case KP_TUI_EVENT:
		next_event(b);
		break;
	case KP_TUI_THREADS:
		threads(b);
		break;
	case KP_TUI_ANNOTATE:
		annotate(b);
		break;
	case KP_TUI_FILTER:
		/* the selected node stays shown as the filter changes, the one it found included:
		 * the path to it is opened */
		if (!b->flat && kp_tui_selected(&b->ui))
			open_path(b, (uint32_t)kp_tui_selected(&b->ui)->id);
		mark_matches(b);
		break;
	case KP_TUI_NONE: case KP_TUI_MOVED:
		return 0;
	case KP_TUI_REDRAW:
		break;
	default:
		kp_tui_msg(&b->ui, "that key is kprof top's");
		break;
	}
	fill(b);
	kp_tui_draw(&b->ui);
	return 0;
}

static void on_signal(int sig)
{
	(void)sig;
	kp_tui_interrupt();
}

int kp_report_tui(struct kp_report *rep, const struct kp_report_opts *ro,
		  const struct kp_view_opts *vo)
{
	struct browser b = { .ro = ro, .vo = *vo };
	uint32_t hottest;
	int rc = 0;

	b.reps[0] = *rep; /* borrowed: the caller releases it */
	b.built[0] = true;
	b.vo.event = rep->event >= 0 ? (size_t)rep->event : 0;
	b.open[0] = kp_xcalloc(rep->prof.nr_nodes + 1, 1);
	hottest = open_hottest(&b);
	kp_tui_init(&b.ui, NULL, keys_help);
	b.ui.help = help;
	/* Ctrl-C, SIGTERM and a hang-up quit through the key loop, which gives the terminal back (and
	 * ncurses, finding handlers, installs none of its own) */
	sigaction(SIGINT, &(struct sigaction){ .sa_handler = on_signal }, NULL);
	sigaction(SIGTERM, &(struct sigaction){ .sa_handler = on_signal }, NULL);
	sigaction(SIGHUP, &(struct sigaction){ .sa_handler = on_signal }, NULL);
	if (kp_tui_start(&b.ui)) {
		kp_error("report --tui: standard input and output must be a terminal ncurses can "
			 "drive (TERM=%s)", getenv("TERM") ? getenv("TERM") : "unset");
		rc = 1;
	} else {
		fill(&b);
		kp_tui_select(&b.ui, hottest);
		kp_tui_draw(&b.ui);
		while (!act(&b, kp_tui_key(&b.ui, 250))) /* a while at a time: signals are seen */
			;
	}
	kp_tui_release(&b.ui);
	if (b.built[1])
		kp_report_release(&b.reps[1]);
	if (b.abuilt)
		kp_report_release(&b.arep);
	free(b.open[0]);
	free(b.open[1]);
	free(b.keep);
	free(b.rows);
	return rc;
}
