/* SPDX-License-Identifier: MIT */
/*
 * unwound.c - a recording written again with its stack copies unwound into call chains, through
 * the stage `kprof record --call-graph dwarf` unwinds with (online.h): `kprof unwind`, and
 * `kprof convert --to kprof` of a perf.data.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/record/diag.h"
#include "formats/reader.h"
#include "formats/util.h"
#include "formats/writer.h"
#include "input.h"
#include "src/record/online.h"
#include "output.h"
#include "unwound.h"

/* The input's final statistics, held back: the new file's come after its own unwinding. */
struct held {
	struct kp_rec_stats stats;
	bool have_stats;
	struct kp_rec_ring_stats *rings;
	size_t nr_rings, cap_rings;
	struct kp_rec_unwind_stats unwind;
	uint64_t events;	/* ATTR records: none, and the copy would describe no event */
};

static void hold(struct held *h, const struct kp_rec_header *rec)
{
	switch (rec->type) {
	case KP_REC_STATS:
		memcpy(&h->stats, rec, sizeof(h->stats));
		h->have_stats = true;
		break;
	case KP_REC_RING_STATS:
		KP_GROW(h->rings, h->cap_rings, h->nr_rings + 1);
		memcpy(&h->rings[h->nr_rings++], rec, sizeof(*h->rings));
		break;
	default: /* KP_REC_UNWIND_STATS, perhaps an older one without the last fields */
		memcpy(&h->unwind, rec, rec->size < sizeof(h->unwind) ? rec->size : sizeof(h->unwind));
		break;
	}
}

/* What the recording's unwinding and this one did, as one record. */
static void merge(struct kp_rec_unwind_stats *now, const struct kp_rec_unwind_stats *was)
{
	now->samples += was->unwound;
	now->unwound += was->unwound;
	now->failed += was->failed;
	now->end_copy += was->end_copy;
	now->end_unmapped += was->end_unmapped;
	now->end_other += was->end_other;
	now->end_memory += was->end_memory;
	now->end_depth += was->end_depth;
	now->end_jit_none += was->end_jit_none;
	now->end_jit_bad += was->end_jit_bad;
	now->cpu_ns += was->cpu_ns;
}

/* The held statistics after the new file's unwinding, with its own sizes. */
static void put_held(struct kp_writer *w, struct held *h)
{
	if (!h->have_stats)
		return;
	for (size_t i = 0; i < h->nr_rings; i++)
		kp_writer_add(w, &h->rings[i]);
	h->stats.raw_bytes = w->raw_bytes;
	h->stats.file_bytes = w->off;
	kp_writer_add(w, &h->stats);
}

/*
 * Feed every record of @r to the stage, until the output fails; returns the reader's error (0
 * at a clean end, or when writing stopped it).
 */
static int copy(struct kp_reader *r, struct kp_writer *in, struct held *h)
{
	const struct kp_rec_header *rec;
	int more = 0;

	while (!in->err && (more = kp_reader_next(r, &rec)) > 0) {
		h->events += rec->type == KP_REC_ATTR;
		if (rec->type == KP_REC_ROUND)
			kp_writer_round(in);
		else if (rec->type == KP_REC_STATS || rec->type == KP_REC_RING_STATS ||
			 rec->type == KP_REC_UNWIND_STATS)
			hold(h, rec);
		else
			kp_writer_add(in, rec);
	}
	return more;
}

int kp_unwound_write(const char *input, const char *output, bool whole)
{
	struct kp_reader r;
	struct kp_writer in, *w;
	struct kp_online *on;
	struct kp_rec_unwind_stats us;
	struct held h = { .have_stats = false };
	struct kp_output out;
	int fd, rerr, err, rc = 0;

	if (kp_output_same_file(input, output))
		return kp_error("'%s' is the input: write the new recording elsewhere", output);
	if (kp_input_open(&r, input))
		return 1;
	fd = kp_output_open_fd(&out, output, false);
	if (fd < 0) {
		kp_reader_release(&r);
		return 1;
	}
	on = kp_online_start(fd, KP_WRITER_DEFAULT_LEVEL, KP_ONLINE_NEVER_BEHIND, KP_WRITER_CHUNK,
			     &in, &err);
	if (!on) {
		kp_error("cannot write '%s': %s", output, kp_strerror(err));
		kp_output_abort(&out);
		kp_reader_release(&r);
		return 1;
	}
	rerr = copy(&r, &in, &h);
	kp_writer_flush(&in);
	w = kp_online_finish(on, &us);
	merge(&us, &h.unwind);
	kp_writer_add(w, &us);
	put_held(w, &h);
	if (kp_writer_close(w)) {
		rc = kp_error("cannot write '%s': %s", output, kp_strerror(w->err));
		/* a good file is not replaced by a partial one; a stream has what was written */
		if (!kp_path_is_stream(output) && access(output, F_OK) == 0) {
			kp_output_abort(&out);
			kp_notice("'%s' is left as it was", output);
		} else if (!kp_output_commit(&out)) {
			kp_notice("'%s' keeps the %llu complete chunks written before the failure",
				  output, (unsigned long long)w->chunks);
		}
	} else if ((rerr < 0 && whole) || !h.events) {
		kp_output_abort(&out);
	} else if (kp_output_commit(&out)) {
		rc = 1;
	}
	if (!h.events) /* a copy of no event is no recording */
		rc = kp_input_no_events(input);
	if (rerr < 0) /* else what came before the damage was written */
		rc = kp_input_error(&r, input);
	if ((rerr < 0 && whole) || !h.events)
		kp_notice("'%s' is not written", output);
	if (!rc)
		kp_notice("unwound %llu of %llu stack copies into '%s' (%llu no further than "
			  "their first frame)", (unsigned long long)(us.unwound - h.unwind.unwound),
			  (unsigned long long)(us.samples - h.unwind.unwound), output,
			  (unsigned long long)(us.failed - h.unwind.failed));
	kp_writer_close(&in);
	kp_online_free(on);
	free(h.rings);
	kp_reader_release(&r);
	return rc;
}

