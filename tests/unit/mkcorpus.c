/* SPDX-License-Identifier: MIT */
/*
 * mkcorpus.c - writes the seed files of the reader's fuzz corpus into a directory:
 * mkcorpus DIR. The seeds are checked in under tests/fuzz/corpus; rerun this after a format
 * change and commit the result.
 *
 * mkcorpus --fix-crc FILE... recomputes the chunk CRCs of inputs that `make fuzz` found: the
 * fuzz build does not check them, so its finds carry wrong ones, and a replay in `make check`
 * would stop at the checksum instead of reaching what the input exercises.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "formats/recpack.h"
#include "formats/util.h"
#include "formats/writer.h"
#include "synth.h"

static int create(const char *dir, const char *name)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(path);
		exit(1);
	}
	return fd;
}

static void synth_seed(const char *dir, const char *name, unsigned n, unsigned per_chunk,
		       off_t cut)
{
	struct synth s;
	int fd = create(dir, name);

	synth_file(&s, fd, n, per_chunk, 1);
	if (cut && ftruncate(fd, lseek(fd, 0, SEEK_END) - cut))
		exit(1);
	synth_release(&s);
	close(fd);
}

/* One event whose samples carry every variable-length field the parser knows. */
static void all_fields_seed(const char *dir)
{
	struct kp_writer w;
	struct perf_event_attr a;
	uint64_t id = 1, buf[64], *p = buf + 1;
	int fd = create(dir, "all-fields.kprof");

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_READ |
			PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK |
			PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT |
			PERF_SAMPLE_AUX;
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_LOST;
	a.sample_regs_user = 0x7;
	a.sample_id_all = 1;
	kp_writer_init(&w, fd, 1, 0);
	kp_writer_add_attr(&w, &a, 0, &id, 1, "cpu-clock", "cpu-clock", 0);
	*p++ = 1;			/* identifier */
	*p++ = 0x401000;		/* ip */
	*p++ = 1;			/* read: nr */
	*p++ = 10, *p++ = 1, *p++ = 0;	/* value, id, lost */
	*p++ = 2, *p++ = 0x401010, *p++ = 0x401020; /* callchain */
	*p++ = 4 | (0x41424344ull << 32); /* raw: size 4 + data, padded */
	*p++ = 1, *p++ = 1, *p++ = 2, *p++ = 0; /* branch stack: 1 entry */
	*p++ = 2, *p++ = 11, *p++ = 12, *p++ = 13; /* regs_user: abi 64, 3 regs */
	*p++ = 16, *p++ = 0xdead, *p++ = 0xbeef, *p++ = 16; /* stack_user 16 bytes, dyn 16 */
	*p++ = 5;			/* weight */
	*p++ = 8, *p++ = 0x1234;	/* aux: 8 bytes */
	*(struct kp_rec_header *)buf =
		(struct kp_rec_header){ PERF_RECORD_SAMPLE, 0, (uint16_t)((p - buf) * 8) };
	kp_writer_add(&w, buf);
	kp_writer_close(&w);
	close(fd);
}

/*
 * A packed chunk on its own (recpack.h), what fuzz-reader hands the unpacker when an input is
 * not a file: the records of a synthetic recording, in blocks of about 512 bytes.
 */
static void packed_seed(const char *dir)
{
	struct synth s = { 0 };
	struct kp_packer p;
	int fd = memfd_create("synth", 0), out = create(dir, "packed-chunk.bin");
	size_t pos = 0;

	if (fd < 0 || synth_file(&s, fd, 40, 0, 1))
		exit(1);
	kp_packer_init(&p);
	kp_packer_chunk(&p);
	while (pos < s.len) {
		size_t start = pos;
		uint32_t n = 0;

		while (pos < s.len && (n == 0 || pos - start < 512)) {
			pos += ((const struct kp_rec_header *)(s.recs + pos))->size;
			n++;
		}
		kp_packer_block(&p, s.recs + start, pos - start, n);
	}
	if (write(out, p.out.p, p.out.len) != (ssize_t)p.out.len)
		exit(1);
	kp_packer_release(&p);
	synth_release(&s);
	close(fd);
	close(out);
}

/* Walk the chunks and rewrite each CRC; a chunk whose size runs past the end stops the walk. */
static int fix_crc(const char *path)
{
	int fd = open(path, O_RDWR);
	struct kp_file_header fh;
	struct kp_chunk_header h;
	off_t off, end;
	int fixed = 0;

	if (fd < 0 || pread(fd, &fh, sizeof(fh), 0) != sizeof(fh)) {
		perror(path);
		return 1;
	}
	end = lseek(fd, 0, SEEK_END);
	for (off = fh.header_size; pread(fd, &h, sizeof(h), off) == sizeof(h);) {
		uint8_t *payload;
		if (h.csize > (uint64_t)(end - off - (off_t)sizeof(h)))
			break;
		payload = kp_xmalloc(h.csize ? h.csize : 1);
		if (pread(fd, payload, h.csize, off + sizeof(h)) != (ssize_t)h.csize)
			break;
		h.crc = 0;
		h.crc = kp_crc32c(kp_crc32c(0, &h, sizeof(h)), payload, h.csize);
		free(payload);
		if (pwrite(fd, &h, sizeof(h), off) != sizeof(h))
			break;
		fixed++;
		off += sizeof(h) + h.csize;
	}
	printf("%s: %d chunks\n", path, fixed);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--fix-crc")) {
		int rc = 0;
		for (int i = 2; i < argc; i++)
			rc |= fix_crc(argv[i]);
		return rc;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: mkcorpus DIR | mkcorpus --fix-crc FILE...\n");
		return 2;
	}
	synth_seed(argv[1], "small.kprof", 10, 0, 0);
	synth_seed(argv[1], "chunks.kprof", 40, 12, 0);
	synth_seed(argv[1], "truncated.kprof", 40, 12, 7);
	synth_seed(argv[1], "header-only.kprof", 0, 0, 0);
	all_fields_seed(argv[1]);
	packed_seed(argv[1]);
	return 0;
}
