/* SPDX-License-Identifier: MIT */
/*
 * ehhdr.h - the .eh_frame_hdr section (the search table over .eh_frame that unwinders look a
 * PC up in), read from its bytes: for libunwind's search over a binary's (unwind-libunwind.c),
 * and to hold a jitdump's unwinding info to its own .eh_frame and code (perfmap.c). And the
 * DW_EH_PE_* encoded values it and .eh_frame hold, which libdw's reader of CFI entries
 * (dwarf_next_cfi()) leaves encoded (dso-fde.c).
 */
#ifndef KP_EHHDR_H
#define KP_EHHDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* DW_EH_PE_* encodings */
#define KP_EH_PE_OMIT 0xff
#define KP_EH_PE_TABLE 0x3b	/* datarel | sdata4: the search table libunwind can search */
#define KP_EH_PE_FORMAT 0x0f	/* the bits that say how the value is stored */

/*
 * kp_eh_pe_read - the DW_EH_PE_* encoded value at *@p into *@v, *@p moved past it: absptr
 * (@ptr_size bytes), [us]data2/4/8 or [us]leb128, in the byte order @big says, all before @end;
 * added to @pc (the field's own address) for pcrel, to @data for datarel. False for omit,
 * indirect, another application, another format, or bytes beyond @end.
 */
bool kp_eh_pe_read(uint8_t enc, const uint8_t **p, const uint8_t *end, unsigned ptr_size,
		   bool big, uint64_t pc, uint64_t data, uint64_t *v);

struct kp_ehhdr {
	size_t table;		/* where the search table starts, from the section's start */
	uint32_t nr;		/* its entries: pairs of sdata4, relative to the section's start */
	bool has_eh_frame;	/* eh_frame_ptr is absolute, PC- or data-relative: */
	uint64_t eh_frame;	/* ... the address of .eh_frame it gives */
};

/*
 * kp_ehhdr_parse - the .eh_frame_hdr of @len bytes at @p, which is at address @addr: version 1,
 * its eh_frame_ptr, a 4-byte fde_count and a table of datarel sdata4 entries, all within @len.
 * False, for a layout other than that, or a count of 0 or beyond the section.
 */
bool kp_ehhdr_parse(const uint8_t *p, size_t len, uint64_t addr, struct kp_ehhdr *h);

/* kp_ehhdr_entry - entry @i of @h's table in @p: the function's start and its FDE's address,
 * relative to the section's start. */
void kp_ehhdr_entry(const uint8_t *p, const struct kp_ehhdr *h, uint32_t i, int32_t *start,
		    int32_t *fde);

#endif /* KP_EHHDR_H */
