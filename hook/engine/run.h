/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One run of the engine (an attach or a detach of one container): what
 * attach.c and detach.c share, never used outside engine/. A step that
 * fails records its message in the run (run_failed()) and returns -1; the
 * entry point that started the run reports every recorded failure once,
 * at its end (run_report()).
 */
#ifndef CNIHOOK_ENGINE_RUN_H
#define CNIHOOK_ENGINE_RUN_H

#include <stdbool.h>
#include <sys/types.h>

#include <cnirt.h>

#include "conf/hookconf.h"
#include "engine/engine.h"
#include "state/record.h"

struct engine_run {
	const struct hook_config *cfg;
	const char *stage; /* as named on the command line or inferred */
	const char *id;
	cnirt_ctx *ctx;
	long long plugin_usec;
	long long start_usec;
	/* The CNI plugin (NULL for the hook and gc): the namespace is the
	 * runtime's, never pinned; the cluster attachment is listed first
	 * and never detached; the first failure is handed back. */
	const struct engine_target *t;
	/* The hook's container (engine.h): its bundle, its name when that is
	 * not its id, its process; NULL and 0 for gc and the CNI plugin. */
	const char *bundle;
	const char *name;
	const char *hostname; /* engine_container's */
	/* A plugin of the selection takes the name (name_plugins() in
	 * attach.c): the record keeps it for the DEL. */
	bool name_to_plugins;
	const char *oci_id;
	pid_t pid;
	size_t detached; /* attachments a detach tore down */
	/* The namespace holds another program's interfaces (the engine's own
	 * network, whose interface is the container's first, or holds its
	 * default route): no attachment is the default unless its annotation
	 * asks for "default-route". */
	bool foreign_default;
	/* The failures recorded by run_failed(), in order. */
	struct engine_failure *failures;
	size_t n_failures;
};

/* A run with its libcnirt context (observed for the timings and the
 * plugins' debug lines); run_end() frees what it holds. */
void run_begin(struct engine_run *r, const struct hook_config *cfg, const char *id,
	       const char *stage);
void run_end(struct engine_run *r);
/* Record a failure: the code is the plugin's CNI code, else
 * ENGINE_OWN_ERROR. */
void run_failed(struct engine_run *r, int code, const char *msg);
/* Record a libcnirt failure (and free e). */
void run_failed_cni(struct engine_run *r, const char *network, cnirt_error *e);
/* A failed ADD's rollback that failed too (cnirt_error_rollback()): a
 * possible leak, one warning line each. */
void run_warn_rollback(const struct engine_run *r, const char *network, const cnirt_error *e);
/* Log every recorded failure (one line each, error level), and hand the
 * first to the CNI plugin's caller (t->why). */
void run_report(struct engine_run *r);

/* "... in N ms (plugins N ms, own N ms)" of the run so far. */
void run_log_done(const struct engine_run *r, const char *what, size_t n);

/* The namespace for DEL: the one the CNI plugin was given, else NULL. */
const char *run_given_netns(const struct engine_run *r);

#endif
