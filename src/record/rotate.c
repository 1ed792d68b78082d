/* SPDX-License-Identifier: MIT */
#include "rotate.h"

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* sh -c @exec sh @file, not waited for. */
static void run_hook(struct kp_rotation *r, const char *exec, const char *file)
{
	char *argv[] = { "sh", "-c", (char *)exec, "sh", (char *)file, NULL };
	extern char **environ;
	pid_t pid;
	int err = posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ);

	if (err) {
		kp_warn("cannot run --switch-output-exec on '%s': %s", file, strerror(err));
		return;
	}
	KP_GROW(r->hooks, r->cap_hooks, r->nr_hooks + 1);
	r->hooks[r->nr_hooks++] = pid;
}

void kp_rotation_keep(struct kp_rotation *r, const char *path, const struct kp_rotated *f,
		      const struct kp_switch_opts *o, bool quiet)
{
	char *name = stamped_name(path);

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
	if (!r->first)
		r->first = kp_xstrdup(name);
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
		if (unlink(r->kept[0]) < 0 && errno != ENOENT)
			kp_warn("cannot remove '%s': %s", r->kept[0], strerror(errno));
		free(r->kept[0]);
		memmove(r->kept, r->kept + 1, --r->nr_kept * sizeof(*r->kept));
	}
	if (o->exec)
		run_hook(r, o->exec, name);
}

void kp_rotation_reap(struct kp_rotation *r, const char *exec, bool all)
{
	if (all && r->nr_hooks)
		kp_notice("waiting for %zu --switch-output-exec command%s", r->nr_hooks,
			  r->nr_hooks > 1 ? "s" : "");
	for (size_t i = 0; i < r->nr_hooks;) {
		int status;
		pid_t p = waitpid(r->hooks[i], &status, all ? 0 : WNOHANG);

		if (p == 0 || (p < 0 && errno == EINTR)) {
			i += p == 0;
			continue;
		}
		if (p > 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
			kp_warn("--switch-output-exec '%s' failed (%s %d)", exec,
				WIFEXITED(status) ? "exit status" : "signal",
				WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		r->hooks[i] = r->hooks[--r->nr_hooks];
	}
}

void kp_rotation_release(struct kp_rotation *r)
{
	for (size_t i = 0; i < r->nr_kept; i++)
		free(r->kept[i]);
	free(r->kept);
	free(r->first);
	free(r->last);
	free(r->cut);
	free(r->hooks);
	memset(r, 0, sizeof(*r));
}
