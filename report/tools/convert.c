/* SPDX-License-Identifier: MIT */
/*
 * convert.c - a recording as a perf.data (convert.h): reader -> unwinding stage -> perf.data
 * writer, the stage's output handed over chunk by chunk.
 */
#include "convert.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "formats/perfwrite.h"
#include "formats/rec.h"
#include "formats/util.h"
#include "formats/writer.h"
#include "report/unwind/rewrite.h"

/* The unwinding stage's chunks, whole records, into the perf.data writer. */
static int sink(void *ctx, uint8_t **buf, size_t *cap, size_t len, uint32_t nrec)
{
	struct kp_perfwrite *pw = ctx;
	const struct kp_rec_header *rec;
	size_t pos = 0;

	(void)cap;
	(void)nrec;
	while ((rec = kp_rec_next(*buf, len, &pos)))
		kp_perfwrite_add(pw, rec);
	if (!pw->err && pos < len)
		return -KP_ERECORD; /* the stage writes whole records: this cannot happen */
	return pw->err;
}

/*
 * `_text` of the running kernel when it is the recording's (@release, uname -r): what perf's
 * kernel map needs when the recording does not store it (a perf.data, or a recording made
 * before kprof stored that line). 0 when not known.
 */
static uint64_t live_text(const char *release)
{
	struct utsname u;
	char *text = NULL, *p;
	size_t len = 0;
	uint64_t addr = 0;
	int fd;

	if (!release || uname(&u) < 0 || strcmp(u.release, release))
		return 0;
	fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	kp_read_fd(fd, &text, &len);
	close(fd);
	p = text ? memmem(text, len, " T _text\n", 9) : NULL;
	if (p && p - text >= 16)
		addr = strtoull(p - 16, NULL, 16);
	free(text);
	return addr;
}

int kp_convert_perf(struct kp_reader *r, int fd, struct kp_convert_stats *st,
		    struct kp_debuginfod *debuginfod)
{
	const struct kp_rec_header *rec;
	struct kp_perfwrite pw;
	struct kp_writer w;
	struct kp_rewrite rw;
	int more = 0;

	memset(st, 0, sizeof(*st));
	kp_perfwrite_init(&pw, fd);
	kp_writer_init_sink(&w, sink, &pw, KP_WRITER_CHUNK);
	kp_rewrite_init(&rw, &w, debuginfod);
	while (!w.err && (more = kp_reader_next(r, &rec)) > 0)
		kp_rewrite_feed(&rw, rec);
	kp_rewrite_end(&rw);
	kp_rewrite_stats(&rw, 0, 0, &st->unwind);
	kp_writer_flush(&w);
	kp_perfwrite_set_text(&pw, live_text(rw.s.kernel_release));
	st->write_err = w.err ? w.err : kp_perfwrite_finish(&pw);
	st->records = pw.records;
	st->events = rw.s.evl.nr;
	st->samples = pw.samples;
	st->left_out = pw.left_out;
	st->damaged = pw.damaged;
	st->text = pw.text;
	st->unformatted = pw.unformatted;
	if (pw.unformatted_name)
		snprintf(st->unformatted_name, sizeof(st->unformatted_name), "%s",
			 pw.unformatted_name);
	kp_rewrite_release(&rw);
	kp_writer_close(&w);
	kp_perfwrite_release(&pw);
	if (st->write_err)
		return 1;
	return more < 0 ? more : 0;
}
