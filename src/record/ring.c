/* SPDX-License-Identifier: MIT */
#include "ring.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "formats/rec.h"

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

/* Count what the copied records say; they are whole records, as the kernel wrote them. */
static void account(struct kp_ring *r, const uint8_t *p, size_t len)
{
	size_t pos = 0;
	struct kp_lost lost;

	while (pos + sizeof(struct perf_event_header) <= len) {
		const struct perf_event_header *h = (const void *)(p + pos);
		if (h->size < sizeof(*h))
			break; /* cannot happen with a sane kernel; do not loop forever */
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
		pos += h->size;
	}
}

size_t kp_ring_drain(struct kp_ring *r, struct kp_writer *w)
{
	/* acquire: the records up to head are fully written before we read them */
	uint64_t head = __atomic_load_n(&r->page->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->page->data_tail;
	size_t len = head - tail, off = tail & (r->size - 1), first;
	uint8_t *dst;
	uint64_t before = r->records;

	if (!len)
		return 0;
	dst = kp_writer_reserve(w, len);
	first = len < r->size - off ? len : r->size - off;
	memcpy(dst, r->data + off, first);
	memcpy(dst + first, r->data, len - first);
	account(r, dst, len);
	kp_writer_commit(w, len, (uint32_t)(r->records - before));
	r->bytes += len;
	/* release: our reads of the data are done before the kernel may overwrite it */
	__atomic_store_n(&r->page->data_tail, head, __ATOMIC_RELEASE);
	return len;
}

void kp_ring_unmap(struct kp_ring *r)
{
	if (r->page)
		munmap(r->page, r->map_len);
	r->page = NULL;
	r->data = NULL;
}
