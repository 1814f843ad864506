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
#include <stdint.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "names/rootfs-file.h"

#include "base/util.h"

/* How long the child that mounts may take (a rootfs on a stuck network
 * file system must not hang the hook). */
#define BIND_TIMEOUT_MS 10000

/* The path's components from the end: *comp (not NUL-terminated) of
 * *len bytes; false when there are no more. */
static bool last_component(const char *path, size_t *end, const char **comp, size_t *len)
{
	size_t e = *end;
	while (e > 0 && path[e - 1] == '/')
		e--;
	if (e == 0)
		return false;
	size_t b = e;
	while (b > 0 && path[b - 1] != '/')
		b--;
	*comp = path + b;
	*len = e - b;
	*end = b;
	return true;
}

static bool component_is(const char *comp, size_t len, const char *want)
{
	return strlen(want) == len && memcmp(comp, want, len) == 0;
}

static bool component_ends(const char *comp, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);
	return len > n && memcmp(comp + len - n, suffix, n) == 0;
}

bool rootfs_file_engine_path(const char *path, const char *oci_id, const char *name)
{
	if (path[0] != '/')
		return false;
	const char *c[4];
	size_t len[4], end = strlen(path);
	size_t k = 0;
	while (k < 4 && last_component(path, &end, &c[k], &len[k]))
		k++;
	if (k < 3 || !component_is(c[0], len[0], name))
		return false;
	/* Docker: <data-root>/containers/<id>/<name> */
	if (component_is(c[1], len[1], oci_id) && component_is(c[2], len[2], "containers"))
		return true;
	/* containers/storage: <root>/<driver>-containers/<id>/userdata/<name> */
	return k == 4 && component_is(c[1], len[1], "userdata") &&
	       component_is(c[2], len[2], oci_id) && component_ends(c[3], len[3], "-containers");
}

/* Is fd the host's own file at `path`? */
static bool same_file(const struct stat *st, const char *path)
{
	struct stat h;
	return stat(path, &h) == 0 && h.st_dev == st->st_dev && h.st_ino == st->st_ino;
}

/* Why the engine's file open as f is not one to rewrite, or NULL. */
static const char *engine_file_refusal(int f)
{
	struct stat st;
	struct statfs sfs;
	if (fstat(f, &st) < 0 || fstatfs(f, &sfs) < 0)
		return strerror(errno);
	if (!S_ISREG(st.st_mode))
		return "not a regular file";
	if (st.st_nlink != 1)
		return "it has more than one link";
	if (same_file(&st, "/etc/hosts") || same_file(&st, "/etc/resolv.conf") ||
	    same_file(&st, "/run/systemd/resolve/resolv.conf"))
		return "it is the host's own file";
	if (sfs.f_flags & ST_RDONLY)
		return "its file system is read-only";
	if (st.st_size > ROOTFS_ENGINE_FILE_MAX)
		return "larger than 1 MiB";
	return NULL;
}

int rootfs_file_engine_open(const char *path, const char *oci_id, const char *name, int *fd,
			    char **text, char **err)
{
	if (!rootfs_file_engine_path(path, oci_id, name)) {
		error_set(err,
			  "%s is not the engine's own file of the container (not "
			  ".../<driver>-containers/%s/userdata/%s nor .../containers/%s/%s)",
			  path, oci_id, name, oci_id, name);
		return 1;
	}
	int f =
	    TEMP_FAILURE_RETRY(open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
	if (f < 0 && errno == EROFS) {
		error_set(err, "the engine's file %s: its file system is read-only", path);
		return 1;
	}
	if (f < 0)
		return error_set(err, "the engine's file %s: %m", path);
	const char *why = engine_file_refusal(f);
	if (why) {
		close(f);
		error_set(err, "the engine's file %s: %s", path, why);
		return 1;
	}
	_cleanup_free_ char *e = NULL;
	size_t len;
	if (read_all_fd(f, ROOTFS_ENGINE_FILE_MAX, text, &len, &e) < 0) {
		close(f);
		return error_set(err, "the engine's file %s: %s", path, e);
	}
	*fd = f;
	return 0;
}

int rootfs_file_engine_write(int fd, const char *text, char **err)
{
	size_t len = strlen(text), off = 0;
	while (off < len) {
		ssize_t w = TEMP_FAILURE_RETRY(pwrite(fd, text + off, len - off, (off_t)off));
		if (w < 0)
			return error_set(err, "writing the engine's file: %m");
		off += (size_t)w;
	}
	if (ftruncate(fd, (off_t)len) < 0)
		return error_set(err, "writing the engine's file: %m");
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

/* The mount that fd is open on (statx STATX_MNT_ID: Linux 5.8), as
 * /proc/PID/mountinfo numbers it. */
static int mount_id(int fd, uint64_t *id)
{
	struct statx stx;
	if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_MNT_ID, &stx) < 0)
		return -1;
	if (!(stx.stx_mask & STATX_MNT_ID)) {
		errno = ENOSYS;
		return -1;
	}
	*id = stx.stx_mnt_id;
	return 0;
}

/* Does mount `id` propagate to peers ("shared:N" among its optional
 * fields in mountinfo, read from fd)? 1 yes, 0 no, -1 not found or
 * unreadable. */
static int mount_is_shared(int fd, uint64_t id)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_free_ char *e = NULL;
	size_t len;
	if (read_all_fd(fd, 64 * 1024 * 1024, &text, &len, &e) < 0)
		return -1;
	for (char *line = text; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		unsigned long long mid;
		int skip = 0;
		if (sscanf(line, "%llu %*u %*u:%*u %*s %*s %*s%n", &mid, &skip) == 1 && skip > 0 &&
		    mid == id) {
			/* The optional fields, up to the " - " separator. */
			char *sep = strstr(line + skip, " - ");
			if (sep)
				*sep = '\0';
			return strstr(line + skip, " shared:") != NULL;
		}
		line = nl ? nl + 1 : NULL;
	}
	return -1;
}

/* The directory that holds the target: on the rootfs's own mount, else it
 * is a volume (the engine's or the user's), not the container's. */
static int child_dir(int wfd, int rootfd, uint64_t root_mnt, const struct rootfs_target *t)
{
	int dfd = resolve_in_root(rootfd, t->dir, O_DIRECTORY);
	if (dfd < 0)
		child_say(wfd, 1, "/%s in the rootfs: %m", t->dir);
	uint64_t m;
	if (mount_id(dfd, &m) < 0)
		child_say(wfd, 2, "/%s in the rootfs: statx: %m", t->dir);
	if (m != root_mnt)
		child_say(wfd, 1,
			  "/%s is on another mount than the rootfs's (a volume): not the "
			  "container's file to replace",
			  t->dir);
	return dfd;
}

/* The target's O_PATH descriptor in the rootfs, created empty when
 * missing, as a runtime creates its mount points (before a read-only
 * rootfs is made read-only); exits through child_say() when it is left
 * alone. */
static int child_target(int wfd, int rootfd, uint64_t root_mnt, const struct rootfs_target *t)
{
	_cleanup_free_ char *rel = xasprintf("%s/%s", t->dir, t->name);
	int dfd = child_dir(wfd, rootfd, root_mnt, t);
	int fd = resolve_in_root(rootfd, rel, 0);
	if (fd < 0 && errno == ENOENT) {
		int c = openat(dfd, t->name,
			       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
				   O_CLOEXEC,
			       0644);
		if (c < 0 && errno == EROFS)
			child_say(wfd, 1,
				  "/%s is missing and the rootfs's file system is read-only", rel);
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
	uint64_t m;
	if (mount_id(fd, &m) < 0)
		child_say(wfd, 2, "/%s in the rootfs: statx: %m", rel);
	if (m != root_mnt)
		child_say(wfd, 1,
			  "/%s resolves onto another mount than the rootfs's (a volume, or a "
			  "mount point of its own): not the container's file to replace",
			  rel);
	return fd;
}

/* The child: enter the namespace, find the target, move the mount there. */
static _Noreturn void child_bind(int wfd, int nsfd, int infofd, int tree,
				 const struct rootfs_target *t)
{
	if (setns(nsfd, CLONE_NEWNS) < 0)
		child_say(wfd, 2, "entering the container's mount namespace: %m");
	int rootfd = open(t->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		child_say(wfd, 2, "the rootfs %s in the container's mount namespace: %m", t->root);
	uint64_t root_mnt;
	if (mount_id(rootfd, &root_mnt) < 0)
		child_say(wfd, 2, "the rootfs %s: statx: %m", t->root);
	int fd = child_target(wfd, rootfd, root_mnt, t);
	int shared = mount_is_shared(infofd, root_mnt);
	if (shared < 0)
		child_say(wfd, 1, "cannot tell whether the rootfs's mount is shared (mountinfo)");
	if (shared > 0)
		child_say(wfd, 1,
			  "the rootfs is a shared mount (rootfsPropagation shared or rshared): a "
			  "mount onto /%s/%s would reach its peers, the host's among them",
			  t->dir, t->name);
	if (move_mount(tree, "", fd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		child_say(wfd, 2, "mounting onto /%s/%s: %m", t->dir, t->name);
	child_say(wfd, 0, "mounted");
}

/* The tmpfs that holds one file of `len` bytes: a page more than the text
 * at most, two inodes (its root and the file). */
static int small_tmpfs(size_t len, char **err)
{
	int fs = fsopen("tmpfs", FSOPEN_CLOEXEC);
	if (fs < 0)
		return error_set(err, "a tmpfs for the file: fsopen: %m");
	long page = sysconf(_SC_PAGESIZE);
	size_t size = (len / (size_t)page + 1) * (size_t)page;
	_cleanup_free_ char *sz = xasprintf("%zu", size);
	int mnt = -1;
	if (fsconfig(fs, FSCONFIG_SET_STRING, "size", sz, 0) < 0 ||
	    fsconfig(fs, FSCONFIG_SET_STRING, "nr_inodes", "2", 0) < 0 ||
	    fsconfig(fs, FSCONFIG_SET_STRING, "mode", "0755", 0) < 0 ||
	    fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0 ||
	    (mnt = fsmount(fs, FSMOUNT_CLOEXEC,
			   MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC)) < 0)
		error_set(err, "a tmpfs for the file: %m");
	close(fs);
	return mnt;
}

int rootfs_file_private(const char *text, uid_t uid, gid_t gid, char **err)
{
	size_t len = strlen(text);
	_cleanup_close_ int mnt = small_tmpfs(len, err);
	if (mnt < 0)
		return -1;
	_cleanup_close_ int f =
	    openat(mnt, "file", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (f < 0)
		return error_set(err, "the file on its tmpfs: %m");
	for (size_t off = 0; off < len;) {
		ssize_t w = TEMP_FAILURE_RETRY(write(f, text + off, len - off));
		if (w < 0)
			return error_set(err, "writing the file on its tmpfs: %m");
		off += (size_t)w;
	}
	if (fchown(f, uid, gid) < 0)
		return error_set(err, "the file on its tmpfs: chown: %m");
	int tree = open_tree(mnt, "file", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (tree < 0)
		return error_set(err, "cloning the mount of the file: %m");
	struct mount_attr attr = {
	    .attr_set =
		MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC,
	    .propagation = MS_PRIVATE,
	};
	if (mount_setattr(tree, "", AT_EMPTY_PATH, &attr, sizeof(attr)) < 0) {
		error_set(err, "making the mount of the file read-only: %m");
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
		return error_set(err, "%s: %m", p);
	struct stat a, b;
	if (fstat(fd, &a) < 0 || stat("/proc/self/ns/mnt", &b) < 0 ||
	    (a.st_dev == b.st_dev && a.st_ino == b.st_ino)) {
		close(fd);
		error_set(err, "the container's process %d is in the hook's own mount namespace",
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
		return error_set(err, "/%s/%s: the child that mounts it did not answer in %d s",
				 t->dir, t->name, BIND_TIMEOUT_MS / 1000);
	if (msg[0] == '0')
		return 0;
	error_set(err, "%s", msg + 1);
	return msg[0] == '1' ? 1 : -1;
}

int rootfs_file_bind(const struct rootfs_target *t, int tree, char **err)
{
	int nsfd = open_mntns(t->pid, err);
	if (nsfd < 0)
		return nsfd == -2 ? 1 : -1;
	/* The container's mount table, read by the child from the hook's
	 * /proc (the container's namespace may have none yet). */
	_cleanup_free_ char *info = xasprintf("/proc/%d/mountinfo", (int)t->pid);
	int infofd = open(info, O_RDONLY | O_CLOEXEC);
	if (infofd < 0) {
		close(nsfd);
		return error_set(err, "%s: %m", info);
	}
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		close(nsfd);
		close(infofd);
		return error_set(err, "pipe: %m");
	}
	pid_t child = fork();
	if (child == 0) {
		close(pfd[0]);
		child_bind(pfd[1], nsfd, infofd, tree, t);
	}
	close(pfd[1]);
	close(nsfd);
	close(infofd);
	int ret;
	if (child < 0)
		ret = error_set(err, "fork: %m");
	else
		ret = child_wait(child, pfd[0], t, err);
	close(pfd[0]);
	return ret;
}
