/* SPDX-License-Identifier: MIT */
/*
 * fuzz-session.c - the session replay, the symbolizer and the unwinder on hostile input: an ELF
 * file and the side-band records a recording would hold about it. The input is
 *
 *   u32 ELF length | ELF bytes | operations
 *
 * The ELF bytes go to a memfd, reached as a binary under --symfs (/proc/self/fd), as a
 * truncated or bit-flipped copy of a real binary would be. Each operation is one byte of kind
 * and its fields, taken from the input as they come: an MMAP2 of that file or of a missing,
 * anonymous, vDSO or overlong path at any start, length and offset (overlapping, wrapping); a
 * COMM, FORK or EXIT of any pid; a sample with any ip and call chain, and one with registers and
 * a stack copy from the input, which the libdw unwinder walks through the file's CFI. Every
 * sample is resolved into a profile, as `kprof report` does. The seeds in corpus-session/ are
 * real binaries (a stripped shared object, a PLT fixture) with maps and samples in them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "formats/rec.h"
#include "report/profile/profile.h"
#include "report/profile/resolve.h"
#include "report/replay/session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ID 1000
#define STACK 512
#define MAX_OPS 64
#define MAX_DEPTH 32

#define SAMPLE_TYPE                                                                        \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |       \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | \
	 PERF_SAMPLE_STACK_USER)

/* The input, read field by field; a field past its end reads as zeros. */
struct in {
	const uint8_t *p;
	size_t left;
};

static void take(struct in *in, void *dst, size_t n)
{
	size_t k = n < in->left ? n : in->left;

	memset(dst, 0, n);
	memcpy(dst, in->p, k);
	in->p += k;
	in->left -= k;
}

static uint64_t u64(struct in *in)
{
	uint64_t v;

	take(in, &v, sizeof(v));
	return v;
}

static uint32_t u32(struct in *in)
{
	uint32_t v;

	take(in, &v, sizeof(v));
	return v;
}

static uint8_t u8(struct in *in)
{
	uint8_t v;

	take(in, &v, 1);
	return v;
}

struct fuzz {
	struct kp_session s;
	struct kp_profile prof;
	struct kp_resolver res;
	bool resolving;
	uint64_t time;
	struct perf_event_attr attr;	/* the one event's */
	uint8_t buf[KP_REC_MAX_SIZE];
};

static int on_sample(void *ctx, struct kp_session *s, const struct kp_evsel *ev,
		     const struct kp_sample *smp, const struct kp_rec_header *rec,
		     struct kp_thread *t)
{
	struct fuzz *f = ctx;

	(void)s;
	(void)ev;
	kp_resolve_add(&f->res, smp, rec->misc, t, false, 0, 1);
	return 0;
}

/* The trailer of a side-band record of @pid/@tid: the next time, and the event's id. */
static struct kp_sample side_id(struct fuzz *f, uint32_t pid, uint32_t tid)
{
	return (struct kp_sample){ .pid = pid, .tid = tid, .time = ++f->time, .id = ID };
}

/* Feed the record an encoder wrote into f->buf (@size: what it returned). */
static void feed_side(struct fuzz *f, int size)
{
	if (size > 0 && (size_t)size <= sizeof(f->buf))
		kp_session_feed(&f->s, (const void *)f->buf);
}

static const char *map_path(uint8_t which, const char *elf, char *buf, size_t size)
{
	switch (which % 6) {
	case 0:
	case 1: return elf;
	case 2: return "/nonexistent/libgone.so";
	case 3: return "[vdso]";
	case 4: return "//anon";
	default:
		memset(buf, 'a', size - 1);
		buf[0] = '/';
		buf[size - 1] = '\0';
		return buf;
	}
}

static void op_mmap2(struct fuzz *f, struct in *in, const char *elf)
{
	char longpath[300];
	struct kp_mmap m = { .prot = 5 /* PROT_READ | PROT_EXEC */, .flags = 2 /* MAP_PRIVATE */ };
	struct kp_sample id;

	m.pid = m.tid = u32(in) % 8 + 1;
	m.filename = map_path(u8(in), elf, longpath, sizeof(longpath));
	m.addr = u64(in);
	m.len = u64(in);
	m.pgoff = u64(in);
	id = side_id(f, m.pid, m.tid);
	feed_side(f, kp_rec_encode_mmap2(&f->attr, &m, PERF_RECORD_MISC_USER, &id, f->buf,
					 sizeof(f->buf)));
}

static void op_task(struct fuzz *f, struct in *in, uint32_t type)
{
	struct kp_task t = { u32(in) % 8 + 1, u32(in) % 8 + 1, u32(in) % 8 + 1, u32(in) % 8 + 1, 0 };
	struct kp_sample id;

	if (type == PERF_RECORD_COMM) { /* pid, tid, then up to 15 bytes of name */
		char name[16];
		take(in, name, 16);
		name[15] = '\0';
		id = side_id(f, t.pid, t.ppid);
		feed_side(f, kp_rec_encode_comm(&f->attr, &(struct kp_comm){ t.pid, t.ppid, name },
						PERF_RECORD_MISC_USER, &id, f->buf, sizeof(f->buf)));
		return;
	}
	id = side_id(f, t.pid, t.tid);
	feed_side(f, kp_rec_encode_task(&f->attr, type, &t, PERF_RECORD_MISC_USER, &id, f->buf,
					sizeof(f->buf)));
}

/* A sample: any ip and call chain, and with @copy registers and a stack copy from the input. */
static void op_sample(struct fuzz *f, struct in *in, bool copy)
{
	uint64_t *p = (uint64_t *)(f->buf + 8);
	uint32_t pid = u32(in) % 8 + 1;
	unsigned depth = u8(in) % MAX_DEPTH;

	*p++ = ID;
	*p++ = u64(in);				/* IP */
	*p++ = (uint64_t)pid << 32 | pid;	/* PID, TID */
	*p++ = ++f->time;
	*p++ = 0;				/* CPU */
	*p++ = 1;				/* PERIOD */
	*p++ = depth + 1;
	*p++ = PERF_CONTEXT_USER;
	for (unsigned i = 0; i < depth; i++)
		*p++ = u64(in);
	if (copy) {
		*p++ = PERF_SAMPLE_REGS_ABI_64;
		for (int i = 0; i < 20; i++)
			*p++ = u64(in);
		*p++ = STACK;
		take(in, p, STACK);
		p += STACK / 8;
		*p++ = u64(in) % (STACK + 16);	/* dyn_size, sometimes past the copy */
	} else {
		*p++ = PERF_SAMPLE_REGS_ABI_NONE;
		*p++ = 0;			/* no stack */
	}
	*(struct kp_rec_header *)f->buf = (struct kp_rec_header){
		PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, (uint16_t)((uint8_t *)p - f->buf) };
	kp_session_feed(&f->s, (const void *)f->buf);
}

static int own_attr(struct fuzz *f)
{
	struct kp_writer w;
	struct perf_event_attr a;
	uint64_t id = ID;
	int rc = 0;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1;
	a.sample_type = SAMPLE_TYPE;
	a.sample_regs_user = 0xff0fff;
	a.sample_stack_user = STACK;
	a.sample_id_all = 1;
	f->attr = a;
	kp_writer_init_sink(&w, NULL, NULL, 4096);
	kp_writer_add_attr(&w, &a, 0, &id, 1, "cpu-clock", "cpu-clock", 0);
	kp_writer_add_meta(&w, "kernel", "fuzz");
	for (size_t pos = 0; pos < w.len;) {
		const struct kp_rec_header *h = (const void *)(w.buf + pos);
		rc |= kp_session_feed(&f->s, h);
		pos += h->size;
	}
	w.len = 0; /* nothing to flush: the sink is never called */
	kp_writer_close(&w);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz f;
	static const struct kp_session_ops ops = { .sample = on_sample };
	struct kp_dso_opts opts = { .inline_frames = true, .srcline = true, .demangle = true };
	struct in in = { data, size };
	uint32_t elf_len = u32(&in);
	int fd = memfd_create("fuzz-elf", MFD_CLOEXEC);
	char elf[32];

	if (fd < 0)
		return 0;
	if (elf_len > in.left)
		elf_len = (uint32_t)in.left;
	if (write(fd, in.p, elf_len) != (ssize_t)elf_len) {
		close(fd);
		return 0;
	}
	in.p += elf_len;
	in.left -= elf_len;
	snprintf(elf, sizeof(elf), "/%d", fd); /* under the symfs /proc/self/fd */

	memset(&f, 0, sizeof(f));
	kp_session_init(&f.s, &opts);
	kp_session_set_symfs(&f.s, "/proc/self/fd");
	kp_session_start(&f.s, &ops, &f);
	kp_profile_init(&f.prof, &f.s.strs, 1);
	kp_resolver_init(&f.res, &f.s, &f.prof, KP_UNWIND_LIBDW);
	own_attr(&f);
	for (int n = 0; n < MAX_OPS && in.left; n++) {
		switch (u8(&in) % 7) {
		case 0: op_mmap2(&f, &in, elf); break;
		case 1: op_task(&f, &in, PERF_RECORD_COMM); break;
		case 2: op_task(&f, &in, PERF_RECORD_FORK); break;
		case 3: op_task(&f, &in, PERF_RECORD_EXIT); break;
		case 4: op_sample(&f, &in, false); break;
		default: op_sample(&f, &in, true); break;
		}
	}
	kp_session_end(&f.s);
	kp_profile_finish(&f.prof);
	kp_resolver_release(&f.res);
	kp_profile_release(&f.prof);
	kp_session_release(&f.s);
	close(fd);
	return 0;
}
