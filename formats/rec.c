/* SPDX-License-Identifier: MIT */
#include "rec.h"

#include <string.h>

#include "util.h"

/* A NUL must occur in [from, size) of the record: the kernel's strings are NUL-padded. */
static int check_str_at(const struct kp_rec_header *rec, size_t from)
{
	const char *p = (const char *)rec;

	if (from >= rec->size || !memchr(p + from, 0, rec->size - from))
		return -KP_ERECORD;
	return 0;
}

/* The fixed part of @rec, which has at least @n bytes: a copy, for records of any alignment. */
static void fixed(const struct kp_rec_header *rec, void *wire, size_t n)
{
	memcpy(wire, rec, n);
}

/* What MMAP and MMAP2 share: the fields up to pgoff, and the name after @fixed_size bytes. */
static void mmap_common(const struct kp_rec_header *rec, struct kp_mmap *m, size_t fixed_size)
{
	struct kp_rec_mmap w;

	fixed(rec, &w, sizeof(w));
	*m = (struct kp_mmap){ .pid = w.pid, .tid = w.tid, .addr = w.addr, .len = w.len,
			       .pgoff = w.pgoff };
	m->filename = (const char *)rec + fixed_size;
}

static int parse_mmap(const struct kp_rec_header *rec, void *view)
{
	mmap_common(rec, view, sizeof(struct kp_rec_mmap));
	return check_str_at(rec, sizeof(struct kp_rec_mmap));
}

static int parse_mmap2(const struct kp_rec_header *rec, void *view)
{
	struct kp_mmap *m = view;
	struct kp_rec_mmap2 w;

	mmap_common(rec, m, sizeof(w));
	fixed(rec, &w, sizeof(w));
	m->prot = w.prot;
	m->flags = w.flags;
	if (rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		m->has_build_id = true;
		m->build_id_size = w.build_id_size < 20 ? w.build_id_size : 20;
		memcpy(m->build_id, w.build_id, m->build_id_size);
	} else {
		m->maj = w.maj;
		m->min = w.min;
		m->ino = w.ino;
		m->ino_generation = w.ino_generation;
	}
	return check_str_at(rec, sizeof(w));
}

static int parse_comm(const struct kp_rec_header *rec, void *view)
{
	struct kp_comm *c = view;
	struct kp_rec_comm w;

	fixed(rec, &w, sizeof(w));
	*c = (struct kp_comm){ w.pid, w.tid, (const char *)rec + sizeof(w) };
	return check_str_at(rec, sizeof(w));
}

static int parse_task(const struct kp_rec_header *rec, void *view)
{
	struct kp_rec_task w;

	fixed(rec, &w, sizeof(w));
	*(struct kp_task *)view = (struct kp_task){ w.pid, w.ppid, w.tid, w.ptid, w.time };
	return 0;
}

static int parse_lost(const struct kp_rec_header *rec, void *view)
{
	struct kp_rec_lost w;

	fixed(rec, &w, sizeof(w));
	*(struct kp_lost *)view = (struct kp_lost){ w.id, w.lost };
	return 0;
}

static int parse_switch(const struct kp_rec_header *rec, void *view)
{
	struct kp_switch *sw = view;
	struct kp_rec_switch_cpu_wide w = { .h = *rec };

	if (rec->type == PERF_RECORD_SWITCH_CPU_WIDE)
		fixed(rec, &w, sizeof(w));
	*sw = (struct kp_switch){ rec->misc & PERF_RECORD_MISC_SWITCH_OUT,
				  rec->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT,
				  rec->type == PERF_RECORD_SWITCH_CPU_WIDE, w.next_prev_pid,
				  w.next_prev_tid };
	return 0;
}

static int check_ksymbol(const struct kp_rec_header *rec)
{
	return check_str_at(rec, 24);
}

static int check_attr(const struct kp_rec_header *rec)
{
	const struct kp_rec_attr *a = (const void *)rec;
	const char *names;
	uint64_t need;

	if (a->attr_size < PERF_ATTR_SIZE_VER0 || a->attr_size % 8)
		return -KP_ERECORD;
	need = sizeof(*a) + (uint64_t)a->attr_size + 8ull * a->nr_ids + a->name_len;
	if (need > rec->size || a->name_len < 2)
		return -KP_ERECORD;
	/* two NUL-terminated strings, the second ending exactly at name_len */
	names = (const char *)rec + sizeof(*a) + a->attr_size + 8ull * a->nr_ids;
	if (names[a->name_len - 1] || !memchr(names, 0, a->name_len - 1))
		return -KP_ERECORD;
	return 0;
}

static int check_meta(const struct kp_rec_header *rec)
{
	const struct kp_rec_meta *m = (const void *)rec;
	const char *key = (const char *)(m + 1);

	if (!m->key_len || !m->value_len ||
	    sizeof(*m) + (uint64_t)m->key_len + m->value_len > rec->size)
		return -KP_ERECORD;
	if (key[m->key_len - 1] || key[m->key_len + m->value_len - 1] ||
	    memchr(key, 0, m->key_len - 1) || memchr(key + m->key_len, 0, m->value_len - 1))
		return -KP_ERECORD;
	return 0;
}

static int check_kallsyms(const struct kp_rec_header *rec)
{
	const struct kp_rec_kallsyms *k = (const void *)rec;

	return sizeof(*k) + (uint64_t)k->len > rec->size ? -KP_ERECORD : 0;
}

static int check_tp_format(const struct kp_rec_header *rec)
{
	const struct kp_rec_tp_format *f = (const void *)rec;
	const char *sys = (const char *)(f + 1);

	if (!f->sys_len || sizeof(*f) + (uint64_t)f->sys_len + f->fmt_len > rec->size ||
	    sys[f->sys_len - 1] || memchr(sys, 0, f->sys_len - 1))
		return -KP_ERECORD;
	return 0;
}

static int check_unwind_dso(const struct kp_rec_header *rec)
{
	const char *path = (const char *)((const struct kp_rec_unwind_dso *)rec + 1);

	return memchr(path, 0, rec->size - sizeof(struct kp_rec_unwind_dso)) ? 0 : -KP_ERECORD;
}

static int check_proc_cgroup(const struct kp_rec_header *rec)
{
	return check_str_at(rec, sizeof(struct kp_rec_proc_cgroup));
}

/* String-carrying records must hold their fixed part and at least one word of string. */
#define WITH_STR(wire) (sizeof(struct wire) + 8)

static const struct kp_rec_info rec_info[KP_REC_TYPE_MAX] = {
	[PERF_RECORD_MMAP] = { "mmap", WITH_STR(kp_rec_mmap), NULL, parse_mmap },
	[PERF_RECORD_LOST] = { "lost", sizeof(struct kp_rec_lost), NULL, parse_lost },
	[PERF_RECORD_COMM] = { "comm", WITH_STR(kp_rec_comm), NULL, parse_comm },
	[PERF_RECORD_EXIT] = { "exit", sizeof(struct kp_rec_task), NULL, parse_task },
	[PERF_RECORD_THROTTLE] = { "throttle", 32, NULL, NULL },
	[PERF_RECORD_UNTHROTTLE] = { "unthrottle", 32, NULL, NULL },
	[PERF_RECORD_FORK] = { "fork", sizeof(struct kp_rec_task), NULL, parse_task },
	[PERF_RECORD_READ] = { "read", 24, NULL, NULL },
	[PERF_RECORD_SAMPLE] = { "sample", 8, NULL, NULL }, /* no more than kp_rec_framed() */
	[PERF_RECORD_MMAP2] = { "mmap2", WITH_STR(kp_rec_mmap2), NULL, parse_mmap2 },
	[PERF_RECORD_AUX] = { "aux", 32, NULL, NULL },
	[PERF_RECORD_ITRACE_START] = { "itrace_start", 16, NULL, NULL },
	[PERF_RECORD_LOST_SAMPLES] = { "lost_samples", 16, NULL, NULL },
	[PERF_RECORD_SWITCH] = { "switch", sizeof(struct kp_rec_header), NULL, parse_switch },
	[PERF_RECORD_SWITCH_CPU_WIDE] = { "switch_cpu_wide", sizeof(struct kp_rec_switch_cpu_wide),
					  NULL, parse_switch },
	[PERF_RECORD_NAMESPACES] = { "namespaces", 24, NULL, NULL },
	[PERF_RECORD_KSYMBOL] = { "ksymbol", 32, check_ksymbol, NULL },
	[PERF_RECORD_BPF_EVENT] = { "bpf_event", 24, NULL, NULL },
	[PERF_RECORD_CGROUP] = { "cgroup", 24, NULL, NULL },
	[PERF_RECORD_TEXT_POKE] = { "text_poke", 24, NULL, NULL },
	[PERF_RECORD_AUX_OUTPUT_HW_ID] = { "aux_output_hw_id", 16, NULL, NULL },
	[KP_REC_ATTR] = { "attr", sizeof(struct kp_rec_attr), check_attr, NULL },
	[KP_REC_META] = { "meta", sizeof(struct kp_rec_meta), check_meta, NULL },
	[KP_REC_KALLSYMS] = { "kallsyms", sizeof(struct kp_rec_kallsyms), check_kallsyms, NULL },
	[KP_REC_ROUND] = { "round", sizeof(struct kp_rec_header), NULL, NULL },
	[KP_REC_STATS] = { "stats", sizeof(struct kp_rec_stats), NULL, NULL },
	[KP_REC_RING_STATS] = { "ring_stats", sizeof(struct kp_rec_ring_stats), NULL, NULL },
	[KP_REC_TP_FORMAT] = { "tp_format", sizeof(struct kp_rec_tp_format), check_tp_format,
			       NULL },
	[KP_REC_UNWIND_STATS] = { "unwind_stats", KP_REC_UNWIND_STATS_V1_SIZE, NULL, NULL },
	[KP_REC_UNWIND_DSO] = { "unwind_dso", sizeof(struct kp_rec_unwind_dso) + 8,
				check_unwind_dso, NULL },
	[KP_REC_SYMBOLS] = { "symbols", sizeof(struct kp_rec_symbols) + 16, kp_rec_symbols_check,
			     NULL },
	[KP_REC_PROC_CGROUP] = { "proc_cgroup", sizeof(struct kp_rec_proc_cgroup) + 8,
				 check_proc_cgroup, NULL },
	[KP_REC_FILE_PART] = { "file_part", sizeof(struct kp_rec_file_part) + 16,
			       kp_rec_file_part_check, NULL },
};

/* Scratch for validation's parse: any view a row's parser fills. */
union any_view {
	struct kp_mmap mmap;
	struct kp_comm comm;
	struct kp_task task;
	struct kp_lost lost;
	struct kp_switch sw;
};

const struct kp_rec_info *kp_rec_info_of(uint32_t type)
{
	if (type >= ARRAY_SIZE(rec_info) || !rec_info[type].name)
		return NULL;
	return &rec_info[type];
}

/* The framing every record must have: a whole header, a size that is a multiple of 8 within
 * @avail, and at least its type's minimum; *@info: its type's row (NULL: unknown). */
static int check_frame(const struct kp_rec_header *rec, size_t avail,
		       const struct kp_rec_info **info)
{
	*info = NULL;
	if (!kp_rec_framed(rec, avail))
		return -KP_ERECORD;
	*info = kp_rec_info_of(rec->type);
	return *info && rec->size < (*info)->min_size ? -KP_ERECORD : 0;
}

int kp_rec_validate(const struct kp_rec_header *rec, size_t avail)
{
	const struct kp_rec_info *info;
	union any_view scratch;
	int rc = check_frame(rec, avail, &info);

	if (rc || !info)
		return rc; /* an unknown type passes: callers skip it */
	if (info->parse)
		return info->parse(rec, &scratch);
	return info->check ? info->check(rec) : 0;
}

/* Parse @rec, of type @a or @b, into @view (@size bytes), zeroed on failure. */
static int parse_as(const struct kp_rec_header *rec, size_t avail, uint32_t a, uint32_t b,
		    void *view, size_t size)
{
	const struct kp_rec_info *info;
	int rc = check_frame(rec, avail, &info);

	if (!rc && rec->type != a && rec->type != b)
		rc = -KP_ERECORD;
	if (!rc)
		rc = rec_info[rec->type].parse(rec, view);
	if (rc)
		memset(view, 0, size);
	return rc;
}

int kp_rec_parse_mmap(const struct kp_rec_header *rec, size_t avail, struct kp_mmap *out)
{
	return parse_as(rec, avail, PERF_RECORD_MMAP, PERF_RECORD_MMAP2, out, sizeof(*out));
}

int kp_rec_parse_comm(const struct kp_rec_header *rec, size_t avail, struct kp_comm *out)
{
	return parse_as(rec, avail, PERF_RECORD_COMM, PERF_RECORD_COMM, out, sizeof(*out));
}

int kp_rec_parse_task(const struct kp_rec_header *rec, size_t avail, struct kp_task *out)
{
	return parse_as(rec, avail, PERF_RECORD_FORK, PERF_RECORD_EXIT, out, sizeof(*out));
}

int kp_rec_parse_lost(const struct kp_rec_header *rec, size_t avail, struct kp_lost *out)
{
	return parse_as(rec, avail, PERF_RECORD_LOST, PERF_RECORD_LOST, out, sizeof(*out));
}

int kp_rec_parse_switch(const struct kp_rec_header *rec, size_t avail, struct kp_switch *out)
{
	return parse_as(rec, avail, PERF_RECORD_SWITCH, PERF_RECORD_SWITCH_CPU_WIDE, out,
			sizeof(*out));
}

void kp_rec_attr_view(const struct kp_rec_header *rec, struct kp_attr_view *v)
{
	const struct kp_rec_attr *a = (const void *)rec;
	const char *p = (const char *)(a + 1);
	size_t n = a->attr_size < sizeof(v->attr) ? a->attr_size : sizeof(v->attr);

	memset(v, 0, sizeof(*v));
	memcpy(&v->attr, p, n);
	v->attr_size = a->attr_size;
	v->nr_ids = a->nr_ids;
	v->ids = (const uint64_t *)(p + a->attr_size);
	v->name = p + a->attr_size + 8ull * a->nr_ids;
	v->spec = v->name + strlen(v->name) + 1;
	v->index = a->index;
	v->fallback = rec->misc & KP_ATTR_MISC_FALLBACK;
}

void kp_rec_meta_view(const struct kp_rec_header *rec, const char **key, const char **value)
{
	const struct kp_rec_meta *m = (const void *)rec;

	*key = (const char *)(m + 1);
	*value = *key + m->key_len;
}
