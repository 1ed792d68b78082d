/* SPDX-License-Identifier: MIT */
/*
 * unwind-libunwind.h - `--unwinder=libunwind` (unwind-libunwind.c): its row of unwind.c's table.
 * Private to report/unwind/.
 */
#ifndef KP_UNWIND_LIBUNWIND_H
#define KP_UNWIND_LIBUNWIND_H

#include "unwind-lib.h"

extern const struct kp_unwind_ops kp_unwind_libunwind;

#endif /* KP_UNWIND_LIBUNWIND_H */
