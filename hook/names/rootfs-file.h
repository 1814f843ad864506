/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Putting a names file (resolv.conf, hosts) in front of a container without
 * writing outside it (cnihook(8), NAMES; docs/architecture.md, "Names"):
 *
 * - an engine's per-container file that config.json bind-mounts (podman's
 *   userdata/hosts) is rewritten in place, same inode, only when it is a
 *   regular file with one link, not the host's own file, and its path has
 *   the container's id as a component;
 * - else a file of cnihook's is bind-mounted read-only onto the path in the
 *   rootfs, inside the container's mount namespace, by a child that enters
 *   it: the target resolved with openat2(RESOLVE_IN_ROOT |
 *   RESOLVE_NO_MAGICLINKS) (a symbolic link stays inside the rootfs), only
 *   a regular file, a missing one created empty where the rootfs allows;
 *   the mount a detached clone (open_tree) moved onto an O_PATH descriptor
 *   of the target. Nothing of the rootfs is opened for reading or writing.
 *
 * Each returns 0 done, 1 left alone (*err says why: not cnihook's to
 * touch), -1 failed (*err).
 */
#ifndef CNIHOOK_ROOTFS_FILE_H
#define CNIHOOK_ROOTFS_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The largest engine file read. */
#define ROOTFS_ENGINE_FILE_MAX (1024 * 1024)

/* Open the engine's file `path` of container `oci_id` for a rewrite in
 * place: *fd (read-write) and its text in *text. */
int rootfs_engine_open(const char *path, const char *oci_id, int *fd, char **text, char **err);
/* Replace the whole content of the file open as fd (same inode). */
int rootfs_engine_write(int fd, const char *text, char **err);

/* Does `path` (a component list) have `name` as one of its components? */
bool rootfs_path_has_component(const char *path, const char *name);

/* What rootfs_bind() needs. */
struct rootfs_target {
	pid_t pid;	  /* a process in the container's mount namespace */
	const char *root; /* the rootfs, absolute, as that namespace sees it */
	bool readonly;	  /* config.json root.readonly: nothing created */
	const char *dir;  /* "etc" */
	const char *name; /* "resolv.conf", "hosts" */
};
/* Bind-mount `source` (a file of cnihook's) read-only onto dir/name in the
 * rootfs, in the mount namespace of t->pid. */
int rootfs_bind(const struct rootfs_target *t, const char *source, char **err);

#endif
