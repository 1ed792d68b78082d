/* SPDX-License-Identifier: MIT */
#include "util.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

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

int kp_read_max(int fd, size_t max, char **buf, size_t *len)
{
	size_t cap = 0;
	ssize_t n = 0;

	*buf = NULL;
	*len = 0;
	while (*len < max) {
		KP_GROW(*buf, cap, *len + 65536);
		n = read(fd, *buf + *len, cap - *len < max - *len ? cap - *len : max - *len);
		if (n > 0)
			*len += n;
		else if (n == 0 || errno != EINTR)
			break;
	}
	return n < 0 ? -errno : 0;
}

int kp_read_fd(int fd, char **buf, size_t *len)
{
	return kp_read_max(fd, SIZE_MAX, buf, len);
}

/* Why a file of @mode is not read as one: 0 for a regular file. */
static int not_regular(mode_t mode)
{
	if (S_ISREG(mode))
		return 0;
	if (S_ISFIFO(mode))
		return -KP_EFIFO;
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return -KP_EDEVICE;
	return S_ISDIR(mode) ? -EISDIR : -KP_ENOTREG;
}

static bool owned(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

/* What is wrong with the file @st, at @path, for kp_open_file(): 0 when nothing. */
static int file_check(const char *path, const struct stat *st, uint64_t max, unsigned flags)
{
	struct stat name;
	int err = not_regular(st->st_mode);

	if (err)
		return err;
	if ((flags & KP_OPEN_OWNED) &&
	    (!owned(st->st_uid) || lstat(path, &name) || !owned(name.st_uid)))
		return -KP_EOWNER;
	return max && (uint64_t)st->st_size > max ? -EFBIG : 0;
}

int kp_open_file(const char *path, uint64_t max, unsigned flags, uint64_t *size)
{
	struct stat st;
	int fd, err;

	/* before the open too: opening a device can do something (a tape rewinds) */
	if (stat(path, &st))
		return -errno;
	if ((err = file_check(path, &st, max, flags)))
		return err;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	err = fstat(fd, &st) ? -errno : file_check(path, &st, max, flags);
	if (err) {
		close(fd);
		return err;
	}
	if (size)
		*size = (uint64_t)st.st_size;
	return fd;
}

/*
 * CRC-32C. Hand-written because formats/ depends on libc and zstd only, and libzstd does not
 * export its XXH64. On x86-64 with SSE4.2 (every x86-64 CPU since 2008) the crc32 instruction
 * does 8 bytes a step; elsewhere a bytewise table. Both compute the same function.
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

static uint32_t crc_bytes(uint32_t crc, const uint8_t *p, size_t len)
{
	if (!crc_table[1])
		crc_init();
	while (len--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t crc_sse42(uint32_t crc, const uint8_t *p,
							     size_t len)
{
	uint64_t c = crc;

	for (; len >= 8; len -= 8, p += 8) {
		uint64_t v;
		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
	}
	crc = (uint32_t)c;
	while (len--)
		crc = __builtin_ia32_crc32qi(crc, *p++);
	return crc;
}
#endif

char *kp_hex(char *out, const uint8_t *bits, size_t len)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		out[2 * i] = digits[bits[i] >> 4];
		out[2 * i + 1] = digits[bits[i] & 15];
	}
	out[2 * len] = '\0';
	return out;
}

uint32_t kp_crc32c(uint32_t crc, const void *buf, size_t len)
{
	crc = ~crc;
#if defined(__x86_64__)
	if (__builtin_cpu_supports("sse4.2"))
		return ~crc_sse42(crc, buf, len);
#endif
	return ~crc_bytes(crc, buf, len);
}

/* Read exactly @len bytes at @off; -KP_ETRUNCATED if the file ends first. */
int kp_read_at(int fd, void *buf, size_t len, uint64_t off)
{
	char *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -KP_ETRUNCATED;
		p += n;
		len -= n;
		off += n;
	}
	return 0;
}

int kp_read_fail(struct kp_read_err *e, int err, uint64_t off, const char *why)
{
	e->err = err;
	e->off = off;
	e->why = why;
	return err;
}

/* How put_all() writes: write(), pwrite() at an offset, send() without SIGPIPE. */
enum put_how { PUT_WRITE, PUT_AT, PUT_SEND };

/* The loop of every write-all: all @len bytes of @buf to @fd, 0 or -errno (-EIO: none taken). */
static int put_all(int fd, const void *buf, size_t len, enum put_how how, uint64_t off)
{
	const char *p = buf;

	while (len) {
		ssize_t n = how == PUT_AT     ? pwrite(fd, p, len, off)
			    : how == PUT_SEND ? send(fd, p, len, MSG_NOSIGNAL)
					      : write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		len -= n;
		off += n;
	}
	return 0;
}

int kp_write_all(int fd, const void *buf, size_t len)
{
	return put_all(fd, buf, len, PUT_WRITE, 0);
}

int kp_write_at(int fd, const void *buf, size_t len, uint64_t off)
{
	return put_all(fd, buf, len, PUT_AT, off);
}

int kp_send_all(int fd, const void *buf, size_t len)
{
	return put_all(fd, buf, len, PUT_SEND, 0);
}

const char *kp_dlsyms(void *h, const struct kp_dl_fn *fns, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		void *f = dlsym(h, fns[i].name);

		if (!f)
			return fns[i].name;
		memcpy(fns[i].slot, &f, sizeof(f)); /* dlsym's void * is the function (POSIX) */
	}
	return NULL;
}

/* The descriptor that @path names by itself ("-", /dev/stdout, /dev/fd/N...), or -1. */
static int fd_named(const char *path)
{
	static const char *const dirs[] = { "/dev/fd/", "/proc/self/fd/" };
	char *end;
	long n;

	if (!strcmp(path, "-") || !strcmp(path, "/dev/stdout"))
		return STDOUT_FILENO;
	if (!strcmp(path, "/dev/stderr"))
		return STDERR_FILENO;
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		size_t len = strlen(dirs[i]);
		if (strncmp(path, dirs[i], len) || !isdigit((unsigned char)path[len]))
			continue;
		errno = 0;
		n = strtol(path + len, &end, 10);
		if (!*end && !errno && n <= INT_MAX)
			return (int)n;
	}
	return -1;
}

bool kp_path_is_stream(const char *path)
{
	struct stat st;

	return fd_named(path) >= 0 ||
	       (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode));
}

int kp_open_stream(const char *path)
{
	struct stat st;
	int n = fd_named(path), fd;

	if (n >= 0)
		fd = fcntl(n, F_DUPFD_CLOEXEC, 3);
	else if (stat(path, &st) < 0 || S_ISREG(st.st_mode))
		return -ENOENT;
	else if (S_ISDIR(st.st_mode))
		return -EISDIR;
	else
		fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}
