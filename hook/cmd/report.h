/* SPDX-License-Identifier: Apache-2.0 */
/* What is attached: `cnihook status [ID]` and `cnihook list`. */
#ifndef CNIHOOK_CMD_REPORT_H
#define CNIHOOK_CMD_REPORT_H

#include <stdbool.h>

#include "conf/hookconf.h"

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

#endif
