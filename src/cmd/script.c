/* SPDX-License-Identifier: MIT */
/*
 * script.c - `kprof script`: the samples of a recording as perf script prints them, or
 * (--raw) every record, in time order, one line each.
 */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/cmd/cmd.h"
#include "src/cli/options.h"
#include "src/cli/report-opts.h"
#include "report/profile/report.h"
#include "src/record/diag.h"
#include "formats/evlist.h"
#include "formats/reader.h"
#include "formats/rec.h"
#include "formats/util.h"
#include "src/cli/fetch.h"
#include "src/cli/input.h"
#include "report/tools/script.h"
#include "report/replay/session.h"
#include "report/unwind/unwind.h"
#include "report/replay/tracepoint.h"
#include "report/base/text.h"

static const char script_usage[] =
	"usage: kprof script [-i FILE] [-F FIELDS] [--raw] [--header] [--stats] [--kallsyms]\n"
	"                    [--unwinder LIB] [--no-inline | --inline] [--no-demangle]\n"
	"\n"
	"Prints the samples of a recording in time order as perf script does, for the tools that\n"
	"read its text (stackcollapse-perf.pl, the Firefox Profiler, speedscope): a line of\n"
	"comm, tid, time, period and event, then a line per frame of its call chain, leaf first\n"
	"(address, symbol+offset, DSO), and a blank line. Stack copies (--call-graph dwarf) are\n"
	"unwound; tracepoints show their fields through the event's print format.\n"
	"\n"
	"  -i, --input FILE   recording to read (default kprof.data)\n"
	"  -F, --fields LIST  the fields to show, as perf's: comm,tid,pid,time,cpu,event,ip,sym,\n"
	"                     symoff,dso,period,trace; \"trace:LIST\" for tracepoints only,\n"
	"                     \"+F,-F\" to add to or take from the defaults\n"
	"  -D, --raw          every record, one line each, as recorded: comm, tid, cpu, time\n"
	"                     (seconds of CLOCK_MONOTONIC), then the record; a sample's call chain\n"
	"                     has its kernel and user parts after [kernel] and [user]\n"
	"      --header       print the recording's events and metadata instead of the records\n"
	"      --stats        print the recording's final statistics instead of the records\n"
	"      --kallsyms     print the kernel symbols stored in the recording, by address\n"
	"      --unwinder LIB unwind stack copies with libdw (the default) or libunwind\n"
	"      --no-inline    do not show inlined functions as frames of their own\n"
	"      --inline       show them also where only a separate debug file has them\n"
	"                     (libc6-dbg, -dbgsym packages): slower, its DWARF is inflated\n"
	"      --no-demangle  show C++ and Rust names as they are in the binary\n"
	"  -h, --help         this text\n";

struct script {
	struct kp_session *s;
	struct kp_tp *tp;		/* tracepoint decoder, from the recording's formats */
	uint64_t kallsyms_bytes;
	struct kp_rec_ring_stats *rings;
	size_t nr_rings, rings_cap;
	bool header, show_stats, show_kallsyms;
	char *kallsyms;		/* --kallsyms: the stored lines, concatenated */
	size_t kallsyms_cap;
	FILE *out;
	bool raw;		/* --raw: the record dump */
	struct kp_script_fields fields;	/* -F */
	struct kp_script text;	/* perf's text, set up at the first sample */
	bool text_started;
	struct kp_dso_opts dso;	/* --no-inline, --no-demangle */
	enum kp_unwind_lib unwinder_lib;	/* --unwinder */
	struct kp_unwinder *unwinder;	/* made for the first sample with a stack copy */
	uint64_t *chain;		/* its call chain, KP_UNWIND_CHAIN_MAX entries */
};


static const char *comm_of(struct script *sc, uint32_t pid, uint32_t tid)
{
	const struct kp_thread *t = kp_model_thread(&sc->s->model, pid, tid);

	return t->comm ? kp_strtab_get(&sc->s->strs, t->comm) : "-";
}

static void print_prefix(struct script *s, const struct kp_sample *id)
{
	uint64_t time = id->time;

	if (id->sample_type & PERF_SAMPLE_TID) {
		kp_text_put(s->out, 16, comm_of(s, id->pid, id->tid));
		fprintf(s->out, " %7u", id->tid);
	} else {
		fprintf(s->out, "%16s %7s", "-", "-");
	}
	if (id->sample_type & PERF_SAMPLE_CPU)
		fprintf(s->out, " [%03u]", id->cpu);
	if (id->sample_type & PERF_SAMPLE_TIME)
		fprintf(s->out, " %" PRIu64 ".%06" PRIu64 ":", time / 1000000000,
			time % 1000000000 / 1000);
}

static void print_callchain(struct script *s, const struct kp_sample *smp)
{
	for (uint64_t i = 0; i < smp->nr_callchain; i++) {
		uint64_t ip = smp->callchain[i];
		if (ip == PERF_CONTEXT_KERNEL)
			fputs(" [kernel]", s->out);
		else if (ip == PERF_CONTEXT_USER)
			fputs(" [user]", s->out);
		else if (ip >= PERF_CONTEXT_MAX)
			fprintf(s->out, " [context %" PRIx64 "]", ip);
		else
			fprintf(s->out, " %" PRIx64, ip);
	}
}

static const char *const text_errors[] = {
	[KP_SE_MISSING] = "its samples do not have it",
	[KP_SE_SYM_NO_IP] = "it needs the ip field, to look symbols up",
	[KP_SE_SYMOFF_NO_SYM] = "it needs the sym field",
};

/* What on_text_sample() stops the replay with: the error is said. */
#define TEXT_FAILED 2

/* The event list is final at the first sample: -F is checked against it then. */
static int text_start(struct script *s, struct kp_session *ss)
{
	const char *field = NULL;
	size_t ev = 0;
	int rc = kp_script_start(&s->text, ss, s->tp, s->unwinder_lib, &s->fields, s->out, &ev,
				 &field);

	s->text_started = true;
	if (rc)
		kp_error("script: cannot print field '%s' of event '%s': %s", field,
			 ss->evl.ev[ev].name, text_errors[-rc]);
	return rc;
}

static int on_text_sample(void *ctx, struct kp_session *ss, const struct kp_evsel *ev,
			  const struct kp_sample *smp, const struct kp_rec_header *rec,
			  struct kp_thread *t)
{
	struct script *s = ctx;

	if (!s->text_started && text_start(s, ss))
		return TEXT_FAILED;
	kp_script_sample(&s->text, (size_t)(ev - ss->evl.ev), smp, rec->misc, t);
	return 0;
}

static int on_sample(void *ctx, struct kp_session *ss, const struct kp_evsel *ev,
		     const struct kp_sample *smp, const struct kp_rec_header *rec,
		     struct kp_thread *t)
{
	struct script *s = ctx;
	struct kp_sample joined;

	(void)rec;
	print_prefix(s, smp);
	if (smp->sample_type & PERF_SAMPLE_PERIOD)
		fprintf(s->out, " %10" PRIu64, smp->period);
	fputc(' ', s->out);
	kp_text_put(s->out, 0, ev->name);
	fputc(':', s->out);
	if (smp->sample_type & PERF_SAMPLE_IP)
		fprintf(s->out, " %" PRIx64, smp->ip);
	if (smp->sample_type & PERF_SAMPLE_ADDR)
		fprintf(s->out, " addr %" PRIx64, smp->addr);
	if (smp->sample_type & PERF_SAMPLE_RAW) {
		char buf[4096];
		if (s->tp && !kp_tp_format(s->tp, smp->raw, smp->raw_size, buf, sizeof(buf))) {
			fputc(' ', s->out);
			kp_text_put(s->out, 0, buf);
		} else {
			fprintf(s->out, " raw %u bytes", smp->raw_size);
		}
	}
	if ((smp->sample_type & PERF_SAMPLE_STACK_USER) && smp->stack_dyn_size) {
		if (!s->unwinder) {
			s->unwinder = kp_unwinder_new(ss, s->unwinder_lib);
			s->chain = kp_xcalloc(KP_UNWIND_CHAIN_MAX, sizeof(*s->chain));
		}
		smp = kp_unwind_join(s->unwinder, smp, t, &joined, s->chain, KP_UNWIND_CHAIN_MAX);
	}
	if (smp->sample_type & PERF_SAMPLE_CALLCHAIN) {
		fputs(" callchain:", s->out);
		print_callchain(s, smp);
	}
	fputc('\n', s->out);
	return 0;
}

static void print_mmap(struct script *s, const struct kp_rec_header *rec, const struct kp_mmap *m)
{
	if (rec->type == PERF_RECORD_MMAP) {
		fprintf(s->out, " MMAP %u/%u: [%" PRIx64 "(%" PRIx64 ") @ %" PRIx64 "]: ", m->pid,
			m->tid, m->addr, m->len, m->pgoff);
		kp_text_put(s->out, 0, m->filename);
		return;
	}
	fprintf(s->out, " MMAP2 %u/%u: [%" PRIx64 "(%" PRIx64 ") @ %" PRIx64, m->pid, m->tid,
		m->addr, m->len, m->pgoff);
	if (m->has_build_id) {
		fputs(" build-id ", s->out);
		for (unsigned i = 0; i < m->build_id_size; i++)
			fprintf(s->out, "%02x", m->build_id[i]);
	} else {
		fprintf(s->out, " %02x:%02x %" PRIu64, m->maj, m->min, m->ino);
	}
	fprintf(s->out, "]: prot %x ", m->prot);
	kp_text_put(s->out, 0, m->filename);
}

/* The body of a kernel record of a type script decodes; false for the others, and for a
 * record that does not parse. */
static bool print_known(struct script *s, const struct kp_rec_header *rec)
{
	union {
		struct kp_mmap mmap;
		struct kp_comm comm;
		struct kp_task task;
		struct kp_lost lost;
	} v;

	switch (rec->type) {
	case PERF_RECORD_COMM:
		if (kp_rec_parse_comm(rec, rec->size, &v.comm))
			return false;
		fprintf(s->out, " COMM%s %u/%u: ", rec->misc & PERF_RECORD_MISC_COMM_EXEC ? " exec" : "",
			v.comm.pid, v.comm.tid);
		kp_text_put(s->out, 0, v.comm.comm);
		return true;
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_MMAP:
		if (kp_rec_parse_mmap(rec, rec->size, &v.mmap))
			return false;
		print_mmap(s, rec, &v.mmap);
		return true;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (kp_rec_parse_task(rec, rec->size, &v.task))
			return false;
		fprintf(s->out, " %s(%u:%u):(%u:%u)",
			rec->type == PERF_RECORD_FORK ? "FORK" : "EXIT", v.task.pid, v.task.tid,
			v.task.ppid, v.task.ptid);
		return true;
	case PERF_RECORD_LOST:
		if (kp_rec_parse_lost(rec, rec->size, &v.lost))
			return false;
		fprintf(s->out, " LOST %" PRIu64 " samples", v.lost.lost);
		return true;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		fprintf(s->out, " %s", rec->type == PERF_RECORD_THROTTLE ? "THROTTLE" : "UNTHROTTLE");
		return true;
	default:
		return false;
	}
}

/* The body of a non-sample record, after the comm/tid/cpu/time prefix. */
static void print_side(struct script *s, const struct kp_rec_header *rec)
{
	if (!print_known(s, rec))
		fprintf(s->out, " %s (%u bytes)", kp_rec_info_of(rec->type)->name, rec->size);
	fputc('\n', s->out);
}

static int on_side(void *ctx, struct kp_session *ss, const struct kp_evsel *ev,
		   const struct kp_rec_header *rec, const struct kp_sample *id)
{
	struct script *s = ctx;

	(void)ss;
	(void)ev;
	print_prefix(s, id);
	print_side(s, rec);
	return 0;
}

static void keep_ring_stats(struct script *s, const struct kp_rec_header *rec)
{
	KP_GROW(s->rings, s->rings_cap, s->nr_rings + 1);
	memcpy(&s->rings[s->nr_rings++], rec, sizeof(*s->rings));
}

static void print_attr(struct script *s, const struct kp_rec_header *rec)
{
	struct kp_attr_view v;

	kp_rec_attr_view(rec, &v);
	fprintf(s->out, "# event %u: ", v.index);
	kp_text_put(s->out, 0, v.name);
	if (strcmp(v.name, v.spec)) {
		fputs(" (asked for '", s->out);
		kp_text_put(s->out, 0, v.spec);
		fprintf(s->out, "'%s)", v.fallback ? ", not supported here" : "");
	}
	fprintf(s->out, ", type %u config %#llx, %s %llu, sample_type %#llx%s%s, %u ids\n",
		v.attr.type, (unsigned long long)v.attr.config, v.attr.freq ? "freq" : "period",
		(unsigned long long)v.attr.sample_period, (unsigned long long)v.attr.sample_type,
		v.attr.exclude_user ? ", kernel only" : "", v.attr.exclude_kernel ? ", user only" : "",
		v.nr_ids);
}

static bool records_wanted(const struct script *s)
{
	return !s->header && !s->show_stats && !s->show_kallsyms;
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The stored lines sorted by address: all addresses have 16 hex digits, so text order works. */
static void print_kallsyms(struct script *s)
{
	char **lines = NULL, *p = s->kallsyms, *end = s->kallsyms + s->kallsyms_bytes;
	size_t nr = 0, cap = 0;

	if (!p)
		return;
	*end = '\0';
	for (char *nl; p < end; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = end;
		*nl = '\0';
		KP_GROW(lines, cap, nr + 1);
		lines[nr++] = p;
	}
	if (nr > 1)
		qsort(lines, nr, sizeof(*lines), cmp_line);
	for (size_t i = 0; i < nr; i++) {
		kp_text_put(s->out, 0, lines[i]);
		fputc('\n', s->out);
	}
	free(lines);
}

static int on_own(void *ctx, struct kp_session *ss, const struct kp_rec_header *rec)
{
	struct script *s = ctx;
	const char *key, *value;

	(void)ss;
	switch (rec->type) {
	case KP_REC_ATTR:
		if (s->header)
			print_attr(s, rec);
		return 0;
	case KP_REC_META:
		kp_rec_meta_view(rec, &key, &value);
		if (s->header) {
			fputs("# ", s->out);
			kp_text_put(s->out, 0, key);
			fputs(": ", s->out);
			kp_text_put(s->out, 0, value);
			fputc('\n', s->out);
		}
		return 0;
	case KP_REC_KALLSYMS: {
		const struct kp_rec_kallsyms *k = (const void *)rec;
		if (s->show_kallsyms) {
			KP_GROW(s->kallsyms, s->kallsyms_cap, s->kallsyms_bytes + k->len + 1);
			memcpy(s->kallsyms + s->kallsyms_bytes, k + 1, k->len);
		}
		s->kallsyms_bytes += k->len;
		return 0;
	}
	case KP_REC_RING_STATS:
		keep_ring_stats(s, rec);
		return 0;
	case KP_REC_TP_FORMAT: {
		const struct kp_rec_tp_format *f = (const void *)rec;
		const char *sys = (const char *)(f + 1);
		if (!s->tp)
			s->tp = kp_tp_new();
		if (kp_tp_add_format(s->tp, sys, sys + f->sys_len, f->fmt_len))
			kp_warn("cannot parse the format of tracepoint %llu of '%s'",
				(unsigned long long)f->id, sys);
		return 0;
	}
	default:
		return 0;
	}
}

static void print_stats(struct script *s, const struct kp_reader *r)
{
	const struct kp_rec_stats *st = &s->s->stats;

	fprintf(s->out, "# file: %llu bytes in %llu chunks, %llu bytes of records (%.1fx)\n",
		(unsigned long long)r->off, (unsigned long long)r->chunks,
		(unsigned long long)r->raw_bytes, r->off ? (double)r->raw_bytes / r->off : 0.0);
	if (!s->s->have_stats) {
		fprintf(s->out, "# no final statistics: the recording did not finish "
				"(killed, or still running)\n");
		return;
	}
	fprintf(s->out,
		"# samples: %llu\n# lost: %llu (LOST records %llu, read() at the end %llu)\n"
		"# kernel records: %llu\n# throttles: %llu\n# ring bytes: %llu\n# drain rounds: %llu\n",
		(unsigned long long)st->samples, (unsigned long long)st->lost,
		(unsigned long long)st->lost_records, (unsigned long long)st->lost_read,
		(unsigned long long)st->records, (unsigned long long)st->throttles,
		(unsigned long long)st->ring_bytes, (unsigned long long)st->wakeups);
	for (size_t i = 0; i < s->nr_rings; i++)
		fprintf(s->out, "# ring cpu %d: %llu samples, %llu lost, %llu bytes\n",
			s->rings[i].cpu, (unsigned long long)s->rings[i].samples,
			(unsigned long long)(s->rings[i].lost_records > s->rings[i].lost_read
						     ? s->rings[i].lost_records
						     : s->rings[i].lost_read),
			(unsigned long long)s->rings[i].bytes);
	fprintf(s->out, "# kallsyms snapshot: %llu bytes\n", (unsigned long long)s->kallsyms_bytes);
	if (s->s->have_unwind_stats)
		kp_report_print_unwind(s->out, &s->s->unwind_stats, &s->s->unwind_stops,
				       &s->s->strs);
}

static int run(struct script *s, const char *path)
{
	static const struct kp_session_ops all = {
		.own = on_own, .sample = on_sample, .side = on_side,
	};
	static const struct kp_session_ops text = { .own = on_own, .sample = on_text_sample };
	static const struct kp_session_ops own_only = { .own = on_own };
	struct kp_session ss;
	int rc = kp_input_session(&ss, path, &s->dso);

	if (rc) {
		kp_session_release(&ss);
		return rc;
	}
	s->s = &ss;
	rc = kp_session_run(&ss, !records_wanted(s) ? &own_only : s->raw ? &all : &text, s);
	if (rc == TEXT_FAILED) {
		rc = 1;
	} else {
		if (s->show_stats)
			print_stats(s, &ss.r);
		if (s->show_kallsyms)
			print_kallsyms(s);
		rc = kp_input_replayed(&ss, path);
	}
	kp_script_release(&s->text);
	kp_unwinder_free(s->unwinder);
	free(s->chain);
	kp_session_release(&ss);
	kp_tp_free(s->tp);
	free(s->rings);
	free(s->kallsyms);
	return rc;
}

#define FIELD_NAMES "comm,tid,pid,time,cpu,event,ip,sym,symoff,dso,period,trace"

static const struct option long_opts[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "header", no_argument, NULL, 'H' },
	{ "stats", no_argument, NULL, 'S' },
	{ "kallsyms", no_argument, NULL, 'K' },
	{ "unwinder", required_argument, NULL, 'U' },
	{ "fields", required_argument, NULL, 'F' },
	{ "raw", no_argument, NULL, 'D' },
	{ "no-inline", no_argument, NULL, 'N' },
	{ "inline", no_argument, NULL, 'I' },
	{ "no-demangle", no_argument, NULL, 'M' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int cmd_script(int argc, char **argv)
{
	const char *path = "kprof.data", *bad;
	struct script s;
	int c, rc;

	memset(&s, 0, sizeof(s));
	s.out = stdout;
	s.dso.inline_frames = true;
	s.dso.demangle = true;
	kp_script_fields_init(&s.fields);
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:F:Dh", long_opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			path = optarg;
			break;
		case 'F':
			if (kp_script_fields_parse(&s.fields, optarg, &bad))
				return kp_usage_error("script", "-F: no field '%.*s' (fields: %s)",
						      (int)strcspn(bad, ","), bad, FIELD_NAMES);
			break;
		case 'D':
			s.raw = true;
			break;
		case 'N':
			s.dso.inline_frames = false;
			break;
		case 'I':
			s.dso.inline_frames = s.dso.inline_debug = true;
			break;
		case 'M':
			s.dso.demangle = false;
			break;
		case 'H':
			s.header = true;
			break;
		case 'S':
			s.show_stats = true;
			break;
		case 'K':
			s.show_kallsyms = true;
			break;
		case 'U':
			if (kp_parse_unwinder("script", optarg, &s.unwinder_lib))
				return 2;
			break;
		case 'h':
			return kp_cmd_help(script_usage);
		default:
			return 2;
		}
	}
	if (optind < argc)
		return kp_usage_error("script", "unexpected argument '%s'", argv[optind]);
	s.dso.debuginfod = kp_fetch_client();
	rc = run(&s, path);
	kp_debuginfod_free(s.dso.debuginfod);
	return rc;
}
