/* SPDX-License-Identifier: Apache-2.0 */
/* `cnihook status [ID]`: the network status of the hook's containers. */
#ifndef CNIHOOK_CMD_STATUS_H
#define CNIHOOK_CMD_STATUS_H

#include <stdbool.h>

#include "conf/hookconf.h"
#include "host/rootless-netns.h"

/* The network status of one container (id, or a prefix of one id) or of
 * every container the hook attached (id NULL): a table, or JSON. Tables
 * show ids cut to 12 characters unless no_trunc. `rl`: a rootless
 * user, whose containers show "forwarder" MISSING when their forwarder's
 * pid file names no running process, and the table of all, the user's
 * slirp4netns and watch after it; NULL for root. Returns the exit
 * status. */
int status_run(const struct hook_config *cfg, const char *id, bool as_json, bool no_trunc,
	       const struct rootless_user *rl);

#endif
