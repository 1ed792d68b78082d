/* SPDX-License-Identifier: MIT */
#include "ring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "formats/rec.h"
#include "formats/util.h"

int kp_ring_map(struct kp_ring *r, int fd, int cpu, size_t pages)
{
	size_t psize = (size_t)sysconf(_SC_PAGESIZE);
	void *p;

	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->cpu = cpu;
	r->size = pages * psize;
	r->map_len = r->size + psize;
	p = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	r->page = p;
	r->data = (uint8_t *)p + psize;
	return 0;
}

/* The time of record @h of @evl, or -1 when it has none. */
static int64_t time_of(const struct kp_evlist *evl, const struct kp_rec_header *h)
{
	const struct kp_evsel *ev = kp_evlist_find(evl, h);
	struct kp_sample x;
	uint64_t t;

	if (!ev || !(ev->attr.sample_type & PERF_SAMPLE_TIME))
		return -1;
	if (h->type == PERF_RECORD_SAMPLE)
		return kp_rec_sample_time(&ev->attr, h, &t) ? -1 : (int64_t)t;
	return kp_rec_parse_id(&ev->attr, h, &x) || !ev->attr.sample_id_all ? -1 : (int64_t)x.time;
}

/*
 * The one event of @evl whose sample @h can be, decoded into @s: a software event the kernel
 * counts by hooks (not a clock) or a tracepoint, the tracepoint whose payload's type is its
 * id. NULL when there are none or several.
 */
static const struct kp_evsel *owner_of(const struct kp_evlist *evl, const struct kp_rec_header *h,
				       struct kp_sample *s)
{
	const struct kp_evsel *found = NULL;
	struct kp_sample x;

	for (size_t i = 0; i < evl->nr; i++) {
		const struct perf_event_attr *a = &evl->ev[i].attr;
		uint16_t type;

		if (a->type == PERF_TYPE_SOFTWARE && (a->config == PERF_COUNT_SW_CPU_CLOCK ||
						       a->config == PERF_COUNT_SW_TASK_CLOCK))
			continue;
		if ((a->type != PERF_TYPE_SOFTWARE && a->type != PERF_TYPE_TRACEPOINT) ||
		    kp_rec_parse_sample(a, h, &x))
			continue;
		if (a->type == PERF_TYPE_TRACEPOINT &&
		    (x.raw_size < sizeof(type) || (memcpy(&type, x.raw, sizeof(type)), type != a->config)))
			continue;
		if (found)
			return NULL;
		found = &evl->ev[i];
		*s = x;
	}
	return found;
}

/*
 * A sample of ours that the kernel wrote with another consumer's event id and record size
 * (see kp_ring_drain()), at @pos of the @len bytes at @p, @prev the record before it or NULL:
 * rewritten in place as the sample of the one event it can be, its time kept between its
 * neighbours' in this ring. Returns its new size, or 0 when it is left out.
 */
static size_t relabel(struct kp_ring *r, const struct kp_evlist *evl, uint8_t *p, size_t pos,
		      size_t len, const struct kp_rec_header *prev)
{
	const struct kp_rec_header *h = (const void *)(p + pos), *next = NULL;
	const struct kp_evsel *ev;
	struct kp_sample s;
	int64_t t;
	int size;

	if (!evl || !(ev = owner_of(evl, h, &s)) || !ev->nr_ids) {
		r->foreign++;
		return 0;
	}
	if (pos + h->size < len && kp_rec_framed((const void *)(p + pos + h->size),
						 len - pos - h->size))
		next = (const void *)(p + pos + h->size);
	s.id = ev->ids[0];
	if (ev->attr.sample_type & PERF_SAMPLE_TIME) { /* the other consumer's clock, maybe */
		if (prev && (t = time_of(evl, prev)) >= 0 && s.time < (uint64_t)t)
			s.time = (uint64_t)t;
		if (next && (t = time_of(evl, next)) >= 0 && s.time > (uint64_t)t)
			s.time = (uint64_t)t;
	}
	if (!r->fix)
		r->fix = kp_xmalloc(KP_REC_MAX_SIZE);
	size = kp_rec_encode_sample(&ev->attr, &s, h->misc, r->fix, KP_REC_MAX_SIZE);
	if (size <= 0 || (size_t)size > h->size) {
		r->foreign++;
		return 0;
	}
	memcpy(p + pos, r->fix, (size_t)size);
	r->relabeled++;
	return (size_t)size;
}

/*
 * Count what the copied records say; they are whole records, as the kernel wrote them. A
 * sample of none of @evl's ids is given back its event or left out (relabel()), the bytes
 * after it moved up. Returns the bytes kept.
 */
static size_t account(struct kp_ring *r, const struct kp_evlist *evl, uint8_t *p, size_t len)
{
	const struct kp_rec_header *prev = NULL;
	struct kp_lost lost;
	size_t pos = 0;

	/* not framed: cannot happen with a sane kernel; do not loop forever, nor past the end */
	while (pos < len && kp_rec_framed((const void *)(p + pos), len - pos)) {
		const struct perf_event_header *h = (const void *)(p + pos);
		size_t size = h->size, kept;

		if (h->type == PERF_RECORD_SAMPLE && evl && evl->nr > 1 &&
		    !kp_evlist_find(evl, (const void *)h) &&
		    (kept = relabel(r, evl, p, pos, len, prev)) < size) {
			memmove(p + pos + kept, p + pos + size, len - pos - size);
			len -= size - kept;
			if (!kept)
				continue;
			size = kept;
		}
		r->records++;
		if (h->type == PERF_RECORD_SAMPLE)
			r->samples++;
		else if (h->type == PERF_RECORD_LOST && !kp_rec_parse_lost((const void *)h, len - pos,
									    &lost))
			r->lost_records += lost.lost;
		else if (h->type == PERF_RECORD_THROTTLE)
			r->throttles++;
		else if (h->type == PERF_RECORD_SWITCH || h->type == PERF_RECORD_SWITCH_CPU_WIDE)
			r->switches++;
		prev = (const void *)h;
		pos += size;
	}
	return len;
}

size_t kp_ring_drain(struct kp_ring *r, struct kp_writer *w, const struct kp_evlist *evl)
{
	/* acquire: the records up to head are fully written before we read them */
	uint64_t head = __atomic_load_n(&r->page->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->page->data_tail;
	size_t len = head - tail, off = tail & (r->size - 1), first, kept;
	uint8_t *dst;
	uint64_t before = r->records;

	if (!len)
		return 0;
	dst = kp_writer_reserve(w, len);
	first = len < r->size - off ? len : r->size - off;
	memcpy(dst, r->data + off, first);
	memcpy(dst + first, r->data, len - first);
	kept = account(r, evl, dst, len);
	kp_writer_commit(w, kept, (uint32_t)(r->records - before));
	r->bytes += kept;
	/* release: our reads of the data are done before the kernel may overwrite it */
	__atomic_store_n(&r->page->data_tail, head, __ATOMIC_RELEASE);
	return kept;
}

void kp_ring_unmap(struct kp_ring *r)
{
	if (r->page)
		munmap(r->page, r->map_len);
	r->page = NULL;
	r->data = NULL;
	free(r->fix);
	r->fix = NULL;
}
