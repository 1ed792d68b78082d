/* SPDX-License-Identifier: MIT */
/*
 * nsfiles.c - the binaries of processes in other mount namespaces, opened through
 * /proc/PID/root while they live (see nsfiles.h).
 */
#include "nsfiles.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/rec.h"
#include "formats/util.h"

/* The inode of @pid's mount namespace (0: self), 0 when it cannot be read. */
static uint64_t mnt_ns(uint32_t pid)
{
	char path[64];
	struct stat st;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%u/ns/mnt", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/ns/mnt");
	return stat(path, &st) ? 0 : (uint64_t)st.st_ino;
}

void kp_nsfiles_init(struct kp_nsfiles *n, bool keep)
{
	memset(n, 0, sizeof(*n));
	n->keep = keep;
	n->self_ns = mnt_ns(0);
}

static bool seen(const struct kp_nsfiles *n, const struct kp_mmap *m)
{
	for (size_t i = 0; i < n->nr_alts; i++) {
		const struct kp_dso_alt *a = &n->alts[i];

		if (!strcmp(a->path, m->filename) &&
		    a->build_id_len == (m->has_build_id ? m->build_id_size : 0) &&
		    !memcmp(a->build_id, m->build_id, a->build_id_len))
			return true;
	}
	for (size_t i = 0; i < n->nr_paths; i++)
		if (!strcmp(n->paths[i], m->filename))
			return true;
	return false;
}

/* A file mapped by a process of another mount namespace: held open, or counted. */
static void add(struct kp_nsfiles *n, const struct kp_mmap *m)
{
	char path[4096 + 64], fdpath[64];
	struct kp_dso_alt *a;
	int fd;

	if (!n->keep) {
		KP_GROW(n->paths, n->cap_paths, n->nr_paths + 1);
		n->paths[n->nr_paths++] = kp_xstrdup(m->filename);
		return;
	}
	snprintf(path, sizeof(path), "/proc/%u/root%s", m->pid, m->filename);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		n->missed++;
		return;
	}
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	KP_GROW(n->alts, n->cap_alts, n->nr_alts + 1);
	a = &n->alts[n->nr_alts++];
	memset(a, 0, sizeof(*a));
	a->path = kp_xstrdup(m->filename);
	a->file = kp_xstrdup(fdpath);
	a->fd = fd;
	if (m->has_build_id) {
		a->build_id_len = m->build_id_size;
		memcpy(a->build_id, m->build_id, m->build_id_size);
	}
}

void kp_nsfiles_scan(struct kp_nsfiles *n, const void *recs, size_t len)
{
	const struct kp_rec_header *h;
	struct kp_mmap m;

	for (size_t off = 0; (h = kp_rec_next(recs, len, &off));) {
		if ((h->type != PERF_RECORD_MMAP2 && h->type != PERF_RECORD_MMAP) ||
		    (h->misc & PERF_RECORD_MISC_MMAP_DATA) || kp_rec_parse_mmap(h, h->size, &m) ||
		    m.filename[0] != '/' || !strncmp(m.filename, "/memfd:", 7) || !m.pid ||
		    seen(n, &m))
			continue;
		uint64_t ns = mnt_ns(m.pid);

		if (ns && ns != n->self_ns)
			add(n, &m);
	}
}

size_t kp_nsfiles_count(const struct kp_nsfiles *n)
{
	return n->nr_alts + n->nr_paths;
}

void kp_nsfiles_release(struct kp_nsfiles *n)
{
	for (size_t i = 0; i < n->nr_alts; i++) {
		close(n->alts[i].fd);
		free((char *)n->alts[i].path);
		free((char *)n->alts[i].file);
	}
	for (size_t i = 0; i < n->nr_paths; i++)
		free(n->paths[i]);
	free(n->alts);
	free(n->paths);
	memset(n, 0, sizeof(*n));
}
