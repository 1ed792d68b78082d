/* SPDX-License-Identifier: MIT */
/*
 * offcpu.c - pairing switch-out samples with the switch records that time them (offcpu.h).
 */
#include "offcpu.h"

#include <stdlib.h>
#include <string.h>

#include "formats/util.h"

void kp_offcpu_init(struct kp_offcpu *o, kp_offcpu_close_fn close, void *ctx)
{
	memset(o, 0, sizeof(*o));
	kp_hash_init(&o->by_tid);
	o->close = close;
	o->ctx = ctx;
}

void kp_offcpu_release(struct kp_offcpu *o)
{
	kp_hash_release(&o->by_tid);
	free(o->waits);
	memset(o, 0, sizeof(*o));
}

static struct kp_offcpu_wait *wait_of(struct kp_offcpu *o, uint32_t tid)
{
	uint64_t *i = kp_hash_get(&o->by_tid, tid);

	if (i)
		return &o->waits[*i];
	KP_GROW(o->waits, o->cap, o->nr + 1);
	kp_hash_put(&o->by_tid, tid, o->nr);
	o->waits[o->nr] = (struct kp_offcpu_wait){ .tid = tid, .node = KP_OFFCPU_NO_NODE,
						   .waker = KP_OFFCPU_NO_NODE };
	return &o->waits[o->nr++];
}

/* End @w's interval at @time, counted in @count unless it is the normal switch-in (NULL), which
 * alone gives it its waker. */
static void close_at(struct kp_offcpu *o, struct kp_offcpu_wait *w, uint64_t time,
		     uint64_t *count)
{
	uint64_t ns = 0;

	if (!w->open)
		return;
	if (count || w->woken > time)
		w->waker = KP_OFFCPU_NO_NODE;
	if (o->wakers && !count && !w->preempt) {
		if (w->waker == KP_OFFCPU_NO_NODE)
			o->st.no_waker++;
		else
			o->st.woken++;
	}
	if (time >= w->out)
		ns = time - w->out;
	else
		o->st.bad_time++;
	if (count)
		(*count)++;
	if (w->node == KP_OFFCPU_NO_NODE)
		o->st.no_stack++;
	if (w->preempt) {
		o->st.preempted++;
		o->st.preempted_ns += ns;
	} else {
		o->st.blocked++;
		o->st.blocked_ns += ns;
	}
	o->close(o->ctx, w, ns);
	w->open = w->switched = w->preempt = false;
	w->node = KP_OFFCPU_NO_NODE;
}

/* A new interval of @w from @time, the last one (if open) closed as lost first. */
static struct kp_offcpu_wait *open_at(struct kp_offcpu *o, struct kp_offcpu_wait *w,
				       uint64_t time, uint32_t node, bool switched, bool preempt)
{
	if (w->open)
		close_at(o, w, w->out, &o->st.no_switch_in); /* back on the CPU, unseen */
	w->node = node;
	w->out = time;
	w->tag = UINT64_MAX;
	w->open = true;
	w->switched = switched;
	w->preempt = preempt;
	return w;
}

struct kp_offcpu_wait *kp_offcpu_sample(struct kp_offcpu *o, uint32_t tid, uint64_t time,
					uint32_t node)
{
	struct kp_offcpu_wait *w = wait_of(o, tid);

	if (w->exited) {
		o->st.after_exit++;
		return NULL;
	}
	if (w->open && w->switched && w->node == KP_OFFCPU_NO_NODE && time <= w->out) {
		w->node = node; /* its switch record came first, at the same time */
		return NULL;
	}
	return open_at(o, w, time, node, false, false);
}

struct kp_offcpu_wait *kp_offcpu_switch(struct kp_offcpu *o, uint32_t tid, uint64_t time,
					bool out, bool preempt)
{
	struct kp_offcpu_wait *w = wait_of(o, tid);

	if (!out) {
		close_at(o, w, time, NULL);
		w->waker = KP_OFFCPU_NO_NODE; /* a waking from now on is for a later sleep */
		return NULL;
	}
	if (w->exited)
		return NULL;
	if (w->open && !w->switched) { /* the sample's own switch-out */
		w->switched = true;
		w->preempt = preempt;
		return NULL;
	}
	return open_at(o, w, time, KP_OFFCPU_NO_NODE, true, preempt);
}

void kp_offcpu_waking(struct kp_offcpu *o, uint32_t tid, uint64_t time, uint32_t node)
{
	struct kp_offcpu_wait *w = wait_of(o, tid);

	w->waker = node;
	w->woken = time;
}

void kp_offcpu_exit(struct kp_offcpu *o, uint32_t tid, uint64_t time)
{
	uint64_t *i = kp_hash_get(&o->by_tid, tid);

	if (i)
		close_at(o, &o->waits[*i], time, &o->st.at_exit);
	wait_of(o, tid)->exited = true;
}

void kp_offcpu_fork(struct kp_offcpu *o, uint32_t tid)
{
	uint64_t *i = kp_hash_get(&o->by_tid, tid);

	if (i)
		o->waits[*i].exited = false;
}

void kp_offcpu_end(struct kp_offcpu *o, uint64_t time)
{
	for (size_t i = 0; i < o->nr; i++)
		close_at(o, &o->waits[i], time > o->waits[i].out ? time : o->waits[i].out,
			 &o->st.at_end);
}
