/* SPDX-License-Identifier: MIT */
/*
 * fuzz-reader.c - libFuzzer target over everything that reads a .kprof file's bytes: the
 * header and chunk checks, record validation, the attr/meta views, the event lookup, the
 * sample and trailer parsers, the typed views of the side-band records, the encoders (each
 * parsed record written again, parsed, and written once more to the same bytes), and the
 * tracepoint decoder (stored format files, through libtraceevent, against RAW payloads); and
 * the packed chunk encoding on its own, for inputs that are not a file.
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
#include "formats/recpack.h"
#include "formats/util.h"
#include "report/replay/tracepoint.h"
#include "report/replay/unwind-stats.h"

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

/* Scratch for the encoders: a record and the one made again from it. */
static uint64_t enc[2][KP_REC_MAX_SIZE / 8];

/*
 * Encoding is a fixpoint: what @encode writes parses (with @parse) and encodes to the same
 * bytes. @encode writes the view @v into a buffer; @parse reads it back into @v. A sample never
 * grows, but a side-band record may (a string whose NUL lay in the trailer, written again before
 * a new trailer): one that then outgrows a record may be refused (@may_grow).
 */
#define FIXPOINT(encode, parse, v, may_grow)                                               \
	do {                                                                               \
		int n0 = encode(v, enc[0]), n1;                                            \
		if ((may_grow) && n0 == -KP_EENCODE)                                       \
			break;                                                             \
		if (n0 <= 0 || (size_t)n0 > sizeof(enc[0]) || parse((void *)enc[0], n0, v)) \
			abort();                                                           \
		n1 = encode(v, enc[1]);                                                    \
		if (n1 != n0 || memcmp(enc[0], enc[1], n0))                                \
			abort();                                                           \
	} while (0)

static const struct perf_event_attr *fx_attr;
static const struct kp_sample *fx_id;
static uint16_t fx_misc;

static int enc_sample(const struct kp_sample *s, uint64_t *buf)
{
	return kp_rec_encode_sample(fx_attr, s, fx_misc, buf, sizeof(enc[0]));
}

static int parse_sample(const struct kp_rec_header *rec, size_t avail, struct kp_sample *s)
{
	(void)avail;
	return kp_rec_parse_sample(fx_attr, rec, s);
}

static int enc_mmap2(const struct kp_mmap *m, uint64_t *buf)
{
	return kp_rec_encode_mmap2(fx_attr, m, fx_misc, fx_id, buf, sizeof(enc[0]));
}

static int enc_comm(const struct kp_comm *c, uint64_t *buf)
{
	return kp_rec_encode_comm(fx_attr, c, fx_misc, fx_id, buf, sizeof(enc[0]));
}

static uint32_t fx_type;

static int enc_task(const struct kp_task *t, uint64_t *buf)
{
	return kp_rec_encode_task(fx_attr, fx_type, t, fx_misc, fx_id, buf, sizeof(enc[0]));
}

/* @s (borrowed from enc[0]) as the unwinding thread writes it: it reads as a sample with its
 * chain and without registers or a stack copy. */
static void check_unwound(const struct perf_event_attr *attr, uint16_t misc,
			  const struct kp_sample *s)
{
	struct kp_sample u;
	int n = kp_rec_encode_unwound(attr, s, misc, s->callchain, s->nr_callchain, enc[1],
				      sizeof(enc[1]));

	if (n <= 0 || (size_t)n > sizeof(enc[1]) || kp_rec_parse_sample(attr, (void *)enc[1], &u) ||
	    u.nr_callchain != s->nr_callchain || u.regs_user_abi || u.stack_size)
		abort();
}

/* A validated record must parse into its view, whose string ends inside it; those kprof
 * synthesizes must encode again. */
static void visit_side(const struct perf_event_attr *attr, const struct kp_rec_header *rec,
		       const struct kp_sample *id)
{
	struct kp_mmap m;
	struct kp_comm c;
	struct kp_task t;
	struct kp_lost l;
	struct kp_switch sw;

	fx_attr = attr;
	fx_id = id;
	fx_misc = rec->misc;
	fx_type = rec->type;
	switch (rec->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (kp_rec_parse_mmap(rec, rec->size, &m))
			abort();
		check_within(rec, m.filename, strlen(m.filename) + 1);
		if (rec->type == PERF_RECORD_MMAP2)
			FIXPOINT(enc_mmap2, kp_rec_parse_mmap, &m, true);
		break;
	case PERF_RECORD_COMM:
		if (kp_rec_parse_comm(rec, rec->size, &c))
			abort();
		check_within(rec, c.comm, strlen(c.comm) + 1);
		FIXPOINT(enc_comm, kp_rec_parse_comm, &c, true);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (kp_rec_parse_task(rec, rec->size, &t))
			abort();
		FIXPOINT(enc_task, kp_rec_parse_task, &t, false);
		break;
	case PERF_RECORD_LOST:
		if (kp_rec_parse_lost(rec, rec->size, &l))
			abort();
		break;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		if (kp_rec_parse_switch(rec, rec->size, &sw))
			abort();
		break;
	default:
		break;
	}
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
				kp_tp_print(tp, s.raw, s.raw_size, buf, sizeof(buf));
			}
			for (uint64_t i = 0; i < s.stack_size; i++)
				sum += ((const uint8_t *)s.stack_data)[i];
			for (uint32_t i = 0; i < s.nr_regs_user; i++)
				sum += s.regs_user[i];
			for (uint64_t i = 0; i < s.nr_branches * 3; i++)
				sum += s.branches[i];
			check_within(rec, s.read, s.nr_read * 8);
			check_within(rec, s.regs_intr, s.nr_regs_intr * 8ull);
			check_within(rec, s.aux, s.aux_size);
			fx_attr = &ev->attr;
			fx_misc = rec->misc;
			FIXPOINT(enc_sample, parse_sample, &s, false);
			check_unwound(&ev->attr, rec->misc, &s);
		}
	} else {
		kp_rec_parse_id(&ev->attr, rec, &s); /* zeroed when it fails */
		visit_side(&ev->attr, rec, &s);
	}
}

/*
 * The packed encoding on its own (recpack.h): an input that is not a file is a chunk's
 * payload after zstd, decoded whole and torn. It may decode or fail, but every record it
 * hands out must walk (sizes that add up to what it says it wrote) inside the room given.
 */
static void unpack_raw(const uint8_t *data, size_t size)
{
	static uint8_t out[1 << 16];
	struct kp_unpacker u;

	kp_unpacker_init(&u);
	for (int partial = 0; partial < 2; partial++) {
		size_t got, pos = 0;
		uint32_t n, seen = 0;

		kp_unpack(&u, data, size, partial, out, sizeof(out), &got, &n);
		if (got > sizeof(out))
			abort();
		while (kp_rec_next(out, got, &pos))
			seen++;
		if (pos != got || seen != n)
			abort();
	}
	kp_unpacker_release(&u);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_reader r;
	struct kp_evlist l;
	const struct kp_rec_header *rec;
	int fd = memfd_create("fuzz", MFD_CLOEXEC);

	if (size < sizeof(KP_FILE_MAGIC) - 1 || memcmp(data, KP_FILE_MAGIC, sizeof(KP_FILE_MAGIC) - 1))
		unpack_raw(data, size);
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
	kp_unwind_truncation(&u.st, &u.strs, kp_evlist_stack_copy(&l), what, where, hint,
			     sizeof(what));
	kp_unwind_stats_release(&u.st);
	kp_strtab_release(&u.strs);
	kp_reader_release(&r);
	kp_evlist_release(&l);
	kp_tp_free(tp);
	close(fd);
	return 0;
}
