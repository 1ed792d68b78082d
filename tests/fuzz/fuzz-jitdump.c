/* SPDX-License-Identifier: MIT */
/*
 * fuzz-jitdump.c - the jitdump reader (report/symbols/perfmap.c) on hostile files. The input is a
 * jit-PID.dump; it is read from a memfd as a report reads the dump a process mapped, as the
 * process of the pid its header names (so that the records are reached): first a part of it,
 * then, as the unwinding while recording reads a dump its JIT is still writing, the rest
 * (kp_perfmap_reread()). Then every code region it gave is looked up at its start, its last
 * byte and its end, with their source lines, and where it has unwinding info, libdw's reading
 * of it is asked for the CFI row at those places, and its .eh_frame and .eh_frame_hdr bytes
 * are read at their ends. A lookup must give a region holding the address, no region may be
 * larger than the dump (a load's code is in its record, and a move moves no more than was
 * loaded), a row must lie in its code, and bytes handed out must lie in the unwinding info. The
 * seeds in corpus-jitdump/ are dumps tests/workloads/jit wrote (loads, a move, debug info, and
 * with --unwind unwinding info), whole, cut inside a record, with a load claiming all memory,
 * with a move of more than was loaded, and with unwinding info whose sizes lie, whose
 * .eh_frame_hdr or FDE points outside its code, whose CIE's length is beyond it, and cut.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "report/symbols/perfmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void lookup(const struct kp_perfmap *m, uint64_t addr)
{
	const struct kp_perfmap_ent *e = kp_perfmap_lookup(m, addr);
	const struct kp_perfmap_line *l;
	Dwarf_Frame *f;

	if (!e)
		return;
	if (addr < e->start || addr >= e->end || !e->name)
		abort();
	l = kp_perfmap_line(e, addr);
	if (l && (!l->file || l->addr > addr))
		abort();
	if (!kp_perfmap_frame(e, addr, &f)) {
		Dwarf_Addr start, end;
		Dwarf_Op *ops;
		size_t n;

		dwarf_frame_info(f, &start, &end, NULL);
		if (start < e->start || end < start || addr < start || addr >= end)
			abort();
		dwarf_frame_cfa(f, &ops, &n);
		free(f);
	}
}

/* The unwinding info's bytes at its ends, and its search table's: in it, or none. */
static void unwind_bytes(const struct kp_perfmap_ent *e)
{
	const struct kp_perfmap_unwind *u = e->unwind;
	uint64_t base, total, hdr, table;
	const uint8_t *p;

	if (!u || !u->data)
		return;
	base = e->start + u->eh_frame_off;
	total = u->eh_frame_size + u->hdr_size;
	for (uint64_t at = base - 8; at != base + total + 8; at++) {
		p = kp_perfmap_unwind_bytes(e, at, 8);
		if (p && (p < u->data || p + 8 > u->data + total))
			abort();
		if (at == base + 8 && total > 32)
			at = base + total - 16;
	}
	if (kp_perfmap_unwind_hdr(e, &hdr, &table) &&
	    !kp_perfmap_unwind_bytes(e, table, (size_t)u->nr_fdes * 8))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_perfmap m;
	uint32_t pid = 0;
	char path[64];
	int fd = memfd_create("jit-1.dump", MFD_CLOEXEC);
	/* the part written when the reader first reads it: at least the header, when it has one */
	size_t first = size > 40 ? 40 + (size - 40) * (size % 7 + 1) / 8 : size;

	if (fd < 0)
		return 0;
	if (write(fd, data, first) != (ssize_t)first) {
		close(fd);
		return 0;
	}
	if (size >= 24)
		memcpy(&pid, data + 20, sizeof(pid));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	memset(&m, 0, sizeof(m));
	kp_perfmap_load_jitdump(&m, path, pid, false);
	if (first < size && write(fd, data + first, size - first) == (ssize_t)(size - first))
		kp_perfmap_reread(&m);
	for (size_t i = 0; i < m.nr; i++) {
		if (m.ents[i].end - m.ents[i].start > size)
			abort();
		lookup(&m, m.ents[i].start);
		lookup(&m, m.ents[i].end - 1);
		lookup(&m, m.ents[i].end);
		for (size_t j = 0; j < m.ents[i].nr_lines; j++)
			lookup(&m, m.ents[i].lines[j].addr);
		unwind_bytes(&m.ents[i]);
	}
	kp_perfmap_release(&m);
	close(fd);
	return 0;
}
