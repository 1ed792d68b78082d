/* SPDX-License-Identifier: MIT */
/*
 * synth.c - records for processes that existed before the recording started, read from /proc:
 * a COMM for every thread and an MMAP2 for every executable mapping, with the build-id read
 * from the mapped file, so that a report names their frames as it does for a launched command.
 * They carry time 0, so the report's time order puts them before every sample.
 */
#include "synth.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buildid.h"
#include "formats/rec.h"
#include "formats/util.h"

struct synth {
	struct kp_writer *w;
	const struct perf_event_attr *attr;
	uint64_t id;
	struct kp_buildids *bids;
	struct kp_synth_stats *st;
};

/* A record encoded into @buf (@cap bytes) as @size says; one that does not fit is left out. */
static void add(struct synth *s, const uint64_t *buf, size_t cap, int size)
{
	if (size > 0 && (size_t)size <= cap)
		kp_writer_add(s->w, buf);
}

/* The sample_id_all trailer the kernel would have written: the thread, time 0, the event's id. */
static struct kp_sample id_of(const struct synth *s, uint32_t pid, uint32_t tid)
{
	return (struct kp_sample){ .pid = pid, .tid = tid, .id = s->id, .stream_id = s->id };
}

static void comm(struct synth *s, uint32_t pid, uint32_t tid, const char *name)
{
	uint64_t buf[64 / 8];
	char c[16];
	const struct kp_sample id = id_of(s, pid, tid);

	snprintf(c, sizeof(c), "%s", name);
	add(s, buf, sizeof(buf),
	    kp_rec_encode_comm(s->attr, &(struct kp_comm){ pid, tid, c }, 0, &id, buf, sizeof(buf)));
	s->st->threads++;
}

/* One line of /proc/PID/maps: "start-end perms offset maj:min inode   path". */
static void map_line(struct synth *s, uint32_t pid, const char *line)
{
	unsigned long long start, end, off, ino;
	unsigned maj, min;
	char perms[8], path[4096] = "";
	uint64_t buf[(sizeof(struct kp_rec_mmap2) + sizeof(path) + 64) / 8];
	struct kp_mmap m;
	uint8_t bid_len = 0;
	const struct kp_sample id = id_of(s, pid, pid);

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095[^\n]", &start, &end, perms, &off,
		   &maj, &min, &ino, path) < 7 || perms[2] != 'x' || end <= start)
		return;
	if (path[0] != '/' && strcmp(path, "[vdso]"))
		return; /* anonymous code (JIT) is named later from perf-PID.map */
	m = (struct kp_mmap){ .pid = pid, .tid = pid, .addr = start, .len = end - start,
			      .pgoff = off, .filename = path };
	m.prot = 4 | (perms[0] == 'r') | (perms[1] == 'w') << 1;
	m.flags = perms[3] == 'p' ? 2 /* MAP_PRIVATE */ : 1 /* MAP_SHARED */;
	if (path[0] == '/')
		bid_len = kp_buildids_get(s->bids, &(struct kp_buildid_file){ pid, path, start,
					  end - start, maj, min, ino }, m.build_id);
	if (bid_len) {
		m.has_build_id = true;
		m.build_id_size = bid_len;
	} else {
		m.maj = maj;
		m.min = min;
		m.ino = ino;
	}
	add(s, buf, sizeof(buf),
	    kp_rec_encode_mmap2(s->attr, &m, PERF_RECORD_MISC_USER, &id, buf, sizeof(buf)));
	s->st->maps++;
}

static void maps(struct synth *s, uint32_t pid)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0)
		map_line(s, pid, line);
	free(line);
	fclose(f);
}

static int read_comm(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");
	int ok = f && fgets(buf, (int)n, f);

	if (f)
		fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* Every thread of @pid (from /proc/PID/task), then the process's maps. */
static void process(struct synth *s, uint32_t pid)
{
	char path[320], name[64];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%u/task", pid);
	d = opendir(path);
	if (!d)
		return; /* gone meanwhile */
	while ((de = readdir(d))) {
		if (!all_digits(de->d_name))
			continue;
		snprintf(path, sizeof(path), "/proc/%u/task/%s/comm", pid, de->d_name);
		if (!read_comm(path, name, sizeof(name)))
			comm(s, pid, (uint32_t)strtoul(de->d_name, NULL, 10), name);
	}
	closedir(d);
	maps(s, pid);
	s->st->processes++;
}

void kp_synth_procs(struct kp_writer *w, const struct perf_event_attr *attr, uint64_t id,
		    const int *pids, size_t nr_pids, struct kp_buildids *bids,
		    struct kp_synth_stats *st)
{
	struct synth s = { w, attr, id, bids, st };

	memset(st, 0, sizeof(*st));
	if (!pids) { /* every process, and the idle task, as perf names it */
		struct dirent *de;
		DIR *d = opendir("/proc");
		comm(&s, 0, 0, "swapper");
		while (d && (de = readdir(d)))
			if (all_digits(de->d_name))
				process(&s, (uint32_t)strtoul(de->d_name, NULL, 10));
		if (d)
			closedir(d);
	} else {
		for (size_t i = 0; i < nr_pids; i++)
			process(&s, (uint32_t)pids[i]);
	}
}

/* The parent of @pid, from /proc/PID/stat (after the command, which may hold ") "), or -1. */
static int parent_of(const char *pid)
{
	char path[300], buf[512];
	ssize_t n;
	int fd, ppid = -1;
	const char *p;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (p && sscanf(p + 1, " %*c %d", &ppid) != 1)
		ppid = -1;
	return ppid;
}

size_t kp_synth_family(int pid, int **pids)
{
	struct link {
		int pid, ppid;
	} *all = NULL;
	size_t nall = 0, cap = 0, pcap = 0, n = 0;
	struct dirent *de;
	DIR *d = opendir("/proc");

	while (d && (de = readdir(d))) {
		if (!all_digits(de->d_name))
			continue;
		KP_GROW(all, cap, nall + 1);
		all[nall++] = (struct link){ (int)strtol(de->d_name, NULL, 10), parent_of(de->d_name) };
	}
	if (d)
		closedir(d);
	*pids = NULL;
	KP_GROW(*pids, pcap, n + 1);
	(*pids)[n++] = pid;
	/* breadth first: each process found adds its children */
	for (size_t i = 0; i < n && n <= nall; i++) /* (a snapshot of racing reads: bounded) */
		for (size_t k = 0; k < nall; k++)
			if (all[k].ppid == (*pids)[i] && all[k].pid != (*pids)[i]) {
				KP_GROW(*pids, pcap, n + 1);
				(*pids)[n++] = all[k].pid;
			}
	free(all);
	return n;
}

int kp_synth_threads(int pid, int **tids, size_t *nr)
{
	char path[64];
	struct dirent *de;
	size_t cap = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (!all_digits(de->d_name))
			continue;
		KP_GROW(*tids, cap, *nr + 1);
		(*tids)[(*nr)++] = (int)strtol(de->d_name, NULL, 10);
	}
	closedir(d);
	return 0;
}
