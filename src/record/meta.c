/* SPDX-License-Identifier: MIT */
/*
 * meta.c - the facts a recording's first chunk holds beside its events: the machine, the
 * clocks, the command line, the target (META records, formats/FORMAT.md section 5), and the
 * format file of each tracepoint with the ring buffer's header files.
 */
#include "meta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "formats/util.h"
#include "tracefs.h"

void kp_meta_add_u64(struct kp_writer *w, const char *key, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	kp_writer_add_meta(w, key, buf);
}

static char *join_argv(int argc, char **argv)
{
	size_t len = 1;
	char *s;

	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = kp_xcalloc(1, len);
	for (int i = 0; i < argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

/* "@head@tail" in a new string; frees @tail. */
static char *prefix(const char *head, char *tail)
{
	char *s = kp_xmalloc(strlen(head) + strlen(tail) + 1);

	strcpy(s, head);
	strcat(s, tail);
	free(tail);
	return s;
}

void kp_meta_write(struct kp_writer *w, const struct kp_record_opts *o, size_t nr_cpus,
		   const char *kallsyms)
{
	struct utsname u;
	struct timespec rt, mono;
	char buf[64], *s;
	int argc = 0;

	uname(&u);
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	if (o->version)
		kp_writer_add_meta(w, "kprof-version", o->version);
	kp_writer_add_meta(w, "hostname", u.nodename);
	kp_writer_add_meta(w, "kernel", u.release);
	kp_writer_add_meta(w, "arch", u.machine);
	kp_meta_add_u64(w, "nr-cpus-online", nr_cpus);
	kp_meta_add_u64(w, "page-size", (uint64_t)sysconf(_SC_PAGESIZE));
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", gmtime(&rt.tv_sec));
	kp_writer_add_meta(w, "start-time", buf);
	kp_meta_add_u64(w, "start-monotonic-ns", mono.tv_sec * 1000000000ull + mono.tv_nsec);
	kp_writer_add_meta(w, "clock", "monotonic");
	s = join_argv(o->argc_all, o->argv_all);
	snprintf(buf, sizeof(buf), "kprof ");
	kp_writer_add_meta(w, "cmdline", (s = prefix(buf, s)));
	free(s);
	if (o->argv) {
		while (o->argv[argc])
			argc++;
		s = join_argv(argc, o->argv);
		kp_writer_add_meta(w, "command", s);
		free(s);
	}
	kp_writer_add_meta(w, "target", o->system_wide ? "system-wide"
					: o->argv      ? "command"
					: o->nr_pids   ? "processes"
						       : "threads");
	kp_writer_add_meta(w, "kallsyms", kallsyms);
}

/*
 * The ring buffer's header files, which perf.data keeps beside the formats (kprof convert --to
 * perf): META KP_META_HEADER_PAGE and KP_META_HEADER_EVENT. One that cannot be read is left
 * out: the conversion then writes what this kind of machine's kernels say.
 */
static void write_ring_headers(struct kp_writer *w, const struct kp_tracefs *tfs)
{
	static const char *const files[][2] = {
		{ "header_page", KP_META_HEADER_PAGE },
		{ "header_event", KP_META_HEADER_EVENT },
	};

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *text = NULL;

		if (!kp_tracefs_header(tfs, files[i][0], &text) && *text)
			kp_writer_add_meta(w, files[i][1], text);
		free(text);
	}
}

void kp_meta_write_tp_formats(struct kp_writer *w, const struct kp_evspec *evs, size_t nr_evs)
{
	struct kp_tracefs tfs;
	bool open = false;
	int err;

	for (size_t ev = 0; ev < nr_evs; ev++) {
		const struct kp_evspec *e = &evs[ev];
		char sys[256], *name, *fmt = NULL;
		if (e->attr.type != PERF_TYPE_TRACEPOINT)
			continue;
		if (!open && (err = kp_tracefs_open(&tfs)) < 0) {
			char why[256];
			kp_warn("tracepoint formats not stored (%s): 'kprof script' will show their "
				"payloads as raw bytes", kp_tracefs_strerror(&tfs, err, why, sizeof(why)));
			return;
		}
		if (!open)
			write_ring_headers(w, &tfs);
		open = true;
		/* the system it is recorded under: a probe's is perf's name, not its tracefs group */
		snprintf(sys, sizeof(sys), "%s", e->name);
		name = strchr(sys, ':');
		if (!name)
			continue;
		*name = '\0';
		if ((err = kp_evspec_tp_format(e, &tfs, &fmt)) < 0)
			kp_warn("cannot read the format of '%s': %s: its fields will not be decoded",
				e->spec, strerror(-err));
		else if (kp_writer_add_tp_format(w, e->attr.config, sys, fmt, strlen(fmt)))
			kp_warn("the format of '%s' is too large to store: its fields will not be "
				"decoded", e->spec);
		free(fmt);
	}
}
