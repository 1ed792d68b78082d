/* SPDX-License-Identifier: MIT */
/*
 * recorder.c - the record path: child held before exec, its events opened by evset.c on every
 * CPU (inherit + enable_on_exec, the layout this kernel can mmap), one ring per CPU, a poll
 * loop that drains every ring and then closes a round, and the final statistics.
 */

#include "recorder.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "formats/reader.h"
#include "formats/util.h"
#include "child.h"
#include "meta.h"
#include "online.h"
#include "perf.h"
#include "summary.h"
#include "synth.h"

#define POLL_MS 100
/* A live consumer without a tick (kprof trace) gets each chunk once it is this old, or as the
 * writer closes it by size (KP_WRITER_CHUNK): what it shows lags the command by about this
 * much, in chunks few enough for its thread's queue (online.h) however fast records come. */
#define LIVE_AGE_NS 100000000ull
#define DRAIN_NICE (-10) /* where permitted: the rings drain even when the command fills every CPU */

static uint64_t default_sample_type(const struct kp_record_opts *o)
{
	uint64_t st = o->sample_type ? o->sample_type
				     : PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
					       PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;

	if (o->callchain || o->stack_user)
		st |= PERF_SAMPLE_CALLCHAIN;
	if (o->stack_user) /* the user part is unwound from these at report time */
		st |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	/* several events: every record must say which one it belongs to */
	if (o->nr_evs > 1)
		st |= PERF_SAMPLE_IDENTIFIER;
	return st;
}

/*
 * Fill the sampling side of @e->attr (evset.c sets how it opens: disabled, enable_on_exec,
 * inherit); the first event also carries the side-band records.
 */
static void build_attr(const struct kp_recorder *rec, struct kp_evspec *e, bool first)
{
	const struct kp_record_opts *o = rec->o;
	struct perf_event_attr *a = &e->attr;

	if (o->period) {
		a->sample_period = o->period;
		a->freq = 0;
	} else {
		a->sample_freq = o->freq;
		a->freq = 1;
	}
	a->sample_type = default_sample_type(o);
	if (o->stack_user) {
		a->sample_regs_user = 0xff0fff; /* perf's x86-64 set: the registers CFI needs */
		a->sample_stack_user = o->stack_user;
		a->exclude_callchain_user = 1; /* the kernel keeps its part of the chain */
	}
	if (a->type == PERF_TYPE_TRACEPOINT) /* its fields, decoded by kprof script */
		a->sample_type |= PERF_SAMPLE_RAW;
	if (kp_evspec_every_hit(e) && !o->period) {
		/* tracepoints, probes, breakpoints: every hit, unless -c asks otherwise (as perf) */
		a->sample_period = 1;
		a->freq = 0;
	}
	if (e->off_cpu) { /* each switch-out, timed by the switch records around it */
		a->sample_period = 1;
		a->freq = 0;
		a->context_switch = 1;
	}
	if (first && o->latency && !o->off_cpu) /* who runs when, for report --latency */
		a->context_switch = 1;
	a->read_format = PERF_FORMAT_LOST;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	if (first) {
		a->mmap = 1;
		a->mmap2 = 1;
		a->comm = 1;
		a->comm_exec = 1;
		a->task = 1; /* no build_id: see buildid.h */
		a->watermark = 1;
		a->wakeup_watermark = (uint32_t)(o->pages * (size_t)sysconf(_SC_PAGESIZE) / 4);
	}
}

/* The ring of CPU index @ci: mapped on its first open fd; every other fd there writes into it. */
static int map_ring(struct kp_recorder *rec, size_t ci)
{
	const struct kp_evset *set = &rec->set;
	size_t n = kp_evset_nr_fds(set);
	int owner = -1, cpu = set->cpus[ci], err;

	for (size_t i = ci; i < n && owner < 0; i += set->nr_cpus)
		owner = set->fds[i];
	if (owner < 0)
		return kp_error("nothing to record on CPU %d: every target is gone", cpu);
	err = kp_ring_map(&rec->rings[ci], owner, cpu, rec->o->pages);
	if (err) {
		kp_error("cannot mmap the ring of CPU %d (%zu pages): %s", cpu, rec->o->pages,
			 strerror(-err));
		if (err == -EPERM || err == -ENOMEM)
			kp_hint("consider increasing /proc/sys/kernel/perf_event_mlock_kb, or try "
				"again with a smaller -m");
		return 1;
	}
	rec->pfds[ci] = (struct pollfd){ .fd = owner, .events = POLLIN };
	for (size_t i = ci; i < n; i += set->nr_cpus) {
		int fd = set->fds[i];
		if (fd >= 0 && fd != owner && ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, owner) < 0)
			return kp_error("cannot share the ring of CPU %d: %s", cpu,
					strerror(errno));
	}
	return 0;
}

/* The events on every CPU (for its ring) of the targets, and the kernel's id of each fd. */
static int open_events(struct kp_recorder *rec)
{
	const struct kp_record_opts *o = rec->o;
	struct kp_evset_opts so = {
		.evs = o->evs, .nr_evs = o->nr_evs, .command = rec->child.pid,
		.system_wide = o->system_wide, .cpus = o->cpus, .nr_cpus = o->nr_cpus,
		.pids = o->pids, .nr_pids = o->nr_pids, .pids_may_end = o->pids_of_user,
		.tids = o->tids, .nr_tids = o->nr_tids, .per_cpu = true, .fallback = true,
		.doing = "recording",
	};
	int err;

	for (size_t ev = 0; ev < o->nr_evs; ev++)
		build_attr(rec, &o->evs[ev], ev == 0);
	err = kp_evset_open(&rec->set, &so);
	if (err == -EACCES && o->system_wide)
		kp_hint("recording every CPU needs kernel.perf_event_paranoid <= 0 or CAP_PERFMON; "
			"'kprof record -- CMD' or -p PID profiles your own processes");
	if (err)
		return 1;
	rec->ids = kp_xcalloc(kp_evset_nr_fds(&rec->set), sizeof(*rec->ids));
	for (size_t i = 0; i < kp_evset_nr_fds(&rec->set); i++)
		if (rec->set.fds[i] >= 0 && kp_perf_id(rec->set.fds[i], &rec->ids[i]) < 0)
			return kp_error("cannot read the id of event '%s': %s",
					o->evs[i / kp_evset_per_event(&rec->set)].spec,
					strerror(errno));
	rec->rings = kp_xcalloc(rec->set.nr_cpus, sizeof(*rec->rings));
	rec->pfds = kp_xcalloc(rec->set.nr_cpus, sizeof(*rec->pfds));
	for (size_t ci = 0; ci < rec->set.nr_cpus; ci++)
		if (map_ring(rec, ci))
			return 1;
	return 0;
}

/*
 * The COMM and MMAP records of what runs now among the targets, from /proc: what already ran
 * when kprof attached (-a, -p, -t), and at the start of each file of --switch-output (then
 * a command's processes too, which are found by their parents).
 */
static void synthesize(struct kp_recorder *rec)
{
	const struct kp_record_opts *o = rec->o;
	size_t first = 0, n = kp_evset_nr_fds(&rec->set), before = rec->w.len, nr_family = 0;
	uint64_t chunks = rec->w.chunks, id;
	struct kp_synth_stats st;
	int *family = NULL;

	while (first < n && rec->set.fds[first] < 0)
		first++;
	id = first < n ? rec->ids[first] : 0;
	if (o->argv)
		nr_family = kp_synth_family(rec->child.pid, &family);
	if (o->system_wide)
		kp_synth_procs(&rec->w, &o->evs[0].attr, id, NULL, 0, &rec->bids, &st);
	else if (o->argv)
		kp_synth_procs(&rec->w, &o->evs[0].attr, id, family, nr_family, &rec->bids, &st);
	else if (o->nr_pids)
		kp_synth_procs(&rec->w, &o->evs[0].attr, id, o->pids, o->nr_pids, &rec->bids, &st);
	if (!o->system_wide && o->nr_tids) /* -t: their processes' maps and comms */
		kp_synth_procs(&rec->w, &o->evs[0].attr, id, o->tids, o->nr_tids, &rec->bids, &st);
	free(family);
	/* the synthesized maps and comms, which no ring holds, unless a chunk was closed among
	 * them */
	if (rec->w.chunks == chunks && rec->w.len > before) {
		if (o->nsfiles)
			kp_nsfiles_scan(o->nsfiles, rec->w.buf + before, rec->w.len - before);
		kp_cgroups_scan(&rec->cg, rec->w.buf + before, rec->w.len - before);
	}
	kp_cgroups_flush(&rec->cg, &rec->w);
}

/* Without a command to exec, kprof starts the events itself, then lists what already runs. */
static int start_events(struct kp_recorder *rec)
{
	if (rec->set.on_exec)
		return 0; /* enable_on_exec does it */
	if (kp_evset_enable(&rec->set))
		return 1;
	synthesize(rec);
	return 0;
}

/* perf's convention: an existing output is kept as FILE.old. A stream ("-", /dev/stdout,
 * /dev/null, a FIFO) is written as it is: it is neither renamed nor ever removed. */
static int open_output(struct kp_recorder *rec)
{
	const char *path = rec->o->output;
	struct stat st;

	if (rec->out_fd >= 0) /* a stream, open since open_stream() */
		return 0;
	/* written in place, so that a killed recording is at its path: the command has refused
	 * a symbolic link there (kp_output_check_path()) */
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		size_t n = strlen(path) + 5;
		rec->old_path = kp_xmalloc(n);
		snprintf(rec->old_path, n, "%s.old", path);
		if (rename(path, rec->old_path) < 0)
			return kp_error("cannot rename '%s' to '%s': %s", path, rec->old_path,
					strerror(errno));
		rec->old_kept = true;
	}
	rec->out_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (rec->out_fd < 0)
		return kp_error("cannot create '%s': %s", path, strerror(errno));
	rec->out_created = true;
	return 0;
}

/*
 * A stream is opened before the command starts: when it is kprof's standard output (a pipe or
 * a file, not a terminal or /dev/null), the command's standard output, which would be mixed
 * into the recording, goes to standard error instead. Sets *@out_is_stdout.
 */
static int open_stream(struct kp_recorder *rec, bool *out_is_stdout)
{
	const char *path = rec->o->output;
	struct stat a, b;
	int fd = kp_open_stream(path);

	*out_is_stdout = false;
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return kp_error("cannot write '%s': %s", path, strerror(-fd));
	rec->out_fd = fd;
	/* a regular file (kprof's standard output redirected to one, /proc/self/fd/N of one) is
	 * cut back to where the recording began when it fails to start */
	rec->stream_start = fstat(fd, &a) == 0 && S_ISREG(a.st_mode) ? lseek(fd, 0, SEEK_CUR) : -1;
	*out_is_stdout = rec->o->argv && fstat(fd, &a) == 0 && fstat(STDOUT_FILENO, &b) == 0 &&
			 !S_ISCHR(a.st_mode) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
	if (*out_is_stdout)
		kp_notice("the recording goes to standard output: '%s' writes to standard error",
			  rec->o->argv[0]);
	return 0;
}

/* Undo open_output() or open_stream(): no file is left pretending to be a recording. */
static void discard_output(struct kp_recorder *rec)
{
	if (rec->out_fd >= 0 && rec->stream_start >= 0 && !rec->out_created &&
	    ftruncate(rec->out_fd, rec->stream_start) == 0)
		lseek(rec->out_fd, rec->stream_start, SEEK_SET);
	if (!rec->out_created)
		return;
	unlink(rec->o->output);
	if (rec->old_kept)
		rename(rec->old_path, rec->o->output);
	rec->out_created = false;
}

static int write_header(struct kp_recorder *rec)
{
	const struct kp_record_opts *o = rec->o;
	size_t reserve = KP_WRITER_CHUNK + rec->set.nr_cpus * rec->rings[0].size;
	size_t per_ev = kp_evset_per_event(&rec->set);
	uint64_t *ids = kp_xcalloc(per_ev, sizeof(*ids));

	if (o->live && o->live_thread) {
		/* the consumer's thread, writing the file (if any) after it */
		int err;
		rec->online = kp_online_start_live(rec->out_fd, o->level, reserve, o->live,
						   o->live_ctx, &rec->w, &err);
		if (!rec->online)
			return kp_error("cannot start the thread that reads the records: %s",
					kp_strerror(err));
	} else if (o->live) {
		kp_writer_init_sink(&rec->w, o->live, o->live_ctx, reserve);
	} else if (o->stack_user && !o->keep_stacks) {
		/* the copies are unwound by a thread that writes the file */
		int err;
		rec->online = kp_online_start(rec->out_fd, o->level, o->unwind_backlog, reserve,
					      &rec->w, &err);
		if (!rec->online)
			return kp_error("cannot write '%s': %s", o->output, kp_strerror(err));
	} else if (kp_writer_init(&rec->w, rec->out_fd, o->level, reserve)) {
		return kp_error("cannot write '%s': %s", o->output, kp_strerror(rec->w.err));
	}
	for (size_t ev = 0; ev < o->nr_evs; ev++) {
		const struct kp_evspec *e = &o->evs[ev];
		uint32_t n = 0;
		for (size_t k = 0; k < per_ev; k++)
			if (rec->set.fds[ev * per_ev + k] >= 0)
				ids[n++] = rec->ids[ev * per_ev + k];
		kp_writer_add_attr(&rec->w, &e->attr, ev, ids, n, e->name, e->spec, e->fallback);
		kp_evlist_add_event(&rec->evl, &e->attr, ev, ids, n, e->name, e->spec, e->fallback);
	}
	free(ids);
	kp_meta_write(&rec->w, o, rec->set.nr_cpus,
		      o->all_kallsyms && rec->ks.text ? "full snapshot" : rec->ks.state);
	kp_meta_write_tp_formats(&rec->w, o->evs, o->nr_evs);
	if (o->all_kallsyms && rec->ks.text)
		kp_kallsyms_write_all(&rec->ks, &rec->w);
	/* the metadata chunk goes out now, so even a recording killed at once has it */
	if (kp_writer_flush(&rec->w))
		return kp_error("cannot write '%s': %s", o->output, kp_strerror(rec->w.err));
	return 0;
}

/* --switch-output-event: is one of @n bytes of drained records a sample of its events? */
static bool switch_event_in(const struct kp_recorder *rec, const uint8_t *p, size_t n)
{
	const struct kp_rec_header *h;
	const struct kp_evsel *ev;

	for (size_t pos = 0; (h = kp_rec_next(p, n, &pos));)
		if (h->type == PERF_RECORD_SAMPLE && (ev = kp_evlist_find(&rec->evl, h)) &&
		    ev->index >= rec->o->sw.first_event)
			return true;
	return false;
}

static void drain_all(struct kp_recorder *rec)
{
	for (size_t ci = 0; ci < rec->set.nr_cpus; ci++) {
		size_t n = kp_ring_drain(&rec->rings[ci], &rec->w, &rec->evl);
		/* the copy is the last n bytes of the writer's buffer */
		if (n)
			kp_buildids_fill(&rec->bids, rec->w.buf + rec->w.len - n, n);
		if (n)
			kp_kallsyms_scan(&rec->ks, &rec->evl, rec->w.buf + rec->w.len - n, n);
		if (n && rec->o->sw.event && !rec->sw.event_hit)
			rec->sw.event_hit = switch_event_in(rec, rec->w.buf + rec->w.len - n, n);
		if (n && rec->o->nsfiles)
			kp_nsfiles_scan(rec->o->nsfiles, rec->w.buf + rec->w.len - n, n);
		if (n)
			kp_cgroups_scan(&rec->cg, rec->w.buf + rec->w.len - n, n);
	}
	/* before the round ends: a sample and its symbols share a chunk */
	kp_kallsyms_flush(&rec->ks, &rec->w);
	kp_cgroups_flush(&rec->cg, &rec->w);
	kp_writer_round(&rec->w);
	rec->wakeups++;
}

static double elapsed(const struct kp_recorder *rec)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - rec->started.tv_sec) + (now.tv_nsec - rec->started.tv_nsec) / 1e9;
}

/* Attached processes and threads: is any of them still there? */
static bool targets_alive(const struct kp_recorder *rec)
{
	for (size_t t = 0; t < rec->set.nr_pids; t++)
		if (rec->set.pids[t] > 0 && (kill(rec->set.pids[t], 0) == 0 || errno == EPERM))
			return true;
	return false;
}

/* Ctrl-C (or SIGTERM, SIGHUP) while setting up: the command is not started, nothing is kept. */
static int setup_interrupted(struct kp_recorder *rec)
{
	kp_child_kill(&rec->child);
	kp_notice("interrupted before '%s' started: nothing was recorded", rec->o->argv[0]);
	return 128 + kp_child_last_signal();
}

/* Whether the recording has a file: always but for a live consumer without @output. */
static bool has_file(const struct kp_record_opts *o)
{
	return !o->live || (o->live_thread && o->output);
}

/* Whether to stop: the command ended; or, without one, a signal, the duration, the targets gone. */
static bool finished(struct kp_recorder *rec)
{
	const struct kp_record_opts *o = rec->o;

	if (rec->w.err || rec->ticked_out)
		return true;
	if (o->duration > 0 && elapsed(rec) >= o->duration) {
		if (o->argv && !rec->child.done)
			kill(rec->child.pid, SIGTERM);
		return !o->argv || rec->child.done; /* with a command: once it has ended */
	}
	if (o->argv)
		return rec->child.done;
	if (kp_child_signals())
		return true;
	return !o->system_wide && !targets_alive(rec);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static bool switch_due(struct kp_recorder *rec);
static int switch_file(struct kp_recorder *rec);

static void record_loop(struct kp_recorder *rec)
{
	bool killed = false;

	/* this thread only, not the command (already started) nor the unwinding thread */
	setpriority(PRIO_PROCESS, 0, DRAIN_NICE);
	clock_gettime(CLOCK_MONOTONIC, &rec->started);
	while (!finished(rec)) {
		poll(rec->pfds, rec->set.nr_cpus, POLL_MS);
		drain_all(rec);
		if (rec->o->sw.on && !rec->w.err && switch_due(rec)) {
			if (switch_file(rec)) { /* said why: stop, keep the files closed */
				rec->sw.failed = true;
				kp_evset_disable(&rec->set);
				if (rec->o->argv)
					kp_notice("stopped recording; waiting for '%s' to end",
						  rec->o->argv[0]);
				kp_child_wait(&rec->child);
				return;
			}
		}
		if (rec->sw.closed.nr_hooks)
			kp_rotation_reap(&rec->sw.closed, rec->o->sw.exec, false);
		if (rec->o->tick) { /* what was drained reaches the live consumer now */
			kp_writer_flush(&rec->w);
			rec->ticked_out = rec->o->tick(rec->o->live_ctx) != 0;
		} else if (rec->o->live && rec->w.opened_ns &&
			   now_ns() - rec->w.opened_ns >= LIVE_AGE_NS) {
			kp_writer_flush(&rec->w);
		}
		kp_child_reap(&rec->child);
		if (rec->o->argv && kp_child_signals() > 1 && !killed) {
			kp_notice("interrupted again: stopping '%s'", rec->o->argv[0]);
			kill(rec->child.pid, SIGKILL);
			killed = true;
		}
	}
	if (rec->w.err) {
		/* the disk is full or failing: stop sampling, keep what is on disk */
		kp_evset_disable(&rec->set);
		kp_error("cannot write '%s': %s", rec->o->output, kp_strerror(rec->w.err));
		if (rec->o->argv)
			kp_notice("stopped recording; waiting for '%s' to end", rec->o->argv[0]);
		kp_child_wait(&rec->child);
		return;
	}
	kp_evset_disable(&rec->set);
	rec->stopped_ns = now_ns();
	drain_all(rec);
	kp_child_wait(&rec->child);
}

/* PERF_FORMAT_LOST through read(): losses after the last LOST record show only here. */
static void read_lost(struct kp_recorder *rec)
{
	for (size_t ci = 0; ci < rec->set.nr_cpus; ci++)
		rec->rings[ci].lost_read = 0; /* the counts are the kernel's, since the start */
	for (size_t i = 0; i < kp_evset_nr_fds(&rec->set); i++) {
		uint64_t v[2];
		if (rec->set.fds[i] >= 0 && read(rec->set.fds[i], v, sizeof(v)) == sizeof(v))
			rec->rings[i % rec->set.nr_cpus].lost_read += v[1];
	}
}

/* The counters of ring @ci since the file being written started (--switch-output). */
static struct kp_ring ring_counts(const struct kp_recorder *rec, size_t ci)
{
	struct kp_ring r = rec->rings[ci];
	const struct kp_ring *b = rec->sw.base ? &rec->sw.base[ci] : NULL;

	if (b) {
		r.samples -= b->samples;
		r.records -= b->records;
		r.lost_records -= b->lost_records;
		r.lost_read -= b->lost_read;
		r.throttles -= b->throttles;
		r.bytes -= b->bytes;
		r.switches -= b->switches;
	}
	return r;
}

/* The rings' counts since the file being written started, summed into *@s; with @w, each
 * ring's as a RING_STATS record. */
static void count_rings(struct kp_recorder *rec, struct kp_writer *w, struct kp_rec_stats *s)
{
	memset(s, 0, sizeof(*s));
	s->h = (struct kp_rec_header){ KP_REC_STATS, 0, sizeof(*s) };
	for (size_t ci = 0; ci < rec->set.nr_cpus; ci++) {
		const struct kp_ring ring = ring_counts(rec, ci), *r = &ring;
		struct kp_rec_ring_stats rs = {
			{ KP_REC_RING_STATS, 0, sizeof(rs) }, r->cpu, 0, r->samples,
			r->lost_records, r->lost_read, r->bytes,
		};
		s->samples += r->samples;
		s->records += r->records;
		s->lost_records += r->lost_records;
		s->lost_read += r->lost_read;
		s->lost += r->lost_records > r->lost_read ? r->lost_records : r->lost_read;
		s->throttles += r->throttles;
		s->ring_bytes += r->bytes;
		if (w)
			kp_writer_add(w, &rs);
	}
}

static void write_stats(struct kp_recorder *rec, struct kp_writer *w, struct kp_rec_stats *s)
{
	count_rings(rec, w, s);
	s->raw_bytes = w->raw_bytes;
	s->file_bytes = w->off;
	s->wakeups = rec->wakeups;
	s->nr_rings = rec->set.nr_cpus;
	kp_writer_add(w, s);
}

/* The samples of the file being written, read back through its descriptor; -1 when it
 * cannot be (a pipe, a stream that began inside a file). */
static int64_t samples_in_file(const struct kp_recorder *rec)
{
	const struct kp_rec_header *h;
	struct kp_reader r;
	struct stat st;
	char path[64];
	int64_t n = 0;
	int more;

	if (fstat(rec->out_fd, &st) < 0 || !S_ISREG(st.st_mode))
		return -1;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", rec->out_fd);
	if (kp_reader_open(&r, path)) {
		kp_reader_release(&r);
		return -1;
	}
	while ((more = kp_reader_next(&r, &h)) > 0)
		n += h->type == PERF_RECORD_SAMPLE;
	kp_reader_release(&r);
	return n;
}

/*
 * The file being written, cut short by @w's failed write (said): it keeps its complete chunks,
 * whose samples are read back. What it holds into *@f; said here unless the files of
 * --switch-output say it. Returns 1.
 */
static int cut_short(struct kp_recorder *rec, const struct kp_writer *w, struct kp_rotated *f)
{
	int64_t kept = samples_in_file(rec);
	struct kp_rec_stats s;

	count_rings(rec, NULL, &s);
	*f = (struct kp_rotated){
		.samples = kept < 0 ? 0 : (uint64_t)kept, .lost = s.lost, .bytes = w->off,
		.raw_bytes = w->raw_bytes, .err = w->err, .chunks = w->chunks,
		.unwritten = kept < 0 || s.samples < (uint64_t)kept ? 0 : s.samples - (uint64_t)kept,
		.unread = kept < 0,
	};
	if (rec->o->sw.on)
		return 1;
	if (f->unread)
		kp_notice("'%s' keeps the %llu complete chunks written before the failure",
			  rec->o->output, (unsigned long long)w->chunks);
	else
		kp_notice("'%s' keeps the %llu complete chunks written before the failure: %llu "
			  "samples, %llu lost; the %llu samples recorded after them are in no file",
			  rec->o->output, (unsigned long long)w->chunks, (unsigned long long)f->samples,
			  (unsigned long long)f->lost, (unsigned long long)f->unwritten);
	return 1;
}

/*
 * Close the file being written: the unwinding thread's last chunks, the statistics of what
 * it holds, its writer and its fd; what it holds into *@f. Returns 0, or 1 once it said what
 * failed: the file is cut short at its last complete chunk (cut_short()).
 */
static int close_file(struct kp_recorder *rec, struct kp_rotated *f)
{
	struct kp_writer *w = &rec->w;
	struct kp_rec_stats s;
	int werr;

	read_lost(rec);
	if (rec->o->live) /* the counts to the consumer, through the thread, and to the file */
		write_stats(rec, &rec->w, &s);
	if (rec->online) {
		/* the last chunk to the thread, then the file is the thread's writer's */
		kp_writer_flush(&rec->w);
		w = kp_online_finish(rec->online, &rec->unwind);
		if (rec->w.err && !w->err) /* the drain side failed: record_loop() said why */
			w->err = rec->w.err;
		else if (w->err && !rec->w.err) /* the thread's writer failed on the last chunks */
			kp_error("cannot write '%s': %s", rec->o->output, kp_strerror(w->err));
		if (!rec->o->live)
			kp_writer_add(w, &rec->unwind);
	}
	if (w->err) {
		/* record_loop() already said what failed */
		kp_writer_close(w);
		return cut_short(rec, w, f);
	}
	if (rec->stopped_ns) /* where intervals still open end (off-CPU) */
		kp_meta_add_u64(w, "end-monotonic-ns", rec->stopped_ns);
	if (!rec->o->live)
		write_stats(rec, w, &s);
	werr = kp_writer_close(w);
	if (werr) {
		kp_error("cannot write '%s': %s", rec->o->output, kp_strerror(werr));
		return cut_short(rec, w, f);
	}
	*f = (struct kp_rotated){ s.samples, s.lost, w->off, w->raw_bytes, .chunks = w->chunks };
	if (close(rec->out_fd) < 0)
		return kp_error("cannot write '%s': %s", rec->o->output, strerror(errno));
	rec->out_fd = -1;
	rec->out_created = false; /* complete: never removed, */
	rec->old_kept = false;	  /* and the FILE.old it replaced stays */
	return 0;
}

/* --- --switch-output ---------------------------------------------------------------------- */

/* The file just closed, complete or cut short, which holds @f, to the files kept; the @last
 * one of the recording is removed instead when it holds nothing after others. */
static void keep_file(struct kp_recorder *rec, const struct kp_rotated *f, bool last)
{
	kp_rotation_keep(&rec->sw.closed, rec->o->output, f, &rec->o->sw, rec->o->quiet, last);
	rec->out_created = false; /* a file of the recording now: never removed */
	rec->old_kept = false;
}

/* Add the unwinding of one file to the recording's (every field a sum, but the largest backlog). */
static void add_unwind(struct kp_rec_unwind_stats *sum, const struct kp_rec_unwind_stats *u)
{
	uint64_t backlog = sum->backlog_max > u->backlog_max ? sum->backlog_max : u->backlog_max;
	uint64_t *a = &sum->samples;
	const uint64_t *b = &u->samples;

	for (size_t i = 0; i < (sizeof(*u) - sizeof(u->h)) / sizeof(uint64_t); i++)
		a[i] += b[i];
	sum->backlog_max = backlog;
}

/* The counters the next file's statistics start from. */
static void mark_base(struct kp_recorder *rec)
{
	if (!rec->sw.base)
		rec->sw.base = kp_xcalloc(rec->set.nr_cpus, sizeof(*rec->sw.base));
	read_lost(rec);
	memcpy(rec->sw.base, rec->rings, rec->set.nr_cpus * sizeof(*rec->rings));
	rec->sw.started = elapsed(rec);
}

/*
 * A new file: the one being written closed and kept, another started with the header, the
 * kernel symbols and the COMM and MMAP records of what runs now. Samples drained after it go to
 * it: none falls between two files. Returns 0, or 1 once it said what failed.
 */
static int switch_file(struct kp_recorder *rec)
{
	struct kp_rotated f;

	rec->stopped_ns = now_ns();
	if (close_file(rec, &f)) {
		keep_file(rec, &f, false); /* cut short: it keeps what it holds, and says so */
		return 1;
	}
	keep_file(rec, &f, false);
	if (rec->online) {
		add_unwind(&rec->sw.unwind, &rec->unwind);
		kp_writer_close(&rec->w); /* the thread's input, empty */
		kp_online_free(rec->online);
		rec->online = NULL;
	}
	rec->stopped_ns = 0;
	mark_base(rec);
	kp_kallsyms_restart(&rec->ks);
	kp_cgroups_restart(&rec->cg);
	if (open_output(rec) || write_header(rec)) {
		discard_output(rec); /* no file pretends to be a recording */
		return 1;
	}
	synthesize(rec);
	return 0;
}

/* Whether the file being written is due to close: SIGUSR2, its time, its size. */
static bool switch_due(struct kp_recorder *rec)
{
	const struct kp_switch_opts *o = &rec->o->sw;
	struct stat st;
	int usr2 = kp_child_usr2();

	if (usr2 != rec->sw.usr2) {
		rec->sw.usr2 = usr2;
		return true;
	}
	if (rec->sw.event_hit) {
		rec->sw.event_hit = false;
		return true;
	}
	if (o->secs > 0 && elapsed(rec) - rec->sw.started >= o->secs)
		return true;
	return o->bytes && fstat(rec->out_fd, &st) == 0 && (uint64_t)st.st_size >= o->bytes;
}

static int finish(struct kp_recorder *rec)
{
	struct kp_rotated f;
	struct kp_rec_stats s;
	struct kp_recorded wr;
	int rc;

	if (!has_file(rec->o)) {
		/* no file: the last records, and the counts, to the consumer */
		read_lost(rec);
		write_stats(rec, &rec->w, &s);
		if (rec->online) { /* its thread takes what is queued, and ends */
			kp_writer_flush(&rec->w);
			kp_online_finish(rec->online, &rec->unwind);
		}
		if (kp_writer_close(&rec->w))
			return 1;
		return rec->o->argv ? kp_child_exit_code(rec->child.status) : 0;
	}
	/* a switch that failed said why, and kept the file it closed */
	rc = rec->sw.failed ? 1 : close_file(rec, &f);

	if (rec->o->sw.on) {
		if (!rec->sw.failed) /* complete, or cut short */
			keep_file(rec, &f, true);
		kp_rotation_reap(&rec->sw.closed, rec->o->sw.exec, true);
		if (rec->online)
			add_unwind(&rec->sw.unwind, &rec->unwind);
		rec->unwind = rec->sw.unwind;
		const struct kp_rotation *c = &rec->sw.closed;

		if (!c->files)
			return rc;
		kp_rotation_what(c, &rec->o->sw, wr.what, sizeof(wr.what));
		wr.f = c->sum;
	} else {
		if (rc)
			return rc;
		snprintf(wr.what, sizeof(wr.what), "'%s'", rec->o->output);
		wr.f = f;
	}
	wr.throttles = wr.relabeled = wr.foreign = wr.switches = 0;
	for (size_t ci = 0; ci < rec->set.nr_cpus; ci++) {
		wr.throttles += rec->rings[ci].throttles;
		wr.relabeled += rec->rings[ci].relabeled;
		wr.foreign += rec->rings[ci].foreign;
		wr.switches += rec->rings[ci].switches;
	}
	kp_record_summary(rec->o, rec->online, &rec->unwind, &wr);
	if (rc)
		return rc;
	return rec->o->argv ? kp_child_exit_code(rec->child.status) : 0;
}

static void cleanup(struct kp_recorder *rec)
{
	kp_child_kill(&rec->child);
	for (size_t ci = 0; ci < rec->set.nr_cpus && rec->rings; ci++)
		kp_ring_unmap(&rec->rings[ci]);
	kp_evset_release(&rec->set);
	/* the writers first (the unwinding thread joined), then their file: no write goes to a
	 * closed fd, or to another file that took its number */
	if (rec->w.buf)
		kp_writer_close(&rec->w);
	kp_online_free(rec->online);
	if (rec->out_fd >= 0)
		close(rec->out_fd);
	free(rec->ids);
	free(rec->rings);
	free(rec->pfds);
	free(rec->old_path);
	free(rec->sw.base);
	kp_rotation_release(&rec->sw.closed);
	kp_kallsyms_release(&rec->ks);
	kp_cgroups_release(&rec->cg);
	kp_buildids_release(&rec->bids);
	kp_evlist_release(&rec->evl);
}

int kp_recorder_run(struct kp_recorder *rec, const struct kp_record_opts *o)
{
	bool out_is_stdout = false;
	int rc;

	memset(rec, 0, sizeof(*rec));
	rec->o = o;
	rec->out_fd = rec->child.go_fd = rec->child.exec_fd = -1;
	rec->stream_start = -1;
	kp_child_signals_install(); /* first: a Ctrl-C from now on is seen, and said (below) */
	if (o->sw.on)
		kp_child_usr2_install();
	kp_kallsyms_read(&rec->ks);
	kp_cgroups_init(&rec->cg);
	kp_buildids_init(&rec->bids);
	rc = has_file(o) ? open_stream(rec, &out_is_stdout) : 0;
	if (!rc && o->argv)
		rc = kp_child_start(&rec->child, o->argv, out_is_stdout);
	if (!rc)
		rc = open_events(rec);
	if (!rc && has_file(o))
		rc = open_output(rec);
	if (!rc)
		rc = write_header(rec);
	if (!rc)
		rc = start_events(rec);
	if (!rc && o->argv) {
		/* from its release on, a signal is the recording's, as the command's */
		rc = kp_child_signals() ? 1 : kp_child_release(&rec->child, o->argv[0]);
		if (rc && kp_child_signals())
			rc = setup_interrupted(rec);
	}
	if (rc) {
		discard_output(rec);
		cleanup(rec);
		return rc;
	}
	record_loop(rec);
	rc = finish(rec);
	cleanup(rec);
	return rc;
}
