/* SPDX-License-Identifier: MIT */
/*
 * unwind.c - DWARF unwinding of user stacks copied by the kernel (PERF_SAMPLE_REGS_USER and
 * PERF_SAMPLE_STACK_USER): the table of unwinding libraries, the statistics they share, and
 * the default library, libdw: one Dwfl per address space, built from the process's maps when
 * it is first needed and rebuilt only when they change, with the sample being unwound passed
 * to libdw's callbacks through the state (PLATFORM.md measured 3-8 us per unwind this way,
 * against 600 us for a Dwfl per sample). Before libdw, the steps cached per (binary, offset)
 * by unwind-cfi.c unwind the sample when every frame's rule is a plain one; libdw does the rest,
 * and its x86-64 backend passes a frame without CFI through its frame pointer by itself. JIT
 * code is in no module of libdw's: where its jitdump gave its CFI, libdw's walk stops at its
 * frame, unwind-cfi.c steps out of it, and libdw starts again from the caller. The other
 * library is in unwind-libunwind.c.
 */
#include "unwind.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/util.h"
#include "unwind-cfi.h"
#include "unwind-lib.h"
#include "unwind-libunwind.h"

#define MAX_FRAMES 1024
/* Bytes from the ELF entry point that are taken as _start where no symbol says (glibc's is 38) */
#define KP_START_SIZE 64

struct kp_unwinder {
	const struct kp_unwind_ops *ops;
	void *priv;
	struct kp_session *s;
	uint64_t *pcs;		/* MAX_FRAMES */
	struct kp_unwind_stats st;
};

/* --- libdw ----------------------------------------------------------------------------------- */

struct dw_space {
	uint32_t proc;		/* the process it was built from: any with the same maps uses it */
	Dwfl *dwfl;
	bool attached;
};

struct dw {
	struct kp_session *s;
	struct dw_space spaces[KP_UNWIND_MAX_SPACES];
	struct kp_unwind_slots slots;
	struct kp_cfi_cache *cfi;	/* the fast path's steps */
	/* the sample being unwound, for the callbacks */
	const struct kp_sample *smp;
	struct kp_proc *proc;
	uint32_t pid;
	uint64_t *pcs;
	size_t nr_pcs, max;
	bool beyond_copy;	/* libdw asked for stack the copy does not hold */
	bool below_sp;		/* ... or for memory below the sampled SP: garbage */
	bool zero_pc;		/* a return address of 0: the end of a frame-pointer chain */
	/* past JIT code: libdw starts again from its caller's registers, whose first frame, the
	 * return address, is in pcs already */
	bool restart, skip_first;
	uint64_t regs[KP_UNWIND_NR_REGS];
	uint32_t known;		/* which of @regs are (bit i: DWARF register i) */
	bool jit_stepped;	/* the walk stopped at JIT code and stepped out of it into @regs */
	bool jit_ended;		/* ... or the stack ends there, as @jit_end says */
	enum kp_unwind_end jit_end;
};

/*
 * No separate debuginfo here: CFI comes from the binary itself (.eh_frame, and its own
 * .debug_frame), and a separate debug file's .debug_frame through the cached steps
 * (unwind-cfi.c), which read it from the symbolizer's Dwfl, once per binary.
 * With dwfl_standard_find_debuginfo, a frame .eh_frame does not cover made libdw load a
 * debuginfo file's whole DWARF for its .debug_frame, in every process's Dwfl: 0.28 s a process
 * for libc with libc6-dbg installed, for stacks that came out the same.
 */
static int dw_no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			   Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			   GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	(void)mod;
	(void)userdata;
	(void)modname;
	(void)base;
	(void)file_name;
	(void)debuglink_file;
	(void)debuglink_crc;
	(void)debuginfo_file_name;
	return -1;
}

static const Dwfl_Callbacks dw_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dw_no_debuginfo,
};

static pid_t dw_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct dw *d = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = d;
	return (pid_t)d->pid;
}

static bool dw_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct dw *d = arg;
	uint64_t v;

	(void)dwfl;
	if (!kp_unwind_stack_word(d->smp, addr, &v, &d->beyond_copy)) {
		d->below_sp = !d->beyond_copy;
		return false;
	}
	*result = v;
	return true;
}

static bool dw_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct dw *d = arg;
	uint64_t regs[KP_UNWIND_NR_REGS];
	uint32_t known;

	if (d->restart) {
		memcpy(regs, d->regs, sizeof(regs));
		known = d->known;
	} else {
		known = kp_unwind_regs(d->smp, regs);
	}

	/* only those the sample has: the others stay undefined, as CFI that needs them learns */
	for (int i = 0; i < KP_UNWIND_NR_REGS; i++) {
		Dwarf_Word w = regs[i];
		if ((known >> i & 1) && !dwfl_thread_state_registers(thread, i, 1, &w))
			return false;
	}
	return true;
}

static const Dwfl_Thread_Callbacks dw_thread_callbacks = {
	.next_thread = dw_next_thread,
	.memory_read = dw_memory_read,
	.set_initial_registers = dw_set_initial_registers,
};

/*
 * Every file-backed map of the process as a module, through the symbolizer's DSOs: the same
 * files (under --symfs, build-ids checked, the vDSO from a copy of the running one), so that
 * unwinding never reads the CFI of a binary rebuilt since the recording.
 */
static void dw_report_maps(struct dw *d, struct dw_space *sp)
{
	const struct kp_proc *p = &d->s->model.procs[sp->proc];

	dwfl_report_begin(sp->dwfl);
	for (size_t i = 0; i < p->nr_maps; i++) {
		const struct kp_map *m = &p->maps[i];
		const char *name;
		uint64_t bias;
		Elf *e;
		bool ok;
		int fd;
		if (m->flags & KP_MAP_ANON)
			continue;
		fd = kp_dso_open(d->s->dso_list[m->dso].dso);
		if (fd < 0)
			continue;
		name = kp_strtab_get(&d->s->strs, m->name);
		e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		ok = kp_unwind_map_bias(e, m, &bias);
		if (e)
			elf_end(e);
		/* libdwfl takes the fd: dwfl_end() closes it */
		if (!ok || !dwfl_report_elf(sp->dwfl, name, name, fd, bias, true))
			close(fd);
	}
	dwfl_report_end(sp->dwfl, NULL, NULL);
}

static struct dw_space *dw_space_of(struct dw *d, uint32_t proc)
{
	bool held;
	struct dw_space *sp = &d->spaces[kp_unwind_slot(&d->slots, d->s, proc, &held)];

	if (held)
		return sp;
	if (sp->dwfl) /* the slot held another address space */
		dwfl_end(sp->dwfl);
	*sp = (struct dw_space){ proc, dwfl_begin(&dw_callbacks), false };
	if (sp->dwfl) {
		dw_report_maps(d, sp);
		sp->attached = dwfl_attach_state(sp->dwfl, NULL, (pid_t)d->s->model.procs[proc].pid,
						 &dw_thread_callbacks, d);
	}
	return sp;
}

/*
 * Whether the frame of @state, at @pc (the IP, or a return address minus one), is JIT code
 * with unwinding info, which libdw would pass through its frame pointer: then stepped out of
 * (d->jit_stepped, the caller's registers in d->regs) or ended in (d->jit_ended) here.
 */
static bool dw_jit_frame(struct dw *d, Dwfl_Frame *state, uint64_t pc)
{
	const struct kp_map *m = kp_model_map(d->proc, pc);
	uint64_t regs[KP_UNWIND_NR_REGS];
	uint32_t known = 0;
	bool rbp_known;
	int rc;

	if (!m || !(m->flags & KP_MAP_ANON))
		return false;
	for (unsigned i = 0; i < KP_UNWIND_NR_REGS; i++) {
		Dwarf_Word v;
		regs[i] = 0;
		if (dwfl_frame_reg(state, i, &v) == 0) {
			regs[i] = v;
			known |= 1u << i;
		}
	}
	rbp_known = known >> KP_UNWIND_RBP & 1;
	rc = kp_cfi_jit_step(d->s, d->proc, d->smp, pc, regs, &rbp_known, &d->jit_end);
	if (!rc)
		return false;
	if (rc < 0 || !(known >> KP_UNWIND_RSP & 1)) {
		if (rc > 0)
			d->jit_end = KP_UNWIND_END_EARLY;
		d->jit_ended = true;
		return true;
	}
	/* the others are not followed through the JIT frame: unknown, as CFI that needs them
	 * learns */
	memcpy(d->regs, regs, sizeof(regs));
	d->known = 1u << KP_UNWIND_RSP | 1u << KP_UNWIND_RIP | (uint32_t)rbp_known << KP_UNWIND_RBP;
	d->jit_stepped = true;
	return true;
}

static int dw_frame(Dwfl_Frame *state, void *arg)
{
	struct dw *d = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation) || d->nr_pcs >= d->max)
		return DWARF_CB_ABORT;
	if (!pc) { /* libunwind ends here too */
		d->zero_pc = true;
		return DWARF_CB_ABORT;
	}
	if (d->skip_first) /* a return address minus one, itself in pcs already */
		d->skip_first = false;
	else
		d->pcs[d->nr_pcs++] = pc;
	return dw_jit_frame(d, state, pc - !activation) ? DWARF_CB_ABORT : DWARF_CB_OK;
}

static void *dw_new(struct kp_session *s)
{
	struct dw *d = kp_xcalloc(1, sizeof(*d));

	d->s = s;
	kp_hash_init(&d->slots.ids);
	d->cfi = kp_cfi_cache_new();
	return d;
}

static void dw_free(void *priv)
{
	struct dw *d = priv;

	for (size_t i = 0; i < d->slots.nr; i++)
		dwfl_end(d->spaces[i].dwfl);
	kp_unwind_slots_release(&d->slots);
	kp_cfi_cache_free(d->cfi);
	free(d);
}

static size_t dw_unwind(void *priv, const struct kp_sample *smp, const struct kp_thread *t,
			uint64_t *pcs, size_t max, enum kp_unwind_end *end)
{
	struct dw *d = priv;
	struct dw_space *sp = dw_space_of(d, t->proc);
	int rc;

	*end = KP_UNWIND_END_DONE;
	if (!sp->dwfl || !sp->attached)
		return 0;
	/* the cached steps first; a frame they cannot replay sends the sample to libdw */
	d->proc = &d->s->model.procs[t->proc];
	rc = kp_cfi_unwind(d->cfi, d->s, d->proc, sp->dwfl, smp, pcs, max, end);
	if (rc >= 0)
		return (size_t)rc;
	*end = KP_UNWIND_END_DONE;
	d->smp = smp;
	d->pid = t->pid;
	d->pcs = pcs;
	d->max = max;
	d->nr_pcs = 0;
	d->beyond_copy = d->below_sp = d->zero_pc = false;
	d->restart = d->skip_first = false;
	for (;;) {
		d->jit_stepped = d->jit_ended = false;
		/* -1: stopped early, for a reason to count; libdw also ends quietly (0) when the
		 * stack it needs is not in the copy, which dw_memory_read() notes */
		rc = dwfl_getthread_frames(sp->dwfl, (pid_t)t->pid, dw_frame, d);
		if (!d->jit_stepped || d->nr_pcs >= max)
			break;
		/* on from the JIT code's caller, its rules looked up at the call */
		d->pcs[d->nr_pcs++] = d->regs[KP_UNWIND_RIP];
		d->regs[KP_UNWIND_RIP]--;
		d->restart = d->skip_first = true;
	}
	if (d->jit_ended) {
		*end = d->jit_end;
		return d->nr_pcs;
	}
	if (d->nr_pcs >= max || d->zero_pc)
		return d->nr_pcs;
	if (d->beyond_copy)
		*end = KP_UNWIND_END_COPY;
	else if (d->below_sp) /* libdw ends quietly at a read it cannot do */
		*end = KP_UNWIND_END_MEMORY;
	else if (rc)
		*end = KP_UNWIND_END_EARLY;
	return d->nr_pcs;
}

static const struct kp_unwind_ops libdw_ops = {
	"libdw", dw_new, dw_free, dw_unwind,
};

/* --- the table and the common part ----------------------------------------------------------- */

static const struct kp_unwind_ops *const libs[KP_UNWIND_NR_LIBS] = {
	[KP_UNWIND_LIBDW] = &libdw_ops,
	[KP_UNWIND_LIBUNWIND] = &kp_unwind_libunwind,
};

const char *kp_unwind_lib_name(enum kp_unwind_lib lib)
{
	return lib < KP_UNWIND_NR_LIBS ? libs[lib]->name : "?";
}

int kp_unwind_lib_find(const char *name, enum kp_unwind_lib *lib)
{
	for (size_t i = 0; i < KP_UNWIND_NR_LIBS; i++)
		if (!strcmp(libs[i]->name, name)) {
			*lib = (enum kp_unwind_lib)i;
			return 0;
		}
	return -EINVAL;
}

struct kp_unwinder *kp_unwinder_new(struct kp_session *s, enum kp_unwind_lib lib)
{
	struct kp_unwinder *u = kp_xcalloc(1, sizeof(*u));

	u->ops = libs[lib < KP_UNWIND_NR_LIBS ? lib : KP_UNWIND_LIBDW];
	u->s = s;
	u->pcs = kp_xcalloc(MAX_FRAMES, sizeof(*u->pcs));
	elf_version(EV_CURRENT);
	u->priv = u->ops->new(s);
	return u;
}

void kp_unwinder_free(struct kp_unwinder *u)
{
	if (!u)
		return;
	u->ops->free(u->priv);
	kp_unwind_stats_release(&u->st);
	free(u->pcs);
	free(u);
}

/*
 * Whether @addr, in @m, is in _start: the first frame of every process, where the stack has
 * no caller (the dynamic loader's _start has no CFI to say so, and libdw stops with an error).
 * A binary without symbols has its _start at the ELF entry point.
 */
static bool at_start(struct kp_unwinder *u, const struct kp_map *m, uint64_t addr)
{
	struct kp_dso *dso = u->s->dso_list[m->dso].dso;
	uint64_t off = addr - m->start + m->pgoff, entry;
	struct kp_sym_frame f[8];
	int n = kp_dso_symbolize(dso, off, f, ARRAY_SIZE(f));

	if (n > 0 && f[n - 1].func)
		return !strcmp(f[n - 1].func, "_start");
	return kp_dso_entry(dso, &entry) && off >= entry && off - entry < KP_START_SIZE;
}

/* What the frame at @pc of @proc is in, of JIT code: none that a perf map or jitdump names, or
 * code its JIT gave unwinding info for, or code without. */
enum jit_kind { JIT_NOT, JIT_WITH_INFO, JIT_WITHOUT_INFO };

static enum jit_kind jit_kind(struct kp_unwinder *u, struct kp_proc *proc, uint64_t pc)
{
	const struct kp_map *m = kp_model_map(proc, pc);
	const struct kp_perfmap_ent *e;

	if (!m || !(m->flags & KP_MAP_ANON) || !(e = kp_session_jit(u->s, proc, pc)))
		return JIT_NOT;
	return e->unwind ? JIT_WITH_INFO : JIT_WITHOUT_INFO;
}

/*
 * Count an early end: why, and in which binary the last frame found was. An end in JIT code is
 * told apart from one at an address no file maps (garbage, or JIT code nothing names), and
 * from one in a binary whose CFI was missing or could not be followed: in JIT code without
 * unwinding info (where the frame-pointer guess out of it failed, or led to no code or to
 * stack that cannot be read), or with unusable info.
 */
static void count_end(struct kp_unwinder *u, const struct kp_thread *t, enum kp_unwind_end end,
		      size_t n)
{
	struct kp_proc *proc = &u->s->model.procs[t->proc];
	uint64_t pc = n ? u->pcs[n - 1] - (n > 1) : 0;
	const struct kp_map *m = n ? kp_model_map(proc, pc) : NULL;
	uint32_t path = m && !(m->flags & KP_MAP_ANON) ? u->s->dso_list[m->dso].path : 0;
	enum jit_kind jit = n ? jit_kind(u, proc, pc) : JIT_NOT;
	enum kp_unwind_stop why;

	if (!jit && n > 1 && (!path || end == KP_UNWIND_END_MEMORY) &&
	    jit_kind(u, proc, u->pcs[n - 2] - (n > 2)) == JIT_WITHOUT_INFO)
		jit = JIT_WITHOUT_INFO;
	if (jit)
		path = 0;
	if (end == KP_UNWIND_END_COPY)
		why = KP_UNWIND_STOP_COPY;
	else if (jit == JIT_WITHOUT_INFO)
		why = KP_UNWIND_STOP_JIT_NONE;
	else if (end == KP_UNWIND_END_MEMORY)
		why = KP_UNWIND_STOP_MEMORY;
	else if (n >= MAX_FRAMES)
		why = KP_UNWIND_STOP_DEPTH;
	else if (jit == JIT_WITH_INFO)
		why = KP_UNWIND_STOP_JIT_BAD;
	else if (!path)
		why = KP_UNWIND_STOP_UNMAPPED;
	else if (at_start(u, m, pc))
		return;
	else
		why = KP_UNWIND_STOP_CFI;
	kp_unwind_stats_stop(&u->st, why, path, 1);
}

size_t kp_unwind(struct kp_unwinder *u, const struct kp_sample *smp, const struct kp_thread *t,
		 uint64_t *pcs, size_t max)
{
	enum kp_unwind_end end;
	size_t n;

	if (!kp_unwind_has_copy(smp))
		return 0;
	u->st.samples++;
	n = u->ops->unwind(u->priv, smp, t, u->pcs, MAX_FRAMES, &end);
	/* a return address of 0 is the outermost frame's mark: libdw stops before it, libunwind
	 * reports it as a frame; both end there */
	for (size_t i = 1; i < n; i++)
		if (!u->pcs[i]) {
			n = i;
			end = KP_UNWIND_END_DONE;
		}
	if (end != KP_UNWIND_END_DONE || n >= MAX_FRAMES)
		count_end(u, t, end, n);
	if (n <= 1)
		u->st.failed++;
	if (n > max)
		n = max;
	memcpy(pcs, u->pcs, n * sizeof(*pcs));
	return n;
}

size_t kp_unwind_chain(struct kp_unwinder *u, const struct kp_sample *smp,
		       const struct kp_thread *t, uint64_t *chain, size_t max, size_t *nr_user)
{
	size_t n = 0;

	for (uint64_t i = 0; smp->sample_type & PERF_SAMPLE_CALLCHAIN && i < smp->nr_callchain &&
			     smp->callchain[i] != PERF_CONTEXT_USER && n < max / 2; i++)
		chain[n++] = smp->callchain[i];
	chain[n++] = PERF_CONTEXT_USER;
	*nr_user = kp_unwind(u, smp, t, chain + n, max - n);
	return n + *nr_user;
}

const struct kp_sample *kp_unwind_join(struct kp_unwinder *u, const struct kp_sample *smp,
				       const struct kp_thread *t, struct kp_sample *joined,
				       uint64_t *chain, size_t max)
{
	size_t nr_user;

	if (!kp_unwind_has_copy(smp))
		return smp;
	*joined = *smp;
	joined->sample_type |= PERF_SAMPLE_CALLCHAIN;
	joined->callchain = chain;
	joined->nr_callchain = kp_unwind_chain(u, smp, t, chain, max, &nr_user);
	return joined;
}

const struct kp_unwind_stats *kp_unwinder_stats(const struct kp_unwinder *u)
{
	return &u->st;
}
