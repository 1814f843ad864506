/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Names files put in place without writing outside the container
 * (rootfs-file.h). The rootfs belongs to the image: its /etc may be a
 * symbolic link to the host's, its resolv.conf a FIFO, a hard link to a
 * host file, a huge file. None of it is read or written: the target is only
 * resolved (inside the rootfs) and mounted over.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <poll.h>
#include <stdarg.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "names/rootfs-file.h"

#include "base/util.h"

/* How long the child that mounts may take (a rootfs on a stuck network
 * file system must not hang the hook). */
#define BIND_TIMEOUT_MS 10000

bool rootfs_path_has_component(const char *path, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = path; (p = strstr(p, name)) != NULL; p++)
		if ((p == path || p[-1] == '/') && (p[n] == '/' || p[n] == '\0'))
			return true;
	return false;
}

/* Is fd the host's own file at `path`? */
static bool same_file(const struct stat *st, const char *path)
{
	struct stat h;
	return stat(path, &h) == 0 && h.st_dev == st->st_dev && h.st_ino == st->st_ino;
}

int rootfs_engine_open(const char *path, const char *oci_id, int *fd, char **text, char **err)
{
	if (path[0] != '/' || !rootfs_path_has_component(path, oci_id)) {
		set_error(err,
			  "the engine's file %s is not the container's (its path does not name the "
			  "container's id)",
			  path);
		return 1;
	}
	int f =
	    TEMP_FAILURE_RETRY(open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
	if (f < 0)
		return set_error(err, "the engine's file %s: %m", path);
	struct stat st;
	const char *why = NULL;
	if (fstat(f, &st) < 0)
		why = strerror(errno);
	else if (!S_ISREG(st.st_mode))
		why = "not a regular file";
	else if (st.st_nlink != 1)
		why = "it has more than one link";
	else if (same_file(&st, "/etc/hosts") || same_file(&st, "/etc/resolv.conf") ||
		 same_file(&st, "/run/systemd/resolve/resolv.conf"))
		why = "it is the host's own file";
	else if (st.st_size > ROOTFS_ENGINE_FILE_MAX)
		why = "larger than 1 MiB";
	if (why) {
		close(f);
		set_error(err, "the engine's file %s: %s", path, why);
		return 1;
	}
	_cleanup_free_ char *e = NULL;
	size_t len;
	if (read_all_fd(f, ROOTFS_ENGINE_FILE_MAX, text, &len, &e) < 0) {
		close(f);
		return set_error(err, "the engine's file %s: %s", path, e);
	}
	*fd = f;
	return 0;
}

int rootfs_engine_write(int fd, const char *text, char **err)
{
	size_t len = strlen(text), off = 0;
	while (off < len) {
		ssize_t w = TEMP_FAILURE_RETRY(pwrite(fd, text + off, len - off, (off_t)off));
		if (w < 0)
			return set_error(err, "writing the engine's file: %m");
		off += (size_t)w;
	}
	if (ftruncate(fd, (off_t)len) < 0)
		return set_error(err, "writing the engine's file: %m");
	return 0;
}

static int resolve_in_root(int rootfd, const char *path, unsigned long long flags)
{
	struct open_how how = {
	    .flags = flags | O_PATH | O_CLOEXEC,
	    .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	return (int)syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
}

/* In the child: report `code` (0 done, 1 left alone, 2 failed) and a
 * message on the pipe, and exit. */
static _Noreturn void child_say(int wfd, int code, const char *fmt, ...) PRINTF_LIKE(3, 4);
static _Noreturn void child_say(int wfd, int code, const char *fmt, ...)
{
	char msg[512];
	msg[0] = (char)('0' + code);
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(msg + 1, sizeof(msg) - 1, fmt, ap);
	va_end(ap);
	size_t len = n < 0 ? 1 : (size_t)n + 1 < sizeof(msg) ? (size_t)n + 1 : sizeof(msg) - 1;
	if (write(wfd, msg, len) < 0)
		_exit(3);
	_exit(0);
}

/* The target's O_PATH descriptor in the rootfs, created empty when
 * missing and allowed; exits through child_say() when it is left alone. */
static int child_target(int wfd, int rootfd, const struct rootfs_target *t)
{
	_cleanup_free_ char *rel = xasprintf("%s/%s", t->dir, t->name);
	int fd = resolve_in_root(rootfd, rel, 0);
	if (fd < 0 && errno == ENOENT) {
		int dfd = resolve_in_root(rootfd, t->dir, O_DIRECTORY);
		if (dfd < 0)
			child_say(wfd, 1, "/%s in the rootfs: %m", t->dir);
		if (t->readonly)
			child_say(wfd, 1,
				  "/%s is missing and the rootfs is read-only (config.json "
				  "root.readonly)",
				  rel);
		int c = openat(dfd, t->name,
			       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
				   O_CLOEXEC,
			       0644);
		if (c < 0)
			child_say(wfd, 1, "/%s is missing and cannot be created: %m", rel);
		close(c);
		fd = resolve_in_root(rootfd, rel, 0);
	}
	if (fd < 0)
		child_say(wfd, 1, "/%s in the rootfs: %m", rel);
	struct stat st;
	if (fstat(fd, &st) < 0)
		child_say(wfd, 2, "/%s in the rootfs: %m", rel);
	if (!S_ISREG(st.st_mode))
		child_say(wfd, 1, "/%s in the rootfs is not a regular file but %s", rel,
			  S_ISFIFO(st.st_mode)	 ? "a FIFO"
			  : S_ISDIR(st.st_mode)	 ? "a directory"
			  : S_ISSOCK(st.st_mode) ? "a socket"
						 : "a device");
	return fd;
}

/* The child: enter the namespace, find the target, move the mount there. */
static _Noreturn void child_bind(int wfd, int nsfd, int tree, const struct rootfs_target *t)
{
	if (setns(nsfd, CLONE_NEWNS) < 0)
		child_say(wfd, 2, "entering the container's mount namespace: %m");
	int rootfd = open(t->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		child_say(wfd, 2, "the rootfs %s in the container's mount namespace: %m", t->root);
	int fd = child_target(wfd, rootfd, t);
	if (move_mount(tree, "", fd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		child_say(wfd, 2, "mounting onto /%s/%s: %m", t->dir, t->name);
	child_say(wfd, 0, "mounted");
}

/* The detached, read-only clone of `source`. */
static int read_only_clone(const char *source, char **err)
{
	int tree = open_tree(AT_FDCWD, source, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (tree < 0)
		return set_error(err, "cloning a mount of %s: %m", source);
	struct mount_attr attr = {
	    .attr_set =
		MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC,
	    .propagation = MS_PRIVATE,
	};
	if (mount_setattr(tree, "", AT_EMPTY_PATH, &attr, sizeof(attr)) < 0) {
		set_error(err, "making the mount of %s read-only: %m", source);
		close(tree);
		return -1;
	}
	return tree;
}

/* The mount namespace of pid, when it is not this process's own. */
static int open_mntns(pid_t pid, char **err)
{
	_cleanup_free_ char *p = xasprintf("/proc/%d/ns/mnt", (int)pid);
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return set_error(err, "%s: %m", p);
	struct stat a, b;
	if (fstat(fd, &a) < 0 || stat("/proc/self/ns/mnt", &b) < 0 ||
	    (a.st_dev == b.st_dev && a.st_ino == b.st_ino)) {
		close(fd);
		set_error(err, "the container's process %d is in the hook's own mount namespace",
			  (int)pid);
		return -2;
	}
	return fd;
}

/* Wait for the child's report, at most BIND_TIMEOUT_MS. */
static int child_wait(pid_t child, int rfd, const struct rootfs_target *t, char **err)
{
	char msg[512] = {0};
	size_t got = 0;
	struct pollfd pfd = {.fd = rfd, .events = POLLIN};
	long long left = BIND_TIMEOUT_MS;
	while (got < sizeof(msg) - 1) {
		int r = TEMP_FAILURE_RETRY(poll(&pfd, 1, (int)left));
		if (r <= 0)
			break;
		ssize_t n = TEMP_FAILURE_RETRY(read(rfd, msg + got, sizeof(msg) - 1 - got));
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (got == 0)
		kill(child, SIGKILL);
	int status;
	TEMP_FAILURE_RETRY(waitpid(child, &status, 0));
	if (got == 0)
		return set_error(err, "/%s/%s: the child that mounts it did not answer in %d s",
				 t->dir, t->name, BIND_TIMEOUT_MS / 1000);
	if (msg[0] == '0')
		return 0;
	set_error(err, "%s", msg + 1);
	return msg[0] == '1' ? 1 : -1;
}

int rootfs_bind(const struct rootfs_target *t, const char *source, char **err)
{
	int nsfd = open_mntns(t->pid, err);
	if (nsfd < 0)
		return nsfd == -2 ? 1 : -1;
	int tree = read_only_clone(source, err);
	if (tree < 0) {
		close(nsfd);
		return -1;
	}
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		close(nsfd);
		close(tree);
		return set_error(err, "pipe: %m");
	}
	pid_t child = fork();
	if (child == 0) {
		close(pfd[0]);
		child_bind(pfd[1], nsfd, tree, t);
	}
	close(pfd[1]);
	close(nsfd);
	close(tree);
	int ret;
	if (child < 0)
		ret = set_error(err, "fork: %m");
	else
		ret = child_wait(child, pfd[0], t, err);
	close(pfd[0]);
	return ret;
}
