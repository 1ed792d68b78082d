/* SPDX-License-Identifier: MIT */
/*
 * fuzz-jitdump.c - the jitdump reader (report/perfmap.c) on hostile files. The input is a
 * jit-PID.dump; it is read from a memfd as a report reads the dump a process mapped, as the
 * process of the pid its header names (so that the records are reached), then looked up at
 * the start, the last byte and the end of every code region it gave, with their source lines.
 * A lookup must give a region holding the address, and no region may be larger than the dump:
 * a load's code is in its record, and a move moves no more than was loaded. The seeds in
 * corpus-jitdump/ are dumps tests/workloads/jit wrote (loads, a move, debug info), whole, cut
 * inside a record, with a load claiming all memory, and with a move of more than was loaded.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "report/perfmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void lookup(const struct kp_perfmap *m, uint64_t addr)
{
	const struct kp_perfmap_ent *e = kp_perfmap_lookup(m, addr);
	const struct kp_perfmap_line *l;

	if (!e)
		return;
	if (addr < e->start || addr >= e->end || !e->name)
		abort();
	l = kp_perfmap_line(e, addr);
	if (l && (!l->file || l->addr > addr))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_perfmap m;
	uint32_t pid = 0;
	char path[64];
	int fd = memfd_create("jit-1.dump", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	if (size >= 24)
		memcpy(&pid, data + 20, sizeof(pid));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	memset(&m, 0, sizeof(m));
	kp_perfmap_load_jitdump(&m, path, pid, false);
	for (size_t i = 0; i < m.nr; i++) {
		if (m.ents[i].end - m.ents[i].start > size)
			abort();
		lookup(&m, m.ents[i].start);
		lookup(&m, m.ents[i].end - 1);
		lookup(&m, m.ents[i].end);
		for (size_t j = 0; j < m.ents[i].nr_lines; j++)
			lookup(&m, m.ents[i].lines[j].addr);
	}
	kp_perfmap_release(&m);
	close(fd);
	return 0;
}
