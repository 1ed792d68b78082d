/* SPDX-License-Identifier: MIT */
/*
 * unwind-libunwind.c - `--unwinder=libunwind`: the same unwinding as unwind.c's libdw, through
 * libunwind's remote interface and accessors of our own. Nothing is read from a live process:
 * the registers come from the sample, stack memory from its copy, and everything else
 * libunwind reads (the .eh_frame_hdr search table, CIEs and FDEs) from the mapped ELF files,
 * each mapped once for the whole report through the symbolizer's DSOs (so --symfs and
 * build-ids hold here too). There is one libunwind address space per process, rebuilt when
 * its maps change, with libunwind's cache of register rules by IP; a binary's tables serve
 * every process that maps it.
 *
 * Frames without CFI: libunwind 1.6's x86-64 fallback takes the caller's SP to be this frame's
 * CFA + 16, which holds only when nothing but the saved RBP is on the frame. So find_proc_info()
 * stops libunwind at such a frame instead, and the frame is passed here through its frame
 * pointer (saved RBP at [RBP], return address above it, caller's SP = RBP + 16), as libdw's
 * x86-64 backend does; unwinding then starts again, with CFI, from the caller's registers.
 *
 * JIT code is in no binary: where its jitdump gave its unwinding info, find_proc_info() hands
 * libunwind its .eh_frame_hdr search table, and access_mem() the bytes of its .eh_frame and
 * .eh_frame_hdr, at the addresses perf inject would give them (perfmap.h), as for a binary.
 * Unusable info stops the stack there rather than be guessed through.
 */
#include <libunwind.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/symbols/ehhdr.h"
#include "formats/util.h"
#include "report/base/search.h"
#include "unwind-libunwind.h"

/* Exported by libunwind-x86_64 (as _Ux86_64_dwarf_search_unwind_table) but not declared in
 * its headers: the binary search over an .eh_frame_hdr table, with the FDE parsed for us. */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip,
					      unw_dyn_info_t *di, unw_proc_info_t *pi,
					      int need_unwind_info, void *arg);

/* libunwind keeps the register rules of this many IPs per address space (default 128) */
#define RULE_CACHE_SIZE 1024

/* A PT_LOAD segment: ELF addresses [vaddr, vaddr + filesz) are file bytes from off. */
struct seg {
	uint64_t vaddr, filesz, off;
};

/* A binary, as its DSO index in the session; loaded on its first map. */
struct module {
	bool loaded;
	Elf *elf;		/* NULL when the file could not be used */
	const uint8_t *data;	/* the whole file, mapped by libelf */
	size_t size;
	struct seg *segs;
	size_t nr_segs;
	uint64_t lo, hi;	/* the ELF addresses its PT_LOADs span */
	uint64_t hdr;		/* ELF address of .eh_frame_hdr */
	uint64_t table;		/* ... of its search table, of nr_fdes 8-byte entries */
	uint64_t nr_fdes;	/* 0: no table libunwind can search */
};

/* A binary as a process maps it: its whole ELF span, moved by the load bias. */
struct region {
	uint64_t start, end, bias;
	uint32_t mod;
};

struct lu_space {
	uint32_t proc;		/* the process it was built from: any with the same maps uses it */
	unw_addr_space_t as;
	struct region *regs;	/* sorted by start */
	size_t nr_regs;
};

struct lu {
	struct kp_session *s;
	struct module *mods;	/* by session DSO index */
	size_t nr_mods;
	struct lu_space spaces[KP_UNWIND_MAX_SPACES];
	struct kp_unwind_slots slots;
	/* the sample being unwound, for the accessors */
	const struct kp_sample *smp;
	struct kp_proc *proc;
	const struct lu_space *sp;
	const struct region *last;	/* the last region found: the next lookup often hits it */
	uint64_t regs[KP_UNWIND_NR_REGS];	/* of the frame libunwind starts from */
	uint32_t known;		/* which of them the sample had (bit i: DWARF register i) */
	bool beyond_copy;	/* a read above the SP missed the stack copy */
	bool below_sp;		/* ... or one below it, in no binary: an unreadable stack */
	bool no_cfi;		/* find_proc_info() found no CFI for the frame */
	struct kp_perfmap_ent jit;	/* the JIT code it found last, whose unwinding info
					 * access_mem() reads (a copy: the table may move) */
	bool has_jit;
	bool jit_bad;		/* ... and that info was unusable: the stack stops there */
};

/* --- binaries ----------------------------------------------------------------------------- */

/* The file bytes at ELF address @vaddr, @len of them, or NULL. */
static const uint8_t *module_bytes(const struct module *mod, uint64_t vaddr, size_t len)
{
	for (size_t i = 0; i < mod->nr_segs; i++) {
		const struct seg *s = &mod->segs[i];
		uint64_t off;
		if (vaddr < s->vaddr || vaddr - s->vaddr >= s->filesz)
			continue;
		off = s->off + (vaddr - s->vaddr);
		return off <= mod->size && len <= mod->size - off ? mod->data + off : NULL;
	}
	return NULL;
}

/* The search table of .eh_frame_hdr, where it is one libunwind can search (kp_ehhdr_parse()). */
static void module_eh_frame_hdr(struct module *mod, uint64_t hdr, uint64_t len)
{
	const uint8_t *p = module_bytes(mod, hdr, (size_t)len);
	struct kp_ehhdr h;

	if (!p || !kp_ehhdr_parse(p, (size_t)len, hdr, &h))
		return;
	mod->hdr = hdr;
	mod->table = hdr + h.table;
	mod->nr_fdes = h.nr;
}

static bool module_parse(struct module *mod)
{
	uint64_t hdr = 0, hdr_len = 0;
	size_t n;

	mod->data = (const uint8_t *)elf_rawfile(mod->elf, &mod->size);
	if (!mod->data || elf_getphdrnum(mod->elf, &n))
		return false;
	mod->segs = kp_xcalloc(n ? n : 1, sizeof(*mod->segs));
	mod->lo = UINT64_MAX;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(mod->elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_GNU_EH_FRAME) {
			hdr = ph.p_vaddr;
			hdr_len = ph.p_filesz;
		}
		if (ph.p_type != PT_LOAD)
			continue;
		mod->segs[mod->nr_segs++] = (struct seg){ ph.p_vaddr, ph.p_filesz, ph.p_offset };
		if (ph.p_vaddr < mod->lo)
			mod->lo = ph.p_vaddr;
		if (ph.p_vaddr + ph.p_memsz > mod->hi)
			mod->hi = ph.p_vaddr + ph.p_memsz;
	}
	if (!mod->nr_segs)
		return false;
	if (hdr_len)
		module_eh_frame_hdr(mod, hdr, hdr_len);
	return true;
}

/* The binary of DSO @dso, loaded on first use; NULL when it cannot be used. */
static struct module *module_of(struct lu *l, uint32_t dso)
{
	struct module *mod;
	int fd;

	if (dso >= l->nr_mods) {
		size_t nr = l->s->nr_dsos > dso ? l->s->nr_dsos : dso + 1;
		l->mods = kp_xrealloc(l->mods, nr * sizeof(*l->mods));
		memset(l->mods + l->nr_mods, 0, (nr - l->nr_mods) * sizeof(*l->mods));
		l->nr_mods = nr;
	}
	mod = &l->mods[dso];
	if (mod->loaded)
		return mod->elf ? mod : NULL;
	mod->loaded = true;
	fd = kp_dso_open(l->s->dso_list[dso].dso);
	if (fd < 0)
		return NULL;
	mod->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	/* the whole file is mapped: libelf needs the fd no more */
	if (mod->elf && (elf_cntl(mod->elf, ELF_C_FDDONE) || !module_parse(mod))) {
		elf_end(mod->elf);
		mod->elf = NULL;
	}
	close(fd);
	return mod->elf ? mod : NULL;
}

static void module_release(struct module *mod)
{
	if (mod->elf)
		elf_end(mod->elf);
	free(mod->segs);
}

/* --- address spaces ------------------------------------------------------------------------ */

static int cmp_region(const void *a, const void *b)
{
	const struct region *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->mod < y->mod ? -1 : x->mod > y->mod;
}

/* Each binary the process maps, once: a library mapped in several pieces has one bias. */
static void space_regions(struct lu *l, struct lu_space *sp)
{
	const struct kp_proc *p = &l->s->model.procs[sp->proc];
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < p->nr_maps; i++) {
		const struct kp_map *m = &p->maps[i];
		struct module *mod;
		uint64_t bias;
		if ((m->flags & KP_MAP_ANON) || !(mod = module_of(l, m->dso)) ||
		    !kp_unwind_map_bias(mod->elf, m, &bias))
			continue;
		KP_GROW(sp->regs, cap, n + 1);
		sp->regs[n++] = (struct region){ mod->lo + bias, mod->hi + bias, bias, m->dso };
	}
	if (n > 1)
		qsort(sp->regs, n, sizeof(*sp->regs), cmp_region);
	sp->nr_regs = 0;
	for (size_t i = 0; i < n; i++)
		if (!sp->nr_regs || sp->regs[i].start != sp->regs[sp->nr_regs - 1].start ||
		    sp->regs[i].mod != sp->regs[sp->nr_regs - 1].mod)
			sp->regs[sp->nr_regs++] = sp->regs[i];
}

static const struct region *region_of(struct lu *l, uint64_t addr)
{
	const struct region *r = l->last;
	size_t lo;

	if (r && addr >= r->start && addr < r->end)
		return r;
	/* the last region starting at or below addr (they do not overlap) */
	lo = KP_FIRST_ABOVE(l->sp->regs, l->sp->nr_regs, start, addr);
	r = lo ? &l->sp->regs[lo - 1] : NULL;
	if (!r || addr >= r->end)
		return NULL;
	l->last = r;
	return r;
}

/* --- libunwind's accessors ----------------------------------------------------------------- */

/*
 * JIT code at @ip with unwinding info in its jitdump: its search table, searched as a binary's.
 * -UNW_ENOINFO for none; -UNW_ESTOPUNWIND, with l->jit_bad, where the info is unusable, or has
 * no FDE for @ip, or one that reaches outside the code (before it, or into the .eh_frame after
 * it).
 */
static int jit_proc_info(struct lu *l, unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
			 int need_unwind_info)
{
	const struct kp_map *m = kp_model_map(l->proc, ip);
	const struct kp_perfmap_ent *e;
	uint64_t hdr, table;
	unw_dyn_info_t di;
	int rc;

	if (!m || !(m->flags & KP_MAP_ANON) || !(e = kp_session_jit(l->s, l->proc, ip)) ||
	    !e->unwind)
		return -UNW_ENOINFO;
	l->jit = *e;
	l->has_jit = true;
	if (kp_perfmap_unwind_hdr(e, &hdr, &table)) {
		memset(&di, 0, sizeof(di));
		di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
		di.start_ip = e->start;
		di.end_ip = e->end;
		di.u.rti.segbase = hdr;
		di.u.rti.table_data = table;
		di.u.rti.table_len = e->unwind->nr_fdes * 8 / sizeof(unw_word_t);
		/* first without the rules (nothing to release), to hold the FDE to the code */
		rc = UNW_OBJ(dwarf_search_unwind_table)(as, ip, &di, pi, 0, l);
		if (rc >= 0 && pi->start_ip >= e->start && pi->end_ip >= pi->start_ip &&
		    pi->end_ip - e->start <= e->unwind->eh_frame_off)
			rc = need_unwind_info ? UNW_OBJ(dwarf_search_unwind_table)(as, ip, &di, pi,
										   1, l)
					      : rc;
		else
			rc = -UNW_ENOINFO;
		if (rc >= 0)
			return rc;
	}
	l->jit_bad = true;
	return -UNW_ESTOPUNWIND;
}

static int find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
			  int need_unwind_info, void *arg)
{
	struct lu *l = arg;
	const struct region *r = region_of(l, ip);
	const struct module *mod = r ? &l->mods[r->mod] : NULL;
	unw_dyn_info_t di;
	int rc = -UNW_ENOINFO;

	if (!r && (rc = jit_proc_info(l, as, ip, pi, need_unwind_info)) != -UNW_ENOINFO)
		return rc;
	if (mod && mod->nr_fdes) {
		memset(&di, 0, sizeof(di));
		di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
		di.start_ip = r->start;
		di.end_ip = r->end;
		di.u.rti.segbase = mod->hdr + r->bias;
		di.u.rti.table_data = mod->table + r->bias;
		di.u.rti.table_len = mod->nr_fdes * 8 / sizeof(unw_word_t);
		rc = UNW_OBJ(dwarf_search_unwind_table)(as, ip, &di, pi, need_unwind_info, arg);
	}
	if (rc != -UNW_ENOINFO)
		return rc;
	/* not -UNW_ENOINFO, which would start libunwind's own frame-chain guess */
	l->no_cfi = true;
	return -UNW_ESTOPUNWIND;
}

static void put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	(void)as;
	(void)pi;
	(void)arg;
}

static int get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *addr, void *arg)
{
	(void)as;
	(void)addr;
	(void)arg;
	return -UNW_ENOINFO;
}

/* The sampled SP, where the stack copy starts (kp_unwind_has_copy() saw it is there). */
static uint64_t sp_of(const struct kp_sample *smp)
{
	uint64_t sp = 0;

	kp_unwind_user_reg(smp, KP_PERF_REG_SP, &sp);
	return sp;
}

/* The stack copy, then the files: .eh_frame sits in a read-only segment that MMAP2 does not
 * report, so every address of a mapped binary is read through its executable map's bias. */
static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val, int write,
		      void *arg)
{
	struct lu *l = arg;
	const struct region *r;
	const uint8_t *p;
	bool beyond = false;
	uint64_t v;

	(void)as;
	if (write)
		return -UNW_EINVAL;
	if (kp_unwind_stack_word(l->smp, addr, &v, &beyond)) {
		*val = v;
		return 0;
	}
	r = region_of(l, addr);
	p = r ? module_bytes(&l->mods[r->mod], addr - r->bias, sizeof(*val)) : NULL;
	if (!p && l->has_jit)
		p = kp_perfmap_unwind_bytes(&l->jit, addr, sizeof(*val));
	if (p) {
		memcpy(val, p, sizeof(*val));
		return 0;
	}
	l->beyond_copy |= beyond;
	l->below_sp |= !beyond && addr < sp_of(l->smp);
	return -UNW_EINVAL;
}

static int access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *val, int write,
		      void *arg)
{
	struct lu *l = arg;

	(void)as;
	if (write)
		return -UNW_EREADONLYREG;
	if (reg < 0 || reg >= KP_UNWIND_NR_REGS || !(l->known >> reg & 1))
		return -UNW_EBADREG;
	*val = l->regs[reg];
	return 0;
}

static int access_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *val, int write,
			void *arg)
{
	(void)as;
	(void)reg;
	(void)val;
	(void)write;
	(void)arg;
	return -UNW_EBADREG;
}

static int resume(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{
	(void)as;
	(void)c;
	(void)arg;
	return -UNW_EINVAL;
}

static int get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf, size_t len,
			 unw_word_t *off, void *arg)
{
	(void)as;
	(void)addr;
	(void)buf;
	(void)len;
	(void)off;
	(void)arg;
	return -UNW_ENOINFO;
}

static const unw_accessors_t accessors = {
	.find_proc_info = find_proc_info,
	.put_unwind_info = put_unwind_info,
	.get_dyn_info_list_addr = get_dyn_info_list_addr,
	.access_mem = access_mem,
	.access_reg = access_reg,
	.access_fpreg = access_fpreg,
	.resume = resume,
	.get_proc_name = get_proc_name,
};

static struct lu_space *space_of(struct lu *l, uint32_t proc)
{
	bool held;
	struct lu_space *sp = &l->spaces[kp_unwind_slot(&l->slots, l->s, proc, &held)];
	unw_accessors_t acc = accessors; /* libunwind copies it, but takes it non-const */

	if (held)
		return sp;
	/* the slot held another address space */
	if (sp->as)
		unw_destroy_addr_space(sp->as);
	free(sp->regs);
	*sp = (struct lu_space){ .proc = proc };
	sp->as = unw_create_addr_space(&acc, 0);
	if (sp->as) {
		unw_set_caching_policy(sp->as, UNW_CACHE_GLOBAL);
		unw_set_cache_size(sp->as, RULE_CACHE_SIZE, 0);
	}
	space_regions(l, sp);
	return sp;
}

/* --- unwinding ----------------------------------------------------------------------------- */

/*
 * The caller of the frame at @c, which has no CFI, from its frame pointer (what libdw's x86-64
 * backend does): l->regs become the caller's, RIP its return address. False when there is no
 * frame pointer to follow: none, or one that does not lead up the stack copy.
 */
static bool fp_step(struct lu *l, unw_cursor_t *c)
{
	uint64_t *regs = l->regs, fp, ret, prev = 0;

	for (int i = 0; i < KP_UNWIND_NR_REGS; i++) {
		unw_word_t v;
		if (!unw_get_reg(c, i, &v))
			regs[i] = v; /* the ones libunwind lost keep their last known value */
	}
	fp = regs[KP_UNWIND_RBP];
	if (!fp || !kp_unwind_stack_word(l->smp, fp + 8, &ret, &l->beyond_copy) ||
	    fp + 16 <= regs[KP_UNWIND_RSP])
		return false;
	kp_unwind_stack_word(l->smp, fp, &prev, &l->beyond_copy);
	regs[KP_UNWIND_RBP] = prev;
	regs[KP_UNWIND_RSP] = fp + 16;
	regs[KP_UNWIND_RIP] = ret;
	l->known |= 1u << KP_UNWIND_RBP | 1u << KP_UNWIND_RSP | 1u << KP_UNWIND_RIP;
	return true;
}

static void *lu_new(struct kp_session *s)
{
	struct lu *l = kp_xcalloc(1, sizeof(*l));

	l->s = s;
	kp_hash_init(&l->slots.ids);
	return l;
}

static void lu_free(void *priv)
{
	struct lu *l = priv;

	for (size_t i = 0; i < l->slots.nr; i++) {
		if (l->spaces[i].as)
			unw_destroy_addr_space(l->spaces[i].as);
		free(l->spaces[i].regs);
	}
	for (size_t i = 0; i < l->nr_mods; i++)
		module_release(&l->mods[i]);
	kp_unwind_slots_release(&l->slots);
	free(l->mods);
	free(l);
}

static size_t lu_unwind(void *priv, const struct kp_sample *smp, const struct kp_thread *t,
			uint64_t *pcs, size_t max, enum kp_unwind_end *end)
{
	struct lu *l = priv;
	unw_cursor_t c;
	size_t n = 0;
	int rc = 0;

	*end = KP_UNWIND_END_DONE;
	l->sp = space_of(l, t->proc);
	if (!l->sp->as)
		return 0;
	l->smp = smp;
	l->proc = &l->s->model.procs[t->proc];
	l->last = NULL;
	l->beyond_copy = l->below_sp = false;
	l->has_jit = l->jit_bad = false;
	l->known = kp_unwind_regs(smp, l->regs);
	pcs[n++] = l->regs[KP_UNWIND_RIP];
	while (n < max) {
		if ((rc = unw_init_remote(&c, l->sp->as, l)) < 0)
			break;
		do {
			unw_word_t ip;
			l->no_cfi = false;
			if ((rc = unw_step(&c)) <= 0 || unw_get_reg(&c, UNW_REG_IP, &ip) < 0)
				break;
			pcs[n++] = ip;
		} while (n < max);
		if (rc >= 0 || !l->no_cfi || !fp_step(l, &c))
			break;
		if (!l->regs[KP_UNWIND_RIP]) { /* the end of a frame-pointer chain */
			rc = 0;
			break;
		}
		pcs[n++] = l->regs[KP_UNWIND_RIP];
		/* the caller's rules are those at its call, as for any return address */
		l->regs[KP_UNWIND_RIP]--;
	}
	if (n < max && l->beyond_copy)
		*end = KP_UNWIND_END_COPY;
	else if (n < max && rc < 0)
		*end = l->below_sp ? KP_UNWIND_END_MEMORY : KP_UNWIND_END_EARLY;
	return n;
}

const struct kp_unwind_ops kp_unwind_libunwind = {
	"libunwind", lu_new, lu_free, lu_unwind,
};
