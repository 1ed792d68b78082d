/* SPDX-License-Identifier: MIT */
/*
 * disasm-lib.c - capstone, loaded on first use (see disasm-lib.h).
 */
#include "disasm-lib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "formats/util.h"

#define STR_(x) #x
#define STR(x) STR_(x)
#define CS_SONAME "libcapstone.so." STR(CS_API_MAJOR)

static struct kp_cs lib;
static const struct kp_cs *loaded;

const struct kp_cs *kp_cs_load(char *why, size_t size)
{
	const struct kp_dl_fn fns[] = {
		{ "cs_open", &lib.open },     { "cs_close", &lib.close },
		{ "cs_option", &lib.option }, { "cs_malloc", &lib.malloc },
		{ "cs_free", &lib.free },     { "cs_disasm_iter", &lib.disasm_iter },
		{ "cs_insn_group", &lib.insn_group },
	};
	const char *missing;
	void *h;

	if (loaded)
		return loaded;
	h = dlopen(CS_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(why, size, "cannot load capstone: %s (install the Debian package "
			 "'libcapstone4')", dlerror());
		return NULL;
	}
	if ((missing = kp_dlsyms(h, fns, ARRAY_SIZE(fns)))) {
		snprintf(why, size, "%s has no %s: %s", CS_SONAME, missing, dlerror());
		dlclose(h);
		return NULL;
	}
	loaded = &lib;
	return loaded;
}
