/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Host port reservations: a port mapping whose (hostIP, hostPort, protocol)
 * another live attachment holds is refused before any plugin runs, naming
 * the container that holds it. One file per (protocol, port) under
 * <stateDir>/ports/, read and rewritten under flock(2) on that file only, so
 * that two containers asking for one port at once cannot both get it, and
 * containers asking for different ports never wait for each other.
 */
#ifndef CNIHOOK_STATE_PORT_RESERVATIONS_H
#define CNIHOOK_STATE_PORT_RESERVATIONS_H

#include <stdbool.h>
#include <stddef.h>

#include <cnirt.h>

#include "request/annotations.h"

/* Reserve every host port of the selection for container `id`. A holder
 * whose attachment is gone (no cache entry and no state directory) is
 * replaced. Port mappings held by attachments of other runtimes (cache
 * entries with portMappings) count too. On failure nothing stays reserved;
 * when a reservation of cnihook's refused it, *holder (if holder is not
 * NULL) names its container, for the caller to judge. */
int port_reservations_reserve(const char *state_dir, cnirt_ctx *ctx, const char *id,
			      const struct selection *sel, char **holder, char **err);
/* Release every reservation of container `id`: the files its list
 * (<stateDir>/<id>/ports) names, then the list. */
void port_reservations_release(const char *state_dir, const char *id);
/* Release container `id`'s reservations of the host ports in a cache
 * entry's portMappings: poststop after the state directory (and with it
 * the list above) was wiped finds them there. */
void port_reservations_release_entry(const char *state_dir, const char *id,
				     const cnirt_cache_entry *e);
/* Drop, from every reservation file, the holders for which alive() is
 * false (gc, with the containers it knows). */
void port_reservations_prune(const char *state_dir, bool (*alive)(void *data, const char *id),
			     void *data);

#endif
