/* SPDX-License-Identifier: MIT */
/*
 * list.c - `kprof list [GLOB]`: the events -e takes, marked where this machine lacks them;
 * the tracepoints in tracefs; the PMUs in sysfs with their format terms and named events;
 * the syntaxes of probes, PMU terms and groups. `kprof list --syscalls [GLOB]`: the system
 * calls that kprof trace -e names.
 */
#include "config.h"

#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/replay/syscall.h"
#include "src/cmd/cmd.h"
#include "src/cli/options.h"
#include "src/record/diag.h"
#include "src/record/evspec.h"
#include "formats/util.h"
#include "src/record/perf.h"
#include "src/record/pmu.h"
#include "src/record/probe-elf.h"
#include "src/record/sdt.h"
#include "src/record/tracefs.h"

#define PMU_DIR KP_PMU_DIR

static const char list_usage[] =
	"usage: kprof list [GLOB]\n"
	"       kprof list --syscalls [GLOB]\n"
	"       kprof list --sdt BINARY [GLOB]\n"
	"\n"
	"Lists the events kprof stat and kprof record take with -e: hardware, software and\n"
	"hardware cache events (marked where this machine does not have them), raw events,\n"
	"tracepoints (readable by root), the kernel's PMUs with their format terms and their\n"
	"named events (PMU/EVENT/), and the syntaxes of raw events, probes, breakpoints, PMU\n"
	"terms and groups. GLOB (a shell pattern, e.g. 'sched:*' or '*cache*') keeps the\n"
	"names that match.\n"
	"\n"
	"      --syscalls   list the system calls kprof trace -e takes instead\n"
	"      --sdt BINARY list the SDT probes of BINARY (usdt:BINARY:PROVIDER:NAME) instead\n"
	"  -h, --help       this text\n";

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
	size_t nr, o = 0;
	char **names = kp_pmu_list(pmu, "format", &nr);
	struct term *terms = kp_xcalloc(nr ? nr : 1, sizeof(*terms));

	out[0] = '\0';
	for (size_t i = 0; i < nr; i++) {
		char *value = kp_pmu_format(pmu, names[i]);
		snprintf(terms[i].text, sizeof(terms->text), "%.60s=%.90s", names[i],
			 value ? value : "");
		free(value);
	}
	if (nr)
		qsort(terms, nr, sizeof(*terms), cmp_term);
	for (size_t i = 0; i < nr && o < len; i++)
		o += snprintf(out + o, len - o, "%s%s", i ? " " : "", terms[i].text);
	free(terms);
	kp_pmu_free_list(names, nr);
}

static void list_pmus(struct lister *l)
{
	size_t nr;
	char **pmus = kp_pmu_list(NULL, NULL, &nr), type[32], terms[1024], name[1200];

	section(l, "PMUs (" PMU_DIR ") and their format terms");
	for (size_t i = 0; i < nr; i++) {
		uint32_t t;
		if (!matches(l, pmus[i]))
			continue;
		if (kp_pmu_type(pmus[i], &t) == 0)
			snprintf(type, sizeof(type), "PMU type %u", t);
		else
			snprintf(type, sizeof(type), "PMU type ?");
		format_terms(pmus[i], terms, sizeof(terms));
		snprintf(name, sizeof(name), "%.200s:%s%s", pmus[i], terms[0] ? " " : "", terms);
		line(l, name, type);
	}
	kp_pmu_free_list(pmus, nr);
}

/* Every PMU's named events, as -e takes them: "msr/tsc/", with their definition. */
static void list_pmu_events(struct lister *l)
{
	size_t np, ne;
	char **pmus = kp_pmu_list(NULL, NULL, &np), name[300], tag[600];

	section(l, "PMU events (" PMU_DIR "/PMU/events)");
	for (size_t i = 0; i < np; i++) {
		char **events = kp_pmu_list(pmus[i], "events", &ne);
		for (size_t j = 0; j < ne; j++) {
			char *def;
			snprintf(name, sizeof(name), "%.140s/%.140s/", pmus[i], events[j]);
			if (!matches(l, name))
				continue;
			def = kp_pmu_event(pmus[i], events[j]);
			snprintf(tag, sizeof(tag), "%s event%s%.500s", pmus[i], def ? ": " : "",
				 def ? def : "");
			line(l, name, tag);
			free(def);
		}
		kp_pmu_free_list(events, ne);
	}
	kp_pmu_free_list(pmus, np);
}

static void list_syntaxes(struct lister *l)
{
	const char *syntax, *what;

	uint32_t type;
	bool kprobe = kp_pmu_type("kprobe", &type) == 0, uprobe = kp_pmu_type("uprobe", &type) == 0;
	char tag[256];

	section(l, "raw events, probes, PMU terms and groups (syntax)");
	for (size_t i = 0; (syntax = kp_evspec_syntax(i, &what)); i++) {
		/* marked where this kernel lacks the PMU, as the named events are */
		bool lacks = (!kprobe && strstr(syntax, "kprobe:") == syntax) ||
			     (!kprobe && strstr(syntax, "kretprobe:") == syntax) ||
			     (!uprobe && strstr(syntax, "uprobe:") == syntax) ||
			     (!uprobe && strstr(syntax, "uretprobe:") == syntax) ||
			     (!uprobe && strstr(syntax, "usdt:") == syntax);
		snprintf(tag, sizeof(tag), "%s%s", what, lacks ? "; not supported here" : "");
		if (matches(l, syntax))
			line(l, syntax, tag);
	}
}

/* The system calls of this machine's architecture, as kprof trace -e names them, by number. */
static void list_syscalls(struct lister *l)
{
	char tag[64];

	section(l, "system calls (kprof trace -e)");
	for (long nr = 0; nr < kp_syscall_max(); nr++) {
		const char *name = kp_syscall_name(nr);

		if (!name || !matches(l, name))
			continue;
		snprintf(tag, sizeof(tag), "system call %ld", nr);
		line(l, name, tag);
	}
}

/*
 * The SDT probes of @path, as perf lists them (sdt_PROVIDER:NAME), each with its arguments
 * and whether a semaphore guards it. 1 when the binary cannot be read or has none (said).
 */
static int list_sdt(struct lister *l, const char *path)
{
	struct kp_probe_elf ef;
	struct kp_sdt_probe *p = NULL;
	size_t nr = 0;
	int err = kp_probe_elf_open(NULL, path, &ef);

	if (!err && kp_sdt_read(ef.elf, &p, &nr)) {
		kp_error("the SDT notes of '%s' are malformed", path);
		err = -EINVAL;
	}
	kp_probe_elf_close(&ef);
	if (err)
		return 1;
	section(l, "SDT probes (usdt:BINARY:PROVIDER:NAME)");
	for (size_t i = 0; i < nr; i++) {
		char name[300], tag[600];
		bool again = false;
		for (size_t j = 0; j < i && !again; j++) /* a probe at several places: once */
			again = !strcmp(p[j].provider, p[i].provider) && !strcmp(p[j].name, p[i].name);
		snprintf(name, sizeof(name), "sdt_%.120s:%.120s", p[i].provider, p[i].name);
		if (again || !matches(l, name))
			continue;
		snprintf(tag, sizeof(tag), "SDT event%s%s%.400s", p[i].semaphore ? ", semaphore" : "",
			 *p[i].args ? "; arguments " : "", p[i].args);
		line(l, name, tag);
	}
	kp_sdt_free(p, nr);
	if (!nr)
		return kp_error("'%s' has no SDT probes (no .note.stapsdt section)", path);
	return 0;
}

enum { OPT_SYSCALLS = 256, OPT_SDT };

static const struct option long_opts[] = {
	{ "syscalls", no_argument, NULL, OPT_SYSCALLS },
	{ "sdt", required_argument, NULL, OPT_SDT },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int cmd_list(int argc, char **argv)
{
	struct lister l = { NULL, NULL, 0 };
	bool syscalls = false;
	const char *sdt = NULL;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", long_opts, NULL)) != -1) {
		if (c == OPT_SYSCALLS) {
			syscalls = true;
			continue;
		}
		if (c == OPT_SDT) {
			sdt = optarg;
			continue;
		}
		if (c == 'h')
			return kp_cmd_help(list_usage);
		return 2;
	}
	if (argc - optind > 1)
		return kp_usage_error("list", "too many arguments: one GLOB at most");
	l.glob = optind < argc ? argv[optind] : NULL;
	if (syscalls && sdt)
		return kp_usage_error("list", "--syscalls and --sdt list different things: one of them");
	if (sdt) {
		if (list_sdt(&l, sdt))
			return 1;
		if (!l.shown && l.glob)
			return kp_error("no SDT probe of '%s' matches '%s'", sdt, l.glob);
		return 0;
	}
	if (syscalls) {
		list_syscalls(&l);
		if (!l.shown)
			return kp_error("no system call matches '%s'", l.glob);
		return 0;
	}
	list_named(&l, PERF_TYPE_HARDWARE, "hardware events");
	list_named(&l, PERF_TYPE_SOFTWARE, "software events");
	list_named(&l, PERF_TYPE_HW_CACHE, "hardware cache events");
	list_tracepoints(&l);
	list_pmus(&l);
	list_pmu_events(&l);
	list_syntaxes(&l);
	if (!l.shown)
		return kp_error("no event matches '%s'", l.glob);
	return 0;
}
