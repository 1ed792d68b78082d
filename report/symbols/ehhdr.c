/* SPDX-License-Identifier: MIT */
#include "ehhdr.h"

#include <string.h>

/* @n bytes at *@p, before @end, as an unsigned or (@sign) signed value. */
static bool read_fixed(const uint8_t **p, const uint8_t *end, size_t n, bool big, bool sign,
		       uint64_t *v)
{
	const uint8_t *b = *p;
	uint64_t x = 0;

	if ((size_t)(end - b) < n)
		return false;
	for (size_t i = 0; i < n; i++)
		x = big ? x << 8 | b[i] : x | (uint64_t)b[i] << (8 * i);
	if (sign && n < 8 && (x >> (8 * n - 1) & 1))
		x |= ~0ull << (8 * n);
	*p = b + n;
	*v = x;
	return true;
}

/* An unsigned or (@sign) signed LEB128 at *@p, before @end, of 10 bytes at most. */
static bool read_leb(const uint8_t **p, const uint8_t *end, bool sign, uint64_t *v)
{
	uint64_t x = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		if (*p >= end || shift >= 64)
			return false;
		b = *(*p)++;
		x |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (sign && shift < 64 && (b & 0x40))
		x |= ~0ull << shift;
	*v = x;
	return true;
}

bool kp_eh_pe_read(uint8_t enc, const uint8_t **p, const uint8_t *end, unsigned ptr_size,
		   bool big, uint64_t pc, uint64_t data, uint64_t *v)
{
	static const uint8_t size[16] = { [0x2] = 2, [0x3] = 4, [0x4] = 8,
					  [0xa] = 2, [0xb] = 4, [0xc] = 8 };
	const uint8_t *q = *p;
	unsigned fmt = enc & KP_EH_PE_FORMAT;
	bool ok;

	if (enc == KP_EH_PE_OMIT || (enc & 0x80) || !q || q > end)
		return false;
	if (fmt == 0x0) /* absptr */
		ok = (ptr_size == 4 || ptr_size == 8) &&
		     read_fixed(&q, end, ptr_size, big, false, v);
	else if (fmt == 0x1 || fmt == 0x9)
		ok = read_leb(&q, end, fmt == 0x9, v);
	else
		ok = size[fmt] && read_fixed(&q, end, size[fmt], big, fmt & 0x8, v);
	if (!ok)
		return false;
	switch (enc & 0x70) {
	case 0x00: /* absolute */
		break;
	case 0x10: /* pcrel: from the field itself */
		*v += pc;
		break;
	case 0x30: /* datarel: from the section */
		*v += data;
		break;
	default:
		return false;
	}
	*p = q;
	return true;
}

bool kp_ehhdr_parse(const uint8_t *p, size_t len, uint64_t addr, struct kp_ehhdr *h)
{
	const uint8_t *q = p + 4, *at = p + 4;
	uint64_t ptr;
	uint32_t count;
	size_t off;

	memset(h, 0, sizeof(*h));
	if (len < 4 || p[0] != 1 || (p[2] != 0x03 && p[2] != 0x0b) || p[3] != KP_EH_PE_TABLE ||
	    !kp_eh_pe_read(p[1] & KP_EH_PE_FORMAT, &q, p + len, 8, false, 0, 0, &ptr))
		return false;
	/* where .eh_frame is, when it says so in a way that needs nothing but the header */
	h->has_eh_frame = kp_eh_pe_read(p[1], &at, p + len, 8, false, addr + 4, addr, &h->eh_frame);
	off = (size_t)(q - p);
	if (len < off + 4)
		return false;
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
