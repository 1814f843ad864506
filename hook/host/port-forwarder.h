/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The port forwarder of a rootless container (cnihook(8), ROOTLESS): the
 * container's published TCP and UDP ports are listened on in the host's
 * network namespace, where the hook starts, and forwarded to the
 * container's address in the user's rootless network namespace, where the
 * forwarder runs. One process per container with ports, a detached child
 * of the hook (its own session, in /), stopped by the container's
 * poststop; one epoll loop, every socket non-blocking: each TCP connection
 * spliced both ways through a pipe per direction (no copy through user
 * memory, no process per connection), each UDP client's datagrams through
 * a socket of its own (a flow), the replies back to the client. Bounded
 * whatever clients do: at most 1024 connections and 1024 flows (fewer when
 * the descriptor limit asks it), the one idle longest making room for a
 * new one; a connection idle for an hour and a flow idle for a minute are
 * dropped.
 */
#ifndef CNIHOOK_HOST_PORT_FORWARDER_H
#define CNIHOOK_HOST_PORT_FORWARDER_H

#include <stdbool.h>
#include <stddef.h>

struct forward_rule {
	size_t attachment; /* the index of the attachment that asks for it */
	char *host_ip;	   /* the address to listen on; NULL: 0.0.0.0 */
	unsigned host_port;
	unsigned container_port;
	bool udp;     /* udp, else tcp */
	char *target; /* the container's address, once known */
	int fd;	      /* the listening socket, -1 until port_forwarder_listen() */
};

struct forward_plan {
	struct forward_rule *v;
	size_t n;
	const char *owner; /* the attachment's id, for the title `ps` shows; the caller's */
	/* The user's runtime directory, where its systemd manager's socket is
	 * looked for (rootless_netns_spawn()); NULL: none. The caller's. */
	const char *run_dir;
	/* How long a TCP connection and a UDP flow live without traffic;
	 * 0: the defaults (an hour, a minute). Tests shorten them. */
	long long tcp_idle_ms, udp_idle_ms;
};

/* Add the mappings of attachment `attachment` (request/port-mappings.h); a
 * protocol other than tcp and udp is refused (*err names it). */
struct port_mappings;
int port_forwarder_plan_add(struct forward_plan *p, size_t attachment,
			    const struct port_mappings *mappings, char **err);
/* The target address of the rules of `attachment`. */
void port_forwarder_set_target(struct forward_plan *p, size_t attachment, const char *ip);
void port_forwarder_plan_free(struct forward_plan *p);
/* Listen on every rule's host address and port, in the caller's network
 * namespace; *err names the port that cannot be taken. */
int port_forwarder_listen(struct forward_plan *p, char **err);
/* Start the forwarder, detached, in the caller's network namespace;
 * its pid in *pid. Every rule needs its target. 1 with *err a warning
 * when it runs outside a scope of its own (rootless_netns_spawn()). */
int port_forwarder_spawn(const struct forward_plan *p, long *pid, char **err);

#endif
