/* SPDX-License-Identifier: Apache-2.0 */
/* The hook's state directory read once (snapshot.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cnirt.h>

#include "base/util.h"
#include "state/layout.h"
#include "state/snapshot.h"

static int compare_names(const void *a, const void *b)
{
	return strcmp(((const struct snapshot_name *)a)->name,
		      ((const struct snapshot_name *)b)->name);
}

void snapshot_close(struct snapshot *sd)
{
	for (size_t i = 0; i < sd->n; i++)
		free(sd->v[i].name);
	free(sd->v);
	if (sd->fd >= 0)
		close(sd->fd);
	*sd = (struct snapshot){.fd = -1};
}

/* The names of the directory open as fd (which it keeps, as sd->fd);
 * errno set on failure. */
static int list_names(int fd, struct snapshot *sd)
{
	DIR *d = fdopendir(fd);
	if (d == NULL) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	size_t cap = 0;
	struct dirent *de;
	errno = 0;
	while ((de = readdir(d)) != NULL) {
		if (sd->n == cap) {
			cap = cap ? 2 * cap : 256;
			sd->v = xreallocarray(sd->v, cap, sizeof(*sd->v));
		}
		sd->v[sd->n++] = (struct snapshot_name){xstrdup(de->d_name), de->d_type};
	}
	int e = errno;
	sd->fd = TEMP_FAILURE_RETRY(fcntl(dirfd(d), F_DUPFD_CLOEXEC, 3));
	closedir(d);
	if (e == 0 && sd->fd < 0)
		e = errno;
	errno = e;
	return e == 0 ? 0 : -1;
}

int snapshot_open(const char *path, struct snapshot *sd, int *errnum)
{
	*sd = (struct snapshot){.fd = -1};
	int fd = TEMP_FAILURE_RETRY(open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	if (fd < 0 && errno == ENOENT) {
		sd->listed = true;
		return 0;
	}
	if (fd >= 0 && list_names(fd, sd) == 0) {
		sd->listed = true;
		if (sd->n > 1)
			qsort(sd->v, sd->n, sizeof(*sd->v), compare_names);
		return 0;
	}
	*errnum = errno;
	snapshot_close(sd);
	sd->fd = TEMP_FAILURE_RETRY(open(path, O_PATH | O_DIRECTORY | O_CLOEXEC));
	return -1;
}

const struct snapshot_name *snapshot_find(const struct snapshot *sd, const char *name)
{
	struct snapshot_name key = {.name = (char *)name};
	return sd->listed && sd->n ? bsearch(&key, sd->v, sd->n, sizeof(*sd->v), compare_names)
				   : NULL;
}

bool snapshot_is_dir(const struct snapshot *sd, const char *name)
{
	const struct snapshot_name *f = snapshot_find(sd, name);
	if (sd->listed && (f == NULL || (f->type != DT_LNK && f->type != DT_UNKNOWN)))
		return f && f->type == DT_DIR;
	struct stat st;
	return sd->fd >= 0 && fstatat(sd->fd, name, &st, 0) == 0 && S_ISDIR(st.st_mode);
}

bool snapshot_is_container(const struct snapshot *sd, const struct snapshot_name *f)
{
	struct stat st;
	bool dir = f->type == DT_DIR ||
		   (f->type == DT_UNKNOWN && sd->fd >= 0 &&
		    fstatat(sd->fd, f->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode));
	return dir && layout_is_container_name(f->name);
}
