/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Detach (engine.h): from the attachment record, each attachment in
 * reverse, from the cache when it has the entry; without a record, from
 * the cache entries that are provably cnihook's.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "engine/detach.h"
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

/* DEL one recorded attachment: from the cache when it has the entry, else
 * from the record (a hook killed before the cache was written), with the
 * ADD journal's running result as prevResult (journal.h). */
static int detach_one(struct engine_run *r, const struct record_att *a, const char *netns)
{
	cnirt_error *e = NULL;
	cnirt_cache_entry *entry = NULL;
	int got = cnirt_cache_get(r->ctx, a->network, r->id, a->ifname, &entry, &e);
	cnirt_cache_entry_free(entry);
	if (got < 0) {
		_cleanup_free_ char *msg = error_cni_text(a->network, e);
		log_warn("%s %s: %s; deleting from the attachment record instead", r->id, r->stage,
			 msg);
		cnirt_error_free(TAKE_PTR(e));
	}
	if (got == 0 && entry) {
		if (cnirt_del_cached(r->ctx, a->network, r->id, a->ifname, netns, &e) < 0) {
			run_failed_cni(r, a->network, e);
			return -1;
		}
		return 0;
	}
	cnirt_netlist *l = NULL;
	if (cnirt_netlist_parse(a->config, strlen(a->config), "attachment record", &l, &e) < 0) {
		run_failed_cni(r, a->network, e);
		return -1;
	}
	_cleanup_free_ cnirt_kv *kv = kvlist_to_cnirt(&a->args);
	cnirt_attachment att = {
	    .container_id = r->id,
	    .netns = netns,
	    .ifname = a->ifname,
	    .args = kv,
	    .n_args = a->args.n,
	    .capability_args = a->cap_args,
	    .config_args = a->config_args,
	};
	_cleanup_free_ char *jerr = NULL;
	_cleanup_free_ char *prev = NULL;
	if (journal_read(r->cfg->state_dir, r->id, a->network, a->ifname, &prev, &jerr) < 0)
		log_warn("%s %s: %s; DEL runs without the result of the interrupted ADD", r->id,
			 r->stage, jerr);
	int ret = cnirt_del_with_result(r->ctx, l, &att, prev, &e);
	if (ret < 0)
		run_failed_cni(r, a->network, e);
	else
		journal_remove(r->cfg->state_dir, r->id, a->network, a->ifname);
	cnirt_netlist_free(l);
	return ret;
}

/* Remove what the state directory holds for the container. */
void detach_remove_state(const struct engine_run *r, const char *pin)
{
	_cleanup_free_ char *err = NULL;
	if (pin)
		netns_pin_index_remove(r->cfg->state_dir, pin, r->id);
	if (pin && netns_pin_remove(pin, &err) < 0)
		log_warn("%s %s: %s", r->id, r->stage, err);
	_cleanup_free_ char *status = layout_status(r->cfg->state_dir, r->id);
	_cleanup_free_ char *record = layout_record(r->cfg->state_dir, r->id);
	_cleanup_free_ char *dir = layout_container_dir(r->cfg->state_dir, r->id);
	_cleanup_free_ char *name = layout_name_link(r->cfg->state_dir, r->id);
	_cleanup_free_ char *old_name = layout_name_old(r->cfg->state_dir, r->id);
	_cleanup_free_ char *members = layout_pod_members(r->cfg->state_dir, r->id);
	unlink(members);
	names_remove(r->cfg->state_dir, r->id);
	journal_clear(r->cfg->state_dir, r->id);
	unlink(status);
	unlink(name);
	unlink(old_name);
	attachment_list_remove(cnirt_ctx_cache_dir(r->ctx), r->id);
	unlink(record);
	/* Temp files of a writer killed before its rename (under the lock,
	 * none is a live writer's). */
	file_temps_sweep(dir);
	if (rmdir(dir) < 0 && errno != ENOENT)
		log_warn("%s %s: cannot remove %s: %s", r->id, r->stage, dir, strerror(errno));
}

/* Detach what the record names, in reverse order. 0 when all went. */
int detach_record(struct engine_run *r, const struct record *rec)
{
	const char *pin = rec->netns && *rec->netns ? rec->netns : NULL;
	const char *netns = "";
	if (run_given_netns(r))
		netns = run_given_netns(r);
	else if (pin && netns_pin_is_netns(pin))
		netns = pin;
	else if (pin)
		log_warn("%s %s: %s is not a network namespace any more (the host rebooted, or the "
			 "hook ran in another mount namespace): DEL runs without one",
			 r->id, r->stage, pin);
	int failed = 0;
	for (size_t i = rec->n; i-- > 0;)
		failed |= detach_one(r, &rec->v[i], netns) < 0;
	return failed ? -1 : 0;
}

/* The reverse of the order of attachment, as well as the cache tells it:
 * the newest entry first, and within a second the higher interface name in
 * natural order (eth10 after eth9, net2 after net1). */
static int newest_first(const void *a, const void *b)
{
	const cnirt_cache_entry *x = *(cnirt_cache_entry *const *)a;
	const cnirt_cache_entry *y = *(cnirt_cache_entry *const *)b;
	long long tx = cnirt_cache_entry_mtime(x), ty = cnirt_cache_entry_mtime(y);
	if (tx != ty)
		return tx < ty ? 1 : -1;
	return strverscmp(cnirt_cache_entry_ifname(y), cnirt_cache_entry_ifname(x));
}

/* The container's cache entries: by the names of its attachment list
 * (attachment-list.h) when it has one, else those of the files whose name holds
 * the id (the cache's names are read). A damaged entry is left out, as the
 * reading by names leaves it (gc reports it); a file that cannot be read
 * fails. */
static int cached_attachments(const struct engine_run *r, cnirt_cache_entry ***out, size_t *n,
			      bool *listed, cnirt_error **e)
{
	struct attachment_list l;
	_cleanup_free_ char *err = NULL;
	int got = attachment_list_read(cnirt_ctx_cache_dir(r->ctx), r->id, &l, &err);
	if (got < 0)
		log_warn("%s %s: %s; looking for the container in the cache", r->id, r->stage, err);
	*listed = got > 0;
	if (got <= 0)
		return cnirt_cache_list_container(r->ctx, r->id, out, n, e);
	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < l.n; i++) {
		cnirt_cache_entry *c = NULL;
		if (cnirt_cache_get(r->ctx, l.v[i].network, r->id, l.v[i].ifname, &c, e) < 0 &&
		    cnirt_error_kind(*e) != CNIRT_KIND_IO) {
			_cleanup_free_ char *m = error_cni_text(l.v[i].network, *e);
			log_warn("%s %s: %s; left to gc", r->id, r->stage, m);
			cnirt_error_free(TAKE_PTR(*e));
		} else if (*e) {
			attachment_list_free(&l);
			cnirt_cache_entries_free(*out, *n);
			*out = NULL;
			*n = 0;
			return -1;
		}
		if (c) {
			*out = xreallocarray(*out, *n + 1, sizeof(**out));
			(*out)[(*n)++] = c;
		}
	}
	attachment_list_free(&l);
	return 0;
}

/* May a cache entry of this container's id, which neither its record nor
 * its attachment list names, be detached? At poststop, when it is
 * provably cnihook's: its namespace is the container's pin, a path no
 * other program uses. In plugin mode the namespace is the engine's,
 * shared with the pod's other networks: nothing proves it. gc judged the
 * container gone on its own evidence (gc.c) and takes what the cache
 * holds of it, but for an entry that names a namespace alive now: one
 * written since (the id used again, another engine's restart). */
static bool may_detach(const struct engine_run *r, const cnirt_cache_entry *e, const char *pin)
{
	const char *netns = cnirt_cache_entry_netns(e);
	bool pinned = netns && strcmp(netns, pin) == 0;
	if (strcmp(r->stage, "gc") == 0)
		return pinned || netns == NULL || *netns == '\0' || !netns_pin_is_netns(netns);
	return r->t == NULL && pinned;
}

/* The cluster network's own cache entry (any interface when the primary
 * names none), which the plugin never touches. */
static bool is_cluster_entry(const struct engine_run *r, const cnirt_cache_entry *e)
{
	const struct network_status_entry *c = r->t ? r->t->primary : NULL;
	return c && strcmp(cnirt_cache_entry_network(e), c->network) == 0 &&
	       (c->ifname == NULL || strcmp(cnirt_cache_entry_ifname(e), c->ifname) == 0);
}

/* No record (the state directory was wiped): find the container's
 * attachments in the cache, by its attachment list, else those of its
 * entries that are provably cnihook's; another program's entry of the
 * same id (podman's own network, containerd's other networks of the pod)
 * is left to it. *found gets how many were found. */
static int detach_from_cache(struct engine_run *r, size_t *found)
{
	cnirt_cache_entry **v = NULL;
	size_t n = 0;
	bool listed = false;
	cnirt_error *e = NULL;
	if (cached_attachments(r, &v, &n, &listed, &e) < 0) {
		run_failed_cni(r, NULL, e);
		return -1;
	}
	_cleanup_free_ char *pin = layout_pin(r->cfg->state_dir, r->id);
	size_t mine = 0;
	for (size_t i = 0; i < n; i++) {
		bool ours = !is_cluster_entry(r, v[i]) && (listed || may_detach(r, v[i], pin));
		if (!ours && !is_cluster_entry(r, v[i]))
			log_info("%s %s: the cache entry of network \"%s\" interface %s is not "
				 "provably cnihook's or gone (no record or attachment list names "
				 "it): left alone",
				 r->id, r->stage, cnirt_cache_entry_network(v[i]),
				 cnirt_cache_entry_ifname(v[i]));
		if (ours)
			v[mine++] = v[i];
		else
			cnirt_cache_entry_free(v[i]);
	}
	if (mine > 1)
		qsort(v, mine, sizeof(*v), newest_first);
	*found = mine;
	const char *netns = run_given_netns(r)	      ? run_given_netns(r)
			    : netns_pin_is_netns(pin) ? pin
						      : "";
	/* At poststop a missing record means the state directory was wiped;
	 * gc also meets attachments made by others, which never had one. */
	if (mine)
		log_msg(strcmp(r->stage, "gc") == 0 ? LOG_LEVEL_INFO : LOG_LEVEL_WARN,
			"%s %s: no attachment record%s: %zu attachment(s) found in the cache%s",
			r->id, r->stage,
			strcmp(r->stage, "gc") == 0 ? "" : " (the state directory was wiped?)",
			mine,
			*netns ? "" : "; DEL runs without a network namespace, none is pinned");
	int failed = 0;
	for (size_t i = 0; i < mine; i++) {
		const char *network = cnirt_cache_entry_network(v[i]);
		if (cnirt_del_cached(r->ctx, network, r->id, cnirt_cache_entry_ifname(v[i]), netns,
				     &e) < 0) {
			run_failed_cni(r, network, e);
			failed = 1;
		} else {
			/* The list of its port reservations went with the
			 * state directory: the entry names the ports. */
			port_reservations_release_entry(r->cfg->state_dir, r->id, v[i]);
		}
	}
	cnirt_cache_entries_free(v, mine);
	return failed ? -1 : 0;
}

/* Is the record another container's (the same id in another engine scope
 * that the state does not show, such as another runc --root)? Only when
 * both bundles are known and differ. */
bool detach_other_bundle(const struct engine_run *r, const struct record *rec)
{
	return r->bundle && rec->bundle && strcmp(r->bundle, rec->bundle) != 0;
}

static int detach(struct engine_run *r)
{
	_cleanup_free_ char *path = layout_record(r->cfg->state_dir, r->id);
	_cleanup_free_ char *err = NULL;
	struct record *rec = NULL;
	if (record_read(path, &rec, &err) < 0) {
		log_warn("%s %s: %s; looking for the container in the cache", r->id, r->stage, err);
	}
	if (rec && detach_other_bundle(r, rec)) {
		_cleanup_free_ char *mine = error_shown_whole(r->bundle);
		_cleanup_free_ char *theirs = error_shown_whole(rec->bundle);
		log_info("%s %s: the attachment of this id belongs to the container of bundle "
			 "\"%s\", not to this one (bundle \"%s\"): left alone",
			 r->id, r->stage, theirs, mine);
		record_free(rec);
		return 0;
	}
	/* The name dnsname was given at ADD, for its DEL (checked then). */
	_cleanup_free_ char *name_err = NULL;
	if (rec && rec->hostname)
		(void)plugin_args_give_name(r->ctx, rec->hostname, &name_err);
	size_t n = rec ? rec->n : 0;
	int ret = rec ? detach_record(r, rec) : detach_from_cache(r, &n);
	r->detached = n;
	if (ret == 0) {
		_cleanup_free_ char *pin = layout_pin(r->cfg->state_dir, r->id);
		/* A record and no pin: a hook killed between the pin index
		 * entry and the pin. */
		if (rec && !r->t && !netns_pin_is_netns(pin))
			netns_pin_index_forget(r->cfg->state_dir, r->id);
		port_reservations_release(r->cfg->state_dir, r->id);
		detach_remove_state(r, pin);
		run_log_done(r, "detached", n);
	}
	record_free(rec);
	return ret;
}

int detach_run_locked(struct engine_run *r)
{
	return detach(r);
}

/* Detach container `id` under its lock, as one run: `wait` for the lock,
 * else 1 when it is held. */
static int detach_run(const struct hook_config *cfg, const char *id, const char *stage, bool wait,
		      const struct engine_target *t, const char *bundle, size_t *detached)
{
	struct engine_run r;
	run_begin(&r, cfg, id, stage);
	r.t = t;
	r.bundle = bundle;
	_cleanup_free_ char *err = NULL;
	int lfd = -1;
	int ret = wait ? lock_take(cfg->state_dir, id, &lfd, &err)
		       : lock_try(cfg->state_dir, id, &lfd, &err);
	if (ret < 0)
		run_failed(&r, ENGINE_OWN_ERROR, err);
	if (ret == 0) {
		ret = detach(&r);
		lock_release(cfg->state_dir, id, lfd, true);
	}
	if (detached)
		*detached = r.detached;
	run_report(&r);
	run_end(&r);
	return ret;
}

int engine_detach(const struct hook_config *cfg, const char *id, const char *stage,
		  size_t *detached)
{
	return detach_run(cfg, id, stage, false, NULL, NULL, detached);
}

int engine_detach_container(const struct hook_config *cfg, const struct engine_container *c)
{
	return detach_run(cfg, c->id, c->stage, true, NULL, c->bundle, NULL);
}

int engine_detach_target(const struct hook_config *cfg, const struct engine_target *t)
{
	return detach_run(cfg, t->id, t->stage, true, t, NULL, NULL);
}

int engine_detach_pod_member(const struct hook_config *cfg, const char *pod, const char *member,
			     const char *stage)
{
	struct engine_run r;
	run_begin(&r, cfg, pod, stage);
	_cleanup_free_ char *err = NULL;
	int lfd = -1;
	int ret = lock_take(cfg->state_dir, pod, &lfd, &err);
	if (ret < 0) {
		run_failed(&r, ENGINE_OWN_ERROR, err);
	} else {
		struct pod_members m;
		int got = pod_members_read(cfg->state_dir, pod, &m, &err);
		if (got < 0) {
			run_failed(&r, ENGINE_OWN_ERROR, err);
			ret = -1;
		} else if (got == 0 || !pod_members_remove(&m, member)) {
			ret = 1;
		} else {
			if (pod_members_write(cfg->state_dir, pod, &m, &err) < 0) {
				run_failed(&r, ENGINE_OWN_ERROR, err);
				ret = -1;
			} else if (m.n > 0) {
				log_info("%s %s: member %.12s leaves the pod's networks (%zu left)",
					 pod, stage, member, m.n);
			} else {
				ret = detach(&r);
			}
		}
		pod_members_free(&m);
		lock_release(cfg->state_dir, pod, lfd, true);
	}
	run_report(&r);
	run_end(&r);
	return ret;
}
