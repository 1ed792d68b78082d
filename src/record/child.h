/* SPDX-License-Identifier: MIT */
/*
 * child.h - the command kprof runs (record and stat): forked and held just before exec while
 * kprof opens its events, then let go; and the signals that concern it.
 *
 * SIGINT from the terminal reaches the whole foreground process group, the command included;
 * SIGINT, SIGTERM or SIGHUP sent to kprof alone are forwarded to the command. Either way
 * kp_child_signals() counts them, so callers decide when to stop (and to kill on a second).
 */
#ifndef KP_CHILD_H
#define KP_CHILD_H

#include <signal.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

struct kp_child {
	pid_t pid;		/* 0 when there is no command */
	int go_fd, exec_fd;	/* pipes to the held child */
	int status;		/* its wait status, once done */
	struct rusage ru;	/* its resource use (and its children's), once done */
	bool done;
};

/* kp_child_signals_install - handle SIGINT/SIGTERM/SIGHUP (count, forward), SIGCHLD (wake poll). */
void kp_child_signals_install(void);

/* kp_child_signals - how many stopping signals kprof got so far. */
int kp_child_signals(void);

/* kp_child_last_signal - the last of them (0: none). */
int kp_child_last_signal(void);

/* kp_child_usr2_install - count SIGUSR2 (record --switch-output: a new file), waking poll. */
void kp_child_usr2_install(void);

/* kp_child_usr2 - how many SIGUSR2 kprof got so far. */
int kp_child_usr2(void);

/*
 * kp_child_start - fork @argv's child, held before exec; forwarded signals go to it from now
 * on. With @stdout_to_stderr its standard output is kprof's standard error. Returns 0, or 1
 * after saying what failed.
 */
int kp_child_start(struct kp_child *c, char **argv, bool stdout_to_stderr);

/* kp_child_release - let it exec; 0 once it did, else 1 after saying why it could not. */
int kp_child_release(struct kp_child *c, const char *name);

/* kp_child_reap - true once the child has ended (WNOHANG). */
bool kp_child_reap(struct kp_child *c);

/* kp_child_wait - wait for it to end. kp_child_kill - end it (SIGKILL) if it still runs. */
void kp_child_wait(struct kp_child *c);
void kp_child_kill(struct kp_child *c);

/* kp_child_exit_code - a wait status as kprof's exit code: the status, or 128+N for signal N. */
int kp_child_exit_code(int status);

#endif /* KP_CHILD_H */
