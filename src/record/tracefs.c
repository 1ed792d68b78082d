/* SPDX-License-Identifier: MIT */
#include "tracefs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "diag.h"
#include "formats/util.h"

#define TRACEFS_DIR "/sys/kernel/tracing"
#define DEBUGFS_TRACING "/sys/kernel/debug/tracing"

/* Where tracefs may be: its own mount point, then the one older systems use under debugfs. */
static const char *const tracefs_dirs[] = { TRACEFS_DIR, DEBUGFS_TRACING };

/* 1: tracefs is mounted at @dir, 0: it is not, -EACCES: something is there we may not see */
static int probe_dir(const char *dir)
{
	struct statfs st;

	if (statfs(dir, &st) < 0)
		return errno == EACCES ? -EACCES : 0;
	if (st.f_type == TRACEFS_MAGIC)
		return 1;
	/* before Linux 4.1 the tracing directory was part of debugfs itself */
	return st.f_type == DEBUGFS_MAGIC && strcmp(dir, DEBUGFS_TRACING) == 0;
}

static int mount_tracefs(struct kp_tracefs *t)
{
	t->dir = TRACEFS_DIR;
	if (mount("nodev", TRACEFS_DIR, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
		t->mount_err = errno;
		return -ENODEV;
	}
	t->mounted = true;
	kp_notice("mounted tracefs at %s (it was not mounted)", TRACEFS_DIR);
	return 0;
}

int kp_tracefs_open(struct kp_tracefs *t)
{
	char path[PATH_MAX];
	int err = 0, fd;

	t->dir = NULL;
	t->mounted = false;
	t->mount_err = 0;
	for (size_t i = 0; i < ARRAY_SIZE(tracefs_dirs) && !t->dir; i++) {
		int r = probe_dir(tracefs_dirs[i]);
		if (r) {
			t->dir = tracefs_dirs[i];
			err = r < 0 ? r : 0;
		}
	}
	if (!t->dir)
		err = mount_tracefs(t);
	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/events", t->dir);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

const char *kp_tracefs_strerror(const struct kp_tracefs *t, int err, char *buf, size_t len)
{
	const char *dir = t->dir ? t->dir : TRACEFS_DIR;

	if (err == -ENODEV && t->mount_err)
		snprintf(buf, len, "tracefs is not mounted and cannot be mounted at '%s': %s",
			 TRACEFS_DIR, strerror(t->mount_err));
	else if (err == -ENODEV)
		snprintf(buf, len, "tracefs is not mounted (at %s or %s)", TRACEFS_DIR,
			 DEBUGFS_TRACING);
	else
		snprintf(buf, len, "cannot read tracefs at '%s': %s", dir, strerror(-err));
	return buf;
}

void kp_tracefs_explain(const struct kp_tracefs *t, int err)
{
	char buf[256];

	kp_error("%s", kp_tracefs_strerror(t, err, buf, sizeof(buf)));
	if (err == -ENODEV && (t->mount_err == EPERM || t->mount_err == EACCES))
		kp_hint("as root, 'mount -t tracefs nodev %s' mounts it; %s", TRACEFS_DIR,
			KP_TRACEFS_PERM_HINT);
	else if (err == -EACCES || err == -EPERM)
		kp_hint("%s", KP_TRACEFS_PERM_HINT);
}

/*
 * An id file holds one decimal number and a newline. It comes from the kernel, but parse it
 * as outside input: bounded read, digits only, no overflow.
 */
static int read_id(const char *path, uint64_t *id)
{
	char buf[32];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint64_t v = 0;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	if (n > 0 && buf[n - 1] == '\n')
		n--;
	if (n == 0)
		return -EINVAL;
	for (ssize_t i = 0; i < n; i++) {
		unsigned d = (unsigned char)buf[i] - '0';
		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	*id = v;
	return 0;
}

static bool is_dir(int dirfd, const struct dirent *d)
{
	struct stat st;

	if (d->d_name[0] == '.')
		return false;
	if (d->d_type != DT_UNKNOWN)
		return d->d_type == DT_DIR;
	return fstatat(dirfd, d->d_name, &st, 0) == 0 && S_ISDIR(st.st_mode);
}

static int add_event(const char *sysdir, const char *sys, const char *name, bool ids,
		     struct kp_tracepoint **tps, size_t *nr)
{
	struct kp_tracepoint tp = { NULL, NULL, 0 };
	char path[PATH_MAX];
	int err;

	if (ids) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s/id", sysdir, name) >= sizeof(path))
			return -ENAMETOOLONG;
		err = read_id(path, &tp.id);
		if (err == -ENOENT)
			return 0; /* a directory without an id is not an event */
		if (err)
			return err;
	}
	tp.system = kp_xstrdup(sys);
	tp.name = kp_xstrdup(name);
	*tps = kp_xrealloc(*tps, (*nr + 1) * sizeof(**tps));
	(*tps)[(*nr)++] = tp;
	return 0;
}

static int scan_system(const char *events, const char *sys, const char *name_glob, bool ids,
		       struct kp_tracepoint **tps, size_t *nr)
{
	char sysdir[PATH_MAX];
	struct dirent *d;
	DIR *dir;
	int err = 0;

	if ((size_t)snprintf(sysdir, sizeof(sysdir), "%s/%s", events, sys) >= sizeof(sysdir))
		return -ENAMETOOLONG;
	dir = opendir(sysdir);
	if (!dir)
		return -errno;
	while (!err && (d = readdir(dir)))
		if (is_dir(dirfd(dir), d) && fnmatch(name_glob, d->d_name, 0) == 0)
			err = add_event(sysdir, sys, d->d_name, ids, tps, nr);
	closedir(dir);
	return err;
}

static int cmp_tracepoint(const void *a, const void *b)
{
	const struct kp_tracepoint *x = a, *y = b;
	int c = strcmp(x->system, y->system);

	return c ? c : strcmp(x->name, y->name);
}

int kp_tracefs_events(const struct kp_tracefs *t, const char *sys_glob, const char *name_glob,
		      bool ids, struct kp_tracepoint **tps, size_t *nr)
{
	char events[PATH_MAX];
	size_t first = *nr;
	struct dirent *d;
	DIR *dir;
	int err = 0;

	snprintf(events, sizeof(events), "%s/events", t->dir);
	dir = opendir(events);
	if (!dir)
		return -errno;
	while (!err && (d = readdir(dir)))
		if (is_dir(dirfd(dir), d) && fnmatch(sys_glob, d->d_name, 0) == 0)
			err = scan_system(events, d->d_name, name_glob, ids, tps, nr);
	closedir(dir);
	if (*nr > first)
		qsort(*tps + first, *nr - first, sizeof(**tps), cmp_tracepoint);
	return err;
}

bool kp_tracefs_has_system(const struct kp_tracefs *t, const char *sys_glob)
{
	char events[PATH_MAX];
	struct dirent *d;
	bool found = false;
	DIR *dir;

	snprintf(events, sizeof(events), "%s/events", t->dir);
	dir = opendir(events);
	if (!dir)
		return false;
	while (!found && (d = readdir(dir)))
		found = is_dir(dirfd(dir), d) && fnmatch(sys_glob, d->d_name, 0) == 0;
	closedir(dir);
	return found;
}

void kp_tracefs_free(struct kp_tracepoint *tps, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		free(tps[i].system);
		free(tps[i].name);
	}
	free(tps);
}

static bool plain_name(const char *s)
{
	return *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

/* The text of the file @path (NUL-terminated, the caller's), or -errno. */
int kp_tracefs_read_text(const char *path, char **text)
{
	size_t len;
	int fd, err;

	*text = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = kp_read_max(fd, 1 << 20, text, &len);
	close(fd);
	if (err) {
		free(*text);
		*text = NULL;
		return err;
	}
	*text = kp_xrealloc(*text, len + 1);
	(*text)[len] = '\0';
	return 0;
}

int kp_tracefs_format(const struct kp_tracefs *t, const char *system, const char *name,
		      char **text)
{
	char path[PATH_MAX];

	*text = NULL;
	if (!plain_name(system) || !plain_name(name))
		return -EINVAL;
	if ((size_t)snprintf(path, sizeof(path), "%s/events/%s/%s/format", t->dir, system,
			     name) >= sizeof(path))
		return -ENAMETOOLONG;
	return kp_tracefs_read_text(path, text);
}

int kp_tracefs_header(const struct kp_tracefs *t, const char *name, char **text)
{
	char path[PATH_MAX];

	*text = NULL;
	if (strcmp(name, "header_page") && strcmp(name, "header_event"))
		return -EINVAL;
	if ((size_t)snprintf(path, sizeof(path), "%s/events/%s", t->dir, name) >= sizeof(path))
		return -ENAMETOOLONG;
	return kp_tracefs_read_text(path, text);
}

/*
 * The field lines of a format file: "\tfield:unsigned short common_type;\toffset:0;..." and
 * "\tfield:char prev_comm[16];...": the name is the last word before the ';', less any [N].
 */
char *kp_tracefs_fields(const char *format)
{
	size_t len = 0, cap = 0;
	char *out = NULL;

	KP_GROW(out, cap, 1);
	out[0] = '\0';
	for (const char *p = format; *p; p += strcspn(p, "\n"), p += *p == '\n') {
		const char *decl = p + strspn(p, " \t"), *end, *name;
		size_t n, line = strcspn(p, "\n");
		if (strncmp(decl, "field:", 6))
			continue;
		end = memchr(decl, ';', line - (decl - p));
		if (!end)
			continue;
		for (name = end; name > decl + 6 && name[-1] != ' ' && name[-1] != '\t'; name--)
			;
		n = strcspn(name, "[;");
		KP_GROW(out, cap, len + n + 3);
		len += snprintf(out + len, cap - len, "%s%.*s", len ? ", " : "", (int)n, name);
	}
	return out;
}
