/* SPDX-License-Identifier: MIT */
/*
 * dynevent.c - kprof's uprobe events in tracefs: defined, removed at exit and on a signal, and
 * the stale ones of kprofs that are gone removed before the first is defined.
 */
#include "dynevent.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "formats/util.h"
#include "tracefs.h"

#define MAX_EVENTS 256
#define GROUP_PREFIX "kprof_"

/*
 * What this process defined, kept so that a signal handler can remove it: a fixed table of
 * ready-made removal lines, and the file they go to. @nr_events grows only once an entry is
 * complete.
 */
static struct {
	char event[64];
	char remove[128]; /* "-:kprof_PID/EVENT\n" */
} events[MAX_EVENTS];
static volatile sig_atomic_t nr_events;
static char uprobe_events[PATH_MAX], error_log[PATH_MAX];
static struct kp_tracefs tfs;
static pid_t owner;
static const int signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

/* Write @len bytes of @line to uprobe_events as one write: 0 or -errno. */
static int write_line(const char *line, size_t len)
{
	int fd = open(uprobe_events, O_WRONLY | O_APPEND | O_CLOEXEC), err = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, line, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	close(fd);
	return err;
}

/* Async-signal-safe: only open(), write(), close(), signal() and raise(). */
static void on_signal(int sig)
{
	if (getpid() == owner) {
		int fd = open(uprobe_events, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (fd >= 0) {
			for (sig_atomic_t i = 0; i < nr_events; i++)
				if (write(fd, events[i].remove, strlen(events[i].remove)) < 0)
					continue; /* in use: the next kprof removes it */
			close(fd);
		}
		nr_events = 0;
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

void kp_dynevent_remove_all(void)
{
	/* a child forked from kprof that exits must not take its parent's events */
	if (getpid() != owner)
		return;
	for (sig_atomic_t i = 0; i < nr_events; i++) {
		int err = write_line(events[i].remove, strlen(events[i].remove));
		if (err && err != -ENOENT)
			kp_warn("cannot remove probe event '" GROUP_PREFIX "%d/%s' from tracefs: %s: "
				"the next kprof that defines one will", (int)owner, events[i].event,
				err == -EBUSY ? "it is in use" : strerror(-err));
	}
	nr_events = 0;
}

static void remove_at_exit(void)
{
	kp_dynevent_remove_all();
}

/* Is the kprof of group kprof_@pid gone? A process of its number that runs may be it. */
static bool stale(long pid)
{
	return pid > 0 && pid <= INT_MAX && kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

/*
 * The events of kprof_PID groups whose kprof is gone: removed, and said. A line of
 * uprobe_events is "p:GROUP/EVENT PLACE ARGS" (or r:).
 */
static void remove_stale(void)
{
	char *text, *line, *save = NULL, removed[512] = "";
	size_t said = 0, nr = 0;

	if (kp_tracefs_read_text(uprobe_events, &text))
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char group[64], event[64], cmd[160];
		long pid;
		int err;
		if (sscanf(line, "%*1[pr]:%63[^/]/%63s", group, event) != 2 ||
		    strncmp(group, GROUP_PREFIX, strlen(GROUP_PREFIX)) ||
		    !group[strlen(GROUP_PREFIX)] ||
		    group[strlen(GROUP_PREFIX) + strspn(group + strlen(GROUP_PREFIX), "0123456789")])
			continue;
		pid = strtol(group + strlen(GROUP_PREFIX), NULL, 10);
		if (pid == owner || !stale(pid))
			continue;
		snprintf(cmd, sizeof(cmd), "-:%s/%s\n", group, event);
		err = write_line(cmd, strlen(cmd));
		if (err && err != -ENOENT) {
			kp_warn("cannot remove probe event '%s/%s', left in tracefs by kprof %ld, "
				"which no longer runs: %s", group, event, pid,
				err == -EBUSY ? "it is in use (another program has it open)"
					      : strerror(-err));
			continue;
		}
		nr++;
		if (said < sizeof(removed))
			said += (size_t)snprintf(removed + said, sizeof(removed) - said, "%s%s/%s",
						 said ? ", " : "", group, event);
	}
	free(text);
	if (nr)
		kp_notice("removed %zu probe event%s that kprof processes which no longer run left "
			  "in tracefs: %s", nr, nr == 1 ? "" : "s", removed);
}

/* The first definition: tracefs found, what is stale removed, the removal set up. */
static int start(const char *spec)
{
	int err, fd;

	if (uprobe_events[0])
		return 0;
	err = kp_tracefs_open(&tfs);
	if (err) {
		char why[256];
		kp_error("cannot define the probe of '%s': %s", spec,
			 kp_tracefs_strerror(&tfs, err, why, sizeof(why)));
		kp_hint("a probe that fetches values is a uprobe event of tracefs: %s",
			KP_TRACEFS_PERM_HINT);
		return err == -EACCES ? err : -ENODEV;
	}
	snprintf(uprobe_events, sizeof(uprobe_events), "%s/uprobe_events", tfs.dir);
	snprintf(error_log, sizeof(error_log), "%s/error_log", tfs.dir);
	fd = open(uprobe_events, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		if (err == -ENOENT)
			kp_error("cannot define the probe of '%s': this kernel has no uprobe events "
				 "(%s is missing: CONFIG_UPROBE_EVENTS is off)", spec, uprobe_events);
		else
			kp_error("cannot define the probe of '%s': cannot write '%s': %s", spec,
				 uprobe_events, strerror(-err));
		if (err == -EROFS)
			kp_hint("tracefs is mounted read-only; a probe that fetches no values "
				"(uprobe:PATH:FUNC alone) needs no tracefs");
		else if (err == -EACCES || err == -EPERM)
			kp_hint("defining uprobe events needs root");
		uprobe_events[0] = '\0';
		return err == -ENOENT ? -ENODEV : err;
	}
	close(fd);
	owner = getpid();
	remove_stale();
	atexit(remove_at_exit);
	for (size_t i = 0; i < ARRAY_SIZE(signals); i++) {
		struct sigaction old;
		if (sigaction(signals[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
			signal(signals[i], on_signal);
	}
	return 0;
}

/* @name as tracefs takes it, unique among ours, into @out (64 bytes). */
static void event_name(const char *name, char *out)
{
	char base[48];
	size_t n = 0;

	for (const char *p = name; *p && n < sizeof(base) - 1; p++)
		base[n++] = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
				    (*p >= '0' && *p <= '9') ? *p : '_';
	base[n] = '\0';
	if (!n || (base[0] >= '0' && base[0] <= '9'))
		snprintf(base, sizeof(base), "probe%.40s", n ? name : "");
	for (unsigned k = 0;; k++) {
		bool used = false;
		if (k)
			snprintf(out, 64, "%s_%u", base, k);
		else
			snprintf(out, 64, "%s", base);
		for (sig_atomic_t i = 0; i < nr_events && !used; i++)
			used = !strcmp(events[i].event, out);
		if (!used)
			return;
	}
}

/*
 * Why the kernel refused @cmd: the last entry of error_log, if it is about @cmd, as "REASON
 * (at 'TOKEN')" into @why. Its entries are "[time] trace_uprobe: error: REASON", then
 * "  Command: CMD", then a caret under where CMD went wrong.
 */
static void kernel_reason(const char *cmd, char *why, size_t len)
{
	char *text, *reason = NULL, *p;

	why[0] = '\0';
	if (kp_tracefs_read_text(error_log, &text))
		return;
	for (p = text; (p = strstr(p, "error: ")); p++)
		reason = p;
	if (reason) {
		char *eol = strchr(reason, '\n'), *command = eol ? strstr(eol, "Command: ") : NULL;
		char *cmd_end = command ? strchr(command, '\n') : NULL;
		size_t clen = strcspn(cmd, "\n");
		if (eol && command && cmd_end && (size_t)(cmd_end - command - 9) == clen &&
		    !strncmp(command + 9, cmd, clen)) {
			char *caret = strchr(cmd_end + 1, '^');
			long col = caret ? (long)(caret - (cmd_end + 1)) - (long)(command + 9 - (eol + 1))
					 : -1;
			*eol = '\0';
			if (col >= 0 && (size_t)col < clen) {
				const char *tok = cmd + col;
				while (tok > cmd && tok[-1] != ' ')
					tok--;
				snprintf(why, len, "%s (at '%.*s')", reason + 7,
					 (int)strcspn(tok, " \n"), tok);
			} else {
				snprintf(why, len, "%s", reason + 7);
			}
		}
	}
	free(text);
}

int kp_dynevent_add(const char *spec, const char *name, bool ret, const char *const *defs,
		    size_t nr, struct kp_dynevent *ev)
{
	struct kp_tracepoint *tp = NULL;
	size_t ntp = 0;
	int err = start(spec);

	memset(ev, 0, sizeof(*ev));
	if (err)
		return err;
	if (nr_events == MAX_EVENTS) {
		kp_error("cannot define the probe of '%s': kprof defines at most %d", spec,
			 MAX_EVENTS);
		return -ENOSPC;
	}
	snprintf(ev->sys, sizeof(ev->sys), GROUP_PREFIX "%d", (int)owner);
	event_name(name, ev->event);
	for (size_t i = 0; i < nr && !err; i++) {
		char *cmd;
		if (asprintf(&cmd, "%c:%s/%s %s\n", ret ? 'r' : 'p', ev->sys, ev->event,
			     defs[i]) < 0)
			kp_die("out of memory");
		err = write_line(cmd, strlen(cmd));
		if (err) {
			char why[512];
			kernel_reason(cmd, why, sizeof(why));
			kp_error("the kernel refused the probe of '%s': %s", spec,
				 why[0] ? why : strerror(-err));
			kp_hint("what it was given: %.*s", (int)strcspn(cmd, "\n"), cmd);
		}
		free(cmd);
	}
	if (!err) {
		err = kp_tracefs_events(&tfs, ev->sys, ev->event, true, &tp, &ntp);
		if (!err && ntp != 1)
			err = -ENOENT;
		if (err)
			kp_error("cannot read the id of probe event '%s/%s' in '%s': %s", ev->sys,
				 ev->event, tfs.dir, strerror(-err));
		else
			ev->id = tp[0].id;
		kp_tracefs_free(tp, ntp);
	}
	/* registered even when a later place failed, so that what was defined goes now */
	snprintf(events[nr_events].event, sizeof(events[0].event), "%s", ev->event);
	snprintf(events[nr_events].remove, sizeof(events[0].remove), "-:%s/%s\n", ev->sys,
		 ev->event);
	nr_events++;
	if (err) {
		nr_events--;
		write_line(events[nr_events].remove, strlen(events[nr_events].remove));
	}
	return err;
}
