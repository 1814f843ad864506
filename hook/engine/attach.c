/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Attach (engine.h): everything checked (preflight.h) and loaded before
 * the first plugin runs; under the container's lock, the state first
 * (record, attachment list, pin), then the networks in order; a failure
 * rolls back what was attached.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "base/suggest.h"
#include "engine/detach.h"
#include "engine/preflight.h"
#include "engine/run.h"
#include "names/names.h"
#include "request/plugin-args.h"
#include "state/attachment-list.h"
#include "state/journal.h"
#include "state/layout.h"
#include "state/lock.h"
#include "state/netns-pin.h"
#include "state/network-status.h"
#include "state/pod-members.h"
#include "state/port-reservations.h"
#include "state/record.h"

static bool has_cap(void *data, const char *cap)
{
	return cnirt_netlist_has_capability(data, cap);
}

/* What one attachment needs for ADD and DEL. */
struct prepared {
	cnirt_netlist *list;
	char *cap_args;
	char *config_args;
	struct kvlist args;
	cnirt_kv *cnikv;
};

static void prepared_free(struct prepared *p, size_t n)
{
	for (size_t i = 0; p && i < n; i++) {
		cnirt_netlist_free(p[i].list);
		free(p[i].cap_args);
		free(p[i].config_args);
		kvlist_free(&p[i].args);
		free(p[i].cnikv);
	}
	free(p);
}

/* Load and check everything an attachment needs, before any plugin runs. */
/* The network of the configuration directory whose name is nearest to
 * `name` (base/suggest.h), or NULL. */
static char *nearest_network(const cnirt_confdir *dir, const char *name)
{
	size_t n = cnirt_confdir_count(dir);
	const char **names = xcalloc(n + 1, sizeof(*names));
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (cnirt_confdir_list(dir, i))
			names[k++] = cnirt_netlist_name(cnirt_confdir_list(dir, i));
	const char *near = suggest_nearest(name, names, k);
	char *out = near ? xstrdup(near) : NULL;
	free(names);
	return out;
}

static int prepare(const char *by, const cnirt_confdir *dir, const struct selection *sel, size_t i,
		   struct prepared *p, char **err)
{
	const struct attach_req *a = &sel->v[i];
	_cleanup_free_ char *where =
	    by ? xasprintf("annotation \"%s\"", by) : xstrdup("defaultNetworks (cnihook.json)");
	cnirt_error *e = NULL;
	cnirt_netlist *found = NULL;
	if (cnirt_confdir_get(dir, a->network, &found, &e) < 0) {
		_cleanup_free_ char *near = nearest_network(dir, a->network);
		*err =
		    xasprintf("%s: %s%s%s%s", where, cnirt_error_msg(e),
			      near ? "; did you mean \"" : "", near ? near : "", near ? "\"?" : "");
		cnirt_error_free(e);
		return -1;
	}
	if (plugin_args_build(sel, i, has_cap, found, &p->cap_args, &p->args, err) < 0) {
		cnirt_netlist_free(found);
		return -1;
	}
	p->cnikv = kvlist_to_cnirt(&p->args);
	/* libcnirt passes cni-args as args.cni of every plugin (derive.c). */
	p->config_args = xstrdup(a->cni_args);
	p->list = found;
	return 0;
}

/* network-status.json: the cluster interface first (in a pod, the default
 * unless an annotation gives "default-route" to a secondary), then the
 * attachments of the selection. */
static void write_status(const struct engine_run *r, const struct selection *sel,
			 const struct record *rec, char *const *results)
{
	const struct network_status_entry *primary = r->t ? r->t->primary : NULL;
	size_t n = 0;
	struct network_status_entry *st = xreallocarray(NULL, sel->n + 1, sizeof(*st));
	bool any_default = false;
	for (size_t i = 0; i < sel->n; i++)
		any_default |= rec->v[i].is_default;
	if (primary) {
		st[n] = *primary;
		st[n].network = xstrdup(primary->network);
		st[n++].is_default = !any_default;
	}
	for (size_t i = 0; i < sel->n; i++) {
		const struct attach_req *a = &sel->v[i];
		st[n++] = (struct network_status_entry){
		    .network = a->ns ? xasprintf("%s/%s", a->ns, a->network) : xstrdup(a->network),
		    .ifname = a->ifname,
		    .is_default = rec->v[i].is_default,
		    .result = results[i],
		};
	}
	_cleanup_free_ char *err = NULL;
	_cleanup_free_ char *spath = layout_status(r->cfg->state_dir, r->id);
	if (network_status_write(spath, st, n, &err) < 0)
		log_warn("%s %s: %s", r->id, r->stage, err);
	for (size_t i = 0; i < n; i++)
		free((char *)st[i].network);
	free(st);
}

/* The container's /etc/resolv.conf and /etc/hosts (names/names.h), for an
 * OCI hook's own container (not a pod's member, not the CNI plugin's:
 * kubelet and the CRI own a pod's files). A file that cannot be written
 * leaves the container without it, and a warning says why; its networks
 * stay. */
static void write_names(const struct engine_run *r, const struct selection *sel,
			const struct record *rec, char *const *results)
{
	if (r->t || r->pid <= 0 || r->bundle == NULL || r->oci_id == NULL)
		return;
	bool *is_default = xreallocarray(NULL, sel->n + 1, sizeof(bool));
	for (size_t i = 0; i < sel->n; i++)
		is_default[i] = rec->v[i].is_default;
	const struct names_input in = {
	    .state_dir = r->cfg->state_dir,
	    .id = r->id,
	    .oci_id = r->oci_id,
	    .name = r->hostname,
	    .bundle = r->bundle,
	    .pid = r->pid,
	    .mode = {r->cfg->dns_resolv_conf, r->cfg->dns_hosts},
	    .req = &sel->names,
	    .results = results,
	    .is_default = is_default,
	    .n = sel->n,
	};
	struct names_outcome out[2];
	names_apply(&in, out);
	static const char *const files[] = {"/etc/resolv.conf", "/etc/hosts"};
	for (int f = 0; f < 2; f++)
		if (out[f].status == 0)
			log_info("%s %s: %s: %s", r->id, r->stage, files[f], out[f].where);
		else if (out[f].status == 1 || out[f].status == -1)
			log_warn("%s %s: %s not written%s: %s", r->id, r->stage, files[f],
				 out[f].status == 1 ? " (left alone)" : "", out[f].why);
	names_outcome_free(out);
	free(is_default);
}

/* Does the container that wrote `rec` still run in the namespace it
 * pinned? Its recorded process is in it (a record without a pid: the pin
 * alone says so). */
static bool record_alive(const struct record *rec)
{
	const char *pin = rec->netns && *rec->netns ? rec->netns : NULL;
	if (pin == NULL || !netns_pin_is_netns(pin))
		return false;
	if (rec->pid <= 0)
		return true;
	_cleanup_free_ char *proc = xasprintf("/proc/%d/ns/net", rec->pid);
	return netns_pin_same(proc, pin);
}

/* A record left by an earlier attach of the same id: refused while it is
 * another container's that still runs (never detach a live neighbour),
 * else detached first. */
static int replace_old_record(struct engine_run *r, const char *rpath, const char *pin)
{
	_cleanup_free_ char *err = NULL;
	struct record *old = NULL;
	if (record_read(rpath, &old, &err) < 0 || old == NULL)
		return 0;
	if (detach_other_bundle(r, old) && record_alive(old)) {
		_cleanup_free_ char *mine = error_shown_whole(r->bundle);
		_cleanup_free_ char *theirs = error_shown_whole(old->bundle);
		_cleanup_free_ char *alive = old->pid > 0 ? xasprintf("pid %d", old->pid)
							  : xstrdup("its namespace is pinned");
		_cleanup_free_ char *m = xasprintf(
		    "container id \"%s\" is attached already, for the container of bundle "
		    "\"%s\", which still runs (%s); this container (bundle \"%s\") has the "
		    "same id in another engine scope (another runc --root?): refusing to attach "
		    "it rather than detach the other (give it an id of its own)",
		    r->id, theirs, alive, mine);
		run_failed(r, ENGINE_OWN_ERROR, m);
		record_free(old);
		return -1;
	}
	log_warn("%s %s: the container was attached already; detaching that first", r->id,
		 r->stage);
	int ret = detach_record(r, old);
	if (ret == 0) {
		port_reservations_release(r->cfg->state_dir, r->id);
		detach_remove_state(r, pin);
	}
	record_free(old);
	return ret;
}

/* The record of the attachments about to be made: what poststop and gc
 * need to detach them even if the configuration changes (rec->v is
 * allocated). */
static void record_init(struct record *rec, const struct engine_run *r, const struct selection *sel,
			const struct prepared *p, const char *netns)
{
	const struct network_status_entry *primary = r->t ? r->t->primary : NULL;
	bool any_default_route = false;
	for (size_t i = 0; i < sel->n; i++)
		any_default_route |= sel->v[i].n_default_route > 0;
	*rec = (struct record){
	    .id = (char *)r->id,
	    .netns = (char *)netns,
	    .cluster = primary ? (char *)primary->network : NULL,
	    .bundle = (char *)r->bundle,
	    .pid = (int)r->pid,
	    .name = (char *)r->name,
	    .hostname = r->name_to_plugins ? (char *)r->hostname : NULL,
	    .n = sel->n,
	};
	rec->v = xreallocarray(NULL, sel->n, sizeof(*rec->v));
	for (size_t i = 0; i < sel->n; i++) {
		size_t len;
		const char *bytes = cnirt_netlist_bytes(p[i].list, &len);
		rec->v[i] = (struct record_att){
		    .network = sel->v[i].network,
		    .ns = sel->v[i].ns,
		    .ifname = sel->v[i].ifname,
		    /* The first attachment (in a pod: the cluster's; beside
		     * the engine's own network: that one) holds the default
		     * route unless the annotation gives "default-route" to
		     * some. */
		    .is_default = any_default_route || primary || r->foreign_default
				      ? sel->v[i].n_default_route > 0
				      : i == 0,
		    .config = (char *)bytes,
		    .cap_args = p[i].cap_args,
		    .config_args = p[i].config_args,
		    .args = p[i].args,
		};
	}
}

/* Everything the state directory holds before the first plugin runs, in
 * the order that lets a hook killed at any point be cleaned up (the
 * directory, the port reservations, the record, the name, the pin's index
 * entry, the pin); on failure what was written is removed. */
static int record_before_add(struct engine_run *r, const struct selection *sel,
			     const struct record *rec, const char *source, const char *pin,
			     char **err)
{
	_cleanup_free_ char *dir = layout_container_dir(r->cfg->state_dir, r->id);
	_cleanup_free_ char *rpath = layout_record(r->cfg->state_dir, r->id);
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		*err = xasprintf("state directory %s: %s", dir, strerror(errno));
		return -1;
	}
	/* Host ports, once the state directory shows we are attaching (a
	 * reservation whose holder has none and no cache entry is stale). */
	_cleanup_free_ char *holder = NULL;
	int reserved =
	    port_reservations_reserve(r->cfg->state_dir, r->ctx, r->id, sel, &holder, err);
	if (reserved < 0 && holder &&
	    preflight_collect_gone(r, holder, "a host port asked for", false, NULL) == 0) {
		free(TAKE_PTR(*err));
		reserved =
		    port_reservations_reserve(r->cfg->state_dir, r->ctx, r->id, sel, NULL, err);
	}
	if (reserved < 0) {
		detach_remove_state(r, NULL);
		return -1;
	}
	int ret = record_write(rpath, rec, err);
	if (ret == 0 && r->name)
		ret = record_name_write(r->cfg->state_dir, r->id, r->name, err);
	if (ret == 0)
		ret = attachment_list_write(cnirt_ctx_cache_dir(r->ctx), r->id, rec, err);
	if (ret == 0 && !r->t)
		ret = netns_pin_index_add(r->cfg->state_dir, source, r->id, err);
	if (ret == 0 && !r->t)
		ret = netns_pin(r->cfg->state_dir, source, pin, err);
	if (ret < 0) {
		if (!r->t)
			netns_pin_index_remove(r->cfg->state_dir, source, r->id);
		port_reservations_release(r->cfg->state_dir, r->id);
		detach_remove_state(r, pin);
	}
	return ret;
}

/* A cache entry for this attachment left by an earlier ADD of cnihook's
 * (a container id used again after a reboot wiped the state directory):
 * DEL it first (best effort). Its namespace is the one this ADD uses (the
 * pin, or the engine's in plugin mode). Another program's entry of the
 * same names (a confDir shared with podman) is not deleted: 0, or -1 with
 * *err naming it. */
static int delete_stale(struct engine_run *r, const struct attach_req *a, const char *netns,
			char **err)
{
	cnirt_error *e = NULL;
	cnirt_cache_entry *stale = NULL;
	if (cnirt_cache_get(r->ctx, a->network, r->id, a->ifname, &stale, &e) < 0)
		cnirt_error_free(TAKE_PTR(e));
	if (stale == NULL)
		return 0;
	const char *theirs = cnirt_cache_entry_netns(stale);
	bool ours = theirs && strcmp(theirs, netns) == 0;
	_cleanup_free_ char *shown = xstrdup(theirs ? theirs : "none");
	cnirt_cache_entry_free(stale);
	if (!ours)
		return error_set(err,
				 "network \"%s\" interface %s: the cache holds another program's "
				 "attachment of this container with these names (its namespace: "
				 "%s); not replaced (is the network also the engine's own?)",
				 a->network, a->ifname, shown);
	log_info("%s %s: network \"%s\" interface %s is in the cache already: deleting it first",
		 r->id, r->stage, a->network, a->ifname);
	if (cnirt_del_cached(r->ctx, a->network, r->id, a->ifname, NULL, &e) < 0) {
		_cleanup_free_ char *m = error_cni_text(a->network, e);
		log_warn("%s %s: %s", r->id, r->stage, m);
		cnirt_error_free(e);
	}
	return 0;
}

/* ADD the networks in order; *done gets how many were attached (their
 * results in results[]). */
static int add_all(struct engine_run *r, const struct selection *sel, const struct prepared *p,
		   const char *netns, char **results, size_t *done)
{
	for (*done = 0; *done < sel->n; (*done)++) {
		const struct attach_req *a = &sel->v[*done];
		const struct prepared *pi = &p[*done];
		_cleanup_free_ char *err = NULL;
		if (delete_stale(r, a, netns, &err) < 0) {
			run_failed(r, ENGINE_OWN_ERROR, err);
			return -1;
		}
		cnirt_attachment att = {
		    .container_id = r->id,
		    .netns = netns,
		    .ifname = a->ifname,
		    .args = pi->cnikv,
		    .n_args = pi->args.n,
		    .capability_args = pi->cap_args,
		    .config_args = pi->config_args,
		};
		cnirt_error *e = NULL;
		if (cnirt_add(r->ctx, pi->list, &att, &results[*done], &e) < 0) {
			run_warn_rollback(r, a->network, e);
			run_failed_cni(r, a->network, e);
			return -1;
		}
		/* The cache holds the finished ADD: the journal has served. */
		journal_remove(r->cfg->state_dir, r->id, a->network, a->ifname);
		log_info("%s %s: network \"%s\" attached as %s", r->id, r->stage, a->network,
			 a->ifname);
	}
	return 0;
}

/* After a failed ADD: detach the first `done` attachments, in reverse, and
 * leave nothing (or the record, for poststop or gc, if some DEL failed). */
static void roll_back(struct engine_run *r, const struct record *rec, size_t done, const char *pin)
{
	struct record partial = *rec;
	partial.n = done;
	if (detach_record(r, &partial) < 0) {
		_cleanup_free_ char *m =
		    xasprintf("the attachments made before the failure could not all be removed; "
			      "the record in %s/%s is kept for poststop or gc",
			      r->cfg->state_dir, r->id);
		run_failed(r, ENGINE_OWN_ERROR, m);
		return;
	}
	port_reservations_release(r->cfg->state_dir, r->id);
	detach_remove_state(r, pin);
}

/* Attach, under the container's lock: the state first (so that a hook
 * killed from here on leaves enough behind to clean up), then the
 * networks. */
static int attach_locked(struct engine_run *r, struct selection *sel, const char *by,
			 struct prepared *p, const char *source)
{
	_cleanup_free_ char *err = NULL;
	_cleanup_free_ char *pin = layout_pin(r->cfg->state_dir, r->id);
	_cleanup_free_ char *rpath = layout_record(r->cfg->state_dir, r->id);
	if (replace_old_record(r, rpath, pin) < 0 || preflight_ifnames(r, sel, by, source) < 0 ||
	    preflight_held_addresses(r, sel) < 0)
		return -1;
	/* The hook pins the container's namespace; the CNI plugin works in the
	 * runtime's, which the runtime keeps until its DEL. */
	const char *netns = r->t ? r->t->netns : pin;
	struct record rec;
	record_init(&rec, r, sel, p, netns);
	if (record_before_add(r, sel, &rec, source, pin, &err) < 0) {
		run_failed(r, ENGINE_OWN_ERROR, err);
		free(rec.v);
		return -1;
	}
	/* gc sends the GC verb only once these ADDs are in the cache. */
	int rfd = -1;
	if (lock_results(cnirt_ctx_cache_dir(r->ctx), false, &rfd, &err) < 0) {
		run_failed(r, ENGINE_OWN_ERROR, err);
		roll_back(r, &rec, 0, pin);
		free(rec.v);
		return -1;
	}
	char **results = xreallocarray(NULL, sel->n, sizeof(char *));
	size_t done = 0;
	int ret = add_all(r, sel, p, netns, results, &done);
	close(rfd);
	if (ret < 0) {
		roll_back(r, &rec, done, pin);
	} else {
		write_status(r, sel, &rec, results);
		write_names(r, sel, &rec, results);
	}
	for (size_t i = 0; i < done; i++)
		free(results[i]);
	free(results);
	free(rec.v);
	return ret;
}

/* Attach a selection (checked against the policy) to the namespace at
 * `source`: read the configuration directory once, prepare every
 * attachment, then attach under the container's lock. */
/* A member of a podman pod whose networks are attached already (its
 * pod's members file exists): it joins them when it asks what they were
 * attached for, else it is refused. 1 joined, 0 the pod has no networks
 * yet, -1 refused or failed (recorded). */
static int pod_join(struct engine_run *r, const struct engine_pod *pod)
{
	struct pod_members m;
	_cleanup_free_ char *err = NULL;
	int got = pod_members_read(r->cfg->state_dir, r->id, &m, &err);
	if (got <= 0) {
		if (got < 0)
			run_failed(r, ENGINE_OWN_ERROR, err);
		return got;
	}
	int ret = 1;
	if (strcmp(m.request, pod->request) != 0) {
		_cleanup_free_ char *msg = xasprintf(
		    "member %.12s of the pod: the pod's networks were attached for its member "
		    "%.12s, which asks otherwise; every annotated member of a podman pod must ask "
		    "the same (the io.cnihook.* and k8s.v1.cni.cncf.io/networks annotations), or "
		    "annotate one member only",
		    pod->member, m.n ? m.ids[0] : "?");
		run_failed(r, ENGINE_OWN_ERROR, msg);
		ret = -1;
	} else {
		pod_members_add(&m, pod->member);
		if (pod_members_write(r->cfg->state_dir, r->id, &m, &err) < 0) {
			run_failed(r, ENGINE_OWN_ERROR, err);
			ret = -1;
		} else {
			log_info("%s %s: member %.12s joins the pod's networks (%zu member(s))",
				 r->id, r->stage, pod->member, m.n);
		}
	}
	pod_members_free(&m);
	return ret;
}

/* The pod's first member attached its networks: the members file, or,
 * when it cannot be written, the networks detached again (no pod keeps
 * networks that no member would detach). */
static int pod_first(struct engine_run *r, const struct engine_pod *pod)
{
	struct pod_members m = {.request = (char *)pod->request};
	char *member = (char *)pod->member;
	m.ids = &member;
	m.n = 1;
	_cleanup_free_ char *err = NULL;
	if (pod_members_write(r->cfg->state_dir, r->id, &m, &err) == 0)
		return 0;
	run_failed(r, ENGINE_OWN_ERROR, err);
	detach_run_locked(r);
	return -1;
}

/* Under the container's lock: a pod member joins or attaches first. */
static int attach_or_join(struct engine_run *r, struct selection *sel, const char *by,
			  struct prepared *p, const char *source, const struct engine_pod *pod)
{
	int joined = pod ? pod_join(r, pod) : 0;
	if (joined != 0)
		return joined < 0 ? -1 : 1;
	int ret = attach_locked(r, sel, by, p, source);
	if (ret == 0 && pod)
		ret = pod_first(r, pod);
	return ret;
}

/* The container's name to the plugins that take it (dnsname), when a
 * network of the selection has one; recorded (r->name_to_plugins) only
 * then, for the DEL. The CNI plugin's runtime passes the pod's K8S_POD_* pairs to
 * the whole chain itself. */
static int name_plugins(struct engine_run *r, const struct selection *sel, const struct prepared *p,
			char **err)
{
	for (size_t i = 0; !r->t && i < sel->n; i++)
		for (size_t k = 0; k < cnirt_netlist_plugin_count(p[i].list); k++) {
			if (strcmp(cnirt_netlist_plugin_type(p[i].list, k),
				   PLUGIN_ARGS_NAME_TYPE) != 0)
				continue;
			/* Without a name, plugin_args_name() says so. */
			_cleanup_free_ char *problem = NULL;
			if (r->hostname ? plugin_args_give_name(r->ctx, r->hostname, &problem) == 0
					: plugin_args_name(NULL, NULL, &problem) == 0) {
				r->name_to_plugins = r->hostname != NULL;
				return 0;
			}
			return error_set(err,
					 "network \"%s\": plugin \"%s\" needs the container's name "
					 "(CNI_ARGS %s): %s",
					 sel->v[i].network, PLUGIN_ARGS_NAME_TYPE,
					 PLUGIN_ARGS_NAME_KEY, problem);
		}
	return 0;
}

static int attach_selection(struct engine_run *r, struct selection *sel, const char *by,
			    const char *source, const struct engine_pod *pod)
{
	if (preflight_host_ports(r, sel, by) < 0)
		return -1;
	_cleanup_free_ char *err = NULL;
	cnirt_confdir *dir = NULL;
	cnirt_error *e = NULL;
	if (cnirt_confdir_scan(r->cfg->conf_dir, &dir, &e) < 0) {
		run_failed(r, ENGINE_OWN_ERROR, cnirt_error_msg(e));
		cnirt_error_free(e);
		return -1;
	}
	int ret = 0;
	struct prepared *p = xreallocarray(NULL, sel->n, sizeof(*p));
	memset(p, 0, sel->n * sizeof(*p));
	for (size_t i = 0; i < sel->n && ret == 0; i++)
		if (prepare(by, dir, sel, i, &p[i], &err) < 0) {
			run_failed(r, ENGINE_OWN_ERROR, err);
			ret = -1;
		}
	cnirt_confdir_free(dir);
	if (ret == 0 && name_plugins(r, sel, p, &err) < 0) {
		run_failed(r, ENGINE_OWN_ERROR, err);
		ret = -1;
	}
	if (ret == 0) {
		int fd = -1;
		if (lock_take(r->cfg->state_dir, r->id, &fd, &err) < 0) {
			run_failed(r, ENGINE_OWN_ERROR, err);
			ret = -1;
		} else {
			ret = attach_or_join(r, sel, by, p, source, pod);
			lock_release(r->cfg->state_dir, r->id, fd, true);
		}
	}
	if (ret == 0)
		run_log_done(r, "attached", sel->n);
	ret = ret < 0 ? -1 : 0;
	prepared_free(p, sel->n);
	return ret;
}

int engine_attach_container(const struct hook_config *cfg, const struct engine_container *c,
			    struct selection *sel, const char *by, const char *source)
{
	struct engine_run r;
	run_begin(&r, cfg, c->id, c->stage);
	r.bundle = c->bundle;
	r.name = c->name;
	r.hostname = c->hostname;
	r.oci_id = c->oci_id;
	r.pid = c->pid;
	int ret = attach_selection(&r, sel, by, source, NULL);
	run_report(&r);
	run_end(&r);
	return ret;
}

int engine_attach(const struct hook_config *cfg, const struct engine_target *t,
		  struct selection *sel)
{
	struct engine_run r;
	run_begin(&r, cfg, t->id, t->stage);
	r.t = t;
	int ret = attach_selection(&r, sel, t->selected_by, t->netns, NULL);
	run_report(&r);
	run_end(&r);
	return ret;
}

int engine_attach_pod_member(const struct hook_config *cfg, const struct engine_container *c,
			     const struct engine_pod *pod, struct selection *sel, const char *by,
			     const char *source)
{
	struct engine_run r;
	run_begin(&r, cfg, c->id, c->stage);
	r.hostname = c->hostname;
	int ret = attach_selection(&r, sel, by, source, pod);
	run_report(&r);
	run_end(&r);
	return ret;
}
