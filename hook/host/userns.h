/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The user namespace cnihook runs in. Rootless podman runs its hooks as
 * uid 0 of the user's namespace: every capability, but in that namespace
 * only, so nothing of the host's (its network namespace, /run, /var/lib/cni)
 * can be changed from there.
 */
#ifndef CNIHOOK_HOST_USERNS_H
#define CNIHOOK_HOST_USERNS_H

#include <stdbool.h>

/* Does the process run in the host's user namespace (its uid_map maps the
 * whole range onto itself)? An unreadable map counts as the host's, as on
 * kernels without user namespaces. */
bool userns_is_host(void);
/* Where the process runs, for messages: "the host's user namespace", or
 * "a user namespace (uid 0 is host uid 1001)" (allocated). */
char *userns_describe(void);

/* NULL when the process is root in the host's user namespace, else why
 * not, for a message (allocated): "it runs as uid 1000", or "it runs as
 * uid 0 of a user namespace (its uid 0 is host uid 1001)". */
char *userns_not_host_root(void);

#endif
