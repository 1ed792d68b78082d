/* SPDX-License-Identifier: MIT */
/*
 * rewrite.c - records into a writer, stack copies unwound into call chains (see rewrite.h).
 */
#include "rewrite.h"

#include "formats/util.h"
#include "report/replay/unwind-stats.h"

static int put_own(void *ctx, struct kp_session *s, const struct kp_rec_header *rec)
{
	struct kp_rewrite *rw = ctx;

	(void)s;
	if (rec->type == KP_REC_ROUND) /* after the records it made final: rounds stay rounds */
		kp_writer_round(rw->out);
	else
		kp_writer_add(rw->out, rec);
	return 0;
}

static int put_side(void *ctx, struct kp_session *s, const struct kp_evsel *ev,
		    const struct kp_rec_header *rec, const struct kp_sample *id)
{
	(void)ev;
	(void)id;
	return put_own(ctx, s, rec);
}

/*
 * @rec with @chain (@n entries) as its call chain, and with no registers and no stack copy.
 * Returns false, writing nothing, when the result would not fit in a record.
 */
static bool put_unwound(struct kp_rewrite *rw, const struct kp_evsel *ev,
			const struct kp_sample *smp, const struct kp_rec_header *rec,
			const uint64_t *chain, size_t n)
{
	int size = kp_rec_encode_unwound(&ev->attr, smp, rec->misc, chain, n, NULL, 0);
	void *dst;

	if (size < 0)
		return false;
	dst = kp_writer_reserve(rw->out, (size_t)size);
	kp_rec_encode_unwound(&ev->attr, smp, rec->misc, chain, n, dst, (size_t)size);
	kp_writer_commit(rw->out, (size_t)size, 1);
	return true;
}

static int put_sample(void *ctx, struct kp_session *s, const struct kp_evsel *ev,
		      const struct kp_sample *smp, const struct kp_rec_header *rec,
		      struct kp_thread *t)
{
	struct kp_rewrite *rw = ctx;
	size_t n, nr_user;

	/* a stack copy to unwind, and a call chain to put the result in */
	if (!(smp->sample_type & PERF_SAMPLE_CALLCHAIN) || !kp_unwind_has_copy(smp))
		return put_own(ctx, s, rec);
	rw->st.samples++;
	if (rw->behind) {
		rw->st.kept_behind++;
		return put_own(ctx, s, rec);
	}
	n = kp_unwind_chain(rw->u, smp, t, rw->chain, ARRAY_SIZE(rw->chain), &nr_user);
	if (!nr_user || !put_unwound(rw, ev, smp, rec, rw->chain, n)) {
		rw->st.kept_failed++;
		return put_own(ctx, s, rec);
	}
	rw->st.unwound++;
	return 0;
}

static const struct kp_session_ops ops = {
	.own = put_own,
	.sample = put_sample,
	.side = put_side,
	.unparsed = put_own,
};

void kp_rewrite_init(struct kp_rewrite *rw, struct kp_writer *out,
		     struct kp_debuginfod *debuginfod)
{
	struct kp_dso_opts dso = { .inline_frames = false, .debuginfod = debuginfod };

	rw->out = out;
	rw->behind = false;
	kp_session_init(&rw->s, &dso);
	kp_session_start(&rw->s, &ops, rw);
	rw->u = kp_unwinder_new(&rw->s, KP_UNWIND_LIBDW);
}

void kp_rewrite_feed(struct kp_rewrite *rw, const struct kp_rec_header *rec)
{
	kp_session_feed(&rw->s, rec);
}

void kp_rewrite_end(struct kp_rewrite *rw)
{
	rw->behind = false;
	kp_session_end(&rw->s);
}

void kp_rewrite_stats(struct kp_rewrite *rw, uint64_t backlog_max, uint64_t cpu_ns,
		      struct kp_rec_unwind_stats *st)
{
	const struct kp_unwind_stats *us = kp_unwinder_stats(rw->u);

	rw->st.h = (struct kp_rec_header){ KP_REC_UNWIND_STATS, 0, sizeof(rw->st) };
	rw->st.backlog_max = backlog_max;
	rw->st.cpu_ns = cpu_ns;
	kp_unwind_stats_fill(us, &rw->st);
	kp_unwind_stats_write(us, &rw->s.strs, rw->out);
	*st = rw->st;
}

void kp_rewrite_release(struct kp_rewrite *rw)
{
	kp_unwinder_free(rw->u);
	rw->u = NULL;
	kp_session_release(&rw->s);
}
