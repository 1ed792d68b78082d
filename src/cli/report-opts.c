/* SPDX-License-Identifier: MIT */
#include "report-opts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options.h"

int kp_parse_unwinder(const char *cmd, const char *name, enum kp_unwind_lib *lib)
{
	char known[128] = "";

	if (!kp_unwind_lib_find(name, lib))
		return 0;
	for (size_t i = 0; i < KP_UNWIND_NR_LIBS; i++)
		snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s",
			 i ? ", " : "", kp_unwind_lib_name((enum kp_unwind_lib)i));
	return kp_usage_error(cmd, "unknown unwinder '%s' (known: %s)", name, known);
}

int kp_cmd_weight(const char *cmd, const char *arg, bool *by_samples)
{
	if (strcmp(arg, "period") && strcmp(arg, "samples"))
		return kp_usage_error(cmd, "--weight takes period or samples, not '%s'", arg);
	*by_samples = !strcmp(arg, "samples");
	return 0;
}

int kp_cmd_color(const char *cmd, const char *when, const char *output, bool *on)
{
	if (!strcmp(when, "always"))
		*on = true;
	else if (!strcmp(when, "auto"))
		*on = !output && isatty(STDOUT_FILENO);
	else if (!strcmp(when, "never"))
		*on = false;
	else
		return kp_usage_error(cmd, "--color takes auto, always or never, not '%s'", when);
	return 0;
}

int kp_cmd_parse_top(const char *cmd, const char *opt, const char *arg, size_t *top)
{
	char *end;
	unsigned long v = strtoul(arg, &end, 10);

	if (end == arg || *end || *arg == '-' || !v || v > 100000)
		return kp_usage_error(cmd, "%s takes a count of functions (1 or more), not '%s'", opt,
				      arg);
	*top = v;
	return 0;
}
