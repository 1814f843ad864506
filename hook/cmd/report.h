/* SPDX-License-Identifier: Apache-2.0 */
/* What is attached: `cnihook status [ID]` and `cnihook list`. */
#ifndef CNIHOOK_INVENTORY_H
#define CNIHOOK_INVENTORY_H

#include <stdbool.h>

#include "base/hookconf.h"

/* The network status of one container (id, or a prefix of one id) or of
 * every container the hook attached (id NULL): a table, or JSON. Tables
 * show ids cut to 12 characters unless no_trunc. `forwarders`: a rootless
 * user's forwarders/ directory (host/rootless-netns.h), whose pid files
 * name a forwarder that is not running show "forwarder" MISSING; NULL for
 * root. Returns the exit status. */
int report_status(const struct hook_config *cfg, const char *id, bool as_json, bool no_trunc,
		  const char *forwarders);
/* Every attachment in the cache, whoever made it, and what gc makes of it:
 * a table, or JSON. */
int report_list(const struct hook_config *cfg, bool as_json, bool no_trunc);

/* A container as status names it ("<namespace>/<id>" or an id, checked
 * as a container id) made the key it has in the state directory. */
int report_key(const char *arg, char **out, char **err);
/* The container of the state directory sd that `key` names: itself, or the
 * one whose id starts with it; an error says none or which ones. */
struct snapshot;
int report_resolve(const struct snapshot *sd, const char *key, const char **out, char **err);

struct cnirt_ctx;
/* The full path of the cache file `name` (of cnirt_cache_list_damaged()),
 * escaped for a message but never cut, so that it can be removed by hand. */
char *report_cache_file_shown(const struct cnirt_ctx *ctx, const char *name);

#endif
