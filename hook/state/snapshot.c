/* SPDX-License-Identifier: Apache-2.0 */
/* The hook's state directory read once (snapshot.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"
#include "state/layout.h"
#include "state/snapshot.h"

void snapshot_close(struct snapshot *sd)
{
	dir_entries_free(sd->v, sd->n);
	if (sd->fd >= 0)
		close(sd->fd);
	*sd = (struct snapshot){.fd = -1};
}

int snapshot_open(const char *path, struct snapshot *sd, int *errnum)
{
	*sd = (struct snapshot){.fd = -1};
	int fd = TEMP_FAILURE_RETRY(open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	if (fd < 0 && errno == ENOENT) {
		sd->listed = true;
		return 0;
	}
	if (fd < 0) {
		*errnum = errno;
	} else {
		int r = dir_list_sorted(fd, NULL, NULL, &sd->v, &sd->n);
		if (r == 0) {
			sd->fd = fd;
			sd->listed = true;
			return 0;
		}
		close(fd);
		*errnum = -r;
	}
	snapshot_close(sd);
	sd->fd = TEMP_FAILURE_RETRY(open(path, O_PATH | O_DIRECTORY | O_CLOEXEC));
	return -1;
}

const struct dir_entry *snapshot_find(const struct snapshot *sd, const char *name)
{
	struct dir_entry key = {.name = (char *)name};
	return sd->listed && sd->n ? bsearch(&key, sd->v, sd->n, sizeof(*sd->v), dir_entry_cmp)
				   : NULL;
}

bool snapshot_is_dir(const struct snapshot *sd, const char *name)
{
	const struct dir_entry *f = snapshot_find(sd, name);
	if (sd->listed && (f == NULL || (f->type != DT_LNK && f->type != DT_UNKNOWN)))
		return f && f->type == DT_DIR;
	struct stat st;
	return sd->fd >= 0 && fstatat(sd->fd, name, &st, 0) == 0 && S_ISDIR(st.st_mode);
}

bool snapshot_is_container(const struct snapshot *sd, const struct dir_entry *f)
{
	struct stat st;
	bool dir = f->type == DT_DIR ||
		   (f->type == DT_UNKNOWN && sd->fd >= 0 &&
		    fstatat(sd->fd, f->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode));
	return dir && layout_is_container_name(f->name);
}
