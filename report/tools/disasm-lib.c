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

int kp_cs_load(struct kp_cs *cs, char *why, size_t size)
{
	const struct kp_dl_fn fns[] = {
		{ "cs_open", &cs->open },     { "cs_close", &cs->close },
		{ "cs_option", &cs->option }, { "cs_malloc", &cs->malloc },
		{ "cs_free", &cs->free },     { "cs_disasm_iter", &cs->disasm_iter },
		{ "cs_insn_group", &cs->insn_group },
	};
	const char *missing;
	void *h;

	h = dlopen(CS_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(why, size, "cannot load capstone: %s (install the Debian package "
			 "'libcapstone4')", dlerror());
		return -1;
	}
	if ((missing = kp_dlsyms(h, fns, ARRAY_SIZE(fns)))) {
		snprintf(why, size, "%s has no %s: %s", CS_SONAME, missing, dlerror());
		dlclose(h);
		return -1;
	}
	return 0;
}
