/* SPDX-License-Identifier: MIT */
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "formats/util.h"

int kp_output_check_path(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
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

int kp_output_open_fd(struct kp_output *o, const char *path)
{
	*o = (struct kp_output){ path, NULL, NULL, -1 };
	if (kp_output_check_path(path))
		return -1;
	o->tmp = tmp_name(path);
	o->fd = mkstemp(o->tmp); /* O_EXCL, mode 0600: never anything already there */
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

	*o = (struct kp_output){ path, NULL, dflt, -1 };
	if (!path)
		return dflt;
	if (kp_output_open_fd(o, path) < 0)
		return NULL;
	mask = umask(0);
	umask(mask);
	if (fchmod(o->fd, 0666 & ~mask) < 0 || !(o->f = fdopen(o->fd, "w"))) {
		kp_error("cannot create '%s': %s", path, strerror(errno));
		kp_output_abort(o);
		return NULL;
	}
	return o->f;
}

void kp_output_abort(struct kp_output *o)
{
	if (o->tmp) {
		if (o->f)
			fclose(o->f);
		else if (o->fd >= 0)
			close(o->fd);
		unlink(o->tmp);
		free(o->tmp);
	}
	o->tmp = NULL;
	o->f = NULL;
	o->fd = -1;
}

int kp_output_commit(struct kp_output *o)
{
	int err = 0;

	if (!o->tmp) /* a standard stream */
		return fflush(o->f) ? kp_error("cannot write output: %s", strerror(errno)) : 0;
	errno = 0;
	if (o->f && (fflush(o->f) || ferror(o->f)))
		err = errno ? errno : EIO;
	if (!err && fsync(o->fd))
		err = errno;
	if ((o->f ? fclose(o->f) : close(o->fd)) && !err)
		err = errno;
	o->f = NULL;
	o->fd = -1;
	if (!err && rename(o->tmp, o->path) < 0)
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
