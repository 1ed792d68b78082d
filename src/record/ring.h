/* SPDX-License-Identifier: MIT */
/*
 * ring.h - one perf mmap ring and its drain into a kp_writer.
 *
 * The recorder never parses samples: it copies the bytes between data_tail and data_head
 * verbatim (in at most two pieces when they wrap) and only walks the record headers of the
 * copy to count samples, lost and throttle records.
 */
#ifndef KP_RING_H
#define KP_RING_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "formats/writer.h"

struct kp_ring {
	struct perf_event_mmap_page *page;
	uint8_t *data;
	size_t size;		/* data area bytes, a power of two */
	size_t map_len;		/* size + the control page */
	int fd;
	int cpu;
	/* counters, from the records copied */
	uint64_t samples, records, lost_records, throttles, bytes;
	uint64_t switches;	/* PERF_RECORD_SWITCH and _CPU_WIDE (--off-cpu) */
	uint64_t lost_read;	/* PERF_FORMAT_LOST, summed over the fds of this ring at the end */
};

/* kp_ring_map - map @pages data pages (a power of two) of @fd. Returns 0 or -errno. */
int kp_ring_map(struct kp_ring *r, int fd, int cpu, size_t pages);

/*
 * kp_ring_drain - copy everything the kernel has published into @w and hand the space back.
 * Returns the bytes copied.
 */
size_t kp_ring_drain(struct kp_ring *r, struct kp_writer *w);

void kp_ring_unmap(struct kp_ring *r);

#endif /* KP_RING_H */
