/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The network status of a container, <stateDir>/<id>/network-status.json
 * (layout_status()), in
 * the Network Plumbing WG `network-status` format: a list of {name,
 * interface, ips, mac, default, dns}.
 */
#ifndef CNIHOOK_NETSTATUS_H
#define CNIHOOK_NETSTATUS_H

#include <stdbool.h>
#include <stddef.h>

struct netstatus_entry {
	const char *network; /* "ns/name" or "name" */
	const char *ifname;
	bool is_default;
	const char *result; /* the attachment's CNI result (any version), or NULL */
};

/* The status document (pretty JSON text). */
char *netstatus_render(const struct netstatus_entry *v, size_t n);
int netstatus_write(const char *path, const struct netstatus_entry *v, size_t n, char **err);

#endif
