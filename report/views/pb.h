/* SPDX-License-Identifier: MIT */
/*
 * pb.h - a protocol-buffers writer for the few wire types a profile needs: varints, packed
 * varints, length-delimited strings and nested messages, into one growing buffer. A nested
 * message is begun, filled and ended; its length is written in front of it when it ends, so
 * nothing is built twice. Fields at their default (0, "") are left out, as proto3 does.
 */
#ifndef KP_PB_H
#define KP_PB_H

#include <stddef.h>
#include <stdint.h>

struct kp_pb {
	uint8_t *buf;		/* owned; kp_pb_release() frees it */
	size_t len, cap;
};

void kp_pb_release(struct kp_pb *b);

/* kp_pb_u64 - field @field, a varint @v (omitted when 0). An int64 is written as its u64. */
void kp_pb_u64(struct kp_pb *b, uint32_t field, uint64_t v);

/* kp_pb_packed - field @field, the @n varints of @v packed (omitted when @n is 0). */
void kp_pb_packed(struct kp_pb *b, uint32_t field, const uint64_t *v, size_t n);

/* kp_pb_bytes - field @field, @n bytes of @p; written even when empty (a string table's ""). */
void kp_pb_bytes(struct kp_pb *b, uint32_t field, const void *p, size_t n);

/* kp_pb_begin - start a nested message in field @field; returns what kp_pb_end() takes. */
size_t kp_pb_begin(struct kp_pb *b, uint32_t field);
void kp_pb_end(struct kp_pb *b, size_t begun);

#endif /* KP_PB_H */
