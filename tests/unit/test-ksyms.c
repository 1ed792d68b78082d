/* SPDX-License-Identifier: MIT */
/*
 * The kernel's symbol table (report/symbols/ksyms.c): kallsyms text as a recording stores it and as
 * files hold it (/proc/kallsyms, perf's build-id cache), aliases named as perf names them,
 * lines that only end a symbol, tables loaded on a thread, files that are no file, and a
 * file's table held to the recording's layout.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/util.h"
#include "report/symbols/ksyms.h"
#include "tests/tap.h"

/* A recording's kallsyms payload ends where its record does, with no NUL after it. */
static void test_ksyms_unterminated(void)
{
	static const char text[] = "ffffffff81000000 T first\nffffffff81000100 t second\nffffffff81000200";
	size_t len = sizeof(text) - 1, page = (size_t)sysconf(_SC_PAGESIZE);
	/* the text ends where a page no one may read starts: a read past it faults */
	char *map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *payload = map + page - len;
	struct kp_ksyms k;
	const char *name;

	mprotect(map + page, page, PROT_NONE);
	memcpy(payload, text, len);
	kp_ksyms_init(&k);
	kp_ksyms_add_text(&k, payload, len, false);
	name = kp_ksyms_lookup(&k, 0xffffffff81000110ull);
	ok(k.nr == 2 && name && !strcmp(name, "second"),
	   "kallsyms text ending in an address: %zu symbols, 0x...110 in %s", k.nr,
	   name ? name : "none");
	kp_ksyms_release(&k);
	munmap(map, 2 * page);
}

/* Aliases at one kernel address: perf names the one /proc/kallsyms lists last (the only one
 * its symbol ends give a size), whatever their names (here: 6.18's retpoline thunk). */
static void test_ksyms_aliases(void)
{
	static const char text[] = "ffffffff82253980 T __pi___x86_indirect_thunk_rax\n"
				   "ffffffff82253980 T __x86_indirect_thunk_rax\n"
				   "ffffffff822539a0 T __x86_indirect_thunk_rbx\n";
	static const char swapped[] = "ffffffff82253980 T __x86_indirect_thunk_rax\n"
				      "ffffffff82253980 T __pi___x86_indirect_thunk_rax\n"
				      "ffffffff822539a0 T __x86_indirect_thunk_rbx\n";
	struct kp_ksyms k;
	const char *name;

	kp_ksyms_init(&k);
	kp_ksyms_add_text(&k, text, sizeof(text) - 1, false);
	name = kp_ksyms_lookup(&k, 0xffffffff82253985ull);
	ok(name && !strcmp(name, "__x86_indirect_thunk_rax"),
	   "kallsyms aliases: the last listed, as perf names it (%s)", name ? name : "none");
	kp_ksyms_release(&k);
	kp_ksyms_init(&k);
	kp_ksyms_add_text(&k, swapped, sizeof(swapped) - 1, false);
	name = kp_ksyms_lookup(&k, 0xffffffff82253985ull);
	ok(name && !strcmp(name, "__pi___x86_indirect_thunk_rax"),
	   "...listed the other way round, the other (%s)", name ? name : "none");
	kp_ksyms_release(&k);
}

/* Lines stored only to end the symbol before them name nothing: an address past the stored
 * names is not given the name of one far below it. */
static void test_ksyms_ends(void)
{
	static const char names[] = "ffffffff81000000 T first\nffffffff81000400 T third\n";
	static const char ends[] = "ffffffff81000100 t second\nffffffff81000500 t fourth\n"
				   "ffffffff81000400 T third\n";
	struct kp_ksyms k;
	const char *a, *b, *c;

	kp_ksyms_init(&k);
	kp_ksyms_add_text(&k, names, sizeof(names) - 1, false);
	kp_ksyms_add_text(&k, ends, sizeof(ends) - 1, true);
	a = kp_ksyms_lookup(&k, 0xffffffff81000080ull);
	b = kp_ksyms_lookup(&k, 0xffffffff81000200ull);
	c = kp_ksyms_lookup(&k, 0xffffffff81000410ull);
	ok(a && !strcmp(a, "first"), "an address before the next stored line is named (%s)",
	   a ? a : "none");
	ok(!b, "an address past an end is not named after the symbol below (%s)", b ? b : "none");
	ok(c && !strcmp(c, "third"), "a line stored as a name and as an end names (%s)",
	   c ? c : "none");
	ok(!kp_ksyms_lookup(&k, 0xffffffff81000600ull), "past the last end, nothing");
	kp_ksyms_release(&k);
}

/* @text into a new temporary file whose name goes to @path (mkstemp's template) */
static bool temp_text(char *path, const char *text)
{
	int fd = mkstemp(path);
	size_t n = strlen(text);
	bool ok = fd >= 0 && write(fd, text, n) == (ssize_t)n;

	if (fd >= 0)
		close(fd);
	return ok;
}

/*
 * A table read on its own thread (the live /proc/kallsyms of a perf.data's report): a lookup
 * waits for it, a module's tab becomes a space, out-of-order lines are sorted, and a table
 * released while the kernel still writes it stops there.
 */
static void test_ksyms_load(void)
{
	static const char text[] = "ffffffffc0001000 t mod_fn\t[mymod]\nffffffff81000000 T _text\n"
				   "ffffffff81000200 T second\n";
	char path[] = "/tmp/kprof-ksyms-XXXXXX", dir[] = "/tmp/kprof-ksyms-XXXXXX";
	char fifo[64], dev[64], live[64];
	int fd = mkstemp(path);
	struct kp_ksyms k;
	const char *a, *b;

	if (!ok(fd >= 0 && write(fd, text, sizeof(text) - 1) == (ssize_t)sizeof(text) - 1,
		"a kallsyms file at %s", path))
		return;
	close(fd);
	kp_ksyms_init(&k);
	ok(kp_ksyms_load(&k, path, NULL) == 0, "its loading starts");
	a = kp_ksyms_lookup(&k, 0xffffffffc0001010ull);
	b = kp_ksyms_lookup(&k, 0xffffffff81000210ull);
	ok(a && !strcmp(a, "mod_fn [mymod]"), "a module's symbol, loaded on a thread (%s)",
	   a ? a : "none");
	ok(b && !strcmp(b, "second") && k.nr == 3, "a kernel symbol after sorting (%s, %zu)",
	   b ? b : "none", k.nr);
	kp_ksyms_release(&k);
	unlink(path);
	kp_ksyms_init(&k);
	ok(kp_ksyms_load(&k, "/nonexistent/kallsyms", NULL) == -ENOENT && !k.nr,
	   "an unreadable file: -ENOENT, an empty table");
	kp_ksyms_release(&k);
	/* a FIFO or a device (here through a symbolic link, as perf's build-id cache could hold
	 * one) is refused unopened, named, and the fallback read */
	if (!ok(mkdtemp(dir) != NULL, "a directory %s", dir))
		return;
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(dev, sizeof(dev), "%s/zero", dir);
	snprintf(live, sizeof(live), "%s/live", dir);
	alarm(60); /* a load that blocks fails instead of hanging the suite */
	kp_ksyms_init(&k);
	if (ok(!mkfifo(fifo, 0600), "a FIFO at %s", fifo)) {
		is_u64(-kp_ksyms_load(&k, fifo, NULL), KP_EFIFO,
		       "a FIFO: -KP_EFIFO, not waited on");
		ok(k.refused && strstr(k.refused, fifo) && strstr(k.refused, "a FIFO"),
		   "... and named: %s", k.refused ? k.refused : "nothing");
	}
	kp_ksyms_release(&k);
	kp_ksyms_init(&k);
	if (ok(!symlink("/dev/zero", dev) && (fd = open(live, O_CREAT | O_WRONLY, 0600)) >= 0 &&
	       write(fd, text, sizeof(text) - 1) == (ssize_t)sizeof(text) - 1 && !close(fd),
	       "a link to /dev/zero at %s, a table at %s", dev, live)) {
		int rc = kp_ksyms_load(&k, dev, live);

		a = kp_ksyms_lookup(&k, 0xffffffff81000210ull);
		ok(!rc && a && !strcmp(a, "second") && k.refused && strstr(k.refused, "a device"),
		   "a device: refused, named (%s), and the fallback's names read",
		   k.refused ? k.refused : "nothing");
	}
	kp_ksyms_release(&k);
	alarm(0);
	unlink(fifo);
	unlink(dev);
	unlink(live);
	rmdir(dir);
	kp_ksyms_init(&k); /* released while the kernel still writes it: stopped, nothing leaks */
	ok(kp_ksyms_load(&k, "/proc/kallsyms", NULL) == 0, "/proc/kallsyms: loading starts");
	kp_ksyms_release(&k);
	ok(!k.nr && !k.loader, "released before any lookup: empty");
}

/*
 * A kallsyms file held to the recording's layout (perf's build-id cache copy of a perf.data's
 * kernel): used when the reference symbol and every module are where the recording had them;
 * set aside for the fallback when not, so that no frame is named from another boot's layout.
 */
static void test_ksyms_expect(void)
{
	static const char cached[] = "ffffffff81000000 T _text\nffffffff81000100 T cached_fn\n"
				     "ffffffffc0001000 t mod_fn\t[my_mod]\n"
				     "ffffffffc0001200 t mod_gn\t[my_mod]\n";
	static const char live[] = "ffffffff81200000 T _text\nffffffff81200100 T live_fn\n";
	char cpath[] = "/tmp/kprof-ksyms-XXXXXX", lpath[] = "/tmp/kprof-ksyms-XXXXXX";
	const char *from, *dropped, *name;
	struct kp_ksyms k;

	if (!ok(temp_text(cpath, cached) && temp_text(lpath, live), "two kallsyms files"))
		return;
	kp_ksyms_init(&k); /* the recording's layout: the copy fits */
	kp_ksyms_expect(&k, "_text", 0xffffffff81000000ull, 0);
	kp_ksyms_expect(&k, "[my_mod]", 0xffffffffc0001000ull, 0xffffffffc0002000ull);
	kp_ksyms_load(&k, cpath, lpath);
	name = kp_ksyms_lookup(&k, 0xffffffff81000110ull);
	from = kp_ksyms_source(&k, &dropped);
	ok(name && !strcmp(name, "cached_fn") && from && !strcmp(from, cpath) && !dropped,
	   "text and module where the recording had them: the copy names (%s)", name ? name : "-");
	kp_ksyms_release(&k);

	kp_ksyms_init(&k); /* kASLR: the text elsewhere, the fallback fits */
	kp_ksyms_expect(&k, "_text", 0xffffffff81200000ull, 0);
	kp_ksyms_load(&k, cpath, lpath);
	name = kp_ksyms_lookup(&k, 0xffffffff81200110ull);
	from = kp_ksyms_source(&k, &dropped);
	ok(name && !strcmp(name, "live_fn") && from && !strcmp(from, lpath) && dropped &&
	   !strcmp(dropped, cpath), "the text moved: the copy set aside, the fallback names (%s)",
	   name ? name : "-");
	kp_ksyms_release(&k);

	kp_ksyms_init(&k); /* a module loaded elsewhere, no fallback: nothing is named */
	kp_ksyms_expect(&k, "_text", 0xffffffff81000000ull, 0);
	kp_ksyms_expect(&k, "[my_mod]", 0xffffffffc0001100ull, 0xffffffffc0002000ull);
	kp_ksyms_load(&k, cpath, NULL);
	ok(!kp_ksyms_lookup(&k, 0xffffffff81000110ull) && !kp_ksyms_source(&k, &dropped) &&
	   dropped && !k.nr, "a module elsewhere, no fallback: an empty table, no name");
	kp_ksyms_release(&k);

	kp_ksyms_init(&k); /* a module the copy does not have */
	kp_ksyms_expect(&k, "[other]", 0xffffffffc0004000ull, 0xffffffffc0005000ull);
	kp_ksyms_load(&k, cpath, NULL);
	ok(!kp_ksyms_lookup(&k, 0xffffffff81000110ull), "a module missing from the copy: set aside");
	kp_ksyms_release(&k);

	kp_ksyms_init(&k); /* an expectation after the first lookup: held to at the next one */
	kp_ksyms_load(&k, cpath, lpath);
	name = kp_ksyms_lookup(&k, 0xffffffff81000110ull);
	kp_ksyms_expect(&k, "_text", 0xffffffff81200000ull, 0);
	ok(name && !strcmp(name, "cached_fn") && (name = kp_ksyms_lookup(&k, 0xffffffff81200110ull)) &&
	   !strcmp(name, "live_fn"), "an expectation that comes late is held to at the next lookup");
	kp_ksyms_release(&k);

	kp_ksyms_init(&k); /* the recording's own lines are never set aside */
	kp_ksyms_add_text(&k, cached, sizeof(cached) - 1, false);
	kp_ksyms_expect(&k, "_text", 0xffffffff81200000ull, 0);
	name = kp_ksyms_lookup(&k, 0xffffffff81000110ull);
	ok(name && !strcmp(name, "cached_fn") && !kp_ksyms_source(&k, NULL),
	   "lines of the recording are not held to the maps");
	kp_ksyms_release(&k);
	unlink(cpath);
	unlink(lpath);
}

int main(void)
{
	test_ksyms_unterminated();
	test_ksyms_ends();
	test_ksyms_aliases();
	test_ksyms_load();
	test_ksyms_expect();
	return tap_done();
}
