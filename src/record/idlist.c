/* SPDX-License-Identifier: MIT */
#include "idlist.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <stdio.h>

#include "formats/util.h"
#include "perf.h"

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* One number of a list at *@p, in [@min, @max]; *@p moves past it. */
static bool number(const char **p, long min, long max, long *v)
{
	char *end;

	if (**p < '0' || **p > '9') /* no sign, no space: strtol would take them */
		return false;
	errno = 0;
	*v = strtol(*p, &end, 10);
	if (errno || *v < min || *v > max)
		return false;
	*p = end;
	return true;
}

int kp_idlist_parse(const char *opt, const char *arg, bool ranges, long min, long max,
		    int **ids, size_t *nr, char *why, size_t size)
{
	const char *p = arg;
	size_t n = *nr, k = 0;
	int *v = kp_xmalloc((n + 1) * sizeof(*v));

	for (size_t i = 0; i < n; i++)
		v[i] = (*ids)[i];

	while (*p) {
		long lo, hi;

		if (!number(&p, min, max, &lo))
			goto bad;
		hi = lo;
		if (ranges && *p == '-') {
			p++;
			if (!number(&p, lo, max, &hi))
				goto bad;
		}
		v = kp_xrealloc(v, (n + (size_t)(hi - lo) + 1) * sizeof(*v));
		for (long i = lo; i <= hi; i++)
			v[n++] = (int)i;
		if (*p && *p++ != ',')
			goto bad;
		if (!*p && p[-1] == ',')
			goto bad;
	}
	if (n == *nr) {
		free(v);
		snprintf(why, size, "%s needs a value", opt);
		return -EINVAL;
	}
	qsort(v, n, sizeof(*v), cmp_int);
	for (size_t i = 0; i < n; i++)
		if (!k || v[i] != v[k - 1])
			v[k++] = v[i];
	free(*ids);
	*ids = v;
	*nr = k;
	return 0;
bad:
	free(v);
	snprintf(why, size, "%s takes %s from %ld to %ld, not '%s'", opt,
		 ranges ? "numbers and ranges (0-3,6)" : "numbers", min, max, arg);
	return -EINVAL;
}

/* The first of @ids (of @nr) that is not among the @nr_online CPUs of @online, or -1. */
static int offline(const int *ids, size_t nr, const int *online, int nr_online)
{
	for (size_t i = 0; i < nr; i++) {
		int k = 0;
		while (k < nr_online && online[k] != ids[i])
			k++;
		if (k == nr_online)
			return ids[i];
	}
	return -1;
}

int kp_idlist_cpus(const char *arg, int **ids, size_t *nr, char *why, size_t size)
{
	int online[KP_MAX_CPUS], n = kp_cpus_online(online, KP_MAX_CPUS), cpu;
	int *v = kp_xmalloc((*nr + 1) * sizeof(*v));
	size_t k = *nr;
	int rc;

	memcpy(v, *ids ? *ids : v, *nr * sizeof(*v));
	rc = kp_idlist_parse("-C", arg, true, 0, KP_MAX_CPUS - 1, &v, &k, why, size);
	if (!rc && n <= 0) {
		rc = n ? n : -EIO;
		snprintf(why, size, "cannot read the online CPUs: %s", strerror(-rc));
	}
	if (!rc && (cpu = offline(v, k, online, n)) >= 0) {
		rc = -EINVAL;
		snprintf(why, size, "CPU %d is not online", cpu);
	}
	if (rc) {
		free(v);
		return rc;
	}
	free(*ids);
	*ids = v;
	*nr = k;
	return 0;
}
