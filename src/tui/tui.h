/* SPDX-License-Identifier: MIT */
/*
 * tui.h - the terminal front end of kprof top and kprof report --tui: one screen model (a few
 * header lines, then rows, each with up to two shares, an indent, a +/- mark and its text; a
 * selected row; a message line) and one key map, drawn with ncurses.
 *
 * The caller fills the rows (kp_tui_rows_begin(), kp_tui_row()..., kp_tui_rows_end()) when
 * what they show changes, and asks for the next key: moving the selection and scrolling are
 * done here, everything else comes back as an action from the key map. Each row carries an
 * id of the caller's (a function, a tree node): the selection stays on the row with the same
 * id when the rows are filled again, as the list reorders.
 *
 * A page (kp_tui_page(): the help that h and ? show, an annotation) is lines of text over the
 * rows: while it is open, the keys scroll it, TAB and Shift-TAB go through its hot lines, and q,
 * Escape or Left close it, and kp_tui_draw() draws it; the rows underneath go on being filled.
 * Nothing waits for a key in between, so kprof top's recorder drains its rings as ever.
 *
 * While the screen is taken, what is written to stderr is kept in a file and written out
 * when it is given back.
 *
 * The terminal is given back (its modes, the main screen, the cursor) by kp_tui_end(), at
 * exit, and from the handlers of SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT before the crash
 * goes on. SIGINT, SIGTERM and SIGHUP are the caller's: kp_tui_key() returns KP_TUI_QUIT once
 * kp_tui_interrupt() was called, and when the terminal hung up.
 */
#ifndef KP_TUI_H
#define KP_TUI_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum kp_tui_act {
	KP_TUI_NONE,		/* no key in time */
	KP_TUI_MOVED,		/* a key that moved the selection (redrawn), or one of no use */
	KP_TUI_QUIT,		/* q, Escape: back, or quit */
	KP_TUI_EXPAND,		/* Right, + */
	KP_TUI_COLLAPSE,	/* Left, - */
	KP_TUI_EXPAND_ALL,	/* E */
	KP_TUI_COLLAPSE_ALL,	/* C */
	KP_TUI_TOGGLE,		/* Enter */
	KP_TUI_FILTER,		/* / : a new filter was typed (kp_tui_match() applies it) */
	KP_TUI_SORT,		/* s */
	KP_TUI_CALLERS,		/* g */
	KP_TUI_ZERO,		/* z */
	KP_TUI_KERNEL,		/* k */
	KP_TUI_EVENT,		/* e */
	KP_TUI_THREADS,		/* t */
	KP_TUI_ANNOTATE,	/* a */
	KP_TUI_INVERT,		/* c: callers or callees at the top of the tree */
	KP_TUI_FLAT,		/* f: the flat list or the tree */
	KP_TUI_REDRAW,		/* the terminal was resized, or a page was closed */
};

struct kp_tui_row {
	uint64_t id;
	double pct, pct2;	/* shares in %, coloured as the text views colour them; < 0: none */
	uint16_t depth;
	char mark;		/* '+' collapsed, '-' expanded, ' ' neither */
	char *text;		/* owned */
};

struct kp_tui {
	const char *heading;	/* the line above the rows, naming their columns (borrowed) */
	const char *keys_help;	/* the keys this screen takes, for its last line (borrowed) */
	const char *help;	/* every key, a line each, for h and ? (borrowed; NULL: none) */
	char *head[3];		/* header lines, owned */
	struct kp_tui_row *rows;
	size_t nr, cap;
	size_t sel, top;	/* the selected row, and the first one on screen */
	uint64_t sel_id;	/* the selected row's id, kept while the rows are refilled */
	bool have_sel;
	char msg[256];		/* the message line: what a key did, or why it did nothing */
	char filter[128];	/* the filter's text, "" for none */
	char line[128];		/* the filter being typed, while @prompting */
	bool prompting;
	regex_t re;
	bool plain;		/* the rows are lines of text: no shares, no marks */
	bool on;		/* the screen is ncurses' */
	struct kp_tui *page;	/* the page shown over the rows, or NULL (owned) */
	size_t *hot;		/* a page's hot rows, hottest first (kp_tui_page_end()) */
	size_t nr_hot, at_hot;	/* and which of them TAB went to last */
};

void kp_tui_init(struct kp_tui *t, const char *heading, const char *keys_help);

/* kp_tui_start - take the terminal (standard input and output). Returns 0, or -1 when it is
 * not one ncurses can drive. */
int kp_tui_start(struct kp_tui *t);

/* kp_tui_end - give the terminal back as it was; nothing when it was not taken. */
void kp_tui_end(struct kp_tui *t);

void kp_tui_release(struct kp_tui *t);

/* kp_tui_head - header line @i (0 to 2), printf-style. */
void kp_tui_head(struct kp_tui *t, int i, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* kp_tui_msg - the message line, printf-style. */
void kp_tui_msg(struct kp_tui *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void kp_tui_rows_begin(struct kp_tui *t);
void kp_tui_row(struct kp_tui *t, uint64_t id, double pct, double pct2, unsigned depth, char mark,
		const char *fmt, ...) __attribute__((format(printf, 7, 8)));
/* kp_tui_rows_end - the rows are in: the selection goes back to the row of its id, if any. */
void kp_tui_rows_end(struct kp_tui *t);

/* kp_tui_selected - the selected row, or NULL when there are none. */
const struct kp_tui_row *kp_tui_selected(const struct kp_tui *t);

/* kp_tui_select - select the row of @id, if there is one. */
void kp_tui_select(struct kp_tui *t, uint64_t id);

void kp_tui_draw(struct kp_tui *t);

/*
 * kp_tui_key - wait up to @wait_ms (-1: for ever) for a key: the selection moves with Up,
 * Down, Page Up, Page Down, Home and End (the screen is redrawn); '/' starts a regular
 * expression typed on the message line, a key per call (KP_TUI_FILTER once Enter sets it);
 * h and ? open the page of t->help; while a page is open, the keys are its own (KP_TUI_REDRAW
 * once it is closed); other keys are looked up in the key map. It never waits longer than
 * @wait_ms.
 */
enum kp_tui_act kp_tui_key(struct kp_tui *t, int wait_ms);

/* kp_tui_match - whether @s passes the filter ('/'); everything passes with none. */
bool kp_tui_match(const struct kp_tui *t, const char *s);

/*
 * kp_tui_page - open a page over @t's rows, titled @title, with @keys_help on its last line;
 * returns it, for the caller to fill with kp_tui_row() (a plain row each: its @pct, when not
 * negative, makes it a hot row, ranked by it) and end with kp_tui_page_end(). A page open
 * before is closed. The page is @t's: kp_tui_key() closes it, kp_tui_release() frees it.
 */
struct kp_tui *kp_tui_page(struct kp_tui *t, const char *title, const char *keys_help);

/* kp_tui_page_end - the page's rows are in: it opens at its hottest row, if any, else at its
 * first; kp_tui_draw() of the screen under it draws it. */
void kp_tui_page_end(struct kp_tui *page);

/* kp_tui_interrupt - a SIGINT or SIGTERM handler's part: the next key is KP_TUI_QUIT. */
void kp_tui_interrupt(void);

#endif /* KP_TUI_H */
