/* SPDX-License-Identifier: MIT */
/*
 * json.h - a streaming JSON writer for the exports that other tools read (speedscope, Chrome
 * trace events, the Firefox Profiler's Gecko format), plain or gzip-compressed.
 *
 * json-c builds a document as a tree of objects, about 50 bytes for every number of an
 * array: a few million samples would cost hundreds of megabytes before the first byte is
 * written. These writers emit in one pass instead, and hold only a 64 KiB buffer (and zlib's
 * state). Commas are the writer's business: values and keys may simply follow each other.
 *
 * Strings go through kp_json_str(), the one escaping rule of every export: '"' and '\' and
 * the control characters escaped, bytes that are not UTF-8 replaced by U+FFFD, so that a
 * hostile name stays one valid string.
 *
 * Errors are sticky (libtraceevent's trace_seq): write all, then check kp_json_finish().
 */
#ifndef KP_JSON_H
#define KP_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define KP_JSON_MAX_DEPTH 32

struct kp_json {
	FILE *out;		/* borrowed */
	void *z;		/* zlib's z_stream when compressing, else NULL */
	unsigned char *buf;	/* what is not yet written out */
	size_t len;
	int err;		/* 0, or the first error (-errno, -EIO, -ENOMEM) */
	int depth;
	bool comma[KP_JSON_MAX_DEPTH];	/* a value was written at this depth */
	bool after_key;
	uint64_t bytes;		/* uncompressed bytes so far */
};

/* kp_json_init - write to @out, gzip-compressed with @gzip (a .json.gz file). */
void kp_json_init(struct kp_json *j, FILE *out, bool gzip);

/* kp_json_finish - flush (and end the gzip stream); returns 0 or the first error. Frees the
 * writer's state in every case; @j's stream stays open (its owner's). */
int kp_json_finish(struct kp_json *j);

void kp_json_obj(struct kp_json *j);	/* { */
void kp_json_obj_end(struct kp_json *j);	/* } */
void kp_json_arr(struct kp_json *j);	/* [ */
void kp_json_arr_end(struct kp_json *j);	/* ] */

/* kp_json_key - "@key": (an ASCII literal, written as it is) */
void kp_json_key(struct kp_json *j, const char *key);

/* kp_json_str - @s (NUL-terminated) as a JSON string; kp_json_str_len for @n bytes. */
void kp_json_str(struct kp_json *j, const char *s);
void kp_json_str_len(struct kp_json *j, const char *s, size_t n);

/* kp_json_strf - a string made from a printf format (at most 4 KiB), escaped as above. */
void kp_json_strf(struct kp_json *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void kp_json_u64(struct kp_json *j, uint64_t v);
void kp_json_i64(struct kp_json *j, int64_t v);
void kp_json_bool(struct kp_json *j, bool v);
void kp_json_null(struct kp_json *j);

/* kp_json_fixed - @v / 10^@decimals, exactly, with @decimals (0 to 9) digits after the point:
 * nanoseconds as µs (3) or ms (6) without a float's rounding. */
void kp_json_fixed(struct kp_json *j, uint64_t v, unsigned decimals);

/* kp_json_raw - @s written as it is where a value goes (a literal the caller knows is JSON). */
void kp_json_raw(struct kp_json *j, const char *s);

/*
 * kp_json_escape - the escaping of kp_json_str() into @out (quotes not included), for a caller
 * that writes JSON some other way; returns @out's length. @out must hold 6 * @n + 1 bytes.
 */
size_t kp_json_escape(const char *s, size_t n, char *out);

#endif /* KP_JSON_H */
