/* SPDX-License-Identifier: Apache-2.0 */
/* The watch of a user's rootless network namespace (rootless-watch.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/proc-stat.h"
#include "base/proctitle.h"
#include "base/util.h"
#include "host/rootless-watch.h"

/* How often the user's directory is looked at. */
#define WATCH_PERIOD_US 1000000

/* What the watch was started for. */
struct watch {
	const struct rootless_user *u;
	struct stat dir; /* the user's directory */
	struct stat ns;	 /* the namespace (nsfs) */
	long slirp;	 /* the slirp4netns last seen, 0 when none */
	unsigned long long slirp_start;
};

/* Is `st` the same file as `was`? */
static bool same_file(const struct stat *st, const struct stat *was)
{
	return st->st_dev == was->st_dev && st->st_ino == was->st_ino;
}

/* Remember the slirp4netns of slirp4netns.pid while the file is there. */
static void see_slirp(struct watch *w)
{
	const char *pidfile = w->u->slirp_pid;
	long pid;
	unsigned long long start;
	if (rootless_netns_pidfile_read(pidfile, &pid, &start) == 0) {
		w->slirp = pid;
		w->slirp_start = start;
	}
}

/* Signal every process whose network namespace is the user's, and the
 * slirp4netns last seen; the number signalled. */
static int signal_helpers(const struct watch *w, int sig)
{
	int n = 0;
	DIR *d = opendir("/proc");
	struct dirent *de;
	while (d && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 1 || pid == getpid())
			continue;
		char path[64];
		struct stat st;
		snprintf(path, sizeof(path), "/proc/%ld/ns/net", pid);
		if (stat(path, &st) == 0 && same_file(&st, &w->ns) && kill(pid, sig) == 0)
			n++;
	}
	if (d)
		closedir(d);
	if (w->slirp > 0 && rootless_netns_same_process(w->slirp, w->slirp_start) &&
	    kill(w->slirp, sig) == 0)
		n++;
	return n;
}

/* The user's directory is gone: its helpers stopped (SIGTERM, SIGKILL to
 * what is left after a second). */
static void stop_helpers(const struct watch *w)
{
	if (signal_helpers(w, SIGTERM) == 0)
		return;
	for (int i = 0; i < 10; i++) {
		usleep(100000);
		if (signal_helpers(w, 0) == 0)
			return;
	}
	signal_helpers(w, SIGKILL);
}

static void watch_main(void *data)
{
	struct watch *w = data;
	proctitle_set("cnihook-watch uid %lu", w->u->uid);
	const char *ns = w->u->netns;
	for (;;) {
		usleep(WATCH_PERIOD_US);
		struct stat st;
		if (stat(w->u->dir, &st) < 0 || !same_file(&st, &w->dir)) {
			stop_helpers(w);
			_exit(0);
		}
		/* The namespace torn down (its teardown stops the watch too). */
		if (stat(ns, &st) < 0 || !same_file(&st, &w->ns))
			_exit(0);
		see_slirp(w);
	}
}

int rootless_watch_start(const struct rootless_user *u, char **err)
{
	struct watch w = {.u = u};
	const char *ns = u->netns;
	const char *pidfile = u->watch_pid;
	if (stat(u->dir, &w.dir) < 0)
		return error_set(err, "%s: %m", u->dir);
	if (stat(ns, &w.ns) < 0)
		return error_set(err, "%s: %m", ns);
	see_slirp(&w);
	long pid;
	_cleanup_free_ char *warn = NULL;
	int r = rootless_netns_spawn(watch_main, &w, -1, u->run_dir, &pid, &warn);
	if (r < 0)
		return error_set(err, "%s", warn);
	if (rootless_netns_write_pidfile(pidfile, pid, err) < 0)
		return -1;
	if (r > 0)
		*err = TAKE_PTR(warn);
	return r;
}

/* The command line of pid, its NULs made spaces, or NULL. */
static char *cmdline(long pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
	char *buf = NULL;
	_cleanup_free_ char *err = NULL;
	size_t len = 0;
	if (read_file(path, 65536, &buf, &len, NULL, &err) < 0)
		return NULL;
	for (size_t i = 0; i < len; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	return buf;
}

/* What the user's helpers now are. */
struct current {
	const struct rootless_user *u;
	const char *netns_path; /* the user's netns */
	char *run_path;		/* the user's run/, with its slash: dnsname's files */
	struct stat ns;		/* the namespace; st_ino 0 when there is none */
	long slirp, watch;
};

/* Is pid one of the user's helpers (a forwarder, the watch, slirp4netns,
 * dnsname's dnsmasq) that serves no namespace of the user's any more? */
static bool stray(const struct current *c, long pid)
{
	char path[64];
	struct stat st;
	snprintf(path, sizeof(path), "/proc/%ld", pid);
	if (stat(path, &st) < 0 || st.st_uid != getuid())
		return false;
	_cleanup_free_ char *cmd = cmdline(pid);
	if (!cmd)
		return false;
	char tag[64];
	snprintf(tag, sizeof(tag), "cnihook-watch uid %lu", c->u->uid);
	if (strncmp(cmd, tag, strlen(tag)) == 0)
		return pid != c->watch;
	if (strstr(cmd, "slirp4netns") && strstr(cmd, c->netns_path))
		return pid != c->slirp;
	if (strncmp(cmd, "cnihook-fwd ", 12) != 0 &&
	    !(strstr(cmd, "dnsmasq") && strstr(cmd, c->run_path)))
		return false;
	snprintf(path, sizeof(path), "/proc/%ld/ns/net", pid);
	return stat(path, &st) == 0 && !same_file(&st, &c->ns);
}

int rootless_watch_stop_strays(const struct rootless_user *u)
{
	struct current c = {.u = u};
	c.netns_path = u->netns;
	c.run_path = xasprintf("%s/", u->run);
	if (stat(c.netns_path, &c.ns) < 0)
		c.ns = (struct stat){0};
	rootless_netns_pidfile_alive(u->slirp_pid, &c.slirp);
	rootless_netns_pidfile_alive(u->watch_pid, &c.watch);
	long *pids = NULL;
	unsigned long long *starts = NULL;
	size_t n = 0;
	DIR *d = opendir("/proc");
	struct dirent *de;
	while (d && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 1 || pid == getpid() || !stray(&c, pid))
			continue;
		unsigned long long start = 0;
		if (proc_stat_start_time(pid, &start) < 0)
			continue;
		pids = xreallocarray(pids, n + 1, sizeof(*pids));
		starts = xreallocarray(starts, n + 1, sizeof(*starts));
		starts[n] = start;
		pids[n++] = pid;
		kill(pid, SIGTERM);
	}
	if (d)
		closedir(d);
	/* Until each has exited (a zombie counts as gone), SIGKILL after a
	 * second. */
	for (int round = 0; round < 20 && n; round++) {
		bool any = false;
		for (size_t i = 0; i < n; i++)
			any |= rootless_netns_same_process(pids[i], starts[i]);
		if (!any)
			break;
		if (round == 10)
			for (size_t i = 0; i < n; i++)
				if (rootless_netns_same_process(pids[i], starts[i]))
					kill(pids[i], SIGKILL);
		usleep(100000);
	}
	free(pids);
	free(starts);
	free(c.run_path);
	return (int)n;
}
