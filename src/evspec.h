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
 * A colon after a known event name (or an rNNNN) starts modifiers, and so does a colon
 * followed only by u and k letters; any other colon makes a tracepoint.
 */
#ifndef KP_EVSPEC_H
#define KP_EVSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

/**
 * struct kp_evspec - one parsed event
 * @spec:     the text the user gave, e.g. "cycles:u"; for a tracepoint glob, the name of the
 *            one tracepoint this entry stands for, e.g. "syscalls:sys_enter_getuid" (owned)
 * @name:     the canonical event name, e.g. "cycles": static, or @name_buf
 * @attr:     type, config and the :u/:k exclusions; the caller adds the sampling fields
 * @fallback: set by kp_evspec_fallback() once the event was replaced by cpu-clock
 * @modifiers: the user gave :u or :k, so kprof must not narrow the event itself
 * @filter:   a tracepoint filter from kp_evspec_filter() (owned), or NULL. Whoever opens the
 *            event applies it to every fd with kp_perf_set_filter()
 * @name_buf: storage behind @name for raw events and tracepoints (owned), or NULL
 * @token:    which name of the -e lists this entry came from: the tracepoints one glob
 *            expanded to share it (numbered from 1)
 */
struct kp_evspec {
	char *spec;
	const char *name;
	struct perf_event_attr attr;
	bool fallback;
	bool modifiers;
	char *filter;
	char *name_buf;
	unsigned token;
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
 * tracefs cannot be read (with a hint), -EIO when a tracepoint's id file is malformed. On error *@nr may include a partly filled entry, which
 * kp_evspec_free() releases.
 */
int kp_evspec_parse(const char *list, struct kp_evspec **specs, size_t *nr);

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
 * samples) and return true. Never for tracepoints: they fire in the kernel, so a user-only
 * tracepoint would count nothing.
 */
bool kp_evspec_user_only(struct kp_evspec *e);

/* kp_evspec_free - free @nr specs, their strings and the array. */
void kp_evspec_free(struct kp_evspec *specs, size_t nr);

/* kp_evspec_list - print the known event names, one per line, to stdout. */
void kp_evspec_list(void);

#endif /* KP_EVSPEC_H */
