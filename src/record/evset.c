/* SPDX-License-Identifier: MIT */
/*
 * evset.c - events × targets × CPUs for record and stat: who the targets are, the open with
 * its fallbacks, groups and filters, and the start and stop.
 */
#include "evset.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "diag.h"
#include "formats/util.h"
#include "idlist.h"
#include "perf.h"
#include "synth.h"
#include "tracefs.h"

/* ---- targets and CPUs --------------------------------------------------------------------- */

static void add_pid(struct kp_evset *s, int pid)
{
	s->pids = kp_xrealloc(s->pids, (s->nr_pids + 1) * sizeof(*s->pids));
	s->pids[s->nr_pids++] = pid;
}

/* The processes' threads and the threads of @s->o, or why not; 0 or -errno. */
static int list_tasks(struct kp_evset *s)
{
	const struct kp_evset_opts *o = &s->o;

	for (size_t i = 0; i < o->nr_pids; i++) {
		if (kp_synth_threads(o->pids[i], &s->pids, &s->nr_pids) == 0 || o->pids_may_end)
			continue;
		kp_error("cannot attach to process %d: %s", o->pids[i],
			 errno == ENOENT ? "no such process" : strerror(errno));
		return -ESRCH;
	}
	for (size_t i = 0; i < o->nr_tids; i++)
		add_pid(s, o->tids[i]);
	if (!s->nr_pids) {
		kp_error("no process or thread to attach to");
		return -ESRCH;
	}
	s->inherit = o->nr_pids > 0;
	return 0;
}

static int list_targets(struct kp_evset *s)
{
	const struct kp_evset_opts *o = &s->o;

	if (o->system_wide) {
		add_pid(s, -1);
		return 0;
	}
	if (o->nr_pids || o->nr_tids)
		return list_tasks(s);
	add_pid(s, o->command);
	s->inherit = s->on_exec = true;
	return 0;
}

static int list_cpus(struct kp_evset *s)
{
	int cpus[KP_MAX_CPUS], n;

	if (!s->o.system_wide && !s->o.per_cpu) {
		n = 1;
		cpus[0] = -1;
	} else if (s->o.cpus) {
		n = (int)s->o.nr_cpus;
		memcpy(cpus, s->o.cpus, s->o.nr_cpus * sizeof(*cpus));
	} else if ((n = kp_cpus_online(cpus, KP_MAX_CPUS)) <= 0) {
		n = n ? n : -EINVAL;
		kp_error("cannot read the online CPUs: %s", strerror(-n));
		return n;
	}
	s->nr_cpus = (size_t)n;
	s->cpus = kp_xcalloc(s->nr_cpus, sizeof(*s->cpus));
	memcpy(s->cpus, cpus, s->nr_cpus * sizeof(*cpus));
	return 0;
}

/* ---- opening ------------------------------------------------------------------------------ */

size_t kp_evset_per_event(const struct kp_evset *s)
{
	return s->nr_pids * s->nr_cpus;
}

size_t kp_evset_nr_fds(const struct kp_evset *s)
{
	return s->o.nr_evs * kp_evset_per_event(s);
}

int kp_evset_cpu(const struct kp_evset *s, size_t i)
{
	return s->cpus[i % s->nr_cpus];
}

static size_t fd_index(const struct kp_evset *s, size_t ev, size_t t, size_t ci)
{
	return (ev * s->nr_pids + t) * s->nr_cpus + ci;
}

/*
 * Is event @ev opened as a member of its group? Not when it leads it, is in none, or its
 * leader is not supported here: then it counts on its own, as if it were in no group.
 */
static bool grouped_member(const struct kp_evset *s, size_t ev)
{
	int leader = s->o.evs[ev].group_leader;

	return leader >= 0 && (size_t)leader != ev && !s->ev[leader].unsupported;
}

/* How event @ev opens: a member enabled with its leader, which alone starts disabled. */
static void set_mode(const struct kp_evset *s, size_t ev)
{
	struct perf_event_attr *a = &s->o.evs[ev].attr;
	bool member = grouped_member(s, ev);

	a->size = sizeof(*a);
	a->disabled = !member;
	a->enable_on_exec = !member && s->on_exec;
	a->inherit = s->inherit;
}

/* After EINVAL from a filter: the syntax, and the fields the tracepoint has. */
static void filter_hint(const struct kp_evspec *e)
{
	struct kp_tracefs t;
	char *fmt = NULL, *fields;

	if (kp_tracefs_open(&t))
		return;
	if (kp_evspec_tp_format(e, &t, &fmt) == 0) {
		fields = kp_tracefs_fields(fmt);
		kp_hint("a filter compares the fields of '%s' (%s) with ==, !=, <, <=, >, >=, & "
			"or ~ (a glob), joined by && and ||", e->name, fields);
		free(fields);
	}
	free(fmt);
}

static int apply_filter(int fd, const struct kp_evspec *e)
{
	int err = kp_perf_set_filter(fd, e->filter);

	if (!err)
		return 0;
	kp_error("cannot set the filter '%s' on '%s': %s", e->filter, e->spec,
		 err == -EINVAL ? "the kernel rejects it (Invalid argument)" : strerror(-err));
	if (err == -EINVAL)
		filter_hint(e);
	return err;
}

/* A missing PMU is "<not supported>" for the named events; for a probe it is an error. */
static bool may_be_unsupported(const struct kp_evspec *e)
{
	return e->kind != KP_EVSPEC_UPROBE && e->kind != KP_EVSPEC_KPROBE &&
	       e->kind != KP_EVSPEC_BREAKPOINT;
}

static void mark_unsupported(struct kp_evset *s, size_t ev)
{
	const struct kp_evspec *e = &s->o.evs[ev];

	s->ev[ev].unsupported = true;
	if ((size_t)e->group_leader == ev && ev + 1 < s->o.nr_evs &&
	    s->o.evs[ev + 1].group_leader == (int)ev)
		kp_notice("'%s' leads a group but is not supported here: the rest of its group "
			  "counts without it", e->spec);
}

static void explain_open(const struct kp_evset *s, size_t ev, size_t t, int err)
{
	const struct kp_evspec *e = &s->o.evs[ev];

	/* on another user's process, the owner is the reason, whatever perf_event_paranoid says */
	if (!s->on_exec && kp_perf_explain_target(e->spec, s->pids[t], err))
		return;
	kp_evspec_explain(e, err);
	if (grouped_member(s, ev) && err == -EINVAL)
		kp_hint("'%s' is in a group led by '%s': the kernel puts only events that can "
			"count together in one group (software events and one PMU's events)",
			e->spec, s->o.evs[e->group_leader].spec);
}

/* Event @ev on target @t and CPU index @ci, with the refusals of evset.h; 0 or -errno. */
static int open_one(struct kp_evset *s, size_t ev, size_t t, size_t ci)
{
	struct kp_evspec *e = &s->o.evs[ev];
	int group_fd = -1, fd, first;
	bool narrowed = false;

	if (grouped_member(s, ev)) {
		group_fd = s->fds[fd_index(s, (size_t)e->group_leader, t, ci)];
		if (group_fd < 0)
			return 0; /* the leader's thread ended before it could be opened */
	}
	fd = first = kp_perf_open(&e->attr, s->pids[t], s->cpus[ci], group_fd);
	if (kp_perf_is_unsupported(fd) && s->o.fallback && kp_evspec_fallback(e)) {
		kp_notice("event '%s' is not supported here (no hardware PMU): using 'cpu-clock'",
			  e->spec);
		fd = first = kp_perf_open(&e->attr, s->pids[t], s->cpus[ci], group_fd);
	} else if (kp_perf_is_unsupported(fd) && !s->o.fallback && may_be_unsupported(e)) {
		mark_unsupported(s, ev);
		return 0;
	}
	if ((fd == -EACCES || fd == -EPERM) && kp_evspec_user_only(e)) {
		narrowed = true;
		fd = kp_perf_open(&e->attr, s->pids[t], s->cpus[ci], group_fd);
	}
	if (fd == -ESRCH && !s->on_exec && s->pids[t] > 0)
		return 0; /* a thread of the attached ones ended since /proc listed it */
	if (fd < 0) {
		/* when user space only fails too, the first refusal is the one to explain */
		explain_open(s, ev, t, narrowed ? first : fd);
		return narrowed ? first : fd;
	}
	if (narrowed) {
		s->ev[ev].user_only = true;
		kp_notice("kernel events are not permitted: %s '%s' in user space only",
			  s->o.doing, e->spec);
		kp_hint("'sysctl kernel.perf_event_paranoid=1' or CAP_PERFMON allows kernel "
			"events");
		if (e->off_cpu) /* a switch-out happens in the kernel: user space never sees one */
			kp_warn("--off-cpu: switch-outs cannot be sampled in user space only; the "
				"switch records still time each thread's off-CPU intervals, shown "
				"without their stacks");
	}
	s->fds[fd_index(s, ev, t, ci)] = fd;
	return e->filter ? apply_filter(fd, e) : 0;
}

static int open_all(struct kp_evset *s)
{
	size_t n = kp_evset_nr_fds(s);
	int err;

	s->fds = kp_xcalloc(n, sizeof(*s->fds));
	s->ev = kp_xcalloc(s->o.nr_evs, sizeof(*s->ev));
	for (size_t i = 0; i < n; i++)
		s->fds[i] = -1;
	/* a leader comes before its members, so their group_fd is open when they are */
	for (size_t ev = 0; ev < s->o.nr_evs; ev++) {
		set_mode(s, ev);
		for (size_t t = 0; t < s->nr_pids; t++)
			for (size_t ci = 0; ci < s->nr_cpus && !s->ev[ev].unsupported; ci++)
				if ((err = open_one(s, ev, t, ci)))
					return err;
	}
	return 0;
}

int kp_evset_open(struct kp_evset *s, const struct kp_evset_opts *o)
{
	int err;

	memset(s, 0, sizeof(*s));
	s->o = *o;
	err = list_targets(s);
	if (!err)
		err = list_cpus(s);
	return err ? err : open_all(s);
}

/* ---- starting and stopping ---------------------------------------------------------------- */

int kp_evset_enable(struct kp_evset *s)
{
	if (s->on_exec)
		return 0; /* enable_on_exec does it */
	for (size_t i = 0; i < kp_evset_nr_fds(s); i++)
		if (s->fds[i] >= 0 && ioctl(s->fds[i], PERF_EVENT_IOC_ENABLE, 0) < 0)
			return kp_error("cannot start the events: %s", strerror(errno));
	return 0;
}

void kp_evset_disable(struct kp_evset *s)
{
	for (size_t i = 0; i < kp_evset_nr_fds(s); i++)
		if (s->fds[i] >= 0)
			ioctl(s->fds[i], PERF_EVENT_IOC_DISABLE, 0);
}

void kp_evset_release(struct kp_evset *s)
{
	for (size_t i = 0; s->fds && i < kp_evset_nr_fds(s); i++)
		if (s->fds[i] >= 0)
			close(s->fds[i]);
	free(s->pids);
	free(s->cpus);
	free(s->fds);
	free(s->ev);
	memset(s, 0, sizeof(*s));
}
