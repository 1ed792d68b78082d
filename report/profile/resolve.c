/* SPDX-License-Identifier: MIT */
#include "resolve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/util.h"

#define MAX_INLINE KP_DSO_MAX_FRAMES /* all of them: a shorter cut lost the function itself */
#define KERNEL_DSO_NAME "[kernel.kallsyms]"

/*
 * Cache keys: a user frame is (dso index + 1) << 48 | file offset (offsets stay below 2^48);
 * a kernel frame is its address, whose top 16 bits are all ones on x86-64 and so never equal
 * a dso index + 1 below 0xffff.
 */
static uint64_t user_key(uint32_t dso, uint64_t off)
{
	return ((uint64_t)dso + 1) << 48 | (off & 0xffffffffffffull);
}

void kp_resolver_init(struct kp_resolver *r, struct kp_session *s, struct kp_profile *p,
		      enum kp_unwind_lib unwinder)
{
	memset(r, 0, sizeof(*r));
	r->s = s;
	r->p = p;
	r->comm_root = true;
	kp_hash_init(&r->cache);
	kp_hash_init(&r->held);
	kp_hash_init(&r->comm_locs);
	kp_hash_init(&r->cgroup_locs);
	r->unwinder = kp_unwinder_new(s, unwinder);
	r->unknown_loc = kp_profile_loc(
		p, kp_profile_func(p, kp_strtab_intern(&s->strs, "[unknown]"), 0, KP_LOC_UNNAMED), 0,
		0, KP_LOC_UNNAMED);
}

void kp_resolver_release(struct kp_resolver *r)
{
	kp_hash_release(&r->cache);
	kp_hash_release(&r->held);
	kp_hash_release(&r->comm_locs);
	kp_hash_release(&r->cgroup_locs);
	kp_hash_release(&r->stacks);
	kp_unwinder_free(r->unwinder);
	free(r->runs);
	free(r->stack_ents);
	free(r->deltas);
	free(r->keys);
	free(r->logs);
	free(r->log);
	memset(r, 0, sizeof(*r));
}

/* Store a run of locations (innermost first) and return its index. */
static uint32_t add_run(struct kp_resolver *r, const uint32_t *locs, uint32_t n)
{
	uint32_t at = (uint32_t)r->nr_runs;

	KP_GROW(r->runs, r->cap_runs, r->nr_runs + n + 1);
	r->runs[r->nr_runs++] = n;
	memcpy(r->runs + r->nr_runs, locs, n * sizeof(*locs));
	r->nr_runs += n;
	return at;
}

/* Where a frame is, for a profile with addresses (kp_profile.addrs); { 0, 0 } without. */
struct at {
	uint32_t map;
	uint64_t addr;
};

static uint32_t single_line(struct kp_resolver *r, const char *name, uint32_t dso,
			    uint32_t flags, struct at at, uint32_t file, uint32_t line)
{
	struct kp_profile *p = r->p;
	uint32_t f = kp_profile_func(p, kp_strtab_intern(&r->s->strs, name), dso, flags);

	return kp_profile_loc_at(p, f, file, line, flags, at.map, at.addr, 0);
}

static uint32_t single(struct kp_resolver *r, const char *name, uint32_t dso, uint32_t flags,
		       struct at at)
{
	return single_line(r, name, dso, flags, at, 0, 0);
}

/* JIT code named by its process's perf map or jitdump: its source line with --srcline. */
static uint32_t jit_loc(struct kp_resolver *r, const struct kp_perfmap_ent *e, uint64_t addr,
			uint32_t dso, struct at at)
{
	const struct kp_perfmap_line *l = r->s->dso_opts.srcline ? kp_perfmap_line(e, addr) : NULL;

	return single_line(r, e->name, dso, KP_LOC_JIT, at,
			   l ? kp_strtab_intern(&r->s->strs, l->file) : 0, l ? l->line : 0);
}

/* An address as it is, in the map called @name, which grows to cover it. */
static struct at at_abs(struct kp_resolver *r, uint32_t name, uint64_t addr, uint32_t flags)
{
	if (!r->p->addrs)
		return (struct at){ 0, 0 };
	return (struct at){ kp_profile_map(r->p, name, 0, addr, addr + 1, 0, flags), addr };
}

/* File offset @off of @m's DSO: at the load address its first process gave the file. */
static struct at at_file(struct kp_resolver *r, const struct kp_map *m, uint64_t off)
{
	struct kp_session_dso *sd = &r->s->dso_list[m->dso];
	const uint8_t *bits;
	size_t len;
	char buf[2 * 20 + 1];
	uint32_t bid = 0, map;
	uint64_t base = m->start - m->pgoff, *known;

	if (!r->p->addrs)
		return (struct at){ 0, 0 };
	len = kp_dso_build_id(sd->dso, &bits);
	if (len && len <= 20)
		bid = kp_strtab_intern(&r->s->strs, kp_hex(buf, bits, len));
	known = kp_hash_get(&r->p->map_ids, (uint64_t)sd->path << 32 | bid);
	if (known)
		base = r->p->maps[*known].start;
	map = kp_profile_map(r->p, sd->path, bid, base, base + (m->end - m->start) + m->pgoff, 0,
			     0);
	return (struct at){ map, base + off };
}

static uint32_t resolve_kernel(struct kp_resolver *r, uint64_t addr)
{
	uint32_t dso = kp_strtab_intern(&r->s->strs, KERNEL_DSO_NAME), loc;
	const char *name = kp_ksyms_lookup(&r->s->ksyms, addr);
	struct at at = at_abs(r, dso, addr, KP_LOC_KERNEL);
	char buf[64];

	if (name)
		return add_run(r, (loc = single(r, name, dso, KP_LOC_KERNEL, at), &loc), 1);
	snprintf(buf, sizeof(buf), KERNEL_DSO_NAME "+0x%llx", (unsigned long long)addr);
	loc = single(r, buf, dso, KP_LOC_KERNEL | KP_LOC_UNNAMED, at);
	return add_run(r, &loc, 1);
}

/* The frames of a file offset in @m's DSO, through the symbolizer, or with @held the function
 * holding them alone; "dso+0xoff" when neither a symbol nor an FDE names it. */
static uint32_t resolve_dso(struct kp_resolver *r, const struct kp_map *m, uint64_t off,
			    bool held)
{
	struct kp_session_dso *sd = &r->s->dso_list[m->dso];
	struct kp_sym_frame fr[MAX_INLINE];
	uint32_t locs[MAX_INLINE];
	int n = kp_dso_symbolize(sd->dso, off, fr, MAX_INLINE);
	struct at at = at_file(r, m, off);
	char buf[512];

	if (held && n > 1) {
		fr[0] = fr[n - 1];
		n = 1;
	}
	if (n <= 0) {
		snprintf(buf, sizeof(buf), "%s+0x%llx", kp_strtab_get(&r->s->strs, sd->short_name),
			 (unsigned long long)off);
		locs[0] = single(r, buf, sd->short_name, KP_LOC_UNNAMED, at);
		return add_run(r, locs, 1);
	}
	for (int i = 0; i < n; i++) {
		uint32_t fde = fr[i].fde ? KP_LOC_FDE : 0;
		uint32_t flags = (fr[i].inlined ? KP_LOC_INLINED : 0) | fde;
		uint32_t f = kp_profile_func(r->p, kp_strtab_intern(&r->s->strs, fr[i].func),
					     sd->short_name, fde);
		uint32_t file = fr[i].file ? kp_strtab_intern(&r->s->strs, fr[i].file) : 0;
		uint32_t sys = at.map && strcmp(fr[i].sys, fr[i].func)
				       ? kp_strtab_intern(&r->s->strs, fr[i].sys) : 0;
		locs[i] = kp_profile_loc_at(r->p, f, file, fr[i].line, flags, at.map, at.addr, sys);
	}
	return add_run(r, locs, (uint32_t)n);
}

/* @addr's locations in @t's process, innermost first, or with @held the function holding it
 * alone; a run made on the spot goes in @tmp. */
static const uint32_t *lookup_user(struct kp_resolver *r, struct kp_thread *t, uint64_t addr,
				   bool held, uint32_t *tmp)
{
	struct kp_hash *cache = held ? &r->held : &r->cache;
	struct kp_proc *proc = &r->s->model.procs[t->proc];
	const struct kp_map *m = kp_model_map(proc, addr);
	uint64_t key, off, *hit;
	const struct kp_perfmap_ent *jit;
	uint32_t flags;

	if (!m) {
		r->st.no_map++;
		r->st.unnamed++;
		tmp[0] = 1;
		tmp[1] = r->p->addrs ? kp_profile_loc_at(r->p, r->p->locs[r->unknown_loc].func, 0, 0,
							 KP_LOC_UNNAMED, 0, addr, 0)
				     : r->unknown_loc;
		return tmp;
	}
	if (m->flags & KP_MAP_ANON) {
		struct at at = at_abs(r, m->name, addr, KP_LOC_JIT);

		jit = kp_session_jit(r->s, proc, addr);
		tmp[0] = 1;
		if (jit) {
			tmp[1] = jit_loc(r, jit, addr, m->name, at);
			return tmp;
		}
		char buf[600];
		snprintf(buf, sizeof(buf), "%s+0x%llx", kp_strtab_get(&r->s->strs, m->name),
			 (unsigned long long)(addr - m->start));
		tmp[1] = single(r, buf, m->name, KP_LOC_UNNAMED, at);
		r->st.no_jit++;
		r->st.unnamed++;
		return tmp;
	}
	off = addr - m->start + m->pgoff;
	key = user_key(m->dso, off);
	hit = kp_hash_get(cache, key);
	if (!hit) {
		kp_hash_put(cache, key, resolve_dso(r, m, off, held));
		hit = kp_hash_get(cache, key);
	}
	r->s->dso_list[m->dso].frames++;
	flags = r->p->locs[r->runs[*hit + 1]].flags;
	KP_GROW(r->log, r->log_cap, r->log_len + 1);
	r->log[r->log_len++] = m->dso << 2 | !!(flags & KP_LOC_FDE) << 1 |
			       !!(flags & KP_LOC_UNNAMED);
	if (flags & KP_LOC_FDE) {
		r->s->dso_list[m->dso].fde++;
		r->st.fde++;
	}
	if (flags & KP_LOC_UNNAMED) {
		r->s->dso_list[m->dso].unnamed++;
		r->st.unnamed++;
		enum kp_dso_status st = kp_dso_status(r->s->dso_list[m->dso].dso);

		if (st == KP_DSO_OK || st == KP_DSO_NO_SYMBOLS) /* a binary, not its symbols */
			r->st.no_sym++;
		else
			r->st.dso_unusable++;
	}
	return r->runs + *hit;
}

static const uint32_t *lookup(struct kp_resolver *r, struct kp_thread *t, uint64_t addr,
			      bool kernel, bool held, uint32_t *tmp)
{
	uint64_t *hit;

	r->st.frames++;
	if (!kernel)
		return lookup_user(r, t, addr, held, tmp);
	hit = kp_hash_get(&r->cache, addr);
	if (!hit) {
		kp_hash_put(&r->cache, addr, resolve_kernel(r, addr));
		hit = kp_hash_get(&r->cache, addr);
	}
	if (r->p->locs[r->runs[*hit + 1]].flags & KP_LOC_UNNAMED) {
		r->st.no_ksym++;
		r->st.unnamed++;
	}
	return r->runs + *hit;
}

/* Append the run @run (innermost first) to @out, which is built leaf first; *@cut when it
 * does not all fit. */
static size_t append(uint32_t *out, size_t n, size_t max, const uint32_t *run, bool *cut)
{
	uint32_t i = 0;

	for (; i < run[0] && n < max; i++)
		out[n++] = run[1 + i];
	*cut |= i < run[0];
	return n;
}

/* The location of a stack's root label: its comm (KP_LOC_COMM) or its cgroup (KP_LOC_CGROUP),
 * made once per name; @id 0 is the unknown one. */
static uint32_t root_loc(struct kp_resolver *r, struct kp_hash *locs, uint32_t id, uint32_t flag)
{
	uint64_t *hit = kp_hash_get(locs, id);
	uint32_t loc;

	if (hit)
		return (uint32_t)*hit;
	loc = single(r, id ? kp_strtab_get(&r->s->strs, id)
			   : flag == KP_LOC_COMM ? "[unknown comm]" : "[unknown cgroup]",
		     0, flag, (struct at){ 0, 0 });
	kp_hash_put(locs, id, loc);
	return loc;
}

static bool is_kernel_addr(uint64_t addr)
{
	return addr >= 0xffff800000000000ull;
}

uint64_t kp_stack_repeats(const struct kp_sample *smp)
{
	uint64_t last = smp->nr_callchain, k = 1;

	if (!(smp->sample_type & PERF_SAMPLE_CALLCHAIN) ||
	    (smp->sample_type & PERF_SAMPLE_STACK_USER))
		return 0;
	while (last && (!smp->callchain[last - 1] || smp->callchain[last - 1] >= PERF_CONTEXT_MAX))
		last--;
	while (k < last && smp->callchain[last - 1 - k] == smp->callchain[last - 1])
		k++;
	return k - 1;
}

bool kp_stack_walk(const struct kp_sample *smp, uint16_t misc, kp_stack_fn fn, void *ctx)
{
	bool kernel = (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
	bool first = true, any = false;
	uint64_t i = 0, end = smp->nr_callchain;

	if (!(smp->sample_type & PERF_SAMPLE_CALLCHAIN)) {
		fn(ctx, smp->ip, kernel, false);
		return false;
	}
	/* a frame-pointer chain's tail of one repeated address is walked once */
	while (end && (!smp->callchain[end - 1] || smp->callchain[end - 1] >= PERF_CONTEXT_MAX))
		end--;
	end -= kp_stack_repeats(smp);
	for (; i < end; i++) {
		uint64_t a = smp->callchain[i];
		if (a >= PERF_CONTEXT_MAX) {
			kernel = a == PERF_CONTEXT_KERNEL || a == PERF_CONTEXT_GUEST_KERNEL;
			/* user space's first address is where it entered the kernel (a faulting
			 * instruction, or the one after a syscall): not a return address, so
			 * looked up as it is, as a leaf's */
			first |= a == PERF_CONTEXT_USER && any;
			continue;
		}
		if (!a)
			continue; /* the end of a frame-pointer walk */
		any = true;
		if (fn(ctx, a, kernel || is_kernel_addr(a), !first)) {
			i++;
			break;
		}
		first = false;
	}
	while (i < end && (smp->callchain[i] >= PERF_CONTEXT_MAX || !smp->callchain[i]))
		i++;
	return i < end;
}

struct sample_walk {
	struct kp_resolver *r;
	struct kp_thread *t;
	uint32_t *locs;
	size_t n, room;
	bool cut;
};

/*
 * Where a return address is looked up: at the call, address - 1. But a kernel address at a
 * function's first byte, after its padding (__pfx_*, where no call is made), is an interrupted
 * IP that the kernel's chain holds among its return addresses: it is looked up as it is, as
 * perf names it.
 */
static uint64_t call_site(struct kp_resolver *r, uint64_t addr, bool kernel, bool ret)
{
	const struct kp_ksym_ent *e;

	if (!ret)
		return addr;
	if (kernel && (e = kp_ksyms_find(&r->s->ksyms, addr - 1)) && !strncmp(e->name, "__pfx_", 6))
		return addr;
	return addr - 1;
}

/*
 * Appends an address's locations; stops when the stack is full. An address looked up as it is
 * (the sample's own, or where user space entered the kernel) is the function holding it: the
 * sample's self is that function's, as perf names it, and the functions inlined there are
 * frames only with inline_self (the innermost then takes the self). A return address keeps the
 * functions inlined at its call, between the caller and the callee.
 */
static bool walk_add(void *ctx, uint64_t addr, bool kernel, bool ret)
{
	struct sample_walk *w = ctx;
	uint32_t tmp[2];
	const uint32_t *run = lookup(w->r, w->t, call_site(w->r, addr, kernel, ret), kernel,
				     !ret && !w->r->s->dso_opts.inline_self, tmp);

	w->n = append(w->locs, w->n, w->room, run, &w->cut);
	return w->n >= w->room;
}

size_t kp_resolve_sample(struct kp_resolver *r, const struct kp_sample *smp, uint16_t misc,
			 struct kp_thread *t, uint32_t *locs, size_t max)
{
	size_t roots = r->comm_root + (r->comm_root && r->cgroup_root);
	struct sample_walk w = { r, t, locs, 0, max - roots, false };
	uint64_t rep;
	size_t n;
	bool cut;

	/* full: the frames left are the outermost (the leaf side is kept, as perf's --max-stack
	 * keeps it) */
	cut = kp_stack_walk(smp, misc, walk_add, &w) | w.cut;
	n = w.n;
	r->st.cut += cut;
	if ((rep = kp_stack_repeats(smp))) {
		r->st.looped++;
		r->st.repeats += rep;
	}
	/* leaf first -> root first, then the comm on top */
	for (size_t j = 0; j < n / 2; j++) {
		uint32_t x = locs[j];
		locs[j] = locs[n - 1 - j];
		locs[n - 1 - j] = x;
	}
	if (roots) { /* the comm on top, and with cgroup_root its process's cgroup above it */
		memmove(locs + roots, locs, n * sizeof(*locs));
		locs[roots - 1] = root_loc(r, &r->comm_locs, t->comm, KP_LOC_COMM);
		if (roots == 2)
			locs[0] = root_loc(r, &r->cgroup_locs, r->s->model.procs[t->proc].cgroup,
					   KP_LOC_CGROUP);
		n += roots;
	}
	return n;
}

/* --- one address, as perf script prints it ------------------------------------------------- */

/* A kernel symbol: "name" in the kernel, "name [module]" in a module (its DSO, "[module]"). */
static void addr_kernel(struct kp_resolver *r, uint64_t addr, struct kp_addr_info *ai)
{
	const struct kp_ksym_ent *e = kp_ksyms_find(&r->s->ksyms, addr);
	const char *mod = e ? strstr(e->name, " [") : NULL;
	size_t len = mod ? (size_t)(mod - e->name) : 0;

	ai->rel = addr;
	ai->dso = KERNEL_DSO_NAME;
	if (!e)
		return;
	if (mod) {
		ai->dso = kp_strtab_get(&r->s->strs, kp_strtab_intern(&r->s->strs, mod + 1));
		ai->fr[0].func = kp_strtab_get(&r->s->strs, kp_strtab_intern_len(&r->s->strs, e->name, len));
	} else {
		ai->fr[0].func = e->name;
	}
	ai->fr[0].off = addr - e->addr;
	ai->nr = 1;
}

static void addr_user(struct kp_resolver *r, struct kp_thread *t, uint64_t addr,
		      struct kp_addr_info *ai)
{
	struct kp_proc *proc = &r->s->model.procs[t->proc];
	const struct kp_map *m = kp_model_map(proc, addr);
	struct kp_session_dso *sd;

	ai->rel = addr;
	if (!m)
		return;
	ai->rel = addr - m->start + m->pgoff;
	ai->dso = kp_strtab_get(&r->s->strs, m->name);
	if (m->flags & KP_MAP_ANON) {
		const struct kp_perfmap_ent *e = kp_session_jit(r->s, proc, addr);
		const struct kp_perfmap_line *l = e ? kp_perfmap_line(e, addr) : NULL;

		ai->nr = e != NULL;
		if (e)
			ai->fr[0] = (struct kp_sym_frame){ .func = e->name, .sys = e->name,
							   .file = l ? l->file : NULL,
							   .line = l ? l->line : 0, .off = UINT64_MAX };
		return;
	}
	sd = &r->s->dso_list[m->dso];
	ai->dso = kp_strtab_get(&r->s->strs, sd->path);
	ai->nr = kp_dso_symbolize(sd->dso, ai->rel, ai->fr, KP_DSO_MAX_FRAMES);
}

void kp_resolve_addr(struct kp_resolver *r, struct kp_thread *t, uint64_t addr, bool kernel,
		     bool ret, struct kp_addr_info *ai)
{
	uint64_t at = call_site(r, addr, kernel, ret);

	memset(ai, 0, sizeof(*ai));
	ai->fr[0].off = UINT64_MAX;
	if (kernel)
		addr_kernel(r, at, ai);
	else
		addr_user(r, t, at, ai);
	/* the call was looked up; the return address is what is shown */
	ai->rel += at != addr;
	for (int i = 0; at != addr && i < ai->nr; i++)
		ai->fr[i].off += ai->fr[i].off != UINT64_MAX;
}

/* --- the whole-stack cache ------------------------------------------------------------------ */

static void stats_add(struct kp_resolve_stats *a, const struct kp_resolve_stats *b, int64_t times)
{
	uint64_t *x = (uint64_t *)a;
	const uint64_t *y = (const uint64_t *)b;

	for (size_t i = 0; i < sizeof(*a) / sizeof(uint64_t); i++)
		x[i] += (uint64_t)times * y[i];
}

#define STACK_HEAD 3	/* the key's words before the addresses: kp_chain_memo.head */
#define STACK_KEY_MAX 256

/*
 * A stack's key: the words that decide its resolution (command, the process's maps, cpu mode, cgroup) in
 * @head, then its addresses, read where the sample holds them (not copied: most samples are
 * only looked up). Returns the number of addresses, or -1 for a stack too deep to cache.
 */
static long stack_key(const struct kp_sample *smp, uint16_t misc, const struct kp_thread *t,
		      uint32_t maps_id, uint32_t cgroup, uint64_t head[STACK_HEAD],
		      const uint64_t **addrs)
{
	/* the process's set of maps, not its pid: its maps changing makes its stacks resolve
	 * anew, and processes forked with the same maps share them */
	head[0] = (uint64_t)t->comm << 32 | maps_id;
	head[1] = misc & PERF_RECORD_MISC_CPUMODE_MASK;
	head[2] = cgroup; /* 0 unless the stacks carry it (cgroup_root) */
	if (!(smp->sample_type & PERF_SAMPLE_CALLCHAIN)) {
		*addrs = &smp->ip;
		return 1;
	}
	if (smp->nr_callchain > STACK_KEY_MAX - STACK_HEAD)
		return -1; /* too deep to cache: resolve it every time */
	*addrs = smp->callchain;
	return (long)smp->nr_callchain;
}

struct want_stack {
	const struct kp_resolver *r;
	const uint64_t *head, *addrs;
	size_t n;
};

static bool same_stack(const void *ctx, uint64_t id)
{
	const struct want_stack *w = ctx;
	const struct kp_stack_ent *e = &w->r->stack_ents[id];
	const uint64_t *k = w->r->keys + e->key_off;

	return e->key_len == STACK_HEAD + w->n && !memcmp(k, w->head, STACK_HEAD * sizeof(*k)) &&
	       !memcmp(k + STACK_HEAD, w->addrs, w->n * sizeof(*k));
}

/* Two lanes, so that the multiplications of a long stack overlap. */
static uint64_t stack_hash(const uint64_t *head, const uint64_t *addrs, size_t n)
{
	uint64_t a = kp_hash_words(head, STACK_HEAD, 4), b = a ^ n;
	size_t i = 0;

	for (; i + 1 < n; i += 2) {
		a = (a ^ addrs[i]) * 0xff51afd7ed558ccdull;
		b = (b ^ addrs[i + 1]) * 0xc4ceb9fe1a85ec53ull;
		a ^= a >> 32;
		b ^= b >> 29;
	}
	if (i < n)
		a = (a ^ addrs[i]) * 0xff51afd7ed558ccdull;
	return (a ^ (b >> 1) ^ (b << 63)) * 0x9e3779b97f4a7c15ull;
}

static struct kp_stack_ent *stack_find(struct kp_resolver *r, const struct want_stack *want,
				       uint64_t *hkey)
{
	uint64_t *id;

	*hkey = stack_hash(want->head, want->addrs, want->n);
	id = kp_hash_find(&r->stacks, hkey, same_stack, want);
	return id ? &r->stack_ents[*id] : NULL;
}

void kp_resolver_settle(struct kp_resolver *r)
{
	for (size_t i = 0; i < r->nr_stacks; i++) {
		struct kp_stack_ent *e = &r->stack_ents[i];

		if (!e->hits)
			continue;
		stats_add(&r->st, &r->deltas[i], (int64_t)e->hits);
		for (uint32_t k = 0; k < e->log_len; k++) {
			uint32_t v = r->logs[e->log_off + k];
			r->s->dso_list[v >> 2].frames += e->hits;
			r->s->dso_list[v >> 2].unnamed += (v & 1) * e->hits;
			r->s->dso_list[v >> 2].fde += (v >> 1 & 1) * e->hits;
		}
		e->hits = 0;
	}
}

static uint32_t stack_resolve(struct kp_resolver *r, const struct kp_sample *smp, uint16_t misc,
			      struct kp_thread *t, bool inverted)
{
	size_t n = kp_resolve_sample(r, smp, misc, t, r->locs, ARRAY_SIZE(r->locs));

	if (inverted) { /* leaf first, the comm last */
		for (size_t i = 0; i < n / 2; i++) {
			uint32_t x = r->locs[i];
			r->locs[i] = r->locs[n - 1 - i];
			r->locs[n - 1 - i] = x;
		}
	}
	return kp_profile_path(r->p, r->locs, n);
}

uint32_t kp_resolve_add(struct kp_resolver *r, const struct kp_sample *smp, uint16_t misc,
			struct kp_thread *t, bool inverted, size_t event, uint64_t period)
{
	uint32_t node = kp_resolve_stack(r, smp, misc, t, inverted);

	kp_profile_add_node(r->p, node, event, period);
	return node;
}

static void memo_put(struct kp_chain_memo *m, uint64_t chain_id, const uint64_t *head,
		     size_t ent)
{
	m->chain_id = chain_id;
	memcpy(m->head, head, sizeof(m->head));
	m->ent = (uint32_t)ent;
}

/*
 * The memo's slot for a sample: by the chain the reader identified (trusted: same id, same
 * chain), or else by a cheap mix of its key's words, whose stack is then compared word by
 * word: most samples repeat a recent stack, and this spares them the whole key's hash.
 */
static struct kp_chain_memo *memo_slot(struct kp_resolver *r, const struct kp_sample *smp,
				       const struct want_stack *w)
{
	uint64_t x;

	if (smp->chain_id)
		return &r->memo[smp->chain_id % ARRAY_SIZE(r->memo)];
	x = (w->head[0] ^ w->head[1] ^ w->n) * 0x9e3779b97f4a7c15ull;
	if (w->n)
		x = (x ^ w->addrs[w->n > 1] ^ w->addrs[w->n / 2] << 7) * 0xff51afd7ed558ccdull;
	return &r->memo[(x >> 32) % ARRAY_SIZE(r->memo)];
}

static bool memo_hit(const struct kp_resolver *r, const struct kp_chain_memo *m,
		     const struct kp_sample *smp, const struct want_stack *w)
{
	if (m->chain_id != smp->chain_id || memcmp(m->head, w->head, sizeof(m->head)))
		return false;
	return smp->chain_id || (m->ent < r->nr_stacks && same_stack(w, m->ent));
}

uint32_t kp_resolve_stack(struct kp_resolver *r, const struct kp_sample *smp_in, uint16_t misc,
			  struct kp_thread *t, bool inverted)
{
	struct kp_sample joined;
	const struct kp_sample *smp =
		kp_unwind_join(r->unwinder, smp_in, t, &joined, r->chain, ARRAY_SIZE(r->chain));
	uint64_t head[STACK_HEAD], hkey = 0;
	struct want_stack want = { r, head, NULL, 0 };
	long n = stack_key(smp, misc, t, r->s->model.procs[t->proc].maps_id,
			   r->cgroup_root ? r->s->model.procs[t->proc].cgroup : 0, head, &want.addrs);
	struct kp_resolve_stats before;
	struct kp_chain_memo *m;
	struct kp_stack_ent *e = NULL;

	r->log_len = 0;
	if (n < 0)
		return stack_resolve(r, smp, misc, t, inverted);
	want.n = (size_t)n;
	/* a joined sample's chain is the unwinding's, not the one the reader identified */
	if (smp != smp_in)
		joined.chain_id = 0;
	m = memo_slot(r, smp, &want);
	if (memo_hit(r, m, smp, &want)) {
		e = &r->stack_ents[m->ent];
	} else if ((e = stack_find(r, &want, &hkey))) {
		memo_put(m, smp->chain_id, head, e - r->stack_ents);
	}
	if (e) { /* what resolving it counted is counted again by kp_resolver_settle() */
		if (!++e->hits) { /* settled now and then rather than overflow */
			e->hits--;
			kp_resolver_settle(r);
			e->hits = 1;
		}
		return e->node;
	}
	before = r->st; /* what resolving it counts, kept with it */
	uint32_t node = stack_resolve(r, smp, misc, t, inverted);
	memo_put(m, smp->chain_id, head, r->nr_stacks);
	KP_GROW(r->stack_ents, r->cap_stacks, r->nr_stacks + 1);
	KP_GROW(r->deltas, r->cap_deltas, r->nr_stacks + 1);
	KP_GROW(r->keys, r->cap_keys, r->nr_keys + STACK_HEAD + want.n);
	KP_GROW(r->logs, r->cap_logs, r->nr_logs + r->log_len + 1);
	e = &r->stack_ents[r->nr_stacks];
	*e = (struct kp_stack_ent){ (uint32_t)r->nr_keys, (uint32_t)(STACK_HEAD + want.n), node,
				    (uint32_t)r->nr_logs, (uint32_t)r->log_len, 0 };
	r->deltas[r->nr_stacks] = r->st;
	stats_add(&r->deltas[r->nr_stacks], &before, -1);
	memcpy(r->keys + r->nr_keys, head, sizeof(head));
	if (want.n)
		memcpy(r->keys + r->nr_keys + STACK_HEAD, want.addrs, want.n * sizeof(*r->keys));
	r->nr_keys += STACK_HEAD + want.n;
	if (r->log_len)
		memcpy(r->logs + r->nr_logs, r->log, r->log_len * sizeof(*r->log));
	r->nr_logs += r->log_len;
	kp_hash_put(&r->stacks, hkey, r->nr_stacks++);
	return node;
}
