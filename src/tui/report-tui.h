/* SPDX-License-Identifier: MIT */
/*
 * report-tui.h - kprof report --tui: a recording's report browsed on the terminal.
 */
#ifndef KP_REPORT_TUI_H
#define KP_REPORT_TUI_H

#include "report/profile/report.h"
#include "report/views/view.h"

/*
 * kp_report_tui - browse @rep (built with @ro; borrowed) on the terminal, from @vo's view
 * options, until q. Returns 0, or 1 when the terminal cannot be driven.
 */
int kp_report_tui(struct kp_report *rep, const struct kp_report_opts *ro,
		  const struct kp_view_opts *vo);

#endif /* KP_REPORT_TUI_H */
