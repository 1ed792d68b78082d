/* SPDX-License-Identifier: MIT */
/*
 * view-speedscope.c - speedscope's file format (https://www.speedscope.app/file-format-schema.json):
 * the frames once in shared.frames (name, and file and line where known: one frame for each,
 * however many locations share them, as speedscope groups by frame), then one "sampled"
 * profile per thread, named "comm (tid)", whose samples are its stacks in time order as frame
 * indices from the root side, each weighing its run's value in the event's unit.
 */
#include <stdlib.h>

#include "json.h"
#include "view.h"

#include "formats/util.h"

/* A location sought among the frames: the same function, file and line as @loc. */
struct frame_key {
	const struct kp_profile *p;
	const struct kp_loc *loc;
};

static bool same_frame(const void *ctx, uint64_t l)
{
	const struct frame_key *k = ctx;
	const struct kp_loc *o = &k->p->locs[l];

	return o->func == k->loc->func && o->file == k->loc->file && o->line == k->loc->line;
}

static void frames(const struct kp_profile *p, struct kp_json *j, uint32_t *frame_of)
{
	struct kp_hash ids; /* function, file, line -> frame */
	uint32_t n = 0;
	uint64_t *v;

	kp_json_key(j, "shared");
	kp_json_obj(j);
	kp_json_key(j, "frames");
	kp_json_arr(j);
	kp_hash_init(&ids);
	for (size_t l = 0; l < p->nr_locs; l++) {
		const struct kp_loc *loc = &p->locs[l];

		uint64_t key = kp_hash_words((const uint64_t[]){ loc->func,
					     (uint64_t)loc->file << 32 | loc->line }, 2, 0);

		if (loc->flags & KP_LOC_COMM)
			continue;
		if ((v = kp_hash_find(&ids, &key, same_frame, &(struct frame_key){ p, loc }))) {
			frame_of[l] = frame_of[*v];
			continue;
		}
		kp_hash_put(&ids, key, l);
		frame_of[l] = n++;
		kp_json_obj(j);
		kp_json_key(j, "name");
		kp_json_str(j, kp_strtab_get(p->strs, p->funcs[loc->func].name));
		if (loc->file) {
			kp_json_key(j, "file");
			kp_json_str(j, kp_strtab_get(p->strs, loc->file));
		}
		if (loc->line) {
			kp_json_key(j, "line");
			kp_json_u64(j, loc->line);
		}
		kp_json_obj_end(j);
	}
	kp_hash_release(&ids);
	kp_json_arr_end(j);
	kp_json_obj_end(j);
}

static void thread(const struct kp_profile *p, const struct kp_view_opts *o, struct kp_json *j,
		   const struct kp_view_thread *t, const uint32_t *order, const uint32_t *frame_of)
{
	const struct kp_seq_ent *ents = o->seq->ents;
	uint32_t *path = NULL;
	size_t cap = 0;
	uint64_t total = 0;
	char name[64];

	kp_json_obj(j);
	kp_json_key(j, "type");
	kp_json_str(j, "sampled");
	kp_json_key(j, "name");
	kp_json_strf(j, "%s (%u)", kp_view_thread_name(p, t, name, sizeof(name)), t->tid);
	kp_json_key(j, "unit");
	kp_json_str(j, kp_view_unit(p, o)[0] == 'n' ? "nanoseconds" : "none");
	kp_json_key(j, "samples");
	kp_json_arr(j);
	for (size_t i = t->first; i < t->first + t->nr; i++) {
		size_t n = kp_view_stack(p, ents[order[i]].node, &path, &cap);

		kp_json_arr(j);
		for (size_t k = 0; k < n; k++)
			kp_json_u64(j, frame_of[p->nodes[path[k]].loc]);
		kp_json_arr_end(j);
		total += ents[order[i]].value;
	}
	kp_json_arr_end(j);
	kp_json_key(j, "weights");
	kp_json_arr(j);
	for (size_t i = t->first; i < t->first + t->nr; i++)
		kp_json_u64(j, ents[order[i]].value);
	kp_json_arr_end(j);
	kp_json_key(j, "startValue");
	kp_json_u64(j, 0);
	kp_json_key(j, "endValue");
	kp_json_u64(j, total);
	kp_json_obj_end(j);
	free(path);
}

int kp_view_speedscope(const struct kp_profile *p, const struct kp_view_opts *o, FILE *out)
{
	struct kp_view_thread *threads;
	uint32_t *order, *frame_of = kp_xcalloc(p->nr_locs ? p->nr_locs : 1, sizeof(*frame_of));
	size_t nr = kp_view_threads(o, 0, &threads, &order);
	const struct kp_prof_event *ev = o->event < p->nr_events ? &p->events[o->event] : NULL;
	struct kp_json j;

	kp_json_init(&j, out, false);
	kp_json_obj(&j);
	kp_json_key(&j, "$schema");
	kp_json_str(&j, "https://www.speedscope.app/file-format-schema.json");
	kp_json_key(&j, "name");
	kp_json_str(&j, ev && ev->name ? kp_strtab_get(p->strs, ev->name) : "kprof");
	kp_json_key(&j, "exporter");
	kp_json_str(&j, "kprof");
	kp_json_key(&j, "activeProfileIndex");
	kp_json_u64(&j, 0);
	frames(p, &j, frame_of);
	kp_json_key(&j, "profiles");
	kp_json_arr(&j);
	for (size_t t = 0; t < nr; t++)
		thread(p, o, &j, &threads[t], order, frame_of);
	kp_json_arr_end(&j);
	kp_json_obj_end(&j);
	free(frame_of);
	free(threads);
	free(order);
	kp_json_finish(&j); /* a failed write is the stream's error, which the command checks */
	return 0;
}
