/* SPDX-License-Identifier: MIT */
/*
 * probe-fetch.h - what a probe of -e fetches, in perf probe's syntax, turned into the fetch
 * arguments of a tracefs uprobe event; and where a FUNC:RLN probe is.
 *
 * An argument is [NAME=]WHAT[:TYPE], WHAT one of
 *   VAR, VAR->FIELD, VAR.FIELD, VAR[N] ...   a variable of the binary's DWARF (probe-dwarf.h)
 *   $retval                                  what the function returns (return probes)
 *   $params                                  every parameter of the function, each by name
 *   argN                                     an SDT probe's Nth argument, from 1 (sdt.h)
 *   %REG, +OFF(...), @ADDR, $stackN, $stack, $comm, \IMM
 *                                            the kernel's own fetch arguments, as written
 * and TYPE one of u8..u64, s8..s64, x8..x64, string, ustring, char, symbol, or
 * b<width>@<offset>/<size>. A field is named NAME, else the variable's expression with '_'
 * for what a name cannot hold (p->len: p_len), retval, argN for an SDT argument, comm and
 * stackN for $comm and $stackN, and argN (its position) for the kernel's other ones. Without TYPE, a variable has its DWARF type's, an SDT
 * argument its size's, and the kernel's own arguments the kernel's default (x64).
 */
#ifndef KP_PROBE_FETCH_H
#define KP_PROBE_FETCH_H

#include <stdbool.h>
#include <stdint.h>

#include "probe-elf.h"
#include "sdt.h"

/* Where a probe is, as far as its arguments need to know. */
struct kp_probe_site {
	const char *spec;     /* the event, for messages */
	const char *path;     /* the binary's absolute path */
	const struct kp_probe_elf *ef;
	const char *func;     /* the function probed, or NULL (an address, an SDT probe) */
	uint64_t vaddr;       /* the probed address: the caller's, moved by kp_probe_fetch() */
	uint64_t file_off;    /* and its file offset */
	int rln;              /* FUNC:RLN, RLN lines past FUNC's declaration; -1: none */
	bool ret;             /* a return probe */
	bool entry;           /* at FUNC's entry: variables of unoptimized code move the probe
			       * past its prologue, where they are at home */
	const struct kp_sdt_probe *sdt;
};

/*
 * kp_probe_fetch - @args (space-separated, as above; "" for none) as the kernel's fetch
 * arguments in *@fetch (owned by the caller, "" for none). With @s->rln set, first moves the
 * probe to that line (which needs DWARF). Returns 0, or -EINVAL after printing what is wrong
 * and where: a bad argument or type, a variable DWARF does not have there (those it has
 * named), no DWARF at all (and how to name arguments without it), $retval where nothing
 * returns, a line without code.
 */
int kp_probe_fetch(struct kp_probe_site *s, const char *args, char **fetch);

#endif /* KP_PROBE_FETCH_H */
