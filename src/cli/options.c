/* SPDX-License-Identifier: MIT */
#include "options.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "src/record/diag.h"
#include "src/record/idlist.h"

int kp_cmd_help(const char *text)
{
	fputs(text, stdout);
	return KP_CMD_HELP_SHOWN;
}

int kp_usage_error(const char *cmd, const char *fmt, ...)
{
	char msg[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fflush(stdout);
	fprintf(stderr, "kprof %s: %s\nsee 'kprof %s --help'\n", cmd, msg, cmd);
	return 2;
}

static int idlist_said(const char *cmd, int rc, const char *why)
{
	if (!rc)
		return 0;
	return rc == -EINVAL ? kp_usage_error(cmd, "%s", why) : kp_error("%s", why);
}

int kp_cmd_idlist(const char *cmd, const char *opt, const char *arg, bool ranges, long min,
		  long max, int **ids, size_t *nr)
{
	char why[512];

	return idlist_said(cmd, kp_idlist_parse(opt, arg, ranges, min, max, ids, nr, why,
						sizeof(why)), why);
}

int kp_cmd_cpus(const char *cmd, const char *arg, int **ids, size_t *nr)
{
	char why[512];

	return idlist_said(cmd, kp_idlist_cpus(arg, ids, nr, why, sizeof(why)), why);
}

int kp_cmd_number(const char *cmd, const char *what, const char *s, uint64_t min, uint64_t max,
		  uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-' || v < min || v > max)
		return kp_usage_error(cmd, "%s must be a number from %llu to %llu, not '%s'", what,
				      (unsigned long long)min, (unsigned long long)max, s);
	*out = v;
	return 0;
}

int kp_cmd_real(const char *cmd, const char *what, const char *s, double min, double max,
		double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= min && v <= max)) /* NaN is neither */
		return kp_usage_error(cmd, "%s must be a number from %.15g to %.15g, not '%s'", what,
				      min, max, s);
	*out = v;
	return 0;
}
