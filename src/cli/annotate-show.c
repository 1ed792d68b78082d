/* SPDX-License-Identifier: MIT */
#include "annotate-show.h"

#include <string.h>

#include "formats/util.h"
#include "src/record/diag.h"

/* "NAME is inlined into F, G: annotated there, ..." for a name asked for that only exists
 * inlined. */
static void tell_inlined(const struct kp_annotation *an, const char *name)
{
	char into[1024];
	size_t len = 0;

	into[0] = '\0';
	for (size_t i = 0; i < an->nr_funcs && len < sizeof(into); i++)
		for (size_t k = 0; k < an->funcs[i].nr_marks; k++)
			if (!strcmp(an->funcs[i].marks[k], name)) {
				len += (size_t)snprintf(into + len, sizeof(into) - len, "%s%s",
							len ? ", " : "", an->funcs[i].name);
				break;
			}
	kp_notice("%s is inlined into %s: annotated there, its instructions marked %c", name, into,
		  KP_ANN_MARK);
}

/* What could not be annotated, on stderr; returns whether anything was. */
static bool tell(const struct kp_annotation *an, const char *input)
{
	size_t done = 0;

	for (size_t i = 0; i < an->nr_inlined; i++)
		tell_inlined(an, an->inlined[i]);
	for (size_t i = 0; i < an->nr_missing; i++) {
		kp_error("no function called '%s' has samples in '%s'", an->missing[i], input);
		kp_hint_nearest(an->missing[i], an->names, an->nr_names);
	}
	for (size_t i = 0; i < an->nr_funcs; i++)
		if (an->funcs[i].why)
			kp_warn("%s: not annotated: %s", an->funcs[i].name, an->funcs[i].why);
		else
			done++;
	if (!an->nr_funcs && !an->nr_missing)
		kp_error("'%s' has no samples in a function kprof can annotate", input);
	return done > 0;
}

int kp_annotate_show(struct kp_report *rep, const struct kp_ann_opts *ao, bool json,
		     const struct kp_ann_print_opts *po, FILE *out)
{
	struct kp_annotation an;
	int rc = kp_annotate(rep, ao, &an);
	bool some;

	if (rc) {
		kp_error("annotate: %s", kp_strerror(rc));
		kp_annotation_release(&an);
		return 1;
	}
	some = tell(&an, rep->o->input);
	if (json)
		rc = kp_ann_print_json(&an, po, out) ? 1 : 0;
	else
		kp_ann_print(&an, po, out);
	kp_annotation_release(&an);
	return rc || !some || an.nr_missing ? 1 : 0;
}
