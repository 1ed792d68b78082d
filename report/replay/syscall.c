/* SPDX-License-Identifier: MIT */
/*
 * syscall.c - system call names (syscall.h): report/replay/syscall-names.h is generated at build time
 * from <asm/unistd.h> by Makefile.am, one "[NR] = "name"," line per __NR_ constant.
 */
#include "syscall.h"

#include <string.h>

#include "formats/util.h"

static const char *const names[] = {
#include "report/replay/syscall-names.h"
};

const char *kp_syscall_name(long nr)
{
	return nr >= 0 && (size_t)nr < ARRAY_SIZE(names) ? names[nr] : NULL;
}

long kp_syscall_nr(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i] && !strcmp(names[i], name))
			return (long)i;
	return -1;
}

long kp_syscall_max(void)
{
	return (long)ARRAY_SIZE(names);
}

bool kp_syscall_never_returns(long nr)
{
	const char *n = kp_syscall_name(nr);

	return n && (!strcmp(n, "exit") || !strcmp(n, "exit_group"));
}

const char *kp_errno_name(long err)
{
	return err > 0 && err < 4096 ? strerrorname_np((int)err) : NULL;
}
