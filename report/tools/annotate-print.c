/* SPDX-License-Identifier: MIT */
/*
 * annotate-print.c - an annotation as text (perf annotate --stdio's columns, source lines
 * interleaved, labels for the function's own jumps) and as JSON.
 */
#include "annotate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/util.h"
#include "report/views/json.h"
#include "report/base/text.h"
#include "report/views/view.h"

/* Source files larger than this are not read (a line table naming /dev/zero must not hang). */
#define MAX_SOURCE (64u << 20)

/* A source file, read once, split into lines. */
struct src {
	const char *path;	/* interned: compared by pointer */
	char *text;		/* NULL when it could not be read */
	size_t *starts;		/* line n (1-based) starts at text + starts[n - 1] */
	size_t nr;
};

struct printer {
	const struct kp_ann_print_opts *o;
	FILE *out;
	struct src *srcs;
	size_t nr_srcs, cap_srcs;
};

static struct src *src_read(struct printer *p, const char *path)
{
	struct src *s;
	struct stat st;
	size_t len = 0, cap = 0;
	int fd;

	for (size_t i = 0; i < p->nr_srcs; i++)
		if (p->srcs[i].path == path)
			return &p->srcs[i];
	KP_GROW(p->srcs, p->cap_srcs, p->nr_srcs + 1);
	s = &p->srcs[p->nr_srcs++];
	*s = (struct src){ .path = path };
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return s;
	/* a line table may name a device, a FIFO or a huge file: only regular text is read */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > MAX_SOURCE ||
	    kp_read_fd(fd, &s->text, &len) || len > MAX_SOURCE ||
	    (s->text && memchr(s->text, '\0', len))) {
		free(s->text);
		s->text = NULL;
	}
	close(fd);
	for (size_t i = 0; s->text && i < len; i++) {
		if (i && s->text[i - 1] != '\n')
			continue;
		KP_GROW(s->starts, cap, s->nr + 1);
		s->starts[s->nr++] = i;
	}
	for (size_t i = 0; s->text && i < len; i++)
		if (s->text[i] == '\n')
			s->text[i] = '\0';
	return s;
}

/* The text of @line of @path, or NULL. */
static const char *src_line(struct printer *p, const char *path, uint32_t line)
{
	struct src *s;

	if (!p->o->source || !path || !line)
		return NULL;
	s = src_read(p, path);
	return s->text && line <= s->nr ? s->text + s->starts[line - 1] : NULL;
}

static uint64_t weight(const struct printer *p, const struct kp_weight *w)
{
	return p->o->by_samples ? w->count : w->period;
}

static const char *base(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path;
}

/* --- text -------------------------------------------------------------------------------- */

/* Columns: percentage and samples (17), callers (9), then the address and the instruction. */
static int addr_col(const struct printer *p)
{
	return 17 + (p->o->callers ? 9 : 0) + 2;
}

/* Spaces up to column @col, with the mark in its column when @marked. */
static void indent(struct printer *p, int col, bool marked)
{
	int at = addr_col(p) - 2;

	fprintf(p->out, "%*s%c%*s", at, "", marked ? KP_ANN_MARK : ' ', col - at - 1, "");
}

static void print_source(struct printer *p, const struct kp_ann_insn *in, int col)
{
	const char *text = src_line(p, in->file, in->line);

	indent(p, col, in->marked);
	kp_text_put(p->out, 0, base(in->file));
	fprintf(p->out, ":%u", in->line);
	if (text)
		fprintf(p->out, "  %s", text);
	fputc('\n', p->out);
	if (in->nr_inl) {
		indent(p, col, in->marked);
		fputs("inlined:", p->out);
		for (size_t k = 0; k < in->nr_inl; k++) {
			fputs(k ? " < " : " ", p->out);
			kp_text_put(p->out, 0, in->inl[k]);
		}
		fputc('\n', p->out);
	}
}

/* Whether @in starts a new source line or inline chain after @prev. */
static bool new_source(const struct kp_ann_insn *in, const struct kp_ann_insn *prev)
{
	if (!in->file)
		return false;
	if (!prev || prev->file != in->file || prev->line != in->line ||
	    prev->nr_inl != in->nr_inl)
		return true;
	return in->nr_inl && prev->inl[0] != in->inl[0];
}

static void print_insn(struct printer *p, const struct kp_ann_func *f,
		       const struct kp_ann_insn *in, int aw)
{
	uint64_t fw = weight(p, &f->self);

	fputs(" ", p->out);
	if (in->self.count)
		kp_view_print_pct(p->out, kp_pct(weight(p, &in->self), fw), p->o->color);
	else
		fputs("       ", p->out);
	fprintf(p->out, " %8llu", (unsigned long long)in->self.count);
	if (p->o->callers && in->calls.count)
		fprintf(p->out, " %8llu", (unsigned long long)in->calls.count);
	else if (p->o->callers)
		fputs("         ", p->out);
	fprintf(p->out, "%c %*llx:  %s%s%s", in->marked ? KP_ANN_MARK : ' ', aw,
		(unsigned long long)in->addr, in->mnemonic, *in->operands ? " " : "", in->operands);
	if (in->target_label)
		fprintf(p->out, " -> L%u", in->target_label);
	else if (in->target_name) {
		fputs(" <", p->out);
		kp_text_put(p->out, 0, in->target_name);
		fprintf(p->out, in->target_off ? "+0x%llx>" : ">", (unsigned long long)in->target_off);
	}
	fputc('\n', p->out);
}

static void print_lines(struct printer *p, const struct kp_ann_func *f)
{
	uint64_t fw = weight(p, &f->self);

	if (!f->nr_lines)
		return;
	fputs("\n# source lines of ", p->out);
	kp_text_put(p->out, 0, f->name);
	fputs(", hottest first\n", p->out);
	for (size_t i = 0; i < f->nr_lines; i++) {
		const struct kp_ann_line *l = &f->lines[i];
		const char *text = src_line(p, l->file, l->line);

		fputs(" ", p->out);
		kp_view_print_pct(p->out, kp_pct(weight(p, &l->w), fw), p->o->color);
		fprintf(p->out, " %8llu%c ", (unsigned long long)l->w.count,
			l->marked ? KP_ANN_MARK : ' ');
		kp_text_put(p->out, 0, base(l->file));
		fprintf(p->out, ":%u", l->line);
		if (text)
			fprintf(p->out, "  %s", text + strspn(text, " \t"));
		fputc('\n', p->out);
	}
}

static void print_func(struct printer *p, const struct kp_annotation *a,
		       const struct kp_ann_func *f)
{
	int aw = snprintf(NULL, 0, "%llx", (unsigned long long)(f->start + f->size));
	const struct kp_ann_insn *prev = NULL;

	if (aw < 7)
		aw = 7;
	fputs("\n## ", p->out);
	kp_text_put(p->out, 0, f->name);
	fputs(" in ", p->out);
	kp_text_put(p->out, 0, f->dso);
	fprintf(p->out, ": %.2f%% of all, %llu samples",
		kp_pct(weight(p, &f->self), weight(p, &a->total)),
		(unsigned long long)f->self.count);
	if (f->why) {
		fputs(": not annotated: ", p->out);
		kp_text_put(p->out, 0, f->why);
		fputc('\n', p->out);
		return;
	}
	fprintf(p->out, ", 0x%llx-0x%llx (%llu bytes)%s%s\n", (unsigned long long)f->start,
		(unsigned long long)(f->start + f->size), (unsigned long long)f->size,
		f->build_id[0] ? ", build-id " : "", f->build_id);
	if (f->no_lines) {
		fputs("# no source lines: ", p->out);
		kp_text_put(p->out, 0, f->no_lines);
		fputc('\n', p->out);
	}
	if (f->stray)
		fprintf(p->out, "# warning: %llu sample%s at addresses inside an instruction, not at "
			"its start: patched or self-modifying code, or not the binary recorded\n",
			(unsigned long long)f->stray, f->stray == 1 ? "" : "s");
	if (f->outside)
		fprintf(p->out, "# warning: %llu sample%s past the last instruction decoded\n",
			(unsigned long long)f->outside, f->outside == 1 ? "" : "s");
	for (size_t k = 0; k < f->nr_marks; k++) {
		fputs("# ", p->out);
		kp_text_put(p->out, 0, f->marks[k]);
		fputs(" is inlined into ", p->out);
		kp_text_put(p->out, 0, f->name);
		fprintf(p->out, ": its instructions and source lines are marked %c\n", KP_ANN_MARK);
	}
	fprintf(p->out, "# percent  samples%s  %*s   instruction\n",
		p->o->callers ? "  callers" : "", aw, "address");
	for (size_t i = 0; i < f->nr_insns; i++) {
		const struct kp_ann_insn *in = &f->insns[i];

		if (in->label) {
			char l[16];

			snprintf(l, sizeof(l), "L%u", in->label);
			indent(p, addr_col(p), in->marked);
			fprintf(p->out, "%*s:\n", aw, l);
		}
		if (new_source(in, prev))
			print_source(p, in, addr_col(p) + aw + 3);
		print_insn(p, f, in, aw);
		prev = in;
	}
	print_lines(p, f);
}

static void printer_release(struct printer *p)
{
	for (size_t i = 0; i < p->nr_srcs; i++) {
		free(p->srcs[i].text);
		free(p->srcs[i].starts);
	}
	free(p->srcs);
}

void kp_ann_print(const struct kp_annotation *a, const struct kp_ann_print_opts *o, FILE *out)
{
	struct printer p = { .o = o, .out = out };

	for (size_t i = 0; i < a->nr_funcs; i++)
		print_func(&p, a, &a->funcs[i]);
	if (a->unnamed.count)
		fprintf(out, "\n# %.2f%% of all, %llu samples, fell where no binary is (JIT code, "
			"or an address outside every map): not annotated\n",
			kp_pct(weight(&p, &a->unnamed), weight(&p, &a->total)),
			(unsigned long long)a->unnamed.count);
	printer_release(&p);
}

/* --- JSON -------------------------------------------------------------------------------- */

static void json_weight(struct kp_json *j, const char *key, const struct kp_weight *w)
{
	kp_json_key(j, key);
	kp_json_obj(j);
	kp_json_key(j, "samples");
	kp_json_u64(j, w->count);
	kp_json_key(j, "period");
	kp_json_u64(j, w->period);
	kp_json_obj_end(j);
}

static void json_pct(struct kp_json *j, double pct)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.4f", pct);
	kp_json_key(j, "percent");
	kp_json_raw(j, buf);
}

static void json_insn(struct printer *p, struct kp_json *j, const struct kp_ann_func *f,
		      const struct kp_ann_insn *in)
{
	char bytes[2 * sizeof(in->bytes) + 1];

	for (size_t i = 0; i < in->size && i < sizeof(in->bytes); i++)
		sprintf(bytes + 2 * i, "%02x", in->bytes[i]);
	bytes[2 * (in->size < sizeof(in->bytes) ? in->size : sizeof(in->bytes))] = '\0';
	kp_json_obj(j);
	kp_json_key(j, "addr");
	kp_json_strf(j, "0x%llx", (unsigned long long)in->addr);
	kp_json_key(j, "bytes");
	kp_json_str(j, bytes);
	kp_json_key(j, "mnemonic");
	kp_json_str(j, in->mnemonic);
	kp_json_key(j, "operands");
	kp_json_str(j, in->operands);
	json_weight(j, "self", &in->self);
	json_pct(j, kp_pct(weight(p, &in->self), weight(p, &f->self)));
	if (p->o->callers)
		json_weight(j, "callers", &in->calls);
	if (in->label) {
		kp_json_key(j, "label");
		kp_json_strf(j, "L%u", in->label);
	}
	if (in->target) {
		kp_json_key(j, "target");
		kp_json_strf(j, "0x%llx", (unsigned long long)in->target);
	}
	if (in->target_label) {
		kp_json_key(j, "target_label");
		kp_json_strf(j, "L%u", in->target_label);
	} else if (in->target_name) {
		kp_json_key(j, "target_function");
		kp_json_str(j, in->target_name);
	}
	if (in->file) {
		kp_json_key(j, "file");
		kp_json_str(j, in->file);
		kp_json_key(j, "line");
		kp_json_u64(j, in->line);
	}
	kp_json_key(j, "inline");
	kp_json_arr(j);
	for (size_t k = 0; k < in->nr_inl; k++)
		kp_json_str(j, in->inl[k]);
	kp_json_arr_end(j);
	kp_json_obj_end(j);
}

static void json_func(struct printer *p, struct kp_json *j, const struct kp_annotation *a,
		      const struct kp_ann_func *f)
{
	kp_json_obj(j);
	kp_json_key(j, "function");
	kp_json_str(j, f->name);
	kp_json_key(j, "dso");
	kp_json_str(j, f->dso);
	kp_json_key(j, "build_id");
	kp_json_str(j, f->build_id);
	kp_json_key(j, "kernel");
	kp_json_bool(j, f->kernel);
	kp_json_key(j, "start");
	kp_json_strf(j, "0x%llx", (unsigned long long)f->start);
	kp_json_key(j, "size");
	kp_json_u64(j, f->size);
	json_weight(j, "self", &f->self);
	json_pct(j, kp_pct(weight(p, &f->self), weight(p, &a->total)));
	kp_json_key(j, "stray_samples");
	kp_json_u64(j, f->stray);
	kp_json_key(j, "error");
	if (f->why)
		kp_json_str(j, f->why);
	else
		kp_json_null(j);
	kp_json_key(j, "no_source_lines");
	if (f->no_lines && !f->why)
		kp_json_str(j, f->no_lines);
	else
		kp_json_null(j);
	kp_json_key(j, "marked"); /* the names inlined here it is annotated for */
	kp_json_arr(j);
	for (size_t k = 0; k < f->nr_marks; k++)
		kp_json_str(j, f->marks[k]);
	kp_json_arr_end(j);
	kp_json_key(j, "instructions");
	kp_json_arr(j);
	for (size_t i = 0; i < f->nr_insns; i++)
		json_insn(p, j, f, &f->insns[i]);
	kp_json_arr_end(j);
	kp_json_key(j, "lines");
	kp_json_arr(j);
	for (size_t i = 0; i < f->nr_lines; i++) {
		kp_json_obj(j);
		kp_json_key(j, "file");
		kp_json_str(j, f->lines[i].file);
		kp_json_key(j, "line");
		kp_json_u64(j, f->lines[i].line);
		json_weight(j, "self", &f->lines[i].w);
		json_pct(j, kp_pct(weight(p, &f->lines[i].w), weight(p, &f->self)));
		kp_json_obj_end(j);
	}
	kp_json_arr_end(j);
	kp_json_obj_end(j);
}

int kp_ann_print_json(const struct kp_annotation *a, const struct kp_ann_print_opts *o,
		      FILE *out)
{
	struct printer p = { .o = o, .out = out };
	struct kp_json j;

	kp_json_init(&j, out, false);
	kp_json_arr(&j);
	for (size_t i = 0; i < a->nr_funcs; i++)
		json_func(&p, &j, a, &a->funcs[i]);
	kp_json_arr_end(&j);
	printer_release(&p);
	if (kp_json_finish(&j))
		return -EIO;
	return fputc('\n', out) == EOF ? -EIO : 0;
}
