/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The per-container lock: <stateDir>/<id>.lock, held with flock(2) for the
 * length of a stage, so that the stages of one container never run at once
 * while different containers proceed in parallel.
 *
 * The result cache's lock: <cacheDir>/results itself, flock(2)ed (no file
 * of its own): shared by an attach while its plugins ADD and its entries
 * are written, exclusive for gc while it reads the attachments it sends
 * with the GC verb and sends it, so that the list holds every ADD that ran
 * (a plugin's GC frees what is not in it).
 */
#ifndef CNIHOOK_STATE_LOCK_H
#define CNIHOOK_STATE_LOCK_H

#include <stdbool.h>

/* flock(2) the file at `path` (created 0600 if missing), waiting; the lock is
 * held on the file the path names when it returns (a holder may remove the
 * file before releasing it). */
int lock_path(const char *path, int *fd, char **err);
/* Take the lock (waits). Creates the state directory (0700) if needed. */
int lock_take(const char *state_dir, const char *id, int *fd, char **err);
/* Same, without waiting: 1 (and no lock) when another process holds it. */
int lock_try(const char *state_dir, const char *id, int *fd, char **err);
/* Release it; with `remove`, the lock file is removed first (while held). */
void lock_release(const char *state_dir, const char *id, int fd, bool remove);
/* Take the result cache's lock (waits), shared or exclusive. The directory
 * is made (0700) if missing. Released by closing *fd. */
int lock_results(const char *cache_dir, bool exclusive, int *fd, char **err);

#endif
