/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The port forwarder of a rootless container (cnihook(8), ROOTLESS): the
 * container's published TCP and UDP ports are listened on in the host's
 * network namespace, where the hook starts, and forwarded to the
 * container's address in the user's rootless network namespace, where the
 * forwarder runs: each TCP connection by a child of its own, each UDP
 * client's datagrams through a socket of its own (a flow, dropped after a
 * minute without traffic either way), the replies back to the client. One
 * process per container with ports, a detached child of the hook (its own
 * session); stopped by the container's poststop.
 */
#ifndef CNIHOOK_PORT_FORWARDER_H
#define CNIHOOK_PORT_FORWARDER_H

#include <stdbool.h>
#include <stddef.h>

struct forward_rule {
	size_t attachment; /* the index of the attachment that asks for it */
	char *host_ip;	   /* the address to listen on; NULL: 0.0.0.0 */
	unsigned host_port;
	unsigned container_port;
	bool udp;     /* udp, else tcp */
	char *target; /* the container's address, once known */
	int fd;	      /* the listening socket, -1 until forwarder_listen() */
};

struct forward_plan {
	struct forward_rule *v;
	size_t n;
	const char *owner; /* the attachment's id, for the title `ps` shows; the caller's */
};

/* Add the mappings of attachment `attachment` (request/port-mappings.h); a
 * protocol other than tcp and udp is refused (*err names it). */
struct port_mappings;
int forwarder_plan_add(struct forward_plan *p, size_t attachment,
		       const struct port_mappings *mappings, char **err);
/* The target address of the rules of `attachment`. */
void forwarder_set_target(struct forward_plan *p, size_t attachment, const char *ip);
void forwarder_plan_free(struct forward_plan *p);
/* Listen on every rule's host address and port, in the caller's network
 * namespace; *err names the port that cannot be taken. */
int forwarder_listen(struct forward_plan *p, char **err);
/* Start the forwarder, detached, in the caller's network namespace;
 * its pid in *pid. Every rule needs its target. */
int forwarder_spawn(const struct forward_plan *p, long *pid, char **err);

#endif
