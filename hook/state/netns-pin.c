/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Pinning network namespaces with bind mounts, the way iproute2's
 * `ip netns add` keeps them under /run/netns.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "base/util.h"
#include "state/layout.h"
#include "state/netns-pin.h"

#ifndef NSFS_MAGIC
#define NSFS_MAGIC 0x6e736673
#endif

/* Unmounts of one pin at most (mounts stacked by earlier runs). */
#define UNPIN_MAX 64

/* Open path if it is an nsfs file: statfs first, so that nothing else is
 * ever opened (no FIFO, no device). 1 and *fd_out when it is one; 0 when
 * it is another kind of file (an answer, not a failure); -1 and *err (the
 * system's reason, for the caller to name the path) when it cannot be
 * told. */
static int open_nsfs(const char *path, int *fd_out, char **err)
{
	struct statfs sfs;
	if (statfs(path, &sfs) < 0)
		return error_set(err, "%s", strerror(errno));
	if (sfs.f_type != NSFS_MAGIC)
		return 0;
	_cleanup_close_ int fd =
	    TEMP_FAILURE_RETRY(open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
	if (fd < 0)
		return error_set(err, "%s", strerror(errno));
	if (fstatfs(fd, &sfs) < 0)
		return error_set(err, "%s", strerror(errno));
	if (sfs.f_type != NSFS_MAGIC)
		return 0; /* replaced between the two */
	*fd_out = TAKE_FD(fd);
	return 1;
}

static bool fd_is_netns(int fd)
{
	return ioctl(fd, NS_GET_NSTYPE) == CLONE_NEWNET;
}

bool netns_pin_is_netns(const char *path)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *err = NULL;
	return open_nsfs(path, &fd, &err) > 0 && fd_is_netns(fd);
}

int netns_pin_probe(const char *path, char **evidence)
{
	_cleanup_free_ char *p = error_shown_whole(path);
	if (path[0] != '/') {
		*evidence = xasprintf("%s is not an absolute path: cannot tell", p);
		return -1;
	}
	struct statfs sfs;
	if (statfs(path, &sfs) < 0) {
		int e = errno;
		*evidence = e == ENOENT || e == ENOTDIR
				? xasprintf("%s does not exist", p)
				: xasprintf("cannot tell whether %s exists: %s", p, strerror(e));
		return e == ENOENT || e == ENOTDIR ? 0 : -1;
	}
	if (sfs.f_type != NSFS_MAGIC) {
		*evidence = xasprintf("%s is no namespace (a file of filesystem type 0x%llx)", p,
				      (unsigned long long)sfs.f_type);
		return 0;
	}
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *err = NULL;
	int r = open_nsfs(path, &fd, &err);
	int type = r > 0 ? ioctl(fd, NS_GET_NSTYPE) : -1;
	if (r > 0 && type < 0)
		err = xstrdup(strerror(errno));
	if (type < 0) {
		*evidence = xasprintf("cannot tell whether the namespace %s is a network one: %s",
				      p, err ? err : "it is no namespace any more");
		return -1;
	}
	if (type != CLONE_NEWNET) {
		*evidence = xasprintf("%s is a namespace of another kind, not a network one", p);
		return 0;
	}
	*evidence = xasprintf("%s is a network namespace", p);
	return 1;
}

/* Is path the same file as the one open at fd? */
static bool same_as_fd(const char *path, int fd)
{
	struct stat a, b;
	if (stat(path, &a) < 0 || fstat(fd, &b) < 0)
		return false;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

bool netns_pin_same(const char *a, const char *b)
{
	struct stat sa, sb;
	if (stat(a, &sa) < 0 || stat(b, &sb) < 0)
		return false;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The mount id of fd, from /proc/self/fdinfo (kernels before 5.8). */
static int fd_mount_id(int fd, int *id, char **err)
{
	_cleanup_free_ char *path = xasprintf("/proc/self/fdinfo/%d", fd);
	_cleanup_free_ char *buf = NULL;
	size_t len;
	if (read_file(path, 65536, &buf, &len, NULL, err) < 0)
		return -1;
	const char *line = buf;
	while (line) {
		if (sscanf(line, "mnt_id: %d", id) == 1)
			return 0;
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return error_set(err, "%s: no mnt_id", path);
}

/* Is the directory open at fd the root of a mount? The answer in *yes. A
 * bind mount of a directory on itself has the st_dev of its parent, so
 * st_dev cannot tell: ask statx, else compare mount ids with the parent's. */
static int is_mount_point(int fd, bool *yes, char **err)
{
	struct statx stx;
	if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_INO, &stx) == 0 &&
	    (stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT)) {
		*yes = (stx.stx_attributes & STATX_ATTR_MOUNT_ROOT) != 0;
		return 0;
	}

	_cleanup_close_ int parent =
	    TEMP_FAILURE_RETRY(openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC));
	if (parent < 0)
		return error_set(err, "its parent: %m");
	int id, parent_id;
	if (fd_mount_id(fd, &id, err) < 0 || fd_mount_id(parent, &parent_id, err) < 0)
		return -1;
	if (id != parent_id) {
		*yes = true;
		return 0;
	}
	/* "/" is its own parent, and a mount root. */
	struct stat st, pst;
	if (fstat(fd, &st) < 0 || fstat(parent, &pst) < 0)
		return error_set(err, "fstat: %m");
	*yes = st.st_dev == pst.st_dev && st.st_ino == pst.st_ino;
	return 0;
}

#ifndef __NR_statmount
#define __NR_statmount 457
#endif
#define STATX_MNT_ID_UNIQUE_ 0x4000U
#define STATMOUNT_MNT_BASIC_ 0x2U

/* The start of the kernel's struct statmount (6.8), up to the propagation. */
struct statmount_basic {
	uint32_t size, spare1;
	uint64_t mask;
	uint32_t sb_dev_major, sb_dev_minor;
	uint64_t sb_magic;
	uint32_t sb_flags, fs_type;
	uint64_t mnt_id, mnt_parent_id;
	uint32_t mnt_id_old, mnt_parent_id_old;
	uint64_t mnt_attr, mnt_propagation, mnt_peer_group, mnt_master, propagate_from;
	uint32_t mnt_root, mnt_point;
	uint64_t spare2[50];
};

/* Is the directory open at fd the root of a shared mount already? Asked of
 * statmount(2) (Linux 6.8), a few system calls whatever the number of
 * mounts; false when the kernel cannot tell. */
static bool is_shared_mount_root(int fd)
{
	struct statx stx;
	if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_MNT_ID_UNIQUE_, &stx) < 0 ||
	    !(stx.stx_mask & STATX_MNT_ID_UNIQUE_) ||
	    !(stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) ||
	    !(stx.stx_attributes & STATX_ATTR_MOUNT_ROOT))
		return false;
	struct {
		uint32_t size, spare;
		uint64_t mnt_id, param;
	} req = {.size = 24, .mnt_id = stx.stx_mnt_id, .param = STATMOUNT_MNT_BASIC_};
	struct statmount_basic sm;
	memset(&sm, 0, sizeof(sm));
	if (syscall(__NR_statmount, &req, &sm, sizeof(sm), 0) < 0 ||
	    !(sm.mask & STATMOUNT_MNT_BASIC_))
		return false;
	return (sm.mnt_propagation & MS_SHARED) != 0;
}

/* Make dir a shared mount point: a bind mount of itself first if it is not
 * a mount point. Done once: a directory that is the root of a shared mount
 * already is left as it is (MS_SHARED|MS_REC walks every pin under it). Serialised by a lock on the
 * directory, so that two hooks starting at once do not both bind it. */
int netns_pin_share_dir(const char *dir, char **err)
{
	_cleanup_close_ int fd =
	    TEMP_FAILURE_RETRY(open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY));
	if (fd < 0)
		return error_set(err, "state directory \"%s\": %m", dir);
	if (TEMP_FAILURE_RETRY(flock(fd, LOCK_EX)) < 0)
		return error_set(err, "state directory \"%s\": lock: %m", dir);
	if (is_shared_mount_root(fd))
		return 0;
	bool mount_point;
	_cleanup_free_ char *e = NULL;
	if (is_mount_point(fd, &mount_point, &e) < 0)
		return error_set(
		    err, "state directory \"%s\": cannot tell whether it is a mount point: %s", dir,
		    e);
	bool bound = false;
	for (;;) {
		if (!mount_point) {
			if (mount(dir, dir, "none", MS_BIND | MS_REC, NULL) < 0)
				return error_set(
				    err, "state directory \"%s\": bind mount on itself: %m", dir);
			bound = true;
		}
		if (mount("none", dir, "none", MS_SHARED | MS_REC, NULL) == 0)
			return 0;
		/* EINVAL: not a mount point after all; bind it and retry
		 * once, as `ip netns add` does. */
		if (errno != EINVAL || bound)
			return error_set(err, "state directory \"%s\": make it a shared mount: %m",
					 dir);
		mount_point = false;
	}
}

int netns_pin(const char *state_dir, const char *source, const char *pin, char **err)
{
	/* Hold the namespace open from the check to the bind mount, and bind
	 * the very file that was checked. */
	_cleanup_close_ int ns = -1;
	_cleanup_free_ char *why = NULL;
	int r = open_nsfs(source, &ns, &why);
	if (r < 0)
		return error_set(err, "netns \"%s\": %s", source, why);
	if (r == 0 || !fd_is_netns(ns))
		return error_set(err, "netns \"%s\": not a network namespace", source);
	if (netns_pin_share_dir(state_dir, err) < 0)
		return -1;

	int fd = TEMP_FAILURE_RETRY(
	    open(pin, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW, 0444));
	if (fd < 0 && errno == EEXIST) {
		if (netns_pin_is_netns(pin) && same_as_fd(pin, ns))
			return 0;
		return error_set(err, "netns pin \"%s\": exists and is not the namespace \"%s\"",
				 pin, source);
	}
	if (fd < 0)
		return error_set(err, "netns pin \"%s\": %m", pin);
	close(fd);

	_cleanup_free_ char *from = xasprintf("/proc/self/fd/%d", ns);
	if (mount(from, pin, "none", MS_BIND, NULL) < 0) {
		int e = errno;
		unlink(pin);
		return error_set(err, "netns pin \"%s\": bind mount of \"%s\": %s", pin, source,
				 strerror(e));
	}
	if (!netns_pin_is_netns(pin) || !same_as_fd(pin, ns)) {
		umount2(pin, MNT_DETACH | UMOUNT_NOFOLLOW);
		unlink(pin);
		return error_set(err,
				 "netns pin \"%s\": the bind mount of \"%s\" is not that namespace",
				 pin, source);
	}
	return 0;
}

int netns_pin_remove(const char *pin, char **err)
{
	for (int i = 0;; i++) {
		if (umount2(pin, MNT_DETACH | UMOUNT_NOFOLLOW) == 0) {
			if (i < UNPIN_MAX)
				continue;
			return error_set(err, "netns pin \"%s\": still mounted after %d unmounts",
					 pin, UNPIN_MAX);
		}
		/* EINVAL: not (or no longer) a mount point. */
		if (errno == EINVAL || errno == ENOENT)
			break;
		return error_set(err, "netns pin \"%s\": unmount: %m", pin);
	}
	if (unlink(pin) < 0 && errno != ENOENT)
		return error_set(err, "netns pin \"%s\": remove: %m", pin);
	return 0;
}

int netns_pin_refuse_host(const char *path, char **err)
{
	struct stat ns, self, init;
	if (stat(path, &ns) < 0)
		return error_set(err, "network namespace \"%s\": %s", path, strerror(errno));
	if (stat("/proc/self/ns/net", &self) < 0)
		return error_set(err,
				 "cannot tell whether \"%s\" is the host's network namespace: "
				 "/proc/self/ns/net: %s",
				 path, strerror(errno));
	/* pid 1's namespace: where /proc/1 is readable (not always, as root
	 * in a container); cnihook's own is the host's when run by an engine. */
	bool init_known = stat("/proc/1/ns/net", &init) == 0;
	if ((ns.st_dev == self.st_dev && ns.st_ino == self.st_ino) ||
	    (init_known && ns.st_dev == init.st_dev && ns.st_ino == init.st_ino))
		return error_set(err,
				 "network namespace \"%s\" is the host's: refusing to attach "
				 "networks to it",
				 path);
	return 0;
}

/* ------------------------------------------------------------ pin index */

static char *pin_key(const char *state_dir, const struct stat *st)
{
	return layout_pin_entry(state_dir, st->st_dev, st->st_ino);
}

int netns_pin_index_add(const char *state_dir, const char *source, const char *id, char **err)
{
	struct stat st;
	if (stat(source, &st) < 0)
		return error_set(err, "netns \"%s\": %m", source);
	_cleanup_free_ char *dir = layout_pins_dir(state_dir);
	_cleanup_free_ char *key = pin_key(state_dir, &st);
	/* A remover may take the directory away between the two calls. */
	for (int i = 0; i < 8; i++) {
		if (mkdir(dir, 0700) < 0 && errno != EEXIST)
			return error_set(err, "pin index \"%s\": %m", dir);
		if (symlink(id, key) == 0)
			return 0;
		if (errno == EEXIST) {
			/* Another container's, or a stale one: the later pin wins
			 * (lookups check the pin it names). */
			_cleanup_free_ char *tmp = xasprintf("%s.%d.tmp", key, (int)getpid());
			unlink(tmp);
			if (symlink(id, tmp) == 0 && rename(tmp, key) == 0)
				return 0;
			unlink(tmp);
		}
		if (errno != ENOENT)
			return error_set(err, "pin index \"%s\": %m", key);
	}
	return error_set(err, "pin index \"%s\": the directory keeps disappearing", dir);
}

void netns_pin_index_remove(const char *state_dir, const char *pin, const char *id)
{
	struct stat st;
	if (stat(pin, &st) < 0)
		return;
	_cleanup_free_ char *key = pin_key(state_dir, &st);
	char target[256];
	ssize_t len = readlink(key, target, sizeof(target) - 1);
	if (len < 0)
		return;
	target[len] = '\0';
	if (strcmp(target, id) == 0)
		unlink(key);
	_cleanup_free_ char *dir = layout_pins_dir(state_dir);
	rmdir(dir); /* when empty */
}

/* The container whose pin the entry `name` of the index names, verified: a
 * new string, or NULL when the entry is stale. */
static char *index_holder(const char *state_dir, const char *key, const struct stat *ns)
{
	char target[256];
	ssize_t len = readlink(key, target, sizeof(target) - 1);
	if (len <= 0)
		return NULL;
	target[len] = '\0';
	if (strchr(target, '/') || target[0] == '.')
		return NULL;
	_cleanup_free_ char *pin = layout_pin(state_dir, target);
	struct stat st;
	if (ns == NULL)
		return stat(pin, &st) == 0 || errno != ENOENT ? xstrdup(target) : NULL;
	if (stat(pin, &st) < 0 || st.st_dev != ns->st_dev || st.st_ino != ns->st_ino)
		return NULL;
	return xstrdup(target);
}

bool netns_pin_index_find(const char *state_dir, const char *path, const char *id)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return false;
	_cleanup_free_ char *key = pin_key(state_dir, &st);
	_cleanup_free_ char *holder = index_holder(state_dir, key, &st);
	return holder && strcmp(holder, id) != 0;
}

static void forget_entry(int dfd, const char *name, void *data)
{
	const char *id = data;
	char target[256];
	ssize_t len = readlinkat(dfd, name, target, sizeof(target) - 1);
	if (len <= 0)
		return;
	target[len] = '\0';
	if (strcmp(target, id) == 0)
		unlinkat(dfd, name, 0);
}

void netns_pin_index_forget(const char *state_dir, const char *id)
{
	_cleanup_free_ char *dir = layout_pins_dir(state_dir);
	if (dir_each(dir, forget_entry, (void *)id) == 0)
		rmdir(dir);
}

static void sweep_entry(int dfd, const char *name, void *data)
{
	const char *state_dir = data;
	_cleanup_free_ char *key = layout_pin_entry_named(state_dir, name);
	_cleanup_free_ char *holder = index_holder(state_dir, key, NULL);
	if (holder == NULL)
		unlinkat(dfd, name, 0);
}

void netns_pin_index_sweep(const char *state_dir)
{
	_cleanup_free_ char *dir = layout_pins_dir(state_dir);
	if (dir_each(dir, sweep_entry, (void *)state_dir) == 0)
		rmdir(dir);
}
