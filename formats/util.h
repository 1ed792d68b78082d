/* SPDX-License-Identifier: MIT */
/*
 * util.h - small helpers shared by every layer: allocation that cannot fail, error codes.
 *
 * Error convention: a fallible function returns 0 on success, -errno for a system failure,
 * or -KP_E* (all <= -4096) for a kprof failure. kp_strerror() names either kind.
 * Running out of memory is not an error path: kp_x*alloc() print a message and abort.
 */
#ifndef KP_UTIL_H
#define KP_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define kp_align8(n) (((n) + 7) & ~(size_t)7)

#define KP_ERRORS                                                                       \
	_E(BADMAGIC, "not a kprof file (bad magic)")                                    \
	_E(VERSION, "file format version is newer than this kprof supports")            \
	_E(ENDIAN, "file was written on a machine of the other byte order")             \
	_E(FEATURE, "file uses a feature this kprof does not know")                     \
	_E(TRUNCATED, "file is truncated")                                              \
	_E(CHUNK, "corrupt chunk header")                                               \
	_E(CHECKSUM, "chunk checksum mismatch")                                         \
	_E(DECOMPRESS, "chunk does not decompress")                                     \
	_E(RECORD, "corrupt record")                                                    \
	_E(COMPRESS, "compression failed")                                              \
	_E(SAMPLE, "sample is shorter than its fields")                                 \
	_E(SAMPLE_TYPE, "sample has a field kprof cannot parse")                        \
	_E(ENCODE, "fields do not fit their record's layout")                           \
	_E(PERFHEADER, "corrupt perf.data header")                                      \
	_E(PERFRECORD, "corrupt perf.data record")                                      \
	_E(PERFZSTD, "perf.data compressed records do not decompress")                  \
	_E(PERFFILE1, "perf.data in perf's first format (PERFFILE), which kprof does not read") \
	_E(FIFO, "a FIFO, not a regular file")                                          \
	_E(DEVICE, "a device, not a regular file")                                      \
	_E(NOTREG, "not a regular file")                                                \
	_E(OWNER, "not owned by the user running kprof or by root")

enum {
	KP_ERROR_BASE = 4096,
#define _E(name, msg) KP_E##name,
	KP_ERRORS
#undef _E
	KP_ERROR_END
};

/* kp_strerror - message for 0, -errno or -KP_E*; a static string. */
const char *kp_strerror(int err);

void *kp_xmalloc(size_t size);
void *kp_xcalloc(size_t nmemb, size_t size);
void *kp_xrealloc(void *ptr, size_t size);
char *kp_xstrdup(const char *s);

/*
 * KP_GROW - make room for @need elements in the array @arr of capacity @cap (both lvalues);
 * grows by doubling. Aborts on overflow or OOM.
 */
#define KP_GROW(arr, cap, need)                                                          \
	do {                                                                              \
		if ((size_t)(need) > (cap)) {                                            \
			size_t kp_new_cap_ = (cap) ? (cap) : 16;                          \
			while (kp_new_cap_ < (size_t)(need))                              \
				kp_new_cap_ *= 2;                                         \
			(arr) = kp_xrealloc((arr), kp_new_cap_ * sizeof(*(arr)));          \
			(cap) = kp_new_cap_;                                              \
		}                                                                         \
	} while (0)

/* A growing byte buffer: @len bytes used of @cap at @p (owned by its user, free()). */
struct kp_bytes {
	uint8_t *p;
	size_t len, cap;
};

/*
 * kp_bytes_put - append the @n bytes at @src to @b, growing it (aborts on OOM). Inline: the
 * packer calls it for every field of every sample it records.
 */
static inline void kp_bytes_put(struct kp_bytes *b, const void *src, size_t n)
{
	if (!n)
		return;
	KP_GROW(b->p, b->cap, b->len + n);
	memcpy(b->p + b->len, src, n);
	b->len += n;
}

/*
 * kp_read_fd - read @fd to its end into *@buf (owned by the caller, free(); NULL when nothing
 * was read) of *@len bytes. Returns 0 or -errno; on error *@buf holds what was read.
 */
int kp_read_fd(int fd, char **buf, size_t *len);

/*
 * kp_read_max - kp_read_fd(), reading no more than @max bytes: a bound on what a file kprof
 * does not control may cost (what lies beyond is left unread).
 */
int kp_read_max(int fd, size_t max, char **buf, size_t *len);

/* kp_open_file()'s @flags */
enum {
	KP_OPEN_OWNED = 1,	/* owned by the user running kprof or by root, as perf requires of
				 * perf maps: the file, and its name when that is a symbolic link */
};

/*
 * kp_open_file - open @path for reading where it is a file kprof reads but does not control: a
 * perf map or jitdump, a binary or debug file, a copy of kallsyms. Only a regular file is
 * opened (a FIFO would block the open and never end, a device such as /dev/zero never ends, and
 * opening some has effects): anything else is refused, -KP_EFIFO, -KP_EDEVICE, -EISDIR or
 * -KP_ENOTREG, and so is a file larger than @max bytes (-EFBIG; 0: any size), or with
 * KP_OPEN_OWNED one owned by another user (-KP_EOWNER). Opened O_NONBLOCK | O_CLOEXEC and held
 * to the same rules once open, so that what took the name's place between the check and the
 * open is refused too. Returns the descriptor (the caller's) and the file's size in *@size (may
 * be NULL), or a negative code.
 */
int kp_open_file(const char *path, uint64_t max, unsigned flags, uint64_t *size);

/* kp_read_at - read exactly @len bytes of @fd at @off: 0, -errno, or -KP_ETRUNCATED when the
 * file ends first. */
int kp_read_at(int fd, void *buf, size_t len, uint64_t off);

/*
 * struct kp_read_err - what failed in reading a file, and where: the error (0, -errno or
 * -KP_E*), the file offset of what failed, and a static sentence saying what was wrong there
 * (or NULL). The reader of a format fills one; whoever drives it copies it on.
 */
struct kp_read_err {
	int err;
	uint64_t off;
	const char *why;
};

/* kp_read_fail - @e is now @err at @off, for @why; returns @err. */
int kp_read_fail(struct kp_read_err *e, int err, uint64_t off, const char *why);

/*
 * kp_write_all - write all @len bytes of @buf to @fd (write(), again after a short write or
 * EINTR): 0 or -errno; -EIO when a write takes none. kp_write_at() writes at @off (pwrite());
 * kp_send_all() to a socket, send() without SIGPIPE when the peer has gone (-EPIPE then).
 */
int kp_write_all(int fd, const void *buf, size_t len);
int kp_write_at(int fd, const void *buf, size_t len, uint64_t off);
int kp_send_all(int fd, const void *buf, size_t len);

/* struct kp_dl_fn - a function of a dlopen()ed library: its name, and the function pointer
 * to set (its address). */
struct kp_dl_fn {
	const char *name;
	void *slot;
};

/*
 * kp_dlsyms - each of the @n functions of @fns looked up in @h (dlopen()'s) into its slot, in
 * order. Returns NULL, or the name of the first that @h lacks (dlerror() says why).
 */
const char *kp_dlsyms(void *h, const struct kp_dl_fn *fns, size_t n);

/*
 * An output path that names a stream rather than a file to replace: "-", /dev/stdout and
 * /dev/stderr, /dev/fd/N and /proc/self/fd/N (the descriptors they stand for), or anything that
 * exists and is neither a regular file nor a directory: a terminal, /dev/null, a FIFO. Such an
 * output is written as it is; renaming a finished file over it would replace the device.
 *
 * kp_path_is_stream - whether @path is one (it opens nothing).
 * kp_open_stream - open it for writing: a descriptor the caller owns (a duplicate for the
 * standard streams; a FIFO waits for its reader), -ENOENT when @path is not a stream (a regular
 * file, a link to one, or nothing yet), -EISDIR for a directory, or -errno.
 */
bool kp_path_is_stream(const char *path);
int kp_open_stream(const char *path);

/* kp_hex - @len bytes of @bits in lowercase hex into @out (2 * @len + 1 bytes): @out. */
char *kp_hex(char *out, const uint8_t *bits, size_t len);

/* kp_crc32c - CRC-32C (Castagnoli) of @len bytes, continuing from @crc (start with 0). */
uint32_t kp_crc32c(uint32_t crc, const void *buf, size_t len);

#endif /* KP_UTIL_H */
