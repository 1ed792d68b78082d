/* SPDX-License-Identifier: MIT */
/*
 * text.c - names escaped as text, UTF-8 sequences and percentages (text.h).
 */
#include "text.h"

#include <string.h>

size_t kp_utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : (c & 0xf0) == 0xe0 ? 3
				: c >= 0xf0 && c <= 0xf4 ? 4 : 0;

	if (!len || len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* overlong forms, UTF-16 surrogates and code points past U+10FFFF */
	if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0) ||
	    (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))
		return 0;
	return len;
}

/* How many bytes at @s (of @n) a text output writes as they are: a printable character, or a
 * UTF-8 sequence that is no C1 control (U+0080 to U+009F). 0: escape the byte at @s. */
static size_t text_plain(const unsigned char *s, size_t n)
{
	if (s[0] >= 0x20 && s[0] < 0x7f)
		return 1;
	if (s[0] < 0x80 || (s[0] == 0xc2 && n > 1 && s[1] < 0xa0)) /* C0, DEL, C1 */
		return 0;
	return kp_utf8_len(s, n);
}

/* The C escape of byte @c into @out (5 bytes); returns its length. */
static size_t text_escape_byte(unsigned char c, char *out)
{
	static const char named[] = "abtnvfr"; /* \a (7) to \r (13) */

	if (c >= '\a' && c <= '\r')
		return (size_t)snprintf(out, 5, "\\%c", named[c - '\a']);
	return (size_t)snprintf(out, 5, "\\%03o", c);
}

size_t kp_text_len(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), len = 0;
	char esc[5];

	for (size_t i = 0, k; i < n; i += k ? k : 1)
		len += (k = text_plain(s + i, n - i)) ? k : text_escape_byte(s[i], esc);
	return len;
}

size_t kp_text_put(FILE *out, int width, const char *str)
{
	const unsigned char *s = (const unsigned char *)str, *p = s;
	size_t n, len, pad;
	char esc[5];

	while (*p >= 0x20 && *p < 0x7f) /* printable ASCII, as nearly every name is */
		p++;
	if (!*p && !width)
		return fputs(str, out) < 0 ? 0 : (size_t)(p - s);
	n = strlen(str);
	len = kp_text_len(str);
	if (len == n) /* nothing to escape */
		return (size_t)fprintf(out, "%*s", width, str);
	pad = (size_t)(width < 0 ? -(long)width : width);
	pad = pad > len ? pad - len : 0;
	if (width > 0)
		fprintf(out, "%*s", (int)pad, "");
	for (size_t i = 0, k; i < n; i += k ? k : 1)
		if ((k = text_plain(s + i, n - i)))
			fwrite(s + i, 1, k, out);
		else
			fwrite(esc, 1, text_escape_byte(s[i], esc), out);
	if (width < 0)
		fprintf(out, "%*s", (int)pad, "");
	return len + pad;
}

char *kp_text_escape(const char *str, char *buf, size_t size)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), at = 0;
	char esc[5];

	for (size_t i = 0, k, e; i < n; i += k ? k : 1) {
		const char *piece = (k = text_plain(s + i, n - i)) ? str + i : esc;

		e = k ? k : text_escape_byte(s[i], esc);
		if (at + e >= size)
			break;
		memcpy(buf + at, piece, e);
		at += e;
	}
	buf[at] = '\0';
	return buf;
}

double kp_pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

double kp_pct_d(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0.0;
}
