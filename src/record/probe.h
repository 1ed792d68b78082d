/* SPDX-License-Identifier: MIT */
/*
 * probe.h - the probe events of `-e`: uprobes and kprobes through their PMUs, and hardware
 * breakpoints; uprobes that fetch values (arguments, variables, return values) and USDT
 * probes as uprobe events that kprof defines in tracefs for as long as it runs (dynevent.h).
 *
 * A uprobe is opened with the uprobe PMU's type (sysfs), config = its retprobe bit for a
 * uretprobe, config1 = a pointer to the binary's path (a NUL-terminated string the kernel
 * reads during perf_event_open) and config2 = the file offset of the probed instruction.
 * The offset comes from the ELF symbol table: SYMBOL's address mapped through the PT_LOAD
 * segment that holds it (offset = vaddr - p_vaddr + p_offset). kprobes are the same with
 * config1 = the function's name and config2 = the offset into it.
 */
#ifndef KP_PROBE_H
#define KP_PROBE_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>

/*
 * struct kp_probe_event - a probe that fetches values: a uprobe event kprof defined in tracefs
 * (dynevent.h), recorded as the tracepoint it is
 * @name:     what recordings call it, as perf names such probes: "probe_calls:square",
 *            "probe_calls:square__return", "sdt_python:function__entry" (owned)
 * @tp_sys:   where tracefs has it: its group, "kprof_1234" (owned)
 * @tp_event: and its name there, "square" (owned)
 */
struct kp_probe_event {
	char *name, *tp_sys, *tp_event;
};

/*
 * kp_probe_uprobe - a uprobe, "PATH:POINT [ARG...]" (@arg; @ret for a return probe, which
 * "PATH:FUNC%return" asks for too), POINT being SYMBOL[+OFF], 0xADDR[+OFF] or FUNC:RLN (RLN
 * lines after FUNC's declaration, from DWARF). SYMBOL is a function in .symtab, else .dynsym;
 * OFF (decimal or 0x hex) must lie inside it. Without ARGs it is opened through the uprobe
 * PMU: its type into @attr, and the absolute path into *@path (owned by the caller, who must
 * keep it alive until every perf_event_open() of @attr is done: attr->config1 points at it).
 * With ARGs (perf probe's syntax, probe-fetch.h) it is a uprobe event defined in tracefs:
 * @attr becomes that tracepoint and *@ev says what it is called (its strings the caller's).
 * @spec names the event in messages. Returns 0, or after printing what is wrong: -EINVAL (bad
 * syntax, no such file, not ELF, no such function (with the closest names), OFF past the
 * function's end, a bad argument), -ENODEV (no uprobe PMU, no tracefs), -errno (the file
 * cannot be read, tracefs cannot be written).
 */
int kp_probe_uprobe(const char *spec, const char *arg, bool ret, struct perf_event_attr *attr,
		    char **path, struct kp_probe_event *ev);

/*
 * kp_probe_usdt - a USDT probe (an SDT note, sdt.h), "PATH:[PROVIDER:]NAME [ARG...]" (@arg),
 * defined in tracefs as kp_probe_uprobe() defines a probe with values: at every place the
 * binary has it, its semaphore raised while it is on, fetching ARGs (arg1 .. argN, each with
 * an optional :TYPE, and NAME=; all of the note's, by its sizes, where none is given). Returns
 * as kp_probe_uprobe().
 */
int kp_probe_usdt(const char *spec, const char *arg, struct perf_event_attr *attr,
		  struct kp_probe_event *ev);

/*
 * kp_probe_kprobe - "FUNC[+OFF]" (@arg; @ret for a kretprobe, which takes no OFF) into @attr
 * through the kprobe PMU, the function name into *@func (owned by the caller, alive until the
 * opens are done: attr->config1 points at it). Returns 0, -EINVAL (bad syntax), -ENODEV
 * (this kernel has no kprobe PMU), each after printing why.
 */
int kp_probe_kprobe(const char *spec, const char *arg, bool ret, struct perf_event_attr *attr,
		    char **func);

/*
 * kp_probe_breakpoint - "ADDR[:rwx]" (@arg, ADDR in hex with or without 0x) into a
 * PERF_TYPE_BREAKPOINT @attr: r, w or rw watch 8 bytes (the default is rw), x watches an
 * instruction (sizeof(long)). Returns 0, or -EINVAL after printing why.
 */
int kp_probe_breakpoint(const char *spec, const char *arg, struct perf_event_attr *attr);

#endif /* KP_PROBE_H */
