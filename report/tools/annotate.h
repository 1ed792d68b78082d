/* SPDX-License-Identifier: MIT */
/*
 * annotate.h - where inside a function the samples fell: its instructions, disassembled by
 * capstone from the binary the recording names, each with its samples, and the source lines
 * and inlined functions libdw maps them to (`kprof annotate`, `kprof report --annotate N`).
 *
 * kp_annotate() reads a report built with addresses (kp_report_opts.addrs): the sampled
 * address of each stack counts at the instruction holding it, never a return address; with
 * callers, each return address counts once per sample at the call before it. Functions are
 * ELF symbols of the binaries whose build-id the recording names (the report's own lookup,
 * --symfs included), or kernel symbols read from /proc/kcore or a vmlinux. Lines and inline
 * frames come from a DSO table of the annotation's own, with source lines on, so the report
 * before it pays for none. A name asked for that no sampled function has, but that is inlined
 * at the sampled instructions of some, annotates those, its instructions and lines marked.
 */
#ifndef KP_ANNOTATE_H
#define KP_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/symbols/dso.h"
#include "report/profile/profile.h"
#include "report/profile/report.h"

/* Functions larger than this are not disassembled (a bogus symbol size must not hang). */
#define KP_ANN_MAX_FUNC (1u << 20)
/* Inlined functions named around one instruction; deeper nesting keeps the innermost. */
#define KP_ANN_MAX_INLINE 8
/* The text's mark of the code of an inlined function a function is annotated for
 * (kp_ann_func.marks), in the column before the addresses. */
#define KP_ANN_MARK '|'

struct kp_ann_opts {
	size_t event;			/* the report's event to count */
	bool by_samples;		/* weights are sample counts (--weight samples) */
	size_t top;			/* without names: the hottest @top functions by self */
	const char *const *names;	/* else these functions, as the report names them */
	size_t nr_names;
	bool callers;			/* count the samples whose chain passes through a call */
	bool intel;			/* x86: Intel syntax; AT&T (objdump's, perf's) otherwise */
	const char *vmlinux;		/* the kernel's code; NULL: /proc/kcore when this machine
					 * runs the recorded kernel */
};

/**
 * struct kp_ann_insn - one instruction
 * @addr:   its address: an ELF address in a binary, the running address in the kernel
 * @self:   samples whose address is in it
 * @call:   it is a call instruction
 * @marked: one of the functions inlined around it is one its function is annotated for
 *          (kp_ann_func.marks)
 * @calls:  with callers, for a call: samples whose chain passes through it
 * @label:  n when a jump of the function lands here (shown "Ln"), else 0
 * @target: a direct jump's or call's destination, 0 when it has none
 * @target_label: @target's label when it is in the function, else 0
 * @target_name, @target_off: else the function there and the offset in it (NULL unknown)
 * @file, @line: the innermost source line (NULL, 0 without DWARF line info)
 * @inl:    the inlined functions around it, innermost first (@nr_inl of them)
 * Strings are borrowed from the annotation.
 */
struct kp_ann_insn {
	uint64_t addr;
	uint8_t size;
	bool call, marked;
	uint8_t bytes[16];
	char mnemonic[32];
	char operands[160];
	struct kp_weight self, calls;
	uint32_t label, target_label;
	uint64_t target, target_off;
	const char *target_name;
	const char *file;
	uint32_t line;
	uint8_t nr_inl;
	const char *inl[KP_ANN_MAX_INLINE];
};

/* One source line's share of a function: the instructions it maps to, summed; @marked when
 * one of them is. */
struct kp_ann_line {
	const char *file;
	uint32_t line;
	struct kp_weight w;
	bool marked;
};

/**
 * struct kp_ann_func - one annotated function
 * @name, @dso:  as the report names them; @dso is the recorded path, "[kernel.kallsyms]"
 * @build_id:    the recorded one in hex ("" unknown); @file_build_id the file's when it differs
 * @start, @size: its address range (as kp_ann_insn.addr)
 * @self:        every sample in it
 * @stray:       of those, samples at an address inside an instruction, not at its start
 *               (patched or self-modifying code, or a wrong binary): counted at the instruction
 * @outside:     samples past the last instruction decoded (counted nowhere)
 * @why:         NULL when it was disassembled, else why not (a sentence, owned)
 * @has_lines:   some instruction has a source line
 * @no_lines:    without them, why not (static string), NULL otherwise
 * @marks:       the names asked for (kp_ann_opts.names) that no sampled function has, and
 *               that are inlined at its sampled instructions: it is annotated for them, their
 *               instructions marked (@nr_marks of them)
 */
struct kp_ann_func {
	const char *name, *dso;
	char build_id[41], file_build_id[41];
	bool kernel;
	uint64_t start, size;
	struct kp_weight self;
	uint64_t stray, outside;
	char *why;
	bool has_lines;
	const char *no_lines;
	struct kp_ann_insn *insns;
	size_t nr_insns;
	struct kp_ann_line *lines;	/* hottest first */
	size_t nr_lines;
	const char **marks;
	size_t nr_marks;
};

struct kp_annotation {
	struct kp_ann_func *funcs;	/* hottest first */
	size_t nr_funcs;
	struct kp_weight total;		/* the event's whole weight */
	struct kp_weight unnamed;	/* samples where no symbol is (not annotated) */
	const char **names;		/* every function with samples, for suggestions */
	size_t nr_names;
	const char **missing;		/* names asked for that no sampled function has, nor
					 * is inlined at one's samples */
	size_t nr_missing;
	const char **inlined;		/* names asked for that no sampled function has, but
					 * that are inlined into some: those are annotated in
					 * their place (their kp_ann_func.marks name them) */
	size_t nr_inlined;
	struct kp_dsos *dsos;		/* owned: lines and inline frames */
	struct kp_strtab strs;		/* owned: the strings above */
};

/*
 * kp_annotate - annotate @r's functions as @o asks into @a (call kp_annotation_release() in
 * every case). A function that cannot be disassembled is listed with its reason in @why.
 * Returns 0, or -ENOMEM.
 */
int kp_annotate(struct kp_report *r, const struct kp_ann_opts *o, struct kp_annotation *a);
void kp_annotation_release(struct kp_annotation *a);

/* What kp_ann_print() writes. */
struct kp_ann_print_opts {
	bool by_samples;	/* the percentages' weight (the views' one weight rule) */
	bool color;		/* ANSI colours on the hottest instructions */
	bool source;		/* interleave the source text where its file exists */
	bool callers;		/* a column of samples through each call */
};

/* kp_ann_print - text: each function's header, its instructions with their shares, labels
 * and source lines, then its lines hottest first. */
void kp_ann_print(const struct kp_annotation *a, const struct kp_ann_print_opts *o, FILE *out);

/* kp_ann_print_json - the same as one JSON array, one object per function; 0 or -errno. */
int kp_ann_print_json(const struct kp_annotation *a, const struct kp_ann_print_opts *o,
		      FILE *out);

#endif /* KP_ANNOTATE_H */
