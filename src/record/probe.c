/* SPDX-License-Identifier: MIT */
/*
 * probe.c - uprobes (ELF symbol -> file offset), kprobes and breakpoints for `-e`.
 */

#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <linux/hw_breakpoint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "dynevent.h"
#include "formats/util.h"
#include "pmu.h"
#include "probe-elf.h"
#include "probe-fetch.h"
#include "sdt.h"

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"

/* "NAME+OFF" -> *@name (owned), *@off; false when OFF is not a number. */
static bool split_offset(const char *text, char **name, uint64_t *off)
{
	const char *plus = strchr(text, '+');

	*off = 0;
	*name = plus ? strndup(text, (size_t)(plus - text)) : kp_xstrdup(text);
	if (!*name)
		kp_die("out of memory");
	return !plus || kp_pmu_parse_value(plus + 1, off);
}

/* ---- uprobes and kprobes -------------------------------------------------------------------- */

/* The PMU @pmu's type into @attr, and its retprobe bit for @ret. */
static int probe_pmu(const char *spec, const char *pmu, bool ret, struct perf_event_attr *attr)
{
	uint32_t type;
	int err = kp_pmu_type(pmu, &type);

	if (err) {
		kp_error("cannot read the type of the %s PMU (%s/%s/type): %s", pmu, KP_PMU_DIR, pmu,
			 err == -EINVAL ? "malformed" : strerror(-err));
		return err == -EINVAL ? -EIO : err;
	}
	attr->type = type;
	attr->config = 0;
	err = ret ? kp_pmu_set_term(pmu, "retprobe", 1, attr, NULL) : 0;
	if (err) {
		kp_error("cannot use '%s': the %s PMU has no usable retprobe bit (%s/%s/format/"
			 "retprobe): %s", spec, pmu, KP_PMU_DIR, pmu,
			 err == -ENOENT ? "missing" : "malformed");
		return -ENODEV;
	}
	return 0;
}

/* The group perf probe gives a binary's probes: probe_ and its name up to the first '.'. */
static char *event_name(const char *group_prefix, const char *group, const char *event)
{
	size_t n = strcspn(group, "."), len = strlen(group_prefix) + n + strlen(event) + 2;
	char *s = kp_xmalloc(len);
	size_t o = (size_t)snprintf(s, len, "%s", group_prefix);

	for (size_t i = 0; i < n; i++)
		s[o++] = strchr(NAME_CHARS, group[i]) ? group[i] : '_';
	snprintf(s + o, len - o, ":%s", event);
	return s;
}

/* Define @nr places of one event in tracefs, and make @attr and @ev that tracepoint. */
static int define_event(const char *spec, const char *name, bool ret, const char *const *defs,
			size_t nr, const char *group_prefix, const char *group,
			struct perf_event_attr *attr, struct kp_probe_event *ev)
{
	struct kp_dynevent d;
	int err = kp_dynevent_add(spec, name, ret, defs, nr, &d);

	if (err)
		return err;
	attr->type = PERF_TYPE_TRACEPOINT;
	attr->config = d.id;
	ev->name = event_name(group_prefix, group, d.event);
	ev->tp_sys = kp_xstrdup(d.sys);
	ev->tp_event = kp_xstrdup(d.event);
	return 0;
}

/* "HEAD ARGS...": *@head (owned) and where the arguments start in @arg. */
static const char *split_head(const char *arg, char **head)
{
	size_t n = strcspn(arg, " \t");

	*head = strndup(arg, n);
	if (!*head)
		kp_die("out of memory");
	return arg + n + strspn(arg + n, " \t");
}

/* A path as a tracefs probe's place takes it: no blank, which ends the place. */
static int place_path(const char *spec, const char *path)
{
	if (!path[strcspn(path, " \t\n")])
		return 0;
	kp_error("'%s' holds a blank, which a probe that fetches values cannot name (event '%s')",
		 path, spec);
	kp_hint("a hard link to it at a path without blanks is the same file to a probe");
	return -EINVAL;
}

/* PATH:FUNC[+OFF], PATH:FUNC:RLN or PATH:0xADDR[+OFF], with %return cut off by the caller. */
static int parse_point(const char *spec, char *head, bool ret, char **file, char **sym,
		       uint64_t *off, int *rln)
{
	char *colon = strrchr(head, ':'), *prev;

	*rln = -1;
	if (!colon || colon == head || !colon[1]) {
		kp_error("bad event '%s': a %s is %s:PATH:SYMBOL[+OFF]", spec,
			 ret ? "uretprobe" : "uprobe", ret ? "uretprobe" : "uprobe");
		return -EINVAL;
	}
	*colon = '\0';
	prev = strrchr(head, ':');
	if (!colon[1 + strspn(colon + 1, "0123456789")] && prev && prev != head && prev[1]) {
		*rln = atoi(colon + 1); /* FUNC:RLN */
		*prev = '\0';
		colon = prev;
		if (ret) {
			kp_error("bad event '%s': a return probe fires where the function returns, "
				 "so it takes no line", spec);
			return -EINVAL;
		}
	}
	*file = kp_xstrdup(head);
	if (!split_offset(colon + 1, sym, off) || !**sym) {
		kp_error("bad event '%s': SYMBOL+OFF needs a symbol and a number (decimal or 0x "
			 "hex), not '%s'", spec, colon + 1);
		return -EINVAL;
	}
	if (*rln >= 0 && (*off || !strncmp(*sym, "0x", 2))) {
		kp_error("bad event '%s': FUNC:LINE takes a function and a line of it", spec);
		return -EINVAL;
	}
	return 0;
}

/* The absolute path of @file, and the binary opened. */
static int open_binary(const char *spec, const char *file, char **path, struct kp_probe_elf *ef)
{
	ef->fd = -1;
	ef->elf = NULL;
	*path = realpath(file, NULL);
	if (!*path) {
		int err = errno;
		kp_error("cannot find '%s' (event '%s'): %s", file, spec, strerror(err));
		return err == ENOENT || err == ENOTDIR ? -EINVAL : -err;
	}
	return kp_probe_elf_open(spec, *path, ef);
}

int kp_probe_uprobe(const char *spec, const char *arg, bool ret, struct perf_event_attr *attr,
		    char **path, struct kp_probe_event *ev)
{
	char *head, *file = NULL, *sym = NULL, *fetch = NULL, *def = NULL, *pct;
	const char *args = split_head(arg, &head);
	struct kp_probe_elf ef = { -1, NULL };
	struct kp_probe_site site;
	uint64_t off, vaddr, file_off;
	uint32_t type;
	int rln, err;

	*path = NULL;
	memset(ev, 0, sizeof(*ev));
	pct = strstr(head, "%return");
	if (pct && !pct[7]) { /* perf probe's FUNC%return */
		*pct = '\0';
		ret = true;
	}
	err = parse_point(spec, head, ret, &file, &sym, &off, &rln);
	if (!err && kp_pmu_type("uprobe", &type) == -ENOENT) {
		kp_error("this kernel has no uprobe PMU (CONFIG_UPROBES is off): '%s' cannot be "
			 "opened", spec);
		err = -ENODEV;
	}
	if (!err)
		err = open_binary(spec, file, path, &ef);
	if (!err)
		err = kp_probe_elf_symbol(&ef, spec, *path, sym, off, &vaddr, NULL);
	if (!err)
		err = kp_probe_elf_offset(&ef, spec, *path, vaddr, true, &file_off);
	if (!err && (*args || rln >= 0)) {
		site = (struct kp_probe_site){ spec, *path, &ef, strncmp(sym, "0x", 2) ? sym : NULL,
					       vaddr, file_off, rln, ret, !off, NULL };
		err = kp_probe_fetch(&site, args, &fetch);
		file_off = site.file_off;
	}
	if (!err && *args) { /* values to fetch: an event defined in tracefs */
		char name[128];
		const char *base = strrchr(*path, '/') + 1;
		if (site.func) /* an address is abs_ADDR, as perf probe names it */
			snprintf(name, sizeof(name), "%s%s", site.func, ret ? "__return" : "");
		else
			snprintf(name, sizeof(name), "abs_%llx%s", (unsigned long long)vaddr,
				 ret ? "__return" : "");
		if (rln >= 0)
			snprintf(name + strlen(name), sizeof(name) - strlen(name), "_L%d", rln);
		err = place_path(spec, *path);
		if (!err && asprintf(&def, "%s:%#llx %s", *path, (unsigned long long)file_off,
				     fetch) < 0)
			kp_die("out of memory");
		if (!err)
			err = define_event(spec, name, ret, (const char *const *)&def, 1, "probe_",
					   base, attr, ev);
	} else if (!err) {
		err = probe_pmu(spec, "uprobe", ret, attr);
		if (!err) {
			attr->uprobe_path = (uint64_t)(uintptr_t)*path;
			attr->probe_offset = file_off;
		}
	}
	kp_probe_elf_close(&ef);
	if (err) {
		free(*path);
		*path = NULL;
	}
	free(def);
	free(fetch);
	free(head);
	free(file);
	free(sym);
	return err;
}

/* The SDT probes of @path called [@provider:]@name, or an error that names the others. */
static int find_sdt(const char *spec, const char *path, const struct kp_probe_elf *ef,
		    const char *provider, const char *name, struct kp_sdt_probe **all, size_t *nr,
		    size_t *first, size_t *count)
{
	int err = kp_sdt_read(ef->elf, all, nr);
	const char *other = NULL;

	*count = 0;
	if (err) {
		kp_error("the SDT notes of '%s' are malformed (event '%s')", path, spec);
		return -EINVAL;
	}
	if (!*nr) {
		kp_error("'%s' has no SDT probes (no .note.stapsdt section; event '%s')", path, spec);
		return -EINVAL;
	}
	for (size_t i = 0; i < *nr; i++) {
		const struct kp_sdt_probe *p = &(*all)[i];
		if (strcmp(p->name, name) || (provider && strcmp(p->provider, provider)))
			continue;
		if (!*count)
			*first = i;
		else if (strcmp(p->provider, (*all)[*first].provider))
			other = p->provider;
		(*count)++;
	}
	if (other) {
		kp_error("'%s' has SDT probes '%s' of providers '%s' and '%s' (event '%s')", path,
			 name, (*all)[*first].provider, other, spec);
		kp_hint("name the provider: usdt:%s:%s:%s", path, other, name);
		return -EINVAL;
	}
	if (!*count) {
		const char **names = kp_xcalloc(*nr, sizeof(*names));
		for (size_t i = 0; i < *nr; i++)
			names[i] = (*all)[i].name;
		kp_error("no SDT probe '%s%s%s' in '%s' (event '%s')", provider ? provider : "",
			 provider ? ":" : "", name, path, spec);
		if (!kp_hint_nearest(name, names, *nr))
			kp_hint("'kprof list --sdt %s' lists its probes", path);
		free(names);
		return -EINVAL;
	}
	return 0;
}

int kp_probe_usdt(const char *spec, const char *arg, struct perf_event_attr *attr,
		  struct kp_probe_event *ev)
{
	char *head, *colon, *prov = NULL, *path = NULL, *all_args = NULL;
	const char *args = split_head(arg, &head);
	struct kp_probe_elf ef = { -1, NULL };
	struct kp_sdt_probe *probes = NULL;
	size_t nr = 0, first = 0, count = 0, made = 0;
	char **defs = NULL;
	int err = 0;

	memset(ev, 0, sizeof(*ev));
	colon = strrchr(head, ':');
	if (!colon || colon == head || !colon[1]) {
		kp_error("bad event '%s': a USDT probe is usdt:PATH:[PROVIDER:]NAME", spec);
		err = -EINVAL;
		goto out;
	}
	*colon = '\0';
	prov = strrchr(head, ':');
	if (prov && prov != head && prov[1])
		*prov++ = '\0';
	else
		prov = NULL;
	err = open_binary(spec, head, &path, &ef);
	if (!err)
		err = place_path(spec, path);
	if (!err)
		err = find_sdt(spec, path, &ef, prov, colon + 1, &probes, &nr, &first, &count);
	if (!err && !*args) { /* every argument, arg1 to argN */
		size_t n = kp_sdt_nr_args(&probes[first]), len = 0;
		all_args = kp_xcalloc(1, n * 24 + 1);
		for (size_t i = 0; i < n; i++)
			len += (size_t)sprintf(all_args + len, "%sarg%zu", i ? " " : "", i + 1);
		args = all_args;
	}
	defs = kp_xcalloc(count ? count : 1, sizeof(*defs));
	for (size_t i = first; !err && i < nr; i++) {
		const struct kp_sdt_probe *p = &probes[i];
		struct kp_probe_site site = { spec, path, &ef, NULL, p->pc, 0, -1, false, false, p };
		uint64_t sem = 0;
		char *fetch = NULL, ref[40] = "";
		if (strcmp(p->name, probes[first].name) || strcmp(p->provider, probes[first].provider))
			continue;
		err = kp_probe_elf_offset(&ef, spec, path, p->pc, true, &site.file_off);
		if (!err && p->semaphore)
			err = kp_probe_elf_offset(&ef, spec, path, p->semaphore, false, &sem);
		if (!err)
			err = kp_probe_fetch(&site, args, &fetch);
		if (!err && sem)
			snprintf(ref, sizeof(ref), "(%#llx)", (unsigned long long)sem);
		if (!err && asprintf(&defs[made++], "%s:%#llx%s %s", path,
				     (unsigned long long)site.file_off, ref, fetch) < 0)
			kp_die("out of memory");
		free(fetch);
	}
	if (!err)
		err = define_event(spec, probes[first].name, false, (const char *const *)defs, made,
				   "sdt_", probes[first].provider, attr, ev);
out:
	for (size_t i = 0; i < made; i++)
		free(defs[i]);
	free(defs);
	kp_sdt_free(probes, nr);
	kp_probe_elf_close(&ef);
	free(all_args);
	free(path);
	free(head);
	return err;
}

int kp_probe_kprobe(const char *spec, const char *arg, bool ret, struct perf_event_attr *attr,
		    char **func)
{
	const char *what = ret ? "kretprobe" : "kprobe";
	uint64_t off;
	uint32_t type;
	int err;

	*func = NULL;
	if (!split_offset(arg, func, &off) || !**func ||
	    (*func)[strspn(*func, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.")]) {
		kp_error("bad event '%s': a %s is %s:FUNC%s, FUNC a kernel function", spec, what,
			 what, ret ? "" : "[+OFF]");
		err = -EINVAL;
	} else if (ret && off) {
		kp_error("bad event '%s': a kretprobe fires when FUNC returns, so it takes no "
			 "offset", spec);
		err = -EINVAL;
	} else if (kp_pmu_type("kprobe", &type) == -ENOENT) {
		kp_error("this kernel has no kprobe PMU (CONFIG_KPROBES is off): '%s' cannot be "
			 "opened", spec);
		err = -ENODEV;
	} else {
		err = probe_pmu(spec, "kprobe", ret, attr);
	}
	if (err) {
		free(*func);
		*func = NULL;
		return err;
	}
	attr->kprobe_func = (uint64_t)(uintptr_t)*func;
	attr->probe_offset = off;
	return 0;
}

/* ---- breakpoints ---------------------------------------------------------------------------- */

int kp_probe_breakpoint(const char *spec, const char *arg, struct perf_event_attr *attr)
{
	const char *colon = strchr(arg, ':'), *hex = arg, *access = colon ? colon + 1 : "rw";
	size_t n;
	unsigned type = 0;

	if (!strncmp(hex, "0x", 2) || !strncmp(hex, "0X", 2))
		hex += 2;
	n = strspn(hex, "0123456789abcdefABCDEF");
	if (n == 0 || n > 16 || hex + n != (colon ? colon : arg + strlen(arg))) {
		kp_error("bad event '%s': a breakpoint is mem:ADDR[:rwx], ADDR in hex", spec);
		return -EINVAL;
	}
	for (const char *a = access; *a; a++) {
		unsigned bit = *a == 'r' ? HW_BREAKPOINT_R : *a == 'w' ? HW_BREAKPOINT_W
			     : *a == 'x' ? HW_BREAKPOINT_X : 0;
		if (!bit) {
			kp_error("bad access '%s' in event '%s': r, w and x are known", access, spec);
			return -EINVAL;
		}
		type |= bit;
	}
	if (!type || ((type & HW_BREAKPOINT_X) && type != HW_BREAKPOINT_X)) {
		kp_error("bad access '%s' in event '%s': r, w or rw watch data, x alone an "
			 "instruction", access, spec);
		return -EINVAL;
	}
	attr->type = PERF_TYPE_BREAKPOINT;
	attr->config = 0;
	attr->bp_addr = strtoull(hex, NULL, 16);
	attr->bp_type = type;
	attr->bp_len = type == HW_BREAKPOINT_X ? sizeof(long) : HW_BREAKPOINT_LEN_8;
	return 0;
}
