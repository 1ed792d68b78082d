/* SPDX-License-Identifier: MIT */
/*
 * test-tracepoint.c - decoding tracepoint payloads (report/tracepoint.h) with a real tracefs
 * format, sched_switch's: the fields as "name=value", and a comm of bytes that are not
 * printable, which libtraceevent prints as an array, changing nothing for the payloads after;
 * a char array field read as a string, to its NUL or its end, and cut to the buffer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/tracepoint.h"
#include "tests/tap.h"

static const char fmt[] =
	"name: sched_switch\n"
	"ID: 372\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"prev_comm=%s prev_pid=%d ==> next_comm=%s next_pid=%d\", REC->prev_comm, "
	"REC->prev_pid, REC->next_comm, REC->next_pid\n";

/* a sched_switch payload from @prev (@pp) to @next (@np) */
static void payload(unsigned char *p, const char *prev, int32_t pp, const char *next, int32_t np)
{
	uint16_t type = 372;
	int32_t prio = 120;
	int64_t state = 1;

	memset(p, 0, 64);
	memcpy(p, &type, 2);
	memcpy(p + 8, prev, strlen(prev));
	memcpy(p + 24, &pp, 4);
	memcpy(p + 28, &prio, 4);
	memcpy(p + 32, &state, 8);
	memcpy(p + 40, next, strlen(next));
	memcpy(p + 56, &np, 4);
	memcpy(p + 60, &prio, 4);
}

int main(void)
{
	struct kp_tp *t = kp_tp_new();
	unsigned char p[64];
	char buf[512];

	ok(!kp_tp_add_format(t, "sched", fmt, strlen(fmt)), "sched_switch's format is read");
	payload(p, "sh", 5, "waits", 42);
	ok(!kp_tp_format(t, p, sizeof(p), buf, sizeof(buf)) &&
	   strstr(buf, "prev_comm=sh ") && strstr(buf, "next_comm=waits ") &&
	   strstr(buf, "next_pid=42"), "fields as name=value: %s", buf);
	payload(p, "sh", 5, "\xff\x01odd", 43);
	ok(!kp_tp_format(t, p, sizeof(p), buf, sizeof(buf)) && strstr(buf, "next_pid=43"),
	   "a comm of bytes that are not printable decodes: %s", buf);
	payload(p, "sh", 5, "later", 44);
	ok(!kp_tp_format(t, p, sizeof(p), buf, sizeof(buf)) && strstr(buf, "next_comm=later "),
	   "the next payload's comm is a string again, not an array: %s", buf);
	ok(kp_tp_format(t, p, 10, buf, sizeof(buf)) != 0, "a payload shorter than its fields is refused");
	ok(!kp_tp_field_str(t, p, sizeof(p), "next_comm", buf, sizeof(buf)) && !strcmp(buf, "later"),
	   "a char array as a string, to its NUL: %s", buf);
	payload(p, "sixteen-bytes-xx", 5, "b", 45);
	ok(!kp_tp_field_str(t, p, sizeof(p), "prev_comm", buf, sizeof(buf)) &&
	   !strcmp(buf, "sixteen-bytes-xx"), "... to its end without one: %s", buf);
	ok(!kp_tp_field_str(t, p, sizeof(p), "prev_comm", buf, 4) && !strcmp(buf, "six"),
	   "... cut to the buffer: %s", buf);
	ok(kp_tp_field_str(t, p, sizeof(p), "prev_pid", buf, sizeof(buf)) != 0 && !buf[0] &&
	   kp_tp_field_str(t, p, sizeof(p), "nosuch", buf, sizeof(buf)) != 0 &&
	   kp_tp_field_str(t, p, 10, "prev_comm", buf, sizeof(buf)) != 0,
	   "an integer, a missing field and a short payload are no string");
	kp_tp_free(t);
	return tap_done();
}
