/* SPDX-License-Identifier: MIT */
/*
 * probed.c - the subject of the tests of probes that fetch values: each call's arguments and
 * return value are known, so a recording can be held to them call by call.
 *
 *   probed N    for i = 1 .. N: probed_square(i), which returns i * i; probed_name("name-i");
 *               probed_point(&p) with p.x = i, p.y = -i; and, when its semaphore is raised,
 *               the SDT probe probed:tick with i and "name-i"
 *
 * It prints "ticks T" at the end: how many times the tick's semaphore was found raised, which
 * is 0 unless a tracer enabled the probe. The probe is written as <sys/sdt.h> writes one (an
 * NT_STAPSDT note in .note.stapsdt, its operands placed by the compiler, the semaphore in
 * .probes, the .stapsdt.base anchor), by hand, so that building it needs no systemtap header.
 * The functions are neither inlined nor cloned, so their symbols are the code that runs.
 */
#include <stdio.h>
#include <stdlib.h>

volatile long probed_sink;

struct point {
	int x, y;
};

/* The semaphore: a tracer that enables probed:tick raises it in this process. */
volatile unsigned short probed_tick_semaphore __attribute__((section(".probes"), used));

/* The SDT note of probed:tick, a signed @a and a pointer @b, as <sys/sdt.h>'s STAP_PROBE2
 * writes one: "%n" prints its constant negated (a signed argument's size is negative, -4),
 * "%1" the operand where the compiler put it (%eax, -20(%rbp), $5). */
#define PROBED_SDT2(a, b)                                                                     \
	__asm__ __volatile__(                                                                 \
		"990: nop\n"                                                                  \
		".pushsection .note.stapsdt,\"\",\"note\"\n"                                  \
		".balign 4\n"                                                                 \
		".4byte 992f-991f, 994f-993f, 3\n"                                            \
		"991: .asciz \"stapsdt\"\n"                                                   \
		"992: .balign 4\n"                                                            \
		"993: .8byte 990b\n"                                                          \
		".8byte _.stapsdt.base\n"                                                     \
		".8byte probed_tick_semaphore\n"                                              \
		".asciz \"probed\"\n"                                                         \
		".asciz \"tick\"\n"                                                           \
		".asciz \"%n0@%1 %n2@%3\"\n"                                                  \
		"994: .balign 4\n"                                                            \
		".popsection\n"                                                               \
		".ifndef _.stapsdt.base\n"                                                    \
		".pushsection .stapsdt.base,\"aG\",\"progbits\",.stapsdt.base,comdat\n"       \
		".weak _.stapsdt.base\n"                                                      \
		".hidden _.stapsdt.base\n"                                                    \
		"_.stapsdt.base: .space 1\n"                                                  \
		".size _.stapsdt.base, 1\n"                                                   \
		".popsection\n"                                                               \
		".endif\n"                                                                    \
		:                                                                             \
		: "n"((int)sizeof(a)), "nor"(a), "n"(-(int)sizeof(b)), "nor"(b))

__attribute__((noinline, noclone)) long probed_square(int x)
{
	long sq = (long)x * x;

	probed_sink += sq;
	return sq;
}

__attribute__((noinline, noclone)) int probed_name(const char *name)
{
	probed_sink += name[0];
	return name[0];
}

__attribute__((noinline, noclone)) int probed_point(const struct point *p)
{
	probed_sink += p->x - p->y;
	return p->x;
}

int main(int argc, char **argv)
{
	char *end, name[32];
	long n, ticks = 0;

	if (argc != 2 || (n = strtol(argv[1], &end, 10)) < 0 || *end) {
		fprintf(stderr, "usage: probed N\n");
		return 2;
	}
	for (int i = 1; i <= n; i++) {
		struct point p = { i, -i };
		const char *s = name;
		snprintf(name, sizeof(name), "name-%d", i);
		probed_square(i);
		probed_name(name);
		probed_point(&p);
		if (probed_tick_semaphore) {
			ticks++;
			PROBED_SDT2(i, s);
		}
	}
	printf("ticks %ld\n", ticks);
	return 0;
}
