/* SPDX-License-Identifier: MIT */
/*
 * cgroups.c - each process's cgroup, from /proc/PID/cgroup, as the recorder meets it (see
 * cgroups.h).
 */
#include "cgroups.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/rec.h"
#include "formats/util.h"

void kp_cgroups_init(struct kp_cgroups *c)
{
	memset(c, 0, sizeof(*c));
	kp_hash_init(&c->seen);
}

static void note(struct kp_cgroups *c, uint32_t pid)
{
	uint64_t *v = kp_hash_get(&c->seen, pid);

	if (!pid || (v && *v))
		return;
	kp_hash_put(&c->seen, pid, 1);
	KP_GROW(c->pending, c->cap_pending, c->nr_pending + 1);
	c->pending[c->nr_pending++] = pid;
}

void kp_cgroups_scan(struct kp_cgroups *c, const void *recs, size_t len)
{
	const struct kp_rec_header *h;
	struct kp_comm cm;
	struct kp_task t;

	for (size_t off = 0; (h = kp_rec_next(recs, len, &off));) {
		if (h->type == PERF_RECORD_COMM && !kp_rec_parse_comm(h, h->size, &cm))
			note(c, cm.pid);
		else if (h->type == PERF_RECORD_FORK && !kp_rec_parse_task(h, h->size, &t) &&
			 t.pid != t.ppid) {
			kp_hash_put(&c->seen, t.pid, 0); /* a new process: a reused pid is read anew */
			note(c, t.pid);
		}
	}
}

bool kp_cgroups_of(const char *text, char *out, size_t size)
{
	const char *line = text, *v1 = NULL, *v2 = NULL;
	size_t v1_len = 0, v2_len = 0;
	bool any = false, v1_systemd = false;

	for (; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : line + strlen(line)) {
		const char *c1 = strchr(line, ':'), *c2, *end = strchr(line, '\n');

		end = end ? end : line + strlen(line);
		if (!c1 || c1 > end || !(c2 = memchr(c1 + 1, ':', (size_t)(end - c1 - 1))))
			continue;
		any = true;
		if (c2[1] == '/' && (size_t)(end - c2 - 1) == 1)
			continue; /* the root */
		if (c1 == line + 1 && line[0] == '0' && c2 == c1 + 1) {
			v2 = c2 + 1;
			v2_len = (size_t)(end - v2);
		} else {
			bool systemd = !strncmp(c1 + 1, "name=systemd:", 13);

			if (!v1 || (systemd && !v1_systemd)) {
				v1 = c2 + 1;
				v1_len = (size_t)(end - v1);
				v1_systemd = systemd;
			}
		}
	}
	if (!any)
		return false;
	if (v2)
		snprintf(out, size, "%.*s", (int)v2_len, v2);
	else if (v1)
		snprintf(out, size, "%.*s", (int)v1_len, v1);
	else
		snprintf(out, size, "/");
	return true;
}

void kp_cgroups_flush(struct kp_cgroups *c, struct kp_writer *w)
{
	for (size_t i = 0; i < c->nr_pending; i++) {
		char path[64], text[4096], cg[4096];
		FILE *f;
		size_t n;

		snprintf(path, sizeof(path), "/proc/%u/cgroup", c->pending[i]);
		f = fopen(path, "r");
		n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
		if (f)
			fclose(f);
		text[n] = '\0';
		if (!n || !kp_cgroups_of(text, cg, sizeof(cg))) {
			c->missed++;
			continue;
		}
		kp_writer_add_proc_cgroup(w, c->pending[i], cg);
		c->written++;
	}
	c->nr_pending = 0;
}

void kp_cgroups_restart(struct kp_cgroups *c)
{
	kp_hash_release(&c->seen);
	kp_hash_init(&c->seen);
	c->nr_pending = 0;
}

void kp_cgroups_release(struct kp_cgroups *c)
{
	kp_hash_release(&c->seen);
	free(c->pending);
	memset(c, 0, sizeof(*c));
}
