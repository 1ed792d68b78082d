/* SPDX-License-Identifier: MIT */
/*
 * unwound.h - a recording (.kprof or perf.data) written again as a .kprof whose stack copies
 * are unwound into call chains.
 */
#ifndef KP_UNWOUND_H
#define KP_UNWOUND_H

#include <stdbool.h>

/*
 * kp_unwound_write - read @input, write @output (beside it, then renamed; never over @input),
 * saying what failed and how much was unwound. An input damaged on the way leaves no @output
 * with @whole, else the records before the damage. Returns the exit code: 0 or 1.
 */
int kp_unwound_write(const char *input, const char *output, bool whole);

#endif /* KP_UNWOUND_H */
