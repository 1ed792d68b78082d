/* SPDX-License-Identifier: MIT */
/* nocfi.h - what nocfi.c and nocfi-fn.c share: the one function without CFI. */
#ifndef KP_WORKLOAD_NOCFI_H
#define KP_WORKLOAD_NOCFI_H

#include <stdint.h>

#define NOCFI_UNIT 20000 /* iterations per unit of work: about 20 us */

uint64_t nocfi_spin(unsigned units, void (*callee)(unsigned units));

#endif /* KP_WORKLOAD_NOCFI_H */
