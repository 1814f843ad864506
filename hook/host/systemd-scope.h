/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A scope of its own for a process of the rootless user's, under the
 * user's systemd manager (cnihook(8), ROOTLESS; docs/architecture.md,
 * "Rootless podman"): the manager's private socket,
 * /run/user/UID/systemd/private, speaks D-Bus peer to peer, and
 * org.freedesktop.systemd1.Manager.StartTransientUnit makes a scope that
 * holds the process. Nothing but that one call is spoken: a client of a
 * few hundred lines, with no library.
 */
#ifndef CNIHOOK_HOST_SYSTEMD_SCOPE_H
#define CNIHOOK_HOST_SYSTEMD_SCOPE_H

#include <stdbool.h>
#include <sys/types.h>

/* The private socket of the manager of the user whose runtime directory
 * is run_dir (allocated). */
char *systemd_scope_socket(const char *run_dir);
/* Ask the manager at `socket` for a transient scope `name` (ending in
 * ".scope") holding pid, with `description`, collected when it is
 * inactive or failed (its process gone): 0 when the manager started it
 * (its job queued), -1 with *err (the manager's error name and message,
 * or what failed on the socket). Authenticates by the socket's peer
 * credentials (AUTH EXTERNAL with no uid: inside a user namespace the
 * caller's own uid means nothing to the manager). Each read and write is
 * bounded in size and time. */
int systemd_scope_start(const char *socket, const char *name, const char *description, pid_t pid,
			char **err);
/* The calling process moved into a new scope `name`: started as above,
 * then up to a second for /proc/self/cgroup to name it. */
int systemd_scope_enter(const char *socket, const char *name, const char *description, char **err);

#endif
