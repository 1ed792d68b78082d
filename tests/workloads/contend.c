/* SPDX-License-Identifier: MIT */
/*
 * contend.c - a thread that waits for a kernel lock another holds for a known time, for the
 * lock contention pair of kprof latency (lock:contention_begin/end). Each round, hold_pipe()
 * writes one page into a pipe from a page registered with userfaultfd: pipe_write() takes the
 * pipe's mutex and, copying the page in, faults; the fault waits for this program's handler,
 * which sleeps HOLD_MS before it supplies the page, and the mutex stays held all that time.
 * Once the handler has the fault, wait_behind() writes one byte into the same pipe, and waits
 * for the mutex. The main thread (the waiter) drains the pipe after its write, and the holder
 * starts the next round once it has. wait_behind() measures its
 * write (CLOCK_MONOTONIC around it): the program prints each one in ns, and what the rounds
 * asked to hold, in waits_ns= and held_ns= (comma-separated). The system calls are made from
 * those functions themselves, so that a frame-pointer call chain taken in the kernel names
 * them. userfaultfd for faults in the kernel's copies needs root (or
 * vm.unprivileged_userfaultfd=1): without it, the program says so and exits 77.
 *
 * usage: contend [ROUNDS] [HOLD_MS]   (default 5 10)
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "clocks.h"

static int fds[2], uffd;
static long rounds = 5, hold_ms = 10, page;
static char *region;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long faulted;		/* faults the handler has taken */
static long waited;		/* rounds the waiter has written */

/* The holder: a page into the pipe from the region, whose fault the handler delays. */
__attribute__((noinline)) static long hold_pipe(long r)
{
	return sys3(SYS_write, fds[1], (long)(region + r * page), page);
}

/* The waiter: a byte into the pipe, behind the holder's mutex. */
__attribute__((noinline)) static long wait_behind(void)
{
	char c = 'w';

	return sys3(SYS_write, fds[1], (long)&c, 1);
}

/* Each round once the waiter is through the last: a holder that went on at once could take
 * the mutex again before the waiter had it. */
static void *holder(void *arg)
{
	(void)arg;
	for (long r = 0; r < rounds; r++) {
		pthread_mutex_lock(&mu);
		while (waited < r)
			pthread_cond_wait(&cv, &mu);
		pthread_mutex_unlock(&mu);
		if (hold_pipe(r) != page)
			exit(1);
	}
	return NULL;
}

/* Each fault: say so, sleep HOLD_MS, then supply a page of zeroes. */
static void *handler(void *arg)
{
	struct uffd_msg msg;
	struct pollfd p = { .fd = uffd, .events = POLLIN };

	(void)arg;
	for (long r = 0; r < rounds; r++) {
		struct timespec ts = { hold_ms / 1000, (hold_ms % 1000) * 1000000 };
		struct uffdio_zeropage z;

		if (poll(&p, 1, -1) != 1 || read(uffd, &msg, sizeof(msg)) != sizeof(msg) ||
		    msg.event != UFFD_EVENT_PAGEFAULT)
			exit(1);
		pthread_mutex_lock(&mu);
		faulted++;
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
		nanosleep(&ts, NULL);
		z.range.start = msg.arg.pagefault.address & ~(uint64_t)(page - 1);
		z.range.len = (uint64_t)page;
		z.mode = 0;
		if (ioctl(uffd, UFFDIO_ZEROPAGE, &z))
			exit(1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	pthread_t th, tw;
	char *drain;
	uint64_t *waits;

	rounds = argc > 1 ? atol(argv[1]) : rounds;
	hold_ms = argc > 2 ? atol(argv[2]) : hold_ms;
	page = sysconf(_SC_PAGESIZE);
	if (rounds < 1 || rounds > 1000 || hold_ms < 1 || pipe(fds))
		return 2;
	uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api)) {
		fprintf(stderr, "contend: userfaultfd: %s\n", strerror(errno));
		return 77;
	}
	region = mmap(NULL, (size_t)(rounds * page), PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	reg.range.start = (uint64_t)(uintptr_t)region;
	reg.range.len = (uint64_t)(rounds * page);
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	drain = malloc((size_t)page + 1);
	waits = calloc((size_t)rounds, sizeof(*waits));
	if (region == MAP_FAILED || ioctl(uffd, UFFDIO_REGISTER, &reg) || !drain || !waits ||
	    pthread_create(&tw, NULL, handler, NULL) || pthread_create(&th, NULL, holder, NULL))
		return 1;
	for (long r = 0; r < rounds; r++) {
		uint64_t t;
		long got = 0;

		pthread_mutex_lock(&mu); /* the holder's copy has faulted: its mutex is held */
		while (faulted <= r)
			pthread_cond_wait(&cv, &mu);
		pthread_mutex_unlock(&mu);
		t = ns_of(CLOCK_MONOTONIC);
		if (wait_behind() != 1)
			return 1;
		waits[r] = ns_of(CLOCK_MONOTONIC) - t;
		while (got < page + 1) { /* the round's page and byte, whatever their order */
			long n = read(fds[0], drain, (size_t)(page + 1 - got));

			if (n <= 0)
				return 1;
			got += n;
		}
		pthread_mutex_lock(&mu); /* the next round: the pipe is empty, its mutex free */
		waited++;
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&mu);
	}
	pthread_join(th, NULL);
	pthread_join(tw, NULL);
	printf("waits_ns=");
	for (long r = 0; r < rounds; r++)
		printf("%s%llu", r ? "," : "", (unsigned long long)waits[r]);
	printf("\nheld_ns=");
	for (long r = 0; r < rounds; r++)
		printf("%s%llu", r ? "," : "", (unsigned long long)hold_ms * 1000000u);
	printf("\n");
	return 0;
}
