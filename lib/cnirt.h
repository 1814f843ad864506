/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libcnirt: the runtime side of the Container Network Interface specification
 * (spec versions 0.1.0 to 1.1.0).
 *
 * Conventions used by every function of this header:
 *  - A function that can fail takes `cnirt_error **err` last and returns 0
 *    on success and a negative value on failure. err must not be NULL.
 *    *err is an out parameter like any other, with one difference: every
 *    call writes it, NULL on success and a new error object on failure (the
 *    caller's to free with cnirt_error_free()). Its previous value is never
 *    read nor freed: an uninitialised variable is fine, and an error still
 *    held in it must be freed by the caller before it is reused.
 *  - A NULL where an object or a string is required (a context, a list, an
 *    attachment, a name) is answered with an error of kind
 *    CNIRT_KIND_INVALID_ARGUMENT, not a crash.
 *  - Other out parameters are written only on success; strings handed out
 *    are the caller's to free() unless the documentation says otherwise.
 *  - JSON crosses this API as text (a pointer and a length, or a NUL
 *    terminated string).
 *  - The library never prints, never reads the environment and never calls
 *    exit(). Allocation failure is not reported: like crun, the library
 *    aborts the process when memory runs out (only the child processes it
 *    starts ever _exit()).
 *
 * Processes (see also cnirt_ctx_set_exec()): every plugin runs as a
 * grandchild of the calling process, under a short-lived helper process
 * that the library starts without an exit signal (a "clone" child in the
 * terms of waitpid(2)): the caller's waitpid(-1, ...), wait(), a SIGCHLD
 * handler, SIGCHLD set to SIG_IGN or SA_NOCLDWAIT can neither reap the
 * helper nor the plugin, so the library always gets the plugin's exit
 * status. The caller must not wait with __WALL or __WCLONE for pids it did
 * not start, nor kill process groups it does not know. The helper is a
 * copy of the caller (fork-like, without its threads); an engine that
 * cannot afford that, or wants its own process management, supplies the
 * spawning and waiting with cnirt_ctx_set_exec(); one that reaps nothing it
 * did not start may have the plugin as its own child
 * (cnirt_ctx_set_spawn_direct()). Built with
 * --enable-tsan-spawn (for ThreadSanitizer), the helper and the plugin are
 * started with fork() and the helper has SIGCHLD as exit signal: an engine
 * that reaps every child may then reap the helper (harmless: the status
 * comes through a pipe) but must leave SIGCHLD at SIG_DFL.
 *
 * Threads: the functions are thread-safe in the usual sense of POSIX:
 *  - Distinct objects may be used from any threads at once.
 *  - A cnirt_netlist, cnirt_confdir and cnirt_cache_entry are immutable
 *    once made: any number of threads may read and use one at once.
 *  - A cnirt_ctx may be used by any number of threads for operations at
 *    once (cnirt_add() ... cnirt_plugin_version(), the cnirt_cache_*()
 *    readers), provided no thread calls a cnirt_ctx_set_*() function on it
 *    meanwhile: configure it first, then share it. cnirt_ctx_cancel() may
 *    be called from any thread, and from a signal handler, at any time.
 *  - The observer, exec and preexec functions may be called from several
 *    threads at once when the ctx is shared.
 *  - Operations on the same attachment (network, container id, ifname)
 *    must not run at once: the engine serialises them, as the CNI spec
 *    asks of a runtime.
 *  - A cnirt_error belongs to the thread that received it.
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

/* What went wrong, for a program to act on without parsing messages. */
enum cnirt_error_kind {
	CNIRT_KIND_OTHER = 0,	     /* none of the below */
	CNIRT_KIND_INVALID_ARGUMENT, /* a NULL or invalid argument of a call */
	CNIRT_KIND_CONFIG,	     /* invalid configuration, names or arguments */
	CNIRT_KIND_NOT_FOUND,	     /* the plugin is in no plugin directory */
	CNIRT_KIND_NOT_EXECUTABLE,   /* found, but it cannot be executed */
	CNIRT_KIND_SPAWN,	     /* the plugin's process could not be set up */
	CNIRT_KIND_TIMEOUT,	     /* plugin timeout or operation deadline */
	CNIRT_KIND_CANCELLED,	     /* cnirt_ctx_cancel() */
	CNIRT_KIND_SIGNAL,	     /* killed by a signal: cnirt_error_signal() */
	CNIRT_KIND_OUTPUT_LIMIT,     /* stdout or stderr over the cap */
	CNIRT_KIND_LOST_STATUS,	     /* the plugin's exit status could not be had */
	CNIRT_KIND_INVALID_RESULT,   /* exit 0, but the result is not valid */
	CNIRT_KIND_PLUGIN,	     /* the plugin failed (exit status not 0) */
	CNIRT_KIND_IO,		     /* a system call failed: cnirt_error_errno() */
	CNIRT_KIND_CACHE,	     /* the result cache (missing or unusable entry) */
};
enum cnirt_error_kind cnirt_error_kind(const cnirt_error *e);
/* A short fixed name of a kind ("timeout", "signal", ...). */
const char *cnirt_error_kind_name(enum cnirt_error_kind kind);
/* The signal that killed the plugin (CNIRT_KIND_SIGNAL), or 0. */
int cnirt_error_signal(const cnirt_error *e);
/* The plugin's whole stderr, as it wrote it (not NUL-safe: use *len, which
 * may be NULL), capped by the ctx's output limit; NULL when the error does
 * not come from a plugin's execution or stderr was empty. */
const char *cnirt_error_stderr(const cnirt_error *e, size_t *len);
/* The failures of the rollback DEL that followed a failed cnirt_add() (the
 * DEL goes on past failures: one error per plugin that failed), in the
 * order they happened; e itself is the ADD's error. */
size_t cnirt_error_rollback_count(const cnirt_error *e);
const cnirt_error *cnirt_error_rollback(const cnirt_error *e, size_t i);

/* ------------------------------------------------------------- versions */

/* The spec versions this library implements, oldest first, NULL terminated. */
const char *const *cnirt_supported_versions(void);
/* Compare two "X.Y.Z" versions: <0, 0, >0. Unparsable versions compare
 * lower than any valid one. */
int cnirt_version_compare(const char *a, const char *b);

/* -------------------------------------------- the library's own version */

/* The version of this library, as run (not as compiled against), e.g. "0.1.0". */
const char *cnirt_version(void);

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

/* ------------------------------ for engines: building and editing lists */

/* The capabilities the list declares: every name some plugin declares true
 * in its `capabilities`, once, in order of first declaration. i from 0 to
 * cnirt_netlist_capability_count() - 1; the string lives as long as l. */
size_t cnirt_netlist_capability_count(const cnirt_netlist *l);
const char *cnirt_netlist_capability(const cnirt_netlist *l, size_t i);
/* A list of one from a single plugin configuration (libcni's
 * ConfListFromConf): as cnirt_netlist_parse() wraps it, but bytes that hold
 * a list (`plugins`) are refused. */
int cnirt_netlist_from_conf(const char *bytes, size_t len, const char *origin, cnirt_netlist **out,
			    cnirt_error **err);
/* A new list: l with `key` of plugin i's configuration set to the JSON
 * value `value_json` (libcni's InjectConf), replaced in place when present,
 * else appended; the result is validated again and its bytes (what the
 * cache stores) are the edited list. An empty key, a null value, a value
 * that is not JSON and a plugin index out of range are errors. l is left
 * as it is. */
int cnirt_netlist_inject(const cnirt_netlist *l, size_t i, const char *key, const char *value_json,
			 cnirt_netlist **out, cnirt_error **err);
/* Plugin folders (libcni 1.3): a `.conflist` loaded from a file (by
 * cnirt_netlist_load_file() or a directory scan) gets the plugin
 * configurations of <directory of the file>/<network name>/ (the files
 * ending in .conf) appended to its chain, in file name order, unless the
 * list sets "loadOnlyInlinedPlugins": true. Such a list may leave out
 * `plugins` when
 * its folder has some (not with loadOnlyInlinedPlugins); "plugins": [] is
 * an error either way. A missing folder is none; an unreadable folder or a
 * file that is not a plugin configuration with a `type` fails the list.
 * The folder's plugins are part of cnirt_netlist_bytes() (and so of the
 * cache). `.conf`/`.json` files and parsed bytes have no folder. */

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
/* The preexec function told which plugin it prepares: `plugin` is the type
 * of the plugin's configuration ("bridge"; for cnirt_plugin_version() the
 * type asked for). Same rules as cnirt_preexec_fn; when set it is called
 * instead of the cnirt_ctx_set_preexec() function (fn NULL: not set). */
typedef int (*cnirt_plugin_preexec_fn)(void *data, const char *plugin);
void cnirt_ctx_set_plugin_preexec(cnirt_ctx *ctx, cnirt_plugin_preexec_fn fn, void *data);
/* The observer, told of every plugin execution (for logging and timing),
 * VERSION probing and a plugin that is not found included. ev and what it
 * points to live for the call only. */
typedef struct cnirt_event {
	const char *network; /* NULL for cnirt_plugin_version() */
	const char *plugin;
	const char *command;
	const char *container_id; /* NULL for STATUS, GC and VERSION */
	const char *ifname;
	long long usec;
	const cnirt_error *err; /* NULL on success */
	bool rollback;		/* a DEL of the rollback after a failed ADD */
} cnirt_event;
typedef void (*cnirt_event_fn)(void *data, const cnirt_event *ev);
void cnirt_ctx_set_event_observer(cnirt_ctx *ctx, cnirt_event_fn fn, void *data);
/* The running result of an ADD, handed to the engine after each plugin's
 * successful ADD and before the next plugin starts (the last plugin's too,
 * before the result is cached): what the plugins of the list made so far,
 * as the prevResult of the next one (in the list's version). An engine
 * that can be killed in the middle of an ADD keeps it where it survives
 * the process (not in the result cache, which other runtimes read as
 * finished ADDs), so that its recovery DEL can give it as prevResult
 * (cnirt_del_with_result()). ev and what it points to live for the call
 * only. The function returns 0, or an errno value that fails the ADD
 * (CNIRT_KIND_IO, rolled back as any failure unless
 * CNIRT_ADD_NO_ROLLBACK). */
typedef struct cnirt_add_step {
	const char *network;
	const char *container_id;
	const char *ifname;
	const char *plugin; /* the type of the plugin that just ADDed */
	size_t index;	    /* its place in the list, from 0 */
	const char *result; /* the running result, JSON text, NUL terminated */
	size_t result_len;
} cnirt_add_step;
typedef int (*cnirt_add_step_fn)(void *data, const cnirt_add_step *step);
void cnirt_ctx_set_add_step(cnirt_ctx *ctx, cnirt_add_step_fn fn, void *data);

/* ----------------------------------- the runtime: engines' process control */

/* The budget of one whole operation (cnirt_add(), cnirt_check(),
 * cnirt_del(), cnirt_del_cached(), cnirt_status(), cnirt_gc(),
 * cnirt_validate()), in milliseconds (0, the default: none). Every plugin
 * execution ends by min(per-plugin timeout, the operation's deadline).
 * The rollback's share: cnirt_add() runs its ADDs within the first three
 * quarters of the budget and keeps the last quarter (at least) for the
 * rollback DEL of a failure, whose plugins stop at the operation's
 * deadline; so
 * cnirt_add() returns within the budget (plus the few milliseconds of
 * killing and reaping) even when a plugin hangs in both ADD and DEL.
 * cnirt_gc()'s DELs of stale cached attachments and its GC executions
 * share its one budget.
 * Without a budget each execution, the rollback's included, has the
 * per-plugin timeout: a plugin that hangs in ADD and DEL costs twice. */
void cnirt_ctx_set_deadline_ms(cnirt_ctx *ctx, unsigned ms);
/* Cancel: the plugin running in any operation of ctx is killed (with its
 * process group) and the operation fails with CNIRT_KIND_CANCELLED; every
 * later operation of ctx fails the same way at once, the rollback DEL of
 * a cancelled cnirt_add() included (run cnirt_del() yourself once you have
 * reset), until cnirt_ctx_reset_cancel(). Async-signal-safe and
 * thread-safe: callable from any thread or a signal handler. */
void cnirt_ctx_cancel(cnirt_ctx *ctx);
/* Make ctx usable again after cnirt_ctx_cancel() (not while an operation
 * of ctx runs). */
void cnirt_ctx_reset_cancel(cnirt_ctx *ctx);

/* Extra environment for plugins. By default a plugin gets exactly the six
 * CNI_* variables and PATH. cnirt_ctx_set_env() adds NAME=value to every
 * execution (value NULL removes it); names starting with "CNI_", "PATH"
 * and names that are empty or contain '=' are refused (configuration
 * error). Among the uses: the W3C trace context, which libcni passes on
 * since it added tracing: an engine that has TRACEPARENT, TRACESTATE or
 * BAGGAGE sets them here (cnihook passes its own). */
#define CNIRT_TRACE_ENV_NAMES                                                                      \
	{                                                                                          \
		"TRACEPARENT", "TRACESTATE", "BAGGAGE"                                             \
	}
int cnirt_ctx_set_env(cnirt_ctx *ctx, const char *name, const char *value, cnirt_error **err);

/*
 * The engine runs the plugins (as libcni's invoke.Exec lets a Go engine
 * do): for an engine that manages its processes itself, or cannot afford
 * the library's helper process (a fork-like copy of itself). The function
 * runs the program `path` with argv and exactly envp as its environment,
 * the `stdin_len` bytes of stdin_data as stdin, collects stdout and stderr
 * (each at most output_limit bytes, 0: no cap), kills the plugin (best: its
 * process group) after timeout_ms (0: none) or once cancel_fd (a descriptor
 * to poll, or -1) is readable, waits for it and fills the outcome. The
 * library has done all the rest: finding the plugin, the configuration,
 * and after it the interpretation (error result, code, the error kinds)
 * exactly as for its own executions. The preexec function is not called.
 * Returns 0 when the outcome is filled, or an errno value when the plugin
 * could not be run or waited for at all.
 */
typedef struct cnirt_exec_call {
	const char *path;
	char *const *argv;
	char *const *envp;
	const char *stdin_data;
	size_t stdin_len;
	long long timeout_ms;
	size_t output_limit;
	int cancel_fd;
} cnirt_exec_call;
typedef struct cnirt_exec_outcome {
	char *out; /* stdout, malloc()ed: the library frees it (NULL: empty) */
	size_t out_len;
	char *err; /* stderr, the same */
	size_t err_len;
	int wait_status;  /* as waitpid() gives it */
	int exec_errno;	  /* not 0: the program could not be executed */
	bool timed_out;	  /* killed at timeout_ms */
	bool cancelled;	  /* killed for cancel_fd */
	bool over_limit;  /* an output went over output_limit */
	bool status_lost; /* it ran, but its wait status is not known */
} cnirt_exec_outcome;
typedef int (*cnirt_exec_fn)(void *data, const cnirt_exec_call *call, cnirt_exec_outcome *out);
void cnirt_ctx_set_exec(cnirt_ctx *ctx, cnirt_exec_fn fn, void *data);

/* A caller that owns its process model may save the helper process (a
 * fork-like copy of it per plugin, see "Processes" above): with `direct`
 * true the plugin is the caller's own child, started the same way and waited
 * for with waitid() on its pid and a pidfd (Linux 5.3). The caller promises
 * that nothing in the process waits for children it did not start (no
 * waitpid(-1), wait() or reaping SIGCHLD handler, in any thread) while an
 * operation runs; a SIGCHLD set to SIG_IGN or with SA_NOCLDWAIT is detected
 * and keeps the helper. cnihook, a single-threaded program that reaps
 * nothing else, sets it. Off by default. */
void cnirt_ctx_set_spawn_direct(cnirt_ctx *ctx, bool direct);

/* One CNI_ARGS pair. */
typedef struct cnirt_kv {
	const char *key;
	const char *value;
} cnirt_kv;

/* CNI_ARGS pairs for the plugins of one type only: appended to the
 * attachment's pairs in every execution of a plugin whose configuration's
 * "type" is `plugin`, in every operation of ctx on an attachment (ADD,
 * CHECK, DEL, the rollback DEL, cnirt_del_cached()), and in no other
 * plugin's. For a pair that one plugin needs and that others would read
 * otherwise (dnsname's K8S_POD_NAME, which Kubernetes plugins take as a
 * sign of a pod). The pairs replace those given before for the type; n 0
 * removes them. Keys non-empty without '=' or ';', values without ';'
 * (configuration error otherwise). They are not cached: a DEL from the
 * cache entry by another program does not have them. */
int cnirt_ctx_set_plugin_args(cnirt_ctx *ctx, const char *plugin, const cnirt_kv *args, size_t n,
			      cnirt_error **err);

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
 * NULL, handed out. On failure the list is DELeted in reverse order (the
 * rollback, going on past failures) and the original error is returned,
 * with the rollback's failures in cnirt_error_rollback(). Before the first
 * plugin runs, everything that can be checked is: the attachment's
 * parameters, the cache entry (its file name within NAME_MAX, the results
 * directory created and writable, the file not holding another attachment's
 * entry: (network "a-b", id "c") and (network "a", id "b-c") share
 * "a-b-c-<ifname>"), and that every plugin is found; such failures run no
 * plugin at all. */
int cnirt_add(cnirt_ctx *ctx, const cnirt_netlist *l, const cnirt_attachment *a, char **result_json,
	      cnirt_error **err);
/* ------------------------------------ for engines: ADD without rollback */

enum {
	/* On failure, DEL nothing: the engine undoes the ADD its own way (for
	 * example cnirt_del(), which then has no cached result to give). */
	CNIRT_ADD_NO_ROLLBACK = 1u << 0,
};
/* cnirt_add() with flags (CNIRT_ADD_*; 0 is cnirt_add()). Unknown flags
 * are an error. */
int cnirt_add_with_flags(cnirt_ctx *ctx, const cnirt_netlist *l, const cnirt_attachment *a,
			 unsigned flags, char **result_json, cnirt_error **err);

/* CHECK (lists of version 0.4.0 and later; immediate success when
 * disableCheck). The cached result is the prevResult of the first plugin. */
int cnirt_check(cnirt_ctx *ctx, const cnirt_netlist *l, const cnirt_attachment *a,
		cnirt_error **err);
/* DEL in reverse order with the cached result as prevResult (>= 0.4.0). The
 * cache entry is removed on success, kept on failure. A corrupt cache entry
 * never blocks a DEL. */
int cnirt_del(cnirt_ctx *ctx, const cnirt_netlist *l, const cnirt_attachment *a, cnirt_error **err);
/* cnirt_del() for an engine that kept the running result of an ADD that
 * never reached the cache (cnirt_ctx_set_add_step()): when the cache holds
 * no usable result for the attachment, `prev_result` (a success result of
 * any version, JSON text; NULL: none) is the prevResult (>= 0.4.0),
 * converted to the list's version. A prev_result that is not a valid
 * result is treated as none, as a corrupt cache entry is: it never blocks
 * a DEL. */
int cnirt_del_with_result(cnirt_ctx *ctx, const cnirt_netlist *l, const cnirt_attachment *a,
			  const char *prev_result, cnirt_error **err);
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
 * cni.dev/valid-attachments and, as the reference library sends it too for
 * plugins of an earlier draft, the same array as cni.dev/attachments. Goes
 * on past failures; returns the first. */
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
/* The addresses of a success result, "address/prefix" each, as its
 * conversion to 1.0.0 writes them: in the order of "ips" ("ip4" then "ip6"
 * for 0.1.0 and 0.2.0), in canonical text (RFC 5952 for IPv6; an
 * IPv4-mapped address as IPv4). *out holds *n strings and a NULL after
 * them, to free with cnirt_result_ips_free(). A result that is not valid
 * is an error, as for cnirt_result_validate(). */
int cnirt_result_ips(const char *json, size_t len, char ***out, size_t *n, cnirt_error **err);
void cnirt_result_ips_free(char **v, size_t n);

/* ---------------------------------------------------------------- cache */

/* One entry of the result cache (format shared with the reference library). */
typedef struct cnirt_cache_entry cnirt_cache_entry;
/* Read the entry for (network, container id, ifname). Missing: 0 and *out
 * NULL; so is an entry whose own names are another attachment's (names
 * that join to the same file name). Every read of an entry (CHECK's and
 * DEL's prevResult, DEL's removal) checks its names the same way. */
int cnirt_cache_get(const cnirt_ctx *ctx, const char *network, const char *container_id,
		    const char *ifname, cnirt_cache_entry **out, cnirt_error **err);
/* Every readable entry of the cache, sorted by file name; the files that
 * are not readable entries are in cnirt_cache_list_damaged() instead. */
int cnirt_cache_list(const cnirt_ctx *ctx, cnirt_cache_entry ***out, size_t *n, cnirt_error **err);
/* The entry in the file `name` of <cacheDir>/results, read and checked as
 * cnirt_cache_list() reads each (its fields must give that name). Missing:
 * 0 and *out NULL; not a readable entry: -1. */
int cnirt_cache_get_file(const cnirt_ctx *ctx, const char *name, cnirt_cache_entry **out,
			 cnirt_error **err);
/* The readable entries of one container, sorted by file name: only the
 * files whose name holds "-<container_id>-" are read, so the cost grows
 * with the directory's names, not with its entries' contents. */
int cnirt_cache_list_container(const cnirt_ctx *ctx, const char *container_id,
			       cnirt_cache_entry ***out, size_t *n, cnirt_error **err);
/* cnirt_gc() with the cache as the caller read it (`cache`, n_cache
 * entries, as cnirt_cache_list() gives them), so that a caller that read it
 * already does not have it read again. */
int cnirt_gc_cached(cnirt_ctx *ctx, const cnirt_netlist *l, const cnirt_attachment_id *valid,
		    size_t n, cnirt_cache_entry *const *cache, size_t n_cache, cnirt_error **err);
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

/* --------------------- for engines: a container's attachments, a result */

/* The cached attachments of one container (libcni's
 * GetCachedAttachments): the readable entries whose containerId is
 * `container_id`, sorted by file name. Free with cnirt_cache_entries_free(). */
int cnirt_cache_attachments(const cnirt_ctx *ctx, const char *container_id,
			    cnirt_cache_entry ***out, size_t *n, cnirt_error **err);
/* The cached result of one attachment, validated and converted to
 * `to_version` (NULL: as cached), as pretty JSON text. No entry or no
 * result: 0 and *result_json NULL. A result that is invalid or cannot be
 * converted is an error. */
int cnirt_cache_result(const cnirt_ctx *ctx, const char *network, const char *container_id,
		       const char *ifname, const char *to_version, char **result_json,
		       cnirt_error **err);

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
