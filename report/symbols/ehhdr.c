/* SPDX-License-Identifier: MIT */
#include "ehhdr.h"

#include <string.h>

/* The size of a DW_EH_PE_* encoded value; 0 for one .eh_frame_hdr has no business using. */
static size_t enc_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case 0x00: /* absptr */
	case 0x04: /* udata8 */
	case 0x0c: /* sdata8 */
		return 8;
	case 0x03: /* udata4 */
	case 0x0b: /* sdata4 */
		return 4;
	default:
		return 0;
	}
}

bool kp_ehhdr_parse(const uint8_t *p, size_t len, uint64_t addr, struct kp_ehhdr *h)
{
	size_t ptr_size, off;
	uint64_t ptr = 0;
	uint32_t count;

	memset(h, 0, sizeof(*h));
	if (len < 4 || p[0] != 1 || p[1] == KP_EH_PE_OMIT || !(ptr_size = enc_size(p[1])) ||
	    (p[2] != 0x03 && p[2] != 0x0b) || p[3] != KP_EH_PE_TABLE)
		return false;
	off = 4 + ptr_size;
	if (len < off + 4)
		return false;
	if (ptr_size == 4) { /* signed or not, as it says */
		int32_t v;
		memcpy(&v, p + 4, 4);
		ptr = (p[1] & 0x08) ? (uint64_t)(int64_t)v : (uint32_t)v;
	} else {
		memcpy(&ptr, p + 4, 8);
	}
	h->has_eh_frame = true;
	switch (p[1] & 0x70) {
	case 0x00: /* absolute */
		h->eh_frame = ptr;
		break;
	case 0x10: /* pcrel: from the field itself */
		h->eh_frame = addr + 4 + ptr;
		break;
	case 0x30: /* datarel: from the section */
		h->eh_frame = addr + ptr;
		break;
	default:
		h->has_eh_frame = false;
	}
	memcpy(&count, p + off, sizeof(count));
	off += 4;
	if (!count || (len - off) / 8 < count)
		return false;
	h->table = off;
	h->nr = count;
	return true;
}

void kp_ehhdr_entry(const uint8_t *p, const struct kp_ehhdr *h, uint32_t i, int32_t *start,
		    int32_t *fde)
{
	memcpy(start, p + h->table + (size_t)i * 8, 4);
	memcpy(fde, p + h->table + (size_t)i * 8 + 4, 4);
}
