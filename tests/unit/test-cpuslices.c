/* SPDX-License-Identifier: MIT */
/*
 * test-cpuslices.c - the CPUs' task stretches that the timeline and the exports draw from
 * sched:sched_switch samples (kp_view_cpu_slices(), report/views/view.h), against a timeline whose
 * truth is written here: switches out of order across CPUs, the idle task, the task before a
 * CPU's first switch, a switch that was not recorded, and fields that name no task; and
 * kp_view_field() on values with spaces and keys that end other keys.
 */
#include <stdlib.h>
#include <string.h>

#include "formats/util.h"
#include "report/profile/profile.h"
#include "report/views/view.h"
#include "tests/tap.h"

static struct kp_strtab strs;
static struct kp_profile prof;
static struct kp_seq seq;

static void sw(uint32_t cpu, uint64_t time, const char *fields)
{
	struct kp_seq_ent e = { .time = time, .cpu = cpu, .count = 1,
				.fields = kp_strtab_intern(&strs, fields) };

	KP_GROW(seq.ents, seq.cap, seq.nr + 1);
	seq.ents[seq.nr++] = e;
}

#define SW(prev, pp, next, np) "prev_comm=" prev " prev_pid=" #pp " prev_prio=120 prev_state=S " \
	"==> next_comm=" next " next_pid=" #np " next_prio=120"

static bool is(const struct kp_view_cpu_slice *s, uint32_t cpu, uint32_t pid, const char *comm,
	       uint64_t start, uint64_t end, bool unknown)
{
	return s->cpu == cpu && s->pid == pid && s->comm_len == strlen(comm) &&
	       !memcmp(s->comm, comm, s->comm_len) && s->start == start && s->end == end &&
	       s->unknown == unknown;
}

static void fields(void)
{
	const char *f = "xnext_pid=1 next_comm=a b c next_pid=42 empty= last=z";
	size_t len = 99;
	const char *v = kp_view_field(f, "next_pid", &len);

	ok(v && len == 2 && !memcmp(v, "42", 2), "a key that ends another key is not it: next_pid=42");
	v = kp_view_field(f, "next_comm", &len);
	ok(v && len == 5 && !memcmp(v, "a b c", 5), "a value runs to the space before the next key");
	v = kp_view_field(f, "empty", &len);
	ok(v && len == 0, "an empty value is there, of length 0");
	v = kp_view_field(f, "last", &len);
	ok(v && len == 1 && *v == 'z', "the last value runs to the end");
	ok(!kp_view_field(f, "prev_pid", &len), "a key not there is NULL");
	ok(!kp_view_field("", "a", &len), "no fields: NULL");
}

int main(void)
{
	struct kp_view_opts o = { .seq = &seq };
	struct kp_view_cpu_slice *v;
	size_t n;

	fields();
	kp_strtab_init(&strs);
	kp_profile_init(&prof, &strs, 1);
	prof.events[0].name = kp_strtab_intern(&strs, "sched:sched_switch");
	prof.t_first = 50;
	prof.t_last = 400;
	/* CPU 1's first, out of order with CPU 0's: the sort puts them back */
	sw(1, 250, SW("d", 40, "swapper/1", 0)); /* from 40, not 10: a switch was lost */
	sw(0, 100, SW("swapper/0", 0, "a", 10));
	sw(1, 150, SW("c", 30, "a", 10));
	sw(0, 200, SW("a", 10, "b x", 20));
	sw(0, 300, SW("b x", 20, "swapper/0", 0));
	sw(0, 350, "next_comm=nameless");	/* no pids: says nothing, skipped */
	kp_profile_finish(&prof);
	n = kp_view_cpu_slices(&prof, &o, &v);
	is_u64(n, 4, "four stretches: two on CPU 0, the first task and the unknown on CPU 1");
	if (n == 4) {
		ok(is(&v[0], 0, 10, "a", 100, 200, false), "CPU 0: a (10) from 100 to 200");
		ok(is(&v[1], 0, 20, "b x", 200, 300, false), "CPU 0: 'b x' (20) from 200 to 300, the idle task after left out");
		ok(is(&v[2], 1, 30, "c", 50, 150, false), "CPU 1: c (30) from the profile's first sample to its first switch");
		ok(is(&v[3], 1, 10, "a", 150, 250, true) && v[3].then_pid == 40 &&
		   v[3].then_len == 1 && *v[3].then_comm == 'd',
		   "CPU 1: from 150 to 250 unknown, a (10) then d (40): their switch was not recorded");
	}
	free(v);
	prof.events[0].name = kp_strtab_intern(&strs, "sched:sched_wakeup");
	is_u64(kp_view_cpu_slices(&prof, &o, &v), 0, "no sched_switch event: no stretches");
	free(v);
	free(seq.ents);
	kp_profile_release(&prof);
	kp_strtab_release(&strs);
	return tap_done();
}
