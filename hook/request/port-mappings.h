/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Port mappings as annotations ask for them (cnihook-annotations(7)): the
 * `portMappings` list of a network selection element (JSON) and the
 * io.cnihook.ports annotation (JSON, or the short form
 * `[HOSTIP:]HOSTPORT:CONTAINERPORT[/PROTOCOL],...`), parsed once into a
 * typed array that the hook hands down (the host's sockets, the port
 * reservations, the rootless forwarder read it); serialised to the JSON of
 * the portMappings capability (CONVENTIONS.md) only where a plugin gets it:
 * [{"hostPort":N,"containerPort":N,"protocol":"tcp|udp|sctp","hostIP"?:IP}].
 * Reserving the host ports is port-reservations.c's.
 */
#ifndef CNIHOOK_REQUEST_PORT_MAPPINGS_H
#define CNIHOOK_REQUEST_PORT_MAPPINGS_H

#include "base/util.h"

/* One port mapping, checked: ports in 1-65535, the protocol one of three. */
struct port_mapping {
	const char *proto; /* static: "tcp" (the default), "udp" or "sctp" */
	char *host_ip;	   /* an IP address as written, or NULL: every address */
	unsigned host_port, container_port;
};

/* An attachment's port mappings, in the order asked; n 0: none. */
struct port_mappings {
	struct port_mapping *v;
	size_t n;
};

/* A JSON array of port mapping objects {hostPort, containerPort,
 * protocol?, hostIP?} into *out (n 0 when the array is empty). */
int port_mappings_from_json(const json *a, struct port_mappings *out, char **problem);
/* The value of io.cnihook.ports: JSON when it starts with '[' (but not an
 * IPv6 host IP, "[fd00::1]:8080:80") or '{', else the short form. An empty
 * list is a problem. */
int port_mappings_from_annotation(const char *value, struct port_mappings *out, char **problem);
/* The portMappings capability argument (a JSON array), as a plugin gets it. */
json *port_mappings_to_json(const struct port_mappings *m);
/* Its compact JSON text (messages, tests). */
char *port_mappings_json_text(const struct port_mappings *m);
/* One mapping as the short form writes it,
 * "[HOSTIP:]HOSTPORT:CONTAINERPORT/PROTOCOL" (an IPv6 host IP in
 * brackets); all of them, comma separated. */
char *port_mappings_one_text(const struct port_mapping *m);
char *port_mappings_text(const struct port_mappings *m);
void port_mappings_free(struct port_mappings *m);

#endif
