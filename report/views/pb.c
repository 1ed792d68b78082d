/* SPDX-License-Identifier: MIT */
#include "pb.h"

#include <stdlib.h>
#include <string.h>

#include "formats/util.h"

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

void kp_pb_release(struct kp_pb *b)
{
	free(b->buf);
	memset(b, 0, sizeof(*b));
}

static size_t varint_size(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static void put_varint(struct kp_pb *b, uint64_t v)
{
	KP_GROW(b->buf, b->cap, b->len + 10);
	while (v >= 0x80) {
		b->buf[b->len++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b->buf[b->len++] = (uint8_t)v;
}

static void put_tag(struct kp_pb *b, uint32_t field, int wire)
{
	put_varint(b, (uint64_t)field << 3 | (uint64_t)wire);
}

void kp_pb_u64(struct kp_pb *b, uint32_t field, uint64_t v)
{
	if (!v)
		return;
	put_tag(b, field, WIRE_VARINT);
	put_varint(b, v);
}

void kp_pb_packed(struct kp_pb *b, uint32_t field, const uint64_t *v, size_t n)
{
	size_t len = 0;

	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		len += varint_size(v[i]);
	put_tag(b, field, WIRE_LEN);
	put_varint(b, len);
	for (size_t i = 0; i < n; i++)
		put_varint(b, v[i]);
}

void kp_pb_bytes(struct kp_pb *b, uint32_t field, const void *p, size_t n)
{
	put_tag(b, field, WIRE_LEN);
	put_varint(b, n);
	KP_GROW(b->buf, b->cap, b->len + n);
	if (n)
		memcpy(b->buf + b->len, p, n);
	b->len += n;
}

size_t kp_pb_begin(struct kp_pb *b, uint32_t field)
{
	put_tag(b, field, WIRE_LEN);
	return b->len;
}

void kp_pb_end(struct kp_pb *b, size_t begun)
{
	size_t len = b->len - begun, k = varint_size(len);

	/* the length goes in front of the message: move the message up by its size */
	KP_GROW(b->buf, b->cap, b->len + k);
	memmove(b->buf + begun + k, b->buf + begun, len);
	b->len = begun;
	put_varint(b, len);
	b->len = begun + k + len;
}
