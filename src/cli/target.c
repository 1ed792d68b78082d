/* SPDX-License-Identifier: MIT */
#include "config.h"
#include "target.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/kprof-format.h"
#include "formats/util.h"
#include "options.h"
#include "output.h"
#include "src/record/diag.h"
#include "src/record/idlist.h"
#include "src/record/recorder.h"

/* -u USER: the processes /proc shows as owned by USER, attached to like -p. */
static int user_pids(const char *cmd, const char *user, int **pids, size_t *nr, bool *of_user)
{
	struct passwd *pw = getpwnam(user);
	char *end;
	long uid = pw ? (long)pw->pw_uid : strtol(user, &end, 10);
	struct dirent *de;
	DIR *d;

	if (!pw && (end == user || *end || uid < 0))
		return kp_usage_error(cmd, "no user '%s'", user);
	d = opendir("/proc");
	while (d && (de = readdir(d))) {
		char path[300];
		struct stat st;
		long pid = strtol(de->d_name, &end, 10);
		snprintf(path, sizeof(path), "/proc/%s", de->d_name);
		if (*end || pid <= 0 || pid == getpid() || stat(path, &st) || st.st_uid != (uid_t)uid)
			continue;
		*pids = kp_xrealloc(*pids, (*nr + 1) * sizeof(**pids));
		(*pids)[(*nr)++] = (int)pid;
	}
	*of_user = true; /* processes come and go while kprof attaches */
	if (d)
		closedir(d);
	return *nr ? 0 : kp_error("user '%s' has no processes", user);
}

size_t kp_target_pages_max(void)
{
	/* a ring is drained into one chunk, which a reader takes up to KP_CHUNK_MAX_USIZE */
	return KP_CHUNK_MAX_USIZE / 2 / (size_t)sysconf(_SC_PAGESIZE);
}

/* -m: data pages per ring, a power of two that a ring may hold. */
static int parse_pages(const char *cmd, const char *arg, size_t *pages)
{
	uint64_t v;

	if (kp_cmd_number(cmd, "-m", arg, 1, 1u << 20, &v))
		return 2;
	if (v & (v - 1))
		return kp_usage_error(cmd, "-m must be a power of two, not %llu",
				      (unsigned long long)v);
	if (v > kp_target_pages_max())
		return kp_usage_error(cmd, "-m %llu is more than a ring may hold: at most %u MiB a "
				      "CPU (%zu pages)", (unsigned long long)v,
				      KP_CHUNK_MAX_USIZE / 2 >> 20, kp_target_pages_max());
	*pages = (size_t)v;
	return 0;
}

int kp_target_opt(const char *cmd, int c, const char *arg, struct kp_record_opts *o)
{
	switch (c) {
	case 'a':
		o->system_wide = true;
		return 0;
	case 'C':
		return kp_cmd_cpus(cmd, arg, &o->cpus, &o->nr_cpus);
	case 'p':
		return kp_cmd_idlist(cmd, "-p", arg, false, 1, KP_MAX_PID, &o->pids, &o->nr_pids);
	case 't':
		return kp_cmd_idlist(cmd, "-t", arg, false, 1, KP_MAX_PID, &o->tids, &o->nr_tids);
	case 'u':
		return user_pids(cmd, arg, &o->pids, &o->nr_pids, &o->pids_of_user);
	case 'm':
		if (parse_pages(cmd, arg, &o->pages))
			return 2;
		o->pages_given = true;
		return 0;
	case KP_OPT_TARGET_DURATION:
	case KP_OPT_TARGET_TIME:
		return kp_cmd_real(cmd, c == KP_OPT_TARGET_TIME ? "--time" : "--duration", arg, 0.001,
				   1e7, &o->duration);
	default:
		return 2;
	}
}

int kp_target_check(const char *cmd, const struct kp_record_opts *o, const char *input,
		    const char *output)
{
	bool target = o->argv || o->system_wide || o->nr_pids || o->nr_tids;

	if (input && target)
		return kp_usage_error(cmd, "-i shows a recording: no command, -a, -p, -t or -u");
	if (input && output)
		return kp_usage_error(cmd, "-i and -o: the recording is already there");
	if (!input && !target)
		return kp_usage_error(cmd, "no command (or -a, -p, -t, -u, -i FILE)");
	if ((o->nr_pids || o->nr_tids) && (o->system_wide || o->argv))
		return kp_usage_error(cmd, "-p, -t and -u attach: not with -a or a command");
	return 0;
}

void kp_target_recording_of(struct kp_record_opts *ro, const char *keep, int argc, char **argv)
{
	ro->argc_all = argc;
	ro->argv_all = argv;
	ro->version = PACKAGE_VERSION;
	ro->output = keep;
	ro->quiet = !keep;
}

/* A file in @dir that no name reaches, open for reading and writing: O_TMPFILE, or where the
 * file system has none, one unlinked as soon as it is made. -1 with errno when it cannot be. */
static int unnamed_file(const char *dir)
{
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	char *p;

	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd;
	if (asprintf(&p, "%s/kprof.XXXXXX", dir) < 0)
		abort();
	fd = mkostemp(p, O_CLOEXEC);
	if (fd >= 0)
		unlink(p);
	free(p);
	return fd;
}

int kp_target_record_into(struct kp_record_opts *ro, const char *keep, int argc, char **argv,
			  char **path, int *fd)
{
	struct kp_recorder rec;

	*fd = -1;
	if (keep) {
		*path = kp_xstrdup(keep);
	} else { /* a recording of its own, which no name reaches: gone with kprof, however */
		const char *dir = getenv("TMPDIR");

		dir = dir && *dir ? dir : "/tmp";
		*fd = unnamed_file(dir);
		if (*fd < 0) {
			kp_error("cannot make a file for the recording in %s: %s", dir,
				 strerror(errno));
			return 1;
		}
		if (asprintf(path, "/proc/self/fd/%d", *fd) < 0)
			abort();
	}
	kp_target_recording_of(ro, keep, argc, argv);
	ro->output = *path;
	return kp_output_check_path(*path) ? 1 : kp_recorder_run(&rec, ro);
}

bool kp_target_recorded(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && st.st_size > 0;
}
