/* SPDX-License-Identifier: MIT */
/*
 * counter.c - the counting engine of `kprof stat`: a command held before exec, its events
 * opened by evset.c to count, their reads, and the wait for the end.
 */

#include "counter.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "diag.h"
#include "formats/util.h"

/* ---- counters ----------------------------------------------------------------------------- */

static int open_counters(struct kp_counter *c)
{
	const struct kp_counter_opts *o = c->o;
	struct kp_evset_opts so = {
		.evs = o->evs, .nr_evs = o->nr_evs, .command = c->child.pid,
		.system_wide = o->system_wide, .cpus = o->cpus, .nr_cpus = o->nr_cpus,
		.pids = o->pids, .nr_pids = o->nr_pids, .doing = "counting",
	};

	for (size_t ev = 0; ev < o->nr_evs; ev++)
		o->evs[ev].attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
					      PERF_FORMAT_TOTAL_TIME_RUNNING;
	if (kp_evset_open(&c->set, &so))
		return 1;
	c->now = kp_xcalloc(kp_evset_nr_fds(&c->set), sizeof(*c->now));
	return 0;
}

void kp_counter_read(struct kp_counter *c)
{
	for (size_t i = 0; i < kp_evset_nr_fds(&c->set); i++) {
		uint64_t v[3];
		if (c->set.fds[i] >= 0 && read(c->set.fds[i], v, sizeof(v)) == sizeof(v))
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

	c->nr_waits = o->argv ? 1 : (int)o->nr_pids;
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
	if (o->argv && kp_child_start(&c->child, o->argv, false))
		return 1;
	/* the processes' pidfds first: one that ends while the events open is then an end to
	 * count up to, not a process that was never there */
	if (setup_waits(c) || open_counters(c) || kp_evset_enable(&c->set))
		return 1;
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
	kp_evset_release(&c->set);
	for (int i = 0; c->waits && i < c->nr_waits; i++)
		if (c->waits[i].fd >= 0)
			close(c->waits[i].fd);
	free(c->now);
	free(c->waits);
	free(c->wait_pids);
}
