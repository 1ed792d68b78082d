/* SPDX-License-Identifier: MIT */
/*
 * tiny.c - the source of root/usr/bin/tiny, the ELF file the golden reports symbolize.
 * The binary is checked in so that its addresses, and so the goldens, never change. Rebuild
 * it only with the goldens (KPROF_BLESS=1):
 *   gcc -O2 -g -fno-omit-frame-pointer -o tests/golden/root/usr/bin/tiny tests/golden/tiny.c
 */
static volatile unsigned sink;

__attribute__((noinline)) unsigned leaf(unsigned x)
{
	for (unsigned i = 0; i < x; i++)
		sink += i * x;
	return sink;
}

__attribute__((noinline)) unsigned mid(unsigned x)
{
	return leaf(x) + 1;
}

static inline __attribute__((always_inline)) unsigned hot(unsigned x)
{
	unsigned s = 0;

	for (unsigned i = 0; i < x; i++)
		s += sink ^ i;
	return s;
}

__attribute__((noinline)) unsigned top(unsigned x)
{
	return hot(x) + mid(x);
}

int main(int argc, char **argv)
{
	(void)argv;
	return (int)top((unsigned)argc * 1000) & 1;
}
