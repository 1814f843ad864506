/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What an attach checks before any plugin runs (engine/attach.c): the host
 * ports against the host's sockets, the interface names against the
 * namespace, the static addresses against the result cache, and the
 * holder of something asked for collected first when gc's rules prove it
 * gone. Each records its failure in the run (run.h) and returns -1.
 */
#ifndef CNIHOOK_ENGINE_PREFLIGHT_H
#define CNIHOOK_ENGINE_PREFLIGHT_H

#include <stdbool.h>

#include "engine/run.h"
#include "request/annotations.h"

/* The port mappings against the sockets bound on the host (host-sockets.h);
 * /proc is read once, and only when some attachment maps ports. */
int preflight_host_ports(struct engine_run *r, const struct selection *sel, const char *by);
/* The interface names against the namespace `netns` (interfaces.h); the
 * names cnihook chose may be replaced by free net1, net2, ... */
int preflight_ifnames(struct engine_run *r, struct selection *sel, const char *by,
		      const char *netns);
/* The static IPs and MACs asked for against the result cache; a gone
 * holder of cnihook's own is collected first. */
int preflight_held_addresses(struct engine_run *r, const struct selection *sel);
/* Container `holder`, which holds `held`, detached first when gc's rules
 * prove it gone (with own_only, only when it is cnihook's): 0 collected,
 * -1 not (*why_not, when not NULL, says why). */
int preflight_collect_gone(struct engine_run *r, const char *holder, const char *held,
			   bool own_only, char **why_not);

#endif
