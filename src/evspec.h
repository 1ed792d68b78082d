/* SPDX-License-Identifier: MIT */
/*
 * evspec.h - turns the event names of `-e` into perf_event_attr.
 */
#ifndef KP_EVSPEC_H
#define KP_EVSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/perf_event.h>

/**
 * struct kp_evspec - one parsed event
 * @spec:     the text the user gave, e.g. "cycles:u" (owned)
 * @name:     the canonical event name, e.g. "cycles" (static)
 * @attr:     type, config and the :u/:k exclusions; the caller adds the sampling fields
 * @fallback: set by kp_evspec_fallback() once the event was replaced by cpu-clock
 * @modifiers: the user gave :u or :k, so kprof must not narrow the event itself
 */
struct kp_evspec {
	char *spec;
	const char *name;
	struct perf_event_attr attr;
	bool fallback;
	bool modifiers;
};

/*
 * kp_evspec_parse - parse a comma-separated list of events and append them to *@specs
 * (array of *@nr, grown as needed). Returns 0, or -EINVAL after printing what is wrong
 * (the unknown name and the closest known ones, or the bad modifier).
 */
int kp_evspec_parse(const char *list, struct kp_evspec **specs, size_t *nr);

/*
 * kp_evspec_fallback - if @e is a hardware event, turn it into cpu-clock (keeping its
 * modifiers) and return true; perf does the same where the CPU has no PMU.
 */
bool kp_evspec_fallback(struct kp_evspec *e);

/*
 * kp_evspec_user_only - if @e counts the kernel only because the user did not say otherwise,
 * make it user space only (perf does the same when perf_event_paranoid forbids kernel
 * samples) and return true.
 */
bool kp_evspec_user_only(struct kp_evspec *e);

void kp_evspec_free(struct kp_evspec *specs, size_t nr);

/* kp_evspec_list - print the known event names, one per line, to stdout. */
void kp_evspec_list(void);

#endif /* KP_EVSPEC_H */
