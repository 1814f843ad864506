/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The rootless network namespace: one per user, where a rootless podman's
 * containers get their CNI networks (cnihook(8), ROOTLESS). The hook runs
 * as uid 0 of podman's user namespace, in podman's mount namespace and the
 * host's network namespace; everything here is owned by that user
 * namespace and lives under the user's runtime directory, whose paths
 * state/layout.h gives (a rootless user's directories) and struct
 * rootless_user carries.
 *
 * The lock that serialises a user's starts and stops is a flock(2) on
 * /run/user/UID itself, which outlives the user's directory.
 */
#ifndef CNIHOOK_HOST_ROOTLESS_NETNS_H
#define CNIHOOK_HOST_ROOTLESS_NETNS_H

#include <stdbool.h>

struct rootless_user {
	unsigned long uid; /* the host uid of the namespace's uid 0 */
	char *run_dir;	   /* /run/user/UID */
	char *dir;	   /* /run/user/UID/cnihook */
	/* In dir: the namespace's bind, the pid files of slirp4netns and of
	 * the watch, the hook's stateDir and cacheDir, the plugins' runtime
	 * directory, what is bound over /var/lib/cni, the forwarders' pid
	 * files. */
	char *netns, *slirp_pid, *watch_pid, *state, *cache, *run, *cni, *forwarders;
	int lock_fd; /* run_dir, flocked; -1 when not held */
};

/* The host uid that uid 0 of the namespace whose uid_map is `map` maps
 * to (a line "0 UID COUNT"); -1 when none does (*err). */
int rootless_netns_host_uid(const char *map, unsigned long *uid, char **err);
/* The host uid of uid 0 of the process's own user namespace; -1 when it
 * maps to none (*err). */
int rootless_netns_own_uid(unsigned long *uid, char **err);
/* Is `run_dir`, the runtime directory of host uid `uid`, there and owned
 * by `owner` as the caller sees it (0 in the user's namespace, uid on the
 * host)? -1 when not (*err: why, and what to do). */
int rootless_netns_check_run_dir(const char *run_dir, unsigned long uid, unsigned long owner,
				 char **err);
void rootless_netns_user_free(struct rootless_user *u);

/* Take the user's lock (blocking) and make the user's directory; release
 * with rootless_netns_unlock(). */
int rootless_netns_lock(struct rootless_user *u, char **err);
void rootless_netns_unlock(struct rootless_user *u);

/* Make the namespace unless it is there: 0 when it was, 1 when made now;
 * the namespace has its loopback up. */
int rootless_netns_ensure(const struct rootless_user *u, char **err);
/* Start slirp4netns on the namespace, detached (its own session, stdio on
 * /dev/null), and wait until it has configured tap0; its pid is written
 * to slirp4netns.pid. 1 with *err a warning when it runs, but outside a
 * scope of its own (rootless_netns_spawn()). */
int rootless_netns_start_slirp(const struct rootless_user *u, char **err);
/* In a child of the hook that runs the plugins: a private mount namespace
 * with the user's cni/ over /var/lib/cni (on a tmpfs over /var/lib when
 * the host has no /var/lib/cni), and the rootless namespace entered. */
int rootless_netns_enter(const struct rootless_user *u, char **err);
/* The rootless namespace entered, nothing else (the forwarder's child). */
int rootless_netns_join(const struct rootless_user *u, char **err);
/* The last container gone: kill slirp4netns (SIGKILL, not waited for:
 * it exits tens of milliseconds later), stop the watch and every
 * forwarder still listed, unmount the namespace and the state directory,
 * remove the user's directory. Goes on past failures and returns the
 * first. */
int rootless_netns_teardown(const struct rootless_user *u, char **err);

/* Stop the process whose "PID STARTTIME" is in `pidfile` (SIGTERM, then
 * SIGKILL after a second) if it is still that process, and remove the
 * file; 0 when there was none. */
int rootless_netns_stop_pidfile(const char *pidfile, char **err);
/* Write "PID STARTTIME" of pid to `pidfile` (a temporary file renamed
 * over it: a reader sees the whole line or nothing). When it cannot be
 * written, pid is killed (SIGKILL): nothing could stop it later. */
int rootless_netns_write_pidfile(const char *pidfile, long pid, char **err);
/* Read "PID STARTTIME" from `pidfile`: 0, or -ENOENT (no file), -EIO (not
 * readable), -EINVAL (not that). */
int rootless_netns_pidfile_read(const char *pidfile, long *pid, unsigned long long *start);
/* Is pid still the process that started at `start`, and not a zombie
 * (which its parent, perhaps not the hook, has yet to reap)? */
bool rootless_netns_same_process(long pid, unsigned long long start);
/* Does `pidfile` name a process that still runs? *pid (if not NULL): the
 * pid it names, 0 when none. */
bool rootless_netns_pidfile_alive(const char *pidfile, long *pid);
/* fn(data) in a detached process: its own session, a grandchild of the
 * caller (reparented when its first parent exits), stdio on /dev/null,
 * `keep` (unless -1) as fd 3 and no other descriptor, or with
 * ROOTLESS_NETNS_SPAWN_KEEP_ALL every descriptor (fn closes what it does
 * not need: the port forwarder keeps its listeners), the working
 * directory /; it exits when fn returns. Its pid in *pid. Where the
 * user's systemd manager runs (its private socket in run_dir, the user's
 * runtime directory; NULL: not looked for), the process first moves into a transient scope of its
 * own, cnihook-UID-PID.scope (host/systemd-scope.h), so that stopping the unit of the container it
 * was started for does not stop it: 0 when it did or there is no manager, 1 with *err a warning
 * when it runs where it was started. */
#define ROOTLESS_NETNS_SPAWN_KEEP_ALL (-2)
int rootless_netns_spawn(void (*fn)(void *), void *data, int keep, const char *run_dir, long *pid,
			 char **err);

#endif
