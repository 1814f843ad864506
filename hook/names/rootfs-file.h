/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Putting a names file (resolv.conf, hosts) in front of a container without
 * writing outside it (cnihook(8), NAMES; docs/architecture.md, "Names"):
 *
 * - an engine's per-container file that config.json bind-mounts writable
 *   (podman's and CRI-O's <storage>/<driver>-containers/<id>/userdata/hosts,
 *   Docker's <data-root>/containers/<id>/hosts) is rewritten in place, same
 *   inode, only when its path has that shape with the container's id, it
 *   is a regular file with one link, not the host's own file, and its file
 *   system is writable;
 * - else a file of cnihook's, alone on a small tmpfs of its own that no
 *   path of the host reaches (rootfs_file_private()), is bind-mounted
 *   read-only onto the path in the rootfs, inside the container's mount
 *   namespace, by a child that enters it: the target resolved with
 *   openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS) (a symbolic link stays
 *   inside the rootfs), only a regular file on the rootfs's own mount (not
 *   a volume, not a mount point of its own), only when that mount does not
 *   propagate (not shared: a mount there would reach its peers, the host's
 *   among them), a missing one created empty as the runtime creates its
 *   own mount points (a read-only root.readonly rootfs too, not a
 *   read-only file system); the mount a detached clone moved onto an
 *   O_PATH descriptor of the target. Nothing of the rootfs is opened for
 *   reading or writing.
 *
 * Each returns 0 done, 1 left alone (*err says why: not cnihook's to
 * touch), -1 failed (*err).
 */
#ifndef CNIHOOK_NAMES_ROOTFS_FILE_H
#define CNIHOOK_NAMES_ROOTFS_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The largest engine file read. */
#define ROOTFS_ENGINE_FILE_MAX (1024 * 1024)

/* Is `path` the engine's own per-container file `name` ("hosts",
 * "resolv.conf") of container `oci_id`, by its shape: .../<driver>-containers/
 * <oci_id>/userdata/<name> (containers/storage: podman, CRI-O) or
 * .../containers/<oci_id>/<name> (Docker)? */
bool rootfs_file_engine_path(const char *path, const char *oci_id, const char *name);
/* Open the engine's file `path` (mounted at /etc/`name`) of container
 * `oci_id` for a rewrite in place: *fd (read-write) and its text in
 * *text. */
int rootfs_file_engine_open(const char *path, const char *oci_id, const char *name, int *fd,
			    char **text, char **err);
/* Replace the whole content of the file open as fd (same inode). */
int rootfs_file_engine_write(int fd, const char *text, char **err);

/* What rootfs_file_bind() needs. */
struct rootfs_target {
	pid_t pid;	  /* a process in the container's mount namespace */
	const char *root; /* the rootfs, absolute, as that namespace sees it */
	const char *dir;  /* "etc" */
	const char *name; /* "resolv.conf", "hosts" */
};
/* A detached, read-only mount of a file holding `text`, owned by uid:gid,
 * alone on a tmpfs of its own sized to the text (a container that
 * remounts it writable cannot grow it, and no file of the host is
 * behind it): its descriptor, or -1 (*err). */
int rootfs_file_private(const char *text, uid_t uid, gid_t gid, char **err);
/* Mount `tree` (rootfs_file_private()) onto dir/name in the rootfs, in the
 * mount namespace of t->pid. */
int rootfs_file_bind(const struct rootfs_target *t, int tree, char **err);

#endif
