/* SPDX-License-Identifier: MIT */
/*
 * unwind.c - DWARF unwinding of user stacks copied by the kernel (PERF_SAMPLE_REGS_USER and
 * PERF_SAMPLE_STACK_USER), with libdw: one Dwfl per address space, built from the process's
 * maps when it is first needed and rebuilt only when they change, with the sample being
 * unwound passed to libdw's callbacks through the state (PLATFORM.md measured 3-8 us per
 * unwind this way, against 600 us for a Dwfl per sample).
 */
#include "unwind.h"

#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/util.h"

#define MAX_FRAMES 1024

struct space {
	uint32_t proc;		/* index into the session's processes */
	uint32_t gen;		/* the process's map generation it was built at */
	Dwfl *dwfl;
	bool attached;
};

struct kp_unwinder {
	struct kp_session *s;
	struct space *spaces;
	size_t nr, cap;
	/* the sample being unwound, for the callbacks */
	const struct kp_sample *smp;
	uint32_t pid;
	uint64_t *pcs;
	size_t nr_pcs;
	bool beyond_copy;	/* libdw asked for stack the copy does not hold */
	struct kp_unwind_stats st;
};

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
};

/* perf's register order for mask 0xff0fff (AX BX CX DX SI DI BP SP IP FLAGS CS SS R8-R15)
 * to DWARF's x86-64 order (RAX RDX RCX RBX RSI RDI RBP RSP R8-R15 RIP) */
static const int dwarf_from_perf[17] = { 0, 3, 2, 1, 4, 5, 6, 7, 12, 13, 14, 15, 16, 17, 18, 19, 8 };

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct kp_unwinder *u = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = u;
	return (pid_t)u->pid;
}

/* Memory is what the kernel copied from the stack, at and above the sampled SP. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct kp_unwinder *u = arg;
	const struct kp_sample *s = u->smp;
	uint64_t sp = s->regs_user[7];

	(void)dwfl;
	if (addr < sp || addr - sp + sizeof(*result) > s->stack_dyn_size) {
		u->beyond_copy = addr >= sp;
		return false;
	}
	memcpy(result, (const char *)s->stack_data + (addr - sp), sizeof(*result));
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct kp_unwinder *u = arg;
	Dwarf_Word regs[17];

	for (int i = 0; i < 17; i++)
		regs[i] = u->smp->regs_user[dwarf_from_perf[i]];
	return dwfl_thread_state_registers(thread, 0, 17, regs);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* The load bias of the ELF file @fd mapped at @m: start - pgoff - p_vaddr + p_offset of the
 * PT_LOAD that holds the mapping's offset. */
static bool map_bias(int fd, const struct kp_map *m, uint64_t *bias)
{
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t n = 0;
	bool ok = false;

	if (e && elf_getphdrnum(e, &n) == 0)
		for (size_t i = 0; i < n && !ok; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD ||
			    m->pgoff < ph.p_offset || m->pgoff >= ph.p_offset + ph.p_filesz)
				continue;
			*bias = m->start - m->pgoff - ph.p_vaddr + ph.p_offset;
			ok = true;
		}
	if (e)
		elf_end(e);
	return ok;
}

/*
 * Every file-backed map of the process as a module, through the symbolizer's DSOs: the same
 * files (under --symfs, build-ids checked, the vDSO from a copy of the running one), so that
 * unwinding never reads the CFI of a binary rebuilt since the recording.
 */
static void report_maps(struct kp_unwinder *u, struct space *sp)
{
	const struct kp_proc *p = &u->s->procs[sp->proc];

	dwfl_report_begin(sp->dwfl);
	for (size_t i = 0; i < p->nr_maps; i++) {
		const struct kp_map *m = &p->maps[i];
		const char *name;
		uint64_t bias;
		int fd;
		if (m->flags & KP_MAP_ANON)
			continue;
		fd = kp_dso_open(u->s->dso_list[m->dso].dso);
		if (fd < 0)
			continue;
		name = kp_strtab_get(&u->s->strs, m->name);
		/* libdwfl takes the fd: dwfl_end() closes it */
		if (!map_bias(fd, m, &bias) || !dwfl_report_elf(sp->dwfl, name, name, fd, bias, true))
			close(fd);
	}
	dwfl_report_end(sp->dwfl, NULL, NULL);
}

static struct space *space_of(struct kp_unwinder *u, uint32_t proc)
{
	struct space *sp = NULL;

	for (size_t i = 0; i < u->nr; i++)
		if (u->spaces[i].proc == proc)
			sp = &u->spaces[i];
	if (sp && sp->gen == u->s->procs[proc].gen)
		return sp;
	if (sp) { /* the maps changed: rebuild this address space */
		dwfl_end(sp->dwfl);
	} else {
		KP_GROW(u->spaces, u->cap, u->nr + 1);
		sp = &u->spaces[u->nr++];
	}
	*sp = (struct space){ proc, u->s->procs[proc].gen, dwfl_begin(&callbacks), false };
	if (sp->dwfl) {
		report_maps(u, sp);
		sp->attached = dwfl_attach_state(sp->dwfl, NULL, (pid_t)u->s->procs[proc].pid,
						 &thread_callbacks, u);
	}
	return sp;
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct kp_unwinder *u = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation) || u->nr_pcs >= MAX_FRAMES)
		return DWARF_CB_ABORT;
	u->pcs[u->nr_pcs++] = pc;
	return DWARF_CB_OK;
}

static void count_end(struct kp_unwinder *u, struct space *sp)
{
	uint64_t last = u->nr_pcs ? u->pcs[u->nr_pcs - 1] : 0;

	if (u->beyond_copy)
		u->st.end_copy++;
	else if (!last || !dwfl_addrmodule(sp->dwfl, last - (u->nr_pcs > 1)))
		u->st.end_unmapped++;
	else
		u->st.end_other++;
}

struct kp_unwinder *kp_unwinder_new(struct kp_session *s)
{
	struct kp_unwinder *u = kp_xcalloc(1, sizeof(*u));

	u->s = s;
	u->pcs = kp_xcalloc(MAX_FRAMES, sizeof(*u->pcs));
	elf_version(EV_CURRENT);
	return u;
}

void kp_unwinder_free(struct kp_unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nr; i++)
		dwfl_end(u->spaces[i].dwfl);
	free(u->spaces);
	free(u->pcs);
	free(u);
}

size_t kp_unwind(struct kp_unwinder *u, const struct kp_sample *smp, const struct kp_thread *t,
		 uint64_t *pcs, size_t max)
{
	struct space *sp;

	if (!smp->regs_user_abi || smp->nr_regs_user < 20 || !smp->stack_dyn_size)
		return 0;
	u->st.samples++;
	sp = space_of(u, t->proc);
	if (!sp->dwfl || !sp->attached) {
		u->st.failed++;
		return 0;
	}
	u->smp = smp;
	u->pid = t->pid;
	u->nr_pcs = 0;
	u->beyond_copy = false;
	/* -1: stopped early, for a reason to count; libdw also ends quietly (0) when the stack
	 * it needs is not in the copy, which memory_read() notes */
	if ((dwfl_getthread_frames(sp->dwfl, (pid_t)t->pid, frame_cb, u) != 0 || u->beyond_copy) &&
	    u->nr_pcs < MAX_FRAMES)
		count_end(u, sp);
	if (u->nr_pcs <= 1)
		u->st.failed++;
	if (u->nr_pcs > max)
		u->nr_pcs = max;
	memcpy(pcs, u->pcs, u->nr_pcs * sizeof(*pcs));
	return u->nr_pcs;
}

const struct kp_unwind_stats *kp_unwinder_stats(const struct kp_unwinder *u)
{
	return &u->st;
}
