/* SPDX-License-Identifier: Apache-2.0 */
/* The rootless network namespace of a user (rootless-netns.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/proc-stat.h"
#include "base/util.h"
#include "host/rootless-netns.h"
#include "host/systemd-scope.h"

#ifndef NSFS_MAGIC
#define NSFS_MAGIC 0x6e736673
#endif

/* Where slirp4netns is looked for: the hook has no PATH. */
static const char *const slirp_paths[] = {"/usr/bin/slirp4netns", "/usr/local/bin/slirp4netns",
					  "/bin/slirp4netns"};
/* How long slirp4netns may take to configure tap0. */
#define SLIRP_READY_MS 5000
/* How long a helper has to exit on SIGTERM before SIGKILL. */
#define STOP_MS 1000

int rootless_netns_host_uid(const char *map, unsigned long *uid, char **err)
{
	const char *p = map;
	while (p && *p) {
		unsigned long in, out, count;
		if (sscanf(p, "%lu %lu %lu", &in, &out, &count) == 3 && in == 0 && count > 0) {
			*uid = out;
			return 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return error_set(err, "uid_map: uid 0 of the user namespace maps to no host uid");
}

void rootless_netns_user_free(struct rootless_user *u)
{
	rootless_netns_unlock(u);
	char **v[] = {&u->run_dir, &u->dir,   &u->netns, &u->slirp_pid, &u->watch_pid,
		      &u->state,   &u->cache, &u->run,	 &u->cni,	&u->forwarders};
	for (size_t i = 0; i < ARRAY_SIZE(v); i++)
		free(TAKE_PTR(*v[i]));
}

int rootless_netns_check_run_dir(const char *run_dir, unsigned long uid, unsigned long owner,
				 char **err)
{
	struct stat st;
	if (stat(run_dir, &st) < 0)
		return error_set(
		    err,
		    "the user's runtime directory %s: %m (it is made by "
		    "systemd-logind at login, or by hand: owned by uid %lu, mode 0700)",
		    run_dir, uid);
	/* Owned by the user (uid 0 as the user's namespace sees it). */
	if (!S_ISDIR(st.st_mode) || st.st_uid != owner)
		return error_set(
		    err, "the user's runtime directory %s: not a directory owned by uid %lu",
		    run_dir, uid);
	return 0;
}

int rootless_netns_own_uid(unsigned long *uid, char **err)
{
	_cleanup_free_ char *map = NULL;
	size_t len;
	_cleanup_free_ char *e = NULL;
	if (read_file("/proc/self/uid_map", 65536, &map, &len, NULL, &e) < 0)
		return error_set(err, "%s", e);
	return rootless_netns_host_uid(map, uid, err);
}

int rootless_netns_lock(struct rootless_user *u, char **err)
{
	int fd = TEMP_FAILURE_RETRY(open(u->run_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	if (fd < 0)
		return error_set(err, "%s: %m", u->run_dir);
	if (TEMP_FAILURE_RETRY(flock(fd, LOCK_EX)) < 0) {
		error_set(err, "%s: lock: %m", u->run_dir);
		close(fd);
		return -1;
	}
	u->lock_fd = fd;
	if (mkdir(u->dir, 0700) < 0 && errno != EEXIST) {
		error_set(err, "%s: %m", u->dir);
		rootless_netns_unlock(u);
		return -1;
	}
	return 0;
}

void rootless_netns_unlock(struct rootless_user *u)
{
	if (u->lock_fd >= 0)
		close(u->lock_fd);
	u->lock_fd = -1;
}

/* Is path a namespace file (nsfs) bound there? */
static bool is_nsfs(const char *path)
{
	struct statfs fs;
	return statfs(path, &fs) == 0 && fs.f_type == NSFS_MAGIC;
}

/* In the child that makes the namespace: a new network namespace, its
 * loopback up, bound on path. Returns an errno value. */
static int make_netns(const char *path)
{
	if (unshare(CLONE_NEWNET) < 0)
		return errno;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return errno;
	struct ifreq ifr = {0};
	strcpy(ifr.ifr_name, "lo");
	int r = ioctl(s, SIOCGIFFLAGS, &ifr);
	if (r == 0) {
		ifr.ifr_flags |= IFF_UP;
		r = ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	int e = errno;
	close(s);
	if (r < 0)
		return e;
	if (mount("/proc/self/ns/net", path, "none", MS_BIND, NULL) < 0)
		return errno;
	return 0;
}

int rootless_netns_ensure(const struct rootless_user *u, char **err)
{
	const char *path = u->netns;
	if (is_nsfs(path))
		return 0;
	int fd = TEMP_FAILURE_RETRY(open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY, 0600));
	if (fd < 0)
		return error_set(err, "rootless network namespace %s: %m", path);
	close(fd);
	pid_t pid = fork();
	if (pid < 0)
		return error_set(err, "rootless network namespace %s: fork: %m", path);
	if (pid == 0)
		_exit(make_netns(path));
	int status;
	if (TEMP_FAILURE_RETRY(waitpid(pid, &status, 0)) < 0)
		return error_set(err, "rootless network namespace %s: wait: %m", path);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		int e = WIFEXITED(status) ? WEXITSTATUS(status) : EINTR;
		unlink(path);
		return error_set(err, "rootless network namespace %s: %s", path, strerror(e));
	}
	return 1;
}

static int pidfile_write(const char *pidfile, long pid, char **err)
{
	unsigned long long start = 0;
	if (proc_stat_start_time(pid, &start) < 0)
		return error_set(err, "%s: process %ld is gone", pidfile, pid);
	_cleanup_free_ char *text = xasprintf("%ld %llu\n", pid, start);
	_cleanup_free_ char *tmp = xasprintf("%s.tmp", pidfile);
	int fd = TEMP_FAILURE_RETRY(
	    open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW, 0600));
	if (fd < 0)
		return error_set(err, "%s: %m", tmp);
	ssize_t n = write(fd, text, strlen(text));
	int e = n < 0 ? errno : EIO;
	if (close(fd) < 0 && n == (ssize_t)strlen(text)) {
		n = -1;
		e = errno;
	}
	if (n == (ssize_t)strlen(text) && rename(tmp, pidfile) == 0)
		return 0;
	if (n == (ssize_t)strlen(text))
		e = errno;
	unlink(tmp);
	return error_set(err, "%s: %s", pidfile, strerror(e));
}

int rootless_netns_write_pidfile(const char *pidfile, long pid, char **err)
{
	if (pidfile_write(pidfile, pid, err) == 0)
		return 0;
	if (pid > 1)
		kill((pid_t)pid, SIGKILL);
	return -1;
}

bool rootless_netns_same_process(long pid, unsigned long long start)
{
	unsigned long long now;
	if (proc_stat_start_time(pid, &now) < 0 || now != start)
		return false;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	_cleanup_free_ char *buf = NULL;
	_cleanup_free_ char *err = NULL;
	size_t len;
	if (read_file(path, 4096, &buf, &len, NULL, &err) < 0)
		return false;
	const char *p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

int rootless_netns_pidfile_read(const char *pidfile, long *pid, unsigned long long *start)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_free_ char *e = NULL;
	size_t len;
	int errnum = 0;
	if (read_file(pidfile, 256, &buf, &len, &errnum, &e) < 0)
		return errnum == ENOENT ? -ENOENT : -EIO;
	if (sscanf(buf, "%ld %llu", pid, start) != 2 || *pid <= 1)
		return -EINVAL;
	return 0;
}

bool rootless_netns_pidfile_alive(const char *pidfile, long *pid)
{
	unsigned long long start;
	long p = 0;
	bool alive = rootless_netns_pidfile_read(pidfile, &p, &start) == 0 &&
		     rootless_netns_same_process(p, start);
	if (pid)
		*pid = p;
	return alive;
}

/* Is the process (pid, start) gone within ms? Waits on its pidfd, which
 * poll(2) finds readable once it has exited (a zombie counts as gone:
 * its parent, not the hook, reaps it); where there is no pidfd (before
 * Linux 5.3), looks again after a short sleep. */
static bool wait_gone(long pid, unsigned long long start, int ms)
{
	long long deadline = clock_monotonic_ms() + ms;
	/* Opened before the first look: should the pid be reused after it,
	 * the look tells the new process by its start time. */
	int fd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0U);
	useconds_t nap = 1000;
	bool gone;
	while (!(gone = !rootless_netns_same_process(pid, start))) {
		long long left = deadline - clock_monotonic_ms();
		if (left <= 0)
			break;
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int r = fd >= 0 ? poll(&p, 1, (int)left) : -1;
		if (r > 0 || (r < 0 && fd >= 0 && errno != EINTR)) {
			/* Exited (the next look says so), or no pidfd after all. */
			close(fd);
			fd = -1;
		} else if (fd < 0) {
			usleep(nap);
			nap = nap < 8000 ? nap * 2 : nap;
		}
	}
	if (fd >= 0)
		close(fd);
	return gone;
}

/* End the process of `pidfile` if it is still that process and remove the
 * file: SIGTERM and a wait for it to exit (SIGKILL after STOP_MS), or
 * with kill_now, SIGKILL and no wait (nothing can keep it). */
static int end_pidfile(const char *pidfile, bool kill_now, char **err)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_free_ char *e = NULL;
	size_t len;
	int errnum = 0;
	if (read_file(pidfile, 256, &buf, &len, &errnum, &e) < 0) {
		if (errnum == ENOENT)
			return 0;
		return error_set(err, "%s", e);
	}
	long pid;
	unsigned long long start;
	if (sscanf(buf, "%ld %llu", &pid, &start) != 2 || pid <= 1) {
		unlink(pidfile);
		return error_set(err, "%s: not \"PID STARTTIME\": removed", pidfile);
	}
	if (rootless_netns_same_process(pid, start)) {
		kill(pid, kill_now ? SIGKILL : SIGTERM);
		if (!kill_now && !wait_gone(pid, start, STOP_MS))
			kill(pid, SIGKILL);
	}
	if (unlink(pidfile) < 0 && errno != ENOENT)
		return error_set(err, "%s: %m", pidfile);
	return 0;
}

int rootless_netns_stop_pidfile(const char *pidfile, char **err)
{
	return end_pidfile(pidfile, false, err);
}

static const char *slirp_binary(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(slirp_paths); i++)
		if (access(slirp_paths[i], X_OK) == 0)
			return slirp_paths[i];
	return NULL;
}

/* Does slirp4netns's --help offer these options (podman asks it the same
 * way: a build without libseccomp has no --enable-seccomp)? */
static void slirp_options(const char *bin, bool *sandbox, bool *seccomp)
{
	*sandbox = *seccomp = false;
	int out[2];
	if (pipe2(out, O_CLOEXEC) < 0)
		return;
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (null < 0 || dup2(null, 0) < 0 || dup2(out[1], 1) < 0 || dup2(null, 2) < 0)
			_exit(127);
		char *argv[] = {(char *)bin, "--help", NULL};
		char *envp[] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL};
		execve(bin, argv, envp);
		_exit(127);
	}
	close(out[1]);
	char buf[8192];
	size_t len = 0;
	ssize_t n;
	while (pid > 0 && len < sizeof(buf) - 1 &&
	       (n = TEMP_FAILURE_RETRY(read(out[0], buf + len, sizeof(buf) - 1 - len))) > 0)
		len += (size_t)n;
	buf[len] = 0;
	close(out[0]);
	if (pid > 0)
		TEMP_FAILURE_RETRY(waitpid(pid, NULL, 0));
	/* The sandbox drops capabilities from the bounding set, which takes
	 * CAP_SETPCAP: slirp4netns, run as uid 0, has the bounding set. */
	*sandbox = strstr(buf, "--enable-sandbox") != NULL &&
		   prctl(PR_CAPBSET_READ, (unsigned long)CAP_SETPCAP, 0, 0, 0) == 1;
	*seccomp = strstr(buf, "--enable-seccomp") != NULL;
}

struct slirp_args {
	const char *bin;
	const char *ns;
	bool sandbox, seccomp; /* --enable-sandbox, --enable-seccomp */
};

#define SPAWN_SCOPE_DESCRIPTION "cnihook: a helper of the user's rootless containers"

/* In the spawned process, first: a scope of its own under the user's
 * systemd manager when one runs (its private socket is in run_dir, the
 * user's runtime directory), so that the unit of the container that
 * started it can stop without it; what failed is written on fd, which is
 * closed (nothing written: in its scope, no manager, or run_dir NULL). */
static void spawn_scope(const char *run_dir, int fd)
{
	_cleanup_free_ char *map = NULL, *e = NULL;
	size_t len;
	unsigned long uid = 0;
	if (run_dir && read_file("/proc/self/uid_map", 65536, &map, &len, NULL, &e) == 0 &&
	    rootless_netns_host_uid(map, &uid, &e) == 0 && uid != 0) {
		_cleanup_free_ char *sock = systemd_scope_socket(run_dir);
		_cleanup_free_ char *name = xasprintf("cnihook-%lu-%ld.scope", uid, (long)getpid());
		if (access(sock, F_OK) == 0 &&
		    systemd_scope_enter(sock, name, SPAWN_SCOPE_DESCRIPTION, &e) < 0) {
			ssize_t n = write(fd, e, strlen(e));
			(void)n; /* the helper runs on all the same */
		}
	}
	close(fd);
}

/* After the spawned process's pid: what spawn_scope() wrote, as a warning
 * (1 and *err), or 0. */
static int spawn_warning(int fd, char **err)
{
	_cleanup_free_ char *w = NULL, *e = NULL;
	size_t len = 0;
	if (read_all_fd(fd, 4096, &w, &len, &e) < 0 || len == 0)
		return 0;
	_cleanup_free_ char *t = error_one_line(w);
	error_set(err,
		  "not in a systemd scope of its own (stopping the unit of the container "
		  "that started it stops it too): %s",
		  t);
	return 1;
}

int rootless_netns_spawn(void (*fn)(void *), void *data, int keep, const char *run_dir, long *pid,
			 char **err)
{
	int pids[2];
	if (pipe2(pids, O_CLOEXEC) < 0)
		return error_set(err, "pipe: %m");
	fflush(NULL);
	pid_t child = fork();
	if (child == 0) {
		setsid();
		pid_t f = fork();
		if (f != 0) {
			/* The grandchild's pid, or why there is none (-errno). */
			long p = f > 0 ? f : -(long)errno;
			_exit(write(pids[1], &p, sizeof(p)) == (ssize_t)sizeof(p) && f > 0 ? 0 : 1);
		}
		spawn_scope(run_dir, pids[1]);
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
			_exit(127);
		if (keep >= 0 && (keep == 3 ? fcntl(3, F_SETFD, 0) : dup2(keep, 3)) < 0)
			_exit(127);
		/* Nothing else of the hook's: its lock above all. */
		if (keep != ROOTLESS_NETNS_SPAWN_KEEP_ALL)
			close_range(keep >= 0 ? 4 : 3, ~0U, 0);
		if (chdir("/") < 0)
			_exit(127);
		fn(data);
		_exit(0);
	}
	close(pids[1]);
	int ret = 0;
	long l = -1;
	if (child < 0) {
		ret = error_set(err, "fork: %m");
	} else {
		TEMP_FAILURE_RETRY(waitpid(child, NULL, 0));
		if (read(pids[0], &l, sizeof(l)) != (ssize_t)sizeof(l) || l == 0)
			ret = error_set(err, "could not be started");
		else if (l < 0)
			ret = error_set(err, "fork: %s", strerror((int)-l));
		else
			ret = spawn_warning(pids[0], err);
	}
	close(pids[0]);
	if (ret >= 0)
		*pid = l;
	return ret;
}

/* slirp4netns, in the spawned process (its ready descriptor is fd 3). */
static void slirp_exec(void *data)
{
	const struct slirp_args *a = data;
	char *argv[12] = {(char *)a->bin,      "--configure",
			  "--mtu=65520",       "--disable-host-loopback",
			  "--netns-type=path", "--ready-fd=3"};
	size_t n = 6;
	if (a->sandbox)
		argv[n++] = "--enable-sandbox";
	if (a->seccomp)
		argv[n++] = "--enable-seccomp";
	argv[n++] = (char *)a->ns;
	argv[n++] = "tap0";
	argv[n] = NULL;
	char *envp[] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL};
	execve(a->bin, argv, envp);
	_exit(127);
}

/* Wait up to SLIRP_READY_MS for "1" on fd: 1 when it came, 0 when
 * slirp4netns exited without it, -1 when the time ran out. */
static int slirp_ready(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	char c = 0;
	int n = poll(&p, 1, SLIRP_READY_MS);
	if (n != 1)
		return -1;
	return read(fd, &c, 1) == 1 && c == '1' ? 1 : 0;
}

/* One start of slirp4netns: as rootless_netns_start_slirp(), returning
 * what slirp_ready() said (-2: it could not be started); *warn set when it
 * runs outside a scope of its own. */
static int slirp_start(const struct rootless_user *u, const char *bin, bool sandbox, bool seccomp,
		       char **err, char **warn)
{
	int ready[2];
	if (pipe2(ready, O_CLOEXEC) < 0)
		return error_set(err, "slirp4netns: pipe: %m") - 1;
	struct slirp_args a = {.bin = bin, .ns = u->netns, .sandbox = sandbox, .seccomp = seccomp};
	const char *pidfile = u->slirp_pid;
	long pid = -1;
	_cleanup_free_ char *e = NULL;
	int ret = 1;
	if (rootless_netns_spawn(slirp_exec, &a, ready[1], u->run_dir, &pid, &e) < 0)
		ret = error_set(err, "slirp4netns: %s", e) - 1;
	close(ready[1]);
	if (ret == 1 && rootless_netns_write_pidfile(pidfile, pid, err) < 0)
		ret = -2;
	if (ret == 1 && (ret = slirp_ready(ready[0])) < 1) {
		error_set(err,
			  "%s exited or did not configure tap0 within %d ms (can the user open "
			  "/dev/net/tun?)",
			  bin, SLIRP_READY_MS);
		free(TAKE_PTR(e));
		rootless_netns_stop_pidfile(pidfile, &e);
	}
	close(ready[0]);
	if (ret == 1 && e)
		error_set(warn, "slirp4netns: %s", e);
	return ret;
}

int rootless_netns_start_slirp(const struct rootless_user *u, char **err)
{
	const char *bin = slirp_binary();
	if (!bin)
		return error_set(err, "slirp4netns: not found in /usr/bin, /usr/local/bin or /bin");
	bool sandbox, seccomp;
	slirp_options(bin, &sandbox, &seccomp);
	/* Where slirp4netns exits at once in its sandbox all the same, it
	 * runs again without (its seccomp filter needs no capability). */
	char *warn = NULL;
	int r = slirp_start(u, bin, sandbox, seccomp, err, &warn);
	if (r == 0 && sandbox) {
		free(TAKE_PTR(*err));
		r = slirp_start(u, bin, false, seccomp, err, &warn);
	}
	if (r != 1 || !warn) {
		free(warn);
		return r == 1 ? 0 : -1;
	}
	*err = warn;
	return 1;
}

/* Make the mount on path private, so that what is mounted under it stays in
 * this mount namespace; path that is no mount point is left (EINVAL). */
static void make_private(const char *path)
{
	mount("none", path, NULL, MS_PRIVATE, NULL);
}

int rootless_netns_join(const struct rootless_user *u, char **err)
{
	const char *ns = u->netns;
	int fd = TEMP_FAILURE_RETRY(open(ns, O_RDONLY | O_CLOEXEC));
	if (fd < 0)
		return error_set(err, "rootless network namespace %s: %m", ns);
	int r = setns(fd, CLONE_NEWNET);
	int e = errno;
	close(fd);
	if (r < 0)
		return error_set(err, "rootless network namespace %s: setns: %s", ns, strerror(e));
	return 0;
}

/* A user's PATH has no sbin directories, where portmap and firewall find
 * iptables: they are added after the user's own (or stand alone when the
 * engine gave no PATH). */
static void with_sbin_path(void)
{
	static const char sbin[] = "/usr/local/sbin:/usr/sbin:/sbin";
	const char *path = getenv("PATH");
	_cleanup_free_ char *p =
	    path && *path ? xasprintf("%s:%s", path, sbin) : xasprintf("%s:/usr/bin:/bin", sbin);
	setenv("PATH", p, 1);
}

int rootless_netns_enter(const struct rootless_user *u, char **err)
{
	const char *cni = u->cni;
	if (mkdir(cni, 0700) < 0 && errno != EEXIST)
		return error_set(err, "%s: %m", cni);
	if (unshare(CLONE_NEWNS) < 0)
		return error_set(err, "rootless network namespace: unshare(CLONE_NEWNS): %m");
	make_private("/");
	make_private("/var");
	make_private("/var/lib");
	struct stat st;
	if (stat("/var/lib/cni", &st) < 0 || !S_ISDIR(st.st_mode)) {
		/* The user cannot make /var/lib/cni: a tmpfs over /var/lib,
		 * in this mount namespace only. */
		if (mount("tmpfs", "/var/lib", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0)
			return error_set(err, "rootless network namespace: tmpfs on /var/lib: %m");
		if (mkdir("/var/lib/cni", 0755) < 0)
			return error_set(err, "rootless network namespace: /var/lib/cni: %m");
	} else {
		make_private("/var/lib/cni");
	}
	if (mount(cni, "/var/lib/cni", "none", MS_BIND, NULL) < 0)
		return error_set(err, "rootless network namespace: bind %s on /var/lib/cni: %m",
				 cni);
	with_sbin_path();
	return rootless_netns_join(u, err);
}

/* rm -r of name (under parent, shown as `full`), going on past failures
 * and returning the first; mounts below it are not crossed (rmdir fails
 * on them). */
static int remove_tree(int parent, const char *name, const char *full, char **err)
{
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int ret = 0;
	if (fd >= 0) {
		DIR *d = fdopendir(fd);
		if (!d) {
			close(fd);
			return error_set(err, "%s: %m", full);
		}
		struct dirent *de;
		while ((de = readdir(d))) {
			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
				continue;
			if (unlinkat(dirfd(d), de->d_name, 0) == 0)
				continue;
			_cleanup_free_ char *sub = xasprintf("%s/%s", full, de->d_name);
			if (errno == EISDIR || errno == EPERM) {
				_cleanup_free_ char *e = NULL;
				if (remove_tree(dirfd(d), de->d_name, sub, &e) < 0 && ret == 0)
					ret = error_set(err, "%s", e);
			} else if (ret == 0) {
				ret = error_set(err, "%s: %m", sub);
			}
		}
		closedir(d);
	}
	if (ret == 0 && unlinkat(parent, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		ret = error_set(err, "%s: %m", full);
	return ret;
}

/* Every forwarder that forwarders/ lists: stopped (a poststop that never
 * ran must not leave one holding its ports once the directory is gone). */
static int stop_forwarders(const struct rootless_user *u, char **err)
{
	const char *dir = u->forwarders;
	_cleanup_closedir_ DIR *d = opendir(dir);
	if (!d)
		return 0;
	int ret = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		_cleanup_free_ char *pidfile = xasprintf("%s/%s", dir, de->d_name);
		_cleanup_free_ char *e = NULL;
		if (rootless_netns_stop_pidfile(pidfile, &e) < 0 && ret == 0)
			ret = error_set(err, "port forwarder: %s", e);
	}
	return ret;
}

int rootless_netns_teardown(const struct rootless_user *u, char **err)
{
	int ret = 0;
	char *e = NULL;
	const char *pidfile = u->slirp_pid;
	const char *watch = u->watch_pid;
	const char *ns = u->netns;
	const char *state = u->state;
	/* slirp4netns takes tens of milliseconds to exit (the kernel removes
	 * its tap0): killed, not waited for. Nothing needs it gone first. */
	if (end_pidfile(pidfile, true, &e) < 0 && ret == 0)
		ret = error_set(err, "slirp4netns: %s", e);
	free(TAKE_PTR(e));
	if (rootless_netns_stop_pidfile(watch, &e) < 0 && ret == 0)
		ret = error_set(err, "the user's watch: %s", e);
	if (stop_forwarders(u, &e) < 0 && ret == 0)
		ret = error_set(err, "%s", e);
	free(TAKE_PTR(e));
	if (is_nsfs(ns) && umount2(ns, MNT_DETACH) < 0 && ret == 0)
		ret = error_set(err, "rootless network namespace %s: unmount: %m", ns);
	/* The state directory's bind on itself (netns-pin.h), once per
	 * mount on it. */
	while (umount2(state, MNT_DETACH | UMOUNT_NOFOLLOW) == 0)
		;
	if (errno != EINVAL && errno != ENOENT && ret == 0)
		ret = error_set(err, "%s: unmount: %m", state);
	if (ret == 0 && remove_tree(AT_FDCWD, u->dir, u->dir, &e) < 0)
		ret = error_set(err, "%s", e);
	free(e);
	return ret;
}
