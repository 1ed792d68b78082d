/* SPDX-License-Identifier: MIT */
/*
 * probe-fetch.c - perf probe's argument syntax into tracefs fetch arguments.
 */
#include "probe-fetch.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "formats/util.h"
#include "probe-dwarf.h"

#define IDENT "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
#define DIGITS "0123456789"

enum kind { K_VAR, K_RETVAL, K_PARAMS, K_SDT, K_RAW };

/* One argument as written: its name (or NULL), what it fetches, its type (or NULL). */
struct arg {
	char *name, *what, *type;
	enum kind kind;
};

struct args {
	struct arg *v;
	size_t nr, cap;
};

static void args_free(struct args *a)
{
	for (size_t i = 0; i < a->nr; i++) {
		free(a->v[i].name);
		free(a->v[i].what);
		free(a->v[i].type);
	}
	free(a->v);
}

static char *xstrndup(const char *s, size_t n)
{
	char *d = strndup(s, n);

	if (!d)
		kp_die("out of memory");
	return d;
}

/* The kernel's types: u8..x64, char and symbol (each also as an array, [N]), string, ustring,
 * symstr, and bit-fields b<width>@<offset>/<container size>. */
static bool good_type(const char *t)
{
	static const char *const fixed[] = { "u8", "u16", "u32", "u64", "s8", "s16", "s32",
					     "s64", "x8", "x16", "x32", "x64", "char", "symbol" };
	static const char *const words[] = { "string", "ustring", "symstr" };
	unsigned w, o, c;
	int end = 0;

	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (!strcmp(t, words[i]))
			return true;
	if (sscanf(t, "b%u@%u/%u%n", &w, &o, &c, &end) == 3 && !t[end])
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(fixed); i++) {
		size_t n = strlen(fixed[i]);
		if (strncmp(t, fixed[i], n))
			continue;
		end = 0;
		if (!t[n] || (t[n] == '[' && sscanf(t + n, "[%u]%n", &w, &end) == 1 && end &&
			      !t[n + (size_t)end]))
			return true;
	}
	return false;
}

/* One token, [NAME=]WHAT[:TYPE], into @a. */
static int parse_arg(const struct kp_probe_site *s, const char *tok, struct arg *a)
{
	size_t n = strspn(tok, IDENT);
	const char *colon;

	memset(a, 0, sizeof(*a));
	if (n && tok[n] == '=' && !strchr(DIGITS, tok[0])) {
		a->name = xstrndup(tok, n);
		tok += n + 1;
	}
	colon = strrchr(tok, ':');
	a->what = xstrndup(tok, colon ? (size_t)(colon - tok) : strlen(tok));
	if (colon) {
		a->type = kp_xstrdup(colon + 1);
		if (!good_type(a->type)) {
			kp_error("bad type '%s' of argument '%s' in event '%s'", a->type, tok,
				 s->spec);
			kp_hint("the types are u8, u16, u32, u64, s8..s64, x8..x64 (hex), string, "
				"ustring, char, symbol and b<width>@<offset>/<size>");
			return -EINVAL;
		}
	}
	if (!*a->what) {
		kp_error("bad argument '%s' in event '%s': it fetches nothing", tok, s->spec);
		return -EINVAL;
	}
	if (!strcmp(a->what, "$retval"))
		a->kind = K_RETVAL;
	else if (!strcmp(a->what, "$params"))
		a->kind = K_PARAMS;
	else if (s->sdt && !strncmp(a->what, "arg", 3) && a->what[3] &&
		 !a->what[3 + strspn(a->what + 3, DIGITS)])
		a->kind = K_SDT;
	else if (strchr("%+-@\\$", a->what[0]))
		a->kind = K_RAW;
	else if (strchr(DIGITS, a->what[0]) || !strchr(IDENT, a->what[0])) {
		kp_error("bad argument '%s' in event '%s': a variable's name, $retval, $params, a "
			 "register (%%di) or the kernel's +OFF(...), @ADDR, $stackN, $comm", tok,
			 s->spec);
		return -EINVAL;
	} else
		a->kind = K_VAR;
	if (a->kind == K_PARAMS && (a->name || a->type)) {
		kp_error("bad argument '%s' in event '%s': $params names and types each parameter "
			 "itself", tok, s->spec);
		return -EINVAL;
	}
	if (a->kind == K_VAR && s->sdt) {
		kp_error("bad argument '%s' in event '%s': an SDT probe's arguments are arg1 to "
			 "arg%zu", tok, s->spec, kp_sdt_nr_args(s->sdt));
		return -EINVAL;
	}
	return 0;
}

static int split_args(const struct kp_probe_site *s, const char *text, struct args *out)
{
	const char *p = text;

	for (;;) {
		size_t n;
		char *tok;
		int err;
		p += strspn(p, " \t");
		n = strcspn(p, " \t");
		if (!n)
			return 0;
		tok = xstrndup(p, n);
		KP_GROW(out->v, out->cap, out->nr + 1);
		err = parse_arg(s, tok, &out->v[out->nr]);
		out->nr++;
		free(tok);
		if (err)
			return err;
		p += n;
	}
}

/* An expression as a field name: "p->len" is p_len, "a[2].b" a_2_b. */
static char *field_name(const char *what)
{
	char *s = kp_xmalloc(strlen(what) + 1);
	size_t n = 0;

	for (const char *p = what; *p; p++) {
		if (strchr(IDENT, *p))
			s[n++] = *p;
		else if (n && s[n - 1] != '_')
			s[n++] = '_';
	}
	while (n && s[n - 1] == '_')
		n--;
	s[n] = '\0';
	return s;
}

/* $params: an argument of each parameter, in their place. */
static int expand_params(struct kp_probe_site *s, struct kp_pdw *dw, const struct kp_pdw_func *fn,
			 struct args *a)
{
	for (size_t i = 0; i < a->nr; i++) {
		char *names, *save = NULL, *tok;
		struct args add = { NULL, 0, 0 };
		if (a->v[i].kind != K_PARAMS)
			continue;
		names = kp_pdw_params(dw, fn);
		if (!*names) {
			kp_error("'%s' has no parameters for $params (event '%s')", s->func, s->spec);
			free(names);
			return -EINVAL;
		}
		for (tok = strtok_r(names, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
			KP_GROW(add.v, add.cap, add.nr + 1);
			add.v[add.nr++] = (struct arg){ NULL, kp_xstrdup(tok), NULL, K_VAR };
		}
		free(names);
		free(a->v[i].what);
		KP_GROW(a->v, a->cap, a->nr + add.nr);
		memmove(&a->v[i + add.nr], &a->v[i + 1], (a->nr - i - 1) * sizeof(*a->v));
		memcpy(&a->v[i], add.v, add.nr * sizeof(*a->v));
		a->nr += add.nr - 1;
		i += add.nr - 1;
		free(add.v);
	}
	return 0;
}

/* FUNC:RLN: the address of that line, or an error naming the lines that have code. */
static int move_to_line(struct kp_probe_site *s, struct kp_pdw *dw, const struct kp_pdw_func *fn)
{
	int lines[64], line = fn->decl_line + s->rln;
	size_t nr;
	char have[256] = "";
	size_t o = 0;

	if (!fn->decl_line) {
		kp_error("the DWARF of '%s' gives no line for '%s' (event '%s')", s->path, s->func,
			 s->spec);
		return -EINVAL;
	}
	if (kp_pdw_line(dw, fn, line, &s->vaddr, lines, ARRAY_SIZE(lines), &nr) == 0)
		return 0;
	for (size_t i = 0; i < nr && o < sizeof(have); i++)
		if (lines[i] >= fn->decl_line)
			o += (size_t)snprintf(have + o, sizeof(have) - o, "%s%d", o ? ", " : "",
					      lines[i] - fn->decl_line);
	kp_error("no code at line %d of '%s' (%s:%d, %s is declared at line %d) in '%s' (event "
		 "'%s')", s->rln, s->func, s->func, s->rln, s->func, fn->decl_line, s->path,
		 s->spec);
	if (o)
		kp_hint("the lines of '%s' with code, counted from its declaration: %s", s->func,
			have);
	return -EINVAL;
}

/* The kernel's text of argument @a: "NAME=FETCH[:TYPE]" (the caller's). */
static int one_arg(struct kp_probe_site *s, struct kp_pdw *dw, const struct kp_pdw_func *fn,
		   size_t pos, const struct arg *a, char **out)
{
	char *fetch = NULL, *type = NULL, *name, why[512];
	int err = 0;

	why[0] = '\0';
	if (a->kind == K_VAR || (a->kind == K_RETVAL && fn)) {
		err = kp_pdw_var(dw, fn, s->vaddr, (int64_t)(s->file_off - s->vaddr), a->what,
				 a->type, &fetch, &type, why, sizeof(why));
	} else if (a->kind == K_SDT) {
		const char *t;
		size_t i = strtoul(a->what + 3, NULL, 10);
		err = i ? kp_sdt_arg(s->sdt, i - 1, &fetch, &t, why, sizeof(why))
			: (snprintf(why, sizeof(why), "SDT arguments count from arg1"), -EINVAL);
		if (!err && a->type && !strcmp(a->type, "string")) {
			char *f;
			if (asprintf(&f, "+0(%s)", fetch) < 0)
				kp_die("out of memory");
			free(fetch);
			fetch = f;
		}
		if (!err)
			type = kp_xstrdup(a->type ? a->type : t);
	} else if (a->kind == K_RETVAL && a->type && !strcmp(a->type, "string")) {
		fetch = kp_xstrdup("+0($retval)");
		type = kp_xstrdup("string");
	} else {
		fetch = kp_xstrdup(a->what);
		type = a->type ? kp_xstrdup(a->type) : NULL;
	}
	if (err) {
		kp_error("cannot fetch '%s' in event '%s': %s", a->what, s->spec, why);
		free(fetch);
		free(type);
		return err;
	}
	if (a->name)
		name = kp_xstrdup(a->name);
	else if (a->kind == K_VAR || a->kind == K_SDT)
		name = field_name(a->what);
	else if (a->kind == K_RETVAL)
		name = kp_xstrdup("retval");
	else if (a->what[0] == '$' && a->what[1] && !a->what[1 + strspn(a->what + 1, IDENT)])
		name = kp_xstrdup(a->what + 1); /* $comm, $stack2 */
	else if (asprintf(&name, "arg%zu", pos + 1) < 0)
		kp_die("out of memory");
	if (asprintf(out, "%s=%s%s%s", name, fetch, type ? ":" : "", type ? type : "") < 0)
		kp_die("out of memory");
	free(name);
	free(fetch);
	free(type);
	return 0;
}

/* The name of each argument once: two of one name would be refused by the kernel. */
static int unique_names(const struct kp_probe_site *s, char **texts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < i; j++) {
			size_t li = strcspn(texts[i], "="), lj = strcspn(texts[j], "=");
			if (li == lj && !strncmp(texts[i], texts[j], li)) {
				kp_error("two arguments of event '%s' are named '%.*s'", s->spec,
					 (int)li, texts[i]);
				kp_hint("name one: NAME=WHAT");
				return -EINVAL;
			}
		}
	return 0;
}

/* DWARF for what needs it: the function, its line, past its prologue. */
static int site_dwarf(struct kp_probe_site *s, const struct args *a, struct kp_pdw *dw,
		      struct kp_pdw_func *fn, bool *have)
{
	bool vars = false, retval = false, required;
	uint64_t at = s->vaddr;
	int err;

	*have = false;
	for (size_t i = 0; i < a->nr; i++) {
		vars = vars || a->v[i].kind == K_VAR || a->v[i].kind == K_PARAMS;
		retval = retval || a->v[i].kind == K_RETVAL;
	}
	if (s->ret && vars) {
		kp_error("a return probe fetches no variables (event '%s'): they are gone when the "
			 "function returns", s->spec);
		kp_hint("$retval is what it returns; probe the function's entry for its arguments");
		return -EINVAL;
	}
	required = vars || s->rln >= 0;
	if (!required && !(retval && s->func))
		return 0;
	err = kp_pdw_open(s->path, s->ef->fd, dw);
	if (err && !required)
		return 0; /* $retval is fetched untyped */
	if (err) {
		kp_error("'%s' has no DWARF (event '%s'): %s", s->path, s->spec,
			 err == -ENODATA ? "no debug info in it, nor a debug file found for it"
					 : strerror(-err));
		kp_hint("without debug info, name the arguments by where the calling convention "
			"puts them: %%di, %%si, %%dx, %%cx, %%r8, %%r9 (x86-64), $stackN, "
			"+OFF(%%sp), with a type (%%di:s32, +0(%%si):string)");
		return -EINVAL;
	}
	if (s->func ? kp_pdw_func(dw, s->func, s->entry || s->rln >= 0 ? s->vaddr : 0, fn)
		    : kp_pdw_func_at(dw, s->vaddr, fn)) {
		if (!required)
			return 0;
		if (s->func)
			kp_error("'%s' has no DWARF for %s (event '%s')", s->path, s->func, s->spec);
		else
			kp_error("'%s' has no DWARF for address %#llx (event '%s')", s->path,
				 (unsigned long long)s->vaddr, s->spec);
		kp_hint("name the arguments by register (%%di, %%si, ...) or memory (+OFF(%%sp))");
		return -EINVAL;
	}
	*have = true;
	if (s->rln >= 0)
		err = move_to_line(s, dw, fn);
	else if (s->entry && vars && !fn->optimized)
		kp_pdw_body(dw, fn, &s->vaddr);
	if (!err && s->vaddr != at)
		err = kp_probe_elf_offset(s->ef, s->spec, s->path, s->vaddr, true, &s->file_off);
	return err;
}

int kp_probe_fetch(struct kp_probe_site *s, const char *args, char **fetch)
{
	struct args a = { NULL, 0, 0 };
	struct kp_pdw dw;
	struct kp_pdw_func fn;
	char **texts = NULL;
	size_t len = 0, n = 0;
	bool have = false;
	int err;

	memset(&dw, 0, sizeof(dw));
	*fetch = NULL;
	err = split_args(s, args, &a);
	if (!err)
		err = site_dwarf(s, &a, &dw, &fn, &have);
	if (!err && have)
		err = expand_params(s, &dw, &fn, &a);
	for (size_t i = 0; i < a.nr && !err; i++) {
		if (a.v[i].kind == K_RETVAL && !s->ret) {
			kp_error("'$retval' in event '%s' is what a return probe sees: probe "
				 "FUNC%%return (or uretprobe:PATH:FUNC)", s->spec);
			err = -EINVAL;
			break;
		}
		texts = kp_xrealloc(texts, (n + 1) * sizeof(*texts));
		err = one_arg(s, &dw, have ? &fn : NULL, i, &a.v[i], &texts[n]);
		n += !err;
	}
	if (!err)
		err = unique_names(s, texts, n);
	if (!err) {
		*fetch = kp_xstrdup("");
		for (size_t i = 0; i < n; i++) {
			*fetch = kp_xrealloc(*fetch, len + strlen(texts[i]) + 2);
			len += (size_t)sprintf(*fetch + len, "%s%s", i ? " " : "", texts[i]);
		}
	}
	for (size_t i = 0; i < n; i++)
		free(texts[i]);
	free(texts);
	args_free(&a);
	if (dw.dwfl)
		kp_pdw_close(&dw);
	return err;
}
