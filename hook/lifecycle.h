/* SPDX-License-Identifier: Apache-2.0 */
/* The hook's stages: attach at createRuntime/prestart, detach at poststop. */
#ifndef CNIHOOK_LIFECYCLE_H
#define CNIHOOK_LIFECYCLE_H

#include "annotations.h"
#include "hookconf.h"
#include "netstatus.h"

enum stage {
	STAGE_NONE, /* infer from the state's status */
	STAGE_ATTACH,
	STAGE_DETACH,
};

/* createRuntime, prestart -> attach; poststop -> detach. -1 otherwise. */
int stage_parse(const char *s, enum stage *out);
/* Run a stage on the OCI state read from fd; returns the exit status. */
int lifecycle_run(const struct hook_config *cfg, enum stage stage, const char *stage_name, int fd);
/* Detach container `id` as poststop does (record, else cache), for gc:
 * without waiting for its lock. 0 done, 1 busy (its lock is held), -1
 * failed (logged); *detached gets how many attachments were torn down. */
int lifecycle_detach(const struct hook_config *cfg, const char *id, const char *stage,
		     size_t *detached);

/* The code of a failure of cnihook's own (not a plugin's), in the CNI
 * plugin's error result. */
#define LIFECYCLE_OWN_ERROR 999

/* The first failure of an attach or detach, for a caller that reports it
 * itself (the CNI plugin's error result); it is logged as well. */
struct lifecycle_failure {
	int code;  /* the failing plugin's CNI code, else LIFECYCLE_OWN_ERROR */
	char *msg; /* `network "N": plugin "P": CNI error C: message`, or cnihook's own */
};

/* An attachment made from the cluster network's chain (the CNI plugin,
 * cniplugin.c) rather than from an OCI hook. */
struct lifecycle_target {
	const char *id;		 /* CNI_CONTAINERID */
	const char *stage;	 /* for messages: ADD, DEL, GC */
	const char *selected_by; /* the annotation that selected the networks */
	/* CNI_NETNS: the runtime's namespace, used as it is (never pinned);
	 * for DEL it may be "" (then the recorded one, if still there). */
	const char *netns;
	/* The cluster attachment (network = the list's name, ifname =
	 * CNI_IFNAME or NULL for any, result = prevResult): listed first in
	 * network-status, never detached. */
	const struct status_entry *primary;
	struct lifecycle_failure *why; /* may be NULL */
};

/* Attach a selection (parsed and checked against the policy) as the hook
 * does: prepared before any plugin runs, recorded, attached in order, rolled
 * back on failure, network-status written. 0 or -1 (logged, and in
 * t->why). */
int lifecycle_attach(const struct hook_config *cfg, const struct lifecycle_target *t,
		     const struct selection *sel);
/* Detach what t->id has (its record, else its cache entries but the
 * cluster attachment) in reverse, under its lock. Nothing to detach is
 * success. */
int lifecycle_detach_target(const struct hook_config *cfg, const struct lifecycle_target *t);

#endif
