/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libcnirt: the runtime side of the Container Network Interface specification
 * (spec versions 0.1.0 to 1.1.0).
 *
 * Conventions used by every function of this header:
 *  - A function that can fail returns 0 on success and a negative value on
 *    failure, and then sets *err to a new error object (free it with
 *    cnirt_error_free()).  err must not be NULL.
 *  - Out parameters are written only on success; strings handed out are the
 *    caller's to free() unless the documentation says otherwise.
 *  - JSON crosses this API as text (a pointer and a length, or a NUL
 *    terminated string).
 *  - The library never prints, never reads the environment and never exits.
 */
#ifndef CNIRT_H
#define CNIRT_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- errors */

/* Well-known CNI error codes (spec section 5, "Error"). */
enum {
	CNIRT_ERR_NONE = 0, /* a runtime-side failure that has no CNI code */
	CNIRT_ERR_INCOMPATIBLE_VERSION = 1,
	CNIRT_ERR_UNSUPPORTED_FIELD = 2,
	CNIRT_ERR_UNKNOWN_CONTAINER = 3,
	CNIRT_ERR_INVALID_ENV = 4,
	CNIRT_ERR_IO = 5,
	CNIRT_ERR_DECODE = 6,
	CNIRT_ERR_INVALID_CONFIG = 7,
	CNIRT_ERR_TRY_AGAIN = 11,
	CNIRT_ERR_PLUGIN_NOT_AVAILABLE = 50,
	CNIRT_ERR_LIMITED_CONNECTIVITY = 51,
};

typedef struct cnirt_error cnirt_error;

/* The CNI error code: the plugin's own code when the error came from a
 * plugin, else one of the well-known codes above (CNIRT_ERR_NONE when none
 * fits). */
int cnirt_error_code(const cnirt_error *e);
/* Human readable message. For an error of a plugin, the plugin's own `msg`;
 * the network and plugin it concerns are in the fields below, not repeated
 * in the message. Never NULL. */
const char *cnirt_error_msg(const cnirt_error *e);
/* The plugin's `details` field, or NULL. */
const char *cnirt_error_details(const cnirt_error *e);
/* The network and the plugin type the error concerns, or NULL. */
const char *cnirt_error_network(const cnirt_error *e);
const char *cnirt_error_plugin(const cnirt_error *e);
/* True when a plugin itself failed (it exited non-zero, with or without an
 * error result); false for failures of the runtime side (not found, killed
 * by a signal, timeout, output cap, invalid result, ...). */
bool cnirt_error_from_plugin(const cnirt_error *e);
/* The errno value behind a system-call failure, or 0. */
int cnirt_error_errno(const cnirt_error *e);
void cnirt_error_free(cnirt_error *e);

/* ------------------------------------------------------------- versions */

/* The spec versions this library implements, oldest first, NULL terminated. */
const char *const *cnirt_supported_versions(void);
/* Compare two "X.Y.Z" versions: <0, 0, >0. Unparsable versions compare
 * lower than any valid one. */
int cnirt_version_compare(const char *a, const char *b);

/* -------------------------------------------------- network configuration */

/* A network configuration list (spec section 1), validated. A single-plugin
 * `.conf`/`.json` is wrapped into a list of one. */
typedef struct cnirt_netlist cnirt_netlist;

/* Parse a list from bytes. `origin` (may be NULL) names the source in error
 * messages. */
int cnirt_netlist_parse(const char *bytes, size_t len, const char *origin, cnirt_netlist **out,
			cnirt_error **err);
/* Load a `.conflist` (a list) or a `.conf`/`.json` (a single plugin). */
int cnirt_netlist_load_file(const char *path, cnirt_netlist **out, cnirt_error **err);
void cnirt_netlist_free(cnirt_netlist *l);

const char *cnirt_netlist_name(const cnirt_netlist *l);
/* The effective version: the highest supported version among `cniVersions`
 * and `cniVersion`. */
const char *cnirt_netlist_version(const cnirt_netlist *l);
bool cnirt_netlist_disable_check(const cnirt_netlist *l);
bool cnirt_netlist_disable_gc(const cnirt_netlist *l);
size_t cnirt_netlist_plugin_count(const cnirt_netlist *l);
const char *cnirt_netlist_plugin_type(const cnirt_netlist *l, size_t i);
/* Whether plugin i declares capability `cap` true. */
bool cnirt_netlist_plugin_has_capability(const cnirt_netlist *l, size_t i, const char *cap);
/* Whether any plugin of the list declares `cap` true. */
bool cnirt_netlist_has_capability(const cnirt_netlist *l, const char *cap);
/* The bytes the list was loaded from, as stored in the cache. A single-plugin
 * config is given as the list that wraps it:
 * {"cniVersion":V,"name":N,"plugins":[<the config's bytes>]}. */
const char *cnirt_netlist_bytes(const cnirt_netlist *l, size_t *len);
/* The file the list was loaded from, or the origin given, or NULL. */
const char *cnirt_netlist_path(const cnirt_netlist *l);

/* The networks of a configuration directory: every `.conflist`, `.conf` and
 * `.json` file, sorted by file name. A file that fails to load is kept as an
 * entry with an error, so that one broken file hides no other network. */
typedef struct cnirt_confdir cnirt_confdir;
int cnirt_confdir_scan(const char *dir, cnirt_confdir **out, cnirt_error **err);
size_t cnirt_confdir_count(const cnirt_confdir *d);
const char *cnirt_confdir_path(const cnirt_confdir *d, size_t i);
/* The list of entry i, or NULL if it failed to load (then see _error). */
const cnirt_netlist *cnirt_confdir_list(const cnirt_confdir *d, size_t i);
const cnirt_error *cnirt_confdir_error(const cnirt_confdir *d, size_t i);
void cnirt_confdir_free(cnirt_confdir *d);
/* A copy of the network named `name` of a scanned directory, looked up as
 * the reference library does (the .conflist files first, then the .conf and
 * .json files, each in file name order), to free with cnirt_netlist_free(). Not found is an error
 * with code CNIRT_ERR_INVALID_CONFIG whose message also names the broken
 * files of the directory, if any. */
int cnirt_confdir_get(const cnirt_confdir *d, const char *name, cnirt_netlist **out,
		      cnirt_error **err);
/* cnirt_confdir_scan() of `dir` and cnirt_confdir_get() of `name`: for one
 * network; scan once and get each for several. */
int cnirt_confdir_find(const char *dir, const char *name, cnirt_netlist **out, cnirt_error **err);

/* ---------------------------------------------------------- the runtime */

typedef struct cnirt_ctx cnirt_ctx;

/* A new runtime with no plugin directory, cache directory /var/lib/cni,
 * a 60 s plugin timeout and a 16 MiB output cap. */
cnirt_ctx *cnirt_ctx_new(void);
void cnirt_ctx_free(cnirt_ctx *ctx);
/* Plugin directories, searched in order (also passed to plugins as CNI_PATH). */
void cnirt_ctx_set_bin_dirs(cnirt_ctx *ctx, const char *const *dirs, size_t n);
/* Same, from a colon-separated list. */
void cnirt_ctx_set_bin_path(cnirt_ctx *ctx, const char *colon_list);
void cnirt_ctx_set_cache_dir(cnirt_ctx *ctx, const char *dir);
const char *cnirt_ctx_cache_dir(const cnirt_ctx *ctx);
/* Per-plugin timeout in milliseconds (0: none). */
void cnirt_ctx_set_timeout_ms(cnirt_ctx *ctx, unsigned ms);
/* Cap on each of a plugin's stdout and stderr, in bytes (0: none). */
void cnirt_ctx_set_output_limit(cnirt_ctx *ctx, size_t bytes);
/* The PATH given to plugins. NULL (default): a sane system PATH. */
void cnirt_ctx_set_path_env(cnirt_ctx *ctx, const char *path);
/* A function run in the plugin's child process just before exec (for
 * sandboxing). The child shares the caller's memory (vfork-style): the
 * function may only make system calls (no allocation, no locks). It
 * returns 0, or an errno value that fails the execution. */
typedef int (*cnirt_preexec_fn)(void *data);
void cnirt_ctx_set_preexec(cnirt_ctx *ctx, cnirt_preexec_fn fn, void *data);
/* Observer told of every plugin execution (for logging and timing). */
typedef void (*cnirt_observer_fn)(void *data, const char *network, const char *plugin,
				  const char *command, long long usec, const cnirt_error *err);
void cnirt_ctx_set_observer(cnirt_ctx *ctx, cnirt_observer_fn fn, void *data);

/* One CNI_ARGS pair. */
typedef struct cnirt_kv {
	const char *key;
	const char *value;
} cnirt_kv;

/* The attachment parameters of spec section 3. */
typedef struct cnirt_attachment {
	const char *container_id; /* CNI_CONTAINERID */
	const char *netns;	  /* CNI_NETNS ("" allowed for DEL) */
	const char *ifname;	  /* CNI_IFNAME */
	const cnirt_kv *args;	  /* CNI_ARGS pairs, in order */
	size_t n_args;
	const char *capability_args; /* JSON object text, or NULL */
	/* JSON object text, or NULL: `args.cni` of every plugin's configuration
	 * (CONVENTIONS.md, "args in network config"; the NPWG `cni-args`), the
	 * plugin's other `args` kept. Cached with the list, so that a DEL from
	 * the cache passes it too. */
	const char *config_args;
} cnirt_attachment;

/* ADD the attachment to every plugin of the list, in order. On success the
 * final result (in the list's version) is cached and, if result_json is not
 * NULL, handed out. On failure the list is DELeted in reverse order and the
 * original error is returned. */
int cnirt_add(cnirt_ctx *ctx, const cnirt_netlist *l, const cnirt_attachment *a, char **result_json,
	      cnirt_error **err);
/* CHECK (lists of version 0.4.0 and later; immediate success when
 * disableCheck). The cached result is the prevResult of the first plugin. */
int cnirt_check(cnirt_ctx *ctx, const cnirt_netlist *l, const cnirt_attachment *a,
		cnirt_error **err);
/* DEL in reverse order with the cached result as prevResult (>= 0.4.0). The
 * cache entry is removed on success, kept on failure. A corrupt cache entry
 * never blocks a DEL. */
int cnirt_del(cnirt_ctx *ctx, const cnirt_netlist *l, const cnirt_attachment *a, cnirt_error **err);
/* DEL using only what the cache holds for (network, container id, ifname):
 * the cached list bytes, CNI_ARGS, capability arguments and result. netns
 * overrides the cached one when not NULL. No entry: success. */
int cnirt_del_cached(cnirt_ctx *ctx, const char *network, const char *container_id,
		     const char *ifname, const char *netns, cnirt_error **err);
/* STATUS (1.1.0 lists): every plugin in order. */
int cnirt_status(cnirt_ctx *ctx, const cnirt_netlist *l, cnirt_error **err);
/* One attachment named for GC: cni.dev/valid-attachments. */
typedef struct cnirt_attachment_id {
	const char *container_id;
	const char *ifname;
} cnirt_attachment_id;
/* GC. Nothing at all when the list has disableGC. Otherwise DEL (from the
 * cache alone) the cached attachments of this network that are not in
 * `valid`, then, for 1.1.0 lists, GC every plugin with
 * cni.dev/valid-attachments. Goes on past failures; returns the first. */
int cnirt_gc(cnirt_ctx *ctx, const cnirt_netlist *l, const cnirt_attachment_id *valid, size_t n,
	     cnirt_error **err);
/* Check that every plugin of the list is found and supports the list's
 * version (VERSION probing). */
int cnirt_validate(cnirt_ctx *ctx, const cnirt_netlist *l, cnirt_error **err);
/* VERSION of one plugin: its version result as JSON text. */
int cnirt_plugin_version(cnirt_ctx *ctx, const char *type, const char *cni_version,
			 char **version_json, cnirt_error **err);

/* -------------------------------------------------------------- results */

/* Validate a success result of the version it declares. */
int cnirt_result_validate(const char *json, size_t len, cnirt_error **err);
/* Convert a success result to another spec version (reference rules). */
int cnirt_result_convert(const char *json, size_t len, const char *to_version, char **out,
			 cnirt_error **err);

/* ---------------------------------------------------------------- cache */

/* One entry of the result cache (format shared with the reference library). */
typedef struct cnirt_cache_entry cnirt_cache_entry;
/* Read the entry for (network, container id, ifname). Missing: 0 and *out
 * NULL. */
int cnirt_cache_get(const cnirt_ctx *ctx, const char *network, const char *container_id,
		    const char *ifname, cnirt_cache_entry **out, cnirt_error **err);
/* Every readable entry of the cache, sorted by file name; the files that
 * are not readable entries are in cnirt_cache_list_damaged() instead. */
int cnirt_cache_list(const cnirt_ctx *ctx, cnirt_cache_entry ***out, size_t *n, cnirt_error **err);
const char *cnirt_cache_entry_network(const cnirt_cache_entry *e);
const char *cnirt_cache_entry_container_id(const cnirt_cache_entry *e);
const char *cnirt_cache_entry_ifname(const cnirt_cache_entry *e);
const char *cnirt_cache_entry_netns(const cnirt_cache_entry *e);
/* The cached result as JSON text, or NULL. */
const char *cnirt_cache_entry_result(const cnirt_cache_entry *e);
/* The cached network list bytes (decoded from base64), or NULL. */
const char *cnirt_cache_entry_config(const cnirt_cache_entry *e, size_t *len);
/* The cached capability arguments as JSON text, or NULL. */
const char *cnirt_cache_entry_capability_args(const cnirt_cache_entry *e);
size_t cnirt_cache_entry_arg_count(const cnirt_cache_entry *e);
const char *cnirt_cache_entry_arg_key(const cnirt_cache_entry *e, size_t i);
const char *cnirt_cache_entry_arg_value(const cnirt_cache_entry *e, size_t i);
/* Modification time of the entry's file (seconds since the epoch). */
long long cnirt_cache_entry_mtime(const cnirt_cache_entry *e);
void cnirt_cache_entry_free(cnirt_cache_entry *e);
void cnirt_cache_entries_free(cnirt_cache_entry **v, size_t n);

/* A file of <cacheDir>/results that is not a readable entry, and so is left
 * out of cnirt_cache_list(): unreadable, empty, not JSON, not a "cniCacheV1"
 * entry (the bare results of old libcni versions included), or named other
 * than <networkName>-<containerId>-<ifName> of its own fields. */
typedef struct cnirt_cache_damage {
	char *name;    /* the file name, relative to <cacheDir>/results */
	char *problem; /* one line of printable ASCII, e.g. "empty file",
			* "invalid JSON near byte 7: ...", "field \"kind\": ...",
			* "open: Permission denied" */
} cnirt_cache_damage;
/* The damaged files of the cache, sorted by name (names starting with "."
 * are temp files, never listed). No results directory: 0 and *n 0. */
int cnirt_cache_list_damaged(const cnirt_ctx *ctx, cnirt_cache_damage **out, size_t *n,
			     cnirt_error **err);
/* cnirt_cache_list() and cnirt_cache_list_damaged() from one reading of
 * each file: every file but the temp files is in exactly one of the lists. */
int cnirt_cache_scan(const cnirt_ctx *ctx, cnirt_cache_entry ***entries, size_t *n_entries,
		     cnirt_cache_damage **damaged, size_t *n_damaged, cnirt_error **err);
void cnirt_cache_damage_free(cnirt_cache_damage *v, size_t n);

/* ----------------------------------------------------------- validation */

/* Name checks applied on every operation (no input can build a path that
 * leaves the cache directory). On failure *err names the field. */
int cnirt_check_container_id(const char *id, cnirt_error **err);
int cnirt_check_ifname(const char *ifname, cnirt_error **err);
int cnirt_check_network_name(const char *name, cnirt_error **err);

#ifdef __cplusplus
}
#endif

#endif
