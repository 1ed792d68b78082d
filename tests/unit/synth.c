/* SPDX-License-Identifier: MIT */
#include "synth.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/util.h"

void synth_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->sample_period = 250000;
	a->sample_type = SYNTH_SAMPLE_TYPE;
	a->sample_id_all = 1;
}

void synth_add(struct synth *s, const void *rec)
{
	size_t size = ((const struct kp_rec_header *)rec)->size;

	kp_writer_add(&s->w, rec);
	KP_GROW(s->recs, s->cap, s->len + size);
	memcpy(s->recs + s->len, rec, size);
	s->len += size;
	s->nrec++;
}

void synth_flush(struct synth *s)
{
	if (!s->w.len)
		return;
	kp_writer_flush(&s->w);
	KP_GROW(s->chunk_end, s->chunks_cap, s->nr_chunks + 1);
	s->chunk_end[s->nr_chunks++] = s->nrec;
}

size_t synth_sample(void *buf, uint32_t tid, uint64_t time, uint32_t cpu, uint64_t ip,
		    unsigned depth)
{
	struct kp_rec_header *h = buf;
	uint64_t *p = (uint64_t *)(h + 1);

	*p++ = 1000 + cpu;			/* IDENTIFIER */
	*p++ = ip;				/* IP */
	*p++ = (uint64_t)tid << 32 | tid;	/* TID: pid == tid */
	*p++ = time;				/* TIME */
	*p++ = cpu;				/* CPU */
	*p++ = 250000;				/* PERIOD */
	*p++ = depth + 1;			/* CALLCHAIN */
	*p++ = PERF_CONTEXT_USER;
	for (unsigned i = 0; i < depth; i++)
		*p++ = ip + 0x100 * (i + 1);
	*h = (struct kp_rec_header){ PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
				     (uint16_t)((uint8_t *)p - (uint8_t *)buf) };
	return h->size;
}

size_t synth_mmap2_len(const struct synth_mmap2 *mm)
{
	return offsetof(struct synth_mmap2, name) + strlen(mm->name) + 1;
}

void synth_side(struct synth *s, uint32_t type, uint16_t misc, const void *body,
		size_t body_len, uint32_t tid, uint64_t time)
{
	uint8_t buf[512];
	struct kp_rec_header *h = (void *)buf;
	size_t pos = sizeof(*h) + kp_align8(body_len);
	uint64_t trailer[4] = { (uint64_t)tid << 32 | tid, time, 0, 1000 };

	memset(buf, 0, sizeof(buf));
	memcpy(h + 1, body, body_len);
	memcpy(buf + pos, trailer, sizeof(trailer));
	*h = (struct kp_rec_header){ type, misc, (uint16_t)(pos + sizeof(trailer)) };
	synth_add(s, buf);
}

static void add_sideband(struct synth *s, uint64_t t0)
{
	struct {
		uint32_t pid, tid;
		char comm[16];
	} comm = { 42, 42, "synthetic" };
	struct synth_mmap2 mm = { 42, 42, 0x400000, 0x1000, 0, 8, 1, 1234, 0, 5, 2, "/usr/bin/synth" };
	uint32_t fork[6] = { 42, 42, 43, 42, 0, 0 };
	uint64_t lost[2] = { 1000, 7 };
	uint64_t thr[3] = { t0, 1000, 1000 };

	synth_side(s, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, &comm, sizeof(comm), 42, t0);
	synth_side(s, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, &mm, synth_mmap2_len(&mm), 42, t0);
	synth_side(s, PERF_RECORD_FORK, 0, fork, sizeof(fork), 43, t0);
	synth_side(s, PERF_RECORD_LOST, 0, lost, sizeof(lost), 42, t0);
	synth_side(s, PERF_RECORD_THROTTLE, 0, thr, sizeof(thr), 42, t0);
	synth_side(s, PERF_RECORD_UNTHROTTLE, 0, thr, sizeof(thr), 42, t0);
}

/* Own records go through the writer's helpers; keep a copy of what they produced. */
static void capture_last(struct synth *s, size_t before)
{
	size_t pos = before;

	while (pos < s->w.len) {
		const struct kp_rec_header *h = (const void *)(s->w.buf + pos);
		KP_GROW(s->recs, s->cap, s->len + h->size);
		memcpy(s->recs + s->len, h, h->size);
		s->len += h->size;
		s->nrec++;
		pos += h->size;
	}
}

static void add_own(struct synth *s)
{
	struct perf_event_attr a;
	uint64_t ids[2] = { 1000, 1001 };
	static const char ks[] = "ffffffff81000000 T _text\nffffffff81001000 T do_work\n";
	size_t before = s->w.len;

	synth_attr(&a);
	kp_writer_add_attr(&s->w, &a, 0, ids, 2, "cpu-clock", "cycles", 1);
	kp_writer_add_meta(&s->w, "hostname", "synth");
	kp_writer_add_meta(&s->w, "command", "synth --all");
	kp_writer_add_kallsyms(&s->w, ks, sizeof(ks) - 1, 0);
	capture_last(s, before);
}

static void add_stats(struct synth *s, unsigned nsamples)
{
	struct kp_rec_ring_stats rs = { { KP_REC_RING_STATS, 0, sizeof(rs) }, 0, 0, nsamples, 7,
					7, 4096 };
	struct kp_rec_stats st;

	memset(&st, 0, sizeof(st));
	st.h = (struct kp_rec_header){ KP_REC_STATS, 0, sizeof(st) };
	st.samples = nsamples;
	st.lost = 7;
	st.nr_rings = 1;
	synth_add(s, &rs);
	synth_add(s, &st);
}

int synth_begin(struct synth *s, int fd, int level)
{
	memset(s, 0, sizeof(*s));
	if (kp_writer_init(&s->w, fd, level, 0))
		return s->w.err;
	add_own(s);
	return 0;
}

int synth_file(struct synth *s, int fd, unsigned nsamples, unsigned per_chunk, int level)
{
	const uint64_t t0 = 1000000000ull;
	uint8_t buf[256];
	struct kp_rec_header round = { KP_REC_ROUND, 0, sizeof(round) };

	if (synth_begin(s, fd, level))
		return s->w.err;
	add_sideband(s, t0);
	for (unsigned i = 0; i < nsamples; i++) {
		/* two CPUs per round of 8: the second CPU's run carries earlier times */
		unsigned k = i % 8, cpu = k < 4 ? 0 : 1, slot = (i / 8) * 8 + (k % 4) * 2 + cpu;
		synth_sample(buf, 42 + (i % 3 == 0), t0 + 1000 + slot * 1000ull, cpu,
			     0x401000 + (i % 5) * 0x10, 1 + i % 6);
		synth_add(s, buf);
		if (k == 7)
			synth_add(s, &round);
		if (per_chunk && s->w.nrec >= per_chunk)
			synth_flush(s);
	}
	synth_add(s, &round);
	add_stats(s, nsamples);
	synth_flush(s);
	return s->w.err;
}

void synth_release(struct synth *s)
{
	kp_writer_close(&s->w);
	free(s->recs);
	free(s->chunk_end);
	memset(s, 0, sizeof(*s));
}

void synth_end(struct synth *s, int fd)
{
	struct kp_rec_header round = { KP_REC_ROUND, 0, sizeof(round) };

	synth_add(s, &round);
	synth_flush(s);
	synth_release(s);
	close(fd);
}
