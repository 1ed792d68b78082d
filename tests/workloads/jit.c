/* SPDX-License-Identifier: MIT */
/*
 * jit.c - a JIT of its own, for the jitdump tests. It writes functions of x86-64 machine code
 * into an executable anonymous mapping and describes them in DIR/jit-PID.dump as the JVM's and
 * V8's agents and Python 3.13's -X perf_jit do (the jitdump format of perf's
 * tools/perf/util/jitdump.h): the file is mapped executable, so that the recording's MMAP
 * record says where it is, then a debug info record (two source lines of jit_hot), a code load
 * per function with its name and bytes, and a move of jit_cold to a second copy, which is the
 * one then run. It spends CPU_SECONDS in the two, a quarter of the calls' iterations in
 * jit_cold, and prints the thread CPU time each took (what a report's shares should follow):
 *
 *   jit [CPU_SECONDS] [DIR] [--wrong-pid | --unwind | --no-unwind]
 *
 *   pid=P  dump=PATH  hot_ns=H  cold_ns=C  [outer_ns=O]  cpu_ns=T
 *
 * DIR defaults to perf's convention for jitdumps, $JITDUMPDIR/.debug/jit, or $HOME/.debug/jit
 * (made if missing); CPU_SECONDS to 1.
 *
 * --wrong-pid writes another process's pid in the dump's header, as a dump left by another
 * process would have.
 *
 * --unwind gives each function its unwinding info (a JIT_CODE_UNWINDING_INFO record before its
 * load: its .eh_frame, one CIE and one FDE, then its .eh_frame_hdr, laid out as perf inject
 * lays them out after the code), and spends the second half of CPU_SECONDS in a third function
 * it writes and describes only then, while the dump is being read: jit_outer, which keeps no
 * frame pointer (it saves the caller's RBP, sets it to 0 and takes 16 bytes of stack) and calls
 * back into C, jit_burn, half the time directly and half through jit_relay, whose CFA only a
 * DWARF expression gives (kprof's cached steps leave such a frame to libdw's unwinder). A
 * sample in jit_burn has jit_outer between it and main, which DWARF unwinding gets through only
 * with jit_outer's CFI. --no-unwind does the same without any unwinding info.
 *
 * Not x86-64: says so and exits 77.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
/* long f(long n): mov %rdi,%rax; 1: dec %rax; jnz 1b; ret */
static const uint8_t loop_code[] = { 0x48, 0x89, 0xf8, 0x48, 0xff, 0xc8, 0x75, 0xfb, 0xc3 };

/* void jit_outer(long n, void (*fn)(long)): fn(n) from a frame of its own, without RBP */
static const uint8_t outer_code[] = {
	0x55,			/* 0: push %rbp */
	0x31, 0xed,		/* 1: xor %ebp,%ebp */
	0x48, 0x83, 0xec, 0x10,	/* 3: sub $16,%rsp */
	0xff, 0xd6,		/* 7: call *%rsi */
	0x48, 0x83, 0xc4, 0x10,	/* 9: add $16,%rsp */
	0x5d,			/* d: pop %rbp */
	0xc3,			/* e: ret */
};
/* its CFI, after the CIE's CFA = RSP + 8, return address at CFA - 8 */
static const uint8_t outer_cfi[] = {
	0x41, 0x0e, 16,		/* at 1: CFA = RSP + 16 */
	0x86, 2,		/* the caller's RBP at CFA - 16 */
	0x46, 0x0e, 32,		/* at 7: CFA = RSP + 32 */
	0x46, 0x0e, 16,		/* at d: CFA = RSP + 16 */
	0x41, 0x0e, 8,		/* at e: CFA = RSP + 8 */
	0xc6,			/* the caller's RBP back in RBP */
};

/* Burns CPU for the JIT code that calls it. */
__attribute__((noinline, used)) void jit_burn(long n)
{
	for (volatile long i = 0; i < n; i++)
		;
}

/* void jit_relay(long n): jit_burn(n), from a frame whose CFA is given by an expression
 * (DW_CFA_def_cfa_expression: DW_OP_breg7 16, that is RSP + 16) */
void jit_relay(long n);
__asm__(".text\n"
	".type jit_relay, @function\n"
	"jit_relay:\n"
	"	.cfi_startproc\n"
	"	sub $8, %rsp\n"
	"	.cfi_escape 0x0f, 0x02, 0x77, 0x10\n"
	"	call jit_burn\n"
	"	add $8, %rsp\n"
	"	.cfi_def_cfa %rsp, 8\n"
	"	ret\n"
	"	.cfi_endproc\n"
	".size jit_relay, .-jit_relay\n");

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

static void put_u32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/*
 * The unwinding info record of @size bytes of code whose CFI after the CIE's is @cfi: its
 * .eh_frame (a CIE, an FDE, the terminator) at the code's address plus its size rounded up to 8,
 * then its .eh_frame_hdr (a search table of one entry), their pointers relative to those places.
 */
static void unwinding_info(int fd, uint64_t size, const uint8_t *cfi, size_t cfi_len)
{
	static const uint8_t cie[] = {
		20, 0, 0, 0,	/* length */
		0, 0, 0, 0,	/* CIE id */
		1, 'z', 'R', 0,	/* version, augmentation */
		1, 0x78, 16,	/* code alignment 1, data alignment -8, return address r16 */
		1, 0x1b,	/* augmentation data: FDE pointers pcrel | sdata4 */
		0x0c, 7, 8,	/* DW_CFA_def_cfa: RSP + 8 */
		0x90, 1,	/* DW_CFA_offset: r16 at CFA - 8 */
		0, 0,		/* DW_CFA_nop to 8 bytes */
	};
	static const uint8_t zeros[8];
	uint8_t eh[256] = { 0 }, hdr[20];
	uint64_t code_span = (size + 7) & ~7ull;
	/* the FDE's length after its length field: to the CIE, pc_begin, pc_range, no
	 * augmentation data, the CFI, nops to a multiple of 8 bytes in all */
	size_t fde = sizeof(cie), fde_len = ((4 + 4 + 4 + 4 + 1 + cfi_len + 7) & ~(size_t)7) - 4;
	size_t eh_len;
	struct prefix pr = { 4, 0, now(CLOCK_MONOTONIC) };
	uint64_t sizes[3];

	memcpy(eh, cie, sizeof(cie));
	put_u32(eh + fde, (uint32_t)fde_len);				/* length */
	put_u32(eh + fde + 4, (uint32_t)(fde + 4));			/* to the CIE */
	put_u32(eh + fde + 8, (uint32_t)-(int32_t)(code_span + fde + 8));	/* pc_begin */
	put_u32(eh + fde + 12, (uint32_t)size);				/* pc_range */
	eh[fde + 16] = 0;						/* no augmentation data */
	if (cfi_len)
		memcpy(eh + fde + 17, cfi, cfi_len);
	eh_len = fde + 4 + fde_len + 4;					/* and the terminator */
	hdr[0] = 1;			/* version */
	hdr[1] = 0x1b;			/* eh_frame_ptr: pcrel | sdata4 */
	hdr[2] = 0x03;			/* fde_count: udata4 */
	hdr[3] = 0x3b;			/* the table: datarel | sdata4 */
	put_u32(hdr + 4, (uint32_t)-(int32_t)(eh_len + 4));
	put_u32(hdr + 8, 1);
	put_u32(hdr + 12, (uint32_t)-(int32_t)(code_span + eh_len));	/* the code's start */
	put_u32(hdr + 16, (uint32_t)-(int32_t)(eh_len - fde));		/* its FDE */
	sizes[0] = eh_len + sizeof(hdr);	/* unwinding_size */
	sizes[1] = sizeof(hdr);			/* eh_frame_hdr_size */
	sizes[2] = (sizes[0] + 15) & ~15ull;	/* mapped_size */
	pr.total_size = (uint32_t)((sizeof(pr) + sizeof(sizes) + sizes[0] + 7) & ~7ull);
	put(fd, &pr, sizeof(pr));
	put(fd, sizes, sizeof(sizes));
	put(fd, eh, eh_len);
	put(fd, hdr, sizeof(hdr));
	put(fd, zeros, pr.total_size - sizeof(pr) - sizeof(sizes) - sizes[0]);
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

/* perf's place for jitdumps: $JITDUMPDIR/.debug/jit, or $HOME/.debug/jit, made if missing */
static const char *default_dir(char *buf, size_t size)
{
	const char *base = getenv("JITDUMPDIR");

	if (!base || !*base)
		base = getenv("HOME");
	if (!base || !*base)
		base = ".";
	snprintf(buf, size, "%s/.debug", base);
	if (mkdir(buf, 0755) && errno != EEXIST) {
		perror(buf);
		exit(1);
	}
	snprintf(buf, size, "%s/.debug/jit", base);
	if (mkdir(buf, 0755) && errno != EEXIST) {
		perror(buf);
		exit(1);
	}
	return buf;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	static char dirbuf[4096], path[4096]; /* not on the stack, which DWARF stacks copy */
	const char *dir = argc > 2 ? argv[2] : default_dir(dirbuf, sizeof(dirbuf));
	const char *opt = argc > 3 ? argv[3] : "";
	int wrong = !strcmp(opt, "--wrong-pid");
	int outer = !strcmp(opt, "--unwind") || !strcmp(opt, "--no-unwind");
	int unwind = !strcmp(opt, "--unwind");
	long page = sysconf(_SC_PAGESIZE);
	struct {
		uint32_t magic, version, total_size, elf_mach, pad1, pid;
		uint64_t timestamp, flags;
	} h = { 0x4A695444, 1, 40, 62 /* EM_X86_64 */, 0, (uint32_t)getpid() + (wrong ? 1 : 0),
		now(CLOCK_MONOTONIC), 0 };
	uint8_t *mem, *hot, *cold, *moved, *out;
	uint64_t hot_ns = 0, cold_ns = 0, outer_ns = 0, start, n = 2000000;
	long (*f_hot)(long), (*f_cold)(long);
	void (*f_outer)(long, void (*)(long));
	int fd;

	if (*opt && !wrong && !outer) {
		fprintf(stderr, "jit: unknown option '%s'\n", opt);
		return 2;
	}
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
	out = mem + 512;
	moved = mem + page + 128;
	memcpy(hot, loop_code, sizeof(loop_code));
	memcpy(cold, loop_code, sizeof(loop_code));
	memcpy(moved, loop_code, sizeof(loop_code));
	memcpy(out, outer_code, sizeof(outer_code));
	debug_info(fd, hot);
	if (unwind)
		unwinding_info(fd, sizeof(loop_code), NULL, 0);
	code_load(fd, "jit_hot", hot, sizeof(loop_code), 1);
	if (unwind)
		unwinding_info(fd, sizeof(loop_code), NULL, 0);
	code_load(fd, "jit_cold", cold, sizeof(loop_code), 2);
	code_move(fd, cold, moved, sizeof(loop_code), 2);
	memcpy(&f_hot, &hot, sizeof(hot));
	memcpy(&f_cold, &moved, sizeof(moved));
	memcpy(&f_outer, &out, sizeof(out));

	start = now(CLOCK_PROCESS_CPUTIME_ID);
	while (now(CLOCK_PROCESS_CPUTIME_ID) - start < (uint64_t)(secs * (outer ? 0.5e9 : 1e9))) {
		uint64_t t0 = now(CLOCK_THREAD_CPUTIME_ID), t1, t2;

		f_hot((long)(3 * n));
		t1 = now(CLOCK_THREAD_CPUTIME_ID);
		f_cold((long)n);
		t2 = now(CLOCK_THREAD_CPUTIME_ID);
		hot_ns += t1 - t0;
		cold_ns += t2 - t1;
	}
	if (outer) { /* compiled now, while the dump is being read */
		if (unwind)
			unwinding_info(fd, sizeof(outer_code), outer_cfi, sizeof(outer_cfi));
		code_load(fd, "jit_outer", out, sizeof(outer_code), 3);
		while (now(CLOCK_PROCESS_CPUTIME_ID) - start < (uint64_t)(secs * 1e9)) {
			uint64_t t0 = now(CLOCK_THREAD_CPUTIME_ID);

			f_outer((long)n / 2, jit_burn);
			f_outer((long)n / 2, jit_relay);
			outer_ns += now(CLOCK_THREAD_CPUTIME_ID) - t0;
		}
	}
	printf("pid=%d\ndump=%s\nhot_ns=%llu\ncold_ns=%llu\n", (int)getpid(), path,
	       (unsigned long long)hot_ns, (unsigned long long)cold_ns);
	if (outer)
		printf("outer_ns=%llu\n", (unsigned long long)outer_ns);
	printf("cpu_ns=%llu\n", (unsigned long long)(now(CLOCK_PROCESS_CPUTIME_ID) - start));
	return 0;
}
#else
int main(void)
{
	puts("jit: writes x86-64 code only");
	return 77;
}
#endif
