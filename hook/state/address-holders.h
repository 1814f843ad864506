/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Who holds an address an attachment asks for: a static IP (io.cnihook.ips,
 * NPWG "ips") or a MAC (io.cnihook.mac, NPWG "mac") that the cached result
 * of another container's attachment to the same network names. Both are
 * looked for per network: an IP is allocated in its network's IPAM, and a
 * MAC only collides on one link layer segment (the same MAC on another
 * network is no conflict). The caller (engine/attach.c) collects a holder
 * that gc would find gone, or refuses before any plugin runs.
 */
#ifndef CNIHOOK_STATE_ADDRESS_HOLDERS_H
#define CNIHOOK_STATE_ADDRESS_HOLDERS_H

#include <stdbool.h>
#include <stddef.h>

#include <cnirt.h>

#include "request/annotations.h"

/* Does the attachment ask for an address another one could hold (a static
 * IP or a MAC)? */
bool address_holders_asked(const struct attach_req *a);

/* An address asked for and the cache entry that holds it. */
struct holder_hit {
	const cnirt_cache_entry *entry; /* one of the entries searched */
	char *what;			/* "IP 10.1.2.3" or "MAC 02:00:00:00:00:01" */
};

/* The first of the n cache entries v[] of a container other than `self`
 * whose network is a's and whose cached result (any version, as converted
 * to 1.0.0) has an IP address a asks for (prefix lengths aside) or, on its
 * container interface, the MAC a asks for (case aside). 1 with *hit set
 * (free it with address_holders_hit_free()), 0 when none holds one. */
int address_holders_find(const struct attach_req *a, const char *self, cnirt_cache_entry *const *v,
			 size_t n, struct holder_hit *hit);
void address_holders_hit_free(struct holder_hit *hit);

#endif
