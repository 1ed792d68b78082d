/* SPDX-License-Identifier: MIT */
/* /proc/PID/cgroup as the recorder reads it: cgroup v2, v1 hierarchies, a mix, the root. */
#include <string.h>

#include "src/record/cgroups.h"
#include "tests/tap.h"

static const char *of(const char *text)
{
	static char out[256];

	return kp_cgroups_of(text, out, sizeof(out)) ? out : NULL;
}

static const char *show(const char *s)
{
	return s ? s : "none";
}

int main(void)
{
	const char *s;

	s = of("0::/system.slice/docker-abc.scope\n");
	ok(s && !strcmp(s, "/system.slice/docker-abc.scope"), "cgroup v2: its path (%s)", show(s));
	s = of("0::/\n");
	ok(s && !strcmp(s, "/"), "cgroup v2 at the root: / (%s)", show(s));
	s = of("9:name=systemd:/\n4:memory:/process_api/ea88\n0::/\n");
	ok(s && !strcmp(s, "/process_api/ea88"), "v2 at the root: the v1 path that is not (%s)",
	   show(s));
	s = of("4:memory:/a\n9:name=systemd:/docker/f00\n0::/\n");
	ok(s && !strcmp(s, "/docker/f00"), "of several v1 paths, name=systemd's (%s)", show(s));
	s = of("12:cpu,cpuacct:/kubepods/pod1\n0::/kubepods/pod1/c2\n");
	ok(s && !strcmp(s, "/kubepods/pod1/c2"), "v2 before v1 (%s)", show(s));
	ok(!of("garbage\n") && !of(""), "no ID:CONTROLLERS:PATH line: none");
	s = of("0::/no-newline-at-end");
	ok(s && !strcmp(s, "/no-newline-at-end"), "a last line without its newline (%s)", show(s));
	return tap_done();
}
