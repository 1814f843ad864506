/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Pinning a container's network namespace: a bind mount of the namespace
 * file on <stateDir>/<id>/netns, so that DEL at poststop runs against a real
 * namespace and never against /proc/<pid> (the pid may be reused by then).
 * <stateDir> is made a shared mount point, as `ip netns` does for
 * /run/netns, so that pins reach peer mount namespaces.
 */
#ifndef CNIHOOK_STATE_NETNS_PIN_H
#define CNIHOOK_STATE_NETNS_PIN_H

#include <stdbool.h>

/* Bind-mount the namespace at `source` (e.g. /proc/123/ns/net) on `pin`
 * (an empty file is created; its directory must exist). `state_dir` is made
 * a shared mount point first if it is not one. */
/* Make the state directory dir the root of a shared mount, where pins
 * propagate to every mount namespace that has it (done once; netns_pin()
 * does it too). */
int netns_pin_share_dir(const char *dir, char **err);
int netns_pin(const char *state_dir, const char *source, const char *pin, char **err);
/* Unmount (MNT_DETACH) and remove the pin. A missing pin is fine. */
int netns_pin_remove(const char *pin, char **err);
/* Is `path` a network namespace (nsfs with CLONE_NEWNET)? */
bool netns_pin_is_netns(const char *path);
/* What can be proven about `path` as a network namespace, for gc: 1 it is
 * one; 0 it provably is not (the path does not exist, or is no namespace,
 * or a namespace of another kind); -1 it cannot be told (the path is
 * relative, or stat fails otherwise). *evidence gets what was seen. */
int netns_pin_probe(const char *path, char **evidence);
/* -1 and *err (the refusal) when `path` is the host's network namespace
 * (the hook's own, or pid 1's), or when that cannot be told (fail closed);
 * 0 when it is another. */
int netns_pin_refuse_host(const char *path, char **err);
/* Do the two paths name the same namespace (same device and inode)? */
bool netns_pin_same(const char *a, const char *b);

/*
 * The pin index: <stateDir>/@pins/<dev>:<ino> (hex), a symbolic link to the
 * id of the container whose pin is that namespace, so that a namespace named
 * by path is matched against the pins with a stat and a readlink, whatever
 * their number. Written before the pin and removed before the unpin; a
 * lookup trusts an entry only when <stateDir>/<id>/netns is that namespace,
 * so an entry left by a killed hook is ignored, and gc removes entries
 * whose container has no pin (netns_pin_index_sweep). Its names: layout.h.
 */
int netns_pin_index_add(const char *state_dir, const char *source, const char *id, char **err);
/* Remove the entry of the namespace at `path` (the pin, or the source it
 * was pinned from) when it names `id`. */
void netns_pin_index_remove(const char *state_dir, const char *path, const char *id);
/* Is `path` a namespace pinned for a container other than `id`? */
bool netns_pin_index_find(const char *state_dir, const char *path, const char *id);
void netns_pin_index_sweep(const char *state_dir);
/* Remove every entry naming `id` (a walk of the index: only when its pin
 * is missing, a hook killed between the entry and the pin). */
void netns_pin_index_forget(const char *state_dir, const char *id);

#endif
