/* SPDX-License-Identifier: MIT */
/*
 * fuzz-perfdata.c - libFuzzer target over the perf.data reader (formats/perfdata.c) as every
 * command reaches it, through kp_reader: the file header, the attr section and its ids, the
 * feature sections (build-ids, strings, string lists, event descriptions, clocks), pipe mode's
 * HEADER_ATTR / HEADER_FEATURE / EVENT_UPDATE records, zstd-compressed records whose contents
 * span several of them, and records followed by data their size does not count. Each record
 * handed out must be one a .kprof reader could hand out: aligned, within its size, valid for
 * its type; each kernel record is then parsed against the event it belongs to. The seeds in
 * corpus-perfdata/ are small files perf record wrote (-g, -z, --call-graph dwarf, pipe mode,
 * build-ids, two events) and one kprof convert --to perf wrote (kprof-written.data: its
 * features and the kernel map it adds).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "formats/evlist.h"
#include "formats/perfdata.h"
#include "formats/reader.h"
#include "formats/rec.h"
#include "formats/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void visit(struct kp_evlist *l, const struct kp_rec_header *rec)
{
	const struct kp_evsel *ev;
	struct kp_sample s;
	struct kp_mmap m;
	const char *key, *value;

	if ((uintptr_t)rec % 8 || kp_rec_validate(rec, rec->size))
		abort(); /* the reader hands out only what a consumer may trust */
	switch (rec->type) {
	case KP_REC_ATTR:
		kp_evlist_add(l, rec);
		return;
	case KP_REC_META:
		kp_rec_meta_view(rec, &key, &value);
		if (strlen(key) + strlen(value) > rec->size)
			abort();
		return;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (kp_rec_parse_mmap(rec, rec->size, &m))
			abort(); /* validated, so it parses */
		break;
	default:
		break;
	}
	ev = kp_evlist_find(l, rec);
	if (!ev)
		return;
	if (rec->type == PERF_RECORD_SAMPLE)
		kp_rec_parse_sample(&ev->attr, rec, &s);
	else if (rec->type < KP_REC_USER_START)
		kp_rec_parse_id(&ev->attr, rec, &s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_reader r;
	struct kp_evlist l;
	const struct kp_rec_header *rec;
	int fd = memfd_create("fuzz-perfdata", MFD_CLOEXEC), rc = 0;

	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	kp_evlist_init(&l);
	if (kp_reader_open_fd(&r, fd) == 0)
		while ((rc = kp_reader_next(&r, &rec)) > 0)
			visit(&l, rec);
	if ((r.err || rc < 0) && r.err_off > size)
		abort(); /* an error's offset lies in the file */
	kp_perfdata_stats(r.perf);
	kp_reader_release(&r);
	kp_evlist_release(&l);
	close(fd);
	return 0;
}
