/* SPDX-License-Identifier: MIT */
#include "symrank.h"

#include <elf.h>
#include <string.h>

static size_t underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* -1 when only @a has the property, 1 when only @b has it, else 0 */
static int prefer(bool a, bool b)
{
	return a == b ? 0 : a ? -1 : 1;
}

int kp_symrank_cmp(const struct kp_symrank *a, const struct kp_symrank *b)
{
	size_t ua, ub, la, lb;
	int c;

	if ((c = prefer(a->size != 0, b->size != 0)) || (c = prefer(a->typed, b->typed)) ||
	    (c = prefer(a->bind != STB_WEAK, b->bind != STB_WEAK)) ||
	    (c = prefer(a->bind == STB_GLOBAL, b->bind == STB_GLOBAL)))
		return c;
	ua = underscores(a->name);
	ub = underscores(b->name);
	if (ua != ub)
		return ua < ub ? -1 : 1;
	la = strlen(a->name);
	lb = strlen(b->name);
	if (la != lb)
		return la > lb ? -1 : 1;
	return strcmp(a->name, b->name);
}
