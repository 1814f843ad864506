/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The names and paths of what cnihook keeps on the host: its state
 * directory (cnihook.json's stateDir) and its files beside the result
 * cache (cacheDir). Every other file asks here; none spells a name.
 *
 *   <stateDir>/<id>/                  a container's directory
 *   <stateDir>/<id>/record.json       its attachment record (record.h)
 *   <stateDir>/<id>/network-status.json  its network status (network-status.h)
 *   <stateDir>/<id>/netns             its namespace's pin (netns-pin.h)
 *   <stateDir>/<id>/ports             the names of its port reservation files
 *   <stateDir>/<id>/name              its name, as earlier builds wrote it
 *   <stateDir>/<id>/pod-members       a podman pod's annotated members (pod-members.h)
 *   <stateDir>/<id>/resolv.conf, hosts  the names files bind-mounted into
 *                                     the container (names/names.h)
 *   <stateDir>/<id>/journal/<network>:<ifname>  the running result of an ADD
 *                                     not yet cached (journal.h)
 *   <stateDir>/<id>.lock              its lock (lock.h)
 *   <stateDir>/<id>.name              its name link (record.h)
 *   <stateDir>/ports/<proto>-<port>   host port reservations (port-reservations.h)
 *   <stateDir>/@pins/<dev>:<ino>      the pin index (netns-pin.h)
 *   <stateDir>/cnihook.log[.1]        the fallback log (base/log.h, LOG_FILE_NAME:
 *                                     base/ is below state/ and names its own files)
 *   <cacheDir>/results/<network>-<id>-<ifname>  libcnirt's result cache
 *   <cacheDir>/cnihook-attachments/<id>  attachment lists (attachment-list.h)
 *   <cacheDir>/cnihook-ports.index    other runtimes' port mappings, every file
 *   <cacheDir>/cnihook-ports.held     the same, the files that map host ports
 *
 * A rootless user's directories (cnihook(8), ROOTLESS; host/rootless-netns.h):
 *
 *   /run/user/UID/                    the user's runtime directory (UID: the
 *                                     host uid), flocked as the user's lock;
 *                                     the user's cnihook.log[.1] (base/log.h)
 *   /run/user/UID/cnihook/            the user's directory
 *     netns                           the rootless network namespace's bind
 *     slirp4netns.pid, watch.pid      "PID STARTTIME" of slirp4netns and of
 *                                     the user's watch (host/rootless-watch.h)
 *     state/, cache/, run/            the hook's stateDir, cacheDir and the
 *                                     plugins' runtime directory
 *     cni/                            bound over /var/lib/cni for the plugins
 *     forwarders/<id>                 "PID STARTTIME" of an attachment's port
 *                                     forwarder (host/port-forwarder.h)
 *
 * A path function given a NULL directory returns the path relative to it,
 * for the *at() calls on a descriptor of the directory.
 */
#ifndef CNIHOOK_STATE_LAYOUT_H
#define CNIHOOK_STATE_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define LAYOUT_RECORD	   "record.json"
#define LAYOUT_STATUS	   "network-status.json"
#define LAYOUT_PIN	   "netns"
#define LAYOUT_OWN_PORTS   "ports"
#define LAYOUT_NAME_OLD	   "name"
#define LAYOUT_POD_MEMBERS "pod-members"
/* The names files (cnihook(8), NAMES), as the rootfs names them; an
 * earlier cnihook kept them as <id>/resolv.conf, <id>/hosts. */
#define LAYOUT_RESOLV_CONF "resolv.conf"
#define LAYOUT_HOSTS	   "hosts"
#define LAYOUT_JOURNAL_DIR "journal"
#define LAYOUT_LOCK_SUFFIX ".lock"
#define LAYOUT_NAME_SUFFIX ".name"
#define LAYOUT_PORTS_DIR   "ports"
/* "@" keeps the pin index out of the container ids (they start with a
 * letter or a digit). */
#define LAYOUT_PINS_DIR		   "@pins"
#define LAYOUT_RESULTS_DIR	   "results"
#define LAYOUT_ATTLIST_DIR	   "cnihook-attachments"
#define LAYOUT_PORTS_INDEX	   "cnihook-ports.index"
#define LAYOUT_PORTS_HELD	   "cnihook-ports.held"
#define LAYOUT_ROOTLESS_RUN_DIR	   "/run/user"
#define LAYOUT_ROOTLESS_DIR	   "cnihook"
#define LAYOUT_ROOTLESS_NETNS	   "netns"
#define LAYOUT_ROOTLESS_SLIRP_PID  "slirp4netns.pid"
#define LAYOUT_ROOTLESS_WATCH_PID  "watch.pid"
#define LAYOUT_ROOTLESS_STATE	   "state"
#define LAYOUT_ROOTLESS_CACHE	   "cache"
#define LAYOUT_ROOTLESS_RUN	   "run"
#define LAYOUT_ROOTLESS_CNI	   "cni"
#define LAYOUT_ROOTLESS_FORWARDERS "forwarders"

/* ------------------------------------------------ the state directory */
char *layout_container_dir(const char *state_dir, const char *id);
char *layout_record(const char *state_dir, const char *id);
char *layout_status(const char *state_dir, const char *id);
char *layout_pin(const char *state_dir, const char *id);
char *layout_own_ports(const char *state_dir, const char *id);
char *layout_name_old(const char *state_dir, const char *id);
/* <stateDir>/<id>/<file>: file is LAYOUT_RESOLV_CONF or LAYOUT_HOSTS. */
char *layout_names_file(const char *state_dir, const char *id, const char *file);
char *layout_pod_members(const char *state_dir, const char *id);
char *layout_journal_dir(const char *state_dir, const char *id);
/* The journal file of one attachment: ':' is in no network name and in no
 * interface name, so that no two attachments share a file. */
char *layout_journal(const char *state_dir, const char *id, const char *network,
		     const char *ifname);
char *layout_lock(const char *state_dir, const char *id);
char *layout_name_link(const char *state_dir, const char *id);
char *layout_ports_dir(const char *state_dir);
/* The reservation file of a (protocol, port): its name, as a container's
 * list holds it, and its path (`name` one of those names). */
char *layout_port_name(const char *proto, unsigned port);
char *layout_port_file(const char *state_dir, const char *name);
char *layout_pins_dir(const char *state_dir);
/* The pin index's entry of the namespace (dev, ino). */
char *layout_pin_entry(const char *state_dir, dev_t dev, ino_t ino);
/* The pin index's entry `name` (one of its names). */
char *layout_pin_entry_named(const char *state_dir, const char *name);

/* What an entry of the state directory stands for, by its name. */
enum layout_entry {
	LAYOUT_OTHER,	  /* no container's: a dot name, the ports, the pins, the log */
	LAYOUT_CONTAINER, /* <id>: its directory, when it is one */
	LAYOUT_LOCK,	  /* <id>.lock */
	LAYOUT_NAME_LINK, /* <id>.name */
};
/* The kind of the entry `name`, and in *id_len (unless NULL) the length
 * of the container id it begins with (all of it for LAYOUT_CONTAINER). */
enum layout_entry layout_entry(const char *name, size_t *id_len);
/* Is `name`, an entry of the state directory, a container's directory by
 * its name (a valid container id, not "ports", "@pins", a dot name or the
 * log)? Whether it is a directory is the caller's to check. */
bool layout_is_container_name(const char *name);

/* ---------------------------------------------- beside the result cache */
char *layout_results_dir(const char *cache_dir);
char *layout_result(const char *cache_dir, const char *name);
/* Its full path escaped for a message but never cut, so that it can be
 * removed by hand (a damaged file of cnirt_cache_list_damaged()). */
char *layout_result_shown(const char *cache_dir, const char *name);
/* The name of an attachment's file in results/, as the reference library
 * (and libcnirt) names it. */
char *layout_result_name(const char *network, const char *id, const char *ifname);
char *layout_attachment_list_dir(const char *cache_dir);
char *layout_attachment_list(const char *cache_dir, const char *id);
char *layout_ports_index(const char *cache_dir);
char *layout_ports_held(const char *cache_dir);

/* ---------------------------------------- a rootless user's directories */
/* /run/user/UID, of host uid `uid`. */
char *layout_rootless_run_dir(unsigned long uid);
/* The user's directory, in its runtime directory `run_dir`. */
char *layout_rootless_dir(const char *run_dir);
/* In the user's directory `dir` (NULL: relative to it). */
char *layout_rootless_netns(const char *dir);
char *layout_rootless_slirp_pid(const char *dir);
char *layout_rootless_watch_pid(const char *dir);
char *layout_rootless_state(const char *dir);
char *layout_rootless_cache(const char *dir);
char *layout_rootless_run(const char *dir);
char *layout_rootless_cni(const char *dir);
char *layout_rootless_forwarders(const char *dir);
/* The pid file of the forwarder of attachment `id`. */
char *layout_rootless_forwarder(const char *dir, const char *id);

#endif
