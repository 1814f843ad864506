/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The container's resolv.conf (cnihook(8), NAMES), composed without touching
 * any file: the results' `dns` (CNI spec section 5, "DNS") in attachment
 * order, then the host's (or the engine's) own, under glibc's limits. Pure
 * functions; rootfs-file.c and names.c put the text in place.
 */
#ifndef CNIHOOK_NAMES_RESOLV_CONF_H
#define CNIHOOK_NAMES_RESOLV_CONF_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

/* glibc's resolver reads at most 3 name servers (MAXNS); search lists are
 * kept to 6 domains as older glibc did; a line is kept within 255 bytes,
 * what musl's resolver reads of it. */
#define RESOLV_MAX_SERVERS 3
#define RESOLV_MAX_SEARCH  6
#define RESOLV_MAX_LINE	   255
/* The stub that systemd-resolved lists in /etc/resolv.conf. */
#define RESOLV_STUB "127.0.0.53"

/* What a resolv.conf says, or a result's `dns`: each list in order, with
 * no duplicates. */
struct resolv {
	char **servers;
	size_t n_servers;
	char **search; /* `domain` first, then `search` */
	size_t n_search;
	char **options;
	size_t n_options;
};

/* Parse resolv.conf text: `nameserver`, `search`, `domain` and `options`
 * lines; comments and anything else skipped. Never fails. */
void resolv_conf_parse(const char *text, struct resolv *out);
/* Add a result's `dns` object (domain, search, nameservers, options); a
 * member of the wrong type is skipped; local servers (resolv_conf_is_local())
 * are dropped; search domains and options are held to what the
 * annotations allow (names-request.h: ASCII letters, digits, '-', '_',
 * '.', and ':' in options). */
void resolv_conf_add_dns(struct resolv *acc, const json *dns);
/* Does it list RESOLV_STUB (the host's file is systemd-resolved's stub)? */
bool resolv_conf_names_stub(const struct resolv *r);
/* Is `server` a loopback or unspecified address (127.0.0.0/8, ::1, 0.0.0.0,
 * ::, and their IPv4-mapped forms), one that names the container itself in
 * its network namespace? */
bool resolv_conf_is_local(const char *server);
/* Merge `from` after `acc`'s entries; local servers never when
 * `skip_local`. */
void resolv_conf_merge(struct resolv *acc, const struct resolv *from, bool skip_local);
/* The file's text: `nameserver` lines (at most RESOLV_MAX_SERVERS), one
 * `search` line (at most RESOLV_MAX_SEARCH domains), one `options` line,
 * each within RESOLV_MAX_LINE bytes; headed by a comment that names
 * cnihook. */
char *resolv_conf_compose(const struct resolv *r);
void resolv_conf_free(struct resolv *r);

#endif
