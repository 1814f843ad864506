/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A container of the state directory whose attach did not finish (the hook
 * was killed: no network status, perhaps no cache entry), or is under way
 * (docs/architecture.md, "What the tools show of an unfinished attach"):
 * what cnihook holds of it (its attachment record, the pin, the status
 * file, its cache entries as the caller found them), what a finished
 * attach has that it lacks, and gc's verdict on it (liveness.h, the rules
 * gc itself applies). `status` finds them by their missing status file,
 * `list` by the lock a killed hook leaves beside the directory; only these
 * cost more: their record is read and judged.
 */
#ifndef CNIHOOK_STATE_UNFINISHED_H
#define CNIHOOK_STATE_UNFINISHED_H

#include <stdbool.h>
#include <stddef.h>

#include <cnirt.h>

#include "state/liveness.h"
#include "state/record.h"
#include "state/snapshot.h"

struct unfinished {
	char *id;
	struct record *rec;
	bool pin, status;
	long long mtime;	     /* of the record, else of the directory */
	const cnirt_cache_entry **v; /* its cache entries (the caller's) */
	size_t n;
	bool gone;
	char *why;
};

/* What an unfinished attach lacks, in the order an attach writes them. */
enum {
	UNFINISHED_NO_RECORD = 1,
	UNFINISHED_NO_PIN = 2,
	UNFINISHED_NO_CACHE = 4,
	UNFINISHED_NO_STATUS = 8,
};
/* The word `status` and `list` show for bit i of a mask of them ("record",
 * "pin", "cache", "status"), NULL past the last. */
const char *unfinished_missing_word(size_t i);

/* Read what cnihook holds of u->id in the state directory (sd, at
 * state_dir): its record, whether its pin is one and it has a status file,
 * its age. */
void unfinished_read(const char *state_dir, const struct snapshot *sd, struct unfinished *u);
/* Judge u (its cache entries u->v set) as gc does; *w is read on first
 * use, once for all. */
void unfinished_judge(const char *state_dir, struct liveness_world **w, struct unfinished *u);
/* The cache entry of attachment (network, ifname) among u's, or NULL. */
const cnirt_cache_entry *unfinished_entry(const struct unfinished *u, const char *network,
					  const char *ifname);
/* What attachment (network, ifname) of u lacks (a cache entry looked up
 * among u's; network NULL: the container as a whole): UNFINISHED_NO_*. */
unsigned unfinished_missing(const struct unfinished *u, const char *network, const char *ifname);
/* Whether u, read, lacks anything a finished attach has. */
bool unfinished_lacks(const struct unfinished *u);
void unfinished_free(struct unfinished *u);

#endif
