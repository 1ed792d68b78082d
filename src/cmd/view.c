/* SPDX-License-Identifier: MIT */
/*
 * view.c - `kprof view FILE`: the recording as the Firefox Profiler's Gecko profile
 * (`kprof report --format firefox`, every report option applying), served on 127.0.0.1 at a
 * random port under a random token path, with the CORS header the profiler's page needs to
 * fetch it, and the profiler's from-url link printed (and opened in a browser when there is a
 * display), as samply does. It ends on Ctrl-C, or with --once after the first download.
 *
 * The server is one loop on one thread: a profile is downloaded once or twice, by one
 * browser, so requests are answered one after the other, each with a 5-second limit on
 * reading it, and the connection closed.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "src/cmd/cmd.h"
#include "src/cli/options.h"
#include "src/record/diag.h"
#include "formats/util.h"

extern char **environ;

static const char view_usage[] =
	"usage: kprof view [FILE] [--once] [--no-browser] [report options]\n"
	"\n"
	"Serves the recording FILE (default kprof.data) to the Firefox Profiler: as\n"
	"`kprof report --format firefox` writes it, on 127.0.0.1 at a random port and path,\n"
	"and prints the link that opens it at profiler.firefox.com.\n"
	"\n"
	"      --once             end after the profile was downloaded once (default: Ctrl-C)\n"
	"      --no-browser       only print the link (default: open it when there is a display)\n"
	"  -h, --help             this text\n"
	"\n"
	"Every option of `kprof report` that chooses samples or names frames applies\n"
	"(--event, --pid, --tid, --comm, --cpu, --time, --no-idle, --symfs, ...).\n";

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

struct server {
	int fd;
	char path[64];		/* "/TOKEN/profile.json.gz" */
	char *body;
	size_t len;
};

static const char cors[] = "Access-Control-Allow-Origin: *\r\n"
			   "Access-Control-Allow-Methods: GET, HEAD, OPTIONS\r\n"
			   "Access-Control-Allow-Headers: *\r\n";

/* One request: returns 1 when the whole profile was sent, 0 otherwise. */
static int serve_one(struct server *s, int c)
{
	struct timeval tv = { 5, 0 };
	char req[8192], head[512], method[16], path[256];
	size_t n = 0;
	bool get;

	setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	while (n < sizeof(req) - 1) {
		ssize_t r = recv(c, req + n, sizeof(req) - 1 - n, 0);
		if (r < 0 && errno == EINTR && !stop)
			continue;
		if (r <= 0)
			return 0;
		n += (size_t)r;
		req[n] = 0;
		if (strstr(req, "\r\n\r\n"))
			break;
	}
	if (sscanf(req, "%15s %255s", method, path) != 2)
		return 0;
	if (!strcmp(method, "OPTIONS")) {
		snprintf(head, sizeof(head), "HTTP/1.1 204 No Content\r\n%sContent-Length: 0\r\n"
			 "Connection: close\r\n\r\n", cors);
		kp_send_all(c, head, strlen(head));
		return 0;
	}
	get = !strcmp(method, "GET");
	if ((!get && strcmp(method, "HEAD")) || strcmp(path, s->path)) {
		static const char nf[] = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n"
					 "Connection: close\r\n\r\n";
		kp_send_all(c, nf, sizeof(nf) - 1);
		return 0;
	}
	snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\n%sContent-Type: application/gzip\r\n"
		 "Content-Length: %zu\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
		 cors, s->len);
	if (kp_send_all(c, head, strlen(head)) || !get)
		return 0;
	return kp_send_all(c, s->body, s->len) == 0;
}

static int listen_loopback(struct server *s, unsigned *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);

	s->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->fd < 0 || bind(s->fd, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(s->fd, 8) || getsockname(s->fd, (struct sockaddr *)&a, &al))
		return kp_error("cannot listen on 127.0.0.1: %s", strerror(errno));
	*port = ntohs(a.sin_port);
	return 0;
}

static int make_token(char *hex, size_t bytes)
{
	unsigned char r[32];

	if (bytes > sizeof(r) || getrandom(r, bytes, 0) != (ssize_t)bytes)
		return kp_error("cannot read random bytes: %s", strerror(errno));
	for (size_t i = 0; i < bytes; i++)
		sprintf(hex + 2 * i, "%02x", r[i]);
	return 0;
}

/* The profiler's from-url link to @url: the URL percent-encoded as one path segment. */
static void from_url(char *out, size_t cap, const char *url)
{
	size_t n = (size_t)snprintf(out, cap, "https://profiler.firefox.com/from-url/");

	for (const char *c = url; *c && n + 4 < cap; c++)
		if ((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '.' || *c == '-')
			out[n++] = *c;
		else
			n += (size_t)sprintf(out + n, "%%%02X", (unsigned char)*c);
	snprintf(out + n, cap - n, "/");
}

static void open_browser(const char *link)
{
	posix_spawn_file_actions_t fa;
	char *argv[] = { "xdg-open", (char *)link, NULL };
	pid_t pid;

	if (!getenv("DISPLAY") && !getenv("WAYLAND_DISPLAY"))
		return;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, "xdg-open", &fa, NULL, argv, environ))
		kp_notice("could not start xdg-open: open the link yourself");
	posix_spawn_file_actions_destroy(&fa);
}

static int serve(struct server *s, bool once, bool browser)
{
	struct sigaction sa = { .sa_handler = on_stop };
	char token[33], url[128], link[512];
	unsigned port = 0;

	if (make_token(token, 16) || listen_loopback(s, &port))
		return 1;
	snprintf(s->path, sizeof(s->path), "/%s/profile.json.gz", token);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u%s", port, s->path);
	from_url(link, sizeof(link), url);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGCHLD, SIG_IGN); /* xdg-open is not waited for */
	printf("%s\n", link);
	fflush(stdout);
	kp_notice("serving %zu bytes at %s%s", s->len, url,
		  once ? " until it is downloaded" : "; Ctrl-C ends");
	if (browser)
		open_browser(link);
	while (!stop) {
		struct pollfd pf = { s->fd, POLLIN, 0 };
		int c;
		if (poll(&pf, 1, 1000) <= 0)
			continue;
		c = accept4(s->fd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			continue;
		int done = serve_one(s, c);
		close(c);
		if (done && once)
			break;
	}
	close(s->fd);
	return 0;
}

/* `kprof report ARGV...`, this binary's, as a process of its own: its exit code, or 1 after
 * saying why it did not run or end. */
static int run_report(char **argv)
{
	pid_t pid;
	int err, status;

	fflush(stdout);
	fflush(stderr);
	err = posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv, environ);
	if (err)
		return kp_error("cannot run kprof report: %s", strerror(err));
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return kp_error("cannot wait for kprof report: %s", strerror(errno));
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return kp_error("kprof report was killed by signal %d", WTERMSIG(status));
}

/* The recording as `kprof report --format firefox -o TMP ARGS...` writes it, read back. */
static int build(int argc, char **argv, const char *input, struct server *s)
{
	const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	size_t size = strlen(tmp) + sizeof("/kprof-view.XXXXXX/profile.json.gz");
	char *dir = kp_xmalloc(size), *path = kp_xmalloc(size);
	char **rargv;
	int n = 0, rc;
	struct stat st;
	FILE *f = NULL;

	snprintf(dir, size, "%s/kprof-view.XXXXXX", tmp);
	if (!mkdtemp(dir)) {
		rc = kp_error("cannot create a directory in %s: %s", tmp, strerror(errno));
		free(dir);
		free(path);
		return rc;
	}
	snprintf(path, size, "%s/profile.json.gz", dir);
	rargv = kp_xcalloc((size_t)argc + 9, sizeof(*rargv));
	rargv[n++] = "kprof";
	rargv[n++] = "report";
	rargv[n++] = "-i";
	rargv[n++] = (char *)input;
	for (int i = 0; i < argc; i++)
		rargv[n++] = argv[i];
	rargv[n++] = "--format";
	rargv[n++] = "firefox";
	rargv[n++] = "-o";
	rargv[n++] = path;
	rc = run_report(rargv);
	free(rargv);
	if (!rc && (!(f = fopen(path, "rb")) || fstat(fileno(f), &st) ||
		    !(s->body = kp_xmalloc((size_t)st.st_size + 1)) ||
		    fread(s->body, 1, (size_t)st.st_size, f) != (size_t)st.st_size))
		rc = kp_error("cannot read back '%s': %s", path, strerror(errno));
	else if (!rc)
		s->len = (size_t)st.st_size;
	if (f)
		fclose(f);
	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
	return rc;
}

int cmd_view(int argc, char **argv)
{
	struct server s = { .fd = -1 };
	const char *input = "kprof.data";
	bool once = false, browser = true;
	char **rest = kp_xcalloc((size_t)argc + 1, sizeof(*rest));
	int nr = 0, first = 1, rc;

	if (argc > 1 && argv[1][0] != '-') {
		input = argv[1];
		first = 2;
	}
	for (int i = first; i < argc; i++) {
		if (!strcmp(argv[i], "--once"))
			once = true;
		else if (!strcmp(argv[i], "--no-browser"))
			browser = false;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			free(rest);
			return kp_cmd_help(view_usage);
		} else if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--format") ||
			   !strncmp(argv[i], "--format=", 9) || !strncmp(argv[i], "--output", 8)) {
			free(rest);
			return kp_usage_error("view", "'%s' is not for view: it serves the Firefox "
					      "Profiler's format (kprof report writes files)", argv[i]);
		} else
			rest[nr++] = argv[i];
	}
	rc = build(nr, rest, input, &s);
	free(rest);
	if (!rc)
		rc = serve(&s, once, browser);
	free(s.body);
	return rc;
}
