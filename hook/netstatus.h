/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The network status of a container, <stateDir>/<id>/network-status.json, in
 * the Network Plumbing WG `network-status` format: a list of {name,
 * interface, ips, mac, default, dns}.
 */
#ifndef CNIHOOK_NETSTATUS_H
#define CNIHOOK_NETSTATUS_H

#include <stdbool.h>
#include <stddef.h>

struct status_entry {
	const char *network; /* "ns/name" or "name" */
	const char *ifname;
	bool is_default;
	const char *result; /* the attachment's CNI result (any version), or NULL */
};

char *status_path(const char *state_dir, const char *id);
/* The status document (pretty JSON text). */
char *status_render(const struct status_entry *v, size_t n);
int status_write(const char *path, const struct status_entry *v, size_t n, char **err);

#endif
