/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The hook's state directory read once, for the commands that look at
 * every container (`status`, `list`): its names, sorted, each with its
 * type as readdir gave it, and a descriptor of it that its files are read
 * relative to. A name is then found by a binary search, not by a stat.
 */
#ifndef CNIHOOK_STATE_SNAPSHOT_H
#define CNIHOOK_STATE_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

/* listed: v holds every name (the directory was read, or is missing: then
 * none). fd is -1 when the directory cannot be opened at all. */
struct snapshot {
	int fd;
	bool listed;
	struct dir_entry *v; /* sorted by name */
	size_t n;
};

/* Read the state directory `path`. A missing one holds nothing. -1 with
 * *errnum when it cannot be listed; sd is then still open for reading by
 * name (O_PATH) when it can be, and not listed. */
int snapshot_open(const char *path, struct snapshot *sd, int *errnum);
void snapshot_close(struct snapshot *sd);
/* The entry `name`, or NULL (also when the directory was not listed). */
const struct dir_entry *snapshot_find(const struct snapshot *sd, const char *name);
/* Whether `name` is a directory (symbolic links followed, as stat()). */
bool snapshot_is_dir(const struct snapshot *sd, const char *name);
/* Whether the entry is a container's: a directory (not a symbolic link)
 * whose name layout_is_container_name(). */
bool snapshot_is_container(const struct snapshot *sd, const struct dir_entry *f);

#endif
