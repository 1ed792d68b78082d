/* SPDX-License-Identifier: MIT */
/*
 * ann-page.h - a function annotated as kprof annotate prints it, on a page of the terminal
 * screen (tui.h) that opens at its hottest instruction, TAB and Shift-TAB going to the next
 * and the one before: report --tui's a key, and kprof top's.
 */
#ifndef KP_ANN_PAGE_H
#define KP_ANN_PAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "report/profile/report.h"
#include "tui.h"

/*
 * kp_tui_annotate - annotate @name, a function of @rep (built with addresses; borrowed), by
 * event @event, on a page over @t's rows. What could not be annotated, and why, goes to
 * stderr, which the screen holds until it is given back. Returns 0, or 1 when @name was not
 * annotated (the page then says so).
 */
int kp_tui_annotate(struct kp_tui *t, struct kp_report *rep, const char *name, size_t event,
		    bool by_samples);

#endif /* KP_ANN_PAGE_H */
