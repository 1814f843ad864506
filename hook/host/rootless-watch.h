/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The watch of a user's rootless network namespace (cnihook(8), ROOTLESS):
 * one process per user, started with the namespace, that checks every
 * second that the user's directory (/run/user/UID/cnihook) is still the
 * one it was started for. When it is gone (the runtime directory removed
 * at logout, by hand, or a tmpfs unmounted), nothing can stop the
 * helpers that serve it any more: the watch stops them, every process
 * that lives in the namespace (the port forwarders, dnsname's dnsmasq)
 * and the slirp4netns it last saw, then exits. Its pid file is
 * watch.pid in the user's directory; the namespace's teardown stops it.
 */
#ifndef CNIHOOK_HOST_ROOTLESS_WATCH_H
#define CNIHOOK_HOST_ROOTLESS_WATCH_H

#include "host/rootless-netns.h"

/* Start the user's watch, detached (its own session, stdio on /dev/null,
 * the working directory /), its pid written to watch.pid. The namespace
 * must be there. 1 with *err a warning when it runs outside a scope of
 * its own (rootless_netns_spawn()). */
int rootless_watch_start(const struct rootless_user *u, char **err);

/* For gc: the user's helpers that serve no namespace of the user's any
 * more (the watch was gone too when the user's directory was removed):
 * every process of the user's titled cnihook-fwd, or dnsname's dnsmasq
 * of the user's run/ directory, outside the user's current namespace;
 * and a watch or a slirp4netns of the user's that its pid file does not
 * name. Stopped (SIGTERM, SIGKILL after a second); returns how many. */
int rootless_watch_stop_strays(const struct rootless_user *u);

#endif
