/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A container's key, what names it in the state directory and the cache,
 * and the names an operator gives it: a containerd container is
 * "<namespace>/<id>" to its users and "<namespace>-<id>" here, any other
 * (podman's, CRI-O's, runc's) its id. For the commands that take a
 * container on the command line (`status`, `reload`) and those that show
 * one (`status`, `list`).
 */
#ifndef CNIHOOK_STATE_CONTAINER_KEY_H
#define CNIHOOK_STATE_CONTAINER_KEY_H

#include "state/snapshot.h"

/* A container as the operator names it ("<namespace>/<id>" or an id,
 * checked as a container id) made the key it has in the state directory. */
int container_key_parse(const char *arg, char **out, char **err);
/* The container of the state directory sd that `key` names: itself, or the
 * one whose id starts with it, or the one containerd container of that id
 * in any namespace; an error says none or which ones. *out points into sd. */
int container_key_resolve(const struct snapshot *sd, const char *key, const char **out, char **err);
/* The name container `key` of sd has for its users when that is not its
 * key ("<namespace>/<id>", record_name_read()), or NULL. Costs nothing
 * when sd's listing shows it has none. */
char *container_key_name(const struct snapshot *sd, const char *key);

#endif
