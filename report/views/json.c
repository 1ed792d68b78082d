/* SPDX-License-Identifier: MIT */
#include "json.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "formats/util.h"
#include "report/base/text.h"

#define BUF_SIZE 65536

size_t kp_json_escape(const char *str, size_t n, char *out)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t o = 0;

	for (size_t i = 0; i < n;) {
		size_t len = kp_utf8_len(s + i, n - i);
		unsigned char c = s[i];

		if (!len) { /* U+FFFD for a byte that starts no valid sequence */
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
			continue;
		}
		if (len > 1) {
			memcpy(out + o, s + i, len);
			o += len;
		} else if (c == '"' || c == '\\') {
			out[o++] = '\\';
			out[o++] = (char)c;
		} else if (c < 0x20 || c == 0x7f) {
			const char *short_esc = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r"
						: NULL;
			if (short_esc) {
				memcpy(out + o, short_esc, 2);
				o += 2;
			} else {
				memcpy(out + o, "\\u00", 4);
				out[o + 4] = hex[c >> 4];
				out[o + 5] = hex[c & 15];
				o += 6;
			}
		} else {
			out[o++] = (char)c;
		}
		i += len;
	}
	out[o] = 0;
	return o;
}

static void fail(struct kp_json *j, int err)
{
	if (!j->err)
		j->err = err;
}

/* Hand the buffer to the stream, through deflate when compressing. */
static void drain(struct kp_json *j, bool end)
{
	z_stream *z = j->z;
	unsigned char out[BUF_SIZE];

	if (!z) {
		if (j->len && fwrite(j->buf, 1, j->len, j->out) != j->len)
			fail(j, errno ? -errno : -EIO);
		j->len = 0;
		return;
	}
	z->next_in = j->buf;
	z->avail_in = (uInt)j->len;
	do {
		z->next_out = out;
		z->avail_out = sizeof(out);
		if (deflate(z, end ? Z_FINISH : Z_NO_FLUSH) == Z_STREAM_ERROR) {
			fail(j, -EIO);
			break;
		}
		size_t have = sizeof(out) - z->avail_out;
		if (have && fwrite(out, 1, have, j->out) != have) {
			fail(j, errno ? -errno : -EIO);
			break;
		}
	} while (z->avail_out == 0 || (end && z->avail_in));
	j->len = 0;
}

static void put(struct kp_json *j, const void *p, size_t n)
{
	if (j->err)
		return;
	j->bytes += n;
	while (n) {
		size_t room = BUF_SIZE - j->len, k = n < room ? n : room;
		memcpy(j->buf + j->len, p, k);
		j->len += k;
		p = (const char *)p + k;
		n -= k;
		if (j->len == BUF_SIZE)
			drain(j, false);
	}
}

static void putc_(struct kp_json *j, char c)
{
	if (j->len < BUF_SIZE && !j->err) {
		j->buf[j->len++] = (unsigned char)c;
		j->bytes++;
		if (j->len == BUF_SIZE)
			drain(j, false);
	} else {
		put(j, &c, 1);
	}
}

void kp_json_init(struct kp_json *j, FILE *out, bool gzip)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
	j->buf = kp_xmalloc(BUF_SIZE);
	if (gzip) {
		z_stream *z = kp_xcalloc(1, sizeof(*z));
		/* 15 + 16: a gzip header and trailer around the deflate stream */
		if (deflateInit2(z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
				 Z_DEFAULT_STRATEGY) != Z_OK) {
			free(z);
			fail(j, -ENOMEM);
			return;
		}
		j->z = z;
	}
}

int kp_json_finish(struct kp_json *j)
{
	if (!j->err && j->depth)
		fail(j, -EINVAL); /* an object or array left open: the caller's bug */
	if (!j->err || j->z)
		drain(j, true);
	if (j->z) {
		deflateEnd(j->z);
		free(j->z);
		j->z = NULL;
	}
	free(j->buf);
	j->buf = NULL;
	return j->err;
}

/* Before a value or a key: the comma after the previous one at this depth. */
static void sep(struct kp_json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->comma[j->depth])
		putc_(j, ',');
	j->comma[j->depth] = true;
}

static void open_(struct kp_json *j, char c)
{
	sep(j);
	putc_(j, c);
	if (j->depth + 1 >= KP_JSON_MAX_DEPTH) {
		fail(j, -EINVAL);
		return;
	}
	j->comma[++j->depth] = false;
}

static void close_(struct kp_json *j, char c)
{
	putc_(j, c);
	if (j->depth > 0)
		j->depth--;
	else
		fail(j, -EINVAL);
}

void kp_json_obj(struct kp_json *j) { open_(j, '{'); }
void kp_json_obj_end(struct kp_json *j) { close_(j, '}'); }
void kp_json_arr(struct kp_json *j) { open_(j, '['); }
void kp_json_arr_end(struct kp_json *j) { close_(j, ']'); }

void kp_json_key(struct kp_json *j, const char *key)
{
	sep(j);
	putc_(j, '"');
	put(j, key, strlen(key));
	put(j, "\":", 2);
	j->after_key = true;
}

void kp_json_str_len(struct kp_json *j, const char *s, size_t n)
{
	char small[6 * 64 + 1], *esc = n <= 64 ? small : kp_xmalloc(6 * n + 1);
	size_t len = kp_json_escape(s, n, esc);

	sep(j);
	putc_(j, '"');
	put(j, esc, len);
	putc_(j, '"');
	if (esc != small)
		free(esc);
}

void kp_json_str(struct kp_json *j, const char *s)
{
	kp_json_str_len(j, s, strlen(s));
}

void kp_json_strf(struct kp_json *j, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	kp_json_str_len(j, buf, n < 0 ? 0 : (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* @v's digits, at least @min of them, at the end of @buf[24]; returns where they start. */
static char *digits(char *end, uint64_t v, unsigned min)
{
	char *p = end;
	unsigned n = 0;

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
		n++;
	} while (v || n < min);
	return p;
}

void kp_json_u64(struct kp_json *j, uint64_t v)
{
	char buf[24], *p = digits(buf + sizeof(buf), v, 1);

	sep(j);
	put(j, p, buf + sizeof(buf) - p);
}

void kp_json_i64(struct kp_json *j, int64_t v)
{
	char buf[24], *p = digits(buf + sizeof(buf), v < 0 ? -(uint64_t)v : (uint64_t)v, 1);

	if (v < 0)
		*--p = '-';
	sep(j);
	put(j, p, buf + sizeof(buf) - p);
}

void kp_json_fixed(struct kp_json *j, uint64_t v, unsigned decimals)
{
	static const uint64_t pow10[] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
					  100000000, 1000000000 };
	char buf[48], *end = buf + sizeof(buf), *p;

	if (decimals > 9)
		decimals = 9;
	if (!decimals) {
		kp_json_u64(j, v);
		return;
	}
	p = digits(end, v % pow10[decimals], decimals);
	*--p = '.';
	p = digits(p, v / pow10[decimals], 1);
	sep(j);
	put(j, p, end - p);
}

void kp_json_bool(struct kp_json *j, bool v)
{
	kp_json_raw(j, v ? "true" : "false");
}

void kp_json_null(struct kp_json *j)
{
	kp_json_raw(j, "null");
}

void kp_json_raw(struct kp_json *j, const char *s)
{
	sep(j);
	put(j, s, strlen(s));
}
