/* SPDX-License-Identifier: Apache-2.0 */
/* An attach a killed hook left unfinished (unfinished.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/util.h"
#include "state/layout.h"
#include "state/netns-pin.h"
#include "state/unfinished.h"

static const char *const missing_words[] = {"record", "pin", "cache", "status"};

const char *unfinished_missing_word(size_t i)
{
	return i < ARRAY_SIZE(missing_words) ? missing_words[i] : NULL;
}

/* Whether the container `id` of the snapshot has a network status: one
 * fstatat(), relative to the state directory. */
static bool has_status(const struct snapshot *sd, const char *id)
{
	_cleanup_free_ char *rel = layout_status(NULL, id);
	struct stat st;
	return fstatat(sd->fd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT;
}

/* The cache entry of attachment (network, ifname) among u's, or NULL. */
const cnirt_cache_entry *unfinished_entry(const struct unfinished *u, const char *network,
					  const char *ifname)
{
	for (size_t i = 0; i < u->n; i++)
		if (strcmp(cnirt_cache_entry_network(u->v[i]), network) == 0 &&
		    strcmp(cnirt_cache_entry_ifname(u->v[i]), ifname) == 0)
			return u->v[i];
	return NULL;
}

/* What attachment (network, ifname) of u lacks (a cache entry looked up
 * among u's; network NULL: the container as a whole). */
unsigned unfinished_missing(const struct unfinished *u, const char *network, const char *ifname)
{
	unsigned m = u->status ? 0 : UNFINISHED_NO_STATUS;
	if (u->rec == NULL)
		m |= UNFINISHED_NO_RECORD;
	if (!u->pin)
		m |= UNFINISHED_NO_PIN;
	if (network == NULL || unfinished_entry(u, network, ifname) == NULL)
		m |= UNFINISHED_NO_CACHE;
	return m;
}

/* Read what cnihook holds of u->id in the state directory: its record,
 * whether its pin is one, its age. */
void unfinished_read(const char *state_dir, const struct snapshot *sd, struct unfinished *u)
{
	_cleanup_free_ char *rpath = layout_record(state_dir, u->id);
	_cleanup_free_ char *err = NULL;
	if (record_read(rpath, &u->rec, &err) < 0)
		u->rec = NULL; /* unreadable: gc reads it no better */
	_cleanup_free_ char *pin = layout_pin(state_dir, u->id);
	u->pin = netns_pin_is_netns(pin);
	struct stat st;
	_cleanup_free_ char *rrel = layout_record(NULL, u->id);
	if (fstatat(sd->fd, rrel, &st, 0) == 0 || fstatat(sd->fd, u->id, &st, 0) == 0)
		u->mtime = (long long)st.st_mtime;
	u->status = has_status(sd, u->id);
}

/* Judge u (its cache entries u->v set) as gc does; *w is read on first
 * use, once for all. */
void unfinished_judge(const char *state_dir, struct liveness_world **w, struct unfinished *u)
{
	if (*w == NULL)
		*w = liveness_world_read();
	const struct liveness_candidate lc = {u->id, true, u->v, u->n};
	u->gone = liveness_gone(state_dir, false, *w, &lc, &u->why);
}

void unfinished_free(struct unfinished *u)
{
	free(u->id);
	record_free(u->rec);
	free(u->v);
	free(u->why);
}

/* Whether u, read, lacks anything a finished attach has. */
bool unfinished_lacks(const struct unfinished *u)
{
	if (!u->status || u->rec == NULL || !u->pin)
		return true;
	for (size_t i = 0; i < u->rec->n; i++)
		if (unfinished_entry(u, u->rec->v[i].network, u->rec->v[i].ifname) == NULL)
			return true;
	return false;
}
