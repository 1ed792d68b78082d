/* SPDX-License-Identifier: MIT */
/*
 * unwind-lib.c - what the unwinding libraries share besides the registers (unwind-lib.h): the
 * load bias of a mapped binary, and the slots of the address spaces each library keeps.
 */
#include "unwind-lib.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "formats/util.h"

bool kp_unwind_map_bias(Elf *e, const struct kp_map *m, uint64_t *bias)
{
	size_t n = 0;

	if (!e || elf_getphdrnum(e, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    m->pgoff < ph.p_offset || m->pgoff >= ph.p_offset + ph.p_filesz)
			continue;
		*bias = m->start - m->pgoff - ph.p_vaddr + ph.p_offset;
		return true;
	}
	return false;
}

/* @proc's signature: its file-backed maps, hashed once per generation of them. */
static uint64_t space_sig(struct kp_unwind_slots *sl, const struct kp_session *s, uint32_t proc)
{
	const struct kp_proc *p = &s->model.procs[proc];
	struct kp_unwind_sig *g;
	uint64_t h = 0x6b70726f66ull; /* any seed: only equality matters */

	if (proc >= sl->nr_sigs) {
		size_t nr = s->model.nr_procs > proc ? s->model.nr_procs : proc + 1;
		sl->sigs = kp_xrealloc(sl->sigs, nr * sizeof(*sl->sigs));
		memset(sl->sigs + sl->nr_sigs, 0, (nr - sl->nr_sigs) * sizeof(*sl->sigs));
		sl->nr_sigs = nr;
	}
	g = &sl->sigs[proc];
	if (g->valid && g->maps_id == p->maps_id)
		return g->sig;
	for (size_t i = 0; i < p->nr_maps; i++) {
		const struct kp_map *m = &p->maps[i];
		const uint64_t w[4] = { m->start, m->end, m->pgoff, m->dso };

		if (!(m->flags & KP_MAP_ANON))
			h = kp_hash_words(w, 4, h);
	}
	*g = (struct kp_unwind_sig){ h, p->maps_id, true };
	return h;
}

size_t kp_unwind_slot(struct kp_unwind_slots *sl, const struct kp_session *s, uint32_t proc,
		      bool *held)
{
	uint64_t key = space_sig(sl, s, proc);
	uint64_t *idx = kp_hash_get(&sl->ids, key);
	size_t i = 0;

	*held = idx && *idx < sl->nr && sl->keys[*idx] == key;
	if (*held)
		i = *idx;
	else if (sl->nr < KP_UNWIND_MAX_SPACES)
		i = sl->nr++;
	else
		for (size_t k = 1; k < sl->nr; k++)
			if (sl->used[k] < sl->used[i])
				i = k;
	if (!*held) {
		sl->keys[i] = key;
		kp_hash_put(&sl->ids, key, i);
	}
	sl->used[i] = ++sl->clock;
	return i;
}

void kp_unwind_slots_release(struct kp_unwind_slots *sl)
{
	kp_hash_release(&sl->ids);
	free(sl->sigs);
	sl->sigs = NULL;
	sl->nr_sigs = 0;
}
