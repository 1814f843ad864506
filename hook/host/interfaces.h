/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The network interfaces a namespace holds, seen before any plugin runs:
 * an interface name another program uses there (the engine's own eth0) is
 * never handed to a plugin, whose failed ADD would be rolled back with a
 * DEL of that name, deleting the other program's interface.
 */
#ifndef CNIHOOK_HOST_INTERFACES_H
#define CNIHOOK_HOST_INTERFACES_H

#include <stdbool.h>
#include <stddef.h>

struct interfaces {
	char **names; /* sorted, "lo" included */
	size_t n;
	/* The interface of the namespace's default route (IPv4, else IPv6),
	 * or NULL. */
	char *default_route;
};

/* The interfaces of the network namespace at `netns` (a path such as
 * /proc/<pid>/ns/net or /run/netns/NAME), and the one its default route
 * leaves by, read by a child process that enters it. -1 and *err when it
 * cannot be entered or listed. */
int interfaces_read(const char *netns, struct interfaces *out, char **err);
void interfaces_free(struct interfaces *ifs);
bool interfaces_has(const struct interfaces *ifs, const char *name);
/* Does the namespace hold an interface other than the loopback, that is
 * one of another program's? */
bool interfaces_any_other(const struct interfaces *ifs);

#endif
