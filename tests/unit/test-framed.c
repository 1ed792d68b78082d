/* SPDX-License-Identifier: MIT */
/*
 * The walk over records framed back to back (kp_rec_next()) as each of its callers meets a
 * record that is not framed: one whose size runs past the buffer, or is no multiple of 8. The
 * record is refused, and nothing after it is read as a record.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/rec.h"
#include "report/replay/session.h"
#include "src/record/cgroups.h"
#include "src/record/kallsyms.h"
#include "src/record/nsfiles.h"
#include "tests/tap.h"

#define UNKNOWN_TYPE 0x7000 /* a kernel record type no scan looks at */
#define KSYM(i) (0xffffffff81000000ull + ((uint64_t)(i) << 24))

static _Alignas(8) uint8_t buf[4096];

/* A record of @type with @size in its header, at @at of buf; its body zeroed. */
static void put_header(size_t at, uint32_t type, uint16_t size)
{
	struct kp_rec_header h = { .type = type, .size = size };

	memset(buf + at, 0, size);
	memcpy(buf + at, &h, sizeof(h));
}

/* @rec (@size bytes) copied to @at of buf; returns the offset after it. */
static size_t put(size_t at, const void *rec, size_t size)
{
	memcpy(buf + at, rec, size);
	return at + size;
}

static void test_next(void)
{
	const struct kp_rec_header *r;
	size_t pos = 0, n = 0;

	put_header(0, UNKNOWN_TYPE, 16);
	put_header(16, UNKNOWN_TYPE, 8);
	while ((r = kp_rec_next(buf, 24, &pos)))
		n++;
	ok(n == 2 && pos == 24, "two records: both, then the end (%zu, at %zu)", n, pos);
	pos = 0;
	n = 0;
	while ((r = kp_rec_next(buf, 20, &pos)))
		n++;
	ok(n == 1 && pos == 16, "a record past the end: refused, the walk stays at it (%zu, at %zu)",
	   n, pos);
	pos = 16;
	ok(!kp_rec_next(buf, 20, &pos) && pos == 16, "4 bytes left, no whole header: refused");
	put_header(0, UNKNOWN_TYPE, 4);
	pos = 0;
	ok(!kp_rec_next(buf, 24, &pos) && pos == 0, "a size below the header's: refused");
	put_header(0, UNKNOWN_TYPE, 12);
	pos = 0;
	ok(!kp_rec_next(buf, 24, &pos) && pos == 0, "a size of no multiple of 8: refused");
}

static int owns;

static int on_own(void *ctx, struct kp_session *s, const struct kp_rec_header *rec)
{
	(void)ctx;
	(void)s;
	(void)rec;
	owns++;
	return 0;
}

/* kp_session_feed_chunk(): the records before it fed, then -KP_ERECORD. */
static void test_session(void)
{
	static const struct kp_session_ops ops = { .own = on_own };
	static struct kp_session s;
	struct kp_dso_opts opts = { 0 };
	int rc;

	kp_session_init(&s, &opts);
	kp_session_start(&s, &ops, NULL);
	put_header(0, KP_REC_USER_START + 1000, 16);
	put_header(16, KP_REC_USER_START + 1000, 24);
	owns = 0;
	rc = kp_session_feed_chunk(&s, buf, 32);
	ok(rc == -KP_ERECORD && owns == 1,
	   "session: a record past the chunk is refused, the one before it fed (rc %d, %d fed)",
	   rc, owns);
	put_header(0, KP_REC_USER_START + 1000, 12);
	put_header(12, KP_REC_USER_START + 1000, 8);
	owns = 0;
	rc = kp_session_feed_chunk(&s, buf, 20);
	ok(rc == -KP_ERECORD && owns == 0,
	   "session: a size of no multiple of 8 is refused, nothing after it read (rc %d, %d fed)",
	   rc, owns);
	kp_session_end(&s);
	kp_session_release(&s);
}

/* A sample of @attr at @ip, at @at of buf; returns its size. */
static size_t put_sample(const struct perf_event_attr *attr, size_t at, uint64_t ip)
{
	struct kp_sample s = { .ip = ip };
	uint8_t rec[64];
	int size = kp_rec_encode_sample(attr, &s, PERF_RECORD_MISC_KERNEL, rec, sizeof(rec));

	put(at, rec, (size_t)size);
	return (size_t)size;
}

/* kp_kallsyms_scan(): the symbols of a sample read past the end are not marked. */
static void test_kallsyms(void)
{
	struct perf_event_attr attr = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(attr),
					.sample_type = PERF_SAMPLE_IP };
	struct kp_evlist evl;
	struct kp_kallsyms k;
	uint64_t id = 1;
	size_t n;

	memset(&k, 0, sizeof(k));
	k.nr = 4;
	k.syms = calloc(k.nr, sizeof(*k.syms));
	for (size_t i = 0; i < k.nr; i++)
		k.syms[i].addr = KSYM(i);
	k.lo = KSYM(0);
	k.marked = calloc(k.nr + 1, 1);
	k.pending = calloc(k.nr + 1, sizeof(*k.pending));
	kp_evlist_init(&evl);
	kp_evlist_add_event(&evl, &attr, 0, &id, 1, "cpu-clock", "cpu-clock", false);

	n = put_sample(&attr, 0, KSYM(0) + 16);
	put_sample(&attr, n, KSYM(2) + 16);
	kp_kallsyms_scan(&k, &evl, buf, 2 * n - 8);
	ok(k.marked[0] && !k.marked[2],
	   "kallsyms: a sample past the end is not read, the one before it is (%u, %u)",
	   k.marked[0], k.marked[2]);

	memset(k.marked, 0, k.nr + 1);
	memset(k.cache_addr, 0, sizeof(k.cache_addr));
	k.nr_pending = 0;
	put_header(0, UNKNOWN_TYPE, 12);
	put_sample(&attr, 12, KSYM(2) + 16);
	kp_kallsyms_scan(&k, &evl, buf, 12 + n);
	ok(!k.marked[2] && !k.nr_pending,
	   "kallsyms: a size of no multiple of 8 is refused, nothing after it read (%u)",
	   k.marked[2]);
	kp_evlist_release(&evl);
	free(k.syms);
	free(k.marked);
	free(k.pending);
}

/* kp_nsfiles_scan(): the file of a map after the bad record is not looked at. */
static void test_nsfiles(void)
{
	struct perf_event_attr attr = { .size = sizeof(attr) };
	struct kp_mmap m = { .pid = (uint32_t)getpid(), .tid = (uint32_t)getpid(),
			     .addr = 0x400000, .len = 4096, .filename = "/bin/sh" };
	struct kp_nsfiles ns;
	uint8_t rec[256];
	int size = kp_rec_encode_mmap2(&attr, &m, PERF_RECORD_MISC_USER, NULL, rec, sizeof(rec));

	kp_nsfiles_init(&ns, false);
	ns.self_ns = 1; /* this process then stands for one in another mount namespace */
	put_header(0, UNKNOWN_TYPE, 12);
	put(12, rec, (size_t)size);
	kp_nsfiles_scan(&ns, buf, 12 + (size_t)size);
	ok(kp_nsfiles_count(&ns) == 0,
	   "nsfiles: a size of no multiple of 8 is refused, nothing after it read (%zu)",
	   kp_nsfiles_count(&ns));
	put(0, rec, (size_t)size);
	kp_nsfiles_scan(&ns, buf, (size_t)size);
	ok(kp_nsfiles_count(&ns) == 1, "nsfiles: the same map, framed, is counted (%zu)",
	   kp_nsfiles_count(&ns));
	kp_nsfiles_release(&ns);
}

/* kp_cgroups_scan(): the process of a COMM after the bad record is not noted. */
static void test_cgroups(void)
{
	struct perf_event_attr attr = { .size = sizeof(attr) };
	struct kp_comm c = { .pid = 4242, .tid = 4242, .comm = "x" };
	struct kp_cgroups cg;
	uint8_t rec[64];
	int size = kp_rec_encode_comm(&attr, &c, 0, NULL, rec, sizeof(rec));

	kp_cgroups_init(&cg);
	put_header(0, UNKNOWN_TYPE, 12);
	put(12, rec, (size_t)size);
	kp_cgroups_scan(&cg, buf, 12 + (size_t)size);
	ok(cg.nr_pending == 0,
	   "cgroups: a size of no multiple of 8 is refused, nothing after it read (%zu)",
	   cg.nr_pending);
	put(0, rec, (size_t)size);
	kp_cgroups_scan(&cg, buf, (size_t)size);
	ok(cg.nr_pending == 1, "cgroups: the same COMM, framed, is noted (%zu)", cg.nr_pending);
	kp_cgroups_release(&cg);
}

int main(void)
{
	test_next();
	test_session();
	test_kallsyms();
	test_nsfiles();
	test_cgroups();
	return tap_done();
}
