/* SPDX-License-Identifier: MIT */
#include "input.h"

#include <stdio.h>
#include <string.h>

#include "src/record/diag.h"
#include "formats/perfdata.h"
#include "formats/util.h"

int kp_input_open(struct kp_reader *r, const char *path)
{
	return kp_input_explain(r, path, kp_reader_open(r, path));
}

int kp_input_explain(const struct kp_reader *r, const char *path, int err)
{
	if (!err)
		return 0;
	if (err == -KP_EVERSION) {
		kp_error("'%s' is format version %u, newer than this kprof reads (%u)", path,
			 r->hdr.version, KP_FORMAT_VERSION);
		kp_hint("upgrade kprof to read it");
	} else if (r->why) {
		kp_error("cannot read '%s': %s at offset %llu: %s", path, kp_strerror(err),
			 (unsigned long long)r->err_off, r->why);
	} else {
		kp_error("cannot read '%s': %s", path, kp_strerror(err));
	}
	return 1;
}

int kp_input_error(const struct kp_reader *r, const char *path)
{
	if (!r->err)
		return 0;
	if (r->skipped)
		kp_error("'%s': %s in the chunk at offset %llu: skipped it%s, %llu records in all%s",
			 path, kp_strerror(r->skip_err), (unsigned long long)r->skip_off,
			 r->skipped > 1 ? " and later damaged ones" : "",
			 (unsigned long long)r->skipped_records,
			 r->skipped_uncounted ? " and those of chunks whose header was damaged" : "");
	if (r->err == -KP_ETRUNCATED && r->salvaged)
		kp_error("'%s': truncated at offset %llu after %llu records, %llu of them recovered "
			 "from the torn last chunk", path, (unsigned long long)r->err_off,
			 (unsigned long long)r->nrec, (unsigned long long)r->salvaged);
	else if (r->err == -KP_ETRUNCATED)
		kp_error("'%s': truncated at offset %llu after %llu records%s%s", path,
			 (unsigned long long)r->err_off, (unsigned long long)r->nrec,
			 r->why ? ": " : "", r->why ? r->why : "");
	else if (!r->skipped || r->err != r->skip_err || r->err_off != r->skip_off)
		kp_error("'%s': %s at offset %llu after %llu records%s%s", path,
			 kp_strerror(r->err), (unsigned long long)r->err_off,
			 (unsigned long long)r->nrec, r->why ? ": " : "", r->why ? r->why : "");
	return 1;
}

/* What reading a perf.data left out, and why its kernel frames may stay addresses. */
static void perfdata_replayed(const struct kp_session *s, const char *path)
{
	const struct kp_perfdata_stats *st = kp_perfdata_stats(s->r.perf);

	if (!st)
		return;
	if (st->bad_records)
		kp_warn("'%s': %llu malformed kernel records were skipped, the first at offset %llu",
			path, (unsigned long long)st->bad_records, (unsigned long long)st->bad_off);
	if (st->bad_features)
		kp_warn("'%s': %llu perf.data header features were unreadable and ignored, the "
			"first at offset %llu", path, (unsigned long long)st->bad_features,
			(unsigned long long)st->bad_feature_off);
	if (s->ksyms.from || s->ksyms.loader) /* named them, or none needed naming */
		return;
	if (s->live_release)
		kp_warn("'%s' was recorded on kernel %s and this machine runs %s: perf.data stores "
			"no kernel symbols%s, so kernel frames stay addresses", path,
			s->kernel_release ? s->kernel_release : "(unknown)", s->live_release,
			s->ksyms.dropped ? " and the copy in perf's build-id cache is of another "
			"layout (boot)" : " and perf's build-id cache has no copy of its table");
	else if (s->ksyms.dropped)
		kp_warn("'%s': kernel frames stay addresses: perf.data stores no kernel symbols, and "
			"%s places the kernel elsewhere than the recording did (another boot)", path,
			s->ksyms.dropped);
}

int kp_input_replayed(const struct kp_session *s, const char *path)
{
	if (!s->evl.nr)
		kp_input_no_events(path);
	perfdata_replayed(s, path);
	if (s->r.nr_unknown)
		kp_warn("'%s': skipped %llu records of types this kprof does not know", path,
			(unsigned long long)s->r.nr_unknown);
	if (s->bad_samples)
		kp_warn("'%s': %llu samples were shorter than their fields and were skipped", path,
			(unsigned long long)s->bad_samples);
	if (s->late_attrs)
		kp_warn("'%s': %llu event descriptions (ATTR records) came after the first sample, "
			"the first in the chunk at offset %llu: ignored, as no recorder writes them "
			"there", path, (unsigned long long)s->late_attrs,
			(unsigned long long)s->late_attr_off);
	if (s->no_event) {
		kp_warn("'%s': %llu records belong to no recorded event and were skipped", path,
			(unsigned long long)s->no_event);
		kp_hint("samples of another tool's event id are the kernel's, made while that tool "
			"recorded the same software event or tracepoint: kprof record gives them "
			"back to their event (kprof-record(1), \"The summary\")");
	}
	return kp_input_error(&s->r, path) | !s->evl.nr;
}

int kp_input_no_events(const char *path)
{
	kp_error("'%s' has no events", path); /* none described before the end, or the damage */
	return 1;
}

int kp_input_session(struct kp_session *s, const char *path, const struct kp_dso_opts *dso)
{
	return kp_input_explain(&s->r, path, kp_session_open(s, path, dso));
}

int kp_input_build(const struct kp_report_opts *o, struct kp_report *r)
{
	int rc = kp_report_build(o, r);

	if (rc == -KP_REPORT_EOPEN)
		return kp_input_explain(&r->s.r, o->input, r->open_err);
	if (rc == -KP_REPORT_ENOEVENT) {
		kp_error("'%s' has no event '%s'", o->input, o->event_name);
		for (size_t e = 0; e < r->s.evl.nr; e++)
			kp_hint("it has '%s'", r->s.evl.ev[e].name);
		return 1;
	}
	if (rc == -KP_REPORT_EEMPTY) /* said with what the replay found: a cut, a damaged chunk */
		return kp_input_replayed(&r->s, o->input);
	if (rc == -KP_REPORT_ENOWALL) {
		kp_error("'%s' cannot give a wall-clock profile: it needs the off-CPU intervals and "
			 "the CPU samples of a clock (cpu-clock or task-clock)", o->input);
		kp_hint("record with: kprof record --off-cpu -F 999 -g -- COMMAND");
		return 1;
	}
	if (rc == -KP_REPORT_ENOWAKERS) {
		kp_error("'%s' cannot show who woke its threads: it needs the off-CPU intervals and "
			 "the samples of sched:sched_waking", o->input);
		kp_hint("record with: kprof record --off-cpu --wakers -g -- COMMAND (as root)");
		return 1;
	}
	if (rc == -KP_REPORT_ENOLATENCY) {
		kp_error("'%s' cannot give a latency profile: it needs the switch records that say "
			 "how many threads of a process run at once", o->input);
		kp_hint("record with: kprof record --latency -g -- COMMAND (or --off-cpu)");
		return 1;
	}
	return 0;
}

int kp_is_recording(const char *path)
{
	FILE *f = fopen(path, "rb");
	char magic[8];
	int yes = f && fread(magic, 1, sizeof(magic), f) == sizeof(magic) &&
		  (!memcmp(magic, KP_FILE_MAGIC, sizeof(magic)) || kp_perfdata_magic(magic));

	if (f)
		fclose(f);
	return yes;
}
