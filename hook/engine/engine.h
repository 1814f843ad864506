/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The engine: attach a container's networks, detach them. Attach checks
 * everything before the first plugin runs, writes the attachment record,
 * pins the namespace, and attaches the networks in order; any failure
 * detaches what was attached and leaves nothing behind. Detach works from
 * the record and the cache (never from /proc/<pid>), in reverse order, and
 * succeeds when repeated, without an attach, or after the state directory
 * was wiped. The OCI stages (cmd/stage.c), the CNI plugin (cmd/cni-plugin.c)
 * and gc (cmd/gc.c) call it; each call logs its own events and reports its
 * failures once, at its end.
 */
#ifndef CNIHOOK_ENGINE_ENGINE_H
#define CNIHOOK_ENGINE_ENGINE_H

#include <stddef.h>
#include <sys/types.h>

#include "conf/hookconf.h"
#include "request/annotations.h"
#include "state/network-status.h"

/* The code of a failure of cnihook's own (not a plugin's), in the CNI
 * plugin's error result. */
#define ENGINE_OWN_ERROR 999

/* A failure of an attach or detach: the first one is handed back to a
 * caller that reports it itself (the CNI plugin's error result); every one
 * is logged. */
struct engine_failure {
	int code;  /* the failing plugin's CNI code, else ENGINE_OWN_ERROR */
	char *msg; /* `network "N": plugin "P": CNI error C: message`, or cnihook's own */
};

/* The container of an OCI hook stage. */
struct engine_container {
	const char *id;	    /* its key in its engine scope: CNI_CONTAINERID */
	const char *stage;  /* for messages */
	const char *bundle; /* tells containers of one id apart */
	const char *name;   /* the name users know, when it is not the id, or NULL */
	/* The name the dnsname plugin answers for (plugin-args.h):
	 * io.cnihook.name, else config.json's hostname; or NULL */
	const char *hostname;
	const char *oci_id; /* the id as its engine names it (names/names.h) */
	pid_t pid;
};

/* Attach a selection (parsed and checked against the policy) to the hook's
 * container: the namespace at `source` is pinned; `by` is the annotation
 * that selected the networks (NULL: cnihook.json's defaultNetworks). The
 * interface names cnihook chose may be changed for free ones (attach.c).
 * 0 or -1 (logged). */
int engine_attach_container(const struct hook_config *cfg, const struct engine_container *c,
			    struct selection *sel, const char *by, const char *source);
/* A member of a podman pod (request/kube-pod.h): the networks are the
 * pod's, attached once under the id of its infra container (c->id) in the
 * namespace the members share, when its first annotated member starts;
 * each member that asks the same joins them, one that asks otherwise is
 * refused (state/pod-members.h). */
struct engine_pod {
	const char *member;  /* the member's id */
	const char *request; /* annotations_request_digest() of its annotations */
};
int engine_attach_pod_member(const struct hook_config *cfg, const struct engine_container *c,
			     const struct engine_pod *pod, struct selection *sel, const char *by,
			     const char *source);
/* The member `member` of the pod `pod` stopped: it leaves the pod's
 * networks, and the last one detaches them. 0, -1 (logged), or 1 when the
 * pod does not list it (nothing done). */
int engine_detach_pod_member(const struct hook_config *cfg, const char *pod, const char *member,
			     const char *stage);

/* Detach the hook's container (poststop), waiting for its lock. A record of
 * another bundle is left alone. 0 or -1 (logged). */
int engine_detach_container(const struct hook_config *cfg, const struct engine_container *c);

/* Detach container `id` as poststop does (record, else cache), for gc:
 * without waiting for its lock. 0 done, 1 busy (its lock is held), -1
 * failed (logged); *detached gets how many attachments were torn down. */
int engine_detach(const struct hook_config *cfg, const char *id, const char *stage,
		  size_t *detached);

/* An attachment made from the cluster network's chain (the CNI plugin,
 * cmd/cni-plugin.c) rather than from an OCI hook. */
struct engine_target {
	const char *id;		 /* CNI_CONTAINERID */
	const char *stage;	 /* for messages: ADD, DEL, GC */
	const char *selected_by; /* the annotation that selected the networks */
	/* CNI_NETNS: the runtime's namespace, used as it is (never pinned);
	 * for DEL it may be "" (then the recorded one, if still there). */
	const char *netns;
	/* The cluster attachment (network = the list's name, ifname =
	 * CNI_IFNAME or NULL for any, result = prevResult): listed first in
	 * network-status, never detached. */
	const struct network_status_entry *primary;
	struct engine_failure *why; /* may be NULL */
};

/* Attach a selection (parsed and checked against the policy) as the hook
 * does, in the runtime's namespace. 0 or -1 (logged, and in t->why). */
int engine_attach(const struct hook_config *cfg, const struct engine_target *t,
		  struct selection *sel);
/* Detach what t->id has (its record, else its cache entries but the
 * cluster attachment) in reverse, under its lock. Nothing to detach is
 * success. */
int engine_detach_target(const struct hook_config *cfg, const struct engine_target *t);

#endif
