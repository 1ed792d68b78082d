/* SPDX-License-Identifier: MIT */
/*
 * nocfi-fn.c - a function with a frame pointer but no CFI, for tests/workloads/nocfi.c: the
 * Makefile compiles this file alone with -fno-asynchronous-unwind-tables -fno-unwind-tables
 * -fno-omit-frame-pointer and without -g (which would give it a .debug_frame), so neither
 * .eh_frame nor .debug_frame describes it, as in code built with frame pointers but without
 * unwind tables (some JITs, hand-written assembly, old toolchains).
 */
#include <stdint.h>

#include "nocfi.h"

volatile uint64_t nocfi_sink;

/* Half of each call's work in its own loop, the other half in @callee: samples fall in this
 * frame and in a frame with CFI below it. */
uint64_t nocfi_spin(unsigned units, void (*callee)(unsigned units))
{
	uint64_t x = nocfi_sink;

	for (unsigned long i = 0; i < (unsigned long)units * NOCFI_UNIT; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	nocfi_sink = x;
	callee(units);
	return x;
}
