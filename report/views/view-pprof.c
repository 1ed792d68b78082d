/* SPDX-License-Identifier: MIT */
/*
 * view-pprof.c - the profile as pprof's profile.proto, gzip-compressed: what `go tool pprof`,
 * Grafana Pyroscope, Parca and OpenTelemetry's profiles read.
 *
 * The profile is built with addresses (the view's `addrs` trait): a pprof Location is one
 * address in one Mapping, and its Lines are the frames of that address, the innermost inlined
 * function first and the function holding them last. Functions carry their names and source
 * files, and every mapping says so (has_functions...), so the file needs no binary to be read.
 * A Sample is a stack (leaf first) with two values, its samples and its weight in the event's
 * unit, and the labels asked for (pid, tid, comm, cpu), which come from the timeline: samples
 * of one stack with different labels are different Samples. The command's pseudo-frame at the
 * root of kprof's stacks is not a frame here: it is the comm label.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "formats/util.h"
#include "pb.h"
#include "view.h"

/* profile.proto's field numbers */
enum { P_SAMPLE_TYPE = 1, P_SAMPLE, P_MAPPING, P_LOCATION, P_FUNCTION, P_STRING_TABLE,
       P_TIME_NANOS = 9, P_DURATION_NANOS, P_PERIOD_TYPE, P_PERIOD, P_DEFAULT_SAMPLE_TYPE = 14 };
enum { VT_TYPE = 1, VT_UNIT };
enum { S_LOCATION_ID = 1, S_VALUE, S_LABEL };
enum { L_KEY = 1, L_STR, L_NUM, L_NUM_UNIT };
enum { M_ID = 1, M_START, M_LIMIT, M_OFFSET, M_FILENAME, M_BUILD_ID, M_HAS_FUNCTIONS,
       M_HAS_FILENAMES, M_HAS_LINE_NUMBERS, M_HAS_INLINE_FRAMES };
enum { LOC_ID = 1, LOC_MAPPING_ID, LOC_ADDRESS, LOC_LINE };
enum { LINE_FUNCTION_ID = 1, LINE_LINE };
enum { F_ID = 1, F_NAME, F_SYSTEM_NAME, F_FILENAME };

#define MAX_LINES 64 /* the frames of one address (KP_DSO_MAX_FRAMES) */

struct pprof {
	const struct kp_profile *p;
	const struct kp_view_opts *o;
	struct kp_pb b;		/* the Profile's fields but its strings */
	struct kp_pb strings;	/* its string_table */
	struct kp_hash str_ids;	/* strtab id + 1, or a literal's address -> string index */
	uint64_t nr_strs;
	struct kp_hash loc_ids;	/* a location's outermost node's loc -> Location id */
	struct kp_hash func_ids;	/* kp func << 32 | system name -> Function id */
	uint64_t nr_locs, nr_funcs;
	uint64_t *stack;
	size_t cap_stack;
};

static unsigned labels(const struct kp_view_opts *o)
{
	return KP_LABEL_ALL & ~o->no_labels;
}

static const struct { const char *name; unsigned bit; } label_names[] = {
	{ "pid", KP_LABEL_PID }, { "tid", KP_LABEL_TID }, { "comm", KP_LABEL_COMM },
	{ "cpu", KP_LABEL_CPU },
};

/* --pprof-labels: some of pid,tid,comm,cpu, or none */
static int parse_labels(struct kp_view_opts *o, const char *arg, char *why, size_t size)
{
	unsigned want = 0;
	const char *p = arg;

	while (strcmp(arg, "none") && *p) {
		size_t n = strcspn(p, ","), i = 0;
		while (i < ARRAY_SIZE(label_names) &&
		       (strlen(label_names[i].name) != n || strncmp(label_names[i].name, p, n)))
			i++;
		if (i == ARRAY_SIZE(label_names)) {
			snprintf(why, size, "--pprof-labels takes pid, tid, comm and cpu, or none, "
					    "not '%.*s'", (int)n, p);
			return -EINVAL;
		}
		want |= label_names[i].bit;
		p += n + (p[n] == ',');
	}
	o->no_labels = KP_LABEL_ALL & ~want;
	return 0;
}

const struct kp_view_option kp_pprof_options[] = {
	{ "pprof-labels", "L", "labels: some of pid,tid,comm,cpu (default all), or none",
	  parse_labels },
	{ NULL, NULL, NULL, NULL },
};

/* A string's index in the string table, added on first use. */
static uint64_t str_index(struct pprof *pp, uint64_t key, const char *s)
{
	uint64_t *id = kp_hash_get(&pp->str_ids, key);

	if (id)
		return *id;
	kp_pb_bytes(&pp->strings, P_STRING_TABLE, s, strlen(s));
	kp_hash_put(&pp->str_ids, key, pp->nr_strs);
	return pp->nr_strs++;
}

static uint64_t str_id(struct pprof *pp, uint32_t id)
{
	return id ? str_index(pp, (uint64_t)id + 1, kp_strtab_get(pp->p->strs, id)) : 0;
}

/* A literal (its address is its key: never a small strtab id) */
static uint64_t str_lit(struct pprof *pp, const char *s)
{
	return str_index(pp, (uint64_t)(uintptr_t)s | 1ull << 63, s);
}

static uint64_t function(struct pprof *pp, const struct kp_loc *l)
{
	uint64_t key = (uint64_t)l->func << 32 | l->sys, *id = kp_hash_get(&pp->func_ids, key);
	const struct kp_func *f = &pp->p->funcs[l->func];
	uint64_t name = str_id(pp, f->name), file = str_id(pp, l->file);
	size_t at;

	if (id)
		return *id;
	kp_hash_put(&pp->func_ids, key, ++pp->nr_funcs);
	at = kp_pb_begin(&pp->b, P_FUNCTION);
	kp_pb_u64(&pp->b, F_ID, pp->nr_funcs);
	kp_pb_u64(&pp->b, F_NAME, name);
	kp_pb_u64(&pp->b, F_SYSTEM_NAME, l->sys ? str_id(pp, l->sys) : name);
	kp_pb_u64(&pp->b, F_FILENAME, file);
	kp_pb_end(&pp->b, at);
	return pp->nr_funcs;
}

/* The Location of the address whose frames are the nodes from @inner up to @outer. */
static uint64_t location(struct pprof *pp, uint32_t inner, uint32_t outer)
{
	const struct kp_profile *p = pp->p;
	const struct kp_loc *ol = &p->locs[p->nodes[outer].loc];
	uint64_t *id = kp_hash_get(&pp->loc_ids, p->nodes[outer].loc), lines[MAX_LINES];
	size_t n = 0, at;

	if (id)
		return *id;
	/* the functions first: a Function message must not begin inside the Location's */
	for (uint32_t node = inner;; node = p->nodes[node].parent) {
		const struct kp_loc *l = &p->locs[p->nodes[node].loc];
		if (n < ARRAY_SIZE(lines))
			lines[n++] = function(pp, l);
		if (node == outer)
			break;
	}
	kp_hash_put(&pp->loc_ids, p->nodes[outer].loc, ++pp->nr_locs);
	at = kp_pb_begin(&pp->b, P_LOCATION);
	kp_pb_u64(&pp->b, LOC_ID, pp->nr_locs);
	kp_pb_u64(&pp->b, LOC_MAPPING_ID, ol->map);
	kp_pb_u64(&pp->b, LOC_ADDRESS, ol->addr);
	n = 0;
	for (uint32_t node = inner;; node = p->nodes[node].parent) {
		const struct kp_loc *l = &p->locs[p->nodes[node].loc];
		size_t line = kp_pb_begin(&pp->b, LOC_LINE);
		kp_pb_u64(&pp->b, LINE_FUNCTION_ID, lines[n < ARRAY_SIZE(lines) ? n : 0]);
		kp_pb_u64(&pp->b, LINE_LINE, l->line);
		kp_pb_end(&pp->b, line);
		n++;
		if (node == outer)
			break;
	}
	kp_pb_end(&pp->b, at);
	return pp->nr_locs;
}

/* The Location ids of @node's stack, leaf first, into pp->stack; returns how many. */
static size_t stack(struct pprof *pp, uint32_t node)
{
	const struct kp_profile *p = pp->p;
	uint32_t inner = 0, last = 0;
	size_t n = 0;

	for (; node; node = p->nodes[node].parent) {
		const struct kp_loc *l = &p->locs[p->nodes[node].loc];
		if (p->funcs[l->func].flags & KP_LOC_COMM)
			continue;
		inner = inner ? inner : node;
		last = node;
		if (l->flags & KP_LOC_INLINED) /* its caller, at the same address, is below */
			continue;
		KP_GROW(pp->stack, pp->cap_stack, n + 1);
		pp->stack[n++] = location(pp, inner, node);
		inner = 0;
	}
	if (inner) { /* a stack cut inside an inline chain */
		KP_GROW(pp->stack, pp->cap_stack, n + 1);
		pp->stack[n++] = location(pp, inner, last);
	}
	return n;
}

static void label(struct pprof *pp, const char *key, uint64_t str, uint64_t num, bool is_str)
{
	size_t at = kp_pb_begin(&pp->b, S_LABEL);

	kp_pb_u64(&pp->b, L_KEY, str_lit(pp, key));
	if (is_str) {
		kp_pb_u64(&pp->b, L_STR, str);
	} else {
		/* a unit, so that pprof keeps a label of 0 (cpu 0, the idle task's pid): it drops
		 * a label whose str, num and unit are all unset; "count" shows a plain number */
		kp_pb_u64(&pp->b, L_NUM, num);
		kp_pb_u64(&pp->b, L_NUM_UNIT, str_lit(pp, "count"));
	}
	kp_pb_end(&pp->b, at);
}

/* One Sample: @node's stack, @count samples weighing @weight, and @e's labels (NULL: none). */
static void sample(struct pprof *pp, uint32_t node, uint64_t count, uint64_t weight,
		   const struct kp_seq_ent *e)
{
	size_t n = stack(pp, node), at;
	uint64_t values[2] = { count, weight };
	uint64_t comm = e && (labels(pp->o) & KP_LABEL_COMM) ? str_id(pp, e->comm) : 0;

	at = kp_pb_begin(&pp->b, P_SAMPLE);
	kp_pb_packed(&pp->b, S_LOCATION_ID, pp->stack, n);
	kp_pb_packed(&pp->b, S_VALUE, values, 2);
	if (e) {
		if (labels(pp->o) & KP_LABEL_PID)
			label(pp, "pid", 0, e->pid, false);
		if (labels(pp->o) & KP_LABEL_TID)
			label(pp, "tid", 0, e->tid, false);
		if (labels(pp->o) & KP_LABEL_COMM)
			label(pp, "comm", comm, 0, true);
		if (labels(pp->o) & KP_LABEL_CPU)
			label(pp, "cpu", 0, e->cpu, false);
	}
	kp_pb_end(&pp->b, at);
}

/* An aggregate of samples_labelled() sought: @k's stack and labels among @agg's. */
struct labelled {
	const struct kp_seq_ent *agg, *k;
};

static bool same_labels(const void *ctx, uint64_t id)
{
	const struct labelled *l = ctx;
	const struct kp_seq_ent *a = &l->agg[id], *k = l->k;

	return a->node == k->node && a->pid == k->pid && a->tid == k->tid && a->cpu == k->cpu &&
	       a->comm == k->comm;
}

/* The samples by stack and labels: runs of the timeline with the same of both add up. */
static void samples_labelled(struct pprof *pp)
{
	const struct kp_seq *seq = pp->o->seq;
	unsigned lb = labels(pp->o);
	struct kp_hash ids;
	struct kp_seq_ent *agg = NULL;
	size_t nr = 0, cap = 0;

	kp_hash_init(&ids);
	for (size_t i = 0; i < seq->nr; i++) {
		const struct kp_seq_ent *e = &seq->ents[i];
		struct kp_seq_ent k = { .node = e->node,
					.pid = lb & KP_LABEL_PID ? e->pid : 0,
					.tid = lb & KP_LABEL_TID ? e->tid : 0,
					.cpu = lb & KP_LABEL_CPU ? e->cpu : 0,
					.comm = lb & KP_LABEL_COMM ? e->comm : 0 };
		uint64_t words[] = { (uint64_t)k.node << 32 | k.comm, (uint64_t)k.pid << 32 | k.tid,
				     k.cpu };
		uint64_t key = kp_hash_words(words, ARRAY_SIZE(words), 7), *id;
		struct kp_seq_ent *a;

		if (e->event != pp->o->event)
			continue;
		id = kp_hash_find(&ids, &key, same_labels, &(struct labelled){ agg, &k });
		if (!id) {
			KP_GROW(agg, cap, nr + 1);
			agg[nr] = k;
			kp_hash_put(&ids, key, nr);
		}
		a = &agg[id ? *id : nr++];
		a->count += e->count;
		a->value += e->value;
	}
	for (size_t i = 0; i < nr; i++)
		sample(pp, agg[i].node, agg[i].count, pp->o->by_samples ? agg[i].count : agg[i].value,
		       &agg[i]);
	free(agg);
	kp_hash_release(&ids);
}

static void samples(struct pprof *pp)
{
	const struct kp_profile *p = pp->p;

	if (labels(pp->o) && pp->o->seq) {
		samples_labelled(pp);
		return;
	}
	for (uint32_t n = 1; n < p->nr_nodes; n++) {
		const struct kp_weight *w = kp_profile_self(p, n, pp->o->event);
		if (w->count)
			sample(pp, n, w->count, pp->o->by_samples ? w->count : w->period, NULL);
	}
}

static void value_type(struct pprof *pp, uint32_t field, const char *type, const char *unit)
{
	size_t at = kp_pb_begin(&pp->b, field);

	kp_pb_u64(&pp->b, VT_TYPE, str_lit(pp, type));
	kp_pb_u64(&pp->b, VT_UNIT, str_lit(pp, unit));
	kp_pb_end(&pp->b, at);
}

/* sample_type, period_type and period: samples/count, then the event in its own unit. */
static void header(struct pprof *pp)
{
	const struct kp_prof_event *ev = &pp->p->events[pp->o->event];
	const char *unit = ev->unit ? kp_strtab_get(pp->p->strs, ev->unit) : "samples";
	bool ns = !strcmp(unit, "ns") && !pp->o->by_samples;
	const char *type = ns ? "cpu" : ev->name ? kp_strtab_get(pp->p->strs, ev->name) : "events";
	const char *vunit = ns ? "nanoseconds" : "count";
	uint64_t period = ev->period;

	if (!period && ev->freq && ns)
		period = 1000000000ull / ev->freq;
	value_type(pp, P_SAMPLE_TYPE, "samples", "count");
	value_type(pp, P_SAMPLE_TYPE, type, vunit);
	value_type(pp, P_PERIOD_TYPE, type, vunit);
	kp_pb_u64(&pp->b, P_PERIOD, period);
	kp_pb_u64(&pp->b, P_TIME_NANOS, pp->p->wall_first);
	kp_pb_u64(&pp->b, P_DURATION_NANOS, pp->p->t_last - pp->p->t_first);
	if (pp->o->by_samples)
		kp_pb_u64(&pp->b, P_DEFAULT_SAMPLE_TYPE, str_lit(pp, "samples"));
}

/*
 * The main binary, which pprof takes to be the first mapping (its "File:"): the one whose
 * name begins with the command that has the most samples (a command name is a binary's name,
 * cut to 15 bytes), else the first file mapped. 0 if there is no file.
 */
static uint32_t main_map(const struct kp_profile *p, const struct kp_view_opts *o)
{
	const char *comm = NULL, *base;
	uint64_t best = 0;
	uint32_t first = 0;

	for (uint32_t c = p->first_child[0]; c; c = p->next_sibling[c]) {
		const struct kp_loc *l = &p->locs[p->nodes[c].loc];
		uint64_t w = kp_view_weight(o, kp_profile_total(p, c, o->event));
		if ((p->funcs[l->func].flags & KP_LOC_COMM) && w > best) {
			best = w;
			comm = kp_strtab_get(p->strs, p->funcs[l->func].name);
		}
	}
	for (uint32_t i = 1; i < p->nr_maps; i++) {
		const char *path = kp_strtab_get(p->strs, p->maps[i].path);
		if (p->maps[i].flags || path[0] != '/')
			continue; /* the kernel, anonymous maps, [vdso] */
		first = first ? first : i;
		base = strrchr(path, '/') + 1;
		if (comm && *comm && !strncmp(base, comm, strlen(comm)))
			return i;
	}
	return first;
}

static void mapping(struct pprof *pp, uint32_t i)
{
	const struct kp_mapping *m = &pp->p->maps[i];
	size_t at = kp_pb_begin(&pp->b, P_MAPPING);

	kp_pb_u64(&pp->b, M_ID, i);
	kp_pb_u64(&pp->b, M_START, m->start);
	kp_pb_u64(&pp->b, M_LIMIT, m->limit);
	kp_pb_u64(&pp->b, M_OFFSET, m->offset);
	kp_pb_u64(&pp->b, M_FILENAME, str_id(pp, m->path));
	kp_pb_u64(&pp->b, M_BUILD_ID, str_id(pp, m->build_id));
	/* names come with the file: nothing is left for pprof to look up */
	kp_pb_u64(&pp->b, M_HAS_FUNCTIONS, 1);
	kp_pb_u64(&pp->b, M_HAS_FILENAMES, pp->o->srcline);
	kp_pb_u64(&pp->b, M_HAS_LINE_NUMBERS, pp->o->srcline);
	kp_pb_u64(&pp->b, M_HAS_INLINE_FRAMES, 1);
	kp_pb_end(&pp->b, at);
}

/* Every mapping, the main binary first; ids stay the profile's indexes. */
static void mappings(struct pprof *pp)
{
	uint32_t first = main_map(pp->p, pp->o);

	if (first)
		mapping(pp, first);
	for (uint32_t i = 1; i < pp->p->nr_maps; i++)
		if (i != first)
			mapping(pp, i);
}

/* gzip @n bytes of @data onto @z's stream, into @out. */
static int deflate_to(z_stream *z, const uint8_t *data, size_t n, int flush, FILE *out)
{
	uint8_t buf[65536];
	int rc;

	z->next_in = (Bytef *)data;
	z->avail_in = (uInt)n;
	do {
		z->next_out = buf;
		z->avail_out = sizeof(buf);
		rc = deflate(z, flush);
		if (rc == Z_STREAM_ERROR)
			return -EIO;
		fwrite(buf, 1, sizeof(buf) - z->avail_out, out);
	} while (z->avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
	return 0;
}

int kp_view_pprof(const struct kp_profile *p, const struct kp_view_opts *o, FILE *out)
{
	struct pprof pp = { .p = p, .o = o, .nr_strs = 1 };
	z_stream z = { 0 };
	int rc;

	kp_hash_init(&pp.str_ids);
	kp_hash_init(&pp.loc_ids);
	kp_hash_init(&pp.func_ids);
	kp_pb_bytes(&pp.strings, P_STRING_TABLE, "", 0); /* string 0 is "" */
	header(&pp);
	mappings(&pp);
	samples(&pp);
	rc = deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16 /* gzip */, 8,
			  Z_DEFAULT_STRATEGY) == Z_OK ? 0 : -ENOMEM;
	if (!rc) {
		rc = deflate_to(&z, pp.b.buf, pp.b.len, Z_NO_FLUSH, out);
		if (!rc)
			rc = deflate_to(&z, pp.strings.buf, pp.strings.len, Z_FINISH, out);
		deflateEnd(&z);
	}
	kp_pb_release(&pp.b);
	kp_pb_release(&pp.strings);
	kp_hash_release(&pp.str_ids);
	kp_hash_release(&pp.loc_ids);
	kp_hash_release(&pp.func_ids);
	free(pp.stack);
	return rc;
}
