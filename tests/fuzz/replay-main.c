/* SPDX-License-Identifier: MIT */
/*
 * replay-main.c - runs the fuzz target over files named on the command line, without
 * libFuzzer, and prints one TAP line per file. A crash or sanitizer report fails the run.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long len;

	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = malloc(len ? len : 1);
	if (len < 0 || fread(buf, 1, len, f) != (size_t)len) {
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int failed = 0;

	for (int i = 1; i < argc; i++) {
		int rc = replay(argv[i]);
		printf("%s %d - replay %s\n", rc ? "not ok" : "ok", i, argv[i]);
		failed |= rc != 0;
	}
	printf("1..%d\n", argc - 1);
	return failed;
}
