/* SPDX-License-Identifier: Apache-2.0 */
/* Reading a whole file or descriptor, with a limit (common.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

/* "larger than 16 MiB", "larger than 64 bytes" */
static int too_large(size_t limit, char **err)
{
	if (limit >= (1u << 20) && limit % (1u << 20) == 0) {
		*err = xasprintf("larger than %zu MiB", limit >> 20);
		return -1;
	}
	*err = xasprintf("larger than %zu bytes", limit);
	return -1;
}

/* read_all_fd(), and the errno of a failure in *errnum (EFBIG: the limit). */
static int read_fd(int fd, size_t limit, char **out, size_t *len, int *errnum, char **err)
{
	size_t cap = 4096, n = 0;
	_cleanup_free_ char *buf = xmalloc(cap);
	for (;;) {
		if (n + 1 >= cap) {
			cap *= 2;
			buf = xreallocarray(buf, cap, 1);
		}
		ssize_t r = TEMP_FAILURE_RETRY(read(fd, buf + n, cap - n - 1));
		if (r < 0) {
			*errnum = errno;
			*err = xstrdup(strerror(errno));
			return -1;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > limit) {
			*errnum = EFBIG;
			return too_large(limit, err);
		}
	}
	buf[n] = '\0';
	*out = TAKE_PTR(buf);
	*len = n;
	return 0;
}

int read_all_fd(int fd, size_t limit, char **out, size_t *len, char **err)
{
	int errnum;
	return read_fd(fd, limit, out, len, &errnum, err);
}

int read_file_at(int dirfd, const char *path, size_t limit, char **out, size_t *len, int *errnum,
		 char **err)
{
	int ignored;
	if (errnum == NULL)
		errnum = &ignored;
	_cleanup_close_ int fd =
	    TEMP_FAILURE_RETRY(openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY));
	if (fd < 0) {
		*errnum = errno;
		*err = xasprintf("%s: %s", path, strerror(errno));
		return -1;
	}
	_cleanup_free_ char *e = NULL;
	if (read_fd(fd, limit, out, len, errnum, &e) < 0) {
		*err = xasprintf("%s: %s", path, e);
		return -1;
	}
	return 0;
}

int read_file(const char *path, size_t limit, char **out, size_t *len, int *errnum, char **err)
{
	return read_file_at(AT_FDCWD, path, limit, out, len, errnum, err);
}
