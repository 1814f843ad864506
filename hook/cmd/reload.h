/* SPDX-License-Identifier: Apache-2.0 */
/* `cnihook reload [ID...]`: CHECK the hook's attachments, re-apply those
 * that fail with their addresses and MAC. */
#ifndef CNIHOOK_CMD_RELOAD_H
#define CNIHOOK_CMD_RELOAD_H

#include <stddef.h>

#include "conf/hookconf.h"

/* Every container the hook attached (n 0), or those the ids name (as
 * `status` names them: an id, a unique prefix, "<namespace>/<id>"): one
 * line per attachment on stdout. Returns the exit status: 0 when every
 * attachment is ok or was reloaded, 1 otherwise, 2 for an id that is no
 * container id. */
int reload_run(const struct hook_config *cfg, char *const *ids, size_t n);

#endif
