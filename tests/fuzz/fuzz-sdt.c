/* SPDX-License-Identifier: MIT */
/*
 * fuzz-sdt.c - a binary's SDT notes (src/record/sdt.c) on hostile ELF files: the input is the
 * file, read through libelf from memory as kprof list --sdt and -e usdt: read one; each note
 * is read, and each argument of each probe turned into a fetch argument. A probe must have its
 * three names, an argument must be refused or give a fetch argument and a type, and the one
 * past the count of arguments must be refused. The seeds in corpus-sdt/ are
 * tests/workloads/probed stripped (a real note, its semaphore, .stapsdt.base) and small files
 * with notes of every operand kind, cut short, without their NULs, of other owners.
 */
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "src/record/sdt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_sdt_probe *p = NULL;
	size_t nr = 0;
	char *copy = malloc(size ? size : 1);
	Elf *elf;

	elf_version(EV_CURRENT);
	memcpy(copy, data, size);
	elf = elf_memory(copy, size);
	if (elf && kp_sdt_read(elf, &p, &nr) == 0) {
		for (size_t i = 0; i < nr; i++) {
			size_t n = kp_sdt_nr_args(&p[i]);
			char why[256], *fetch;
			const char *type;
			if (!p[i].provider || !p[i].name || !p[i].args)
				abort();
			for (size_t a = 0; a <= n; a++) {
				int err = kp_sdt_arg(&p[i], a, &fetch, &type, why, sizeof(why));
				/* one past the last is refused; any other gives both, or neither */
				if ((a == n && !err) || (!err && (!fetch || !type)) || (err && fetch))
					abort();
				free(fetch);
			}
		}
		kp_sdt_free(p, nr);
	}
	if (elf)
		elf_end(elf);
	free(copy);
	return 0;
}
