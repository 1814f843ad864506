/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Port mappings as annotations ask for them (cnihook-annotations(7)): the
 * `portMappings` list of a network selection element (JSON) and the
 * io.cnihook.ports annotation (JSON, or the short form
 * `[HOSTIP:]HOSTPORT:CONTAINERPORT[/PROTOCOL],...`), normalised to the JSON
 * array of the portMappings capability (CONVENTIONS.md):
 * [{"hostPort":N,"containerPort":N,"protocol":"tcp|udp|sctp","hostIP"?:IP}].
 * Reserving the host ports is port-reservations.c's.
 */
#ifndef CNIHOOK_PORTMAP_H
#define CNIHOOK_PORTMAP_H

#include "base/util.h"

/* A JSON array of port mapping objects {hostPort, containerPort,
 * protocol?, hostIP?} into its normalised text; *out NULL when the array is
 * empty. */
int portmaps_from_json(const json *a, char **out, char **problem);
/* The value of io.cnihook.ports: JSON when it starts with '[' (but not an
 * IPv6 host IP, "[fd00::1]:8080:80") or '{', else the short form. An empty
 * list is a problem. */
int portmaps_from_annotation(const char *value, char **out, char **problem);

#endif
