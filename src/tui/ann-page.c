/* SPDX-License-Identifier: MIT */
#include "ann-page.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/cli/annotate-show.h"

static const char keys_help[] =
	" q/Esc back  Tab/Shift-Tab next/previous hot instruction  Up/Down/PgUp/PgDn scroll ";

/*
 * An instruction's share of its function, from its line of kp_ann_print()'s text ("  97.81%
 * 402  1444:  addq $1, %rax", a '|' before the address when it is marked); -1 for any other
 * line (a source line, a label, an instruction without samples, a header).
 */
static double heat(const char *line)
{
	unsigned long long samples;
	char addr[24];
	double pct;
	int n = 0;

	if (sscanf(line, " %lf%% %llu%*[| ]%23[0-9a-f]:%n", &pct, &samples, addr, &n) == 3 && n &&
	    line[n] == ' ')
		return pct;
	return -1;
}

int kp_tui_annotate(struct kp_tui *t, struct kp_report *rep, const char *name, size_t event,
		    bool by_samples)
{
	struct kp_ann_opts ao = { .event = event, .by_samples = by_samples, .names = &name,
				  .nr_names = 1 };
	struct kp_ann_print_opts po = { .by_samples = by_samples, .source = true };
	struct kp_tui *p;
	char *text = NULL, *line, *save = NULL;
	size_t len = 0;
	bool insns = true; /* before the function's source lines, which come last */
	FILE *out = open_memstream(&text, &len);
	int rc;

	if (!out)
		return 1;
	rc = kp_annotate_show(rep, &ao, false, &po, out);
	fclose(out);
	p = kp_tui_page(t, "", keys_help);
	kp_tui_head(p, 0, "kprof annotate: %s%s", name,
		    rc ? " (could not be annotated: why is said when the screen is given back)"
		       : "");
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "# source lines of ", 18))
			insns = false;
		kp_tui_row(p, p->nr, insns ? heat(line) : -1, -1, 0, ' ', "%s", line);
	}
	kp_tui_page_end(p);
	free(text);
	return rc;
}
