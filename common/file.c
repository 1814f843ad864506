/* SPDX-License-Identifier: Apache-2.0 */
/* Writing a file whole or not at all (common.h). */
#include "config.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"

/* Temp files: "." + a prefix of the name + ".tmpXXXXXX", within NAME_MAX,
 * so that a reader listing the directory can tell them from entries. */
#define TEMP_SUFFIX	".tmpXXXXXX"
#define TEMP_PREFIX_MAX (NAME_MAX - 1 - (sizeof(TEMP_SUFFIX) - 1))

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

int write_file_atomic_at(int dfd, const char *dir, const char *name, const char *data, size_t len,
			 int mode, bool sync, const char **step)
{
	size_t prefix = strlen(name);
	if (prefix > TEMP_PREFIX_MAX)
		prefix = TEMP_PREFIX_MAX;
	_cleanup_free_ char *tmp = xasprintf("%s/.%.*s" TEMP_SUFFIX, dir, (int)prefix, name);
	_cleanup_close_ int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		*step = "create";
		return -errno;
	}
	const char *tmp_name = strrchr(tmp, '/') + 1;
	int r = 0;
	if (fchmod(fd, (mode_t)mode) < 0)
		*step = "chmod", r = -errno;
	else if ((r = write_all(fd, data, len)) < 0)
		*step = "write";
	else if (sync && fdatasync(fd) < 0)
		*step = "fdatasync", r = -errno;
	else if (close(TAKE_FD(fd)) < 0)
		*step = "close", r = -errno;
	else if (renameat(dfd, tmp_name, dfd, name) < 0)
		*step = "rename", r = -errno;
	if (r < 0)
		unlinkat(dfd, tmp_name, 0);
	return r;
}

int write_file_atomic(const char *path, const char *data, size_t len, int mode, bool sync)
{
	const char *slash = strrchr(path, '/');
	_cleanup_free_ char *dir =
	    slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : xstrdup(".");
	_cleanup_close_ int dfd =
	    TEMP_FAILURE_RETRY(open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY));
	if (dfd < 0)
		return -errno;
	const char *step;
	return write_file_atomic_at(dfd, dir, slash ? slash + 1 : path, data, len, mode, sync,
				    &step);
}
