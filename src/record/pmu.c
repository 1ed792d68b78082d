/* SPDX-License-Identifier: MIT */
/*
 * pmu.c - PMUs from sysfs: type, format terms (bit fields of config/config1/config2) and
 * named events, and the PMU/TERMS/ event syntax built on them.
 */
#include "pmu.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "formats/util.h"

#define MAX_RANGES 8

/* A term's bits: ranges [lo, hi] of one config field, filled from the value's low bits up. */
struct format {
	int field; /* 0: config, 1: config1, 2: config2 */
	unsigned nr;
	struct { unsigned lo, hi; } r[MAX_RANGES];
};

bool kp_pmu_valid_name(const char *name)
{
	size_t n = strspn(name, KP_PMU_NAME_CHARS);

	return n && !name[n] && strcmp(name, ".") && strcmp(name, "..") && n < 128;
}

/* The first line of a small sysfs file, without its newline. 0 or -errno. */
static int read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* Read PMU_DIR/@pmu/@sub/@name (@sub and @name may be NULL); both names are checked. */
static int read_pmu_file(const char *pmu, const char *sub, const char *name, char *buf,
			 size_t len)
{
	char path[512];

	if (!kp_pmu_valid_name(pmu) || (name && !kp_pmu_valid_name(name)))
		return -ENOENT;
	if (sub)
		snprintf(path, sizeof(path), "%s/%s/%s/%s", KP_PMU_DIR, pmu, sub, name);
	else
		snprintf(path, sizeof(path), "%s/%s/%s", KP_PMU_DIR, pmu, name);
	return read_small(path, buf, len);
}

int kp_pmu_type(const char *pmu, uint32_t *type)
{
	char buf[32], *end;
	unsigned long v;
	int err = read_pmu_file(pmu, NULL, "type", buf, sizeof(buf));

	if (err)
		return err == -ENOTDIR ? -ENOENT : err;
	errno = 0;
	v = strtoul(buf, &end, 10);
	if (end == buf || *end || errno || v > UINT32_MAX)
		return -EINVAL;
	*type = (uint32_t)v;
	return 0;
}

/* "config1:0-7,32-35" -> struct format; -EINVAL when malformed. */
static int parse_format(const char *text, struct format *f)
{
	const char *p = strchr(text, ':');
	size_t flen = p ? (size_t)(p - text) : 0;

	memset(f, 0, sizeof(*f));
	if (flen == 6 && !strncmp(text, "config", 6))
		f->field = 0;
	else if (flen == 7 && !strncmp(text, "config1", 7))
		f->field = 1;
	else if (flen == 7 && !strncmp(text, "config2", 7))
		f->field = 2;
	else
		return -EINVAL; /* config3 and up: perf_event_attr of these headers lacks them */
	do {
		char *end;
		unsigned long lo = strtoul(p + 1, &end, 10), hi = lo;
		if (end == p + 1 || f->nr == MAX_RANGES)
			return -EINVAL;
		if (*end == '-') {
			const char *s = end + 1;
			hi = strtoul(s, &end, 10);
			if (end == s)
				return -EINVAL;
		}
		if (hi < lo || hi > 63)
			return -EINVAL;
		f->r[f->nr].lo = (unsigned)lo;
		f->r[f->nr++].hi = (unsigned)hi;
		p = end;
	} while (*p == ',');
	return *p ? -EINVAL : 0;
}

static __u64 *attr_field(struct perf_event_attr *attr, int field)
{
	return field == 0 ? &attr->config : field == 1 ? &attr->config1 : &attr->config2;
}

static unsigned format_width(const struct format *f)
{
	unsigned w = 0;

	for (unsigned i = 0; i < f->nr; i++)
		w += f->r[i].hi - f->r[i].lo + 1;
	return w;
}

static uint64_t low_mask(unsigned n)
{
	return n >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1;
}

char *kp_pmu_format(const char *pmu, const char *term)
{
	char buf[256];

	return read_pmu_file(pmu, "format", term, buf, sizeof(buf)) ? NULL : kp_xstrdup(buf);
}

int kp_pmu_set_term(const char *pmu, const char *term, uint64_t val,
		    struct perf_event_attr *attr, unsigned *bits)
{
	char buf[256];
	struct format f;
	__u64 *field;
	unsigned w;
	int err = read_pmu_file(pmu, "format", term, buf, sizeof(buf));

	if (err)
		return err == -ENOTDIR ? -ENOENT : err;
	if (parse_format(buf, &f))
		return -EINVAL;
	w = format_width(&f);
	if (bits)
		*bits = w;
	if (w > 64 || (w < 64 && val >> w))
		return -ERANGE;
	field = attr_field(attr, f.field);
	for (unsigned i = 0; i < f.nr; i++) {
		unsigned n = f.r[i].hi - f.r[i].lo + 1;
		*field &= ~(low_mask(n) << f.r[i].lo);
		*field |= (val & low_mask(n)) << f.r[i].lo;
		val = n >= 64 ? 0 : val >> n;
	}
	return 0;
}

char *kp_pmu_event(const char *pmu, const char *name)
{
	char buf[512];

	return read_pmu_file(pmu, "events", name, buf, sizeof(buf)) ? NULL : kp_xstrdup(buf);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* An event's companion file ("energy-pkg.scale"), not an event. */
static bool companion(const char *name)
{
	static const char *const ext[] = { ".scale", ".unit", ".per-pkg", ".snapshot" };
	size_t n = strlen(name);

	for (size_t i = 0; i < ARRAY_SIZE(ext); i++) {
		size_t e = strlen(ext[i]);
		if (n > e && !strcmp(name + n - e, ext[i]))
			return true;
	}
	return false;
}

char **kp_pmu_list(const char *pmu, const char *subdir, size_t *nr)
{
	char path[512], **names = NULL;
	struct dirent *d;
	DIR *dir;

	*nr = 0;
	if (pmu && (!kp_pmu_valid_name(pmu) || !kp_pmu_valid_name(subdir)))
		return NULL;
	if (pmu)
		snprintf(path, sizeof(path), "%s/%s/%s", KP_PMU_DIR, pmu, subdir);
	else
		snprintf(path, sizeof(path), "%s", KP_PMU_DIR);
	dir = opendir(path);
	if (!dir)
		return NULL;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.' || companion(d->d_name))
			continue;
		names = kp_xrealloc(names, (*nr + 1) * sizeof(*names));
		names[(*nr)++] = kp_xstrdup(d->d_name);
	}
	closedir(dir);
	if (*nr)
		qsort(names, *nr, sizeof(*names), cmp_str);
	return names;
}

void kp_pmu_free_list(char **names, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(names[i]);
	free(names);
}

/* ---- PMU/TERMS/ ------------------------------------------------------------------------------ */

/* "event (config:0-63), umask (config:8-15); events: tsc" into a fresh string */
static char *describe_terms(const char *pmu)
{
	size_t nt, ne, len = 0, cap = 256;
	char **terms = kp_pmu_list(pmu, "format", &nt), **events = kp_pmu_list(pmu, "events", &ne);
	char *s = kp_xmalloc(cap);

	s[0] = '\0';
	for (size_t i = 0; i < nt + ne; i++) {
		char *fmt = i < nt ? kp_pmu_format(pmu, terms[i]) : NULL;
		const char *name = i < nt ? terms[i] : events[i - nt];
		size_t need = strlen(name) + (fmt ? strlen(fmt) : 0) + 16;
		KP_GROW(s, cap, len + need);
		len += (size_t)snprintf(s + len, cap - len, "%s%s%s%s%s",
					i == nt && i ? "; events: " : i == nt ? "events: " : i ? ", " : "",
					name, fmt ? " (" : "", fmt ? fmt : "", fmt ? ")" : "");
		free(fmt);
	}
	kp_pmu_free_list(terms, nt);
	kp_pmu_free_list(events, ne);
	return s;
}

static void hint_terms(const char *pmu)
{
	char *d = describe_terms(pmu);

	if (*d)
		kp_hint("the terms of PMU '%s': %s; and config=, config1=, config2= set those fields "
			"whole", pmu, d);
	else
		kp_hint("PMU '%s' has no format terms or events in sysfs: config=, config1= and "
			"config2= set those fields whole", pmu);
	free(d);
}

static void hint_pmus(void)
{
	size_t nr, len = 0;
	char **pmus = kp_pmu_list(NULL, NULL, &nr), buf[1024] = "";

	for (size_t i = 0; i < nr && len < sizeof(buf); i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? ", " : "", pmus[i]);
	if (nr)
		kp_hint("the PMUs here (%s): %s", KP_PMU_DIR, buf);
	kp_pmu_free_list(pmus, nr);
}

bool kp_pmu_parse_value(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return !*end && !errno;
}

static int apply_terms(const char *pmu, const char *terms, const char *spec,
		       struct perf_event_attr *attr, int depth);

/* One TERM[=VALUE] of @spec. */
static int apply_term(const char *pmu, char *term, const char *spec,
		      struct perf_event_attr *attr, int depth)
{
	char *eq = strchr(term, '='), *def;
	uint64_t v = 1;
	unsigned bits = 0;
	int err;

	if (eq)
		*eq = '\0';
	if (eq && !kp_pmu_parse_value(eq + 1, &v)) {
		kp_error("bad value '%s' for '%s' in event '%s': a number is needed (decimal or "
			 "0x hex)", eq + 1, term, spec);
		return -EINVAL;
	}
	if (eq && (!strcmp(term, "config") || !strcmp(term, "config1") || !strcmp(term, "config2"))) {
		*attr_field(attr, term[6] ? term[6] - '0' : 0) = v;
		return 0;
	}
	err = kp_pmu_valid_name(term) ? kp_pmu_set_term(pmu, term, v, attr, &bits) : -ENOENT;
	if (err == -ERANGE) {
		char *fmt = kp_pmu_format(pmu, term);
		kp_error("the value %s of '%s' in event '%s' does not fit its %u bit%s (%s)",
			 eq ? eq + 1 : "1", term, spec, bits, bits == 1 ? "" : "s", fmt ? fmt : "?");
		free(fmt);
		return -EINVAL;
	}
	if (err == -EINVAL) {
		kp_error("cannot use term '%s' of PMU '%s': its format file is not one kprof can "
			 "read (config, config1 or config2 and bit ranges)", term, pmu);
		return -EINVAL;
	}
	if (!err)
		return 0;
	if (err != -ENOENT) {
		kp_error("cannot read the format of '%s' of PMU '%s': %s", term, pmu, strerror(-err));
		return err;
	}
	def = !eq && depth == 0 && kp_pmu_valid_name(term) ? kp_pmu_event(pmu, term) : NULL;
	if (!def) {
		kp_error("PMU '%s' has no term%s '%s' (in event '%s')", pmu, eq ? "" : " or event",
			 term, spec);
		hint_terms(pmu);
		return -EINVAL;
	}
	if (strchr(def, '?')) {
		kp_error("event '%s' of PMU '%s' needs values kprof cannot fill in: %s", term, pmu,
			 def);
		free(def);
		return -EINVAL;
	}
	err = apply_terms(pmu, def, spec, attr, depth + 1);
	free(def);
	return err;
}

/* Comma-separated terms; @depth 1 for an event's definition, which names no further events. */
static int apply_terms(const char *pmu, const char *terms, const char *spec,
		       struct perf_event_attr *attr, int depth)
{
	char *copy = kp_xstrdup(terms), *save = NULL, *tok;
	int err = 0;

	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save))
		err = apply_term(pmu, tok, spec, attr, depth);
	free(copy);
	return err;
}

int kp_pmu_parse(const char *pmu, const char *terms, const char *spec,
		 struct perf_event_attr *attr)
{
	uint32_t type;
	int err = kp_pmu_valid_name(pmu) ? kp_pmu_type(pmu, &type) : -ENOENT;

	if (err == -ENOENT) {
		kp_error("unknown PMU '%s' in event '%s'", pmu, spec);
		hint_pmus();
		return -EINVAL;
	}
	if (err) {
		kp_error("cannot read the type of PMU '%s': %s", pmu,
			 err == -EINVAL ? "malformed type file" : strerror(-err));
		return err == -EINVAL ? -EIO : err;
	}
	if (!terms[strspn(terms, ",")]) {
		kp_error("event '%s' names no term or event of PMU '%s'", spec, pmu);
		hint_terms(pmu);
		return -EINVAL;
	}
	attr->type = type;
	return apply_terms(pmu, terms, spec, attr, 0);
}
