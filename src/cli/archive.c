/* SPDX-License-Identifier: MIT */
#include "config.h"
#include "archive.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/reader.h"
#include "formats/util.h"
#include "formats/writer.h"
#include "input.h"
#include "output.h"
#include "report/tools/archive.h"
#include "src/record/diag.h"

/* Copy the records of @input that read to @w (a new file), but its old SYMBOLS records. */
static int copy_records(const char *input, struct kp_writer *w)
{
	const struct kp_rec_header *rec;
	struct kp_reader r;
	int more;

	if (kp_input_open(&r, input))
		return -1;
	while (!w->err && (more = kp_reader_next(&r, &rec)) > 0) {
		if (rec->type == KP_REC_ROUND)
			kp_writer_round(w);
		else if (rec->type != KP_REC_SYMBOLS)
			kp_writer_add(w, rec);
	}
	kp_reader_release(&r);
	return kp_writer_flush(w);
}

/* The symbols of @r's session appended to @fd at @off, and the header pointed at them. */
static int append_symbols(struct kp_report *r, int fd, uint64_t off, const char *path,
			  struct kp_archive_stats *st)
{
	struct kp_writer w;
	int err = kp_writer_init_at(&w, fd, KP_WRITER_SMALL_LEVEL, 0, off);

	/* stack copies kept for the report to unwind need the binaries' CFI elsewhere too */
	if (!err)
		kp_archive_write(&r->s, &w, r->ready && kp_unwinder_stats(r->res.unwinder)->samples,
				 st);
	err = kp_writer_close(&w);
	if (!err && fsync(fd) && errno != EINVAL)
		err = -errno;
	if (!err && st->records)
		err = kp_writer_mark_symbols(fd, off);
	if (err)
		kp_error("cannot write '%s': %s", path, kp_strerror(err));
	return err ? 1 : 0;
}

/* In place: the file must have read whole, and must not have changed since. */
static int archive_in_place(struct kp_report *r, const char *input, struct kp_archive_stats *st)
{
	struct stat sb;
	int fd, rc;

	if (r->replay_err) {
		kp_input_error(&r->s.r, input);
		kp_hint("kprof archive -o NEW writes a copy of what reads, with the symbols");
		return 1;
	}
	fd = open(input, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return kp_error("cannot write '%s': %s", input, strerror(errno));
	if (fstat(fd, &sb) || (uint64_t)sb.st_size != r->s.r.file_size) {
		close(fd);
		return kp_error("'%s' changed while it was read: run kprof archive again", input);
	}
	rc = append_symbols(r, fd, r->s.r.file_size, input, st);
	close(fd);
	return rc;
}

static int archive_copy(struct kp_report *r, const char *input, const char *output,
			struct kp_archive_stats *st)
{
	struct kp_output out;
	struct kp_writer w;
	int fd, rc = 1;

	if (kp_output_same_file(input, output))
		return kp_error("'%s' is the input: leave out -o to archive it in place", output);
	fd = kp_output_open_fd(&out, output, true);
	if (fd < 0)
		return 1;
	if (kp_writer_init(&w, fd, KP_WRITER_DEFAULT_LEVEL, 0) || copy_records(input, &w)) {
		if (w.err)
			kp_error("cannot write '%s': %s", output, kp_strerror(w.err));
	} else {
		rc = append_symbols(r, fd, w.off, output, st);
	}
	kp_writer_close(&w);
	if (rc)
		kp_output_abort(&out);
	else
		rc = kp_output_commit(&out);
	if (!rc && r->replay_err)
		kp_input_error(&r->s.r, input); /* what came before the damage is in the copy */
	return rc;
}

/* The binaries the samples need that were left out, each with why: 1 when there is any. */
static int say_left(const struct kp_archive_stats *st, const char *path)
{
	uint64_t frames = 0;

	for (size_t i = 0; i < st->nr_left; i++) {
		kp_error("'%s': not stored (%llu frames of the samples): %s", st->left[i].path,
			 (unsigned long long)st->left[i].frames, st->left[i].why);
		frames += st->left[i].frames;
	}
	if (!st->nr_left)
		return 0;
	kp_error("'%s' is incomplete: %zu binar%s the samples need left out (%llu of their "
		 "frames): elsewhere these frames keep only their offsets", path, st->nr_left,
		 st->nr_left > 1 ? "ies" : "y", (unsigned long long)frames);
	kp_hint("with the recorded files at their paths (or --symfs DIR), kprof archive stores "
		"them too");
	return 1;
}

int kp_archive_file(const char *input, const char *output, const char *symfs, const char *who,
		    const struct kp_dso_alt *alts, size_t nr_alts, struct kp_debuginfod *debuginfod)
{
	struct kp_report_opts o = { .input = input, .symfs = symfs, .alts = alts, .nr_alts = nr_alts,
				    .dso = kp_archive_dso_opts(),
				    .filter = { .t_end = UINT64_MAX } };
	struct kp_archive_stats st = { 0 };
	struct kp_report r;
	struct stat sb;
	int rc;

	o.dso.debuginfod = debuginfod;
	/* it is read twice (-o) or appended to: a FIFO or a device is no recording to store in */
	if (stat(input, &sb) == 0 && !S_ISREG(sb.st_mode))
		return kp_error("'%s' is not a regular file: kprof archive stores the symbols in a "
				"recording's file", input);
	rc = kp_input_build(&o, &r);
	if (!rc && r.s.r.perf)
		rc = kp_error("'%s' is a perf.data: kprof convert --to kprof makes a recording that "
			      "can hold its symbols", input);
	if (!rc)
		rc = output ? archive_copy(&r, input, output, &st) : archive_in_place(&r, input, &st);
	if (!rc)
		fprintf(stderr, "[ kprof %s: stored the symbols of %llu binaries in '%s': %llu "
				"addresses, %llu functions, %llu bytes before compression%s ]\n",
			who, (unsigned long long)st.binaries, output ? output : input,
			(unsigned long long)st.locs, (unsigned long long)st.funcs,
			(unsigned long long)st.bytes, st.too_big ? "; some names too long to store" : "");
	if (!rc && st.tables)
		fprintf(stderr, "[ kprof %s: and the unwind tables of %llu binaries, %llu bytes, for "
				"the %llu stack copies a report unwinds ]\n", who,
			(unsigned long long)st.tables, (unsigned long long)st.table_bytes,
			(unsigned long long)kp_unwinder_stats(r.res.unwinder)->samples);
	if (!rc && st.too_big)
		kp_warn("%llu addresses have names longer than a record holds: they are not stored",
			(unsigned long long)st.too_big);
	if (!rc)
		rc = say_left(&st, output ? output : input);
	kp_archive_stats_release(&st);
	kp_report_release(&r);
	return rc;
}
