/* SPDX-License-Identifier: MIT */
/*
 * jit.c - a JIT of its own, for the jitdump tests. It writes two functions of x86-64 machine
 * code into an executable anonymous mapping and describes them in DIR/jit-PID.dump as the
 * JVM's and V8's agents do (the jitdump format of perf's tools/perf/util/jitdump.h): the file
 * is mapped executable, so that the recording's MMAP record says where it is, then a debug
 * info record (two source lines of jit_hot), a code load per function with its name and
 * bytes, and a move of jit_cold to a second copy, which is the one then run. It spends
 * CPU_SECONDS in the two, a quarter of the calls' iterations in jit_cold, and prints the
 * thread CPU time each took (what a report's shares should follow):
 *
 *   jit [CPU_SECONDS] [DIR] [--wrong-pid]     (defaults 1 and /tmp)
 *
 *   pid=P  dump=PATH  hot_ns=H  cold_ns=C  cpu_ns=T
 *
 * --wrong-pid writes another process's pid in the dump's header, as a dump left by another
 * process would have. Not x86-64: says so and exits 77.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
/* long f(long n): mov %rdi,%rax; 1: dec %rax; jnz 1b; ret */
static const uint8_t loop_code[] = { 0x48, 0x89, 0xf8, 0x48, 0xff, 0xc8, 0x75, 0xfb, 0xc3 };

struct prefix {
	uint32_t id, total_size;
	uint64_t timestamp;
};

static uint64_t now(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void put(int fd, const void *p, size_t n)
{
	if (write(fd, p, n) != (ssize_t)n) {
		perror("jit: writing the dump");
		exit(1);
	}
}

static void code_load(int fd, const char *name, const void *code, uint64_t size, uint64_t index)
{
	struct prefix pr = { 0, (uint32_t)(sizeof(pr) + 40 + strlen(name) + 1 + size),
			     now(CLOCK_MONOTONIC) };
	uint32_t ids[2] = { (uint32_t)getpid(), (uint32_t)getpid() };
	uint64_t w[4] = { (uintptr_t)code, (uintptr_t)code, size, index };

	put(fd, &pr, sizeof(pr));
	put(fd, ids, sizeof(ids));
	put(fd, w, sizeof(w));
	put(fd, name, strlen(name) + 1);
	put(fd, code, size);
}

static void debug_info(int fd, const uint8_t *code)
{
	static const char file[] = "jit-test.js", same[] = "\xff";
	struct prefix pr = { 2, 0, now(CLOCK_MONOTONIC) };
	uint64_t head[2] = { (uintptr_t)code, 2 };
	uint64_t a0 = (uintptr_t)code, a1 = (uintptr_t)code + 3;
	int32_t l0[2] = { 7, 0 }, l1[2] = { 8, 0 };

	pr.total_size = (uint32_t)(sizeof(pr) + sizeof(head) + 2 * 16 + sizeof(file) + sizeof(same));
	put(fd, &pr, sizeof(pr));
	put(fd, head, sizeof(head));
	put(fd, &a0, 8);
	put(fd, l0, 8);
	put(fd, file, sizeof(file));
	put(fd, &a1, 8);
	put(fd, l1, 8);
	put(fd, same, sizeof(same));
}

static void code_move(int fd, const void *from, const void *to, uint64_t size, uint64_t index)
{
	struct prefix pr = { 1, sizeof(pr) + 8 + 40, now(CLOCK_MONOTONIC) };
	uint32_t ids[2] = { (uint32_t)getpid(), (uint32_t)getpid() };
	uint64_t w[5] = { (uintptr_t)to, (uintptr_t)from, (uintptr_t)to, size, index };

	put(fd, &pr, sizeof(pr));
	put(fd, ids, sizeof(ids));
	put(fd, w, sizeof(w));
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	const char *dir = argc > 2 ? argv[2] : "/tmp";
	int wrong = argc > 3 && !strcmp(argv[3], "--wrong-pid");
	long page = sysconf(_SC_PAGESIZE);
	struct {
		uint32_t magic, version, total_size, elf_mach, pad1, pid;
		uint64_t timestamp, flags;
	} h = { 0x4A695444, 1, 40, 62 /* EM_X86_64 */, 0, (uint32_t)getpid() + (wrong ? 1 : 0),
		now(CLOCK_MONOTONIC), 0 };
	char path[4096];
	uint8_t *mem, *hot, *cold, *moved;
	uint64_t hot_ns = 0, cold_ns = 0, start, n = 2000000;
	long (*f_hot)(long), (*f_cold)(long);
	int fd;

	snprintf(path, sizeof(path), "%s/jit-%d.dump", dir, (int)getpid());
	fd = open(path, O_CREAT | O_TRUNC | O_RDWR | O_CLOEXEC, 0644);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	put(fd, &h, sizeof(h));
	/* the marker: a JIT maps its dump executable, so that perf records where it is */
	if (mmap(NULL, (size_t)page, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED) {
		perror("jit: mapping the dump (a noexec file system?)");
		return 1;
	}
	mem = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE | PROT_EXEC,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("jit: an executable mapping");
		return 1;
	}
	hot = mem + 64;
	cold = mem + 256;
	moved = mem + page + 128;
	memcpy(hot, loop_code, sizeof(loop_code));
	memcpy(cold, loop_code, sizeof(loop_code));
	memcpy(moved, loop_code, sizeof(loop_code));
	debug_info(fd, hot);
	code_load(fd, "jit_hot", hot, sizeof(loop_code), 1);
	code_load(fd, "jit_cold", cold, sizeof(loop_code), 2);
	code_move(fd, cold, moved, sizeof(loop_code), 2);
	memcpy(&f_hot, &hot, sizeof(hot));
	memcpy(&f_cold, &moved, sizeof(moved));

	start = now(CLOCK_PROCESS_CPUTIME_ID);
	while (now(CLOCK_PROCESS_CPUTIME_ID) - start < (uint64_t)(secs * 1e9)) {
		uint64_t t0 = now(CLOCK_THREAD_CPUTIME_ID), t1, t2;

		f_hot((long)(3 * n));
		t1 = now(CLOCK_THREAD_CPUTIME_ID);
		f_cold((long)n);
		t2 = now(CLOCK_THREAD_CPUTIME_ID);
		hot_ns += t1 - t0;
		cold_ns += t2 - t1;
	}
	printf("pid=%d\ndump=%s\nhot_ns=%llu\ncold_ns=%llu\ncpu_ns=%llu\n", (int)getpid(), path,
	       (unsigned long long)hot_ns, (unsigned long long)cold_ns,
	       (unsigned long long)(now(CLOCK_PROCESS_CPUTIME_ID) - start));
	return 0;
}
#else
int main(void)
{
	puts("jit: writes x86-64 code only");
	return 77;
}
#endif
