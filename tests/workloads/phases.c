/* SPDX-License-Identifier: MIT */
/*
 * phases.c - a program whose two phases take the same CPU time and not the same wall-clock
 * time, for report --latency: one() spins CPU_MS of CPU on the main thread alone, then THREADS
 * threads spin CPU_MS / THREADS each in four(), all at once.
 *
 * Its own clocks say how much of each phase some thread of it ran: each thread takes a
 * checkpoint (CLOCK_MONOTONIC and its CLOCK_THREAD_CPUTIME_ID) every few microseconds of CPU,
 * and a stretch between two checkpoints whose wall time is its CPU time (within 10 µs) ran
 * whole; one that took longer was switched out in between, and counts for nothing (the few µs
 * it ran are lost, a small error against the milliseconds of a time slice). The union of the
 * threads' stretches is the phase's latency as report --latency weighs it (each sample's share
 * divided by the threads then running adds up to the time with one thread or more on a CPU);
 * the sweep over them gives the time with 1, 2, ... threads at once. It prints, in ns, each
 * phase's CPU time (cpu), its latency (run) and wall time (wall), and par_N, the time with N
 * threads running.
 *
 * usage: phases [CPU_MS] [THREADS]   (default 100 4)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "clocks.h"

#define MAX_THREADS 16

struct stretch {
	uint64_t from, to;
};

struct worker {
	pthread_t th;
	uint64_t cpu_ns;		/* to spin */
	struct stretch *s;		/* the stretches it ran whole */
	size_t nr, cap;
	uint64_t cpu;			/* what it spun, by its clock */
};

/* Spin @w->cpu_ns of CPU, keeping the stretches that ran whole: in the function that calls it,
 * so that the samples fall in one() and four() themselves. */
__attribute__((always_inline)) static inline void spin(struct worker *w, uint64_t odd)
{
	uint64_t c0 = ns_of(CLOCK_THREAD_CPUTIME_ID), t = ns_of(CLOCK_MONOTONIC), c = c0;
	volatile uint64_t x = 1;

	while (c - c0 < w->cpu_ns) {
		uint64_t t2, c2;

		for (int i = 0; i < 2000; i++)
			x = x * 6364136223846793005ull + odd;
		t2 = ns_of(CLOCK_MONOTONIC);
		c2 = ns_of(CLOCK_THREAD_CPUTIME_ID);
		if (t2 - t <= c2 - c + 10000) {
			if (w->nr == w->cap) {
				w->cap = w->cap ? 2 * w->cap : 4096;
				w->s = realloc(w->s, w->cap * sizeof(*w->s));
				if (!w->s)
					exit(1);
			}
			w->s[w->nr++] = (struct stretch){ t, t2 };
		}
		t = t2;
		c = c2;
	}
	w->cpu = c - c0;
}

/* (their loops differ, so that no compiler folds the two into one function) */
__attribute__((noinline)) static void one(struct worker *w)
{
	spin(w, 1);
}

__attribute__((noinline)) static void four(struct worker *w)
{
	spin(w, 3);
}

static void *run_four(void *arg)
{
	four(arg);
	return NULL;
}

static int by_from(const void *a, const void *b)
{
	const struct stretch *x = a, *y = b;

	return (x->from > y->from) - (x->from < y->from);
}

/* A phase's latency (the union of its workers' stretches) and the time with N of them
 * running (into par[N]); its CPU time too. */
static void measure(struct worker *w, int n, uint64_t *run, uint64_t *cpu, uint64_t *par)
{
	struct stretch *ev;
	size_t nr = 0, k = 0;
	int running = 0;
	uint64_t at = 0;

	*run = *cpu = 0;
	for (int i = 0; i < n; i++) {
		nr += w[i].nr;
		*cpu += w[i].cpu;
	}
	/* a sweep over the starts (from) and ends (to, as from with to = 0) of the stretches */
	ev = malloc((2 * nr + 1) * sizeof(*ev));
	if (!ev)
		exit(1);
	for (int i = 0; i < n; i++)
		for (size_t j = 0; j < w[i].nr; j++) {
			ev[k++] = (struct stretch){ w[i].s[j].from, 1 };
			ev[k++] = (struct stretch){ w[i].s[j].to, 0 };
		}
	qsort(ev, k, sizeof(*ev), by_from);
	for (size_t i = 0; i < k; i++) {
		if (running > 0) {
			par[running < MAX_THREADS ? running : MAX_THREADS] += ev[i].from - at;
			*run += ev[i].from - at;
		}
		at = ev[i].from;
		running += ev[i].to ? 1 : -1;
	}
	free(ev);
}

int main(int argc, char **argv)
{
	long cpu_ms = argc > 1 ? atol(argv[1]) : 100, n = argc > 2 ? atol(argv[2]) : 4;
	struct worker main_w = { 0 }, w[MAX_THREADS] = { { 0 } };
	uint64_t par[MAX_THREADS + 1] = { 0 }, run, cpu, t;

	if (n < 1 || n > MAX_THREADS || cpu_ms < 1)
		return 2;
	main_w.cpu_ns = (uint64_t)cpu_ms * 1000000u;
	t = ns_of(CLOCK_MONOTONIC);
	one(&main_w);
	measure(&main_w, 1, &run, &cpu, par);
	printf("one_cpu_ns=%llu\none_run_ns=%llu\none_wall_ns=%llu\n", (unsigned long long)cpu,
	       (unsigned long long)run, (unsigned long long)(ns_of(CLOCK_MONOTONIC) - t));
	t = ns_of(CLOCK_MONOTONIC);
	for (long i = 0; i < n; i++) {
		w[i].cpu_ns = main_w.cpu_ns / (uint64_t)n;
		if (pthread_create(&w[i].th, NULL, run_four, &w[i]))
			return 1;
	}
	for (long i = 0; i < n; i++)
		pthread_join(w[i].th, NULL);
	t = ns_of(CLOCK_MONOTONIC) - t;
	measure(w, (int)n, &run, &cpu, par);
	printf("four_cpu_ns=%llu\nfour_run_ns=%llu\nfour_wall_ns=%llu\n", (unsigned long long)cpu,
	       (unsigned long long)run, (unsigned long long)t);
	for (int i = 1; i <= MAX_THREADS; i++)
		if (par[i])
			printf("par_%d_ns=%llu\n", i, (unsigned long long)par[i]);
	return 0;
}
