/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The container's resolv.conf (cnihook(8), NAMES), composed without touching
 * any file: the results' `dns` (CNI spec section 5, "DNS") in attachment
 * order, then the host's (or the engine's) own, under glibc's limits. Pure
 * functions; rootfs-file.c and names.c put the text in place.
 */
#ifndef CNIHOOK_RESOLV_CONF_H
#define CNIHOOK_RESOLV_CONF_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

/* glibc's resolver reads at most 3 name servers (MAXNS); search lists are
 * kept to 6 domains as older glibc did. */
#define RESOLV_MAX_SERVERS 3
#define RESOLV_MAX_SEARCH  6
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
void resolv_parse(const char *text, struct resolv *out);
/* Add a result's `dns` object (domain, search, nameservers, options); a
 * member of the wrong type is skipped; values are checked for what a
 * resolv.conf line can hold (no white space, no control bytes). */
void resolv_add_dns(struct resolv *acc, const json *dns);
/* Does it list RESOLV_STUB (the host's file is systemd-resolved's stub)? */
bool resolv_names_stub(const struct resolv *r);
/* Is `server` a loopback address (127.0.0.0/8, ::1), useless in the
 * container's network namespace? */
bool resolv_is_loopback(const char *server);
/* Merge `from` after `acc`'s entries; servers only when `servers`, and
 * loopback ones never when `skip_loopback`. */
void resolv_merge(struct resolv *acc, const struct resolv *from, bool skip_loopback);
/* The file's text: `nameserver` lines (at most RESOLV_MAX_SERVERS), one
 * `search` line (at most RESOLV_MAX_SEARCH domains), one `options` line;
 * headed by a comment that names cnihook. */
char *resolv_compose(const struct resolv *r);
void resolv_free(struct resolv *r);

#endif
