/* SPDX-License-Identifier: MIT */
#include "perfmap.h"

#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ehhdr.h"
#include "formats/util.h"
#include "report/base/search.h"

/* The jitdump format, as perf's tools/perf/util/jitdump.h defines it (version 1). */
#define JIT_MAGIC 0x4A695444u		/* "JiTD" in the writer's byte order */
#define JIT_MAGIC_SWAPPED 0x4454694Au
/* Each file is read whole: a bound on what it may cost. */
#define JIT_MAX_FILE (1ull << 30)
#define PERFMAP_MAX_FILE (1ull << 30)

enum { JIT_CODE_LOAD, JIT_CODE_MOVE, JIT_CODE_DEBUG_INFO, JIT_CODE_CLOSE,
       JIT_CODE_UNWINDING_INFO };
/* dump_off of a jitdump never to be read on: refused, or closed */
#define DUMP_DONE UINT64_MAX

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

struct jit_unwinding {	/* then unwinding_size bytes: .eh_frame, then .eh_frame_hdr */
	struct jit_prefix p;
	uint64_t unwinding_size, eh_frame_hdr_size, mapped_size;
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
 * user running kprof or root unless m->any_owner, and read it (what it held when opened, at
 * most @max bytes of it) from offset @from on into a malloc'ed buffer with a NUL after its
 * *@len bytes. NULL, said in m->problem when @say, when it cannot be used; NULL with *@len 0
 * and nothing said when it holds nothing beyond @from, or there is no such file and
 * @missing_ok.
 */
static char *read_jit_file(struct kp_perfmap *m, const char *path, const char *what,
			   uint64_t max, uint64_t from, bool missing_ok, bool say, size_t *len)
{
	uint64_t size;
	int fd = kp_open_file(path, max, m->any_owner ? 0 : KP_OPEN_OWNED, &size), err;
	char *text;

	*len = 0;
	if (fd < 0) {
		if (((fd == -ENOENT || fd == -ENOTDIR) && missing_ok) || !say)
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
	if (size <= from || (from && lseek(fd, (off_t)from, SEEK_SET) != (off_t)from)) {
		close(fd);
		return NULL;
	}
	err = kp_read_max(fd, (size_t)(size - from), &text, len);
	close(fd);
	if (err) {
		if (say)
			problem(m, path, "cannot be read (%s): ignored", kp_strerror(err));
		free(text);
		return NULL;
	}
	text = kp_xrealloc(text, *len + 1);
	text[*len] = '\0';
	return text;
}

/*
 * The perf map's lines from m->map_off on. A last line without a newline is taken when @say
 * (the file is read whole, as it is now), and read again with its end on a later call.
 */
static size_t read_map(struct kp_perfmap *m, bool say)
{
	char *text, *line, *next;
	size_t len, added = 0;

	text = read_jit_file(m, m->map_path, "a perf map", PERFMAP_MAX_FILE, m->map_off, true, say,
			     &len);
	if (!text)
		return 0;
	m->found = 1;
	for (line = text; line < text + len; line = next) {
		struct kp_perfmap_ent e;
		char *nl = memchr(line, '\n', (size_t)(text + len - line));

		if (!nl && !say)
			break;
		next = nl ? nl + 1 : text + len;
		if (nl) {
			*nl = '\0';
			m->map_off += (uint64_t)(next - line);
		}
		if (parse_line(line, &e))
			continue;
		e.seq = ++m->seq;
		KP_GROW(m->ents, m->cap, m->nr + 1);
		m->ents[m->nr++] = e;
		added++;
	}
	free(text);
	if (added && m->nr > 1)
		qsort(m->ents, m->nr, sizeof(*m->ents), cmp_ent);
	return added;
}

void kp_perfmap_load(struct kp_perfmap *m, const char *dir, uint32_t pid, bool any_owner)
{
	size_t n = strlen(dir) + 32;

	m->loaded = 1;
	m->pid = pid;
	m->any_owner = any_owner;
	free(m->map_path);
	m->map_path = kp_xmalloc(n);
	snprintf(m->map_path, n, "%s/perf-%u.map", dir, pid);
	read_map(m, true);
}

/* The entry covering @addr: of the few starting at or below it, the one loaded last. */
const struct kp_perfmap_ent *kp_perfmap_lookup(const struct kp_perfmap *m, uint64_t addr)
{
	const struct kp_perfmap_ent *best = NULL;
	size_t lo = KP_FIRST_ABOVE(m->ents, m->nr, start, addr);

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

static void free_lines(struct kp_perfmap_line *lines, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(lines[i].file);
	free(lines);
}

static void free_unwind(struct kp_perfmap_unwind *u)
{
	if (!u)
		return;
	if (u->cfi)
		dwarf_cfi_end(u->cfi);
	if (u->elf)
		elf_end(u->elf);
	free(u->image);
	free(u->data);
	free(u->bad);
	free(u);
}

static void free_ent(struct kp_perfmap_ent *e)
{
	free_lines(e->lines, e->nr_lines);
	free_unwind(e->unwind);
	free(e->name);
}

void kp_perfmap_release(struct kp_perfmap *m)
{
	for (size_t i = 0; i < m->nr; i++)
		free_ent(&m->ents[i]);
	free(m->ents);
	free(m->problem);
	free(m->map_path);
	free(m->dump_path);
	free_lines(m->next_lines, m->nr_next_lines);
	free_unwind(m->next_unwind);
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

/* The records of a kind refused in one reading of a jitdump: how many, and the first, where
 * and why. */
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

/* What was refused, said in m->problem: @one and @many name the records ("code record",
 * "code records"), @verdict what became of them. */
static void say_refused(struct kp_perfmap *m, const struct refusals *r, const char *one,
			const char *many, const char *verdict)
{
	if (r->nr == 1)
		problem(m, m->dump_path, "the %s at offset %zu is %s: %s", one, r->off, verdict,
			r->why);
	else if (r->nr)
		problem(m, m->dump_path, "%zu %s are %s, the first at offset %zu: %s", r->nr, many,
			verdict, r->off, r->why);
}

/* --- unwinding info ------------------------------------------------------------------------ */

__attribute__((format(printf, 2, 3)))
static void unwind_bad(struct kp_perfmap_unwind *u, const char *fmt, ...)
{
	char buf[160];
	va_list ap;

	if (u->bad)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	u->bad = kp_xstrdup(buf);
}

/*
 * An unwinding info record (@size bytes at @rec, at offset @off of the file), for the code load
 * that follows: its sizes held to the record (the .eh_frame and .eh_frame_hdr it carries), or
 * the reason they are not, which stops the frames of that code.
 */
static struct kp_perfmap_unwind *unwinding_info(const struct kp_perfmap *m, const uint8_t *rec,
						uint32_t size, size_t off)
{
	struct kp_perfmap_unwind *u = kp_xcalloc(1, sizeof(*u));
	struct jit_unwinding w;

	u->machine = m->machine;
	u->off = off;
	if (size < sizeof(w)) {
		unwind_bad(u, "its record, %u bytes, is shorter than the %zu of an unwinding info's "
			   "sizes", size, sizeof(w));
		return u;
	}
	memcpy(&w, rec, sizeof(w));
	if (w.unwinding_size > size - sizeof(w))
		unwind_bad(u, "its unwinding_size, %llu bytes, is more than the %llu bytes its "
			   "record holds", (unsigned long long)w.unwinding_size,
			   (unsigned long long)(size - sizeof(w)));
	else if (w.eh_frame_hdr_size > w.unwinding_size)
		unwind_bad(u, "its eh_frame_hdr_size, %llu bytes, is more than its unwinding_size, "
			   "%llu", (unsigned long long)w.eh_frame_hdr_size,
			   (unsigned long long)w.unwinding_size);
	else if (!w.eh_frame_hdr_size || w.eh_frame_hdr_size == w.unwinding_size)
		unwind_bad(u, "it has no %s", w.eh_frame_hdr_size ? ".eh_frame" : ".eh_frame_hdr");
	if (u->bad)
		return u;
	u->eh_frame_size = w.unwinding_size - w.eh_frame_hdr_size;
	u->hdr_size = w.eh_frame_hdr_size;
	u->data = kp_xmalloc((size_t)w.unwinding_size);
	memcpy(u->data, rec + sizeof(w), (size_t)w.unwinding_size);
	return u;
}

static Dwarf_CFI *unwind_cfi(struct kp_perfmap_unwind *u, uint64_t code);
static int unwind_frame(struct kp_perfmap_unwind *u, uint64_t code, uint64_t pc, Dwarf_Frame **f);

/* The functions of @u's search table checked: each must have a row of CFI libdw reads. */
#define CHECKED_FDES 16

/*
 * @u placed after the code it describes, @size bytes at @addr, as perf inject places it: its
 * .eh_frame_hdr must be one its search can use, point at its .eh_frame, and list functions in
 * that code with FDEs in that .eh_frame. Otherwise @u says why it is unusable.
 */
static void place_unwind(struct kp_perfmap_unwind *u, uint64_t addr, uint64_t size)
{
	uint64_t eh, hdr, end;
	const uint8_t *p;
	struct kp_ehhdr h;
	Dwarf_Frame *f;

	if (u->bad)
		return;
	u->eh_frame_off = (size + 7) & ~7ull;
	p = u->data + u->eh_frame_size;
	if (__builtin_add_overflow(addr, u->eh_frame_off, &eh) ||
	    __builtin_add_overflow(eh, u->eh_frame_size + u->hdr_size, &end)) {
		unwind_bad(u, "placed after its code, it wraps past the end of the address space");
		return;
	}
	hdr = eh + u->eh_frame_size;
	if (!kp_ehhdr_parse(p, (size_t)u->hdr_size, hdr, &h)) {
		unwind_bad(u, "its .eh_frame_hdr is not one of version 1 with a search table of "
			   "datarel sdata4 entries within its %llu bytes",
			   (unsigned long long)u->hdr_size);
		return;
	}
	if (h.has_eh_frame && h.eh_frame != eh) {
		unwind_bad(u, "its .eh_frame_hdr puts .eh_frame %+lld bytes from where it is",
			   (long long)(h.eh_frame - eh));
		return;
	}
	for (uint32_t i = 0; i < h.nr; i++) {
		int32_t start, fde;
		uint64_t at_start, at_fde;

		kp_ehhdr_entry(p, &h, i, &start, &fde);
		at_start = hdr + (uint64_t)(int64_t)start;
		at_fde = hdr + (uint64_t)(int64_t)fde;
		if (at_start - addr >= size) {
			unwind_bad(u, "its .eh_frame_hdr puts a function %+lld bytes from its code's "
				   "start, outside its %llu bytes", (long long)(at_start - addr),
				   (unsigned long long)size);
			return;
		}
		if (at_fde - eh >= u->eh_frame_size || u->eh_frame_size - (at_fde - eh) < 8) {
			unwind_bad(u, "its .eh_frame_hdr puts an FDE %+lld bytes from the start of its "
				   "%llu-byte .eh_frame, outside it", (long long)(at_fde - eh),
				   (unsigned long long)u->eh_frame_size);
			return;
		}
		if (i >= CHECKED_FDES)
			continue;
		if (unwind_frame(u, addr, at_start, &f)) { /* the reason it gave, if any, stands */
			unwind_bad(u, "its .eh_frame has no CFI for the function its .eh_frame_hdr "
				   "puts %+lld bytes from its code's start", (long long)(at_start - addr));
			return;
		}
		free(f);
	}
	/* ... and the row of the code's last byte, if it has one, must not reach beyond it */
	if (!unwind_frame(u, addr, addr + size - 1, &f))
		free(f);
	else if (u->bad)
		return;
	u->table = u->eh_frame_size + h.table;
	u->nr_fdes = h.nr;
}

static struct kp_perfmap_unwind *copy_unwind(const struct kp_perfmap_unwind *u)
{
	struct kp_perfmap_unwind *c;

	if (!u)
		return NULL;
	c = kp_xcalloc(1, sizeof(*c));
	*c = (struct kp_perfmap_unwind){ .eh_frame_size = u->eh_frame_size,
					 .hdr_size = u->hdr_size,
					 .eh_frame_off = u->eh_frame_off,
					 .table = u->table,
					 .nr_fdes = u->nr_fdes,
					 .machine = u->machine,
					 .off = u->off };
	if (u->data) {
		c->data = kp_xmalloc((size_t)(u->eh_frame_size + u->hdr_size));
		memcpy(c->data, u->data, (size_t)(u->eh_frame_size + u->hdr_size));
	}
	c->bad = u->bad ? kp_xstrdup(u->bad) : NULL;
	return c;
}

/* --- code -------------------------------------------------------------------------------- */

/* A load at its address, with what the records before it said of it (taken from @m). */
static void add_load(struct kp_perfmap *m, const struct jit_load *l, const char *name,
		     struct refusals *unwind_refused)
{
	struct kp_perfmap_ent *e;
	struct kp_perfmap_unwind *u = m->next_unwind;

	if (u) {
		place_unwind(u, l->code_addr, l->code_size);
		if (u->bad)
			refuse(unwind_refused, (size_t)u->off, "%s", u->bad);
	}
	KP_GROW(m->ents, m->cap, m->nr + 1);
	e = &m->ents[m->nr++];
	*e = (struct kp_perfmap_ent){ l->code_addr, l->code_addr + l->code_size, kp_xstrdup(name),
				      ++m->seq, l->code_index, m->next_lines, m->nr_next_lines, u };
	m->next_lines = NULL;
	m->nr_next_lines = 0;
	m->next_unwind = NULL;
}

/*
 * A move: the code of @index (its latest load) now at a new address, a new entry there, with
 * its lines and unwinding info, which move with it. The code moved is the code loaded: a move
 * of more bytes than that is refused (-1, with the size of the code it names in *@had); 0 when
 * moved or when no load is at the old address.
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
						 kp_xstrdup(e->name), ++m->seq, e->index, NULL, 0,
						 copy_unwind(e->unwind) };
		if (moved.unwind && !moved.unwind->bad &&
		    mv->new_code_addr + moved.unwind->eh_frame_off + moved.unwind->eh_frame_size +
				    moved.unwind->hdr_size < mv->new_code_addr)
			unwind_bad(moved.unwind, "moved, it wraps past the end of the address space");
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

/*
 * A code load: its name, and its code, which the record carries after the name, as perf inject
 * reads it. A code_size beyond the bytes the record holds would claim addresses no code was
 * written to (up to all of them): such a load is refused, as is one with no name or that wraps.
 * Returns 1 when taken, 0 when refused or empty. Either way, the unwinding info before it was
 * for it, and is gone.
 */
static int code_load(struct kp_perfmap *m, const uint8_t *rec, uint32_t size, size_t off,
		     struct refusals *r, struct refusals *unwind_refused)
{
	struct jit_load l;
	const char *name = (const char *)rec + sizeof(l);
	const char *nul = memchr(name, 0, size - sizeof(l));
	uint64_t holds;

	memcpy(&l, rec, sizeof(l));
	if (!nul) {
		refuse(r, off, "it has no name");
		goto refused;
	}
	holds = size - sizeof(l) - (uint64_t)(nul + 1 - name);
	if (l.code_size > holds) {
		refuse(r, off, "its code_size, %llu bytes, is more than the %llu bytes of code "
		       "its record holds", (unsigned long long)l.code_size,
		       (unsigned long long)holds);
		goto refused;
	}
	if (l.code_addr + l.code_size < l.code_addr) {
		refuse(r, off, "its code wraps past the end of the address space");
		goto refused;
	}
	if (!l.code_size)
		goto refused;
	add_load(m, &l, name, unwind_refused);
	return 1;
refused:
	free_unwind(m->next_unwind);
	m->next_unwind = NULL;
	return 0;
}

/*
 * The jitdump's records from m->dump_off on (its header first, when that is 0), until the file
 * ends, a record runs past its end (where the next reading starts), or it is closed. What is
 * wrong is said in m->problem when @say. Returns the code loads taken.
 */
/*
 * The jitdump header at the start of @buf (@len bytes): its size, where the records begin; 0
 * when the writer has not written it all yet (and not @say), or, said when @say, when it is no
 * jitdump of this process (the dump is then done with).
 */
static size_t dump_header(struct kp_perfmap *m, const uint8_t *buf, size_t len, bool say)
{
	struct jit_header h;
	const char *bad = NULL;
	char why[160];

	memcpy(&h, buf, len < sizeof(h) ? len : sizeof(h));
	if (len < sizeof(h) && !say) /* its writer has not written it all yet */
		return 0;
	if (len < sizeof(h) || (h.magic != JIT_MAGIC && h.magic != JIT_MAGIC_SWAPPED))
		bad = "not a jitdump (no JiTD magic at offset 0): ignored";
	else if (h.magic == JIT_MAGIC_SWAPPED)
		bad = "a jitdump of the other byte order: ignored";
	else if (h.pid != m->pid)
		bad = why, snprintf(why, sizeof(why), "written by process %u, not by process "
				    "%u that mapped it: ignored", h.pid, m->pid);
	else if (h.total_size < sizeof(h) || h.total_size > len)
		bad = why, snprintf(why, sizeof(why), "its header claims %u bytes, not a size "
				    "the file holds: ignored", h.total_size);
	if (bad) {
		if (say)
			problem(m, m->dump_path, "%s", bad);
		m->dump_off = DUMP_DONE;
		return 0;
	}
	m->machine = (uint16_t)h.elf_mach;
	return h.total_size;
}

/* One record @rec of the dump, of @size bytes and kind @id, at offset @at of the file: 1 when
 * it loaded code; what it refused counted in @refused and @unwind_refused. */
static size_t dump_record(struct kp_perfmap *m, const uint8_t *rec, uint32_t id, size_t size,
			  size_t at, struct refusals *refused, struct refusals *unwind_refused)
{
	if (id == JIT_CODE_LOAD && size > sizeof(struct jit_load))
		return (size_t)code_load(m, rec, size, at, refused, unwind_refused);
	if (id == JIT_CODE_MOVE && size >= sizeof(struct jit_move)) {
		struct jit_move mv;
		uint64_t had = 0;

		memcpy(&mv, rec, sizeof(mv));
		if (mv.new_code_addr + mv.code_size < mv.new_code_addr)
			refuse(refused, at, "the code it moves wraps past the end of the address "
			       "space");
		else if (move_code(m, &mv, &had))
			refuse(refused, at, "it moves %llu bytes of code, loaded with %llu",
			       (unsigned long long)mv.code_size, (unsigned long long)had);
	} else if (id == JIT_CODE_DEBUG_INFO && size >= sizeof(struct jit_debug)) {
		free_lines(m->next_lines, m->nr_next_lines);
		m->next_lines = debug_lines(rec, size, &m->nr_next_lines);
	} else if (id == JIT_CODE_UNWINDING_INFO) { /* a later one replaces it, as in perf */
		free_unwind(m->next_unwind);
		m->next_unwind = unwinding_info(m, rec, size, at);
	}
	return 0;
}

static size_t read_dump(struct kp_perfmap *m, bool say)
{
	uint64_t base = m->dump_off;
	size_t len, off = 0, loads = 0;
	uint8_t *buf = (uint8_t *)read_jit_file(m, m->dump_path, "a jitdump", JIT_MAX_FILE, base,
						false, say, &len);
	struct refusals refused = { 0 }, unwind_refused = { 0 };

	if (!buf)
		return 0;
	if (!base && !(off = dump_header(m, buf, len, say))) {
		free(buf);
		return 0;
	}
	while (off + sizeof(struct jit_prefix) <= len) {
		struct jit_prefix pr;
		uint8_t *rec;

		memcpy(&pr, buf + off, sizeof(pr));
		if (pr.total_size < sizeof(pr) || pr.total_size > len - off) {
			if (say)
				problem(m, m->dump_path, "the record at offset %llu runs past the end of "
					"the file: the records from there on are ignored",
					(unsigned long long)(base + off));
			break;
		}
		if (pr.id == JIT_CODE_CLOSE) {
			off = len; /* (where it stopped matters no more) */
			m->dump_off = DUMP_DONE;
			break;
		}
		/* records are read in place: copied out whole, as the file has no alignment */
		rec = kp_xmalloc(pr.total_size);
		memcpy(rec, buf + off, pr.total_size);
		loads += dump_record(m, rec, pr.id, pr.total_size, (size_t)(base + off), &refused,
				     &unwind_refused);
		free(rec);
		off += pr.total_size;
	}
	if (m->dump_off != DUMP_DONE)
		m->dump_off = base + off;
	free(buf);
	if (say) {
		say_refused(m, &refused, "code record", "code records", "refused");
		say_refused(m, &unwind_refused, "unwinding info record", "unwinding info records",
			    "unusable (DWARF stacks stop in its code)");
	}
	if (m->nr > 1)
		qsort(m->ents, m->nr, sizeof(*m->ents), cmp_ent);
	return loads;
}

size_t kp_perfmap_load_jitdump(struct kp_perfmap *m, const char *path, uint32_t pid,
			       bool any_owner)
{
	free(m->dump_path);
	m->dump_path = kp_xstrdup(path);
	m->dump_off = 0;
	m->pid = pid;
	m->any_owner = any_owner;
	return read_dump(m, true);
}

size_t kp_perfmap_reread(struct kp_perfmap *m)
{
	size_t had = m->nr;

	if (m->map_path)
		read_map(m, false);
	if (m->dump_path && m->dump_off != DUMP_DONE)
		read_dump(m, false);
	return m->nr - had;
}

/* --- the CFI ------------------------------------------------------------------------------- */

/*
 * An ELF file in memory of @u's .eh_frame alone, at address @eh, for libdw to read as it reads a
 * binary's: the ELF header, .eh_frame, the section names, the section headers. Its
 * .eh_frame_hdr is left out: libdw finds the FDE in .eh_frame itself, and the search table was
 * held to it already.
 */
static uint8_t *cfi_image(const struct kp_perfmap_unwind *u, uint64_t eh, size_t *size)
{
	static const char names[] = "\0.eh_frame\0.shstrtab";
	size_t names_at = sizeof(Elf64_Ehdr) + (size_t)u->eh_frame_size;
	size_t sh_at = (names_at + sizeof(names) + 7) & ~(size_t)7;
	uint8_t *img;
	Elf64_Ehdr eh_hdr = {
		.e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64,
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			     ELFDATA2LSB,
#else
			     ELFDATA2MSB,
#endif
			     EV_CURRENT },
		.e_type = ET_DYN,
		.e_machine = u->machine,
		.e_version = EV_CURRENT,
		.e_shoff = sh_at,
		.e_ehsize = sizeof(Elf64_Ehdr),
		.e_shentsize = sizeof(Elf64_Shdr),
		.e_shnum = 3,
		.e_shstrndx = 2,
	};
	Elf64_Shdr sh[3] = {
		{ 0 },
		{ .sh_name = 1, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC, .sh_addr = eh,
		  .sh_offset = sizeof(Elf64_Ehdr), .sh_size = u->eh_frame_size, .sh_addralign = 8 },
		{ .sh_name = 11, .sh_type = SHT_STRTAB, .sh_offset = names_at,
		  .sh_size = sizeof(names), .sh_addralign = 1 },
	};

	*size = sh_at + sizeof(sh);
	img = kp_xcalloc(1, *size);
	memcpy(img, &eh_hdr, sizeof(eh_hdr));
	memcpy(img + sizeof(eh_hdr), u->data, (size_t)u->eh_frame_size);
	memcpy(img + names_at, names, sizeof(names));
	memcpy(img + sh_at, sh, sizeof(sh));
	return img;
}

/* @u's CFI, for its code at @code: made on first use; NULL, said in u->bad, when libdw cannot
 * read it. */
static Dwarf_CFI *unwind_cfi(struct kp_perfmap_unwind *u, uint64_t code)
{
	size_t size;

	if (u->bad)
		return NULL;
	if (u->built)
		return u->cfi;
	u->built = true;
	elf_version(EV_CURRENT);
	u->image = cfi_image(u, code + u->eh_frame_off, &size);
	u->elf = elf_memory((char *)u->image, size);
	u->cfi = u->elf ? dwarf_getcfi_elf(u->elf) : NULL;
	if (!u->cfi)
		unwind_bad(u, "libdw cannot read its .eh_frame (%s)", dwarf_errmsg(-1));
	return u->cfi;
}

/*
 * The CFI row of @pc in @u's code at @code into *@f: 0, or -EINVAL when there is none (a row
 * that reaches outside the code, before it or into the .eh_frame after it, marks @u unusable).
 */
static int unwind_frame(struct kp_perfmap_unwind *u, uint64_t code, uint64_t pc, Dwarf_Frame **f)
{
	Dwarf_CFI *cfi = unwind_cfi(u, code);
	Dwarf_Addr start, end;

	*f = NULL;
	if (!cfi || dwarf_cfi_addrframe(cfi, pc, f) != 0) {
		free(*f);
		*f = NULL;
		return -EINVAL;
	}
	dwarf_frame_info(*f, &start, &end, NULL);
	if (start < code || end < start || end - code > u->eh_frame_off) {
		unwind_bad(u, "its CFI has a row from %+lld to %+lld bytes from its code's start, "
			   "outside the code", (long long)(start - code), (long long)(end - code));
		free(*f);
		*f = NULL;
		return -EINVAL;
	}
	return 0;
}

int kp_perfmap_frame(const struct kp_perfmap_ent *e, uint64_t pc, Dwarf_Frame **f)
{
	*f = NULL;
	if (!e->unwind)
		return -ENOENT;
	return unwind_frame(e->unwind, e->start, pc, f);
}

const uint8_t *kp_perfmap_unwind_bytes(const struct kp_perfmap_ent *e, uint64_t addr, size_t len)
{
	const struct kp_perfmap_unwind *u = e->unwind;
	uint64_t base, total;

	if (!u || u->bad || !u->data)
		return NULL;
	base = e->start + u->eh_frame_off;
	total = u->eh_frame_size + u->hdr_size;
	if (addr < base || addr - base > total || len > total - (addr - base))
		return NULL;
	return u->data + (addr - base);
}

bool kp_perfmap_unwind_hdr(const struct kp_perfmap_ent *e, uint64_t *hdr, uint64_t *table)
{
	const struct kp_perfmap_unwind *u = e->unwind;

	if (!u || u->bad || !u->nr_fdes)
		return false;
	*hdr = e->start + u->eh_frame_off + u->eh_frame_size;
	*table = e->start + u->eh_frame_off + u->table;
	return true;
}
