/* SPDX-License-Identifier: MIT */
#include "unwind-stats.h"

#include <stdlib.h>
#include <string.h>

#include "formats/util.h"

static const char *const stop_str[KP_UNWIND_NR_STOPS] = {
	[KP_UNWIND_STOP_COPY] = "stack copy too small",
	[KP_UNWIND_STOP_CFI] = "no usable CFI",
	[KP_UNWIND_STOP_MEMORY] = "unreadable stack",
	[KP_UNWIND_STOP_DEPTH] = "depth limit",
	[KP_UNWIND_STOP_UNMAPPED] = "unmapped code",
	[KP_UNWIND_STOP_JIT_NONE] = "JIT code without unwind info",
	[KP_UNWIND_STOP_JIT_BAD] = "unusable JIT unwind info",
};

/* The record fields of the reasons UNWIND_DSO counts, in enum order; UNMAPPED and the JIT's have
 * no binary. */
#define NR_DSO_STOPS 4

const char *kp_unwind_stop_str(enum kp_unwind_stop why)
{
	return (size_t)why < KP_UNWIND_NR_STOPS ? stop_str[why] : "?";
}

void kp_unwind_stats_release(struct kp_unwind_stats *st)
{
	free(st->dsos);
	kp_hash_release(&st->dso_ids);
	memset(st, 0, sizeof(*st));
}

/* A file may hold any number of UNWIND_DSO records: paths are found by hash, not by a scan. */
static struct kp_unwind_dso_stops *dso_of(struct kp_unwind_stats *st, uint32_t path)
{
	uint64_t *i = kp_hash_get(&st->dso_ids, path);

	if (i)
		return &st->dsos[*i];
	KP_GROW(st->dsos, st->cap_dsos, st->nr_dsos + 1);
	st->dsos[st->nr_dsos] = (struct kp_unwind_dso_stops){ .path = path };
	kp_hash_put(&st->dso_ids, path, st->nr_dsos);
	return &st->dsos[st->nr_dsos++];
}

void kp_unwind_stats_stop(struct kp_unwind_stats *st, enum kp_unwind_stop why, uint32_t path,
			  uint64_t n)
{
	if ((size_t)why >= KP_UNWIND_NR_STOPS)
		return;
	st->stops[why] += n;
	if (path)
		dso_of(st, path)->n[why] += n;
}

void kp_unwind_stats_add(struct kp_unwind_stats *st, struct kp_strtab *strs,
			 const struct kp_unwind_stats *from, const struct kp_strtab *from_strs)
{
	st->samples += from->samples;
	st->failed += from->failed;
	for (size_t w = 0; w < KP_UNWIND_NR_STOPS; w++)
		st->stops[w] += from->stops[w];
	for (size_t i = 0; i < from->nr_dsos; i++) {
		const struct kp_unwind_dso_stops *f = &from->dsos[i];
		struct kp_unwind_dso_stops *d =
			dso_of(st, kp_strtab_intern(strs, kp_strtab_get(from_strs, f->path)));

		for (size_t w = 0; w < KP_UNWIND_NR_STOPS; w++)
			d->n[w] += f->n[w];
	}
}

uint64_t kp_unwind_stats_early(const struct kp_unwind_stats *st)
{
	uint64_t n = 0;

	for (size_t w = 0; w < KP_UNWIND_NR_STOPS; w++)
		n += st->stops[w];
	return n;
}

/* --- the file's records ----------------------------------------------------------------------- */

void kp_unwind_stats_read(struct kp_unwind_stats *st, struct kp_strtab *strs,
			  const struct kp_rec_header *rec)
{
	if (rec->type == KP_REC_UNWIND_STATS) {
		struct kp_rec_unwind_stats u = { .h = *rec };

		/* an older record stops before end_memory, or before end_jit_none: those read as 0 */
		memcpy(&u, rec, rec->size < sizeof(u) ? rec->size : sizeof(u));
		st->samples += u.unwound + u.kept_failed;
		st->failed += u.failed;
		st->stops[KP_UNWIND_STOP_COPY] += u.end_copy;
		st->stops[KP_UNWIND_STOP_CFI] += u.end_other;
		st->stops[KP_UNWIND_STOP_MEMORY] += u.end_memory;
		st->stops[KP_UNWIND_STOP_DEPTH] += u.end_depth;
		st->stops[KP_UNWIND_STOP_UNMAPPED] += u.end_unmapped;
		st->stops[KP_UNWIND_STOP_JIT_NONE] += u.end_jit_none;
		st->stops[KP_UNWIND_STOP_JIT_BAD] += u.end_jit_bad;
	} else if (rec->type == KP_REC_UNWIND_DSO) {
		const struct kp_rec_unwind_dso *u = (const void *)rec;
		const uint64_t n[NR_DSO_STOPS] = { u->end_copy, u->end_cfi, u->end_memory,
						   u->end_depth };
		/* the reader checked the NUL; the totals came with UNWIND_STATS */
		struct kp_unwind_dso_stops *d = dso_of(st, kp_strtab_intern(strs, (const char *)(u + 1)));

		for (size_t w = 0; w < NR_DSO_STOPS; w++)
			d->n[w] += n[w];
	}
}

void kp_unwind_stats_fill(const struct kp_unwind_stats *st, struct kp_rec_unwind_stats *rec)
{
	rec->failed = st->failed;
	rec->end_copy = st->stops[KP_UNWIND_STOP_COPY];
	rec->end_other = st->stops[KP_UNWIND_STOP_CFI];
	rec->end_memory = st->stops[KP_UNWIND_STOP_MEMORY];
	rec->end_depth = st->stops[KP_UNWIND_STOP_DEPTH];
	rec->end_unmapped = st->stops[KP_UNWIND_STOP_UNMAPPED];
	rec->end_jit_none = st->stops[KP_UNWIND_STOP_JIT_NONE];
	rec->end_jit_bad = st->stops[KP_UNWIND_STOP_JIT_BAD];
}

void kp_unwind_stats_write(const struct kp_unwind_stats *st, const struct kp_strtab *strs,
			   struct kp_writer *w)
{
	for (size_t i = 0; i < st->nr_dsos; i++) {
		const struct kp_unwind_dso_stops *d = &st->dsos[i];
		const char *path = kp_strtab_get(strs, d->path);
		size_t len = strlen(path) + 1, size = (sizeof(struct kp_rec_unwind_dso) + len + 7) & ~7ul;
		struct kp_rec_unwind_dso *r;

		if (size > KP_REC_MAX_SIZE)
			continue; /* a path that long is no binary's */
		r = kp_xcalloc(1, size);
		*r = (struct kp_rec_unwind_dso){ { KP_REC_UNWIND_DSO, 0, (uint16_t)size },
						 d->n[KP_UNWIND_STOP_COPY], d->n[KP_UNWIND_STOP_CFI],
						 d->n[KP_UNWIND_STOP_MEMORY], d->n[KP_UNWIND_STOP_DEPTH] };
		memcpy(r + 1, path, len);
		kp_writer_add(w, r);
		free(r);
	}
}

/* --- what the user is told ------------------------------------------------------------------ */

static uint64_t dso_total(const struct kp_unwind_dso_stops *d)
{
	uint64_t n = 0;

	for (size_t w = 0; w < KP_UNWIND_NR_STOPS; w++)
		n += d->n[w];
	return n;
}

/* The reason @d stopped most stacks for. */
static enum kp_unwind_stop dso_main_stop(const struct kp_unwind_dso_stops *d)
{
	size_t best = 0;

	for (size_t w = 1; w < KP_UNWIND_NR_STOPS; w++)
		if (d->n[w] > d->n[best])
			best = w;
	return (enum kp_unwind_stop)best;
}

/* The binary with the most stops for @why (any reason when @why is KP_UNWIND_NR_STOPS) not yet
 * in @taken; -1 when none has any. */
static long top_dso(const struct kp_unwind_stats *st, size_t why, const bool *taken)
{
	long best = -1;
	uint64_t most = 0;

	for (size_t i = 0; i < st->nr_dsos; i++) {
		uint64_t n = why < KP_UNWIND_NR_STOPS ? st->dsos[i].n[why] : dso_total(&st->dsos[i]);

		if (!taken[i] && n > most) {
			most = n;
			best = (long)i;
		}
	}
	return best;
}

/* snprintf at @*len into @buf of @size, never past its end. */
#define APPEND(buf, size, len, ...)                                                         \
	do {                                                                                \
		if (*(len) < (size))                                                        \
			*(len) += (size_t)snprintf((buf) + *(len), (size) - *(len), __VA_ARGS__); \
	} while (0)

bool kp_unwind_truncation(const struct kp_unwind_stats *st, const struct kp_strtab *strs,
			  uint32_t copy, char *what, char *where, char *hint, size_t size)
{
	uint64_t early = kp_unwind_stats_early(st);
	size_t wl = 0, dl = 0, hl = 0;
	bool *taken;
	long cfi;

	if (!st->samples || 100.0 * (double)early / (double)st->samples <= KP_UNWIND_TRUNCATED_PCT)
		return false;
	APPEND(what, size, &wl, "%.1f%% of %llu DWARF stacks stop before their thread's entry:",
	       100.0 * (double)early / (double)st->samples, (unsigned long long)st->samples);
	for (size_t w = 0, first = 1; w < KP_UNWIND_NR_STOPS; w++)
		if (st->stops[w]) {
			APPEND(what, size, &wl, "%s %.1f%% %s", first ? "" : ",",
			       100.0 * (double)st->stops[w] / (double)st->samples, stop_str[w]);
			first = 0;
		}
	where[0] = hint[0] = '\0';
	taken = kp_xcalloc(st->nr_dsos + 1, sizeof(*taken));
	for (int k = 0; k < 3; k++) {
		long i = top_dso(st, KP_UNWIND_NR_STOPS, taken);

		if (i < 0)
			break;
		taken[i] = true;
		APPEND(where, size, &dl, "%s%s: %llu (%s)", k ? ", " : "they stop in ",
		       kp_strtab_get(strs, st->dsos[i].path),
		       (unsigned long long)dso_total(&st->dsos[i]),
		       stop_str[dso_main_stop(&st->dsos[i])]);
	}
	memset(taken, 0, st->nr_dsos + 1);
	cfi = top_dso(st, KP_UNWIND_STOP_CFI, taken);
	free(taken);
	/* at the largest copy, no larger one helps */
	if (st->stops[KP_UNWIND_STOP_COPY] && copy < KP_STACK_COPY_MAX)
		APPEND(hint, size, &hl, "record with --call-graph dwarf,%u for a larger stack copy",
		       KP_STACK_COPY_MAX);
	if (cfi >= 0)
		APPEND(hint, size, &hl, "%sinstall the debug symbols (the -dbgsym package) of %s for "
		       "its CFI", hl ? "; " : "", kp_strtab_get(strs, st->dsos[cfi].path));
	if (st->stops[KP_UNWIND_STOP_JIT_NONE])
		APPEND(hint, size, &hl, "%sa JIT that writes its code's unwinding info into its "
		       "jitdump (python3 -X perf_jit; node --perf-prof --perf-prof-unwinding-info) "
		       "or keeps frame pointers lets DWARF stacks through its code", hl ? "; " : "");
	return true;
}

void kp_unwind_stats_print(const struct kp_unwind_stats *st, const struct kp_strtab *strs,
			   FILE *out, const char *prefix)
{
	fprintf(out, "%sstacks that stopped before their thread's entry: %llu", prefix,
		(unsigned long long)kp_unwind_stats_early(st));
	for (size_t w = 0; w < KP_UNWIND_NR_STOPS; w++)
		fprintf(out, "%s %llu %s", w ? "," : ":", (unsigned long long)st->stops[w],
			stop_str[w]);
	fputc('\n', out);
	for (size_t i = 0; i < st->nr_dsos; i++) {
		fprintf(out, "%s  %s:", prefix, kp_strtab_get(strs, st->dsos[i].path));
		for (size_t w = 0; w < NR_DSO_STOPS; w++)
			fprintf(out, "%s %llu %s", w ? "," : "", (unsigned long long)st->dsos[i].n[w],
				stop_str[w]);
		fputc('\n', out);
	}
}
