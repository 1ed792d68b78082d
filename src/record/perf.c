/* SPDX-License-Identifier: MIT */
#include "perf.h"

#include <errno.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "diag.h"

int kp_perf_open(const struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

int kp_perf_id(int fd, uint64_t *id)
{
	return ioctl(fd, PERF_EVENT_IOC_ID, id) < 0 ? -errno : 0;
}

int kp_perf_set_filter(int fd, const char *filter)
{
	return ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter) < 0 ? -errno : 0;
}

int kp_perf_is_unsupported(int err)
{
	return err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV;
}

static int read_int_file(const char *path, int *val)
{
	FILE *f = fopen(path, "r");
	int ok = f && fscanf(f, "%d", val) == 1;

	if (f)
		fclose(f);
	return ok ? 0 : -1;
}

static void hint_permission(const struct perf_event_attr *attr)
{
	int paranoid = 2;

	read_int_file("/proc/sys/kernel/perf_event_paranoid", &paranoid);
	if (!attr->exclude_kernel && paranoid >= 2)
		kp_hint("kernel.perf_event_paranoid is %d, which allows user-space events only: "
			"use '-e EVENT:u', or run 'sysctl kernel.perf_event_paranoid=1', "
			"or grant CAP_PERFMON",
			paranoid);
	else
		kp_hint("kernel.perf_event_paranoid is %d: run 'sysctl kernel.perf_event_paranoid=1' "
			"(kernel and tracepoints) or 0 (system-wide), or grant CAP_PERFMON",
			paranoid);
}

void kp_perf_explain(const char *what, const struct perf_event_attr *attr, int err)
{
	kp_error("cannot open event '%s': %s", what, strerror(-err));
	switch (-err) {
	case EACCES:
	case EPERM:
		hint_permission(attr);
		break;
	case EMFILE:
		kp_hint("too many open files: raise 'ulimit -n'");
		break;
	case EINVAL:
		if (attr->freq)
			kp_hint("the kernel may refuse this frequency: see "
				"/proc/sys/kernel/perf_event_max_sample_rate, or use -c PERIOD");
		break;
	case EOVERFLOW:
		kp_hint("the call-chain depth exceeds kernel.perf_event_max_stack");
		break;
	default:
		break;
	}
}

/* The real, effective and saved uids of process @pid from /proc (hostile text: all three or
 * nothing), and its command in @comm; 0 or -1. */
static int proc_uids(pid_t pid, unsigned uid[3], char *comm, size_t size)
{
	char path[64], line[256];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "r")))
		return -1;
	snprintf(comm, size, "?");
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Name:\t", 6)) {
			size_t len = strcspn(line + 6, "\n");
			if (len >= size)
				len = size - 1;
			memcpy(comm, line + 6, len);
			comm[len] = 0;
		} else if (sscanf(line, "Uid:\t%u\t%u\t%u", &uid[0], &uid[1], &uid[2]) == 3) {
			n = 3;
		}
	}
	fclose(f);
	return n == 3 ? 0 : -1;
}

/* @uid's login name into @buf (getpwuid's result is static: copy it before the next call) */
static const char *user_name(unsigned uid, char *buf, size_t size)
{
	const struct passwd *pw = getpwuid((uid_t)uid);

	snprintf(buf, size, "%s", pw ? pw->pw_name : "?");
	return buf;
}

bool kp_perf_explain_target(const char *what, pid_t pid, int err)
{
	unsigned uid[3], me = (unsigned)getuid(), other;
	char comm[64], his[64], mine[64];

	if ((err != -EACCES && err != -EPERM) || pid <= 0 || !me ||
	    proc_uids(pid, uid, comm, sizeof(comm)))
		return false;
	/* the kernel's ptrace check (PTRACE_MODE_READ_REALCREDS): all three are our real uid */
	if (uid[0] == me && uid[1] == me && uid[2] == me)
		return false;
	other = uid[1] != me ? uid[1] : uid[0] != me ? uid[0] : uid[2];
	kp_error("cannot open event '%s' on process %d (%s): %s", what, (int)pid, comm,
		 strerror(-err));
	kp_hint("process %d runs as user '%s' (uid %u), not as you ('%s', uid %u): attaching to "
		"another user's process needs CAP_PERFMON or CAP_SYS_PTRACE, or ptrace rights over "
		"it (kernel.yama.ptrace_scope)", (int)pid, user_name(other, his, sizeof(his)), other,
		user_name(me, mine, sizeof(mine)), me);
	return true;
}

/* Parse "0-3,5,7-8" into a list of CPU numbers. */
int kp_cpus_online(int *cpus, int max)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	char buf[4096], *p = buf;
	int n = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	while (*p && *p != '\n') {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;
		if (end == p || lo < 0)
			return -EINVAL;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			if (end == p + 1 || hi < lo)
				return -EINVAL;
			p = end;
		}
		for (long c = lo; c <= hi; c++) {
			if (n == max)
				return -E2BIG;
			cpus[n++] = (int)c;
		}
		if (*p == ',')
			p++;
	}
	return n;
}
