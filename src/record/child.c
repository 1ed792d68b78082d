/* SPDX-License-Identifier: MIT */
#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diag.h"

/* Signal state: the only globals, as signal handlers need them. */
static volatile sig_atomic_t nr_signals, last_signal, nr_usr2;
static volatile pid_t signal_child;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	nr_signals++;
	last_signal = sig;
	if (signal_child > 0 && (si->si_code == SI_USER || si->si_code == SI_QUEUE))
		kill(signal_child, sig);
}

static void on_sigchld(int sig)
{
	(void)sig; /* only interrupts poll() */
}

static void on_usr2(int sig)
{
	(void)sig;
	nr_usr2++;
}

void kp_child_usr2_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr2; /* no SA_RESTART: it interrupts poll() */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR2, &sa, NULL);
}

int kp_child_usr2(void)
{
	return nr_usr2;
}

void kp_child_signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_flags = 0;
	sa.sa_handler = on_sigchld;
	sigaction(SIGCHLD, &sa, NULL);
	/* a file size limit is a write error (EFBIG) to report, not a reason to die */
	signal(SIGXFSZ, SIG_IGN);
}

int kp_child_signals(void)
{
	return nr_signals;
}

int kp_child_last_signal(void)
{
	return last_signal;
}

/* The child: wait for the go byte, then exec; report an exec failure's errno to the parent. */
static void run_child(int go_rd, int exec_wr, char **argv, bool stdout_to_stderr)
{
	char c = 0;
	int err;

	/* the command's own dispositions from now: a Ctrl-C while kprof sets up ends this child,
	 * as it would end the command, instead of being counted here and lost */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	while (read(go_rd, &c, 1) < 0 && errno == EINTR)
		;
	if (c != 'g')
		_exit(127);
	signal(SIGXFSZ, SIG_DFL); /* ignored dispositions survive exec: give the command its own */
	/* a failed dup2 is said as an exec failure is: the parent names the command and why */
	if (!stdout_to_stderr || dup2(STDERR_FILENO, STDOUT_FILENO) >= 0)
		execvp(argv[0], argv);
	err = errno;
	if (write(exec_wr, &err, sizeof(err)) < 0)
		_exit(126);
	_exit(127);
}

int kp_child_start(struct kp_child *c, char **argv, bool stdout_to_stderr)
{
	int go[2], ex[2];

	memset(c, 0, sizeof(*c));
	c->go_fd = c->exec_fd = -1;
	if (pipe2(go, O_CLOEXEC) < 0)
		return kp_error("cannot create a pipe: %s", strerror(errno));
	if (pipe2(ex, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		return kp_error("cannot create a pipe: %s", strerror(errno));
	}
	c->pid = fork();
	if (c->pid < 0)
		return kp_error("cannot fork: %s", strerror(errno));
	if (c->pid == 0) {
		close(go[1]);
		close(ex[0]);
		run_child(go[0], ex[1], argv, stdout_to_stderr);
	}
	close(go[0]);
	close(ex[1]);
	c->go_fd = go[1];
	c->exec_fd = ex[0];
	signal_child = c->pid;
	return 0;
}

int kp_child_release(struct kp_child *c, const char *name)
{
	int err = 0;
	ssize_t n;
	void (*old)(int) = signal(SIGPIPE, SIG_IGN); /* a child that ended: EPIPE, said below */

	n = write(c->go_fd, "g", 1);
	signal(SIGPIPE, old);
	if (n != 1)
		return kp_error("cannot start '%s': %s", name, strerror(errno));
	close(c->go_fd);
	c->go_fd = -1;
	do
		n = read(c->exec_fd, &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(c->exec_fd);
	c->exec_fd = -1;
	if (n == sizeof(err)) {
		kp_child_wait(c);
		return kp_error("cannot run '%s': %s", name, strerror(err));
	}
	return 0;
}

bool kp_child_reap(struct kp_child *c)
{
	if (c->pid > 0 && !c->done && wait4(c->pid, &c->status, WNOHANG, &c->ru) == c->pid)
		c->done = true;
	return c->done;
}

void kp_child_wait(struct kp_child *c)
{
	while (c->pid > 0 && !c->done)
		if (wait4(c->pid, &c->status, 0, &c->ru) == c->pid || errno == ECHILD)
			c->done = true;
}

void kp_child_kill(struct kp_child *c)
{
	if (c->pid > 0 && !c->done) {
		kill(c->pid, SIGKILL);
		kp_child_wait(c);
	}
	if (c->go_fd >= 0)
		close(c->go_fd);
	if (c->exec_fd >= 0)
		close(c->exec_fd);
	c->go_fd = c->exec_fd = -1;
	signal_child = 0;
}

int kp_child_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}
