/* SPDX-License-Identifier: MIT */
/*
 * disasm-lib.c - capstone, loaded on first use (see disasm-lib.h).
 */
#include "disasm-lib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#define STR_(x) #x
#define STR(x) STR_(x)
#define CS_SONAME "libcapstone.so." STR(CS_API_MAJOR)

static struct kp_cs lib;
static const struct kp_cs *loaded;

/* One function by name into its slot: dlsym's void * is the function (POSIX). */
static int sym(void *h, const char *name, void *slot, char *why, size_t size)
{
	void *f = dlsym(h, name);

	if (!f) {
		snprintf(why, size, "%s has no %s: %s", CS_SONAME, name, dlerror());
		return -1;
	}
	memcpy(slot, &f, sizeof(f));
	return 0;
}

const struct kp_cs *kp_cs_load(char *why, size_t size)
{
	void *h;

	if (loaded)
		return loaded;
	h = dlopen(CS_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(why, size, "cannot load capstone: %s (install the Debian package "
			 "'libcapstone4')", dlerror());
		return NULL;
	}
	if (sym(h, "cs_open", &lib.open, why, size) || sym(h, "cs_close", &lib.close, why, size) ||
	    sym(h, "cs_option", &lib.option, why, size) ||
	    sym(h, "cs_malloc", &lib.malloc, why, size) || sym(h, "cs_free", &lib.free, why, size) ||
	    sym(h, "cs_disasm_iter", &lib.disasm_iter, why, size) ||
	    sym(h, "cs_insn_group", &lib.insn_group, why, size)) {
		dlclose(h);
		return NULL;
	}
	loaded = &lib;
	return loaded;
}
