/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The OCI hook's stages: createRuntime (or prestart) attaches, poststop
 * detaches (stage.h). The state on stdin and the bundle's config.json say
 * which container; its annotations, read once through request.h, and the
 * policy what to attach; the engine (engine.h) carries it out. This file
 * reports what fails before the engine runs; the engine reports its own
 * failures.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "cmd/gc.h"
#include "cmd/stage.h"
#include "engine/engine.h"
#include "engine/rootless.h"
#include "host/userns.h"
#include "request/oci-state.h"
#include "request/request.h"
#include "state/layout.h"
#include "state/netns-pin.h"

#define STATE_MAX_SIZE (1u << 20)

/* What the stage knows of its run before the engine starts. */
struct hook_call {
	const struct hook_config *cfg;
	const char *stage;
	const char *id; /* the key in its engine scope (oci-state.h) */
	/* Rootless podman (engine/rootless.h): the user, or NULL and why none. */
	struct rootless_user *rl;
	const char *rl_why;
};

/* The network namespace to attach (*source), as the request, config.json
 * or the state give it: 1 when the container is left alone (it shares the
 * host's namespace, or joins one attached already), -1 when it cannot be
 * attached (*err). */
static int namespace_source(const struct hook_call *r, const struct oci_state *st,
			    const struct selection *sel, const char *by, char **source, char **err)
{
	if (!st->netns_in_config) {
		if (by) {
			*err =
			    xasprintf("annotation \"%s\": the container has no network namespace "
				      "of its own (it shares the host's): refusing to attach "
				      "networks to the host",
				      by);
			return -1;
		}
		log_info("%s %s: left alone: the container shares the host's network namespace",
			 r->id, r->stage);
		return 1;
	}
	if (sel->netns) {
		/* Allowed by the policy (a VM runtime's namespace, say). */
		*source = xstrdup(sel->netns);
	} else if (st->netns_path) {
		if (netns_pin_index_find(r->cfg->state_dir, st->netns_path, r->id)) {
			log_info("%s %s: left alone: it joins the network namespace of another "
				 "attached container (%s)",
				 r->id, r->stage, st->netns_path);
			return 1;
		}
		*source = xstrdup(st->netns_path);
	} else if (st->pid > 0) {
		*source = xasprintf("/proc/%d/ns/net", (int)st->pid);
	} else {
		*err = xstrdup("OCI state: field \"pid\": needed to find the network namespace, "
			       "but absent or 0");
		return -1;
	}
	/* Never the host's own namespace, whatever config.json or the state
	 * says (a path to /proc/1/ns/net, the pid of a host process...). */
	if (netns_pin_refuse_host(*source, err) < 0) {
		free(TAKE_PTR(*source));
		return -1;
	}
	return 0;
}

/* The container's request, as the policy allows it; req->sel.n is 0 when
 * there is nothing to attach. */
static int build_request(const struct hook_call *r, const struct oci_state *st, struct request *req,
			 char **err)
{
	const struct container_defaults d = {
	    .networks = r->cfg->default_networks,
	    .n_networks = r->cfg->n_default_networks,
	    .container_id = st->id,
	};
	if (request_build(&r->cfg->policy, &st->annotations, &d, req, err) < 0)
		return -1;
	if (req->sel.skip_reason)
		log_info("%s %s: left alone: %s", r->id, r->stage, req->sel.skip_reason);
	return 0;
}

/* A failure before the engine runs: the stage's one line. */
static void stage_fail(const struct hook_call *r, const char *msg)
{
	log_error("%s %s: %s", r->id ? r->id : "-", r->stage, msg);
}

/* Attach the request: a pod member joins its pod's networks, any other
 * container gets its own. */
static int attach_selected(struct hook_call *r, const struct oci_state *st, struct request *req,
			   char **err)
{
	struct selection *sel = &req->sel;
	const char *by = req->by;
	_cleanup_free_ char *source = NULL;
	/* A podman pod's member: the networks are the pod's, under its infra
	 * container's id, in the namespace the members share. */
	if (sel->pod_id)
		r->id = sel->pod_id;
	int ret = namespace_source(r, st, sel, by, &source, err);
	if (ret == 0 && sel->pod_id) {
		struct engine_container c = {.id = r->id,
					     .stage = r->stage,
					     .hostname = sel->name ? sel->name : st->hostname};
		struct engine_pod pod = {.member = st->key, .request = req->digest};
		ret = engine_attach_pod_member(r->cfg, &c, &pod, sel, by, source);
	} else if (ret == 0) {
		struct engine_container c = {
		    .id = r->id,
		    .stage = r->stage,
		    .bundle = st->bundle,
		    .name = strcmp(st->name, st->key) != 0 ? st->name : NULL,
		    .hostname = sel->name ? sel->name : st->hostname,
		    .oci_id = st->id,
		    .pid = st->pid,
		};
		ret = engine_attach_container(r->cfg, &c, sel, by, source);
	} else if (ret > 0) {
		ret = 0;
	}
	return ret;
}

/* What the rootless stages run inside the user's namespace. */
struct in_netns {
	struct hook_call *r;
	const struct oci_state *st;
	struct request *req;
};

/* A failure before the engine runs comes back in *err, to the parent,
 * which reports it; the engine reports its own. */
static int attach_in_netns(void *data, char **err)
{
	struct in_netns *d = data;
	return attach_selected(d->r, d->st, d->req, err);
}

static int detach_container(const struct hook_call *r, const struct oci_state *st);

static int detach_in_netns(void *data, char **err)
{
	struct in_netns *d = data;
	return detach_container(d->r, d->st);
}

/* Rootless podman: the request attached in the user's rootless network
 * namespace (engine/rootless.h), or a refusal that says what is missing. */
static int attach_rootless(struct hook_call *r, const struct oci_state *st, struct request *req,
			   char **err)
{
	struct selection *sel = &req->sel;
	if (!r->rl) {
		_cleanup_free_ char *where = userns_describe();
		*err = xasprintf("the container asks for networks (%s), but cnihook runs in %s "
				 "(rootless podman?) and %s: no rootless network namespace "
				 "(cnihook(8), ROOTLESS)",
				 req->by ? req->by : "defaultNetworks", where, r->rl_why);
		return -1;
	}
	/* A pod member: the attachment, its status and its forwarder are the
	 * pod's (attach_selected() keys them by its infra container's id). */
	const char *id = sel->pod_id ? sel->pod_id : r->id;
	_cleanup_free_ char *status = layout_status(r->cfg->state_dir, id);
	struct rootless_call c = {.cfg = r->cfg,
				  .user = r->rl,
				  .id = r->id,
				  .attachment = id,
				  .stage = r->stage,
				  .status_path = status,
				  .collect_gone = gc_collect_gone};
	struct in_netns d = {.r = r, .st = st, .req = req};
	return rootless_attach(&c, sel, attach_in_netns, detach_in_netns, &d, err);
}

static int attach(struct hook_call *r, const struct oci_state *st)
{
	struct request req = {0};
	_cleanup_free_ char *err = NULL;
	int ret = build_request(r, st, &req, &err);
	if (ret == 0 && req.sel.n > 0 && !req.sel.skip_reason) {
		if (userns_is_host())
			ret = attach_selected(r, st, &req, &err);
		else
			ret = attach_rootless(r, st, &req, &err);
	}
	if (ret < 0 && err)
		stage_fail(r, err);
	request_free(&req);
	return ret;
}

/* The OCI state on `fd`, with config.json loaded when the stage needs it
 * (poststop needs nothing of it: the record and the cache say what to tear
 * down, and a bundle damaged since the container started must not keep
 * its networks attached). The stage is inferred from the status when
 * *stage is STAGE_NONE. */
static int read_state(struct hook_call *r, int fd, enum stage *stage, struct oci_state **out,
		      char **err)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_free_ char *e = NULL;
	size_t len;
	if (read_all_fd(fd, STATE_MAX_SIZE, &buf, &len, &e) < 0) {
		*err = xasprintf("OCI state on stdin: %s", e);
		return -1;
	}
	struct oci_state *st = NULL;
	if (oci_state_parse_state(buf, len, &st, err) < 0)
		return -1;
	*out = st; /* the caller's, also on failure: r->id is its key */
	/* The id in the container's engine scope (CNI_CONTAINERID, the state
	 * directory's name); the bundle tells containers of one id apart. */
	r->id = st->key;
	if (*stage == STAGE_NONE) {
		if (strcmp(st->status, "creating") == 0 || strcmp(st->status, "created") == 0) {
			*stage = STAGE_ATTACH;
			r->stage = "createRuntime";
		} else if (strcmp(st->status, "stopped") == 0) {
			*stage = STAGE_DETACH;
			r->stage = "poststop";
		} else {
			*err = xasprintf("OCI state: field \"status\": \"%s\" names no stage (give "
					 "createRuntime or poststop)",
					 st->status);
			return -1;
		}
	}
	if (oci_state_load_config(st, false, err) < 0) {
		if (*stage == STAGE_ATTACH) {
			return -1;
		}
		log_warn("%s %s: %s; not needed to detach, going on", r->id, r->stage, *err);
		free(TAKE_PTR(*err));
	}
	if (*stage == STAGE_ATTACH && !st->has_config) {
		*err = st->bundle
			   ? xasprintf("OCI state: field \"bundle\": no readable config.json "
				       "in \"%s\"",
				       st->bundle)
			   : xstrdup("OCI state: field \"bundle\": missing, config.json "
				     "cannot be read");
		return -1;
	}
	return 0;
}

/* Does the state directory hold anything of attachment `id` (the
 * container's, or its pod's) that this process can read? */
static bool state_reachable(const struct hook_config *cfg, const char *id)
{
	_cleanup_free_ char *dir = layout_container_dir(cfg->state_dir, id);
	return access(dir, R_OK | X_OK) == 0;
}

/* poststop: a podman pod's annotated member leaves its pod's networks (the
 * last one detaches them); any other container is detached by its id. */
static int detach_container(const struct hook_call *r, const struct oci_state *st)
{
	const char *pod = request_joined_pod(&st->annotations);
	if (pod) {
		int ret = engine_detach_pod_member(r->cfg, pod, st->key, r->stage);
		if (ret != 1)
			return ret;
	}
	struct engine_container c = {.id = r->id, .stage = r->stage, .bundle = st->bundle};
	return engine_detach_container(r->cfg, &c);
}

static int detach(struct hook_call *r, const struct oci_state *st)
{
	if (userns_is_host())
		return detach_container(r, st);
	const char *pod = request_joined_pod(&st->annotations);
	const char *id = pod ? pod : r->id;
	if (!r->rl || !state_reachable(r->cfg, id)) {
		_cleanup_free_ char *where = userns_describe();
		log_info("%s %s: nothing to detach: cnihook runs in %s and attached nothing "
			 "to it",
			 r->id, r->stage, where);
		return 0;
	}
	struct rootless_call c = {.cfg = r->cfg,
				  .user = r->rl,
				  .id = r->id,
				  .attachment = id,
				  .stage = r->stage,
				  .collect_gone = gc_collect_gone};
	struct in_netns d = {.r = r, .st = st};
	_cleanup_free_ char *err = NULL;
	int ret = rootless_detach(&c, detach_in_netns, &d, &err);
	if (ret < 0 && err)
		stage_fail(r, err);
	return ret;
}

int stage_run(const struct hook_config *cfg, struct rootless_user *rl, const char *rl_why,
	      enum stage stage, const char *stage_name, int fd)
{
	struct hook_call r = {
	    .cfg = cfg, .stage = stage_name ? stage_name : "hook", .rl = rl, .rl_why = rl_why};
	_cleanup_free_ char *err = NULL;
	struct oci_state *st = NULL;
	if (read_state(&r, fd, &stage, &st, &err) < 0) {
		stage_fail(&r, err);
		oci_state_free(st);
		return 1;
	}
	int ret;
	if (stage == STAGE_ATTACH) {
		ret = attach(&r, st);
	} else {
		ret = detach(&r, st);
	}
	oci_state_free(st);
	return ret < 0 ? 1 : 0;
}
