/* SPDX-License-Identifier: Apache-2.0 */
/* A directory's names, sorted (common.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"

int dir_entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct dir_entry *)a)->name, ((const struct dir_entry *)b)->name);
}

void dir_entries_free(struct dir_entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

int dir_list_sorted(int dfd, bool (*keep)(const char *name, void *data), void *data,
		    struct dir_entry **out, size_t *n_out)
{
	int fd = TEMP_FAILURE_RETRY(fcntl(dfd, F_DUPFD_CLOEXEC, 3));
	if (fd < 0)
		return -errno;
	_cleanup_closedir_ DIR *d = fdopendir(fd);
	if (d == NULL) {
		int e = errno;
		close(fd);
		return -e;
	}
	rewinddir(d); /* the copy shares dfd's offset */
	struct dir_entry *v = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		errno = 0;
		struct dirent *de = readdir(d);
		if (de == NULL)
			break;
		if (keep && !keep(de->d_name, data))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			v = xreallocarray(v, cap, sizeof(*v));
		}
		v[n++] = (struct dir_entry){xstrdup(de->d_name), de->d_type};
	}
	if (errno != 0) {
		int e = errno;
		dir_entries_free(v, n);
		return -e;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), dir_entry_cmp);
	*out = v;
	*n_out = n;
	return 0;
}

int dir_each(const char *path, void (*fn)(int dfd, const char *name, void *data), void *data)
{
	_cleanup_closedir_ DIR *d = opendir(path);
	if (d == NULL)
		return -errno;
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			fn(dirfd(d), de->d_name, data);
	return 0;
}

int dir_mkdir_p(const char *path, int mode, char **err)
{
	struct stat there;
	if (stat(path, &there) == 0 && S_ISDIR(there.st_mode))
		return 0; /* the common case: one system call */
	_cleanup_free_ char *p = xstrdup(path);
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, (mode_t)mode) < 0 && errno != EEXIST) {
			*err = xasprintf("%s: %s", path, strerror(errno));
			return -1;
		}
		*s = c;
		if (c == '\0')
			break;
	}
	return 0;
}
