/* SPDX-License-Identifier: MIT */
/*
 * probe.h - the probe events of `-e`: uprobes and kprobes through their PMUs (no tracefs
 * probe_events are written), and hardware breakpoints.
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
 * kp_probe_uprobe - "PATH:SYMBOL[+OFF]" (@arg; @ret for a uretprobe) into @attr, and the
 * absolute path into *@path (owned by the caller, who must keep it alive until every
 * perf_event_open() of @attr is done: attr->config1 points at it). SYMBOL is a function in
 * .symtab, else .dynsym, or an address 0xADDR; OFF (decimal or 0x hex) must lie inside it.
 * @spec names the event in messages. Returns 0, or after printing what is wrong: -EINVAL
 * (bad syntax, no such file, not ELF, no such function (with the closest names), OFF past
 * the function's end), -ENODEV (no uprobe PMU), -errno (the file cannot be read).
 */
int kp_probe_uprobe(const char *spec, const char *arg, bool ret, struct perf_event_attr *attr,
		    char **path);

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

/*
 * kp_probe_file_offset - the file offset of function @symbol (+@off) in ELF file @path, and
 * its address in *@vaddr; the lookup behind kp_probe_uprobe(), printing the same errors.
 */
int kp_probe_file_offset(const char *spec, const char *path, const char *symbol, uint64_t off,
			 uint64_t *file_off, uint64_t *vaddr);

#endif /* KP_PROBE_H */
