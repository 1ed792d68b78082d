/* SPDX-License-Identifier: MIT */
/*
 * mangle-stacks.c - copies a .kprof file, damaging the user registers and stack copies of its
 * samples (PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER), for the tests of DWARF unwinding
 * on input it cannot trust:
 *
 *   mangle-stacks MODE SEED IN OUT
 *
 *   stack  the copy's words replaced by random bits, by pointers into the copy, or by words
 *          moved from elsewhere in it (plausible return addresses in the wrong places), or
 *          by a mix of the three
 *   regs   SP, IP and BP set to random bits, into the copy, near 0, near 2^64, kernel
 *          addresses, or left alone; every other register random
 *   dyn    the copy's dyn_size larger than the copy (a reader must refuse or clamp it), or
 *          smaller and not a multiple of 8
 *   zero   the copy's bytes all zero
 *   wrap   SP 0 and BP 2^64 - 16, the rest intact: in code with frame pointers the CFA
 *          (rbp + 16) wraps to 0 and the return address is asked for at 2^64 - 8, which is
 *          not in the copy, though addr - sp + 8 wraps to 0 there too
 *   mix    one of the five, chosen per sample
 *
 * Damage is a function of SEED and the sample's position, so a failure reproduces exactly.
 * Only bytes inside the samples change: every record keeps its size and type, and the file is
 * rewritten through the real writer (ROUND records become kp_writer_round() calls), so the
 * reader's framing and checks pass and what is tested is what lies behind them. Prints
 * "damaged N of M samples" (N: those with registers and a stack copy). Exits 0, 1 on an
 * error, 2 on a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/evlist.h"
#include "formats/reader.h"
#include "formats/rec.h"
#include "formats/util.h"
#include "formats/writer.h"

enum mode { M_STACK, M_REGS, M_DYN, M_ZERO, M_WRAP, M_MIX };
static const char *const mode_names[] = { "stack", "regs", "dyn", "zero", "wrap", "mix" };

/* splitmix64: small, and the same sequence everywhere for a seed */
static uint64_t rnd(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Where one sample's fields lie in the (writable) copy of its record. */
struct target {
	uint64_t *regs;		/* nr_regs of them, in perf's mask order */
	uint32_t nr_regs;
	uint64_t mask;		/* attr.sample_regs_user */
	uint8_t *stack;		/* stack_size bytes */
	uint64_t stack_size;
	uint64_t *dyn_size;
};

/* The slot of perf register @bit in the sample, or NULL if the mask does not hold it. */
static uint64_t *reg_slot(const struct target *t, unsigned int bit)
{
	if (bit >= 64 || !(t->mask >> bit & 1))
		return NULL;
	return &t->regs[__builtin_popcountll(t->mask & ((1ull << bit) - 1))];
}

/* A bad value for a stack or code pointer, one of several kinds an unwinder must survive. */
static uint64_t bad_pointer(uint64_t *rs, uint64_t sp, uint64_t dyn, uint64_t old)
{
	switch (rnd(rs) % 6) {
	case 0:
		return rnd(rs);
	case 1: /* into the copy, sometimes misaligned */
		return sp + rnd(rs) % (dyn + 1);
	case 2:
		return rnd(rs) % 8;
	case 3:
		return UINT64_MAX - rnd(rs) % 64;
	case 4:
		return 0xffffffff81000000ull + rnd(rs) % (1u << 24);
	default:
		return old;
	}
}

#define REG_BP 6	/* perf's x86 register numbers (asm/perf_regs.h) */
#define REG_SP 7
#define REG_IP 8

static void mangle_regs(const struct target *t, uint64_t *rs)
{
	uint64_t *sp = reg_slot(t, REG_SP), *ip = reg_slot(t, REG_IP), *bp = reg_slot(t, REG_BP);
	uint64_t old_sp = sp ? *sp : 0, old_ip = ip ? *ip : 0, old_bp = bp ? *bp : 0;
	uint64_t dyn = *t->dyn_size;

	for (uint32_t i = 0; i < t->nr_regs; i++)
		t->regs[i] = rnd(rs);
	if (sp)
		*sp = bad_pointer(rs, old_sp, dyn, old_sp);
	if (ip)
		*ip = bad_pointer(rs, old_sp, dyn, old_ip);
	if (bp)
		*bp = bad_pointer(rs, old_sp, dyn, old_bp);
}

static void mangle_stack(const struct target *t, uint64_t *rs, uint64_t sp)
{
	uint64_t words = t->stack_size / 8, kind = rnd(rs) % 4;

	for (uint64_t i = 0; i < words; i++) {
		uint64_t v, k = kind == 3 ? rnd(rs) % 3 : kind;
		if (k == 0)
			v = rnd(rs);
		else if (k == 1)
			v = sp + rnd(rs) % (t->stack_size + 1);
		else
			memcpy(&v, t->stack + rnd(rs) % words * 8, 8);
		memcpy(t->stack + i * 8, &v, 8);
	}
}

static void mangle_dyn(const struct target *t, uint64_t *rs)
{
	static const uint64_t huge[] = { UINT64_MAX, UINT64_MAX - 7, 1ull << 63, 1ull << 32 };

	switch (rnd(rs) % 4) {
	case 0:
		*t->dyn_size = t->stack_size + 1 + rnd(rs) % 4096;
		break;
	case 1:
		*t->dyn_size = huge[rnd(rs) % ARRAY_SIZE(huge)];
		break;
	default: /* in the copy, but odd: the last word is partly outside */
		*t->dyn_size = rnd(rs) % t->stack_size | 1;
		break;
	}
}

static void mangle(enum mode mode, const struct target *t, uint64_t *rs)
{
	uint64_t *sp = reg_slot(t, REG_SP), *bp = reg_slot(t, REG_BP);

	if (mode == M_MIX)
		mode = (enum mode)(rnd(rs) % M_MIX);
	switch (mode) {
	case M_STACK:
		mangle_stack(t, rs, sp ? *sp : 0);
		break;
	case M_REGS:
		mangle_regs(t, rs);
		break;
	case M_DYN:
		mangle_dyn(t, rs);
		break;
	case M_WRAP:
		if (sp && bp) {
			*sp = 0;
			*bp = UINT64_MAX - 15;
		}
		break;
	case M_ZERO:
	default:
		memset(t->stack, 0, t->stack_size);
		break;
	}
}

/* Find the regs and the stack copy of the sample @rec (a writable copy); false if it has none. */
static bool locate(const struct kp_evlist *l, struct kp_rec_header *rec, struct target *t)
{
	const uint64_t need = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	const struct kp_evsel *ev = kp_evlist_find(l, rec);
	struct kp_sample s;
	uint8_t *base = (uint8_t *)rec;

	if (!ev || (ev->attr.sample_type & need) != need ||
	    kp_rec_parse_sample(&ev->attr, rec, &s) || !s.regs_user_abi || !s.regs_user ||
	    !s.stack_size)
		return false;
	/* the parser's pointers are borrowed from @rec: turn them back into writable ones */
	t->regs = (uint64_t *)(base + ((const uint8_t *)s.regs_user - base));
	t->nr_regs = s.nr_regs_user;
	t->mask = ev->attr.sample_regs_user;
	t->stack = base + ((const uint8_t *)s.stack_data - base);
	t->stack_size = s.stack_size;
	t->dyn_size = (uint64_t *)(t->stack + s.stack_size);
	return true;
}

struct counts {
	uint64_t samples;	/* PERF_RECORD_SAMPLEs */
	uint64_t damaged;	/* of those, the ones with registers and a stack copy */
};

static int rewrite(enum mode mode, uint64_t seed, struct kp_reader *r, struct kp_writer *w,
		struct counts *n)
{
	static uint64_t buf[KP_REC_MAX_SIZE / 8];
	struct kp_rec_header *copy = (struct kp_rec_header *)buf;
	const struct kp_rec_header *rec;
	struct kp_evlist l;
	struct target t;
	int rc;

	kp_evlist_init(&l);
	while ((rc = kp_reader_next(r, &rec)) > 0) {
		if (rec->type == KP_REC_ATTR)
			kp_evlist_add(&l, rec);
		if (rec->type == KP_REC_ROUND) {
			kp_writer_round(w);
			continue;
		}
		memcpy(buf, rec, rec->size);
		if (rec->type == PERF_RECORD_SAMPLE)
			n->samples++;
		if (rec->type == PERF_RECORD_SAMPLE && locate(&l, copy, &t)) {
			/* a stream per sample: the damage to one does not depend on the others' */
			uint64_t rs = seed * 0x100000001b3ull + n->samples;
			mangle(mode, &t, &rs);
			n->damaged++;
		}
		kp_writer_add(w, copy);
	}
	kp_evlist_release(&l);
	return rc;
}

static int usage(void)
{
	fprintf(stderr, "usage: mangle-stacks stack|regs|dyn|zero|wrap|mix SEED IN OUT\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct kp_reader r;
	struct kp_writer w;
	struct counts n = { 0, 0 };
	enum mode mode = M_MIX + 1;
	char *end;
	uint64_t seed;
	int fd, rc;

	if (argc != 5)
		return usage();
	for (size_t i = 0; i < ARRAY_SIZE(mode_names); i++)
		if (!strcmp(argv[1], mode_names[i]))
			mode = (enum mode)i;
	errno = 0;
	seed = strtoull(argv[2], &end, 0);
	if (mode > M_MIX || errno || end == argv[2] || *end)
		return usage();
	rc = kp_reader_open(&r, argv[3]);
	if (rc) {
		fprintf(stderr, "mangle-stacks: cannot read '%s': %s\n", argv[3], kp_strerror(rc));
		kp_reader_release(&r);
		return 1;
	}
	fd = open(argv[4], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		fprintf(stderr, "mangle-stacks: cannot create '%s': %s\n", argv[4], strerror(errno));
		kp_reader_release(&r);
		return 1;
	}
	rc = kp_writer_init(&w, fd, KP_WRITER_DEFAULT_LEVEL, 0);
	if (!rc)
		rc = rewrite(mode, seed, &r, &w, &n);
	if (rc < 0)
		fprintf(stderr, "mangle-stacks: '%s': %s\n", argv[3], kp_strerror(rc));
	kp_reader_release(&r);
	if (kp_writer_close(&w) || close(fd)) {
		fprintf(stderr, "mangle-stacks: cannot write '%s'\n", argv[4]);
		return 1;
	}
	printf("damaged %llu of %llu samples\n", (unsigned long long)n.damaged,
	       (unsigned long long)n.samples);
	return rc < 0;
}
