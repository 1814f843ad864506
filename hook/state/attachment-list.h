/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The names of a container's cache entries, kept beside the cache:
 * <cacheDir>/cnihook-attachments/<id> (layout_attachment_list()), one
 * "<network> TAB <ifname>" a line.
 * Written before the first plugin of an attach runs and removed with the
 * rest of the container's state, so that a poststop whose state directory
 * was wiped finds the container's entries by name (libcni's file names,
 * "<network>-<id>-<ifname>") instead of reading every name of the cache.
 * It names a superset of the entries: an entry is only ever looked up by
 * it, never trusted for what it holds.
 */
#ifndef CNIHOOK_STATE_ATTACHMENT_LIST_H
#define CNIHOOK_STATE_ATTACHMENT_LIST_H

#include <stdbool.h>
#include <stddef.h>

struct record;

struct attachment_list_entry {
	const char *network;
	const char *ifname;
};

struct attachment_list {
	char *buf; /* the file, split in place */
	struct attachment_list_entry *v;
	size_t n;
};

/* Write the list of rec's attachments for `id` (atomically). */
int attachment_list_write(const char *cache_dir, const char *id, const struct record *rec,
			  char **err);
/* 1 and the list when there is one, 0 when there is none, -1 when it
 * cannot be read (*err). */
int attachment_list_read(const char *cache_dir, const char *id, struct attachment_list *out,
			 char **err);
void attachment_list_free(struct attachment_list *l);
/* Remove the list of `id` (none is no error), and its directory when it
 * is empty. */
void attachment_list_remove(const char *cache_dir, const char *id);
/* Remove the lists of the containers `alive` says are gone (not temp
 * files: file_temps_sweep(), common.h), and the directory when empty. */
void attachment_list_sweep(const char *cache_dir, bool (*alive)(void *data, const char *id),
			   void *data);

#endif
