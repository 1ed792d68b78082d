/* SPDX-License-Identifier: MIT */
/*
 * text.h - the text that every output writes: names escaped as text (one rule for the views,
 * the report's headers, script, trace, latency, annotate and the TUI), UTF-8 told from other
 * bytes, and percentages.
 */
#ifndef KP_TEXT_H
#define KP_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* kp_pct - @part as a percentage of @whole (0 when @whole is 0). */
double kp_pct(uint64_t part, uint64_t whole);
double kp_pct_d(double part, double whole);

/* kp_utf8_len - the length of the valid UTF-8 sequence at @s (at most @n bytes: shortest form,
 * no surrogate, at most U+10FFFF), or 0 when the byte there starts none: the SVG pictures
 * replace it with U+FFFD. */
size_t kp_utf8_len(const unsigned char *s, size_t n);

/*
 * Names in text. Whatever a recording names (a thread's command, which prctl() may set to any
 * bytes, a function from a perf map, a binary's path, an event) is written to a text output
 * (a report, script, trace, latency, annotate: a terminal, or another tool's input) through
 * these, the one rule of every text view and command: each control character (below 0x20,
 * DEL, and U+0080 to U+009F) is written as a C escape, as git quotes a path: \a \b \t \n \v
 * \f \r, the others in three octal digits (ESC is \033), and so is each byte that is not
 * UTF-8. A name then never moves the cursor, sets the terminal's title or splits a line; the
 * rest of it, a backslash included, is written as it is.
 */

/* kp_text_len - how many bytes kp_text_put() writes of @s: strlen(@s) when nothing in it is
 * escaped. */
size_t kp_text_len(const char *s);

/* kp_text_put - write @s escaped to @out, padded as printf's "%*s" pads: to @width bytes
 * right-aligned, to -@width left-aligned, not at all for 0. Returns the bytes written. */
size_t kp_text_put(FILE *out, int width, const char *s);

/* kp_text_escape - @s escaped into @buf (@size bytes, at least 1), NUL-terminated: as much of
 * it as fits, never half an escape. Returns @buf. */
char *kp_text_escape(const char *s, char *buf, size_t size);

#endif /* KP_TEXT_H */
