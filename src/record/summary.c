/* SPDX-License-Identifier: MIT */
/*
 * summary.c - what a recording says when it ends (summary.h).
 */
#include "summary.h"

#include <sys/resource.h>

#include "diag.h"

/* Waits for the unwinding thread, and stacks that stopped before their thread's entry when
 * there are enough to mislead (unwound from copies of @copy bytes). */
static void warn_truncated(const struct kp_online *on, uint32_t copy)
{
	const struct kp_strtab *strs;
	uint64_t waits;
	const struct kp_unwind_stats *st = kp_online_stats(on, &strs, &waits);
	char what[512], where[512], hint[512];

	if (waits)
		kp_warn("the unwinding thread fell too far behind (256 MiB or 256 chunks queued): "
			"draining waited %llu times, and samples may have been lost",
			(unsigned long long)waits);
	if (!kp_unwind_truncation(st, strs, copy, what, where, hint, sizeof(what)))
		return;
	kp_warn("%s", what);
	if (*where)
		kp_warn("%s", where);
	if (*hint)
		kp_hint("%s", hint);
}

/* --off-cpu, --latency: the @switches recorded, and what recording them cost (this process's
 * CPU). */
static void off_cpu_summary(const char *what, uint64_t switches)
{
	struct rusage ru;
	double cpu = 0;

	if (!getrusage(RUSAGE_SELF, &ru))
		cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
		      (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	kp_notice("%s: %llu switch records (in and out), the recorder's CPU %.3f s in all", what,
		  (unsigned long long)switches, cpu);
}

void kp_record_summary(const struct kp_record_opts *o, const struct kp_online *online,
		       const struct kp_rec_unwind_stats *us, const struct kp_recorded *wr)
{
	double file_mib = wr->f.bytes / 1048576.0, raw_mib = wr->f.raw_bytes / 1048576.0;

	if (!o->quiet)
		kp_notice("recorded %llu samples, %llu lost, into %s: %.3f MiB (%.3f MiB raw, "
			  "%.1fx)", (unsigned long long)wr->f.samples, (unsigned long long)wr->f.lost,
			  wr->what, file_mib, raw_mib, file_mib > 0 ? raw_mib / file_mib : 0.0);
	if (online && !o->live)
		kp_notice("unwound %llu of %llu stack copies while recording (%.2f s of CPU); "
			  "%llu kept as copies for the report to unwind",
			  (unsigned long long)us->unwound, (unsigned long long)us->samples,
			  us->cpu_ns / 1e9, (unsigned long long)(us->kept_behind + us->kept_failed));
	/* (each file of --switch-output holds its own) */
	if (online && !o->live && !o->sw.on)
		warn_truncated(online, o->stack_user);
	if (us->kept_behind)
		kp_warn("unwinding fell behind: %llu samples kept their stack copies (a larger "
			"--unwind-backlog, or a lower -F, avoids it)",
			(unsigned long long)us->kept_behind);
	if (wr->f.lost && !o->live)
		kp_warn("%llu samples were lost: the rings overflowed; try a larger -m or a "
			"lower -F", (unsigned long long)wr->f.lost);
	if (wr->throttles)
		kp_warn("the kernel throttled sampling %llu times: lower -F or raise -c",
			(unsigned long long)wr->throttles);
	if (wr->relabeled || wr->foreign)
		kp_notice("%llu samples came with another tool's event id (the kernel shares one "
			  "sample's data between the tools that record the same software event or "
			  "tracepoint): %llu given back to their event, %llu left out",
			  (unsigned long long)(wr->relabeled + wr->foreign),
			  (unsigned long long)wr->relabeled, (unsigned long long)wr->foreign);
	if (o->off_cpu || o->latency)
		off_cpu_summary(o->off_cpu ? "off-CPU" : "latency", wr->switches);
}
