/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The network status of a container, <stateDir>/<id>/network-status.json
 * (layout_status()), in
 * the Network Plumbing WG `network-status` format: a list of {name,
 * interface, ips, mac, default, dns}.
 */
#ifndef CNIHOOK_STATE_NETWORK_STATUS_H
#define CNIHOOK_STATE_NETWORK_STATUS_H

#include <stdbool.h>
#include <stddef.h>

struct network_status_entry {
	const char *network; /* "ns/name" or "name" */
	const char *ifname;
	bool is_default;
	const char *result; /* the attachment's CNI result (any version), or NULL */
};

/* The status document (pretty JSON text). */
char *network_status_render(const struct network_status_entry *v, size_t n);
int network_status_write(const char *path, const struct network_status_entry *v, size_t n,
			 char **err);
/* Rewrite the entry of the status at `path` whose name and interface are
 * e's from e's result (its "default" kept), the others as they are. */
int network_status_update(const char *path, const struct network_status_entry *e, char **err);

/* A result (any version) in 1.0.0 form (ips[].address, interfaces[]), or
 * NULL when it cannot be converted. */
struct json;
struct json *network_status_result_v1(const char *result);
/* In such a result: the MAC of the container's interface `ifname` (the one
 * with a sandbox), or NULL; *ifindex its index, or -1. */
const char *network_status_result_mac(const struct json *r, const char *ifname, long *ifindex);
/* Is ips[] element `ip` an address of the interface at ifindex (-1: any)? */
bool network_status_ip_of(const struct json *ip, long ifindex);

/* The first address of entry `index` of the status at path (allocated), or
 * NULL (*err). A hook's status has one entry per attachment, in the
 * selection's order. */
char *network_status_first_ip(const char *path, size_t index, char **err);

#endif
