/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scalehelp: the cheap parts of tests/bench/scale.sh, which compiles it
 * with the C compiler at run time (it is not part of the build).
 *
 *   scalehelp procs N net|plain PIDFILE
 *	Forks N children that sleep until killed, each in a network namespace
 *	of its own (net: unshare(CLONE_NEWNET) in the child, the container's
 *	process of a benchmark attachment) or in the caller's (plain: "other
 *	processes" on the host). Writes their pids, one a line in order, to
 *	PIDFILE.tmp, renames it to PIDFILE once every child is ready, and
 *	sleeps until killed. Every child dies with it (PR_SET_PDEATHSIG), so
 *	that killing this one pid ends them all. With SCALEHELP_NETNS_GROUP=G
 *	(net), G children share each namespace and the last has its own.
 *
 *   scalehelp run TIMEOUT IN OUT ERR CMD ARGS...
 *	Runs CMD with stdin from the file IN, stdout to the file OUT and
 *	stderr appended to the file ERR, and prints "WALL CPU": the wall time
 *	from fork to wait4 and the CPU time (user + system) wait4 reported for
 *	it and the children it waited for (the plugins), in ms. Exits with
 *	CMD's status (128 + the signal that ended it); after TIMEOUT seconds
 *	(0: none) kills it, prints "timeout" and exits 124.
 *
 *   scalehelp bind
 *	Reads lines "SOURCE DESTINATION" on stdin and bind-mounts each SOURCE
 *	on DESTINATION (a file, created if need be): the pins of a cloned
 *	state directory.
 *
 * Plain C and libc only. Not a test: a measuring tool.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "scalehelp: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int procs(long n, int net, const char *pidfile)
{
	char tmp[4096];
	int ready[2];

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", pidfile) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		die(pidfile);
	}
	FILE *f = fopen(tmp, "w");
	if (f == NULL)
		die(tmp);
	/* One pipe for all: each child closes its end once ready, the read
	 * below sees end of file when the last one has. */
	if (pipe(ready) < 0)
		die("pipe");
	pid_t self = getpid();
	/* SCALEHELP_NETNS_GROUP=G: with net, G children share each namespace
	 * (the first unshares, the others setns to it; the last child has
	 * one of its own): a host of N containers built G times faster. */
	const char *g_env = getenv("SCALEHELP_NETNS_GROUP");
	long group = g_env ? strtol(g_env, NULL, 10) : 1;
	if (group < 1)
		group = 1;
	int leader_ns = -1;
	for (long i = 0; i < n; i++) {
		bool lead = !net || i % group == 0 || i == n - 1 || group == 1;
		int lready[2] = {-1, -1};
		if (net && lead && group > 1 && pipe(lready) < 0)
			die("pipe");
		pid_t pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			close(ready[0]);
			if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != self)
				_exit(1);
			if (net && lead && unshare(CLONE_NEWNET) < 0) {
				fprintf(stderr, "scalehelp: unshare(CLONE_NEWNET): %s\n",
					strerror(errno));
				_exit(1);
			}
			if (net && !lead && setns(leader_ns, CLONE_NEWNET) < 0) {
				fprintf(stderr, "scalehelp: setns: %s\n", strerror(errno));
				_exit(1);
			}
			if (lready[1] >= 0) {
				close(lready[0]);
				close(lready[1]);
			}
			if (leader_ns >= 0)
				close(leader_ns);
			close(ready[1]);
			for (;;)
				pause();
		}
		if (lready[0] >= 0) {
			char b;
			close(lready[1]);
			while (read(lready[0], &b, 1) < 0 && errno == EINTR)
				;
			close(lready[0]);
			char path[64];
			snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
			if (leader_ns >= 0)
				close(leader_ns);
			/* Wait for the unshare: the namespace differs from ours. */
			struct stat a, b2;
			stat("/proc/self/ns/net", &a);
			for (int k = 0; k < 100000; k++) {
				if (stat(path, &b2) == 0 && b2.st_ino != a.st_ino)
					break;
				usleep(100);
			}
			leader_ns = open(path, O_RDONLY | O_CLOEXEC);
			if (leader_ns < 0)
				die(path);
		}
		fprintf(f, "%d\n", (int)pid);
	}
	if (leader_ns >= 0)
		close(leader_ns);
	close(ready[1]);
	char c;
	while (read(ready[0], &c, 1) < 0 && errno == EINTR)
		;
	close(ready[0]);
	if (fclose(f) != 0)
		die(tmp);
	if (rename(tmp, pidfile) < 0)
		die(pidfile);
	for (;;)
		pause();
}

static double ms(const struct timeval *tv)
{
	return (double)tv->tv_sec * 1000 + (double)tv->tv_usec / 1000;
}

static void open_on(int target, const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC, 0600);
	if (fd < 0)
		die(path);
	if (dup2(fd, target) < 0)
		die("dup2");
	close(fd);
}

static int run(unsigned timeout, const char *in, const char *out, const char *err, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	int status;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		open_on(0, in, O_RDONLY);
		open_on(1, out, O_WRONLY | O_CREAT | O_TRUNC);
		open_on(2, err, O_WRONLY | O_CREAT | O_APPEND);
		execv(argv[0], argv);
		fprintf(stderr, "scalehelp: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (timeout)
		alarm(timeout);
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR)
			die("wait4");
		kill(pid, SIGKILL);
		while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
			;
		printf("timeout\n");
		return 124;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%.3f %.3f\n",
	       (double)(t1.tv_sec - t0.tv_sec) * 1000 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6,
	       ms(&ru.ru_utime) + ms(&ru.ru_stime));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void on_alarm(int sig)
{
	(void)sig;
}

static int bind(void)
{
	char line[8192];
	long n = 0;

	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		char *dst = strchr(line, ' ');
		if (dst == NULL)
			continue;
		*dst++ = '\0';
		int fd = open(dst, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0444);
		if (fd < 0)
			die(dst);
		close(fd);
		if (mount(line, dst, "none", MS_BIND, NULL) < 0)
			die(dst);
		n++;
	}
	printf("%ld\n", n);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "procs") == 0)
		return procs(atol(argv[2]), strcmp(argv[3], "net") == 0, argv[4]);
	if (argc >= 7 && strcmp(argv[1], "run") == 0) {
		struct sigaction sa = {.sa_handler = on_alarm};
		sigaction(SIGALRM, &sa, NULL); /* no SA_RESTART: wait4 sees EINTR */
		return run((unsigned)atoi(argv[2]), argv[3], argv[4], argv[5], argv + 6);
	}
	if (argc == 2 && strcmp(argv[1], "bind") == 0)
		return bind();
	fprintf(stderr,
		"usage: scalehelp procs N net|plain PIDFILE | scalehelp run TIMEOUT IN OUT ERR CMD "
		"ARGS... | scalehelp bind\n");
	return 2;
}
