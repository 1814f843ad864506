/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ADD journal (<stateDir>/<id>/journal/<network>:<ifname>, as layout.h
 * names them): the running result of an attachment's ADD, written after
 * each plugin's ADD and before the next plugin starts
 * (cnirt_ctx_set_add_step()), and removed once the result cache holds the
 * finished ADD. A hook killed in the middle of an ADD leaves it, and the
 * recovery DEL (poststop, gc, the next attach of the id) gives it as
 * prevResult (cnirt_del_with_result()), so that the plugins that need
 * prevResult to find what they made (firewall, portmap, bandwidth, ...)
 * find it. Written by rename, not synced: the state directory is on /run,
 * gone at a reboot together with the kernel state the journal describes.
 * It is never a cache entry, which other runtimes would take for a
 * finished ADD.
 */
#ifndef CNIHOOK_STATE_JOURNAL_H
#define CNIHOOK_STATE_JOURNAL_H

#include <stddef.h>

/* Write the running result (len bytes of JSON). 0, or -1 and *err. */
int journal_write(const char *state_dir, const char *id, const char *network, const char *ifname,
		  const char *result, size_t len, char **err);
/* Read it: 0 with *result NULL when there is none; -1 and *err when it
 * cannot be read. */
int journal_read(const char *state_dir, const char *id, const char *network, const char *ifname,
		 char **result, char **err);
/* Remove one attachment's journal (absent is fine). */
void journal_remove(const char *state_dir, const char *id, const char *network, const char *ifname);
/* Remove every journal of the container and the journal directory. */
void journal_clear(const char *state_dir, const char *id);

#endif
