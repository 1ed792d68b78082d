/* SPDX-License-Identifier: MIT */
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/record/diag.h"
#include "formats/util.h"

int kp_output_check_path(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && !kp_path_is_stream(path)) {
		kp_error("'%s' is a symbolic link: kprof does not write through one", path);
		kp_hint("remove it, or give the file it points to");
		return 1;
	}
	return 0;
}

/* "DIR/.NAME.XXXXXX": beside the output, so that rename() is atomic. */
static char *tmp_name(const char *path)
{
	char *d = kp_xstrdup(path), *b = kp_xstrdup(path), *t;
	const char *dir = dirname(d), *base = basename(b);
	size_t n = strlen(dir) + strlen(base) + 16;

	t = kp_xmalloc(n);
	snprintf(t, n, "%s/.%s.XXXXXX", dir, base);
	free(d);
	free(b);
	return t;
}

/* A stream for a writer that seeks: an unlinked temporary file, copied to it at commit. */
static int open_for_stream(struct kp_output *o, int stream)
{
	const char *dir = getenv("TMPDIR");
	size_t n;

	if (!dir || !*dir)
		dir = "/tmp";
	n = strlen(dir) + 16;
	o->tmp = kp_xmalloc(n);
	snprintf(o->tmp, n, "%s/kprof.XXXXXX", dir);
	o->fd = mkostemp(o->tmp, O_CLOEXEC);
	if (o->fd < 0) {
		kp_error("cannot create a temporary file in '%s' for '%s': %s", dir, o->path,
			 strerror(errno));
		close(stream);
	} else {
		unlink(o->tmp);
		o->stream = stream;
	}
	free(o->tmp);
	o->tmp = NULL;
	return o->fd;
}

int kp_output_open_fd(struct kp_output *o, const char *path, bool seeks)
{
	int fd;

	*o = (struct kp_output){ path, NULL, NULL, -1, -1 };
	if (kp_output_check_path(path))
		return -1;
	fd = kp_open_stream(path);
	if (fd >= 0 && seeks)
		return open_for_stream(o, fd);
	if (fd >= 0)
		return o->fd = fd; /* written in place */
	if (fd != -ENOENT) {
		kp_error("cannot write '%s': %s", path, strerror(-fd));
		return -1;
	}
	o->tmp = tmp_name(path);
	o->fd = mkostemp(o->tmp, O_CLOEXEC); /* O_EXCL, mode 0600: never anything there */
	if (o->fd < 0) {
		kp_error("cannot create '%s': %s", path, strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
	}
	return o->fd;
}

FILE *kp_output_open(struct kp_output *o, const char *path, FILE *dflt)
{
	mode_t mask;

	*o = (struct kp_output){ path, NULL, dflt, -1, -1 };
	if (!path)
		return dflt;
	if (kp_output_open_fd(o, path, false) < 0)
		return NULL;
	mask = umask(0);
	umask(mask);
	if ((o->tmp && fchmod(o->fd, 0666 & ~mask) < 0) || !(o->f = fdopen(o->fd, "w"))) {
		kp_error("cannot create '%s': %s", path, strerror(errno));
		kp_output_abort(o);
		return NULL;
	}
	return o->f;
}

/* @path written in place from the start: created or truncated with @mode (less the umask), a
 * symbolic link refused. The descriptor, or -1 after saying "cannot @verb" and why. */
static int open_in_place(struct kp_output *o, const char *path, mode_t mode, const char *verb)
{
	*o = (struct kp_output){ path, NULL, NULL, -1, -1 };
	if (kp_output_check_path(path))
		return -1;
	o->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
	if (o->fd < 0)
		kp_error("cannot %s '%s': %s", verb, path, strerror(errno));
	return o->fd;
}

FILE *kp_output_open_log(struct kp_output *o, const char *path)
{
	if (open_in_place(o, path, 0666, "write") < 0)
		return NULL;
	if (!(o->f = fdopen(o->fd, "w"))) {
		kp_error("cannot write '%s': %s", path, strerror(errno));
		close(o->fd);
		o->fd = -1;
		return NULL;
	}
	return o->f;
}

int kp_output_open_recording(struct kp_output *o, const char *path)
{
	return open_in_place(o, path, 0600, "create");
}

/* Close what kp_output_open*() opened (not a standard stream); 0 or the first errno. */
static int close_output(struct kp_output *o)
{
	int err = 0;

	if (o->fd < 0)
		return 0;
	errno = 0;
	if (o->f && (fflush(o->f) || ferror(o->f)))
		err = errno ? errno : EIO;
	if ((o->f ? fclose(o->f) : close(o->fd)) && !err)
		err = errno;
	o->f = NULL;
	o->fd = -1;
	return err;
}

void kp_output_abort(struct kp_output *o)
{
	close_output(o);
	if (o->tmp)
		unlink(o->tmp);
	if (o->stream >= 0)
		close(o->stream);
	free(o->tmp);
	o->tmp = NULL;
	o->stream = -1;
}

/* The temporary file of a writer that seeks, from its start, onto its stream; 0 or errno. */
static int copy_to_stream(struct kp_output *o)
{
	char buf[65536];
	ssize_t n;
	off_t off = 0;
	int err;

	while ((n = pread(o->fd, buf, sizeof(buf), off)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		off += n;
		if ((err = kp_write_all(o->stream, buf, (size_t)n)))
			return -err;
	}
	return 0;
}

int kp_output_commit(struct kp_output *o)
{
	int err = 0;

	if (o->fd < 0) /* a standard stream */
		return fflush(o->f) ? kp_error("cannot write output: %s", strerror(errno)) : 0;
	errno = 0;
	if (o->f && (fflush(o->f) || ferror(o->f)))
		err = errno ? errno : EIO;
	if (!err && o->tmp && fsync(o->fd)) /* on disk before it replaces anything */
		err = errno;
	if (!err && o->stream >= 0)
		err = copy_to_stream(o);
	if (o->stream >= 0 && close(o->stream) && !err)
		err = errno;
	o->stream = -1;
	if (!err)
		err = close_output(o);
	if (!err && o->tmp && rename(o->tmp, o->path) < 0)
		err = errno;
	if (err) {
		kp_error("cannot write '%s': %s", o->path, strerror(err));
		kp_output_abort(o);
		return 1;
	}
	free(o->tmp);
	o->tmp = NULL;
	return 0;
}

bool kp_output_same_file(const char *x, const char *y)
{
	struct stat a, b;

	return stat(x, &a) == 0 && stat(y, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}
