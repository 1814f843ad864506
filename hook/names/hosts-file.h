/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The container's /etc/hosts (cnihook(8), NAMES), composed without touching
 * any file: the container's own addresses under its names, in a marked
 * block that a later start replaces rather than repeats; the engine's own
 * lines kept. Pure functions; names.c puts the text in place.
 */
#ifndef CNIHOOK_NAMES_HOSTS_FILE_H
#define CNIHOOK_NAMES_HOSTS_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

#define HOSTS_BEGIN "# cnihook: this container's addresses (cnihook(8), NAMES)"
#define HOSTS_END   "# cnihook: end"

/* Add the addresses of a result's `ips` (without their prefix length) that
 * are in the container: an entry whose `interface` names an interface
 * with a `sandbox`, or one without `interface`; no duplicates. */
void hosts_file_add_result(const json *result, char ***addrs, size_t *n);
/* Is `name` a host name a hosts file can hold (letters, digits, '-', '.',
 * '_'; 1-253 bytes; not starting with '-' or '.')? */
bool hosts_file_name_ok(const char *name);
/* Add the names of the engine's lines that give a loopback address
 * (127.0.0.0/8, ::1) to the container's host name: its other names, as the
 * engine knows them (podman's "127.0.0.1 HOSTNAME NAME"); not localhost,
 * not those of other lines (the host's own, which podman copies), nothing
 * of an earlier cnihook block; no duplicates. */
void hosts_file_engine_names(const char *engine, const char *hostname, char ***names, size_t *n);
/* The file's text. `engine` is the file the engine wrote (its lines kept,
 * an earlier cnihook block dropped), or NULL for a file of cnihook's own
 * (localhost lines first). The block lists each address with every name;
 * no block when either list is empty. */
char *hosts_file_compose(const char *engine, char *const *addrs, size_t n_addrs, char *const *names,
			 size_t n_names);

#endif
