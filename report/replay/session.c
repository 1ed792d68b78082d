/* SPDX-License-Identifier: MIT */
#include "session.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "formats/perfdata.h"
#include "formats/rec.h"
#include "formats/util.h"
#include "report/base/search.h"

void kp_session_init(struct kp_session *s, const struct kp_dso_opts *dso_opts)
{
	memset(s, 0, sizeof(*s));
	kp_evlist_init(&s->evl);
	kp_strtab_init(&s->strs);
	kp_ksyms_init(&s->ksyms);
	kp_hash_init(&s->dso_ids);
	kp_model_init(&s->model);
	kp_order_init(&s->order);
	s->dso_opts = *dso_opts;
	s->meta_wall_ns = s->meta_mono_ns = -1;
	kp_session_set_symfs(s, "");
}

/*
 * The SYMBOLS records `kprof archive` appended, read before the replay: every binary must know
 * them before its first lookup. They are kept until the DSO table is made (dso_id()).
 */
static void load_symbols(struct kp_session *s, const char *path)
{
	const struct kp_file_header *h = &s->r.hdr;
	const struct kp_rec_header *rec;
	struct kp_reader r;
	int rc;

	if (s->r.perf || !(h->compat & KP_COMPAT_SYMBOLS))
		return;
	if (h->symbols_off < h->header_size || h->symbols_off >= s->r.file_size) {
		s->symbols_err = -KP_ECHUNK;
		s->symbols_off = h->symbols_off;
		return;
	}
	s->symbols_off = h->symbols_off; /* where a failure is said to be, unless a chunk's */
	rc = kp_reader_open(&r, path);
	r.off = h->symbols_off;
	while (!rc && (rc = kp_reader_next(&r, &rec)) == 1) {
		if (rec->type != KP_REC_SYMBOLS && rec->type != KP_REC_FILE_PART) {
			rc = 0;
			continue;
		}
		KP_GROW(s->symbols, s->cap_symbols, s->nr_symbols + rec->size);
		memcpy(s->symbols + s->nr_symbols, rec, rec->size);
		s->nr_symbols += rec->size;
		rc = 0;
	}
	if (rc < 0) {
		s->symbols_err = rc;
		if (r.err_off)
			s->symbols_off = r.err_off;
	}
	kp_reader_release(&r);
}

/* The threads that read the recording: kp_dso_opts.jobs, else as many as CPUs may run them. */
static unsigned jobs(const struct kp_session *s)
{
	cpu_set_t cpus;

	if (s->dso_opts.jobs)
		return s->dso_opts.jobs;
	return sched_getaffinity(0, sizeof(cpus), &cpus) || CPU_COUNT(&cpus) > 1 ? 2 : 1;
}

/* The reader drops a chunk's records: the queued ones among them are copied. */
static void rehome(void *order, const uint8_t *buf, size_t len)
{
	kp_order_rehome(order, buf, len);
}

int kp_session_open(struct kp_session *s, const char *path, const struct kp_dso_opts *dso_opts)
{
	int rc;

	kp_session_init(s, dso_opts);
	rc = kp_reader_open(&s->r, path);
	if (!rc)
		load_symbols(s, path);
	if (!rc && jobs(s) > 1)
		kp_reader_prefetch(&s->r); /* decompress ahead on a second core; fine if it fails */
	if (!rc) /* the reader's records are queued where they are, not copied */
		kp_reader_keep_previous(&s->r, rehome, &s->order);
	return rc;
}

void kp_session_set_symfs(struct kp_session *s, const char *dir)
{
	size_t n = strlen(dir) + sizeof("/tmp");

	s->symfs = dir;
	free(s->jit_dir);
	s->jit_dir = kp_xmalloc(n);
	snprintf(s->jit_dir, n, "%s/tmp", dir);
}

void kp_session_release(struct kp_session *s)
{
	kp_model_release(&s->model);
	if (s->tp)
		kp_tp_free(s->tp);
	free(s->dso_list);
	free(s->kernel_release);
	free(s->live_release);
	free(s->kernel_bid);
	free(s->jit_dir);
	free(s->symbols);
	free(s->jit_problem);
	free(s->bad_start_time);
	if (s->dsos)
		kp_dsos_free(s->dsos);
	kp_hash_release(&s->dso_ids);
	kp_order_release(&s->order);
	kp_ksyms_release(&s->ksyms);
	kp_unwind_stats_release(&s->unwind_stops);
	kp_strtab_release(&s->strs);
	kp_evlist_release(&s->evl);
	kp_reader_release(&s->r);
}

/* --- the process model (model.h), as the records tell it ------------------------------- */

static uint32_t dso_id(struct kp_session *s, const char *path, const uint8_t *bid, size_t bid_len)
{
	struct kp_dso *d;
	uint64_t *i;
	const char *slash;

	if (!s->dsos) {
		s->dso_opts.kernel_release = s->kernel_release;
		s->dsos = kp_dsos_new(&s->dso_opts);
		kp_dsos_alts(s->dsos, s->alts, s->nr_alts);
		for (size_t off = 0; off < s->nr_symbols;) {
			const struct kp_rec_header *rec = (const void *)(s->symbols + off);

			kp_dsos_embed(s->dsos, rec);
			off += rec->size;
		}
	}
	if (*s->symfs && strcmp(path, "[vdso]")) {
		size_t n = strlen(s->symfs) + strlen(path) + 1;
		char *full = kp_xmalloc(n);
		snprintf(full, n, "%s%s", s->symfs, path);
		d = kp_dsos_find(s->dsos, full, bid, bid_len);
		free(full);
	} else {
		d = kp_dsos_find(s->dsos, path, bid, bid_len);
	}
	i = kp_hash_get(&s->dso_ids, (uintptr_t)d);
	if (i)
		return (uint32_t)*i;
	KP_GROW(s->dso_list, s->cap_dsos, s->nr_dsos + 1);
	slash = strrchr(path, '/');
	s->dso_list[s->nr_dsos] = (struct kp_session_dso){
		d, kp_strtab_intern(&s->strs, path),
		kp_strtab_intern(&s->strs, slash ? slash + 1 : path), 0, 0, 0
	};
	kp_hash_put(&s->dso_ids, (uintptr_t)d, s->nr_dsos);
	return (uint32_t)s->nr_dsos++;
}

/* File-backed maps get a DSO; anonymous ones (JIT code, heap) and pseudo-files do not. */
static bool is_file(const char *path)
{
	if (!strcmp(path, "[vdso]"))
		return true;
	return path[0] == '/' && strncmp(path, "//anon", 6) && strncmp(path, "/memfd:", 7) &&
	       strncmp(path, "/dev/zero", 9);
}

/* The length of @path without the kernel's " (deleted)" suffix, or 0 when it has none. */
static size_t deleted_suffix(const char *path)
{
	static const char sfx[] = " (deleted)";
	size_t n = strlen(path);

	return n > sizeof(sfx) - 1 && !strcmp(path + n - (sizeof(sfx) - 1), sfx)
		       ? n - (sizeof(sfx) - 1)
		       : 0;
}

/* The JIT names of @proc: its perf map, and the jitdump it mapped (under --symfs). */
static void jit_load(struct kp_session *s, struct kp_proc *proc)
{
	const char *path;
	char *full;

	kp_perfmap_load(&proc->jit, s->jit_dir, proc->pid, s->dso_opts.any_owner);
	if (proc->jitdump) {
		path = kp_strtab_get(&s->strs, proc->jitdump);
		full = kp_xmalloc(strlen(s->symfs) + strlen(path) + 1);
		sprintf(full, "%s%s", s->symfs, path);
		s->jitdump_loads += kp_perfmap_load_jitdump(&proc->jit, full, proc->pid,
							    s->dso_opts.any_owner);
		free(full);
	}
	if (proc->jit.problem && !s->jit_problem)
		s->jit_problem = kp_xstrdup(proc->jit.problem);
	s->jit_problems += proc->jit.problem != NULL;
}

const struct kp_perfmap_ent *kp_session_jit(struct kp_session *s, struct kp_proc *proc,
					    uint64_t addr)
{
	const struct kp_perfmap_ent *e;

	if (!proc->jit.loaded) {
		jit_load(s, proc);
		proc->jit_read_at = s->last_time;
	}
	e = kp_perfmap_lookup(&proc->jit, addr);
	if (!e && s->last_time - proc->jit_read_at >= KP_SESSION_JIT_REREAD_NS) {
		proc->jit_read_at = s->last_time;
		if (kp_perfmap_reread(&proc->jit))
			e = kp_perfmap_lookup(&proc->jit, addr);
	}
	return e;
}

/* META start-time ("2026-12-02T06:00:00Z") and start-monotonic-ns: the record clock's place
 * in wall-clock time. A start time that does not parse, or that ns since 1970 cannot hold in
 * 64 bits (before 1970, after KP_WALL_MAX), leaves it unknown, and is kept to be named. */
static void meta_clock(struct kp_session *s, const char *key, const char *value)
{
	struct tm tm;
	char *end;

	if (!strcmp(key, "start-time")) {
		time_t t = -1;

		memset(&tm, 0, sizeof(tm));
		end = strptime(value, "%Y-%m-%dT%H:%M:%SZ", &tm);
		if (end && !*end)
			t = timegm(&tm);
		free(s->bad_start_time);
		s->bad_start_time = NULL;
		if (t > 0 && t <= KP_WALL_MAX_S) {
			s->meta_wall_ns = (int64_t)t * 1000000000;
		} else {
			s->meta_wall_ns = -1;
			s->bad_start_time = kp_xstrdup(value);
		}
	} else if (!strcmp(key, "start-monotonic-ns") || !strcmp(key, "end-monotonic-ns")) {
		errno = 0;
		unsigned long long v = strtoull(value, &end, 10);
		if (errno || end == value || *end || v >= INT64_MAX)
			return;
		if (key[0] == 's')
			s->meta_mono_ns = (int64_t)v;
		else
			s->end_mono_ns = v;
	}
	s->wall_at_mono = s->meta_wall_ns > 0 && s->meta_mono_ns >= 0 ?
			  s->meta_wall_ns - s->meta_mono_ns : 0;
}

/* perf's maps of the kernel (pid -1): where its text and modules were, for a table read from a
 * file to be held to (kp_ksyms_expect()). The text's map is named after its reference symbol,
 * "[kernel.kallsyms]_text", which is at pgoff; a module's is its .ko file, or "[name]". */
static void kernel_map(struct kp_session *s, const struct kp_mmap *mm)
{
	static const char kernel[] = "[kernel.kallsyms]";
	const char *base = strrchr(mm->filename, '/'), *dot;
	char name[128];
	size_t n;

	if (!strncmp(mm->filename, kernel, sizeof(kernel) - 1)) {
		if (mm->filename[sizeof(kernel) - 1])
			kp_ksyms_expect(&s->ksyms, mm->filename + sizeof(kernel) - 1, mm->pgoff, 0);
		return;
	}
	if (mm->filename[0] == '[') {
		if (strcmp(mm->filename, "[vdso]") && strlen(mm->filename) < sizeof(name))
			kp_ksyms_expect(&s->ksyms, mm->filename, mm->addr, mm->addr + mm->len);
		return;
	}
	base = base ? base + 1 : mm->filename;
	dot = strstr(base, ".ko");
	if (!dot || (dot[3] && dot[3] != '.') || (n = (size_t)(dot - base)) + 3 > sizeof(name))
		return;
	name[0] = '[';
	for (size_t i = 0; i < n; i++) /* the kernel names modules with '_' for '-' */
		name[i + 1] = base[i] == '-' ? '_' : base[i];
	name[n + 1] = ']';
	name[n + 2] = '\0';
	kp_ksyms_expect(&s->ksyms, name, mm->addr, mm->addr + mm->len);
}

/*
 * The map of an MMAP or MMAP2 record (only MMAP2 has a build-id), in its process. A mapping
 * without PROT_EXEC (the kernel marks it PERF_RECORD_MISC_MMAP_DATA in both record types) is
 * reported only to an event with mmap_data, as perf records them: the rest of a binary's
 * segments, the heap, [stack], [vvar], //anon. It holds no code, so it takes the place of
 * what it overlaps and is kept as a hole: a return address found there is garbage, not a
 * frame in an anonymous map, and a binary's data segment is not a second module at another
 * bias.
 */
static void on_mmap(struct kp_session *s, const struct kp_mmap *mm, uint16_t misc)
{
	const uint8_t *bid = mm->has_build_id ? mm->build_id : NULL;
	size_t bid_len = mm->has_build_id ? mm->build_id_size : 0;
	struct kp_map m = { mm->addr, mm->addr + mm->len, mm->pgoff, 0, 0, 0 };
	struct kp_proc *p;
	uint32_t jit_pid;

	if (m.end <= m.start)
		return;
	if (mm->pid == UINT32_MAX && (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
		kernel_map(s, mm);
	if (misc & PERF_RECORD_MISC_MMAP_DATA) {
		kp_model_mmap(&s->model, mm->pid, &m, true);
		return;
	}
	m.name = kp_strtab_intern(&s->strs, mm->filename);
	p = kp_model_proc(&s->model, mm->pid);
	if (kp_perfmap_is_jitdump(mm->filename, &jit_pid)) { /* read with its first JIT lookup */
		p->jitdump = m.name;
		if (p->jit.loaded)
			kp_perfmap_release(&p->jit);
	}
	if (!is_file(mm->filename)) {
		m.flags |= KP_MAP_ANON;
	} else if (deleted_suffix(mm->filename)) {
		/* the kernel marks a file unlinked since the mmap; a file now at that path is
		 * used only if its build-id matches, which the symbolizer checks */
		char *live = kp_xstrdup(mm->filename);
		live[deleted_suffix(mm->filename)] = '\0';
		m.dso = dso_id(s, live, bid, bid_len);
		free(live);
	} else {
		m.dso = dso_id(s, mm->filename, bid, bid_len);
	}
	kp_model_mmap(&s->model, mm->pid, &m, false);
}

static void on_comm(struct kp_session *s, const struct kp_comm *c, uint16_t misc)
{
	struct kp_thread *t = kp_model_thread(&s->model, c->pid, c->tid);

	t->comm = kp_strtab_intern(&s->strs, c->comm);
	if (misc & PERF_RECORD_MISC_COMM_EXEC)
		kp_model_exec(&s->model, &s->model.procs[t->proc]);
}

/* Records that do not parse (the reader validated those of a file, not the rings') change
 * nothing. */
static void update_model(struct kp_session *s, const struct kp_rec_header *rec)
{
	struct kp_mmap mm;
	struct kp_comm c;
	struct kp_task t;

	switch (rec->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (!kp_rec_parse_mmap(rec, rec->size, &mm))
			on_mmap(s, &mm, rec->misc);
		break;
	case PERF_RECORD_COMM:
		if (!kp_rec_parse_comm(rec, rec->size, &c))
			on_comm(s, &c, rec->misc);
		break;
	case PERF_RECORD_FORK:
		if (!kp_rec_parse_task(rec, rec->size, &t))
			kp_model_fork(&s->model, t.ppid, t.ptid, t.pid, t.tid);
		break;
	case PERF_RECORD_EXIT:
		if (!kp_rec_parse_task(rec, rec->size, &t))
			kp_model_thread(&s->model, t.pid, t.tid)->exited = true;
		break;
	default:
		break;
	}
}

/* --- replay ------------------------------------------------------------------------------ */

/* A record the ops cannot be given parsed: counted, and passed on as it is to @unparsed. */
static int unparsed(struct kp_session *s, const struct kp_rec_header *rec, uint64_t *count)
{
	(*count)++;
	return s->ops->unparsed ? s->ops->unparsed(s->ctx, s, rec) : 0;
}

/*
 * The task of a record (a sample, or a side record's sample_id) as the model knows it, where
 * the kernel gives pid and tid -1 (model.h): a sched:sched_switch sample's prev_pid, else the
 * exited thread its CPU ran last (kp_model_released()).
 */
static void name_task(struct kp_session *s, struct kp_sample *x)
{
	const struct kp_thread *t = NULL;
	bool cpu = x->sample_type & PERF_SAMPLE_CPU;
	uint64_t prev;

	if (!(x->sample_type & PERF_SAMPLE_TID))
		return;
	if (x->tid != UINT32_MAX) {
		if (cpu)
			kp_model_ran(&s->model, x->cpu, x->pid, x->tid);
		return;
	}
	if (s->tp && x->raw_size &&
	    !kp_tp_field(s->tp, x->raw, x->raw_size, "prev_pid", 0, &prev))
		t = kp_model_known(&s->model, (uint32_t)prev);
	else if (cpu)
		t = kp_model_released(&s->model, x->cpu);
	if (!t)
		return;
	x->pid = t->pid;
	x->tid = t->tid;
	if (cpu)
		kp_model_ran(&s->model, x->cpu, t->pid, t->tid);
}

/* @chain: the reader's kp_reader_chain_id() of @rec */
static int emit(void *ctx, const struct kp_rec_header *rec, uint64_t time, uint64_t chain)
{
	struct kp_session *s = ctx;
	const struct kp_evsel *ev = kp_evlist_find(&s->evl, rec);
	struct kp_sample id;

	(void)time;
	if (rec->type != PERF_RECORD_SAMPLE) {
		update_model(s, rec);
		if (!ev)
			return unparsed(s, rec, &s->no_event);
		kp_rec_parse_id(&ev->attr, rec, &id);
		name_task(s, &id);
		return s->ops->side ? s->ops->side(s->ctx, s, ev, rec, &id) : 0;
	}
	if (!ev)
		return unparsed(s, rec, &s->no_event);
	if (kp_rec_parse_sample_again(&ev->attr, rec, &s->smp))
		return unparsed(s, rec, &s->bad_samples);
	s->smp.chain_id = chain;
	s->sampled = true;
	name_task(s, &s->smp);
	if (!s->ops->sample)
		return 0;
	return s->ops->sample(s->ctx, s, ev, &s->smp, rec,
			      kp_model_thread(&s->model, s->smp.pid, s->smp.tid));
}

static uint64_t time_of(struct kp_session *s, const struct kp_rec_header *rec)
{
	const struct kp_evsel *ev = kp_evlist_find(&s->evl, rec);
	struct kp_sample x;
	uint64_t t;

	if (!ev)
		return s->last_time;
	if (rec->type == PERF_RECORD_SAMPLE) {
		if (!kp_rec_sample_time(&ev->attr, rec, &t))
			s->last_time = t;
	} else if (!kp_rec_parse_id(&ev->attr, rec, &x) && (x.sample_type & PERF_SAMPLE_TIME)) {
		s->last_time = x.time;
	}
	return s->last_time;
}

/* Where perf's build-id cache keeps its copy of the kernel's table with build-id @bid:
 * $PERF_BUILDID_DIR (perf sets it for what it runs) or ~/.debug, then [kernel.kallsyms]/BID/
 * kallsyms (perf before 4.4: the file BID itself). NULL when there is none. */
static char *perf_cached_kallsyms(const char *bid)
{
	const char *dir = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");
	char path[4096];
	struct stat st;

	if (!bid || (!(dir && *dir) && !(home && *home)))
		return NULL;
	if (dir && *dir)
		snprintf(path, sizeof(path), "%s/[kernel.kallsyms]/%s", dir, bid);
	else
		snprintf(path, sizeof(path), "%s/.debug/[kernel.kallsyms]/%s", home, bid);
	if (stat(path, &st) < 0)
		return NULL;
	if (S_ISDIR(st.st_mode) && strlen(path) + sizeof("/kallsyms") <= sizeof(path))
		strcat(path, "/kallsyms");
	return access(path, R_OK) ? NULL : kp_xstrdup(path);
}

/*
 * A recording that stores no kernel symbols (perf.data): the copy of its kernel's table that
 * perf record left in perf's build-id cache, as perf report reads it; else, or when that copy
 * does not fit the recording (another boot's layout), this machine's table when it runs the
 * kernel the recording was made on. Without either, kernel frames stay addresses and
 * @s->live_release says what runs here.
 */
static void live_ksyms(struct kp_session *s)
{
	struct utsname u;
	char *cached = perf_cached_kallsyms(s->kernel_bid);
	bool known = !uname(&u);
	bool same = known && s->kernel_release && !strcmp(s->kernel_release, u.release);

	if (!same) {
		free(s->live_release);
		s->live_release = kp_xstrdup(known ? u.release : "(unknown)");
	}
	/* unreadable: kernel frames stay addresses */
	if (cached)
		kp_ksyms_load(&s->ksyms, cached, same ? "/proc/kallsyms" : NULL);
	else if (same)
		kp_ksyms_load(&s->ksyms, "/proc/kallsyms", NULL);
	free(cached);
}

static void keep_own(struct kp_session *s, const struct kp_rec_header *rec)
{
	const char *key, *value;

	switch (rec->type) {
	case KP_REC_ATTR:
		if (s->sampled) { /* no recorder writes one there */
			if (!s->late_attrs++)
				s->late_attr_off = s->r.cur.off;
			break;
		}
		kp_evlist_add(&s->evl, rec);
		break;
	case KP_REC_META:
		kp_rec_meta_view(rec, &key, &value);
		if (!strcmp(key, "kernel") && !s->kernel_release)
			s->kernel_release = kp_xstrdup(value);
		meta_clock(s, key, value);
		if (!strcmp(key, KP_PERFDATA_KERNEL_BID) && !s->kernel_bid)
			s->kernel_bid = kp_xstrdup(value);
		if (!strcmp(key, "kallsyms") && !strcmp(value, KP_PERFDATA_KALLSYMS))
			live_ksyms(s);
		break;
	case KP_REC_KALLSYMS:
		kp_ksyms_add_text(&s->ksyms, (const char *)((const struct kp_rec_kallsyms *)rec + 1),
				  ((const struct kp_rec_kallsyms *)rec)->len,
				  rec->misc & KP_KALLSYMS_MISC_ENDS);
		break;
	case KP_REC_STATS:
		memcpy(&s->stats, rec, sizeof(s->stats));
		s->have_stats = true;
		break;
	case KP_REC_UNWIND_STATS: /* a first-version record lacks the last fields: they stay 0 */
		memset(&s->unwind_stats, 0, sizeof(s->unwind_stats));
		memcpy(&s->unwind_stats, rec,
		       rec->size < sizeof(s->unwind_stats) ? rec->size : sizeof(s->unwind_stats));
		s->have_unwind_stats = true;
		kp_unwind_stats_read(&s->unwind_stops, &s->strs, rec);
		break;
	case KP_REC_PROC_CGROUP: /* read as it comes: before the process's samples are due */
		kp_model_proc(&s->model, ((const struct kp_rec_proc_cgroup *)rec)->pid)->cgroup =
			kp_strtab_intern(&s->strs, (const char *)rec + sizeof(struct kp_rec_proc_cgroup));
		break;
	case KP_REC_UNWIND_DSO:
		kp_unwind_stats_read(&s->unwind_stops, &s->strs, rec);
		break;
	case KP_REC_TP_FORMAT: /* for a sched_switch sample's prev_pid (name_task()) */
		if (!s->tp)
			s->tp = kp_tp_new();
		kp_tp_add_record(s->tp, rec);
		break;
	default:
		break;
	}
}

void kp_session_start(struct kp_session *s, const struct kp_session_ops *ops, void *ctx)
{
	s->ops = ops;
	s->ctx = ctx;
}

/* @kept: @rec is the reader's, kept where it is (kp_reader_keeps()) */
static int feed(struct kp_session *s, const struct kp_rec_header *rec, bool kept)
{
	int rc = 0;

	if (rec->type < KP_REC_USER_START) {
		(kept ? kp_order_push_ref : kp_order_push)(&s->order, rec, time_of(s, rec),
							   kp_reader_chain_id(&s->r));
		return 0;
	}
	keep_own(s, rec);
	if (rec->type == KP_REC_ROUND)
		rc = kp_order_round(&s->order, emit, s);
	if (!rc && s->ops->own)
		rc = s->ops->own(s->ctx, s, rec);
	return rc;
}

int kp_session_feed(struct kp_session *s, const struct kp_rec_header *rec)
{
	return feed(s, rec, false);
}

int kp_session_feed_chunk(struct kp_session *s, const uint8_t *buf, size_t len)
{
	const struct kp_rec_header *h;
	size_t pos = 0;
	int rc = 0;

	while (!rc && (h = kp_rec_next(buf, len, &pos)))
		rc = feed(s, h, false);
	if (!rc && pos < len)
		return -KP_ERECORD; /* the recorder's chunks: never, but not past the chunk */
	return rc;
}

int kp_session_end(struct kp_session *s)
{
	return kp_order_flush(&s->order, emit, s);
}

int kp_session_run(struct kp_session *s, const struct kp_session_ops *ops, void *ctx)
{
	const struct kp_rec_header *rec;
	int rc = 0, more;

	kp_session_start(s, ops, ctx);
	while (!rc && (more = kp_reader_next(&s->r, &rec)) > 0)
		rc = feed(s, rec, kp_reader_keeps(&s->r));
	if (rc)
		return rc;
	/* a bad chunk ends the input, but what came before it is still delivered */
	rc = kp_session_end(s);
	return more < 0 ? more : rc;
}
