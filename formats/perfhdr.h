/* SPDX-License-Identifier: MIT */
/*
 * perfhdr.h - perf.data's file header, its attr section and its header features: the half of
 * the format that says what the data section's records are, read by perfdata.c and written by
 * perfwrite.c, both through this file. The layout is that of perf's
 * Documentation/perf.data-file-format.txt; this is an independent reading of it.
 *
 * struct kp_perfhdr holds what a file's metadata says: its events (attr, ids, name), the
 * build-ids of its files, and the facts kprof keeps as META records (hostname, kernel, ...).
 * Reading fills it from a file's sections (or pipe mode's records); writing lays it out as
 * sections after the data. Every feature is one row of feats[] in perfhdr.c: its id, its
 * parser, its writer, the fact it carries.
 */
#ifndef KP_PERFHDR_H
#define KP_PERFHDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kprof-format.h"
#include "util.h"

#define KP_PERF_MAGIC2 0x32454c4946524550ull	/* "PERFILE2" read as a little-endian u64 */
#define KP_PERF_MAGIC1 "PERFFILE"
#define KP_PERF_ATTR_VER0 64			/* PERF_ATTR_SIZE_VER0 */
#define KP_PERF_MAX_ATTR 4096			/* larger attrs than any kernel has: refused */
#define KP_PERF_MAX_EVENTS 4096
#define KP_PERF_FEAT_BITS 256
#define KP_PERF_MISC_BUILD_ID_SIZE (1u << 15)	/* a build_id_event's size byte is valid */

/* perf's record types (PERF_RECORD_HEADER_ATTR ...) */
enum {
	KP_PERF_HEADER_ATTR = 64, KP_PERF_EVENT_TYPE, KP_PERF_TRACING_DATA, KP_PERF_BUILD_ID,
	KP_PERF_FINISHED_ROUND, KP_PERF_ID_INDEX, KP_PERF_AUXTRACE_INFO, KP_PERF_AUXTRACE,
	KP_PERF_AUXTRACE_ERROR, KP_PERF_THREAD_MAP, KP_PERF_CPU_MAP, KP_PERF_STAT_CONFIG,
	KP_PERF_STAT, KP_PERF_STAT_ROUND, KP_PERF_EVENT_UPDATE, KP_PERF_TIME_CONV,
	KP_PERF_HEADER_FEATURE, KP_PERF_COMPRESSED, KP_PERF_FINISHED_INIT, KP_PERF_COMPRESSED2,
};

struct kp_perf_section {
	uint64_t offset, size;
};

struct kp_perf_file_header {
	uint64_t magic, size, attr_size;
	struct kp_perf_section attrs, data, event_types;
	uint64_t features[KP_PERF_FEAT_BITS / 64];
};
_Static_assert(sizeof(struct kp_perf_file_header) == 104, "perf_file_header");

struct kp_perf_attr {
	struct perf_event_attr attr;
	uint64_t *ids;
	uint32_t nr_ids;
};

struct kp_perf_build_id {
	char *path;
	uint8_t size, id[20];
	bool kernel;			/* a kernel image or module (PERF_RECORD_MISC_KERNEL) */
};

struct kp_perf_named_id {
	uint64_t id;
	char *name;
};

/* A tracepoint's tracefs format file (HEADER_TRACING_DATA): its system, its text of @len bytes,
 * and the id on its "ID:" line, by which perf finds it from an attr's config (UINT64_MAX when
 * it has none). */
struct kp_perf_tp_format {
	char *sys, *text;
	size_t len;
	uint64_t id;
};

/* The facts of the features, in the order their META records are written. */
enum {
	KP_PERF_HOSTNAME, KP_PERF_KERNEL, KP_PERF_ARCH, KP_PERF_NRCPUS, KP_PERF_CMDLINE,
	KP_PERF_VERSION, KP_PERF_CLOCK, KP_PERF_FACTS
};
/* their META keys */
extern const char *const kp_perf_fact_keys[KP_PERF_FACTS];

/*
 * struct kp_perfhdr - what a perf.data's metadata says
 * @attrs:        the events, in the attr section's order
 * @desc_names:   HEADER_EVENT_DESC's names, by index (reading; writing names @attrs by it too)
 * @upd_names:    EVENT_UPDATE's names, by id (pipe mode)
 * @bids:         HEADER_BUILD_ID (or BUILD_ID records)
 * @facts:        the facts, malloc'd strings or NULL
 * @first_time, @last_time: the first and last sample's time (HEADER_SAMPLE_TIME, written)
 * @tps:          the tracepoints' format files (HEADER_TRACING_DATA, written when there is one)
 * @header_page, @header_event: the text of tracefs events/header_page and header_event (NULL:
 *                what this kind of machine's kernels say) and @page_size (0: this machine's)
 * @cmdlines:     the threads' names in tracefs saved_cmdlines' lines ("tid comm\n"), of
 *                @cmdlines_len bytes
 * @bad_features: malformed features ignored while reading, the first at @bad_feature_off
 */
struct kp_perfhdr {
	struct kp_perf_attr *attrs;
	size_t nr_attrs;
	char **desc_names;
	size_t nr_desc;
	struct kp_perf_named_id *upd_names;
	size_t nr_upd, cap_upd;
	struct kp_perf_build_id *bids;
	size_t nr_bids, cap_bids;
	char *facts[KP_PERF_FACTS];
	uint64_t first_time, last_time;
	struct kp_perf_tp_format *tps;
	size_t nr_tps, cap_tps;
	char *header_page, *header_event;
	uint64_t page_size;
	char *cmdlines;
	size_t cmdlines_len;
	uint64_t bad_features, bad_feature_off;
};

/* kp_perfhdr_release - free what @m holds; a zeroed @m is fine. */
void kp_perfhdr_release(struct kp_perfhdr *m);

/*
 * kp_perfhdr_read_attrs - the attr section (entries of @h's attr_size bytes, each an attr and
 * the section of its ids) of the file @fd of @file_size bytes, into @m. Returns 0, or
 * -KP_EPERFHEADER / -errno with *@e set.
 */
int kp_perfhdr_read_attrs(struct kp_perfhdr *m, int fd, uint64_t file_size,
			  const struct kp_perf_file_header *h, struct kp_read_err *e);

/* kp_perfhdr_read_features - the feature sections after @h's data section (an array of
 * sections, one per feature bit set) of the file @fd of @file_size bytes into @m; a malformed
 * one is counted and ignored. */
void kp_perfhdr_read_features(struct kp_perfhdr *m, int fd, uint64_t file_size,
			      const struct kp_perf_file_header *h);

/* kp_perfhdr_add_attr - add an event: @a and its @nr ids (both copied). */
void kp_perfhdr_add_attr(struct kp_perfhdr *m, const struct perf_event_attr *a,
			 const uint64_t *ids, uint32_t nr);

/*
 * kp_perfhdr_take_attr - an attr of @size bytes (any version perf wrote) at @p into @out,
 * zeroed beyond what was stored. Returns 0, or -1 when @size is not one perf writes.
 */
int kp_perfhdr_take_attr(const uint8_t *p, size_t size, struct perf_event_attr *out);

/* kp_perfhdr_take_feature - feature @id's @len bytes at @b (found at @off: counted if bad). */
void kp_perfhdr_take_feature(struct kp_perfhdr *m, unsigned id, const uint8_t *b, size_t len,
			     uint64_t off);

/* kp_perfhdr_take_build_id - one build_id_event of at most @avail bytes at @b: its size, or 0
 * when it is malformed. */
size_t kp_perfhdr_take_build_id(struct kp_perfhdr *m, const uint8_t *b, size_t avail);

/* kp_perfhdr_add_build_id - a file's build-id (@size bytes of @id, at most 20). */
void kp_perfhdr_add_build_id(struct kp_perfhdr *m, const uint8_t *id, uint8_t size,
			     const char *path, bool kernel);

/*
 * kp_perfhdr_add_tp_format - a tracepoint's format file: @len bytes of @text (no NUL needed) of
 * system @sys, both copied. One whose "ID:" line is that of one added before is left out.
 */
void kp_perfhdr_add_tp_format(struct kp_perfhdr *m, const char *sys, const char *text, size_t len);

/* kp_perfhdr_tp_format - the format file whose "ID:" line says @id, or NULL. Borrowed. */
const struct kp_perf_tp_format *kp_perfhdr_tp_format(const struct kp_perfhdr *m, uint64_t id);

/* kp_perfhdr_set_fact - fact @key is now @value (taken over; NULL leaves it as it was). */
void kp_perfhdr_set_fact(struct kp_perfhdr *m, int key, char *value);

/*
 * kp_perfhdr_event_name - event @i's name as perf spells it ("cpu-clock:ppp"): EVENT_UPDATE's,
 * else EVENT_DESC's, else what perf calls its type and config (in @buf of @n bytes). Borrowed.
 */
const char *kp_perfhdr_event_name(const struct kp_perfhdr *m, size_t i, char *buf, size_t n);

/* kp_perfhdr_base_len - the length of @name without perf's modifiers (":ppp", ":u"), which
 * kprof's event names do not carry; a tracepoint ("sched:sched_switch") keeps its colon. */
size_t kp_perfhdr_base_len(const char *name);

/*
 * kp_perfhdr_write - after @data_size bytes of records written at @data_off of @fd: the feature
 * sections (right after the data, where perf looks for them), the attr section and its ids,
 * then the file header at offset 0. Returns 0 or -errno.
 */
int kp_perfhdr_write(const struct kp_perfhdr *m, int fd, uint64_t data_off, uint64_t data_size);

#endif /* KP_PERFHDR_H */
