/* SPDX-License-Identifier: MIT */
/*
 * probe.c - uprobes (ELF symbol -> file offset), kprobes and breakpoints for `-e`.
 */

#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <linux/hw_breakpoint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "formats/util.h"
#include "pmu.h"

/* "NAME+OFF" -> *@name (owned), *@off; false when OFF is not a number. */
static bool split_offset(const char *text, char **name, uint64_t *off)
{
	const char *plus = strchr(text, '+');

	*off = 0;
	*name = plus ? strndup(text, (size_t)(plus - text)) : kp_xstrdup(text);
	if (!*name)
		kp_die("out of memory");
	return !plus || kp_pmu_parse_value(plus + 1, off);
}

/* ---- ELF ------------------------------------------------------------------------------------ */

struct elf_file {
	int fd;
	Elf *elf;
};

static int elf_open(const char *spec, const char *path, struct elf_file *ef)
{
	GElf_Ehdr eh;
	struct stat st;

	ef->elf = NULL;
	ef->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ef->fd < 0) {
		int err = errno;
		kp_error("cannot open '%s' for event '%s': %s", path, spec, strerror(err));
		return err == ENOENT ? -EINVAL : -err;
	}
	if (fstat(ef->fd, &st) == 0 && !S_ISREG(st.st_mode)) {
		kp_error("'%s' is not a regular file (event '%s')", path, spec);
		return -EINVAL;
	}
	elf_version(EV_CURRENT);
	ef->elf = elf_begin(ef->fd, ELF_C_READ_MMAP, NULL);
	if (!ef->elf || elf_kind(ef->elf) != ELF_K_ELF || !gelf_getehdr(ef->elf, &eh)) {
		kp_error("'%s' is not an ELF file (event '%s')", path, spec);
		return -EINVAL;
	}
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
		kp_error("'%s' is not an executable or a shared library (event '%s')", path, spec);
		return -EINVAL;
	}
	return 0;
}

static void elf_close(struct elf_file *ef)
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

static void no_function(const struct elf_file *ef, const char *spec, const char *path,
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

/* The address of @symbol+@off in *@vaddr, or 0xADDR+@off. */
static int symbol_address(const struct elf_file *ef, const char *spec, const char *path,
			  const char *symbol, uint64_t off, uint64_t *vaddr)
{
	struct lookup l = { symbol, false, false, 0, 0, 0 };

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
	return 0;
}

int kp_probe_file_offset(const char *spec, const char *path, const char *symbol, uint64_t off,
			 uint64_t *file_off, uint64_t *vaddr)
{
	struct elf_file ef;
	bool exec = false;
	int err = elf_open(spec, path, &ef);

	if (!err)
		err = symbol_address(&ef, spec, path, symbol, off, vaddr);
	if (!err && vaddr_to_offset(ef.elf, *vaddr, file_off, &exec)) {
		kp_error("address %#llx is in no loadable segment of '%s' (event '%s')",
			 (unsigned long long)*vaddr, path, spec);
		err = -EINVAL;
	} else if (!err && !exec) {
		kp_error("address %#llx is not in an executable segment of '%s' (event '%s')",
			 (unsigned long long)*vaddr, path, spec);
		err = -EINVAL;
	}
	elf_close(&ef);
	return err;
}

/* ---- uprobes and kprobes -------------------------------------------------------------------- */

/* The PMU @pmu's type into @attr, and its retprobe bit for @ret. */
static int probe_pmu(const char *spec, const char *pmu, bool ret, struct perf_event_attr *attr)
{
	uint32_t type;
	int err = kp_pmu_type(pmu, &type);

	if (err) {
		kp_error("cannot read the type of the %s PMU (%s/%s/type): %s", pmu, KP_PMU_DIR, pmu,
			 err == -EINVAL ? "malformed" : strerror(-err));
		return err == -EINVAL ? -EIO : err;
	}
	attr->type = type;
	attr->config = 0;
	err = ret ? kp_pmu_set_term(pmu, "retprobe", 1, attr, NULL) : 0;
	if (err) {
		kp_error("cannot use '%s': the %s PMU has no usable retprobe bit (%s/%s/format/"
			 "retprobe): %s", spec, pmu, KP_PMU_DIR, pmu,
			 err == -ENOENT ? "missing" : "malformed");
		return -ENODEV;
	}
	return 0;
}

int kp_probe_uprobe(const char *spec, const char *arg, bool ret, struct perf_event_attr *attr,
		    char **path)
{
	const char *colon = strrchr(arg, ':');
	char *file = NULL, *sym = NULL;
	uint64_t off, file_off, vaddr;
	uint32_t type;
	int err = -EINVAL;

	*path = NULL;
	if (!colon || colon == arg || !colon[1]) {
		kp_error("bad event '%s': a %s is %s:PATH:SYMBOL[+OFF]", spec,
			 ret ? "uretprobe" : "uprobe", ret ? "uretprobe" : "uprobe");
		return -EINVAL;
	}
	if (kp_pmu_type("uprobe", &type) == -ENOENT) {
		kp_error("this kernel has no uprobe PMU (CONFIG_UPROBES is off): '%s' cannot be "
			 "opened", spec);
		return -ENODEV;
	}
	file = strndup(arg, (size_t)(colon - arg));
	if (!file)
		kp_die("out of memory");
	if (!split_offset(colon + 1, &sym, &off) || !*sym) {
		kp_error("bad event '%s': SYMBOL+OFF needs a symbol and a number (decimal or 0x "
			 "hex), not '%s'", spec, colon + 1);
		goto out;
	}
	*path = realpath(file, NULL);
	if (!*path) {
		kp_error("cannot find '%s' (event '%s'): %s", file, spec, strerror(errno));
		err = errno == ENOENT || errno == ENOTDIR ? -EINVAL : -errno;
		goto out;
	}
	err = kp_probe_file_offset(spec, *path, sym, off, &file_off, &vaddr);
	if (!err)
		err = probe_pmu(spec, "uprobe", ret, attr);
	if (!err) {
		attr->uprobe_path = (uint64_t)(uintptr_t)*path;
		attr->probe_offset = file_off;
	}
out:
	if (err) {
		free(*path);
		*path = NULL;
	}
	free(file);
	free(sym);
	return err;
}

int kp_probe_kprobe(const char *spec, const char *arg, bool ret, struct perf_event_attr *attr,
		    char **func)
{
	const char *what = ret ? "kretprobe" : "kprobe";
	uint64_t off;
	uint32_t type;
	int err;

	*func = NULL;
	if (!split_offset(arg, func, &off) || !**func ||
	    (*func)[strspn(*func, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.")]) {
		kp_error("bad event '%s': a %s is %s:FUNC%s, FUNC a kernel function", spec, what,
			 what, ret ? "" : "[+OFF]");
		err = -EINVAL;
	} else if (ret && off) {
		kp_error("bad event '%s': a kretprobe fires when FUNC returns, so it takes no "
			 "offset", spec);
		err = -EINVAL;
	} else if (kp_pmu_type("kprobe", &type) == -ENOENT) {
		kp_error("this kernel has no kprobe PMU (CONFIG_KPROBES is off): '%s' cannot be "
			 "opened", spec);
		err = -ENODEV;
	} else {
		err = probe_pmu(spec, "kprobe", ret, attr);
	}
	if (err) {
		free(*func);
		*func = NULL;
		return err;
	}
	attr->kprobe_func = (uint64_t)(uintptr_t)*func;
	attr->probe_offset = off;
	return 0;
}

/* ---- breakpoints ---------------------------------------------------------------------------- */

int kp_probe_breakpoint(const char *spec, const char *arg, struct perf_event_attr *attr)
{
	const char *colon = strchr(arg, ':'), *hex = arg, *access = colon ? colon + 1 : "rw";
	size_t n;
	unsigned type = 0;

	if (!strncmp(hex, "0x", 2) || !strncmp(hex, "0X", 2))
		hex += 2;
	n = strspn(hex, "0123456789abcdefABCDEF");
	if (n == 0 || n > 16 || hex + n != (colon ? colon : arg + strlen(arg))) {
		kp_error("bad event '%s': a breakpoint is mem:ADDR[:rwx], ADDR in hex", spec);
		return -EINVAL;
	}
	for (const char *a = access; *a; a++) {
		unsigned bit = *a == 'r' ? HW_BREAKPOINT_R : *a == 'w' ? HW_BREAKPOINT_W
			     : *a == 'x' ? HW_BREAKPOINT_X : 0;
		if (!bit) {
			kp_error("bad access '%s' in event '%s': r, w and x are known", access, spec);
			return -EINVAL;
		}
		type |= bit;
	}
	if (!type || ((type & HW_BREAKPOINT_X) && type != HW_BREAKPOINT_X)) {
		kp_error("bad access '%s' in event '%s': r, w or rw watch data, x alone an "
			 "instruction", access, spec);
		return -EINVAL;
	}
	attr->type = PERF_TYPE_BREAKPOINT;
	attr->config = 0;
	attr->bp_addr = strtoull(hex, NULL, 16);
	attr->bp_type = type;
	attr->bp_len = type == HW_BREAKPOINT_X ? sizeof(long) : HW_BREAKPOINT_LEN_8;
	return 0;
}
