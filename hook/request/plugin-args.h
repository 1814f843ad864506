/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What one attachment of a selection gives its network's plugins: the
 * capability arguments (CONVENTIONS.md: portMappings, mac, ips, bandwidth,
 * infinibandGUID; the runtimeConfig that libcnirt derives for each plugin
 * that declares the capability) and the CNI_ARGS pairs.
 */
#ifndef CNIHOOK_REQUEST_PLUGIN_ARGS_H
#define CNIHOOK_REQUEST_PLUGIN_ARGS_H

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

/* The plugin that takes the container's name, and the CNI_ARGS key it takes
 * it as: dnsname (dnsmasq per network, answering the containers' names)
 * reads K8S_POD_NAME, a key that other plugins (Calico) take as a sign of
 * a Kubernetes pod, so it is given to the plugins of this type alone
 * (cnirt_ctx_set_plugin_args()), in ADD and DEL. */
#define PLUGIN_ARGS_NAME_TYPE "dnsname"
#define PLUGIN_ARGS_NAME_KEY  "K8S_POD_NAME"
/* Is `name` a name PLUGIN_ARGS_NAME_TYPE takes: a DNS name (labels of
 * letters, digits and '-', separated by '.', at most 253 characters), as
 * dnsmasq's hosts file and CNI_ARGS take it? -1 and the problem if not. */
int plugin_args_check_name(const char *name, char **problem);
/* The pairs for PLUGIN_ARGS_NAME_TYPE: `name` (io.cnihook.name, else
 * config.json's hostname; NULL: none). -1 and the problem when it is none
 * or not a name it takes. */
int plugin_args_name(const char *name, struct kvlist *args, char **problem);
/* Give `name` to the plugins of type PLUGIN_ARGS_NAME_TYPE, and to them
 * alone, in every operation of ctx (cnirt_ctx_set_plugin_args()); NULL:
 * take back a name given before. -1 and the problem (plugin_args_name()'s)
 * otherwise, ctx unchanged. */
struct cnirt_ctx;
int plugin_args_give_name(struct cnirt_ctx *ctx, const char *name, char **problem);

#endif
