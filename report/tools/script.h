/* SPDX-License-Identifier: MIT */
/*
 * script.h - samples as `perf script` prints them, so that the tools reading perf script text
 * (stackcollapse-perf.pl, the Firefox Profiler, speedscope) read kprof recordings unchanged.
 *
 * A sample is a line of its fields (comm, tid, time, period, event, ...) in perf's spacing,
 * then, when it has a call chain and the ip field is shown, one line per frame, leaf first:
 * "\t%16x sym+0xoff (dso)", inlined functions as "\t%16x sym+0xoff (inlined)" above the
 * function holding them, and a blank line. Without a call chain the frame ends the sample
 * line. A user address is shown in its DSO (as perf 6 does), a kernel one as it is.
 *
 * Which fields are shown is perf's -F: each kind of event (tracepoints, and the others) has
 * its defaults, which "-F a,b" replaces and "-F +a,-b" changes; a field the user asked for
 * that the recording lacks is an error, a default one is left out.
 */
#ifndef KP_SCRIPT_H
#define KP_SCRIPT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report/profile/resolve.h"
#include "report/replay/session.h"
#include "report/replay/tracepoint.h"

#define KP_SF_COMM	0x001
#define KP_SF_TID	0x002
#define KP_SF_PID	0x004
#define KP_SF_TIME	0x008
#define KP_SF_CPU	0x010
#define KP_SF_EVENT	0x020
#define KP_SF_IP	0x040
#define KP_SF_SYM	0x080
#define KP_SF_SYMOFF	0x100
#define KP_SF_DSO	0x200
#define KP_SF_PERIOD	0x400
#define KP_SF_TRACE	0x800

/* The kinds of event -F tells apart: perf's "trace:" and the rest ("hw:", "sw:", ...). */
enum kp_script_kind { KP_SK_OTHER, KP_SK_TRACE, KP_SK_NR };

/* What -F asked for, per kind of event. */
struct kp_script_fields {
	uint32_t fields[KP_SK_NR];
	bool user_set[KP_SK_NR];	/* named by the user: a field the recording lacks fails */
};

/* kp_script_fields_init - perf's defaults for each kind. */
void kp_script_fields_init(struct kp_script_fields *f);

/*
 * kp_script_fields_parse - apply one -F @spec: "[KIND:]FIELD,..." replaces the fields of
 * KIND (of every kind without one), "+FIELD" and "-FIELD" add to and take from them.
 * Returns 0, or -EINVAL with *@bad pointing at the token (in @spec) that is no field or kind.
 */
int kp_script_fields_parse(struct kp_script_fields *f, const char *spec, const char **bad);

/* Why an event's fields cannot be printed (kp_script_start()). */
enum kp_script_error {
	KP_SE_MISSING = 1,	/* a field the user asked for is not in the samples */
	KP_SE_SYM_NO_IP,	/* sym or dso without ip */
	KP_SE_SYMOFF_NO_SYM,	/* symoff without sym */
};

struct kp_script {
	struct kp_session *s;	/* borrowed */
	struct kp_tp *tp;	/* borrowed; NULL when the recording has no tracepoint formats */
	FILE *out;
	struct kp_profile prof;	/* what the resolver needs beside it */
	struct kp_resolver res;
	uint32_t *ev_fields;	/* per event of the session, checked */
	int name_width;		/* the longest event name */
};

/*
 * kp_script_start - check @f against each event of @s (whose event list is final) and get
 * ready to print; @tp and @out are borrowed. Returns 0, or -KP_SE_* with *@ev the event and
 * *@field the field's name (a static string). Call kp_script_release() in every case.
 */
int kp_script_start(struct kp_script *sc, struct kp_session *s, struct kp_tp *tp,
		    enum kp_unwind_lib unwinder, const struct kp_script_fields *f, FILE *out,
		    size_t *ev, const char **field);
void kp_script_release(struct kp_script *sc);

/* kp_script_sample - print one sample of event @ev (its index in the session's list). */
void kp_script_sample(struct kp_script *sc, size_t ev, const struct kp_sample *smp, uint16_t misc,
		      struct kp_thread *t);

#endif /* KP_SCRIPT_H */
