/* SPDX-License-Identifier: MIT */
#include "tui.h"

#include <curses.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <termios.h>
#include <unistd.h>

#include "formats/util.h"
#include "report/base/text.h"

/* --- the terminal, given back whatever happens ------------------------------------------ */

static struct termios saved_tty;
static volatile sig_atomic_t taken, interrupted;
static int saved_err = -1;	/* stderr while the screen is taken: messages wait in a file */
static char leave_seq[64];	/* what gives the main screen and the cursor back (terminfo) */
static size_t leave_len;

static void release_stderr(void);

/* A crash: the modes and the screen back with what is async-signal-safe, then the crash. */
static void on_crash(int sig)
{
	if (taken) {
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_tty);
		if (write(STDOUT_FILENO, leave_seq, leave_len) < 0)
			leave_len = 0;
	}
	if (saved_err >= 0) /* what the crash says goes to the terminal */
		dup2(saved_err, STDERR_FILENO);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void at_exit(void)
{
	if (taken) {
		endwin();
		taken = 0;
	}
	release_stderr();
}

void kp_tui_interrupt(void)
{
	interrupted = 1;
}

static void add_seq(const char *cap)
{
	const char *s = tigetstr(cap);
	size_t n;

	if (!s || s == (const char *)-1)
		return;
	n = strlen(s);
	if (leave_len + n < sizeof(leave_seq)) {
		memcpy(leave_seq + leave_len, s, n);
		leave_len += n;
	}
}

void kp_tui_init(struct kp_tui *t, const char *heading, const char *keys_help)
{
	memset(t, 0, sizeof(*t));
	t->heading = heading;
	t->keys_help = keys_help;
}

/* What was said on stderr while the screen was taken, said now that it is given back. */
static void release_stderr(void)
{
	char buf[4096];
	ssize_t n;

	if (saved_err < 0)
		return;
	fflush(stderr);
	lseek(STDERR_FILENO, 0, SEEK_SET);
	for (;;) {
		n = read(STDERR_FILENO, buf, sizeof(buf));
		if (n <= 0 || kp_write_all(saved_err, buf, (size_t)n))
			break;
	}
	dup2(saved_err, STDERR_FILENO);
	close(saved_err);
	saved_err = -1;
}

static void hold_stderr(void)
{
	FILE *f;

#ifdef __SANITIZE_ADDRESS__ /* a sanitizer's report ends the process with no handler of ours
			     * run: it must go straight to the terminal, not to a file */
	return;
#endif
	f = tmpfile();
	if (!f)
		return;
	fflush(stderr);
	saved_err = dup(STDERR_FILENO);
	if (saved_err >= 0)
		dup2(fileno(f), STDERR_FILENO);
	fclose(f); /* the file lives on as stderr */
}

int kp_tui_start(struct kp_tui *t)
{
	static const int crashes[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	static bool once;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO) || tcgetattr(STDIN_FILENO, &saved_tty))
		return -1;
	if (!newterm(NULL, stdout, stdin))
		return -1;
	hold_stderr();
	taken = 1;
	t->on = true;
	cbreak(); /* keys as they are typed; Ctrl-C still interrupts */
	noecho();
	keypad(stdscr, TRUE);
	/* Escape is a key of its own (back, quit): ncurses waits ESCDELAY ms (1000 by default)
	 * for the rest of a sequence that it may start; the keys' sequences come in one write */
	if (!getenv("ESCDELAY"))
		set_escdelay(25);
	curs_set(0);
	if (has_colors()) {
		start_color();
		use_default_colors();
		init_pair(1, COLOR_RED, -1);
		init_pair(2, COLOR_GREEN, -1);
	}
	leave_len = 0;
	add_seq("rmcup");
	add_seq("cnorm");
	add_seq("sgr0");
	for (size_t i = 0; i < ARRAY_SIZE(crashes); i++)
		signal(crashes[i], on_crash);
	if (!once) {
		atexit(at_exit);
		once = true;
	}
	return 0;
}

void kp_tui_end(struct kp_tui *t)
{
	if (!t->on)
		return;
	endwin();
	taken = 0;
	t->on = false;
	release_stderr();
}

static void clear_rows(struct kp_tui *t)
{
	for (size_t i = 0; i < t->nr; i++)
		free(t->rows[i].text);
	t->nr = 0;
}

static void close_page(struct kp_tui *t)
{
	if (!t->page)
		return;
	t->page->on = false; /* the screen is @t's */
	kp_tui_release(t->page);
	free(t->page);
	t->page = NULL;
}

void kp_tui_release(struct kp_tui *t)
{
	kp_tui_end(t);
	close_page(t);
	clear_rows(t);
	free(t->rows);
	free(t->hot);
	for (size_t i = 0; i < ARRAY_SIZE(t->head); i++)
		free(t->head[i]);
	if (t->filter[0])
		regfree(&t->re);
	memset(t, 0, sizeof(*t));
}

/* A screen line (longer is cut at the edge anyway), its names escaped as every text output
 * escapes them (kp_text_put()): ncurses would act on a line break or a backspace in one. A tab
 * (of an annotation's source line) is spaced to the next 8th column, as ncurses would space it. */
static char *vformat(const char *fmt, va_list ap)
{
	char buf[512], spaced[512], esc[512];
	size_t n = 0;

	vsnprintf(buf, sizeof(buf), fmt, ap);
	for (const char *c = buf; *c && n < sizeof(spaced) - 1; c++)
		if (*c != '\t')
			spaced[n++] = *c;
		else
			do
				spaced[n++] = ' ';
			while (n % 8 && n < sizeof(spaced) - 1);
	spaced[n] = '\0';
	return kp_xstrdup(kp_text_escape(spaced, esc, sizeof(esc)));
}

void kp_tui_head(struct kp_tui *t, int i, const char *fmt, ...)
{
	va_list ap;

	if (i < 0 || i >= (int)ARRAY_SIZE(t->head))
		return;
	va_start(ap, fmt);
	free(t->head[i]);
	t->head[i] = vformat(fmt, ap);
	va_end(ap);
}

void kp_tui_msg(struct kp_tui *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->msg, sizeof(t->msg), fmt, ap);
	va_end(ap);
}

/* --- rows and the selection ---------------------------------------------------------- */

void kp_tui_rows_begin(struct kp_tui *t)
{
	const struct kp_tui_row *r = kp_tui_selected(t);

	if (r) {
		t->sel_id = r->id;
		t->have_sel = true;
	}
	clear_rows(t);
}

void kp_tui_row(struct kp_tui *t, uint64_t id, double pct, double pct2, unsigned depth, char mark,
		const char *fmt, ...)
{
	va_list ap;

	KP_GROW(t->rows, t->cap, t->nr + 1);
	va_start(ap, fmt);
	t->rows[t->nr] = (struct kp_tui_row){ .id = id, .pct = pct, .pct2 = pct2,
					      .depth = (uint16_t)(depth > 200 ? 200 : depth),
					      .mark = mark, .text = vformat(fmt, ap) };
	va_end(ap);
	t->nr++;
}

void kp_tui_select(struct kp_tui *t, uint64_t id)
{
	for (size_t i = 0; i < t->nr; i++)
		if (t->rows[i].id == id) {
			t->sel = i;
			t->sel_id = id;
			t->have_sel = true;
			return;
		}
}

void kp_tui_rows_end(struct kp_tui *t)
{
	if (t->have_sel)
		for (size_t i = 0; i < t->nr; i++)
			if (t->rows[i].id == t->sel_id) {
				t->sel = i;
				return;
			}
	if (t->sel >= t->nr) /* its row is gone: the nearest one left */
		t->sel = t->nr ? t->nr - 1 : 0;
}

const struct kp_tui_row *kp_tui_selected(const struct kp_tui *t)
{
	return t->sel < t->nr ? &t->rows[t->sel] : NULL;
}

/* --- drawing ------------------------------------------------------------------------- */

static int heads(const struct kp_tui *t)
{
	int n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(t->head); i++)
		n += t->head[i] != NULL;
	return n;
}

/* Rows on screen: all lines but the header, the column line, and the two at the bottom. */
static int page(const struct kp_tui *t)
{
	int n = LINES - heads(t) - 3;

	return n < 1 ? 1 : n;
}

/* A share as the text views colour it: red from 5%, green from 0.5%. */
static void put_pct(double pct)
{
	int pair = pct >= 5.0 ? 1 : pct >= 0.5 ? 2 : 0;

	if (pct < 0) {
		printw("%8s", "");
		return;
	}
	if (pair && has_colors())
		attron(COLOR_PAIR(pair));
	printw("%7.2f%%", pct);
	if (pair && has_colors())
		attroff(COLOR_PAIR(pair));
}

static void draw_row(const struct kp_tui *t, size_t i, int y)
{
	const struct kp_tui_row *r = &t->rows[i];
	int x;

	move(y, 0);
	if (i == t->sel)
		attron(A_REVERSE);
	if (!t->plain) {
		put_pct(r->pct);
		printw(" ");
		put_pct(r->pct2);
		printw(" %*s%c ", 2 * r->depth, "", r->mark ? r->mark : ' ');
	}
	x = getcurx(stdscr);
	if (x < COLS)
		addnstr(r->text, COLS - x);
	if (i == t->sel) { /* the bar spans the line */
		for (x = getcurx(stdscr); x < COLS && getcury(stdscr) == y; x++)
			addch(' ');
		attroff(A_REVERSE);
	}
}

void kp_tui_draw(struct kp_tui *t)
{
	int y = 0, rows = page(t), cx = 0;

	if (!t->on)
		return;
	if (t->page) {
		t->page->on = true;
		kp_tui_draw(t->page);
		return;
	}
	if (t->sel < t->top)
		t->top = t->sel;
	if (t->sel >= t->top + (size_t)rows)
		t->top = t->sel - rows + 1;
	if (t->top && t->top + rows > t->nr) /* no empty lines below while rows are above */
		t->top = t->nr > (size_t)rows ? t->nr - rows : 0;
	erase();
	for (size_t i = 0; i < ARRAY_SIZE(t->head); i++)
		if (t->head[i])
			mvaddnstr(y++, 0, t->head[i], COLS);
	attron(A_BOLD);
	mvaddnstr(y++, 0, t->heading ? t->heading : "", COLS);
	if (t->filter[0] && getcurx(stdscr) < COLS - 12) {
		addstr("   (filter: /");
		addnstr(t->filter, COLS - getcurx(stdscr));
		addnstr("/)", COLS - getcurx(stdscr));
	}
	attroff(A_BOLD);
	for (size_t i = t->top; i < t->nr && y < LINES - 2; i++)
		draw_row(t, i, y++);
	if (!t->nr)
		mvaddnstr(y, 0, t->filter[0] ? "  (nothing matches the filter)" : "  (nothing yet)",
			  COLS);
	if (t->prompting) {
		mvaddnstr(LINES - 2, 0, "filter (regex, empty for none; Enter sets it, Escape "
			  "keeps the old one): /", COLS);
		addnstr(t->line, COLS - getcurx(stdscr) - 1);
		cx = getcurx(stdscr);
	} else {
		mvaddnstr(LINES - 2, 0, t->msg, COLS);
	}
	attron(A_REVERSE);
	mvaddnstr(LINES - 1, 0, t->keys_help ? t->keys_help : "q quit", COLS);
	attroff(A_REVERSE);
	curs_set(t->prompting);
	if (t->prompting) /* the cursor where the next character goes */
		move(LINES - 2, cx);
	refresh();
}

/* --- keys ---------------------------------------------------------------------------- */

/* The one key map: what each key asks of the screen above this one. */
static const struct {
	int key;
	enum kp_tui_act act;
} keymap[] = {
	{ 'q', KP_TUI_QUIT },		{ 'Q', KP_TUI_QUIT },	    { 27 /* Esc */, KP_TUI_QUIT },
	{ KEY_RIGHT, KP_TUI_EXPAND },	{ '+', KP_TUI_EXPAND },	    { KEY_LEFT, KP_TUI_COLLAPSE },
	{ '-', KP_TUI_COLLAPSE },	{ 'E', KP_TUI_EXPAND_ALL }, { 'C', KP_TUI_COLLAPSE_ALL },
	{ '\n', KP_TUI_TOGGLE },	{ '\r', KP_TUI_TOGGLE },    { KEY_ENTER, KP_TUI_TOGGLE },
	{ 's', KP_TUI_SORT },		{ 'g', KP_TUI_CALLERS },    { 'z', KP_TUI_ZERO },
	{ 'k', KP_TUI_KERNEL },		{ 'e', KP_TUI_EVENT },	    { 't', KP_TUI_THREADS },
	{ 'a', KP_TUI_ANNOTATE },	{ 'c', KP_TUI_INVERT },	    { 'f', KP_TUI_FLAT },
	{ KEY_RESIZE, KP_TUI_REDRAW },	{ 12 /* ^L */, KP_TUI_REDRAW },
};

/* The filter typed: set (empty: none), or kept as it was when it does not compile. */
static void set_filter(struct kp_tui *t, const char *text)
{
	regex_t re;
	int err;

	if (!text[0]) {
		if (t->filter[0])
			regfree(&t->re);
		t->filter[0] = '\0';
		kp_tui_msg(t, "no filter");
		return;
	}
	err = regcomp(&re, text, REG_EXTENDED | REG_NOSUB);
	if (err) {
		char why[128];

		regerror(err, &re, why, sizeof(why));
		kp_tui_msg(t, "bad regular expression '%s': %s", text, why);
		return;
	}
	if (t->filter[0])
		regfree(&t->re);
	t->re = re;
	snprintf(t->filter, sizeof(t->filter), "%s", text);
	kp_tui_msg(t, "showing what matches /%s/", text);
}

/*
 * A key while the filter is typed on the message line: a key at a time, never waiting for the
 * rest (top's recorder drains its rings between two keys). Enter sets it, Escape keeps the old
 * one.
 */
static enum kp_tui_act prompt_key(struct kp_tui *t, int key)
{
	size_t n = strlen(t->line);

	switch (key) {
	case '\n': case '\r': case KEY_ENTER:
		t->prompting = false;
		set_filter(t, t->line);
		return KP_TUI_FILTER;
	case 27: /* Escape */
		t->prompting = false;
		kp_tui_msg(t, "the filter stays %s%s%s", t->filter[0] ? "/" : "none",
			   t->filter, t->filter[0] ? "/" : "");
		break;
	case KEY_BACKSPACE: case 127: case 8:
		if (n)
			t->line[n - 1] = '\0';
		break;
	default:
		if (key >= 32 && key < 127 && n + 1 < sizeof(t->line)) {
			t->line[n] = (char)key;
			t->line[n + 1] = '\0';
		}
		break;
	}
	kp_tui_draw(t);
	return KP_TUI_MOVED;
}

static bool move_sel(struct kp_tui *t, int key)
{
	size_t last = t->nr ? t->nr - 1 : 0, step = (size_t)page(t);

	switch (key) {
	case KEY_UP:
		t->sel = t->sel ? t->sel - 1 : 0;
		break;
	case KEY_DOWN:
		t->sel = t->sel < last ? t->sel + 1 : last;
		break;
	case KEY_PPAGE:
		t->sel = t->sel > step ? t->sel - step : 0;
		break;
	case KEY_NPAGE:
		t->sel = t->sel + step < last ? t->sel + step : last;
		break;
	case KEY_HOME:
		t->sel = 0;
		break;
	case KEY_END:
		t->sel = last;
		break;
	default:
		return false;
	}
	if (t->sel < t->nr) {
		t->sel_id = t->rows[t->sel].id;
		t->have_sel = true;
	}
	return true;
}

/* --- pages -------------------------------------------------------------------------- */

struct kp_tui *kp_tui_page(struct kp_tui *t, const char *title, const char *keys_help)
{
	struct kp_tui *p;

	close_page(t);
	p = kp_xcalloc(1, sizeof(*p));
	kp_tui_init(p, "", keys_help);
	p->plain = true;
	kp_tui_head(p, 0, "%s", title);
	kp_tui_rows_begin(p);
	t->page = p;
	return p;
}

/* Hotter first; of two as hot, the one above. */
static int cmp_hot(const void *a, const void *b, void *ctx)
{
	const struct kp_tui *p = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (p->rows[x].pct != p->rows[y].pct)
		return p->rows[x].pct > p->rows[y].pct ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* The selection to hot row @i of the page, in the middle of the screen. */
static void to_hot(struct kp_tui *p, size_t i)
{
	size_t half = (size_t)page(p) / 2;

	p->at_hot = i;
	p->sel = p->hot[i];
	p->sel_id = p->rows[p->sel].id;
	p->have_sel = true;
	p->top = p->sel > half ? p->sel - half : 0;
	kp_tui_msg(p, "hot line %zu of %zu, %.2f%% (Tab: the next, Shift-Tab: the one before)",
		   i + 1, p->nr_hot, p->rows[p->sel].pct);
}

void kp_tui_page_end(struct kp_tui *p)
{
	kp_tui_rows_end(p);
	free(p->hot);
	p->hot = NULL;
	p->nr_hot = 0;
	for (size_t i = 0; i < p->nr; i++)
		if (p->rows[i].pct >= 0) {
			p->hot = kp_xrealloc(p->hot, (p->nr_hot + 1) * sizeof(*p->hot));
			p->hot[p->nr_hot++] = i;
		}
	if (p->nr_hot) {
		qsort_r(p->hot, p->nr_hot, sizeof(*p->hot), cmp_hot, p);
		to_hot(p, 0);
	}
}

/* A key while a page is open: it scrolls, goes through the hot rows, or closes the page. */
static enum kp_tui_act page_key(struct kp_tui *t, int key)
{
	struct kp_tui *p = t->page;

	if (move_sel(p, key)) {
		kp_tui_draw(t);
		return KP_TUI_MOVED;
	}
	switch (key) {
	case 'q': case 'Q': case 27: case KEY_LEFT:
		close_page(t);
		return KP_TUI_REDRAW;
	case '\t': case KEY_BTAB:
		if (!p->nr_hot) {
			kp_tui_msg(p, "no line here is hot");
			break;
		}
		to_hot(p, key == '\t' ? (p->at_hot + 1) % p->nr_hot
				      : (p->at_hot + p->nr_hot - 1) % p->nr_hot);
		break;
	case KEY_RESIZE: case 12:
		clearok(curscr, TRUE);
		break;
	default:
		return KP_TUI_MOVED;
	}
	kp_tui_draw(t);
	return KP_TUI_MOVED;
}

/* h, ?: every key of the screen, on a page. */
static void help(struct kp_tui *t)
{
	struct kp_tui *p = kp_tui_page(t, "the keys (q, Escape or Left: back)",
				       " q/Esc back  Up/Down/PgUp/PgDn scroll ");
	const char *line = t->help, *end;

	while (line && *line) {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		kp_tui_row(p, p->nr, -1, -1, 0, ' ', "%.*s", (int)(end - line), line);
		line = *end ? end + 1 : end;
	}
	kp_tui_page_end(p);
	kp_tui_draw(t);
}

/* The terminal hung up (its window closed, its ssh dropped): ncurses then reads nothing at
 * once, for ever, and a loop waiting for keys would spin. */
static bool hung_up(void)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR | POLLNVAL));
}

enum kp_tui_act kp_tui_key(struct kp_tui *t, int wait_ms)
{
	int key;

	if (interrupted)
		return KP_TUI_QUIT;
	if (!t->on)
		return KP_TUI_NONE;
	timeout(wait_ms);
	key = getch();
	if (interrupted || (key == ERR && hung_up())) {
		interrupted = 1;
		return KP_TUI_QUIT;
	}
	if (key == ERR)
		return KP_TUI_NONE;
	if (t->page)
		return page_key(t, key);
	if (move_sel(t, key)) {
		kp_tui_draw(t);
		return KP_TUI_MOVED;
	}
	if (t->prompting)
		return prompt_key(t, key);
	if (key == '/') {
		t->prompting = true;
		t->line[0] = '\0';
		kp_tui_draw(t);
		return KP_TUI_MOVED;
	}
	if ((key == 'h' || key == '?') && t->help) {
		help(t);
		return KP_TUI_MOVED;
	}
	if (key == KEY_RESIZE || key == 12)
		clearok(curscr, TRUE); /* all of it drawn again, not only what changed */
	for (size_t i = 0; i < ARRAY_SIZE(keymap); i++)
		if (keymap[i].key == key)
			return keymap[i].act;
	return KP_TUI_MOVED;
}

bool kp_tui_match(const struct kp_tui *t, const char *s)
{
	return !t->filter[0] || !regexec(&t->re, s, 0, NULL, 0);
}
