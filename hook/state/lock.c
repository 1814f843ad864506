/* SPDX-License-Identifier: Apache-2.0 */
/* The per-container lock and the result cache's. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"
#include "state/layout.h"
#include "state/lock.h"

/* Is the file fd has open still the one at path? The holder before us may
 * have removed it: a lock on a file nobody else will open is no lock. */
static bool still_linked(int fd, const char *path)
{
	struct stat a, b;
	return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_ino == b.st_ino &&
	       a.st_dev == b.st_dev;
}

int lock_path(const char *path, int *fd_out, char **err)
{
	for (;;) {
		int r, fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd < 0)
			return error_set(err, "lock %s: %s", path, strerror(errno));
		while ((r = flock(fd, LOCK_EX)) < 0 && errno == EINTR)
			;
		if (r < 0) {
			close(fd);
			return error_set(err, "lock %s: %s", path, strerror(errno));
		}
		/* Removed by the holder before us: take the new one. */
		if (still_linked(fd, path)) {
			*fd_out = fd;
			return 0;
		}
		close(fd);
	}
}

int lock_take(const char *state_dir, const char *id, int *fd_out, char **err)
{
	_cleanup_free_ char *e = NULL;
	if (dir_mkdir_p(state_dir, 0700, &e) < 0)
		return error_set(err, "state directory %s", e);
	_cleanup_free_ char *path = layout_lock(state_dir, id);
	return lock_path(path, fd_out, err);
}

int lock_try(const char *state_dir, const char *id, int *fd_out, char **err)
{
	_cleanup_free_ char *e = NULL;
	if (dir_mkdir_p(state_dir, 0700, &e) < 0)
		return error_set(err, "state directory %s", e);
	_cleanup_free_ char *path = layout_lock(state_dir, id);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return error_set(err, "lock %s: %s", path, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int busy = errno;
		close(fd);
		if (busy == EWOULDBLOCK)
			return 1;
		return error_set(err, "lock %s: %s", path, strerror(busy));
	}
	if (!still_linked(fd, path)) {
		close(fd);
		return 1; /* removed under us: someone was just done with it */
	}
	*fd_out = fd;
	return 0;
}

void lock_release(const char *state_dir, const char *id, int fd, bool remove)
{
	if (fd < 0)
		return;
	if (remove) {
		_cleanup_free_ char *path = layout_lock(state_dir, id);
		unlink(path);
	}
	close(fd);
}

int lock_results(const char *cache_dir, bool exclusive, int *fd_out, char **err)
{
	_cleanup_free_ char *dir = layout_results_dir(cache_dir);
	_cleanup_free_ char *e = NULL;
	if (dir_mkdir_p(dir, 0700, &e) < 0)
		return error_set(err, "cache directory %s", e);
	int r, fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return error_set(err, "lock %s: %s", dir, strerror(errno));
	while ((r = flock(fd, exclusive ? LOCK_EX : LOCK_SH)) < 0 && errno == EINTR)
		;
	if (r < 0) {
		int saved = errno;
		close(fd);
		return error_set(err, "lock %s: %s", dir, strerror(saved));
	}
	*fd_out = fd;
	return 0;
}
