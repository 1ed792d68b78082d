/* SPDX-License-Identifier: MIT */
/*
 * fuzz-reader.c - libFuzzer target over everything that reads a .kprof file's bytes: the
 * header and chunk checks, record validation, the attr/meta views, the event lookup, the
 * sample and trailer parsers, and the tracepoint decoder (stored format files, through
 * libtraceevent, against RAW payloads).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "formats/evlist.h"
#include "formats/reader.h"
#include "formats/rec.h"
#include "report/tracepoint.h"
#include "report/unwind-stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * A borrowed array must lie inside its record. ASan alone cannot tell: the record is followed
 * by the rest of its chunk in the same buffer, so an overrun into the next record reads valid
 * memory.
 */
static void check_within(const struct kp_rec_header *rec, const void *p, uint64_t bytes)
{
	const char *lo = (const char *)rec, *hi = lo + rec->size;

	if (bytes && (!p || (const char *)p < lo || (const char *)p > hi ||
		      bytes > (uint64_t)(hi - (const char *)p)))
		abort();
}

/* what the report keeps of each record the recorder's unwinding wrote */
struct unwind_seen {
	struct kp_unwind_stats st;
	struct kp_strtab strs;
};

static void visit(struct kp_evlist *l, struct kp_tp *tp, struct unwind_seen *u,
		  const struct kp_rec_header *rec)
{
	const struct kp_evsel *ev;
	struct kp_sample s;
	const char *k, *v;

	if (rec->type == KP_REC_UNWIND_STATS || rec->type == KP_REC_UNWIND_DSO) {
		kp_unwind_stats_read(&u->st, &u->strs, rec);
		return;
	}

	if (rec->type == KP_REC_ATTR) {
		kp_evlist_add(l, rec);
		return;
	}
	if (rec->type == KP_REC_META) {
		kp_rec_meta_view(rec, &k, &v);
		return;
	}
	if (rec->type == KP_REC_TP_FORMAT) {
		const struct kp_rec_tp_format *f = (const void *)rec;
		const char *sys = (const char *)(f + 1);
		kp_tp_add_format(tp, sys, sys + f->sys_len, f->fmt_len);
		return;
	}
	if (rec->type >= KP_REC_USER_START || !(ev = kp_evlist_find(l, rec)))
		return;
	if (rec->type == PERF_RECORD_SAMPLE) {
		if (kp_rec_parse_sample(&ev->attr, rec, &s) == 0) {
			/* touch every borrowed array, so ASan sees any overrun */
			volatile uint64_t sum = 0;
			check_within(rec, s.callchain, s.nr_callchain * 8);
			check_within(rec, s.raw, s.raw_size);
			check_within(rec, s.stack_data, s.stack_size);
			check_within(rec, s.regs_user, s.nr_regs_user * 8ull);
			check_within(rec, s.branches, s.nr_branches * 24);
			for (uint64_t i = 0; i < s.nr_callchain; i++)
				sum += s.callchain[i];
			for (uint32_t i = 0; i < s.raw_size; i++)
				sum += ((const uint8_t *)s.raw)[i];
			if (s.raw) {
				char buf[1024];
				kp_tp_format(tp, s.raw, s.raw_size, buf, sizeof(buf));
			}
			for (uint64_t i = 0; i < s.stack_size; i++)
				sum += ((const uint8_t *)s.stack_data)[i];
			for (uint32_t i = 0; i < s.nr_regs_user; i++)
				sum += s.regs_user[i];
			for (uint64_t i = 0; i < s.nr_branches * 3; i++)
				sum += s.branches[i];
		}
	} else {
		kp_rec_parse_id(&ev->attr, rec, &s);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_reader r;
	struct kp_evlist l;
	const struct kp_rec_header *rec;
	int fd = memfd_create("fuzz", MFD_CLOEXEC);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	struct kp_tp *tp = kp_tp_new();
	struct unwind_seen u;
	char what[512], where[512], hint[512];

	kp_evlist_init(&l);
	memset(&u, 0, sizeof(u));
	kp_strtab_init(&u.strs);
	if (kp_reader_open_fd(&r, fd) == 0)
		while (kp_reader_next(&r, &rec) > 0)
			visit(&l, tp, &u, rec);
	kp_unwind_truncation(&u.st, &u.strs, what, where, hint, sizeof(what));
	kp_unwind_stats_release(&u.st);
	kp_strtab_release(&u.strs);
	kp_reader_release(&r);
	kp_evlist_release(&l);
	kp_tp_free(tp);
	close(fd);
	return 0;
}
