/* SPDX-License-Identifier: Apache-2.0 */
/* Writing a file whole or not at all, and removing what a writer killed
 * before its rename left (common.h; docs/architecture.md, "Temp files"). */
#include "config.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"

/*
 * A temp file is named
 *
 *	"." + a prefix of the name + ".tmp.cnihook." + STAMP + "." + XXXXXX
 *
 * within NAME_MAX, where STAMP is "<pid namespace inode>.<pid>.<start time>"
 * of the writer (the start time as /proc/<pid>/stat field 22 gives it) and
 * XXXXXX mkostemp(3)'s letters and digits. The dot keeps it out of readers'
 * listings; the stamp says whose it is, so that a sweep proves its writer
 * gone (no such process, or one started at another time) at once, with no
 * guess at how long a write takes, and never takes a name it did not make.
 */
#define TEMP_TAG	".tmp.cnihook."
#define TEMP_RANDOM	6
#define TEMP_STAMP_MAX	(3 * 20 + 2)
#define TEMP_PREFIX_MAX (NAME_MAX - 1 - (sizeof(TEMP_TAG) - 1) - TEMP_STAMP_MAX - 1 - TEMP_RANDOM)
/* The test suites' fault point (docs/testing.md): a writer whose target
 * path matches this fnmatch(3) pattern SIGKILLs itself between its temp
 * file and its rename. */
#define TEMP_KILL_ENV "CNIHOOK_TEST_KILL_BEFORE_RENAME"

struct temp_owner {
	unsigned long long pidns;
	long pid;
	unsigned long long start;
};

/* The pid namespace of this process: the inode /proc/self/ns/pid names
 * ("pid:[N]"), 0 when it cannot be read. */
static unsigned long long own_pidns(void)
{
	char link[64];
	ssize_t n = readlink("/proc/self/ns/pid", link, sizeof(link) - 1);
	unsigned long long ino = 0;
	if (n <= 0)
		return 0;
	link[n] = '\0';
	if (sscanf(link, "pid:[%llu]", &ino) != 1)
		return 0;
	return ino;
}

/* The state (field 3) and start time (field 22) of /proc/<pid>/stat: 0,
 * -ENOENT when there is no such process, another -errno when it cannot be
 * read. pid 0: this process. */
static int proc_stat(long pid, char *state, unsigned long long *start)
{
	char path[64], buf[1024];
	if (pid == 0)
		snprintf(path, sizeof(path), "/proc/self/stat");
	else
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	_cleanup_close_ int fd = TEMP_FAILURE_RETRY(open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY));
	if (fd < 0)
		return errno == ESRCH ? -ENOENT : -errno;
	ssize_t n = TEMP_FAILURE_RETRY(read(fd, buf, sizeof(buf) - 1));
	if (n < 0)
		return errno == ESRCH ? -ENOENT : -errno;
	buf[n] = '\0';
	/* After the command's ")": the state is field 3, the start time 22. */
	const char *p = strrchr(buf, ')');
	if (p == NULL || sscanf(p + 1,
				" %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d "
				"%*d %*d %*d %llu",
				state, start) != 2)
		return -EINVAL;
	return 0;
}

/* This process's stamp, read once per thread (thread-local: no lock, no
 * race with an engine's other threads) and again in a child made by fork:
 * one getpid(2) per write. A stamp that cannot be read is all zeros, which
 * no sweep ever proves gone. */
static const struct temp_owner *own_stamp(void)
{
	static __thread struct temp_owner self;
	static __thread long stamped;
	long pid = (long)getpid();
	if (stamped == pid)
		return &self;
	char state;
	struct temp_owner o = {0};
	if (proc_stat(0, &state, &o.start) == 0 && (o.pidns = own_pidns()) != 0)
		o.pid = pid;
	else
		o = (struct temp_owner){0};
	self = o;
	stamped = pid;
	return &self;
}

/* Parse a temp file's name: true when it is one of file_write_atomic_at()'s,
 * with its writer in *o. */
static bool temp_parse(const char *name, struct temp_owner *o)
{
	if (name[0] != '.')
		return false;
	const char *tag = NULL;
	for (const char *p = name + 1; (p = strstr(p, TEMP_TAG)) != NULL; p++)
		tag = p;
	if (tag == NULL)
		return false;
	const char *s = tag + strlen(TEMP_TAG);
	unsigned long long v[3];
	for (int i = 0; i < 3; i++) {
		if (*s < '0' || *s > '9')
			return false;
		char *end;
		errno = 0;
		v[i] = strtoull(s, &end, 10);
		if (errno != 0 || *end != '.')
			return false;
		s = end + 1;
	}
	if (strlen(s) != TEMP_RANDOM ||
	    strspn(s, "abcdefghijklmnopqrstuvwxyz"
		      "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != TEMP_RANDOM)
		return false;
	if (v[1] > LONG_MAX)
		return false;
	*o = (struct temp_owner){v[0], (long)v[1], v[2]};
	return true;
}

/* Is the writer provably gone: of this pid namespace (another's pids mean
 * nothing here), and no such process, one started at another time (the
 * pid reused), or a zombie. Anything unreadable keeps it. */
static bool temp_owner_gone(const struct temp_owner *o, unsigned long long pidns)
{
	if (o->pidns == 0 || o->pid <= 0 || o->pidns != pidns)
		return false;
	char state;
	unsigned long long start;
	int r = proc_stat(o->pid, &state, &start);
	if (r == -ENOENT)
		return true;
	if (r < 0)
		return false;
	return start != o->start || state == 'Z' || state == 'X';
}

static int write_all(int fd, const char *data, size_t len)
{
	while (len > 0) {
		ssize_t w = TEMP_FAILURE_RETRY(write(fd, data, len));
		if (w < 0)
			return -errno;
		if (w == 0)
			return -EIO;
		data += w;
		len -= (size_t)w;
	}
	return 0;
}

/* The fault point (TEMP_KILL_ENV): a getenv(3), no system call. */
static void temp_fault_point(const char *dir, const char *name)
{
	const char *pattern = getenv(TEMP_KILL_ENV);
	if (pattern == NULL || *pattern == '\0')
		return;
	_cleanup_free_ char *path = xasprintf("%s/%s", dir, name);
	if (fnmatch(pattern, path, 0) == 0)
		raise(SIGKILL);
}

int file_write_atomic_at(int dfd, const char *dir, const char *name, const char *data, size_t len,
			 int mode, bool sync, const char **step)
{
	size_t prefix = strlen(name);
	if (prefix > TEMP_PREFIX_MAX)
		prefix = TEMP_PREFIX_MAX;
	const struct temp_owner *o = own_stamp();
	_cleanup_free_ char *tmp = xasprintf("%s/.%.*s" TEMP_TAG "%llu.%ld.%llu.XXXXXX", dir,
					     (int)prefix, name, o->pidns, o->pid, o->start);
	/* mkostemp(3) makes it 0600, which most files are: no fchmod. */
	_cleanup_close_ int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		*step = "create";
		return -errno;
	}
	const char *tmp_name = strrchr(tmp, '/') + 1;
	int r = 0;
	if ((mode & 07777) != 0600 && fchmod(fd, (mode_t)mode) < 0)
		*step = "chmod", r = -errno;
	else if ((r = write_all(fd, data, len)) < 0)
		*step = "write";
	else if (sync && fdatasync(fd) < 0)
		*step = "fdatasync", r = -errno;
	else if (close(TAKE_FD(fd)) < 0)
		*step = "close", r = -errno;
	if (r == 0) {
		temp_fault_point(dir, name);
		if (renameat(dfd, tmp_name, dfd, name) < 0)
			*step = "rename", r = -errno;
	}
	if (r < 0)
		unlinkat(dfd, tmp_name, 0);
	return r;
}

int file_write_atomic(const char *path, const char *data, size_t len, int mode, bool sync)
{
	const char *slash = strrchr(path, '/');
	_cleanup_free_ char *dir =
	    slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : xstrdup(".");
	_cleanup_close_ int dfd =
	    TEMP_FAILURE_RETRY(open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY));
	if (dfd < 0)
		return -errno;
	const char *step;
	return file_write_atomic_at(dfd, dir, slash ? slash + 1 : path, data, len, mode, sync,
				    &step);
}

bool file_is_temp(const char *name)
{
	struct temp_owner o;
	return temp_parse(name, &o);
}

static bool keep_temp(const char *name, void *data)
{
	(void)data;
	return file_is_temp(name);
}

int file_temps_sweep_at(int dfd)
{
	struct dir_entry *v = NULL;
	size_t n = 0;
	int r = dir_list_sorted(dfd, keep_temp, NULL, &v, &n);
	if (r < 0)
		return r;
	/* No /proc (no pid namespace to compare): nothing can be proven. */
	unsigned long long pidns = n ? own_pidns() : 0;
	int removed = 0;
	for (size_t i = 0; i < n && pidns; i++) {
		struct temp_owner o;
		if (temp_parse(v[i].name, &o) && temp_owner_gone(&o, pidns) &&
		    unlinkat(dfd, v[i].name, 0) == 0)
			removed++;
	}
	dir_entries_free(v, n);
	return removed;
}

int file_temps_sweep(const char *dir)
{
	_cleanup_close_ int dfd =
	    TEMP_FAILURE_RETRY(open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY));
	if (dfd < 0)
		return -errno;
	return file_temps_sweep_at(dfd);
}
