/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What `status` and `list` show alike: a container as its users name it
 * (CONTAINER), and of an attach a killed hook left unfinished, what it
 * lacks (MISSING, the "missing" of JSON) and gc's verdict on it (GC).
 */
#ifndef CNIHOOK_CMD_COLUMNS_H
#define CNIHOOK_CMD_COLUMNS_H

#include <stdbool.h>

#include "base/util.h"
#include "state/unfinished.h"

/* Container `id` (a CNI_CONTAINERID) as users name it, from its name
 * (container_key_name(), or NULL): a containerd container as
 * "<namespace>/<id>" (its id cut, not its namespace), others by their id.
 * Ids are cut to 12 characters, as podman and runc users see them, unless
 * no_trunc. */
char *columns_container(const char *id, const char *name, bool no_trunc);
/* What is missing (UNFINISHED_NO_*): "cache,status", or "-" for nothing. */
char *columns_missing_text(unsigned m);
/* The same as a JSON array of words. */
json *columns_missing_json(unsigned m);
/* gc's verdict on u: "would-detach" or "kept:live". */
const char *columns_gc(const struct unfinished *u);

#endif
