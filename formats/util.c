/* SPDX-License-Identifier: MIT */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kp_error_msgs[] = {
#define _E(name, msg) msg,
	KP_ERRORS
#undef _E
};

const char *kp_strerror(int err)
{
	if (err == 0)
		return "success";
	if (err < 0)
		err = -err;
	if (err > KP_ERROR_BASE && err < KP_ERROR_END)
		return kp_error_msgs[err - KP_ERROR_BASE - 1];
	return strerror(err);
}

static void *check_oom(void *p, size_t size)
{
	if (!p && size) {
		fprintf(stderr, "kprof: out of memory allocating %zu bytes\n", size);
		abort();
	}
	return p;
}

void *kp_xmalloc(size_t size)
{
	return check_oom(malloc(size), size);
}

void *kp_xcalloc(size_t nmemb, size_t size)
{
	if (size && nmemb > SIZE_MAX / size)
		return check_oom(NULL, SIZE_MAX);
	return check_oom(calloc(nmemb, size), nmemb * size);
}

void *kp_xrealloc(void *ptr, size_t size)
{
	return check_oom(realloc(ptr, size), size);
}

char *kp_xstrdup(const char *s)
{
	return check_oom(strdup(s), strlen(s) + 1);
}

/*
 * CRC-32C, bytewise with a table built on first use. Hand-written because formats/ depends on
 * libc and zstd only, and libzstd does not export its XXH64; the chunk payload is already
 * compressed, so this runs over ~1/15 of the recorded bytes.
 */
static uint32_t crc_table[256];

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
		crc_table[i] = c;
	}
}

uint32_t kp_crc32c(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (!crc_table[1])
		crc_init();
	crc = ~crc;
	while (len--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}
