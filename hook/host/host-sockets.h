/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Sockets bound on the host: the TCP listeners, bound UDP sockets and SCTP
 * endpoints of the network namespace the hook and its plugins run in, as
 * /proc/self/net shows them. A port mapping sends the host's traffic for
 * its (hostIP, hostPort, protocol) to the container: a host service bound
 * there would go deaf for the container's lifetime, so a mapping that
 * overlaps such a socket is refused before any plugin runs, naming the
 * process that holds it when /proc shows one.
 *
 * Not counted: TCP sockets that are not listening and connected UDP
 * sockets (clients on their own ephemeral ports: their traffic is in
 * conntrack already and no DNAT reaches it).
 *
 * Cost: read only for a container with port mappings. The TCP listeners
 * come from a sock_diag netlink dump that asks for listeners only: reading
 * /proc/net/tcp and tcp6 makes the kernel walk its whole connection hash,
 * listeners or not (4 to 9 ms on the 2-core test VM with a handful of
 * sockets, against well under 0.1 ms). Without sock_diag (a kernel built
 * without tcp_diag) /proc/net/tcp and tcp6 are read.
 */
#ifndef CNIHOOK_HOST_HOST_SOCKETS_H
#define CNIHOOK_HOST_HOST_SOCKETS_H

#include <stdbool.h>
#include <stddef.h>

enum host_proto { HOST_TCP, HOST_UDP, HOST_SCTP };

struct host_socket {
	enum host_proto proto;
	int family;		/* AF_INET or AF_INET6; an IPv4-mapped address is AF_INET */
	unsigned char addr[16]; /* network order; IPv4 in the first 4 bytes */
	unsigned port;
	unsigned long long inode; /* 0: not shown */
};

struct host_sockets {
	struct host_socket *v;
	size_t n;
	/* net.ipv6.bindv6only is 0 (the default): an IPv6 wildcard socket
	 * takes IPv4 too, unless it set IPV6_V6ONLY, which /proc does not
	 * show. Set by host_sockets_read(); true when unknown. */
	bool v6_takes_v4;
};

/* Add the sockets of one /proc/net table, given as its text (the header
 * line first) to *s. `table` names the file: "tcp", "tcp6", "udp", "udp6"
 * or "sctp/eps". A line that cannot be read is an error naming the table
 * and the line. */
int host_sockets_parse(const char *text, const char *table, struct host_sockets *s, char **err);

/* Add the TCP listeners of a sock_diag dump (netlink messages as one
 * recv() gave them, SOCK_DIAG_BY_FAMILY with inet_diag_msg) to *s; *done
 * when NLMSG_DONE ends them. An NLMSG_ERROR or a message that is no TCP
 * socket is an error. */
int host_sockets_parse_diag(const void *buf, size_t len, struct host_sockets *s, bool *done,
			    char **err);

/* The sockets of the calling process's network namespace:
 * <proc>/self/net/{tcp,tcp6,udp,udp6,sctp/eps} (tcp6, udp6 and sctp/eps
 * may be absent, without IPv6 or SCTP; tcp and udp may not: without them
 * nothing could be checked) and
 * <proc>/sys/net/ipv6/bindv6only. proc is "/proc" but in tests; with
 * "/proc" the TCP listeners come from sock_diag when the kernel has it. */
int host_sockets_read(const char *proc, struct host_sockets *s, char **err);
void host_sockets_free(struct host_sockets *s);

/* The first socket that a port mapping overlaps, or NULL. proto is "tcp",
 * "udp" or "sctp"; host_ip NULL or "" means every address of both
 * families, 0.0.0.0 every IPv4 address, :: every IPv6 address. -1 (and
 * *err) when host_ip or proto cannot be read. */
int host_sockets_find(const struct host_sockets *s, const char *proto, const char *host_ip,
		      unsigned port, const struct host_socket **found, char **err);

/* The process holding socket `inode`, by the links <proc>/PID/fd/N ->
 * "socket:[INODE]": the lowest such pid and its command (<proc>/PID/comm,
 * as the process set it: escape it to show it). false when no process
 * shown in <proc> holds it (a finding, not a failure: a process may close
 * its socket at any time). Reads every process's descriptors: for a
 * refusal only. */
bool host_sockets_holder(const char *proc, unsigned long long inode, int *pid, char **comm);

/* The port mappings of an attachment against the sockets: the first
 * overlap is refused with a message that names the annotation `key`, the
 * port, the socket's address and its process. */
struct port_mappings;
int host_sockets_check(const struct host_sockets *s, const char *proc, const char *key,
		       const struct port_mappings *m, char **err);

#endif
