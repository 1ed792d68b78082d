/* SPDX-License-Identifier: MIT */
/*
 * sched-show.c - the scheduler's view as perf sched's latency, timehist and map print it
 * (sched.h).
 */
#include <stdlib.h>
#include <string.h>

#include "formats/util.h"
#include "report/base/text.h"
#include "sched.h"

/* A time as perf sched prints it: seconds with 6 decimals. */
static void put_time(FILE *out, int width, uint64_t ns)
{
	char buf[48];

	snprintf(buf, sizeof(buf), "%llu.%06llu", (unsigned long long)(ns / 1000000000),
		 (unsigned long long)(ns % 1000000000 / 1000));
	fprintf(out, "%*s", width, buf);
}

/* "comm[tid]", or "comm[tid/pid]" for a thread of another's process, escaped. */
static void task_label(const struct kp_sched *m, const struct kp_sched_task *t, char *buf,
		       size_t size)
{
	char name[64];

	kp_text_escape(kp_sched_name(m, t), name, sizeof(name));
	if (t->cpu >= 0)
		snprintf(buf, size, "%s", name);
	else if (t->pid && t->pid != t->tid)
		snprintf(buf, size, "%s[%u/%u]", name, t->tid, t->pid);
	else
		snprintf(buf, size, "%s[%u]", name, t->tid);
}

/* @ns as ms with 3 decimals, the µs truncated as perf sched prints them, right-aligned in
 * @width. */
static void put_ms(FILE *out, int width, uint64_t ns)
{
	char buf[48];

	snprintf(buf, sizeof(buf), "%llu.%03llu", (unsigned long long)(ns / 1000000),
		 (unsigned long long)(ns % 1000000 / 1000));
	fprintf(out, "%*s", width, buf);
}

void kp_sched_timehist_head(FILE *out)
{
	fprintf(out, "%15s %6s  %-30s  %9s  %9s  %9s\n", "time", "cpu", "task name", "wait time",
		"sch delay", "run time");
	fprintf(out, "%15s %6s  %-30s  %9s  %9s  %9s\n", "", "", "[tid/pid]", "(msec)", "(msec)",
		"(msec)");
	fprintf(out, "--------------- ------  ------------------------------  ---------  ---------  "
		     "---------\n");
}

void kp_sched_timehist_row(FILE *out, const struct kp_sched *m, const struct kp_sched_switch *sw)
{
	char label[128];

	task_label(m, sw->prev, label, sizeof(label));
	put_time(out, 15, sw->time);
	fprintf(out, " [%04u]  %-30s", sw->cpu, label);
	put_ms(out, 11, sw->wait);
	put_ms(out, 11, sw->delay);
	put_ms(out, 11, sw->run);
	fputc('\n', out);
}

void kp_sched_map_row(FILE *out, const struct kp_sched *m, const struct kp_sched_switch *sw)
{
	fputs("  ", out);
	for (size_t c = 0; c < m->nr_cpus; c++) {
		const struct kp_sched_task *t = m->cpu_task[c] ? &m->tasks[m->cpu_task[c] - 1] : NULL;

		fprintf(out, "%c%-2s ", c == sw->cpu ? '*' : ' ', t ? t->short_name : "");
	}
	fputs("  ", out);
	put_time(out, 12, sw->time);
	fputs(" secs ", out);
	if (sw->named) {
		fprintf(out, "%-2s => ", sw->next->short_name);
		kp_text_put(out, 0, sw->next->cpu >= 0 ? "swapper" : kp_sched_name(m, sw->next));
		fprintf(out, ":%u", sw->next->tid);
	}
	fputc('\n', out);
}

/* A row of the latency table: one task, or a command's tasks merged. */
struct lat_row {
	const struct kp_sched_task *t;	/* the first (its name and tid) */
	size_t merged;
	uint64_t run_ns, delays, delay_ns, max, max_from, max_to;
};

/* A command's key: FNV-1a over its name (two names of one recording meet with a chance of
 * about n^2 / 2^65). */
static uint64_t name_key(const char *name)
{
	uint64_t h = 14695981039346656037ull;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 1099511628211ull;
	return h;
}

static int by_avg(const void *a, const void *b)
{
	const struct lat_row *x = a, *y = b;
	uint64_t ax = x->delay_ns / x->delays, ay = y->delay_ns / y->delays;

	if (ax != ay)
		return ax < ay ? 1 : -1;
	if (x->max != y->max)
		return x->max < y->max ? 1 : -1;
	return (x->t->tid > y->t->tid) - (x->t->tid < y->t->tid);
}

void kp_sched_latency(FILE *out, const struct kp_sched *m, const struct kp_sched_filter *f,
		      bool by_task)
{
	static const char line[] = " ----------------------------------------------------------------"
				   "----------------------------------------------------------------"
				   "-----------\n";
	struct lat_row *rows = kp_xcalloc(m->nr ? m->nr : 1, sizeof(*rows));
	struct kp_hash by_comm;
	size_t nr = 0;
	uint64_t run = 0, delays = 0;

	kp_hash_init(&by_comm);
	for (size_t i = 0; i < m->nr; i++) {
		const struct kp_sched_task *t = &m->tasks[i];
		struct lat_row *r;
		bool added = true;

		if (t->cpu >= 0 || !t->delays || !kp_sched_keep(m, f, t))
			continue;
		r = &rows[by_task ? nr : *kp_hash_add(&by_comm, name_key(kp_sched_name(m, t)), nr,
						      &added)];
		if (added) {
			*r = (struct lat_row){ .t = t };
			nr++;
		}
		r->merged++;
		r->run_ns += t->run_ns;
		r->delays += t->delays;
		r->delay_ns += t->delay_ns;
		if (t->delay_max > r->max || r->merged == 1) {
			r->max = t->delay_max;
			r->max_from = t->delay_max_from;
			r->max_to = t->delay_max_to;
		}
	}
	kp_hash_release(&by_comm);
	qsort(rows, nr, sizeof(*rows), by_avg);
	fprintf(out, "\n%s  %-22s|   Runtime ms  | Switches | Avg delay ms    | Max delay ms    | "
		     "Max delay start           | Max delay end          |\n%s", line, "Task", line);
	for (size_t i = 0; i < nr; i++) {
		const struct lat_row *r = &rows[i];
		char name[64], label[96];

		kp_text_escape(kp_sched_name(m, r->t), name, sizeof(name));
		if (r->merged > 1)
			snprintf(label, sizeof(label), "%s:(%zu)", name, r->merged);
		else
			snprintf(label, sizeof(label), "%s:%u", name, r->t->tid);
		fprintf(out, "  %-22s|%11.3f ms |%9llu | avg:%8.3f ms | max:%8.3f ms | max start: ",
			label, r->run_ns / 1e6, (unsigned long long)r->delays,
			(double)(r->delay_ns / r->delays) / 1e6, r->max / 1e6);
		put_time(out, 12, r->max_from);
		fputs(" s | max end: ", out);
		put_time(out, 12, r->max_to);
		fputs(" s\n", out);
		run += r->run_ns;
		delays += r->delays;
	}
	fprintf(out, "%s  %-22s|%11.3f ms |%9llu |\n ---------------------------------------------------\n",
		line, "TOTAL:", run / 1e6, (unsigned long long)delays);
	free(rows);
}

void kp_sched_summary(FILE *out, const struct kp_sched *m, const struct kp_sched_filter *f)
{
	fprintf(out, "\n%-30s %7s %11s %10s %11s %11s %11s %7s %11s %10s %10s\n", "task", "runs",
		"run time", "max run", "sleep", "iowait", "preempted", "delays", "sch delay",
		"max delay", "unsure");
	fprintf(out, "%-30s %7s %11s %10s %11s %11s %11s %7s %11s %10s %10s\n", "[tid/pid]", "",
		"(msec)", "(msec)", "(msec)", "(msec)", "(msec)", "", "(msec)", "(msec)", "(msec)");
	for (size_t i = 0; i < m->nr; i++) {
		const struct kp_sched_task *t = &m->tasks[i];
		char label[128];

		if (!t->runs || !kp_sched_keep(m, f, t))
			continue;
		task_label(m, t, label, sizeof(label));
		fprintf(out, "%-30s %7llu %11.3f %10.3f %11.3f %11.3f %11.3f %7llu %11.3f %10.3f "
			     "%10.3f\n", label, (unsigned long long)t->runs, t->run_ns / 1e6,
			t->run_max / 1e6, t->sleep_ns / 1e6, t->iowait_ns / 1e6, t->preempt_ns / 1e6,
			(unsigned long long)t->delays, t->delay_ns / 1e6, t->delay_max / 1e6,
			t->unsure_ns / 1e6);
	}
}
