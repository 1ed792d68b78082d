/* SPDX-License-Identifier: MIT */
/*
 * buildid.c - the build-ids of mapped files, read from the files while recording (see
 * buildid.h for why not from the kernel).
 */
#include "buildid.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "formats/kprof-format.h"
#include "formats/rec.h"
#include "formats/util.h"

struct kp_buildid_ent {
	uint32_t maj, min;
	uint64_t ino;
	uint8_t id[20];
	uint8_t len;	/* 0: none could be read */
};

void kp_buildids_init(struct kp_buildids *b)
{
	memset(b, 0, sizeof(*b));
	kp_hash_init(&b->index);
	elf_version(EV_CURRENT);
}

void kp_buildids_release(struct kp_buildids *b)
{
	kp_hash_release(&b->index);
	free(b->ents);
	memset(b, 0, sizeof(*b));
}

/* The GNU build-id note of the ELF file open at @fd, through libelf; 0 when it has none. */
static uint8_t read_note(int fd, uint8_t *id)
{
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t n = 0, len = 0;

	if (e && elf_getphdrnum(e, &n) == 0) {
		for (size_t i = 0; i < n && !len; i++) {
			GElf_Phdr ph;
			Elf_Data *d;
			GElf_Nhdr nh;
			size_t off = 0, name_off, desc_off;

			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_NOTE)
				continue;
			d = elf_getdata_rawchunk(e, ph.p_offset, ph.p_filesz, ELF_T_NHDR);
			while (d && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
				if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
				    !memcmp((char *)d->d_buf + name_off, "GNU", 4) &&
				    nh.n_descsz <= 20) {
					memcpy(id, (char *)d->d_buf + desc_off, nh.n_descsz);
					len = nh.n_descsz;
					break;
				}
			}
		}
	}
	if (e)
		elf_end(e);
	return (uint8_t)len;
}

/* The build-id at @path if it is a regular file and the very one @f mapped; else 0. */
static uint8_t read_if_same(const char *path, const struct kp_buildid_file *f, uint8_t *id)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	uint8_t len = 0;

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_ino == f->ino &&
	    major(st.st_dev) == f->maj && minor(st.st_dev) == f->min)
		len = read_note(fd, id);
	close(fd);
	return len;
}

/* The build-id of @f, from the file the process mapped: the first place that holds it. */
static uint8_t read_file(const struct kp_buildid_file *f, uint8_t *id)
{
	char path[4096 + 64];
	uint8_t len;

	snprintf(path, sizeof(path), "/proc/%u/root%s", f->pid, f->path);
	if ((len = read_if_same(path, f, id)))
		return len;
	/* another file at that path now, or one seen through overlayfs: the mapping itself */
	snprintf(path, sizeof(path), "/proc/%u/map_files/%llx-%llx", f->pid,
		 (unsigned long long)f->addr, (unsigned long long)(f->addr + f->len));
	if ((len = read_if_same(path, f, id)))
		return len;
	/* the process is gone already: the path as kprof sees it, if it is the same inode */
	return read_if_same(f->path, f, id);
}

static uint64_t key_of(uint32_t maj, uint32_t min, uint64_t ino)
{
	return ((uint64_t)maj << 32 | min) * 0x9e3779b97f4a7c15ull ^ ino; /* the table mixes it */
}

struct same_ctx {
	const struct kp_buildids *b;
	uint32_t maj, min;
	uint64_t ino;
};

static bool same_file(const void *ctx, uint64_t val)
{
	const struct same_ctx *c = ctx;
	const struct kp_buildid_ent *e = &c->b->ents[val];

	return e->ino == c->ino && e->maj == c->maj && e->min == c->min;
}

uint8_t kp_buildids_get(struct kp_buildids *b, const struct kp_buildid_file *f, uint8_t id[20])
{
	struct same_ctx c = { b, f->maj, f->min, f->ino };
	uint64_t key = key_of(f->maj, f->min, f->ino), *v;
	struct kp_buildid_ent *e;

	v = kp_hash_find(&b->index, &key, same_file, &c);
	if (v) {
		e = &b->ents[*v];
	} else {
		KP_GROW(b->ents, b->cap, b->nr + 1);
		e = &b->ents[b->nr];
		*e = (struct kp_buildid_ent){ .maj = f->maj, .min = f->min, .ino = f->ino };
		e->len = read_file(f, e->id);
		kp_hash_put(&b->index, key, b->nr++);
	}
	memcpy(id, e->id, e->len);
	return e->len;
}

/* A file's MMAP2, not memory of the process's own: a path of the file system. */
static bool maps_a_file(const char *path)
{
	return path[0] == '/' && strncmp(path, "/memfd:", 7);
}

void kp_buildids_fill(struct kp_buildids *b, void *recs, size_t len)
{
	uint8_t *p = recs;

	for (size_t pos = 0; kp_rec_framed((const void *)(p + pos), len - pos);
	     pos += ((const struct kp_rec_header *)(p + pos))->size) {
		struct kp_rec_mmap2 *m = (void *)(p + pos);
		const char *path = (const char *)(m + 1);
		struct kp_buildid_file f;
		uint8_t id[20], n;

		if (m->h.type != PERF_RECORD_MMAP2 || m->h.size <= sizeof(*m) ||
		    !memchr(path, '\0', m->h.size - sizeof(*m)))
			continue;
		/* what another consumer's event left: this record has the device and inode */
		m->h.misc &= (uint16_t)~PERF_RECORD_MISC_MMAP_BUILD_ID;
		if (!maps_a_file(path))
			continue;
		f = (struct kp_buildid_file){ m->pid, path, m->addr, m->len, m->maj, m->min,
					      m->ino };
		if (!(n = kp_buildids_get(b, &f, id)))
			continue;
		m->h.misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
		m->build_id_size = n;
		memset(m->build_id_reserved, 0, sizeof(m->build_id_reserved));
		memset(m->build_id, 0, sizeof(m->build_id));
		memcpy(m->build_id, id, n);
	}
}
