/* SPDX-License-Identifier: MIT */
/*
 * evspec.h - turns the event names of `-e` into perf_event_attr.
 *
 * An event is one of:
 *   NAME[:MODS]      a hardware, software or hardware cache event from kp_evspec_names()
 *                    ("cycles", "task-clock", "L1-dcache-load-misses"); MODS is u and/or k
 *   rNNNN[:MODS]     a raw PMU event, NNNN in hex (PERF_TYPE_RAW, config = 0xNNNN)
 *   SYS:NAME         a tracepoint, found in tracefs; SYS and NAME may be shell globs, and
 *                    then the spec stands for every tracepoint that matches
 *                    (ftrace:function, the function tracer, is one where the kernel has it)
 *   uprobe:PATH:SYMBOL[+OFF], uretprobe:PATH:SYMBOL[+OFF]
 *                    a user-space probe through the uprobe PMU (probe.h)
 *   uprobe:PATH:FUNC[:RLN|+OFF|%return] ARG..., usdt:PATH:[PROVIDER:]NAME [ARG...]
 *                    a user-space probe that fetches values (perf probe's arguments), an
 *                    SDT probe: a uprobe event defined in tracefs, recorded as a
 *                    tracepoint named as perf names it ("probe_calls:square",
 *                    "sdt_python:function__entry")
 *   kprobe:FUNC[+OFF], kretprobe:FUNC
 *                    a kernel probe through the kprobe PMU
 *   mem:ADDR[:rwx]   a hardware breakpoint (PERF_TYPE_BREAKPOINT)
 *   PMU/TERM=VAL,TERM,.../[MODS], PMU/EVENT/[MODS]
 *                    an event of a PMU in sysfs, built from its format terms (pmu.h)
 *   {EVENT,EVENT,...}
 *                    a group: the events are scheduled onto the PMU together
 * Events are separated by commas (not those inside a PMU's /.../). A colon after a known
 * event name (or an rNNNN) starts modifiers, and so does a colon followed only by u and k
 * letters; any other colon makes a tracepoint, unless the text starts with one of the probe
 * prefixes above.
 */
#ifndef KP_EVSPEC_H
#define KP_EVSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

/* What kind of event a kp_evspec is: which syntax made it. */
enum kp_evspec_kind {
	KP_EVSPEC_NAMED,	/* a name from kp_evspec_names() */
	KP_EVSPEC_RAW,		/* rNNNN */
	KP_EVSPEC_TRACEPOINT,	/* SYS:NAME */
	KP_EVSPEC_UPROBE,	/* uprobe:, uretprobe: and usdt: */
	KP_EVSPEC_USDT,		/* usdt: while it is parsed; KP_EVSPEC_UPROBE once it is */
	KP_EVSPEC_KPROBE,	/* kprobe: and kretprobe: */
	KP_EVSPEC_BREAKPOINT,	/* mem: */
	KP_EVSPEC_PMU,		/* PMU/.../ */
};

/**
 * struct kp_evspec - one parsed event
 * @spec:     the text the user gave, e.g. "cycles:u"; for a tracepoint glob, the name of the
 *            one tracepoint this entry stands for, e.g. "syscalls:sys_enter_getuid" (owned)
 * @name:     the canonical event name, e.g. "cycles": static, or @name_buf
 * @attr:     type, config and the :u/:k exclusions; the caller adds the sampling fields.
 *            For a probe, config1 points at @probe_arg (see there)
 * @kind:     which syntax the event came from
 * @fallback: set by kp_evspec_fallback() once the event was replaced by cpu-clock
 * @modifiers: the user gave :u or :k, so kprof must not narrow the event itself
 * @filter:   a tracepoint filter from kp_evspec_filter() (owned), or NULL. Whoever opens the
 *            event applies it to every fd with kp_perf_set_filter()
 * @name_buf: storage behind @name for raw events and tracepoints (owned), or NULL
 * @probe_arg: for a uprobe the binary's absolute path, for a kprobe the function's name
 *            (owned), else NULL. attr.config1 holds its address, which the kernel reads
 *            during perf_event_open(): the string must outlive every open of @attr, so keep
 *            the evspec until they are all done (kp_evspec_free() frees it). A copy of
 *            @attr written to a file carries a meaningless config1
 * @tp_sys:   for a probe kprof defined in tracefs (probe.h), the group and event
 * @tp_event: of it there ("kprof_1234", "square"), where its format is read (owned);
 *            NULL for every other event, a tracepoint's format being at its @name
 * @token:    which name of the -e lists this entry came from: the tracepoints one glob
 *            expanded to share it (numbered from 1)
 * @group_leader: -1 when the event is in no group. For the events of one {...} group, the
 *            index (in the kp_evspec array) of the group's first event, the leader; the
 *            leader's own @group_leader is its own index, and the members follow it at
 *            consecutive indexes. For each target (task and CPU) the leader is opened first,
 *            with group_fd -1, and created disabled (with enable_on_exec where kprof starts
 *            a command); each member is opened after it with group_fd = the leader's fd for
 *            that same task and CPU, and with disabled = 0 and enable_on_exec = 0, so that
 *            enabling the leader enables the group. The kernel then schedules the group as
 *            a unit (all counting or none). A member of a group whose leader could not be
 *            opened on a target cannot be opened there either
 */
struct kp_evspec {
	char *spec;
	const char *name;
	struct perf_event_attr attr;
	enum kp_evspec_kind kind;
	bool fallback;
	bool modifiers;
	char *filter;
	char *name_buf;
	char *probe_arg;
	char *tp_sys, *tp_event;
	unsigned token;
	int group_leader;
	bool off_cpu;		/* record --off-cpu's: every switch-out sampled, with the switch
				 * records that time it (attr.context_switch) */
};

/**
 * struct kp_evspec_name - an event kprof knows by name
 * @name:   e.g. "cycles"
 * @type:   PERF_TYPE_HARDWARE, PERF_TYPE_SOFTWARE or PERF_TYPE_HW_CACHE
 * @config: perf_event_attr.config; for a cache event id | op << 8 | result << 16
 * @alias:  another name for it, or NULL
 */
struct kp_evspec_name {
	const char *name;
	uint32_t type;
	uint64_t config;
	const char *alias;
};

/* kp_evspec_names - the table of named events (static), *@nr rows: hardware, software, cache */
const struct kp_evspec_name *kp_evspec_names(size_t *nr);

/* kp_evspec_type_name - "hardware event", "software event", ... for a PERF_TYPE_* (static) */
const char *kp_evspec_type_name(uint32_t type);

/*
 * kp_evspec_parse - parse a comma-separated list of events and append them to *@specs
 * (array of *@nr, grown as needed). A tracepoint glob appends one entry per match. Returns
 * 0, or after printing what is wrong: -EINVAL for a bad spec (the unknown name and the closest
 * known ones, the bad modifier, the tracepoint nothing matches), -EACCES/-ENODEV/-errno when
 * tracefs cannot be read (with a hint), -EIO when a tracepoint's id file is malformed,
 * -ENODEV when the kernel lacks the PMU a probe needs; a probe's bad path, symbol or offset,
 * and an unknown PMU or term, are -EINVAL. Events inside {...} become a group (see
 * @group_leader); groups do not nest. On error *@nr may include a partly filled entry, which
 * kp_evspec_free() releases.
 */
int kp_evspec_parse(const char *list, struct kp_evspec **specs, size_t *nr);

struct kp_tracefs;

/*
 * kp_evspec_tp_format - the tracefs format file of tracepoint @e in *@fmt (the caller's), read
 * from @t: events/SYS/NAME/format for SYS:NAME, or where kprof defined a probe. Returns 0,
 * -EINVAL when @e is no tracepoint, or -errno.
 */
int kp_evspec_tp_format(const struct kp_evspec *e, const struct kp_tracefs *t, char **fmt);

/*
 * kp_evspec_parse_arg - kp_evspec_parse() for an -e argument, as a command's exit status:
 * 0, 2 for a bad spec (a usage error), 1 when the system could not answer (tracefs, a PMU).
 */
int kp_evspec_parse_arg(const char *list, struct kp_evspec **specs, size_t *nr);

/*
 * kp_evspec_filter - attach a tracepoint filter (the kernel's filter syntax, e.g.
 * "common_pid == 42") to the event named last, that is to every entry of the last -e name.
 * A second filter on the same event is joined: "(first) && (second)". Returns 0, or -EINVAL
 * after printing why (no event yet, the last event is not a tracepoint, an empty filter).
 * The kernel checks the filter itself when it is applied.
 */
int kp_evspec_filter(struct kp_evspec *specs, size_t nr, const char *filter);

/*
 * kp_evspec_fallback - if @e is a hardware event, turn it into cpu-clock (keeping its
 * modifiers) and return true; perf does the same where the CPU has no PMU.
 */
bool kp_evspec_fallback(struct kp_evspec *e);

/*
 * kp_evspec_user_only - if @e counts the kernel only because the user did not say otherwise,
 * make it user space only (perf does the same when perf_event_paranoid forbids kernel
 * samples) and return true. Never for tracepoints and kprobes: they fire in the kernel, so
 * a user-only one would count nothing; never for uprobes, which a missing capability
 * (CAP_SYS_ADMIN) refuses, not perf_event_paranoid.
 */
bool kp_evspec_user_only(struct kp_evspec *e);

/*
 * kp_evspec_every_hit - @e counts occurrences each worth a sample: a tracepoint, a probe or
 * a breakpoint. A recorder given no -c samples such an event at every hit (sample_period 1,
 * freq 0) rather than at a frequency, which would skip hits and guess a period.
 */
bool kp_evspec_every_hit(const struct kp_evspec *e);

/*
 * kp_evspec_explain - print why opening @e failed with -@err, and a hint: the probe-specific
 * ones (uprobes need CAP_SYS_ADMIN; a probe the kernel refused; breakpoint slots), else
 * kp_perf_explain()'s.
 */
void kp_evspec_explain(const struct kp_evspec *e, int err);

/* kp_evspec_free - free @nr specs, their strings and the array. */
void kp_evspec_free(struct kp_evspec *specs, size_t nr);

/*
 * kp_evspec_syntax - the @i-th syntax -e takes beyond the named events, e.g.
 * "uprobe:PATH:SYMBOL[+OFF]", with a short description in *@what; NULL past the last.
 */
const char *kp_evspec_syntax(size_t i, const char **what);

/* kp_evspec_list - print the known event names and the syntaxes, one per line, to stdout. */
void kp_evspec_list(void);

#endif /* KP_EVSPEC_H */
