/* SPDX-License-Identifier: Apache-2.0 */
/*
 * floor: the benchmark's baseline and its timer (see docs/benchmarks.md).
 *
 *   floor add|del [-s] N PLUGIN CONFIG [CACHE]
 *	What an ideal runtime does for a chain of N plugins, and nothing
 *	more. PLUGIN is a directory holding echo1..echoN, or one executable
 *	run N times. CONFIG is a file holding one plugin's configuration (a
 *	JSON object). ADD runs the plugins in order, each with CONFIG on stdin,
 *	the previous plugin's output spliced in as "prevResult" by string
 *	concatenation from the second plugin on, and writes the last output to
 *	CACHE if given. DEL runs them in reverse order, each with CONFIG plus
 *	the cached result as "prevResult" when CACHE is readable, then removes
 *	CACHE. The six CNI_* variables come from the environment when set
 *	(CNI_PATH defaults to PLUGIN's directory), plus a fixed PATH.
 *	With -s, ADD writes CACHE as a runtime that must not lose it or leave
 *	it half written does (what libcnirt does): a temp
 *	file, fdatasync, rename.
 *
 *   floor time [-w WARMUP] R -- CMD1 ARGS... [-- CMD2 ARGS...]...
 *	Runs the commands in turn (CMD1, CMD2, ..., CMD1, ...) R times after
 *	WARMUP untimed rounds (default 3), with stdout sent to /dev/null, and
 *	prints for each command one line:
 *	    median_ms min_ms p90_ms max_rss_kb cpu_median_ms cpu_min_ms
 *	max_rss_kb is the largest ru_maxrss wait4() reported for the command,
 *	which covers the command and the children it waited for (the plugins);
 *	the CPU time (user and system, from the same wait4()) covers them
 *	too. The clock ticks of that accounting make a single run's CPU time
 *	coarse, its median over many runs less so.
 *	Exits 1, naming the command, as soon as a run fails.
 *
 * Plain C and libc only. Not a test: a measuring tool.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SANE_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

static void die(const char *what)
{
	fprintf(stderr, "floor: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		die("realloc");
	return p;
}

static char *xstrcat3(const char *a, const char *b, const char *c)
{
	size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
	char *s = xrealloc(NULL, la + lb + lc + 1);

	memcpy(s, a, la);
	memcpy(s + la, b, lb);
	memcpy(s + la + lb, c, lc + 1);
	return s;
}

/* ------------------------------------------------------------ the floor */

static char *read_fd(int fd)
{
	size_t cap = 4096, len = 0;
	char *buf = xrealloc(NULL, cap);

	for (;;) {
		ssize_t n;

		if (len + 1 >= cap) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("read");
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	return buf;
}

static char *read_file(const char *path, int missing_ok)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *s;

	if (fd < 0) {
		if (missing_ok && errno == ENOENT)
			return NULL;
		die(path);
	}
	s = read_fd(fd);
	close(fd);
	return s;
}

static void write_all(int fd, const char *s, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, s, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("write");
		s += n;
		len -= (size_t)n;
	}
}

static void trim_end(char *s)
{
	size_t len = strlen(s);

	while (len > 0 && strchr(" \t\r\n", s[len - 1]))
		s[--len] = '\0';
}

/* CONFIG with `,"prevResult":prev` before its closing brace. */
static char *with_prev_result(const char *config, const char *prev)
{
	static const char key[] = ",\"prevResult\":";
	size_t len = strlen(config), plen = strlen(prev);
	char *s;

	while (len > 0 && config[len - 1] != '}')
		len--;
	if (len == 0) {
		fprintf(stderr, "floor: the configuration is not a JSON object\n");
		exit(1);
	}
	len--; /* drop the closing brace */
	s = xrealloc(NULL, len + sizeof(key) - 1 + plen + 2);
	memcpy(s, config, len);
	memcpy(s + len, key, sizeof(key) - 1);
	memcpy(s + len + sizeof(key) - 1, prev, plen);
	memcpy(s + len + sizeof(key) - 1 + plen, "}", 2);
	return s;
}

/* Run one plugin: stdin gets `input`, the return value is its stdout. The
 * echo plugin reads all its input before it writes, so writing everything
 * first and reading afterwards cannot deadlock. */
static char *run_plugin(const char *path, char *const envp[], const char *input)
{
	int in[2], out[2], status;
	pid_t pid;
	char *output;

	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0)
		die("pipe2");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		char *argv[] = {(char *)path, NULL};

		signal(SIGPIPE, SIG_DFL);
		if (dup2(in[0], STDIN_FILENO) < 0 || dup2(out[1], STDOUT_FILENO) < 0)
			_exit(127);
		execve(path, argv, envp);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	write_all(in[1], input, strlen(input));
	close(in[1]);
	output = read_fd(out[0]);
	close(out[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die("waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "floor: %s failed (status %d): %s\n", path, status, output);
		exit(1);
	}
	trim_end(output);
	return output;
}

static const char *env_or(const char *name, const char *def)
{
	const char *v = getenv(name);

	return v ? v : def;
}

static int cmd_chain(int argc, char **argv)
{
	const char *op, *plugin, *cache;
	char *config, *prev = NULL, *cni_path, **paths, *envp[8];
	struct stat st;
	int n, i, is_dir, add;

	int durable = argc > 2 && strcmp(argv[2], "-s") == 0;

	if (durable) {
		argv[2] = argv[1];
		argv++;
		argc--;
	}
	if (argc < 5 || argc > 6) {
		fprintf(stderr, "usage: floor add|del [-s] N PLUGIN CONFIG [CACHE]\n");
		return 2;
	}
	op = argv[1];
	add = strcmp(op, "add") == 0;
	n = atoi(argv[2]);
	plugin = argv[3];
	cache = argc == 6 ? argv[5] : NULL;
	if (n < 1)
		return fprintf(stderr, "floor: N must be at least 1\n"), 2;
	if (stat(plugin, &st) < 0)
		die(plugin);
	is_dir = S_ISDIR(st.st_mode);
	config = read_file(argv[4], 0);
	trim_end(config);

	paths = xrealloc(NULL, sizeof(*paths) * (size_t)n);
	for (i = 0; i < n; i++) {
		char num[16];

		snprintf(num, sizeof(num), "%d", i + 1);
		paths[i] = is_dir ? xstrcat3(plugin, "/echo", num) : xstrcat3(plugin, "", "");
	}
	if (is_dir) {
		cni_path = xstrcat3(plugin, "", "");
	} else {
		char *slash;

		cni_path = xstrcat3(plugin, "", "");
		slash = strrchr(cni_path, '/');
		if (slash)
			*slash = '\0';
	}

	envp[0] = xstrcat3("CNI_COMMAND=", add ? "ADD" : "DEL", "");
	envp[1] = xstrcat3("CNI_CONTAINERID=", env_or("CNI_CONTAINERID", "bench-floor"), "");
	envp[2] = xstrcat3("CNI_NETNS=", env_or("CNI_NETNS", "/var/run/netns/bench"), "");
	envp[3] = xstrcat3("CNI_IFNAME=", env_or("CNI_IFNAME", "eth0"), "");
	envp[4] = xstrcat3("CNI_ARGS=", env_or("CNI_ARGS", ""), "");
	envp[5] = xstrcat3("CNI_PATH=", env_or("CNI_PATH", cni_path), "");
	envp[6] = "PATH=" SANE_PATH;
	envp[7] = NULL;

	if (add) {
		for (i = 0; i < n; i++) {
			char *input = prev ? with_prev_result(config, prev) : config;
			char *output = run_plugin(paths[i], envp, input);

			if (input != config)
				free(input);
			free(prev);
			prev = output;
		}
		if (cache && durable) {
			char *temp = xstrcat3(cache, ".tmp", "");
			int fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

			if (fd < 0)
				die(temp);
			write_all(fd, prev, strlen(prev));
			if (fdatasync(fd) < 0)
				die(temp);
			close(fd);
			if (rename(temp, cache) < 0)
				die(cache);
			free(temp);
		} else if (cache) {
			int fd = open(cache, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

			if (fd < 0)
				die(cache);
			write_all(fd, prev, strlen(prev));
			close(fd);
		}
		/* A runtime prints the final result. */
		puts(prev);
	} else if (strcmp(op, "del") == 0) {
		char *input;

		prev = cache ? read_file(cache, 1) : NULL;
		if (prev)
			trim_end(prev);
		input = prev && prev[0] ? with_prev_result(config, prev) : config;
		for (i = n - 1; i >= 0; i--)
			free(run_plugin(paths[i], envp, input));
		if (cache && unlink(cache) < 0 && errno != ENOENT)
			die(cache);
	} else {
		fprintf(stderr, "floor: unknown operation %s\n", op);
		return 2;
	}
	return 0;
}

/* ------------------------------------------------------------ the timer */

struct timed {
	char **argv;
	double *ms;
	double *cpu_ms;
	long max_rss_kb;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median_of(const double *sorted, int n)
{
	return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Run argv once with stdout on /dev/null; returns the wall time in ms and
 * sets *cpu_ms to the CPU time (user and system) of the command and the
 * children it waited for. */
static double run_once(struct timed *t, double *cpu_ms)
{
	struct rusage ru;
	double start, end;
	int status;
	pid_t pid;

	start = now_ms();
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (null < 0 || dup2(null, STDOUT_FILENO) < 0)
			_exit(127);
		execvp(t->argv[0], t->argv);
		fprintf(stderr, "floor: %s: %s\n", t->argv[0], strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			die("wait4");
	end = now_ms();
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		int i;

		fprintf(stderr, "floor: command failed (status %d):", status);
		for (i = 0; t->argv[i]; i++)
			fprintf(stderr, " %s", t->argv[i]);
		fputc('\n', stderr);
		exit(1);
	}
	if (ru.ru_maxrss > t->max_rss_kb)
		t->max_rss_kb = ru.ru_maxrss;
	*cpu_ms = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
		  (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
	return end - start;
}

static int cmd_time(int argc, char **argv)
{
	struct timed *cmds = NULL;
	int i, r, ncmds = 0, rounds, warmup = 3;

	i = 2;
	if (i + 1 < argc && strcmp(argv[i], "-w") == 0) {
		warmup = atoi(argv[i + 1]);
		i += 2;
	}
	if (i >= argc || (rounds = atoi(argv[i])) < 1 || i + 1 >= argc ||
	    strcmp(argv[i + 1], "--") != 0) {
		fprintf(stderr,
			"usage: floor time [-w WARMUP] R -- CMD ARGS... [-- CMD ARGS...]\n");
		return 2;
	}
	/* Split the rest at each "--" (argv is NULL terminated, so each
	 * command's argv can be cut in place). */
	for (i += 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			argv[i] = NULL;
			if (i + 1 >= argc || strcmp(argv[i + 1], "--") == 0) {
				fprintf(stderr, "floor: empty command\n");
				return 2;
			}
			cmds = xrealloc(cmds, sizeof(*cmds) * (size_t)(ncmds + 1));
			cmds[ncmds].argv = &argv[i + 1];
			cmds[ncmds].ms = xrealloc(NULL, sizeof(double) * (size_t)rounds);
			cmds[ncmds].cpu_ms = xrealloc(NULL, sizeof(double) * (size_t)rounds);
			cmds[ncmds].max_rss_kb = 0;
			ncmds++;
		}
	}
	double unused;
	for (r = 0; r < warmup; r++)
		for (i = 0; i < ncmds; i++)
			run_once(&cmds[i], &unused);
	for (i = 0; i < ncmds; i++)
		cmds[i].max_rss_kb = 0;
	for (r = 0; r < rounds; r++)
		for (i = 0; i < ncmds; i++)
			cmds[i].ms[r] = run_once(&cmds[i], &cmds[i].cpu_ms[r]);
	for (i = 0; i < ncmds; i++) {
		double *ms = cmds[i].ms, *cpu = cmds[i].cpu_ms;

		qsort(ms, (size_t)rounds, sizeof(*ms), cmp_double);
		qsort(cpu, (size_t)rounds, sizeof(*cpu), cmp_double);
		printf("%.3f %.3f %.3f %ld %.3f %.3f\n", median_of(ms, rounds), ms[0],
		       ms[(rounds * 9) / 10], cmds[i].max_rss_kb, median_of(cpu, rounds), cpu[0]);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && (strcmp(argv[1], "add") == 0 || strcmp(argv[1], "del") == 0)) {
		/* A plugin that exits early must fail the run, not kill it. */
		signal(SIGPIPE, SIG_IGN);
		return cmd_chain(argc, argv);
	}
	if (argc >= 2 && strcmp(argv[1], "time") == 0)
		return cmd_time(argc, argv);
	fprintf(stderr, "usage: floor add|del N PLUGIN CONFIG [CACHE]\n"
			"       floor time [-w WARMUP] R -- CMD ARGS... [-- CMD ARGS...]\n");
	return 2;
}
