/* SPDX-License-Identifier: MIT */
/*
 * annotate-kcode.c - the kernel's code for annotate: /proc/kcore or a vmlinux, read through its
 * PT_LOAD headers (annotate-kcode.h).
 */
#include "annotate-kcode.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "formats/util.h"

/* The value of @name in @elf's .symtab, 0 when it has none. */
static uint64_t elf_sym(Elf *elf, const char *name)
{
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < data->d_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *s = gelf_getsym(data, (int)i, &sym)
						? elf_strptr(elf, sh.sh_link, sym.st_name) : NULL;

			if (s && !strcmp(s, name))
				return sym.st_value;
		}
	}
	return 0;
}

/* The running address of _text in the recording's kernel symbols, 0 when it has none. */
static uint64_t ksym_addr(const struct kp_ksyms *k, const char *name)
{
	for (size_t i = 0; i < k->nr; i++)
		if (!strcmp(k->syms[i].name, name))
			return k->syms[i].addr;
	return 0;
}

static bool kcode_elf(struct kp_kcode *kc, const char *path, const struct kp_ksyms *ks,
		      bool vmlinux)
{
	Elf *elf = elf_begin(kc->fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	size_t n = 0;

	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    elf_getphdrnum(elf, &n)) {
		snprintf(kc->why, sizeof(kc->why), "'%s' is not an ELF file", path);
		if (elf)
			elf_end(elf);
		return false;
	}
	kc->machine = eh.e_machine;
	kc->loads = kp_xcalloc(n ? n : 1, sizeof(*kc->loads));
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_filesz)
			kc->loads[kc->nr_loads++] = ph;
	}
	if (vmlinux) { /* KASLR moved the kernel by _text's distance from the file's */
		uint64_t file = elf_sym(elf, "_text"), live = ksym_addr(ks, "_text");

		kc->delta = file && live ? (int64_t)(live - file) : 0;
	}
	elf_end(elf);
	return true;
}

void kp_kcode_open(struct kp_kcode *kc, const char *vmlinux, const struct kp_session *s)
{
	const char *path = vmlinux ? vmlinux : "/proc/kcore";
	struct utsname u;

	kc->tried = true;
	kc->fd = -1;
	if (!vmlinux && s->kernel_release && !uname(&u) && strcmp(u.release, s->kernel_release)) {
		snprintf(kc->why, sizeof(kc->why),
			 "the recording's kernel is %s and this machine runs %s: give --vmlinux",
			 s->kernel_release, u.release);
		return;
	}
	kc->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (kc->fd < 0) {
		int e = errno;

		snprintf(kc->why, sizeof(kc->why), "cannot read the kernel's code from '%s': %s%s",
			 path, strerror(e),
			 vmlinux ? "" : e == ENOENT ? " (this kernel has no /proc/kcore): give --vmlinux"
			 : " (it needs root): run as root, or give --vmlinux");
		return;
	}
	elf_version(EV_CURRENT);
	if (!kcode_elf(kc, path, &s->ksyms, vmlinux != NULL)) {
		close(kc->fd);
		kc->fd = -1;
	}
}

uint8_t *kp_kcode_read(struct kp_kcode *kc, uint64_t addr, uint64_t len)
{
	uint64_t at = addr - (uint64_t)kc->delta;

	for (size_t i = 0; kc->fd >= 0 && i < kc->nr_loads; i++) {
		const GElf_Phdr *ph = &kc->loads[i];
		uint8_t *buf;

		if (at < ph->p_vaddr || at - ph->p_vaddr > ph->p_filesz ||
		    len > ph->p_filesz - (at - ph->p_vaddr))
			continue;
		buf = kp_xmalloc(len ? len : 1);
		if (!kp_read_at(kc->fd, buf, len, ph->p_offset + (at - ph->p_vaddr)))
			return buf;
		free(buf);
		break;
	}
	snprintf(kc->why, sizeof(kc->why), "the kernel's code at 0x%llx is not in %s",
		 (unsigned long long)addr, kc->fd >= 0 ? "its image" : "reach");
	return NULL;
}

void kp_kcode_release(struct kp_kcode *kc)
{
	if (kc->tried && kc->fd >= 0)
		close(kc->fd);
	free(kc->loads);
}
