/* SPDX-License-Identifier: MIT */
/*
 * tracefs.h - the kernel's tracing filesystem: where it is, which tracepoints it has, their
 * ids (for perf_event_attr.config) and their `format` files (for decoding PERF_SAMPLE_RAW).
 *
 * tracefs is looked for at /sys/kernel/tracing, then /sys/kernel/debug/tracing. When neither is
 * mounted, kp_tracefs_open() mounts it at /sys/kernel/tracing if the process may (root), and
 * says so; it changes nothing else. Its directory is usually mode 0700, so only root (or a
 * process whose tracefs was made readable) can list tracepoints or read their ids.
 *
 * Everything read from tracefs is treated as outside input: ids are parsed with bounds checks
 * and names are never joined into paths unless they came from a directory listing or passed
 * kp_tracefs_format()'s checks.
 */
#ifndef KP_TRACEFS_H
#define KP_TRACEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * struct kp_tracefs - a located tracefs; zero it (or kp_tracefs_open() it) before use
 * @dir:     the mount point in use, e.g. "/sys/kernel/tracing" (static string), or NULL
 * @mounted: kprof mounted it itself (kp_tracefs_open() printed a notice)
 * @mount_err: the errno of kprof's failed attempt to mount it, else 0
 */
struct kp_tracefs {
	const char *dir;
	bool mounted;
	int mount_err;
};

/**
 * struct kp_tracepoint - one tracepoint: events/@system/@name in tracefs
 * @system: e.g. "sched" (owned)
 * @name:   e.g. "sched_switch" (owned)
 * @id:     the contents of its `id` file: PERF_TYPE_TRACEPOINT's config; 0 if not read
 */
struct kp_tracepoint {
	char *system;
	char *name;
	uint64_t id;
};

/*
 * kp_tracefs_open - find tracefs, mounting it when it is not mounted and we may, and check
 * that its events/ directory can be read. Returns 0 (@t->dir set), -EACCES when tracefs is
 * there but this user cannot read it, -ENODEV when it is not mounted and could not be mounted
 * (@t->mount_err says why), or -errno from opening events/. kp_tracefs_explain() prints why.
 */
int kp_tracefs_open(struct kp_tracefs *t);

/*
 * kp_tracefs_strerror - one line saying why kp_tracefs_open() failed with @err, into @buf
 * (size @len); returns @buf. kp_tracefs_explain() - the same as an error, plus a hint.
 */
const char *kp_tracefs_strerror(const struct kp_tracefs *t, int err, char *buf, size_t len);
void kp_tracefs_explain(const struct kp_tracefs *t, int err);

/* The hint printed for permission problems, for callers that word their own error. */
#define KP_TRACEFS_PERM_HINT "tracepoints need root or CAP_PERFMON with a readable tracefs"

/*
 * kp_tracefs_events - append to *@tps (array of *@nr, grown with realloc) every tracepoint
 * whose system matches the shell glob @sys_glob and whose name matches @name_glob (fnmatch),
 * sorted by system then name. With @ids, read each one's id as well. Finding nothing is not
 * an error (*@nr is unchanged). Returns 0, -errno (reading tracefs), or -EINVAL for an id
 * file that does not hold one decimal number (a malformed tracefs).
 * Free the array with kp_tracefs_free().
 */
int kp_tracefs_events(const struct kp_tracefs *t, const char *sys_glob, const char *name_glob,
		      bool ids, struct kp_tracepoint **tps, size_t *nr);

/* kp_tracefs_has_system - tracefs has at least one system matching @sys_glob. */
bool kp_tracefs_has_system(const struct kp_tracefs *t, const char *sys_glob);

/* kp_tracefs_free - free @nr tracepoints and the array itself. */
void kp_tracefs_free(struct kp_tracepoint *tps, size_t nr);

/*
 * kp_tracefs_format - read events/@system/@name/format into *@text (NUL-terminated, owned by
 * the caller: free()). @system and @name must be plain names (no '/', not "." or "..").
 * Returns 0, -EINVAL for a bad name, or -errno.
 */
int kp_tracefs_format(const struct kp_tracefs *t, const char *system, const char *name,
		      char **text);

/*
 * kp_tracefs_header - read events/@name, "header_page" or "header_event": how the kernel's ring
 * buffer lays out its pages and its entries' headers, which a reader of tracefs' raw buffers
 * needs beside the formats (perf keeps both in its files). Into *@text as kp_tracefs_format().
 * Returns 0, -EINVAL for another name, or -errno.
 */
int kp_tracefs_header(const struct kp_tracefs *t, const char *name, char **text);

/*
 * kp_tracefs_read_text - a tracefs file at @path (at most its first MiB) into *@text,
 * NUL-terminated (owned by the caller: free(); NULL on error). Returns 0 or -errno.
 */
int kp_tracefs_read_text(const char *path, char **text);

/*
 * kp_tracefs_fields - the field names of a `format` text, e.g. "common_type, common_pid,
 * prev_comm" (owned by the caller: free()); "" when it has none.
 */
char *kp_tracefs_fields(const char *format);

#endif /* KP_TRACEFS_H */
