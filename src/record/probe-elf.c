/* SPDX-License-Identifier: MIT */
/*
 * probe-elf.c - a probed binary's functions (ELF symbol -> address) and file offsets.
 */

#include "probe-elf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "formats/util.h"
#include "pmu.h"

int kp_probe_elf_open(const char *spec, const char *path, struct kp_probe_elf *ef)
{
	char event[300] = "";
	GElf_Ehdr eh;
	struct stat st;

	if (spec)
		snprintf(event, sizeof(event), " (event '%.280s')", spec);
	ef->elf = NULL;
	ef->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ef->fd < 0) {
		int err = errno;
		if (spec)
			kp_error("cannot open '%s' for event '%s': %s", path, spec, strerror(err));
		else
			kp_error("cannot open '%s': %s", path, strerror(err));
		return err == ENOENT ? -EINVAL : -err;
	}
	if (fstat(ef->fd, &st) == 0 && !S_ISREG(st.st_mode)) {
		kp_error("'%s' is not a regular file%s", path, event);
		return -EINVAL;
	}
	elf_version(EV_CURRENT);
	ef->elf = elf_begin(ef->fd, ELF_C_READ_MMAP, NULL);
	if (!ef->elf || elf_kind(ef->elf) != ELF_K_ELF || !gelf_getehdr(ef->elf, &eh)) {
		kp_error("'%s' is not an ELF file%s", path, event);
		return -EINVAL;
	}
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
		kp_error("'%s' is not an executable or a shared library%s", path, event);
		return -EINVAL;
	}
	return 0;
}

void kp_probe_elf_close(struct kp_probe_elf *ef)
{
	if (ef->elf)
		elf_end(ef->elf);
	if (ef->fd >= 0)
		close(ef->fd);
}

typedef void kp_sym_fn(void *ctx, const char *name, const GElf_Sym *sym);

/*
 * Call @fn for each defined function (and IFUNC) of every section of @type (SHT_SYMTAB or
 * SHT_DYNSYM). Returns whether there was such a section.
 */
static bool walk_functions(Elf *elf, Elf64_Word type, kp_sym_fn *fn, void *ctx)
{
	Elf_Scn *scn = NULL;
	bool any = false;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		any = true;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *name;
			int t;
			if (!gelf_getsym(d, (int)i, &s))
				break;
			t = GELF_ST_TYPE(s.st_info);
			if ((t != STT_FUNC && t != STT_GNU_IFUNC) || s.st_shndx == SHN_UNDEF ||
			    !s.st_value)
				continue;
			name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (name && *name)
				fn(ctx, name, &s);
		}
	}
	return any;
}

/* What looking one name up finds. */
struct lookup {
	const char *want;
	bool found, ifunc;
	uint64_t value, size;
	unsigned others; /* more functions of that name at other addresses */
};

static void lookup_sym(void *ctx, const char *name, const GElf_Sym *s)
{
	struct lookup *l = ctx;

	if (strcmp(name, l->want))
		return;
	if (GELF_ST_TYPE(s->st_info) == STT_GNU_IFUNC) {
		l->ifunc = true;
		return;
	}
	if (!l->found) {
		l->found = true;
		l->value = s->st_value;
		l->size = s->st_size;
	} else if (s->st_value != l->value) {
		l->others++;
	}
}

struct names {
	char **v;
	size_t nr, cap;
};

static void collect_sym(void *ctx, const char *name, const GElf_Sym *s)
{
	struct names *n = ctx;

	(void)s;
	KP_GROW(n->v, n->cap, n->nr + 1);
	n->v[n->nr++] = kp_xstrdup(name);
}

static void no_function(const struct kp_probe_elf *ef, const char *spec, const char *path,
			const char *symbol, bool ifunc)
{
	struct names n = { NULL, 0, 0 };

	if (ifunc) {
		kp_error("'%s' in '%s' is an IFUNC, whose implementation is chosen at run time "
			 "(event '%s')", symbol, path, spec);
		kp_hint("probe one of its implementations where '%s' has them in .symtab (a local "
			"symbol such as __%s_avx2), or a function that calls it", path, symbol);
		return;
	}
	kp_error("no function '%s' in '%s' (event '%s')", symbol, path, spec);
	if (!walk_functions(ef->elf, SHT_SYMTAB, collect_sym, &n))
		walk_functions(ef->elf, SHT_DYNSYM, collect_sym, &n);
	if (!n.nr)
		kp_hint("'%s' has no function symbols (stripped?): uprobe:PATH:0xADDR probes an "
			"address", path);
	else if (!kp_hint_nearest(symbol, (const char *const *)n.v, n.nr))
		kp_hint("'nm %s' (or 'nm -D' for a library) lists its functions", path);
	for (size_t i = 0; i < n.nr; i++)
		free(n.v[i]);
	free(n.v);
}

/* The PT_LOAD segment holding @vaddr: the file offset, and whether it is executable. */
static int vaddr_to_offset(Elf *elf, uint64_t vaddr, uint64_t *off, bool *exec)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			*exec = ph.p_flags & PF_X;
			return 0;
		}
	}
	return -ENOENT;
}

int kp_probe_elf_symbol(const struct kp_probe_elf *ef, const char *spec, const char *path,
			const char *symbol, uint64_t off, uint64_t *vaddr, uint64_t *size)
{
	struct lookup l = { symbol, false, false, 0, 0, 0 };

	if (size)
		*size = 0;
	if (!strncmp(symbol, "0x", 2)) {
		if (!kp_pmu_parse_value(symbol, vaddr)) {
			kp_error("bad address '%s' in event '%s'", symbol, spec);
			return -EINVAL;
		}
		*vaddr += off;
		return 0;
	}
	if (!walk_functions(ef->elf, SHT_SYMTAB, lookup_sym, &l) || !l.found)
		walk_functions(ef->elf, SHT_DYNSYM, lookup_sym, &l);
	if (!l.found) {
		no_function(ef, spec, path, symbol, l.ifunc);
		return -EINVAL;
	}
	if (l.size && off >= l.size) {
		kp_error("offset %llu is past the end of '%s' in '%s', which is %llu bytes long "
			 "(event '%s')", (unsigned long long)off, symbol, path,
			 (unsigned long long)l.size, spec);
		return -EINVAL;
	}
	if (l.others)
		kp_warn("'%s' names %u more function%s in '%s': probing the one at %#llx", symbol,
			l.others, l.others > 1 ? "s" : "", path, (unsigned long long)l.value);
	*vaddr = l.value + off;
	if (size)
		*size = l.size;
	return 0;
}

int kp_probe_elf_offset(const struct kp_probe_elf *ef, const char *spec, const char *path,
			uint64_t vaddr, bool code, uint64_t *off)
{
	bool exec = false;

	if (vaddr_to_offset(ef->elf, vaddr, off, &exec)) {
		kp_error("address %#llx is in no loadable segment of '%s' (event '%s')",
			 (unsigned long long)vaddr, path, spec);
		return -EINVAL;
	}
	if (code && !exec) {
		kp_error("address %#llx is not in an executable segment of '%s' (event '%s')",
			 (unsigned long long)vaddr, path, spec);
		return -EINVAL;
	}
	return 0;
}
