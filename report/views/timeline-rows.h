/* SPDX-License-Identifier: MIT */
/*
 * timeline-rows.h - the timeline's lanes (view-timeline.c builds them, and writes them) as they
 * are laid out in rows: each process's threads together, the short-lived processes several to
 * a row; and the bound's merging of the boxes shorter than a pixel (timeline-rows.c).
 */
#ifndef KP_TIMELINE_ROWS_H
#define KP_TIMELINE_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "svg.h"
#include "view.h"

/* What a box is (the classes of view-timeline.c's item_class[]). */
enum kp_tl_kind {
	KP_TL_RUN, KP_TL_BLOCKED, KP_TL_RUNNABLE, KP_TL_MARK, KP_TL_TASK, KP_TL_UNKNOWN,
	KP_TL_MERGED
};

/* What the boxes that a merged box stands for were: how many of each kind, and their time. */
struct kp_tl_merged {
	uint32_t n[KP_TL_MERGED];
	uint64_t ns[KP_TL_MERGED];
	enum kp_tl_kind kind;	/* the longest one's */
};

/* One box of a lane. */
struct kp_tl_item {
	enum kp_tl_kind kind;
	uint64_t t, d;		/* start and length, ns */
	uint32_t node;		/* the stack (runs: of the last run), 0 for none */
	uint32_t count;		/* samples of a stretch */
	uint32_t ent;		/* a marker's entry of the timeline; a merged box's
				 * kp_tl.merges[] */
	const char *name;	/* what it is searched and coloured by, */
	size_t name_len;	/* not terminated */
	const struct kp_view_cpu_slice *task;
};

struct kp_tl_lane {
	uint32_t pid, tid, cpu;
	bool is_cpu;
	bool packed;		/* a short-lived process's, in a row with others */
	bool heading;		/* a heading row comes before it */
	bool row_first;		/* the first of its row (a lane not packed has one of its own) */
	const struct kp_view_thread *t;	/* a thread's (NULL for a CPU) */
	size_t first, nr;	/* its items */
	uint64_t a, b;		/* where its boxes begin and end, ns */
	size_t row;		/* its row, from the top (headings counted) */
	size_t slot;		/* packed: which of the packed rows */
};

struct kp_tl {
	const struct kp_profile *p;
	const struct kp_view_opts *o;
	const struct kp_svg_opts *so;
	FILE *out;
	struct kp_tl_item *items;
	size_t nr_items, cap_items;
	struct kp_tl_lane *lanes;
	size_t nr_lanes, cap_lanes;
	size_t nr_rows, nr_packed;
	struct kp_tl_merged *merges;
	size_t nr_merges, cap_merges;
	uint64_t *counted, max; /* while sizing the picture: the bytes written, and where to stop */
	uint64_t t0, t1;	/* what the picture spans, ns */
	double x0, pw, lh;	/* the axis' start and width, a lane's height: px */
	uint64_t lane_end;	/* while a thread's lane is built: where its last run or interval
				 * ends, ns */
	struct kp_svg_text text;
};

/* kp_tl_proc - which process a lane is a thread of: its pid, and which process of that pid
 * (kp_view_thread.life); a CPU lane's is none (UINT64_MAX). */
static inline uint64_t kp_tl_proc(const struct kp_tl_lane *ln)
{
	return ln->is_cpu ? UINT64_MAX : (uint64_t)ln->t->life << 32 | ln->pid;
}

/* The thread lanes from @from on: threads of one process together, in the order of each
 * process's first thread (the lanes' items are then no longer in their order). */
void kp_tl_group(struct kp_tl *tl, size_t from);

/*
 * kp_tl_pack - the thread lanes from @from on that are short-lived processes' (the only thread
 * of their process in the picture, not an idle task, whose boxes lie within a tenth of the
 * picture's time) moved to the end, several to a row: in order of their start, each in the
 * first row where the last one ended before it starts (a new row where none did).
 */
void kp_tl_pack(struct kp_tl *tl, size_t from);

/* kp_tl_layout - each lane's row, and where a heading comes: before the CPUs, each process,
 * and the short-lived processes. */
void kp_tl_layout(struct kp_tl *tl);

/*
 * kp_tl_merge - in each lane, the boxes shorter than a pixel of the picture (markers too) that
 * follow each other and start in one pixel become one box of kind KP_TL_MERGED, from the first
 * one's start to the last end, named as the longest of them; a box a pixel long or longer
 * stays as it is, and so does a short one alone in its pixel. Returns how many boxes remain.
 */
size_t kp_tl_merge(struct kp_tl *tl);

#endif /* KP_TIMELINE_ROWS_H */
