/* SPDX-License-Identifier: MIT */
/*
 * annotate-kcode.h - the kernel's code, for annotating kernel functions: /proc/kcore when this
 * machine runs the recorded kernel, or a vmlinux (moved by KASLR as the recording's _text
 * says), read through its PT_LOAD headers.
 */
#ifndef KP_ANNOTATE_KCODE_H
#define KP_ANNOTATE_KCODE_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/replay/session.h"

struct kp_kcode {
	bool tried;		/* kp_kcode_open() was called */
	int fd;
	unsigned machine;
	GElf_Phdr *loads;
	size_t nr_loads;
	int64_t delta;		/* running address - the file's (a vmlinux under KASLR) */
	char why[512];		/* why there is none */
};

/*
 * kp_kcode_open - the kernel's code of @s's recording into @kc (zeroed): @vmlinux, or
 * /proc/kcore without one. When there is none, @kc->fd is -1 and @kc->why says why.
 */
void kp_kcode_open(struct kp_kcode *kc, const char *vmlinux, const struct kp_session *s);

/* kp_kcode_read - @len bytes of the kernel at running address @addr into a new buffer (free()),
 * or NULL, @kc->why saying why. */
uint8_t *kp_kcode_read(struct kp_kcode *kc, uint64_t addr, uint64_t len);

/* kp_kcode_release - what @kc holds (nothing when it was never opened). */
void kp_kcode_release(struct kp_kcode *kc);

#endif /* KP_ANNOTATE_KCODE_H */
