/* SPDX-License-Identifier: MIT */
/*
 * ring.h - one perf mmap ring and its drain into a kp_writer.
 *
 * The recorder never parses samples: it copies the bytes between data_tail and data_head
 * verbatim (in at most two pieces when they wrap) and only walks the record headers of the
 * copy to count samples, lost and throttle records. The one exception is a sample the kernel
 * wrote with another consumer's event id (kp_ring_drain()).
 */
#ifndef KP_RING_H
#define KP_RING_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "formats/evlist.h"
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
	uint64_t relabeled;	/* samples given back their event (kp_ring_drain()) */
	uint64_t foreign;	/* samples of another consumer's id left out: no event of ours fits */
	void *fix;		/* a record's room for relabeling, allocated when first needed */
};

/* kp_ring_map - map @pages data pages (a power of two) of @fd. Returns 0 or -errno. */
int kp_ring_map(struct kp_ring *r, int fd, int cpu, size_t pages);

/*
 * kp_ring_drain - copy everything the kernel has published into @w and hand the space back.
 * Returns the bytes added to @w, the last ones of its buffer.
 *
 * A software event the kernel counts by hooks (context switches, page faults) or a tracepoint
 * that another consumer records too makes one perf_sample_data for all their events at each
 * hit (do_perf_sw_event(), perf_tp_event()); the events after the first keep the first one's
 * id and record size, and so some of this ring's samples come with another tool's event id
 * and stale bytes after their fields (seen on 6.1 to 6.18). Such a sample is ours, as nothing
 * else writes into this ring: when exactly one event of @evl (the recording's, ids included;
 * NULL: none) can be it, it is rewritten as that event's sample, cut to its fields, its time
 * kept between its neighbours' in the ring (the other consumer's clock may differ), counted
 * in @r->relabeled; otherwise it is left out, counted in @r->foreign.
 */
size_t kp_ring_drain(struct kp_ring *r, struct kp_writer *w, const struct kp_evlist *evl);

void kp_ring_unmap(struct kp_ring *r);

#endif /* KP_RING_H */
