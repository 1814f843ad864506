/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What one attachment of a selection gives its network's plugins: the
 * capability arguments (CONVENTIONS.md: portMappings, mac, ips, bandwidth,
 * infinibandGUID; the runtimeConfig that libcnirt derives for each plugin
 * that declares the capability) and the CNI_ARGS pairs.
 */
#ifndef CNIHOOK_CAPARGS_H
#define CNIHOOK_CAPARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "request/annotations.h"

/* Does the chain of an attachment's network declare capability `cap`? */
typedef bool (*has_capability_fn)(void *data, const char *cap);

/* The capability arguments (JSON object text, or NULL when none) and the
 * CNI_ARGS pairs of attachment i, for a network whose chain declares what
 * has_cap says: portMappings, mac, ips, bandwidth, infinibandGUID become
 * capability arguments for chains that declare them; a chain that declares
 * no `ips`/`mac` gets IP=/MAC= in CNI_ARGS instead; a field no plugin can
 * take is refused. CNI_ARGS: IgnoreUnknown=1, IP=, MAC=, the user's pairs,
 * then the K8S_POD_* pairs. */
int plugin_args_build(const struct selection *s, size_t i, has_capability_fn has_cap, void *data,
		      char **cap_args, struct kvlist *args, char **err);

#endif
