/* SPDX-License-Identifier: Apache-2.0 */
/* `cnihook list`: the attachments of the result cache. */
#ifndef CNIHOOK_CMD_LIST_H
#define CNIHOOK_CMD_LIST_H

#include <stdbool.h>

#include "conf/hookconf.h"

/* Every attachment in the cache, whoever made it, and what gc makes of it:
 * a table, or JSON. */
int list_run(const struct hook_config *cfg, bool as_json, bool no_trunc);

#endif
