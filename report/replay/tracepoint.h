/* SPDX-License-Identifier: MIT */
/*
 * tracepoint.h - decodes the RAW payload of tracepoint samples with libtraceevent, from the
 * format files the recording carries (KP_REC_TP_FORMAT): "prev_comm=bash prev_pid=1 ...".
 */
#ifndef KP_TRACEPOINT_H
#define KP_TRACEPOINT_H

#include <stddef.h>
#include <stdint.h>

struct kp_tp;

/* kp_tp_new - an empty decoder; never fails (aborts on OOM). */
struct kp_tp *kp_tp_new(void);
void kp_tp_free(struct kp_tp *t);

/*
 * kp_tp_add_format - learn the event described by @fmt (@len bytes of a tracefs format file)
 * of system @sys. Returns 0, or -KP_ERECORD when libtraceevent cannot parse it.
 */
int kp_tp_add_format(struct kp_tp *t, const char *sys, const char *fmt, size_t len);

struct kp_rec_header;

/* kp_tp_add_record - kp_tp_add_format() from a recording's KP_REC_TP_FORMAT record @rec (as
 * the reader checked it); any other record is ignored. A format it cannot parse leaves that
 * event's payloads undecoded. */
void kp_tp_add_record(struct kp_tp *t, const struct kp_rec_header *rec);

/*
 * kp_tp_format - "field=value ..." for a RAW payload of @size bytes, into @buf of
 * @cap bytes (always NUL-terminated). Returns 0, or -KP_ESAMPLE when the payload names an
 * event of no known format or is shorter than its fields.
 */
int kp_tp_format(struct kp_tp *t, const void *raw, uint32_t size, char *buf, size_t cap);

/*
 * kp_tp_print - the same payload through the event's own print format, as perf script and
 * trace-cmd show it: "prev_comm=bash prev_pid=1 prev_prio=120 prev_state=S ==> ...".
 */
int kp_tp_print(struct kp_tp *t, const void *raw, uint32_t size, char *buf, size_t cap);

/*
 * kp_tp_field - element @idx of the integer field @name of a RAW payload of @size bytes (0 for
 * a field that is no array) into *@val, sign-extended when the format says it is signed.
 * Returns 0, or -KP_ESAMPLE when the payload's event is unknown, lacks the field, or is too
 * short, or @idx is past the array.
 */
int kp_tp_field(struct kp_tp *t, const void *raw, uint32_t size, const char *name, unsigned idx,
		uint64_t *val);

/*
 * kp_tp_field_str - the string field @name of a RAW payload of @size bytes (a char array, up to
 * its first NUL, or a __data_loc string) into @buf of @cap bytes, always NUL-terminated.
 * Returns 0, or -KP_ESAMPLE when the payload's event is unknown or has no such field.
 */
int kp_tp_field_str(struct kp_tp *t, const void *raw, uint32_t size, const char *name, char *buf,
		    size_t cap);

/*
 * kp_tp_field_names - the names of the fields of a RAW payload's event (the common ones left
 * out), ", "-separated, into @buf of @cap bytes; "" when the event is unknown.
 */
void kp_tp_field_names(struct kp_tp *t, const void *raw, uint32_t size, char *buf, size_t cap);

#endif /* KP_TRACEPOINT_H */
