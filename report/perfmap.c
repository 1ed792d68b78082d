/* SPDX-License-Identifier: MIT */
#include "perfmap.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/util.h"

/* The jitdump format, as perf's tools/perf/util/jitdump.h defines it (version 1). */
#define JIT_MAGIC 0x4A695444u		/* "JiTD" in the writer's byte order */
#define JIT_MAGIC_SWAPPED 0x4454694Au
/* Each file is read whole: a bound on what it may cost. */
#define JIT_MAX_FILE (1ull << 30)
#define PERFMAP_MAX_FILE (1ull << 30)

enum { JIT_CODE_LOAD, JIT_CODE_MOVE, JIT_CODE_DEBUG_INFO, JIT_CODE_CLOSE };

struct jit_header {
	uint32_t magic, version, total_size, elf_mach, pad1, pid;
	uint64_t timestamp, flags;
};

struct jit_prefix {
	uint32_t id, total_size;
	uint64_t timestamp;
};

struct jit_load {	/* then the NUL-terminated name, then code_size bytes of code */
	struct jit_prefix p;
	uint32_t pid, tid;
	uint64_t vma, code_addr, code_size, code_index;
};

struct jit_move {
	struct jit_prefix p;
	uint32_t pid, tid;
	uint64_t vma, old_code_addr, new_code_addr, code_size, code_index;
};

struct jit_debug {	/* then nr_entry of: u64 addr, s32 line, s32 discrim, file name */
	struct jit_prefix p;
	uint64_t code_addr, nr_entry;
};

static int cmp_ent(const void *a, const void *b)
{
	const struct kp_perfmap_ent *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* "START SIZE NAME": hex numbers with or without 0x; the name runs to the end of the line. */
static int parse_line(char *line, struct kp_perfmap_ent *e)
{
	char *p = line, *end;
	size_t n;

	memset(e, 0, sizeof(*e));
	e->start = strtoull(p, &end, 16);
	if (end == p || *end != ' ')
		return -1;
	p = end + 1;
	e->end = e->start + strtoull(p, &end, 16);
	if (end == p || *end != ' ' || e->end <= e->start)
		return -1;
	p = end + 1;
	n = strcspn(p, "\r\n");
	if (!n)
		return -1;
	p[n] = '\0';
	e->name = kp_xstrdup(p);
	return 0;
}

/* The first thing wrong with a perf map or jitdump, and each after it, as sentences naming the
 * file and where. */
__attribute__((format(printf, 3, 4)))
static void problem(struct kp_perfmap *m, const char *path, const char *fmt, ...)
{
	char buf[512];
	size_t had = m->problem ? strlen(m->problem) : 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	m->problem = kp_xrealloc(m->problem, had + strlen(path) + strlen(buf) + 8);
	sprintf(m->problem + had, "%s'%s': %s", had ? "; " : "", path, buf);
}

/*
 * Open the perf map or jitdump (@what) at @path as kp_open_file() does, the owner held to the
 * user running kprof or root unless @any_owner, and read it whole (what it held when opened,
 * at most @max bytes) into a malloc'ed buffer with a NUL after its *@len bytes. NULL, said in
 * m->problem, when it cannot be used; NULL with *@len 0 and nothing said when there is no
 * such file and @missing_ok.
 */
static char *read_jit_file(struct kp_perfmap *m, const char *path, const char *what,
			   uint64_t max, bool any_owner, bool missing_ok, size_t *len)
{
	uint64_t size;
	int fd = kp_open_file(path, max, any_owner ? 0 : KP_OPEN_OWNED, &size), err;
	char *text;

	*len = 0;
	if (fd < 0) {
		if ((fd == -ENOENT || fd == -ENOTDIR) && missing_ok)
			return NULL;
		if (fd == -EFBIG)
			problem(m, path, "larger than the %llu MiB kprof reads of %s: ignored",
				(unsigned long long)(max >> 20), what);
		else if (fd <= -KP_ERROR_BASE)
			problem(m, path, "%s: ignored%s", kp_strerror(fd),
				fd == -KP_EOWNER ? ", as perf does (-f, --force reads it)" : "");
		else
			problem(m, path, "cannot be read (%s): ignored", kp_strerror(fd));
		return NULL;
	}
	err = kp_read_max(fd, (size_t)size, &text, len);
	close(fd);
	if (err) {
		problem(m, path, "cannot be read (%s): ignored", kp_strerror(err));
		free(text);
		return NULL;
	}
	text = kp_xrealloc(text, *len + 1);
	text[*len] = '\0';
	return text;
}

void kp_perfmap_load(struct kp_perfmap *m, const char *dir, uint32_t pid, bool any_owner)
{
	char path[4096], *text, *line, *next;
	size_t len;

	m->loaded = 1;
	snprintf(path, sizeof(path), "%s/perf-%u.map", dir, pid);
	text = read_jit_file(m, path, "a perf map", PERFMAP_MAX_FILE, any_owner, true, &len);
	if (!text)
		return;
	m->found = 1;
	for (line = text; line < text + len; line = next) {
		struct kp_perfmap_ent e;
		char *nl = memchr(line, '\n', (size_t)(text + len - line));

		next = nl ? nl + 1 : text + len;
		if (nl)
			*nl = '\0';
		if (parse_line(line, &e))
			continue;
		e.seq = ++m->seq;
		KP_GROW(m->ents, m->cap, m->nr + 1);
		m->ents[m->nr++] = e;
	}
	free(text);
	if (m->nr > 1)
		qsort(m->ents, m->nr, sizeof(*m->ents), cmp_ent);
}

/* The entry covering @addr: of the few starting at or below it, the one loaded last. */
const struct kp_perfmap_ent *kp_perfmap_lookup(const struct kp_perfmap *m, uint64_t addr)
{
	const struct kp_perfmap_ent *best = NULL;
	size_t lo = 0, hi = m->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->ents[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0 && lo - i <= 16;)
		if (addr < m->ents[i].end && (!best || m->ents[i].seq > best->seq))
			best = &m->ents[i];
	return best;
}

const struct kp_perfmap_line *kp_perfmap_line(const struct kp_perfmap_ent *e, uint64_t addr)
{
	const struct kp_perfmap_line *l = NULL;

	for (size_t i = 0; i < e->nr_lines && e->lines[i].addr <= addr; i++)
		l = &e->lines[i];
	return l;
}

static void free_ent(struct kp_perfmap_ent *e)
{
	for (size_t i = 0; i < e->nr_lines; i++)
		free(e->lines[i].file);
	free(e->lines);
	free(e->name);
}

void kp_perfmap_release(struct kp_perfmap *m)
{
	for (size_t i = 0; i < m->nr; i++)
		free_ent(&m->ents[i]);
	free(m->ents);
	free(m->problem);
	memset(m, 0, sizeof(*m));
}

bool kp_perfmap_is_jitdump(const char *path, uint32_t *pid)
{
	const char *base = strrchr(path, '/');
	unsigned long v;
	char *end;

	base = base ? base + 1 : path;
	if (strncmp(base, "jit-", 4) || base[4] < '0' || base[4] > '9')
		return false;
	errno = 0;
	v = strtoul(base + 4, &end, 10);
	if (errno || v > UINT32_MAX || strcmp(end, ".dump"))
		return false;
	*pid = (uint32_t)v;
	return true;
}

/* The debug info record at @p (@len bytes): its lines, for the code load that follows. */
static struct kp_perfmap_line *debug_lines(const uint8_t *p, size_t len, size_t *nr)
{
	const struct jit_debug *d = (const void *)p;
	struct kp_perfmap_line *lines = NULL;
	const char *prev = "";
	size_t off = sizeof(*d), cap = 0;

	*nr = 0;
	for (uint64_t i = 0; i < d->nr_entry && off + 16 < len; i++) {
		uint64_t addr;
		int32_t line;
		const char *file = (const char *)p + off + 16;
		const char *nul = memchr(file, 0, len - off - 16);

		if (!nul)
			break;
		memcpy(&addr, p + off, sizeof(addr));
		memcpy(&line, p + off + 8, sizeof(line));
		if ((uint8_t)file[0] == 0xff && file[1] == 0) /* the same file as the entry before */
			file = prev;
		prev = file;
		KP_GROW(lines, cap, *nr + 1);
		lines[(*nr)++] = (struct kp_perfmap_line){ addr, kp_xstrdup(file),
							   line > 0 ? (uint32_t)line : 0 };
		off = (size_t)(nul + 1 - (const char *)p);
	}
	return lines;
}

static void add_load(struct kp_perfmap *m, const struct jit_load *l, const char *name,
		     struct kp_perfmap_line *lines, size_t nr_lines)
{
	struct kp_perfmap_ent *e;

	KP_GROW(m->ents, m->cap, m->nr + 1);
	e = &m->ents[m->nr++];
	*e = (struct kp_perfmap_ent){ l->code_addr, l->code_addr + l->code_size, kp_xstrdup(name),
				      ++m->seq, l->code_index, lines, nr_lines };
}

/*
 * A move: the code of @index (its latest load) now at a new address, a new entry there. The
 * code moved is the code loaded: a move of more bytes than that is refused (-1, with the size
 * of the code it names in *@had); 0 when moved or when no load is at the old address.
 */
static int move_code(struct kp_perfmap *m, const struct jit_move *mv, uint64_t *had)
{
	for (size_t i = m->nr; i-- > 0;) {
		struct kp_perfmap_ent *e = &m->ents[i], moved;
		int64_t delta = (int64_t)(mv->new_code_addr - mv->old_code_addr);

		if (e->index != mv->code_index || e->start != mv->old_code_addr)
			continue;
		if (mv->code_size > e->end - e->start) {
			*had = e->end - e->start;
			return -1;
		}
		moved = (struct kp_perfmap_ent){ mv->new_code_addr, mv->new_code_addr + mv->code_size,
						 kp_xstrdup(e->name), ++m->seq, e->index, NULL, 0 };
		if (e->nr_lines) {
			moved.lines = kp_xcalloc(e->nr_lines, sizeof(*moved.lines));
			for (size_t j = 0; j < e->nr_lines; j++)
				moved.lines[j] = (struct kp_perfmap_line){
					e->lines[j].addr + (uint64_t)delta, kp_xstrdup(e->lines[j].file),
					e->lines[j].line };
			moved.nr_lines = e->nr_lines;
		}
		KP_GROW(m->ents, m->cap, m->nr + 1);
		m->ents[m->nr++] = moved;
		return 0;
	}
	return 0;
}

/* The code records refused in one jitdump: how many, and the first, where and why. */
struct refusals {
	size_t nr, off;
	char why[160];
};

__attribute__((format(printf, 3, 4)))
static void refuse(struct refusals *r, size_t off, const char *fmt, ...)
{
	va_list ap;

	if (!r->nr++) {
		r->off = off;
		va_start(ap, fmt);
		vsnprintf(r->why, sizeof(r->why), fmt, ap);
		va_end(ap);
	}
}

/*
 * A code load: its name, and its code, which the record carries after the name, as perf inject
 * reads it. A code_size beyond the bytes the record holds would claim addresses no code was
 * written to (up to all of them): such a load is refused, as is one with no name or that wraps.
 * Returns 1 when taken, 0 when refused or empty.
 */
static int code_load(struct kp_perfmap *m, const uint8_t *rec, uint32_t size, size_t off,
		     struct kp_perfmap_line **lines, size_t *nr_lines, struct refusals *r)
{
	struct jit_load l;
	const char *name = (const char *)rec + sizeof(l);
	const char *nul = memchr(name, 0, size - sizeof(l));
	uint64_t holds;

	memcpy(&l, rec, sizeof(l));
	if (!nul) {
		refuse(r, off, "it has no name");
		return 0;
	}
	holds = size - sizeof(l) - (uint64_t)(nul + 1 - name);
	if (l.code_size > holds) {
		refuse(r, off, "its code_size, %llu bytes, is more than the %llu bytes of code "
		       "its record holds", (unsigned long long)l.code_size,
		       (unsigned long long)holds);
		return 0;
	}
	if (l.code_addr + l.code_size < l.code_addr) {
		refuse(r, off, "its code wraps past the end of the address space");
		return 0;
	}
	if (!l.code_size)
		return 0;
	add_load(m, &l, name, *lines, *nr_lines);
	*lines = NULL;
	*nr_lines = 0;
	return 1;
}

size_t kp_perfmap_load_jitdump(struct kp_perfmap *m, const char *path, uint32_t pid,
			       bool any_owner)
{
	size_t len, off, loads = 0, nr_lines = 0;
	uint8_t *buf = (uint8_t *)read_jit_file(m, path, "a jitdump", JIT_MAX_FILE, any_owner,
						false, &len);
	struct kp_perfmap_line *lines = NULL;
	struct refusals refused = { 0 };
	struct jit_header h;
	bool bad = true;

	if (!buf)
		return 0;
	memcpy(&h, buf, len < sizeof(h) ? len : sizeof(h));
	if (len < sizeof(h) || (h.magic != JIT_MAGIC && h.magic != JIT_MAGIC_SWAPPED))
		problem(m, path, "not a jitdump (no JiTD magic at offset 0): ignored");
	else if (h.magic == JIT_MAGIC_SWAPPED)
		problem(m, path, "a jitdump of the other byte order: ignored");
	else if (h.pid != pid)
		problem(m, path, "written by process %u, not by process %u that mapped it: ignored",
			h.pid, pid);
	else if (h.total_size < sizeof(h) || h.total_size > len)
		problem(m, path, "its header claims %u bytes, not a size the file holds: ignored",
			h.total_size);
	else
		bad = false;
	if (bad) {
		free(buf);
		return 0;
	}
	for (off = h.total_size; off + sizeof(struct jit_prefix) <= len;) {
		struct jit_prefix pr;

		memcpy(&pr, buf + off, sizeof(pr));
		if (pr.total_size < sizeof(pr) || pr.total_size > len - off) {
			problem(m, path, "the record at offset %zu runs past the end of the file: the "
				"records from there on are ignored", off);
			break;
		}
		if (pr.id == JIT_CODE_CLOSE)
			break;
		/* records are read in place: copy a fixed part out, as the file has no alignment */
		if (pr.id == JIT_CODE_LOAD && pr.total_size > sizeof(struct jit_load)) {
			loads += (size_t)code_load(m, buf + off, pr.total_size, off, &lines,
						   &nr_lines, &refused);
		} else if (pr.id == JIT_CODE_MOVE && pr.total_size >= sizeof(struct jit_move)) {
			struct jit_move mv;
			uint64_t had = 0;

			memcpy(&mv, buf + off, sizeof(mv));
			if (mv.new_code_addr + mv.code_size < mv.new_code_addr)
				refuse(&refused, off, "the code it moves wraps past the end of the "
				       "address space");
			else if (move_code(m, &mv, &had))
				refuse(&refused, off, "it moves %llu bytes of code, loaded with "
				       "%llu", (unsigned long long)mv.code_size,
				       (unsigned long long)had);
		} else if (pr.id == JIT_CODE_DEBUG_INFO && pr.total_size >= sizeof(struct jit_debug)) {
			uint8_t *rec = kp_xmalloc(pr.total_size);

			memcpy(rec, buf + off, pr.total_size);
			for (size_t i = 0; i < nr_lines; i++)
				free(lines[i].file);
			free(lines);
			lines = debug_lines(rec, pr.total_size, &nr_lines);
			free(rec);
		}
		off += pr.total_size;
	}
	if (refused.nr == 1)
		problem(m, path, "the code record at offset %zu is refused: %s", refused.off,
			refused.why);
	else if (refused.nr)
		problem(m, path, "%zu code records are refused, the first at offset %zu: %s",
			refused.nr, refused.off, refused.why);
	for (size_t i = 0; i < nr_lines; i++)
		free(lines[i].file);
	free(lines);
	free(buf);
	if (m->nr > 1)
		qsort(m->ents, m->nr, sizeof(*m->ents), cmp_ent);
	return loads;
}
