/* SPDX-License-Identifier: Apache-2.0 */
/* Internal interfaces of libcnirt, shared between its files. Not installed. */
#ifndef CNIRT_INTERNAL_H
#define CNIRT_INTERNAL_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cnirt.h"
#include "common.h"
#include "json.h"

#define CNIRT_EXPORT __attribute__((visibility("default")))
/* ------------------------------------------------------- error.c */
struct cnirt_error {
	int code;
	int sys_errno;
	bool from_plugin;
	char *msg;
	char *details;
	char *network;
	char *plugin;
	/* Machine-readable facts (cnirt_error_kind() and friends). kind 0:
	 * derived from code and sys_errno when asked. */
	int kind;
	int signal;
	char *stderr_data; /* the plugin's whole stderr, capped */
	size_t stderr_len;
	cnirt_error **rollback; /* the failures of the rollback DEL */
	size_t n_rollback;
};

/* Set *err to a new error and return -1. Any error already in *err is freed. */
int error_set(cnirt_error **err, int code, const char *fmt, ...) PRINTF_LIKE(3, 4);
/* Same, with ": strerror(errnum)" appended and errno recorded. */
int error_set_errno(cnirt_error **err, int code, int errnum, const char *fmt, ...)
    PRINTF_LIKE(4, 5);
/* Prefix the message of *err with context ("<context>: <msg>"); returns -1. */
int error_prefix(cnirt_error **err, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* Record the network / plugin (if not yet set); return -1, for
 * `return error_set_network(*err, name);` after a failed call. */
int error_set_network(cnirt_error *e, const char *network);
int error_set_plugin(cnirt_error *e, const char *plugin);
/* Record the kind of *err (any earlier kind is replaced); returns -1. */
int error_kind(cnirt_error **err, enum cnirt_error_kind kind);
/* Hand a failure of the rollback DEL to e (e takes ownership). */
void error_add_rollback(cnirt_error *e, cnirt_error *rollback);
/* The first thing a public function taking `err` does: *err becomes NULL
 * (never read, never freed), so that the function's errors replace nothing
 * of the caller's. */
#define ERR_OUT_INIT(err) ((void)((err) ? (*(err) = NULL) : NULL))
static inline void error_freep(cnirt_error **e)
{
	cnirt_error_free(*e);
}
#define _cleanup_error_ _cleanup_(error_freep)

/* ------------------------------------------------------- json-read.c */
/* Into the tree of common/json.h. json_read_parse() with the limits of CNI input
 * (JSON_MAX_DEPTH, no comments); errors carry code CNIRT_ERR_DECODE and the
 * byte offset. */
int json_read_parse(const char *buf, size_t len, const char *what, json **out, cnirt_error **err);
/* Typed getters for validation. Absent: 0, and json_read_string sets *out to
 * NULL while json_read_bool leaves *out (the default) alone. Wrong type, or a
 * string with a NUL byte: -1 with an error (CNIRT_ERR_DECODE) naming `key`. */
int json_read_string(const json *o, const char *key, const char **out, cnirt_error **err);
int json_read_bool(const json *o, const char *key, bool *out, cnirt_error **err);

/* ------------------------------------------------------- version.c */
/* Parse "X.Y.Z" (each part decimal, no sign); 0 or -1. */
int version_parse(const char *v, unsigned *major, unsigned *minor, unsigned *patch);
bool version_is_supported(const char *v);
/* a >= b, for valid versions. */
bool version_ge(const char *a, const char *b);

/* ------------------------------------------------------- names.c */
/* (the cnirt_check_* functions of the public header) */

/* ------------------------------------------------------- ctx.c */
struct cnirt_ctx {
	char **bin_dirs;
	size_t n_bin_dirs;
	char *cni_path; /* bin_dirs joined with ':' */
	char *cache_dir;
	unsigned timeout_ms;
	size_t output_limit;
	char *path_env;
	cnirt_preexec_fn preexec;
	cnirt_plugin_preexec_fn plugin_preexec; /* wins over preexec */
	void *preexec_data;
	cnirt_event_fn event_observer;
	void *event_data;
	cnirt_add_step_fn add_step; /* cnirt_ctx_set_add_step() */
	void *add_step_data;
	/* For engines: their own exec, deadline, cancellation, env. */
	cnirt_exec_fn exec_fn;
	void *exec_data;
	bool spawn_direct;    /* cnirt_ctx_set_spawn_direct() */
	unsigned deadline_ms; /* the operation's budget (0: none) */
	int cancel_fd;	      /* readable once cancelled (non-blocking eventfd) */
	int cancelled;	      /* atomic */
	char **env;	      /* extra "NAME=value" for plugins */
	size_t n_env;
	struct ctx_plugin_args *plugin_args; /* cnirt_ctx_set_plugin_args() */
	size_t n_plugin_args;
};
/* CNI_ARGS pairs for the plugins of one type (cnirt_ctx_set_plugin_args()). */
struct ctx_plugin_args {
	char *plugin;
	char *args; /* joined "K=V;K=V" */
};
/* The pairs cnirt_ctx_set_plugin_args() gave for plugin type `plugin`
 * (joined), or NULL. */
const char *ctx_plugin_args(const cnirt_ctx *ctx, const char *plugin);
/* Whether cnirt_ctx_cancel() was called (and not reset). */
bool ctx_cancelled(const cnirt_ctx *ctx);

/* ------------------------------------------------------- conf.c */
struct netlist_plugin {
	char *type;
	json *conf; /* the plugin's configuration object as written */
};
struct cnirt_netlist {
	char *name;
	char *cni_version;	 /* as written in `cniVersion` (may be NULL if only cniVersions) */
	char *effective_version; /* cnirt_netlist_version() */
	bool disable_check;
	bool disable_gc;
	bool load_only_inlined; /* loadOnlyInlinedPlugins */
	struct netlist_plugin *plugins;
	size_t n_plugins;
	char *bytes; /* as loaded */
	size_t len;
	char *path;
};

/* ------------------------------------------------------- derive.c */
/*
 * Spec section 3, "Deriving execution configuration from plugin
 * configuration": the stdin of one plugin execution. Inserts cniVersion and
 * name from the list, runtimeConfig (capabilities the plugin declares true
 * that cap_args provides; omitted when empty), prevResult (when not NULL,
 * taken as is), `args.cni` (config_args, when not NULL), removes
 * `capabilities`, passes everything else through. cap_args may be NULL. Returns the serialised
 * configuration.
 */
char *derive_exec_config(const cnirt_netlist *l, size_t plugin, const json *cap_args,
			 const json *config_args, const json *prev_result, size_t *len);
/* The list's bytes with config_args (cnirt_attachment) as `args.cni` of
 * every plugin, as the cache keeps them. */
char *derive_list_bytes(const cnirt_netlist *l, const json *config_args, size_t *len);
/* Parse an attachment's config_args: NULL, or a JSON object in *out. */
int derive_parse_config_args(const char *text, json **out, cnirt_error **err);

/* ------------------------------------------------------- exec.c */
struct exec_request {
	const char *command;	  /* CNI_COMMAND */
	const char *container_id; /* may be NULL: variable left empty/unset as spec allows */
	const char *netns;
	const char *ifname;
	const char *args;   /* CNI_ARGS, already joined "K=V;K=V" */
	const char *plugin; /* the plugin's type (the preexec function's); NULL: the
			     * file's name */
	const char *stdin_data;
	size_t stdin_len;
	long long deadline; /* the operation's, CLOCK_MONOTONIC ms (0: none) */
};
/* Find plugin `type` in ctx's directories: a regular file with an execute
 * bit. `type` containing '/' is refused. */
int exec_find_plugin(const cnirt_ctx *ctx, const char *type, char **path, cnirt_error **err);
/* Run the plugin at `path` (spec section 2), under the helper process of
 * exec.c or the engine's exec function: exactly the six CNI_* variables
 * plus PATH and the ctx's extra environment, config on stdin, stdout/stderr captured with the
 * ctx's cap, the ctx's timeout (kills the process group, never waits on
 * pipes held by grandchildren), a fresh retry on ETXTBSY. Exit 0: *out gets
 * stdout (NUL terminated, may be empty). Non-zero exit: the error result is
 * parsed (code, msg, details) from stdout, else stderr, else "exit status N"
 * and returned in *err with from_plugin set and the code intact. Every
 * error has its kind, and the plugin's whole stderr if it wrote any; the
 * request's deadline and a cancellation of the ctx end it too. */
int exec_plugin(const cnirt_ctx *ctx, const char *path, const struct exec_request *req, char **out,
		size_t *out_len, cnirt_error **err);

/* ------------------------------------------------------- result.c */
/* Validate a success result whose cniVersion is `version` (spec section 5;
 * 0.1.0/0.2.0 ip4/ip6, 0.3.x/0.4.0/1.x ips/interfaces/routes/dns). */
int result_validate(const json *r, cnirt_error **err);
/* Convert a success result to `to_version` with the reference library's
 * rules. *out is a new tree with "cniVersion" set to to_version. */
int result_convert(const json *r, const char *to_version, json **out, cnirt_error **err);
/* Parse an error result: code (number), msg, details. Returns -1 if the
 * text is not an error result. */
int result_parse_error(const char *buf, size_t len, int *code, char **msg, char **details);

/* ------------------------------------------------------- cache.c */
struct cnirt_cache_entry {
	char *network;
	char *container_id;
	char *ifname;
	char *netns;
	char *config; /* decoded */
	size_t config_len;
	char **arg_keys;
	char **arg_values;
	size_t n_args;
	char *capability_args; /* JSON text or NULL */
	char *result;	       /* JSON text or NULL */
	long long mtime;
};
/* <cacheDir>/results/<network>-<id>-<ifname> after validating the three names. */
int cache_path(const cnirt_ctx *ctx, const char *network, const char *container_id,
	       const char *ifname, char **path, cnirt_error **err);
/* Write the entry atomically (dir 0700, file 0600, temp + fsync + rename). */
int cache_write(const cnirt_ctx *ctx, const cnirt_netlist *l, const cnirt_attachment *a,
		const json *result, cnirt_error **err);
/* Before an ADD runs any plugin: the entry name is valid and short enough,
 * the results directory exists (created) and is writable, and the file is
 * not another attachment's entry (names that join to the same file name). */
int cache_prepare(const cnirt_ctx *ctx, const char *network, const char *container_id,
		  const char *ifname, cnirt_error **err);
/* A cache file as cache_read_result() read it: whether it held this
 * attachment's entry, and its identity and times then. */
struct cache_seen {
	bool ours;
	struct stat st;
};
/* Remove the entry; a missing one, or another attachment's, is not an error.
 * `seen` (or NULL): the file as read before, which is not read again if it
 * was ours and is unchanged. */
int cache_remove(const cnirt_ctx *ctx, const char *network, const char *container_id,
		 const char *ifname, const struct cache_seen *seen, cnirt_error **err);
/* Read the cached result only, for prevResult. Missing or corrupt: 0 with
 * *out NULL (a corrupt entry never blocks a DEL). `seen` (or NULL) tells
 * cache_remove() what was read. */
int cache_read_result(const cnirt_ctx *ctx, const char *network, const char *container_id,
		      const char *ifname, json **out, struct cache_seen *seen, cnirt_error **err);
/* Join CNI_ARGS pairs "K=V;K=V" (NULL when there are none). */
char *cache_args_join(const cnirt_kv *args, size_t n);

/* ------------------------------------------------------- base64.c */
char *base64_encode(const void *data, size_t len);
/* Returns -1 on invalid input. */
int base64_decode(const char *s, size_t slen, char **out, size_t *out_len);

#endif
