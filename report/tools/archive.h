/* SPDX-License-Identifier: MIT */
/*
 * archive.h - the symbols a recording's samples need, written into it as KP_REC_SYMBOLS
 * records (`kprof archive`, `kprof record --embed-symbols`), so that it reports on a machine
 * without its binaries.
 *
 * The caller replays the recording as a report does, with inline frames and source lines on
 * and names left mangled (kp_archive_dso_opts()), so that every address the samples hit is
 * looked up once; then kp_archive_write() stores, for every binary that named any of them, its
 * build-id and path, each hit address's frames and the functions holding them. A report reads
 * them back through kp_dsos_embed() and shows them under its own options.
 */
#ifndef KP_ARCHIVE_H
#define KP_ARCHIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "report/symbols/dso.h"
#include "formats/writer.h"
#include "report/replay/session.h"

/* A binary the samples need that kp_archive_write() could not store, and why. */
struct kp_archive_left {
	const char *path;	/* as recorded (the session's string) */
	uint64_t frames;	/* the samples' frames in it */
	char why[1600];		/* what is wrong with its file here, in words */
};

/* What kp_archive_write() stored, and left out. */
struct kp_archive_stats {
	uint64_t binaries;	/* binaries with symbols stored */
	uint64_t locs;		/* hit addresses */
	uint64_t funcs;		/* functions holding them */
	uint64_t records;	/* SYMBOLS records */
	uint64_t bytes;		/* their bytes, uncompressed */
	uint64_t too_big;	/* addresses whose names do not fit in a record: not stored */
	uint64_t tables;	/* binaries whose unwind tables were stored */
	uint64_t table_bytes;	/* ... in so many bytes */
	/* the binaries the samples hit whose symbols (or, for stack copies, unwind tables) could
	 * not be stored: missing, rebuilt since the recording, unreadable, not a regular file,
	 * truncated; owned, kp_archive_stats_release() */
	struct kp_archive_left *left;
	size_t nr_left, cap_left;
};

/* kp_archive_dso_opts - the DSO options of the replay that collects the symbols. */
struct kp_dso_opts kp_archive_dso_opts(void);

/*
 * kp_archive_write - the symbols @s's DSOs gave to the lookups so far, as SYMBOLS records
 * appended to @w (borrowed); with @tables (the recording has stack copies, unwound at report
 * time), also every binary's headers, notes, .eh_frame_hdr and .eh_frame as FILE_PART
 * records, from which a report elsewhere unwinds them. The statistics into *@st, with every
 * binary the samples hit (a frame fell in it) whose symbols or tables it could not store: a
 * file that is not the recorded one is never read, nor one cut short. A binary that names
 * nothing (stripped) is not among them: a report elsewhere names what it names here. Returns
 * the writer's sticky error; release *@st after.
 */
int kp_archive_write(struct kp_session *s, struct kp_writer *w, bool tables,
		     struct kp_archive_stats *st);

/* kp_archive_stats_release - what kp_archive_write() allocated in @st. */
void kp_archive_stats_release(struct kp_archive_stats *st);

#endif /* KP_ARCHIVE_H */
