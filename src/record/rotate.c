/* SPDX-License-Identifier: MIT */
#include "rotate.h"

#include <dirent.h>
#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "formats/util.h"

/* @path.YYYYMMDDhhmmssff for now (local time, as perf names them), or a later hundredth free. */
static char *stamped_name(const char *path)
{
	struct timespec ts;
	size_t n = strlen(path) + 32;
	char *name = kp_xmalloc(n);

	clock_gettime(CLOCK_REALTIME, &ts);
	for (long k = 0;; k++) {
		long hundredths = ts.tv_nsec / 10000000 + k;
		time_t t = ts.tv_sec + hundredths / 100;
		struct tm tm;
		char stamp[32];

		localtime_r(&t, &tm);
		strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm);
		snprintf(name, n, "%s.%s%02ld", path, stamp, hundredths % 100);
		if (access(name, F_OK) < 0)
			return name;
	}
}

/*
 * sh -c @exec sh @file, not waited for, with umask 077: what it writes beside @file is as
 * private as @file (0600). (The umask is the shell's, set before @exec: the recorder's own
 * stays as it is.)
 */
static void run_hook(struct kp_rotation *r, const char *exec, const char *file)
{
	char *script = kp_xmalloc(strlen(exec) + 16);
	char *argv[] = { "sh", "-c", script, "sh", (char *)file, NULL };
	extern char **environ;
	pid_t pid;
	int err;

	sprintf(script, "umask 077; %s", exec);
	err = posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ);
	free(script);
	if (err) {
		kp_warn("cannot run --switch-output-exec on '%s': %s", file, strerror(err));
		return;
	}
	KP_GROW(r->hooks, r->cap_hooks, r->nr_hooks + 1);
	r->hooks[r->nr_hooks++] = (struct kp_hook){ pid, kp_xstrdup(file), false };
}

/* Remove @file, and every file beside it named after it: @file, a dot, any suffix. */
static void remove_file(const char *file)
{
	const char *slash = strrchr(file, '/');
	const char *base = slash ? slash + 1 : file;
	size_t n = strlen(base);
	char *dir = kp_xstrdup(slash ? file : "./");
	DIR *d;
	struct dirent *e;

	if (slash)
		dir[slash - file + 1] = '\0';
	if (unlink(file) < 0 && errno != ENOENT)
		kp_warn("cannot remove '%s': %s", file, strerror(errno));
	d = opendir(dir);
	if (!d) {
		kp_warn("cannot remove the files named after '%s': %s", file, strerror(errno));
		free(dir);
		return;
	}
	while ((e = readdir(d))) {
		struct stat st;
		char *path;

		if (strncmp(e->d_name, base, n) || e->d_name[n] != '.' || !e->d_name[n + 1])
			continue;
		path = kp_xmalloc(strlen(dir) + strlen(e->d_name) + 1);
		sprintf(path, "%s%s", dir, e->d_name);
		if (lstat(path, &st) == 0 && !S_ISDIR(st.st_mode) && unlink(path) < 0 &&
		    errno != ENOENT)
			kp_warn("cannot remove '%s': %s", path, strerror(errno));
		free(path);
	}
	closedir(d);
	free(dir);
}

/* @file, which --switch-max-files lets go: removed now, or once the command on it ends. */
static void let_go(struct kp_rotation *r, char *file)
{
	r->removed++;
	for (size_t i = 0; i < r->nr_hooks; i++)
		if (!strcmp(r->hooks[i].file, file)) {
			r->hooks[i].remove = true;
			free(file);
			return;
		}
	remove_file(file);
	free(file);
}

void kp_rotation_keep(struct kp_rotation *r, const char *path, const struct kp_rotated *f,
		      const struct kp_switch_opts *o, bool quiet, bool last)
{
	char *name;

	if (last && r->files && !f->samples && !f->lost && !f->err && !f->unread) {
		if (unlink(path) < 0 && errno != ENOENT)
			kp_warn("cannot remove '%s': %s", path, strerror(errno));
		r->dropped = true;
		return;
	}
	name = stamped_name(path);
	if (rename(path, name) < 0) {
		kp_error("cannot rename '%s' to '%s': %s: it stays '%s'", path, name,
			 strerror(errno), path);
		free(name);
		name = kp_xstrdup(path);
	}
	r->files++;
	r->sum.samples += f->samples;
	r->sum.lost += f->lost;
	r->sum.bytes += f->bytes;
	r->sum.raw_bytes += f->raw_bytes;
	r->sum.chunks += f->chunks;
	r->sum.unwritten += f->unwritten;
	r->sum.unread |= f->unread;
	free(r->last);
	r->last = kp_xstrdup(name);
	if (f->err && !r->cut) {
		r->sum.err = f->err;
		r->cut = kp_xstrdup(name);
	}
	if (f->err && f->unread)
		kp_error("'%s': cut short (%s): it keeps its %llu complete chunks, %llu lost, "
			 "%.3f MiB", name, kp_strerror(f->err), (unsigned long long)f->chunks,
			 (unsigned long long)f->lost, f->bytes / 1048576.0);
	else if (f->err)
		kp_error("'%s': %llu samples, %llu lost, %.3f MiB: cut short (%s) after its %llu "
			 "complete chunks; the %llu samples recorded after them are in no file",
			 name, (unsigned long long)f->samples, (unsigned long long)f->lost,
			 f->bytes / 1048576.0, kp_strerror(f->err), (unsigned long long)f->chunks,
			 (unsigned long long)f->unwritten);
	else if (!quiet)
		kp_notice("'%s': %llu samples, %llu lost, %.3f MiB", name,
			  (unsigned long long)f->samples, (unsigned long long)f->lost,
			  f->bytes / 1048576.0);
	KP_GROW(r->kept, r->cap_kept, r->nr_kept + 1);
	r->kept[r->nr_kept++] = name;
	while (o->max_files && r->nr_kept > o->max_files) {
		let_go(r, r->kept[0]);
		memmove(r->kept, r->kept + 1, --r->nr_kept * sizeof(*r->kept));
	}
	if (o->exec)
		run_hook(r, o->exec, name);
}

/* snprintf() at @*n of @buf, which stays in bounds whatever was cut before. */
KP_PRINTF(4, 5) static void add(char *buf, size_t len, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (*n >= len)
		return;
	va_start(ap, fmt);
	k = vsnprintf(buf + *n, len - *n, fmt, ap);
	va_end(ap);
	*n += k > 0 ? (size_t)k : 0;
}

void kp_rotation_what(const struct kp_rotation *r, const struct kp_switch_opts *o, char *buf,
		      size_t len)
{
	unsigned long long files = (unsigned long long)r->files;
	const char *sep = " (";
	size_t n = 0;

	*buf = '\0';
	if (files == 1) {
		add(buf, len, &n, "1 file, '%s'", r->last);
	} else {
		add(buf, len, &n, "%llu files, ", files);
		if (r->removed)
			add(buf, len, &n, "of which --switch-max-files %zu kept the newest %zu, ",
			    o->max_files, r->nr_kept);
		if (r->nr_kept > 1)
			add(buf, len, &n, "'%s' to ", r->kept[0]);
		add(buf, len, &n, "'%s'", r->last);
		if (r->removed)
			add(buf, len, &n, " (the %llu files' samples add up to the total", files);
		else
			add(buf, len, &n, " (their samples add up to the total");
		sep = "; ";
	}
	if (r->cut && files == 1)
		add(buf, len, &n, "%scut short: %s", sep, kp_strerror(r->sum.err));
	else if (r->cut)
		add(buf, len, &n, "%s'%s' cut short: %s", sep, r->cut, kp_strerror(r->sum.err));
	if (r->cut)
		sep = "; ";
	if (r->dropped && files == 1)
		add(buf, len, &n, "%sthe file started after it held no sample and was removed", sep);
	else if (r->dropped)
		add(buf, len, &n, "%sthe file started after '%s' held no sample and was removed",
		    sep, r->last);
	if (files > 1 || r->cut || r->dropped)
		add(buf, len, &n, ")");
}

void kp_rotation_reap(struct kp_rotation *r, const char *exec, bool all)
{
	if (all && r->nr_hooks)
		kp_notice("waiting for %zu --switch-output-exec command%s", r->nr_hooks,
			  r->nr_hooks > 1 ? "s" : "");
	for (size_t i = 0; i < r->nr_hooks;) {
		int status;
		pid_t p = waitpid(r->hooks[i].pid, &status, all ? 0 : WNOHANG);

		if (p == 0 || (p < 0 && errno == EINTR)) {
			i += p == 0;
			continue;
		}
		if (p > 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
			kp_warn("--switch-output-exec '%s' failed (%s %d)", exec,
				WIFEXITED(status) ? "exit status" : "signal",
				WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		if (r->hooks[i].remove)
			remove_file(r->hooks[i].file);
		free(r->hooks[i].file);
		r->hooks[i] = r->hooks[--r->nr_hooks];
	}
}

void kp_rotation_release(struct kp_rotation *r)
{
	for (size_t i = 0; i < r->nr_kept; i++)
		free(r->kept[i]);
	for (size_t i = 0; i < r->nr_hooks; i++)
		free(r->hooks[i].file);
	free(r->kept);
	free(r->last);
	free(r->cut);
	free(r->hooks);
	memset(r, 0, sizeof(*r));
}
