/* SPDX-License-Identifier: MIT */
/*
 * counter.c - the counting engine of `kprof stat`: a command held before exec, the counter
 * targets, one counting event per event and target, and the wait for the end.
 */
#include "config.h"

#include "counter.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "diag.h"
#include "formats/util.h"
#include "perf.h"
#include "tracefs.h"

/* ---- targets ------------------------------------------------------------------------------ */

static void add_target(struct kp_counter *c, pid_t pid, int cpu)
{
	c->targets = kp_xrealloc(c->targets, (c->nr_targets + 1) * sizeof(*c->targets));
	c->targets[c->nr_targets++] = (struct kp_counter_target){ pid, cpu };
}

/* Every thread of process @pid, from /proc/PID/task; 0, or 1 after an error. */
static int add_threads(struct kp_counter *c, pid_t pid)
{
	char path[64];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return kp_error("cannot find process %d: %s", (int)pid,
				errno == ENOENT ? "no such process" : strerror(errno));
	while ((d = readdir(dir))) {
		char *end;
		long tid = strtol(d->d_name, &end, 10);
		if (*end == '\0' && tid > 0)
			add_target(c, (pid_t)tid, -1);
	}
	closedir(dir);
	return 0;
}

static int setup_targets(struct kp_counter *c)
{
	const struct kp_counter_opts *o = c->o;
	int cpus[KP_COUNTER_MAX_CPUS], n;

	if (o->nr_pids) {
		for (int i = 0; i < o->nr_pids; i++)
			if (add_threads(c, o->pids[i]))
				return 1;
		return 0;
	}
	if (o->cpus) {
		for (int i = 0; i < o->nr_cpus; i++)
			add_target(c, -1, o->cpus[i]);
		return 0;
	}
	if (!o->system_wide) {
		/*
		 * The command: one task counter on any CPU (cpu -1), as perf stat does. A per-CPU
		 * task counter is "enabled" whenever the task runs but "running" only while it
		 * runs on that CPU, so its times would look multiplexed when they are not.
		 */
		add_target(c, c->child.pid, -1);
		return 0;
	}
	n = kp_cpus_online(cpus, KP_COUNTER_MAX_CPUS);
	if (n <= 0)
		return kp_error("cannot read the online CPUs: %s", strerror(n ? -n : EINVAL));
	for (int i = 0; i < n; i++)
		add_target(c, -1, cpus[i]);
	return 0;
}

/* ---- counters ----------------------------------------------------------------------------- */

/*
 * Is event @ev opened as a member of its group? Not when it leads it, is in none, or its
 * leader is not supported here: then it counts on its own, as if it were in no group.
 */
static bool grouped_member(const struct kp_counter *c, size_t ev)
{
	int leader = c->o->evs[ev].group_leader;

	return leader >= 0 && (size_t)leader != ev && !c->ev[leader].unsupported;
}

static void build_attr(const struct kp_counter *c, size_t ev)
{
	struct perf_event_attr *a = &c->o->evs[ev].attr;
	bool member = grouped_member(c, ev);

	a->size = sizeof(*a);
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	/* a group member is enabled with its leader, so it is created enabled itself */
	a->disabled = !member;
	/* the command's own counters start at its exec; the others at PERF_EVENT_IOC_ENABLE */
	a->enable_on_exec = !member && c->o->argv && !c->o->system_wide && !c->o->nr_pids;
	a->inherit = !c->o->system_wide;
}

/* After EINVAL from a filter: the syntax, and the fields the tracepoint has. */
static void filter_hint(const struct kp_evspec *e)
{
	const char *colon = strchr(e->name, ':');
	struct kp_tracefs t;
	char *sys, *fmt = NULL, *fields;

	if (!colon || kp_tracefs_open(&t))
		return;
	sys = kp_xstrdup(e->name);
	sys[colon - e->name] = '\0';
	if (kp_tracefs_format(&t, sys, colon + 1, &fmt) == 0) {
		fields = kp_tracefs_fields(fmt);
		kp_hint("a filter compares the fields of '%s' (%s) with ==, !=, <, <=, >, >=, & "
			"or ~ (a glob), joined by && and ||", e->name, fields);
		free(fields);
	}
	free(fmt);
	free(sys);
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
	return 1;
}

/* A missing PMU is "<not supported>" for the named events; for a probe it is an error. */
static bool may_be_unsupported(const struct kp_evspec *e)
{
	return e->kind != KP_EVSPEC_UPROBE && e->kind != KP_EVSPEC_KPROBE &&
	       e->kind != KP_EVSPEC_BREAKPOINT;
}

static void explain_open(const struct kp_counter *c, size_t ev, int err)
{
	const struct kp_evspec *e = &c->o->evs[ev];

	kp_evspec_explain(e, err);
	if (grouped_member(c, ev) && err == -EINVAL)
		kp_hint("'%s' is in a group led by '%s': the kernel puts only events that can "
			"count together in one group (software events and one PMU's events)",
			e->spec, c->o->evs[e->group_leader].spec);
}

/* Open event @ev on target @ti; a missing PMU marks the event unsupported. 0 or 1. */
static int open_one(struct kp_counter *c, size_t ev, int ti)
{
	struct kp_evspec *e = &c->o->evs[ev];
	const struct kp_counter_target *t = &c->targets[ti];
	int group_fd = -1, fd, first;

	if (grouped_member(c, ev)) {
		group_fd = c->fds[(size_t)e->group_leader * c->nr_targets + ti];
		if (group_fd < 0)
			return 0; /* the leader's thread ended before it could be opened */
	}
	fd = first = kp_perf_open(&e->attr, t->pid, t->cpu, group_fd);
	if (fd < 0 && kp_perf_is_unsupported(fd) && may_be_unsupported(e)) {
		c->ev[ev].unsupported = true;
		if ((size_t)e->group_leader == ev && ev + 1 < c->o->nr_evs &&
		    c->o->evs[ev + 1].group_leader == (int)ev)
			kp_notice("'%s' leads a group but is not supported here: the rest of its "
				  "group counts without it", e->spec);
		return 0;
	}
	if ((fd == -EACCES || fd == -EPERM) && kp_evspec_user_only(e)) {
		fd = kp_perf_open(&e->attr, t->pid, t->cpu, group_fd);
		if (fd >= 0)
			kp_notice("kernel events are not permitted: counting '%s' in user space "
				  "only", e->spec);
		c->ev[ev].user_only = true;
	}
	if (fd == -ESRCH && t->cpu < 0)
		return 0; /* a thread of a -p process ended since /proc listed it */
	if (fd < 0) {
		/* when user space only fails too, the first refusal is the one to explain */
		explain_open(c, ev, c->ev[ev].user_only ? first : fd);
		return 1;
	}
	c->fds[ev * c->nr_targets + ti] = fd;
	return e->filter ? apply_filter(fd, e) : 0;
}

static int open_counters(struct kp_counter *c)
{
	const struct kp_counter_opts *o = c->o;
	size_t n = o->nr_evs * c->nr_targets;

	c->fds = kp_xcalloc(n, sizeof(*c->fds));
	c->now = kp_xcalloc(n, sizeof(*c->now));
	c->ev = kp_xcalloc(o->nr_evs, sizeof(*c->ev));
	for (size_t i = 0; i < n; i++)
		c->fds[i] = -1;
	/* a leader comes before its members, so their group_fd is open when they are */
	for (size_t ev = 0; ev < o->nr_evs; ev++) {
		build_attr(c, ev);
		for (int ti = 0; ti < c->nr_targets && !c->ev[ev].unsupported; ti++)
			if (open_one(c, ev, ti))
				return 1;
	}
	return 0;
}

void kp_counter_read(struct kp_counter *c)
{
	for (size_t i = 0; i < c->o->nr_evs * c->nr_targets; i++) {
		uint64_t v[3];
		if (c->fds[i] >= 0 && read(c->fds[i], v, sizeof(v)) == sizeof(v))
			c->now[i] = (struct kp_counter_count){ v[0], v[1], v[2] };
	}
}

/* ---- waiting ------------------------------------------------------------------------------ */

static int pidfd_of(pid_t pid)
{
#ifdef SYS_pidfd_open
	long fd = syscall(SYS_pidfd_open, pid, 0);

	return fd < 0 ? -errno : (int)fd;
#else
	(void)pid;
	return -ENOSYS;
#endif
}

/* What kp_counter_wait() polls: the command's or the processes' pidfds (readable at exit). */
static int setup_waits(struct kp_counter *c)
{
	const struct kp_counter_opts *o = c->o;

	c->nr_waits = o->argv ? 1 : o->nr_pids;
	c->waits = kp_xcalloc(c->nr_waits ? c->nr_waits : 1, sizeof(*c->waits));
	c->wait_pids = kp_xcalloc(c->nr_waits ? c->nr_waits : 1, sizeof(*c->wait_pids));
	for (int i = 0; i < c->nr_waits; i++) {
		pid_t pid = o->argv ? c->child.pid : o->pids[i];
		int fd = pidfd_of(pid);
		if (fd == -ESRCH)
			return kp_error("cannot find process %d: no such process", (int)pid);
		c->waits[i] = (struct pollfd){ .fd = fd < 0 ? -1 : fd, .events = POLLIN };
		c->wait_pids[i] = pid;
	}
	c->nr_alive = c->nr_waits;
	return 0;
}

/* Account for ended processes: reap the command (with its rusage), count the -p ones. */
static void check_waits(struct kp_counter *c)
{
	if (c->o->argv) {
		c->nr_alive = !kp_child_reap(&c->child);
		return;
	}
	for (int i = 0; i < c->nr_waits; i++) {
		struct pollfd *p = &c->waits[i];
		bool ended = p->fd >= 0 ? (p->revents & (POLLIN | POLLHUP)) != 0
					: kill(c->wait_pids[i], 0) < 0 && errno == ESRCH;
		if (ended && c->wait_pids[i] > 0) {
			c->wait_pids[i] = 0;
			if (p->fd >= 0)
				close(p->fd);
			p->fd = -1;
			c->nr_alive--;
		}
	}
}

bool kp_counter_wait(struct kp_counter *c, int timeout_ms)
{
	bool stop_on_signal = !c->o->argv;

	/* a signal that comes between the check and poll(), and without pidfds (Linux < 5.3)
	 * a process's end, are seen at the latest this much later */
	if (timeout_ms < 0 || timeout_ms > 250)
		timeout_ms = 250;
	if (!(kp_child_signals() && stop_on_signal))
		poll(c->waits, c->nr_waits, timeout_ms);
	check_waits(c);
	if ((c->nr_waits && !c->nr_alive) || (kp_child_signals() && stop_on_signal))
		return false;
	if (kp_child_signals() > 1 && !c->killed) {
		kp_notice("interrupted again: stopping '%s'", c->o->argv[0]);
		kill(c->child.pid, SIGKILL);
		c->killed = true;
	}
	return true;
}

/* ---- the run ------------------------------------------------------------------------------ */

int kp_counter_start(struct kp_counter *c, const struct kp_counter_opts *o)
{
	memset(c, 0, sizeof(*c));
	c->o = o;
	c->child.go_fd = c->child.exec_fd = -1;
	kp_child_signals_install();
	if (o->argv && kp_child_start(&c->child, o->argv))
		return 1;
	if (setup_targets(c) || open_counters(c) || setup_waits(c))
		return 1;
	if (o->system_wide || o->nr_pids)
		for (size_t i = 0; i < o->nr_evs * c->nr_targets; i++)
			if (c->fds[i] >= 0)
				ioctl(c->fds[i], PERF_EVENT_IOC_ENABLE, 0);
	clock_gettime(CLOCK_MONOTONIC, &c->t0);
	return o->argv ? kp_child_release(&c->child, o->argv[0]) : 0;
}

int kp_counter_exit_code(const struct kp_counter *c)
{
	return c->o->argv ? kp_child_exit_code(c->child.status) : 0;
}

void kp_counter_release(struct kp_counter *c)
{
	kp_child_kill(&c->child);
	for (size_t i = 0; c->fds && i < c->o->nr_evs * c->nr_targets; i++)
		if (c->fds[i] >= 0)
			close(c->fds[i]);
	for (int i = 0; c->waits && i < c->nr_waits; i++)
		if (c->waits[i].fd >= 0)
			close(c->waits[i].fd);
	free(c->targets);
	free(c->fds);
	free(c->now);
	free(c->ev);
	free(c->waits);
	free(c->wait_pids);
}
