/* SPDX-License-Identifier: MIT */
/*
 * cmd-list.c - `kprof list [GLOB]`: the events -e takes, marked where this machine lacks them;
 * the tracepoints in tracefs; the PMUs in sysfs with their format terms; the probe syntaxes.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "diag.h"
#include "evspec.h"
#include "formats/util.h"
#include "perf.h"
#include "tracefs.h"

#define PMU_DIR "/sys/bus/event_source/devices"

static const char list_usage[] =
	"usage: kprof list [GLOB]\n"
	"\n"
	"Lists the events kprof stat and kprof record take with -e: hardware, software and\n"
	"hardware cache events (marked where this machine does not have them), raw events,\n"
	"tracepoints (readable by root), the kernel's PMUs with their format terms, and the\n"
	"probe syntaxes. GLOB (a shell pattern, e.g. 'sched:*' or '*cache*') keeps the names\n"
	"that match.\n"
	"\n"
	"  -h, --help   this text\n";

/* Syntaxes documented here; -e does not take the probes yet. */
static const struct {
	const char *syntax, *what;
} syntaxes[] = {
	{ "rNNNN", "raw PMU event NNNN (hex), as the CPU manual numbers it" },
	{ "uprobe:PATH:SYMBOL[+OFF]", "user-space probe on SYMBOL in PATH; -e: not yet" },
	{ "kprobe:FUNC[+OFF]", "kernel probe on FUNC; -e: not yet" },
	{ "mem:ADDR[:rwx]", "breakpoint on ADDR: read, write, execute; -e: not yet" },
};

/* What one listing works with: the glob, and whether a section's heading was printed. */
struct lister {
	const char *glob;
	const char *section; /* printed before the section's first line, then NULL */
	size_t shown;
};

static bool matches(const struct lister *l, const char *name)
{
	return !l->glob || fnmatch(l->glob, name, 0) == 0;
}

static void section(struct lister *l, const char *heading)
{
	l->section = heading;
}

static void line(struct lister *l, const char *name, const char *tag)
{
	if (l->section) {
		printf("%s%s:\n", l->shown ? "\n" : "", l->section);
		l->section = NULL;
	}
	if (tag)
		printf("  %-50s [%s]\n", name, tag);
	else
		printf("  %s\n", name);
	l->shown++;
}

/* Can this thread count @e? Counting, user space only, so that no privilege is needed. */
static const char *support(const struct kp_evspec_name *e)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = e->type;
	a.config = e->config;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = kp_perf_open(&a, 0, -1, -1);
	if (fd >= 0) {
		close(fd);
		return "";
	}
	if (kp_perf_is_unsupported(fd))
		return ", not supported here";
	return fd == -EACCES || fd == -EPERM ? ", not permitted here" : "";
}

static void list_named(struct lister *l, uint32_t type, const char *heading)
{
	size_t nr;
	const struct kp_evspec_name *names = kp_evspec_names(&nr);
	char name[128], tag[96];

	section(l, heading);
	for (size_t i = 0; i < nr; i++) {
		const struct kp_evspec_name *e = &names[i];
		if (e->type != type || !(matches(l, e->name) || (e->alias && matches(l, e->alias))))
			continue;
		snprintf(name, sizeof(name), "%s%s%s", e->name, e->alias ? " OR " : "",
			 e->alias ? e->alias : "");
		snprintf(tag, sizeof(tag), "%s%s", kp_evspec_type_name(type), support(e));
		line(l, name, tag);
	}
}

static void list_tracepoints(struct lister *l)
{
	struct kp_tracepoint *tps = NULL;
	struct kp_tracefs t;
	size_t nr = 0;
	char name[512], why[512];
	int err = kp_tracefs_open(&t);

	section(l, "tracepoints");
	if (!err)
		err = kp_tracefs_events(&t, "*", "*", false, &tps, &nr);
	if (err) {
		/* say why only where tracepoints could have matched */
		if (!l->glob || strchr(l->glob, ':')) {
			snprintf(why, sizeof(why), "(none listed: %s; %s)",
				 kp_tracefs_strerror(&t, err, name, sizeof(name)),
				 KP_TRACEFS_PERM_HINT);
			line(l, why, NULL);
		}
		return;
	}
	for (size_t i = 0; i < nr; i++) {
		snprintf(name, sizeof(name), "%s:%s", tps[i].system, tps[i].name);
		if (matches(l, name))
			line(l, name, "tracepoint");
	}
	kp_tracefs_free(tps, nr);
}

/* A small sysfs file's first line, without the newline; "" when it cannot be read. */
static void read_line(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, len - 1) : -1;

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

struct term {
	char text[160]; /* "retprobe=config:0" */
};

/* Order terms by their field, then by their first bit: config:0 before config:32-63. */
static int cmp_term(const void *a, const void *b)
{
	const char *x = strchr(((const struct term *)a)->text, '=');
	const char *y = strchr(((const struct term *)b)->text, '=');
	size_t fx = strcspn(x, ":"), fy = strcspn(y, ":");
	int c = strncmp(x, y, fx < fy ? fx : fy);

	if (c || fx != fy)
		return c ? c : fx < fy ? -1 : 1;
	return atoi(x + fx + (x[fx] == ':')) - atoi(y + fy + (y[fy] == ':'));
}

/* "retprobe=config:0 ref_ctr_offset=config:32-63", from the PMU's format/ directory */
static void format_terms(const char *pmu, char *out, size_t len)
{
	char path[512], value[128];
	struct term *terms = NULL;
	size_t nr = 0, o = 0;
	struct dirent *d;
	DIR *dir;

	out[0] = '\0';
	snprintf(path, sizeof(path), "%s/%s/format", PMU_DIR, pmu);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/format/%s", PMU_DIR, pmu, d->d_name);
		read_line(path, value, sizeof(value));
		terms = kp_xrealloc(terms, (nr + 1) * sizeof(*terms));
		snprintf(terms[nr++].text, sizeof(terms->text), "%.60s=%.90s", d->d_name, value);
	}
	closedir(dir);
	if (nr)
		qsort(terms, nr, sizeof(*terms), cmp_term);
	for (size_t i = 0; i < nr && o < len; i++)
		o += snprintf(out + o, len - o, "%s%s", i ? " " : "", terms[i].text);
	free(terms);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list_pmus(struct lister *l)
{
	char **pmus = NULL, path[512], type[32], terms[1024], name[1200];
	size_t nr = 0;
	struct dirent *d;
	DIR *dir = opendir(PMU_DIR);

	if (!dir)
		return;
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.' && matches(l, d->d_name)) {
			pmus = kp_xrealloc(pmus, (nr + 1) * sizeof(*pmus));
			pmus[nr++] = kp_xstrdup(d->d_name);
		}
	closedir(dir);
	if (nr)
		qsort(pmus, nr, sizeof(*pmus), cmp_str);
	section(l, "PMUs (" PMU_DIR ") and their format terms");
	for (size_t i = 0; i < nr; i++) {
		snprintf(path, sizeof(path), "%s/%.200s/type", PMU_DIR, pmus[i]);
		read_line(path, type, sizeof(type));
		format_terms(pmus[i], terms, sizeof(terms));
		snprintf(name, sizeof(name), "%.200s:%s%s", pmus[i], terms[0] ? " " : "", terms);
		snprintf(path, sizeof(path), "PMU type %s", type);
		line(l, name, path);
		free(pmus[i]);
	}
	free(pmus);
}

static void list_syntaxes(struct lister *l)
{
	section(l, "raw events and probes (syntax)");
	for (size_t i = 0; i < ARRAY_SIZE(syntaxes); i++)
		if (matches(l, syntaxes[i].syntax))
			line(l, syntaxes[i].syntax, syntaxes[i].what);
}

static const struct option long_opts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int cmd_list(int argc, char **argv)
{
	struct lister l = { NULL, NULL, 0 };
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", long_opts, NULL)) != -1) {
		if (c == 'h')
			return kp_cmd_help(list_usage);
		return 2;
	}
	if (argc - optind > 1)
		return kp_usage_error("list", "too many arguments: one GLOB at most");
	l.glob = optind < argc ? argv[optind] : NULL;
	list_named(&l, PERF_TYPE_HARDWARE, "hardware events");
	list_named(&l, PERF_TYPE_SOFTWARE, "software events");
	list_named(&l, PERF_TYPE_HW_CACHE, "hardware cache events");
	list_tracepoints(&l);
	list_pmus(&l);
	list_syntaxes(&l);
	if (!l.shown)
		return kp_error("no event matches '%s'", l.glob);
	return 0;
}
