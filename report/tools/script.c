/* SPDX-License-Identifier: MIT */
#include "script.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/perfhdr.h"
#include "formats/util.h"
#include "report/base/text.h"

/* -F's names, and what each needs in the samples (0: nothing). */
static const struct field_info {
	const char *name;
	uint32_t bit;
	uint64_t sample_type;
	const char *attr; /* perf's name for the attribute, in its error */
} fields[] = {
	{ "comm", KP_SF_COMM, PERF_SAMPLE_TID, "TID" },
	{ "tid", KP_SF_TID, PERF_SAMPLE_TID, "TID" },
	{ "pid", KP_SF_PID, PERF_SAMPLE_TID, "TID" },
	{ "time", KP_SF_TIME, PERF_SAMPLE_TIME, "TIME" },
	{ "cpu", KP_SF_CPU, PERF_SAMPLE_CPU, "CPU" },
	{ "event", KP_SF_EVENT, 0, NULL },
	{ "ip", KP_SF_IP, PERF_SAMPLE_IP, "IP" },
	{ "sym", KP_SF_SYM, 0, NULL },
	{ "symoff", KP_SF_SYMOFF, 0, NULL },
	{ "dso", KP_SF_DSO, 0, NULL },
	{ "period", KP_SF_PERIOD, PERF_SAMPLE_PERIOD, "PERIOD" },
	{ "trace", KP_SF_TRACE, PERF_SAMPLE_RAW, "RAW" },
};

#define SF_FRAME (KP_SF_IP | KP_SF_SYM | KP_SF_SYMOFF | KP_SF_DSO)
#define SF_START (KP_SF_COMM | KP_SF_TID | KP_SF_CPU | KP_SF_TIME | KP_SF_EVENT)

void kp_script_fields_init(struct kp_script_fields *f)
{
	memset(f, 0, sizeof(*f));
	f->fields[KP_SK_OTHER] = SF_START | KP_SF_PERIOD | SF_FRAME;
	/* a tracepoint's frames are added where it has a call chain (kp_script_start()) */
	f->fields[KP_SK_TRACE] = SF_START | KP_SF_TRACE;
}

static const struct field_info *field_find(const char *name, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
		if (strlen(fields[i].name) == len && !strncmp(fields[i].name, name, len))
			return &fields[i];
	return NULL;
}

/* "trace:" (tracepoints) or another of perf's kinds ("hw:", "sw:", ...), which kprof's
 * events all are: the length of the prefix into *@len, or 0. */
static size_t kind_prefix(const char *spec, int *kind)
{
	static const char *const others[] = { "hw", "sw", "raw", "breakpoint", "synth" };
	const char *colon = strchr(spec, ':');
	size_t n = colon ? (size_t)(colon - spec) : 0;

	if (!n)
		return 0;
	*kind = !strncmp(spec, "trace", n) && n == 5 ? KP_SK_TRACE : -1;
	for (size_t i = 0; *kind < 0 && i < ARRAY_SIZE(others); i++)
		if (strlen(others[i]) == n && !strncmp(spec, others[i], n))
			*kind = KP_SK_OTHER;
	return *kind < 0 ? 0 : n + 1;
}

/* One token of a list: @sign is '+', '-' or 0 (the list replaces the fields). */
static void apply(struct kp_script_fields *f, int kind, uint32_t bit, int sign)
{
	for (int k = 0; k < KP_SK_NR; k++) {
		if (kind >= 0 && k != kind)
			continue;
		if (kind < 0 && bit == KP_SF_TRACE && k != KP_SK_TRACE)
			continue; /* perf: "'trace' not valid for hardware events. Ignoring." */
		if (sign == '-')
			f->fields[k] &= ~bit;
		else
			f->fields[k] |= bit;
	}
}

int kp_script_fields_parse(struct kp_script_fields *f, const char *spec, const char **bad)
{
	int kind = -1, sign = 0;
	const char *p = spec + kind_prefix(spec, &kind);

	if (*p != '+' && *p != '-') {
		for (int k = 0; k < KP_SK_NR; k++)
			if (kind < 0 || k == kind) {
				f->fields[k] = 0;
				f->user_set[k] = true;
			}
	}
	while (*p) {
		size_t len;
		const struct field_info *fi;

		if (*p == '+' || *p == '-')
			sign = *p++;
		len = strcspn(p, ",");
		fi = field_find(p, len);
		if (!fi) {
			*bad = p;
			return -EINVAL;
		}
		apply(f, kind, fi->bit, sign);
		p += len + (p[len] == ',');
	}
	return 0;
}

static enum kp_script_kind kind_of(const struct kp_evsel *ev)
{
	return ev->attr.type == PERF_TYPE_TRACEPOINT ? KP_SK_TRACE : KP_SK_OTHER;
}

/* The fields of @ev: those of its kind the samples have, or -KP_SE_* for what cannot be. */
static int event_fields(const struct kp_script_fields *f, const struct kp_evsel *ev,
			uint32_t *out, const char **field)
{
	enum kp_script_kind k = kind_of(ev);
	uint32_t want = f->fields[k];
	uint64_t st = ev->attr.sample_type;

	if (k == KP_SK_TRACE && !f->user_set[k] && (st & PERF_SAMPLE_CALLCHAIN))
		want |= SF_FRAME;
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		if (!(want & fields[i].bit) || !fields[i].sample_type ||
		    (st & fields[i].sample_type))
			continue;
		if (fields[i].bit == KP_SF_PERIOD && !ev->attr.freq)
			continue; /* a fixed period: the attr's, as perf prints it */
		*field = fields[i].name;
		if (f->user_set[k])
			return -KP_SE_MISSING;
		want &= ~fields[i].bit;
	}
	*field = want & KP_SF_SYM ? "sym" : "dso";
	if ((want & (KP_SF_SYM | KP_SF_DSO)) && !(want & KP_SF_IP))
		return -KP_SE_SYM_NO_IP;
	*field = "symoff";
	if ((want & KP_SF_SYMOFF) && !(want & KP_SF_SYM))
		return -KP_SE_SYMOFF_NO_SYM;
	*out = want;
	return 0;
}

/*
 * The event's name as perf script prints it: with the modifiers it was asked for
 * ("cpu-clock:ppp", perf's own name of a perf.data's event), unless the event opened is
 * another one (a fallback: kprof's name of the event opened).
 */
static const char *perf_name(const struct kp_evsel *e)
{
	size_t n = kp_perfhdr_base_len(e->spec);

	return strlen(e->name) == n && !strncmp(e->name, e->spec, n) ? e->spec : e->name;
}

int kp_script_start(struct kp_script *sc, struct kp_session *s, struct kp_tp *tp,
		    enum kp_unwind_lib unwinder, const struct kp_script_fields *f, FILE *out,
		    size_t *ev, const char **field)
{
	memset(sc, 0, sizeof(*sc));
	sc->s = s;
	sc->tp = tp;
	sc->out = out;
	kp_profile_init(&sc->prof, &s->strs, 1);
	kp_resolver_init(&sc->res, s, &sc->prof, unwinder);
	sc->ev_fields = kp_xcalloc(s->evl.nr + 1, sizeof(*sc->ev_fields));
	for (size_t i = 0; i < s->evl.nr; i++) {
		const struct kp_evsel *e = &s->evl.ev[i];
		int rc = event_fields(f, e, &sc->ev_fields[i], field);
		int w = (int)kp_text_len(perf_name(e));

		if (rc) {
			*ev = i;
			return rc;
		}
		sc->name_width = w > sc->name_width ? w : sc->name_width;
	}
	return 0;
}

void kp_script_release(struct kp_script *sc)
{
	if (!sc->s)
		return;
	kp_resolver_release(&sc->res);
	kp_profile_release(&sc->prof);
	free(sc->ev_fields);
	memset(sc, 0, sizeof(*sc));
}

static const char *comm_of(struct kp_script *sc, const struct kp_thread *t)
{
	return t->comm ? kp_strtab_get(&sc->s->strs, t->comm) : ":-1";
}

/* perf's perf_sample__fprintf_start(): comm, pid/tid, cpu, time. */
static void print_start(struct kp_script *sc, uint32_t f, const struct kp_sample *smp,
			const struct kp_thread *t, bool frames_below)
{
	FILE *o = sc->out;

	if (f & KP_SF_COMM) {
		kp_text_put(o, frames_below ? 0 : 16, comm_of(sc, t));
		fputc(' ', o);
	}
	/* as perf, signed: a task the kernel no longer names (session.h) is -1 */
	if ((f & KP_SF_PID) && (f & KP_SF_TID))
		fprintf(o, "%5d/%-5d ", (int32_t)smp->pid, (int32_t)smp->tid);
	else if (f & KP_SF_PID)
		fprintf(o, "%5d ", (int32_t)smp->pid);
	else if (f & KP_SF_TID)
		fprintf(o, "%5d ", (int32_t)smp->tid);
	if (f & KP_SF_CPU)
		fprintf(o, "[%03u] ", smp->cpu);
	/* perf's "%12s: " of "%lu.%06lu" */
	if (f & KP_SF_TIME)
		fprintf(o, "%5" PRIu64 ".%06" PRIu64 ": ", smp->time / 1000000000,
			smp->time % 1000000000 / 1000);
}

static void print_trace(struct kp_script *sc, const struct kp_sample *smp)
{
	char buf[4096];

	if (sc->tp && !kp_tp_print(sc->tp, smp->raw, smp->raw_size, buf, sizeof(buf)))
		kp_text_put(sc->out, 0, buf);
}

/* One frame of an address: "sym+0xoff", "[unknown]" without one, then " (dso)". */
static void print_frame(struct kp_script *sc, uint32_t f, const struct kp_addr_info *ai, int i)
{
	const struct kp_sym_frame *fr = ai->nr ? &ai->fr[i] : NULL;
	bool inlined = fr && i < ai->nr - 1;

	if (f & KP_SF_SYM) {
		fputc(' ', sc->out);
		kp_text_put(sc->out, 0, fr ? fr->func : "[unknown]");
		if (fr && (f & KP_SF_SYMOFF) && fr->off != UINT64_MAX)
			fprintf(sc->out, "+0x%" PRIx64, fr->off);
	}
	if ((f & KP_SF_DSO) && !inlined) {
		fputs(" (", sc->out);
		kp_text_put(sc->out, 0, ai->dso ? ai->dso : "[unknown]");
		fputc(')', sc->out);
	}
	if (inlined)
		fputs(" (inlined)", sc->out);
}

struct chain_walk {
	struct kp_script *sc;
	struct kp_thread *t;
	uint32_t f;
	bool unwound;		/* the user part was unwound here from the sample's stack copy */
};

/* Each frame of an address a line, its inlined functions first. */
static bool print_addr(void *ctx, uint64_t addr, bool kernel, bool ret)
{
	struct chain_walk *w = ctx;
	struct kp_addr_info ai;
	int i = 0;

	/* perf script shows a return address its unwinder found as the call's last byte (the
	 * return address minus one, with the offset from there), one the kernel recorded as it
	 * is: so does this, and the lookup is the same either way */
	if (w->unwound && ret && !kernel) {
		addr--;
		ret = false;
	}
	kp_resolve_addr(&w->sc->res, w->t, addr, kernel, ret, &ai);
	do {
		fprintf(w->sc->out, "\t%16" PRIx64, ai.rel);
		print_frame(w->sc, w->f, &ai, i);
		fputc('\n', w->sc->out);
	} while (++i < ai.nr);
	return false;
}

/* The sampled ip alone, on the sample line: as it is, as perf shows it. */
static void print_ip(struct kp_script *sc, uint32_t f, const struct kp_sample *smp, uint16_t misc,
		     struct kp_thread *t)
{
	bool kernel = (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
	struct kp_addr_info ai;

	kp_resolve_addr(&sc->res, t, smp->ip, kernel, false, &ai);
	ai.nr = ai.nr ? 1 : 0;
	ai.fr[0] = ai.fr[ai.nr ? ai.nr - 1 : 0];
	fprintf(sc->out, " %16" PRIx64, smp->ip);
	print_frame(sc, f, &ai, 0);
}

void kp_script_sample(struct kp_script *sc, size_t ev, const struct kp_sample *smp, uint16_t misc,
		      struct kp_thread *t)
{
	const struct kp_evsel *e = &sc->s->evl.ev[ev];
	uint32_t f = sc->ev_fields[ev];
	const struct kp_sample *recorded = smp;
	struct kp_sample joined;
	bool chain;

	smp = kp_unwind_join(sc->res.unwinder, smp, t, &joined, sc->res.chain,
			     ARRAY_SIZE(sc->res.chain));
	/* perf prints the comm unpadded above frames */
	chain = (f & KP_SF_IP) && (smp->sample_type & PERF_SAMPLE_CALLCHAIN);
	print_start(sc, f, smp, t, chain);
	if (f & KP_SF_PERIOD)
		fprintf(sc->out, "%10" PRIu64 " ", smp->sample_type & PERF_SAMPLE_PERIOD
							   ? smp->period
							   : (uint64_t)e->attr.sample_period);
	if (f & KP_SF_EVENT) {
		kp_text_put(sc->out, sc->name_width, perf_name(e));
		fputs(": ", sc->out);
	}
	if ((f & KP_SF_TRACE) && smp->raw_size)
		print_trace(sc, smp);
	if (chain) {
		struct chain_walk w = { sc, t, f, smp != recorded };

		fputc('\n', sc->out);
		kp_stack_walk(smp, misc, print_addr, &w);
	} else if (f & KP_SF_IP) {
		print_ip(sc, f, smp, misc, t);
	}
	fputc('\n', sc->out);
}
