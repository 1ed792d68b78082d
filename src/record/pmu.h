/* SPDX-License-Identifier: MIT */
/*
 * pmu.h - the kernel's PMUs as sysfs describes them, under /sys/bus/event_source/devices/NAME:
 *   type            perf_event_attr.type for the PMU's events
 *   format/TERM     which bits a term's value goes to: "config:0-7", "config1:0-63",
 *                   "config:0" (a flag), or several ranges "config:0-7,32-35" filled from the
 *                   value's low bits up
 *   events/EVENT    a named event as terms, e.g. msr's "tsc" is "event=0x00"
 * Everything read from sysfs is checked: names that reach a path come from a directory
 * listing or pass kp_pmu_valid_name(), and a malformed file is an error, not a guess.
 */
#ifndef KP_PMU_H
#define KP_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#define KP_PMU_DIR "/sys/bus/event_source/devices"
/* The characters of a PMU's, a term's or an event's name. */
#define KP_PMU_NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-"

/* kp_pmu_valid_name - @name is a plain sysfs name: [A-Za-z0-9_.-], not "." or "..". */
bool kp_pmu_valid_name(const char *name);

/* kp_pmu_parse_value - a term's VALUE, decimal or 0x hex, the whole of @s, into *@v. */
bool kp_pmu_parse_value(const char *s, uint64_t *v);

/*
 * kp_pmu_type - the type of PMU @pmu into *@type. Returns 0, -ENOENT when there is no such
 * PMU (or @pmu is not a valid name), -EINVAL for a type file that holds no number, -errno.
 */
int kp_pmu_type(const char *pmu, uint32_t *type);

/*
 * kp_pmu_set_term - put @val into the bits term @term of @pmu names (its format file) in
 * @attr, clearing them first. Returns 0, -ENOENT when the PMU has no such term, -ERANGE when
 * @val does not fit (*@bits, if not NULL, is set to the term's width either way), -EINVAL
 * for a format file kprof cannot parse (or one naming config3 and up), -errno.
 */
int kp_pmu_set_term(const char *pmu, const char *term, uint64_t val,
		    struct perf_event_attr *attr, unsigned *bits);

/*
 * kp_pmu_format - the format of term @term of @pmu, e.g. "config:0-7" (owned by the caller:
 * free()), or NULL when it has none.
 */
char *kp_pmu_format(const char *pmu, const char *term);

/*
 * kp_pmu_event - the definition of @pmu's named event @name, e.g. "event=0x00" (owned by the
 * caller: free()), or NULL when there is no such event.
 */
char *kp_pmu_event(const char *pmu, const char *name);

/*
 * kp_pmu_list - the names in @pmu's @subdir ("format" or "events"), sorted, without the
 * ".scale"/".unit"/".per-pkg"/".snapshot" companions of events; *@nr of them (0 when the
 * directory is absent). The array and its strings are owned: kp_pmu_free_list().
 * With @pmu NULL: the PMUs themselves.
 */
char **kp_pmu_list(const char *pmu, const char *subdir, size_t *nr);
void kp_pmu_free_list(char **names, size_t nr);

/*
 * kp_pmu_parse - an event of the form PMU/TERMS/: @pmu is the PMU's name and @terms the text
 * between the slashes, comma-separated TERM=VALUE (VALUE decimal or 0x hex), a bare TERM
 * (a format flag, set to 1) or EVENT (one of its sysfs events, expanded to its terms).
 * config=, config1= and config2= set those fields whole. Fills @attr->type and the config
 * fields. @spec names the event in messages. Returns 0, or after printing what is wrong
 * (with the PMU's terms and events, or the PMUs there are): -EINVAL for a bad spec,
 * -errno when sysfs cannot be read.
 */
int kp_pmu_parse(const char *pmu, const char *terms, const char *spec,
		 struct perf_event_attr *attr);

#endif /* KP_PMU_H */
