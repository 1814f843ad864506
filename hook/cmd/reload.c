/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `cnihook reload [ID...]`: after a firewall reload (firewalld's, an
 * `nft flush ruleset`, an iptables restore), the rules the plugins made
 * for running containers (portmap's DNAT, firewall's filter rules) are
 * gone, and nothing else puts them back: `podman network reload` restores
 * netavark's alone. For each attachment of the hook's containers, under
 * the container's lock: CHECK from the cache; where CHECK fails, DEL from
 * the cache and ADD again with what the cache holds (the list, CNI_ARGS,
 * the capability arguments), the same container id, interface and
 * namespace, and the cached result's addresses and MAC as the `ips` and
 * `mac` capabilities, so that the container keeps them.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cnirt.h>

#include "base/log.h"
#include "base/util.h"
#include "cmd/reload.h"
#include "request/plugin-args.h"
#include "state/container-key.h"
#include "state/layout.h"
#include "state/lock.h"
#include "state/netns-pin.h"
#include "state/network-status.h"
#include "state/record.h"
#include "state/snapshot.h"

/* What became of one attachment. */
enum outcome {
	RELOAD_OK,	  /* CHECK passed */
	RELOAD_DONE,	  /* CHECK failed; DEL and ADD again passed */
	RELOAD_UNCHECKED, /* a list before 0.4.0: CHECK cannot be run */
	RELOAD_FAILED,
};

static const char *const outcome_words[] = {"ok", "reloaded", "unchecked", "failed"};

/* One attachment's line on stdout: `reload: container "ID" network "N"
 * interface I: WORD (WHY)`; returns the outcome. */
static enum outcome PRINTF_LIKE(4, 5)
    say(const char *id, const struct record_att *a, enum outcome o, const char *fmt, ...)
{
	printf("reload: container \"%s\" network \"%s\" interface %s: %s", id, a->network,
	       a->ifname, outcome_words[o]);
	if (fmt) {
		va_list ap;
		va_start(ap, fmt);
		_cleanup_free_ char *why = xvasprintf(fmt, ap);
		va_end(ap);
		printf(" (%s)", why);
	}
	printf("\n");
	return o;
}

/* What a cached result says the attachment has: the addresses of its
 * container interface (as written, with their prefix: the `ips`
 * capability's form) and its MAC. */
struct identity {
	json *ips; /* array of strings, or NULL when none */
	char *mac;
};

static void identity_of(const char *result, const char *ifname, struct identity *id)
{
	_cleanup_json_ json *r = network_status_result_v1(result);
	long ifindex;
	const char *mac = network_status_result_mac(r, ifname, &ifindex);
	const json *ips = json_obj_get(r, "ips");
	*id = (struct identity){.mac = mac ? xstrdup(mac) : NULL};
	for (size_t i = 0; json_is_array(ips) && i < ips->u.array.n; i++) {
		const json *ip = ips->u.array.v[i];
		if (!network_status_ip_of(ip, ifindex))
			continue;
		if (id->ips == NULL)
			id->ips = json_new(JSON_ARRAY);
		json_arr_append(id->ips, json_new_string(json_str(json_obj_get(ip, "address"))));
	}
}

static void identity_free(struct identity *id)
{
	json_free(id->ips);
	free(id->mac);
}

/* The addresses, comma separated ("none"). */
static char *ips_text(const json *ips)
{
	char *s = json_join_strings(ips, ",");
	if (*s)
		return s;
	free(s);
	return xstrdup("none");
}

static bool same_text(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* The cached capability arguments with the identity's `ips` and `mac`
 * where the list declares those capabilities and the arguments give none
 * already (the annotation's own are the same). *ips_kept: the addresses
 * will be asked for (or there are none); *mac_kept the same. */
static char *with_identity(const char *cap_args, const cnirt_netlist *l, const struct identity *id,
			   bool *ips_kept, bool *mac_kept)
{
	_cleanup_json_ json *o = NULL;
	_cleanup_free_ char *err = NULL;
	if (cap_args == NULL ||
	    json_parse_with(cap_args, strlen(cap_args), "capability arguments", &util_json, &o,
			    &err) < 0 ||
	    !json_is_object(o)) {
		json_free(o);
		o = json_new(JSON_OBJECT);
	}
	*ips_kept = id->ips == NULL || json_obj_get(o, "ips");
	if (!*ips_kept && cnirt_netlist_has_capability(l, "ips")) {
		json_obj_set(o, "ips", json_dup(id->ips));
		*ips_kept = true;
	}
	*mac_kept = id->mac == NULL || json_obj_get(o, "mac");
	if (!*mac_kept && cnirt_netlist_has_capability(l, "mac")) {
		json_obj_set(o, "mac", json_new_string(id->mac));
		*mac_kept = true;
	}
	return o->u.object.n ? json_gen(o, false, NULL) : NULL;
}

/* The attachment as the cache entry c holds it, in netns; kv the caller's
 * to free. (cni-args are in the cached list's bytes.) */
static cnirt_attachment cached_attachment(const cnirt_cache_entry *c, const char *netns,
					  cnirt_kv **kv)
{
	size_t n = cnirt_cache_entry_arg_count(c);
	*kv = xreallocarray(NULL, n ? n : 1, sizeof(**kv));
	for (size_t i = 0; i < n; i++)
		(*kv)[i] =
		    (cnirt_kv){cnirt_cache_entry_arg_key(c, i), cnirt_cache_entry_arg_value(c, i)};
	return (cnirt_attachment){
	    .container_id = cnirt_cache_entry_container_id(c),
	    .netns = netns,
	    .ifname = cnirt_cache_entry_ifname(c),
	    .args = *kv,
	    .n_args = n,
	    .capability_args = cnirt_cache_entry_capability_args(c),
	};
}

/* What changed of the identity after the ADD, for the line ("" when
 * nothing did). */
static char *changes(const struct identity *was, const char *result, const char *ifname)
{
	struct identity now;
	identity_of(result, ifname, &now);
	_cleanup_free_ char *ips_was = ips_text(was->ips);
	_cleanup_free_ char *ips_now = ips_text(now.ips);
	struct buf b = {0};
	if (strcmp(ips_was, ips_now) != 0)
		buf_printf(&b, "; addresses now %s, were %s", ips_now, ips_was);
	if (!same_text(was->mac, now.mac))
		buf_printf(&b, "; MAC now %s, was %s", now.mac ? now.mac : "none",
			   was->mac ? was->mac : "none");
	identity_free(&now);
	return b.len ? buf_steal(&b, NULL) : xstrdup("");
}

/* DEL the attachment from the cache and ADD it again (l and a as cached,
 * a's capability arguments with the identity). The results' lock is held
 * shared meanwhile, as an attach holds it: gc's GC verb never runs
 * between the two with a list that lacks the attachment. */
static int reapply(const struct hook_config *cfg, cnirt_ctx *ctx, const cnirt_netlist *l,
		   const cnirt_attachment *a, const char *network, char **result, char **why)
{
	int rfd = -1;
	if (lock_results(cfg->cache_dir, false, &rfd, why) < 0)
		return -1;
	cnirt_error *e = NULL;
	int r = cnirt_del_cached(ctx, network, a->container_id, a->ifname, a->netns, &e);
	if (r < 0) {
		_cleanup_free_ char *m = error_cni_text(network, e);
		*why = xasprintf("DEL: %s; the attachment is as it was", m);
	} else if ((r = cnirt_add(ctx, l, a, result, &e)) < 0) {
		_cleanup_free_ char *m = error_cni_text(network, e);
		*why = xasprintf("ADD: %s; the attachment is gone until the container restarts", m);
	}
	cnirt_error_free(e);
	close(rfd);
	return r;
}

/* CHECK one recorded attachment of container id in netns; re-apply it
 * when CHECK fails. *result gets the new result when it was re-applied. */
static enum outcome reload_one(const struct hook_config *cfg, cnirt_ctx *ctx, const char *id,
			       const struct record_att *ra, const char *netns, char **result)
{
	cnirt_error *e = NULL;
	cnirt_cache_entry *c = NULL;
	if (cnirt_cache_get(ctx, ra->network, id, ra->ifname, &c, &e) < 0) {
		_cleanup_free_ char *m = error_cni_text(ra->network, e);
		cnirt_error_free(e);
		return say(id, ra, RELOAD_FAILED, "its cache entry: %s", m);
	}
	if (c == NULL)
		return say(id, ra, RELOAD_FAILED, "no cache entry in %s/results: cannot be checked",
			   cfg->cache_dir);
	size_t len = 0;
	const char *bytes = cnirt_cache_entry_config(c, &len);
	cnirt_netlist *l = NULL;
	if (bytes == NULL || cnirt_netlist_parse(bytes, len, "cache entry", &l, &e) < 0) {
		_cleanup_free_ char *m = bytes ? error_cni_text(ra->network, e) : NULL;
		cnirt_error_free(e);
		cnirt_cache_entry_free(c);
		return say(id, ra, RELOAD_FAILED, "its cache entry holds %s",
			   m ? m : "no network configuration");
	}
	_cleanup_free_ cnirt_kv *kv = NULL;
	cnirt_attachment a = cached_attachment(c, netns, &kv);
	enum outcome o;
	if (cnirt_version_compare(cnirt_netlist_version(l), "0.4.0") < 0) {
		o = say(id, ra, RELOAD_UNCHECKED,
			"a version %s list: CHECK needs 0.4.0 or later; left as it is",
			cnirt_netlist_version(l));
	} else if (cnirt_netlist_disable_check(l)) {
		o = say(id, ra, RELOAD_OK, "not checked: the list sets disableCheck");
	} else if (cnirt_check(ctx, l, &a, &e) == 0) {
		o = say(id, ra, RELOAD_OK, NULL);
	} else {
		_cleanup_free_ char *check = error_cni_text(ra->network, e);
		cnirt_error_free(TAKE_PTR(e));
		struct identity was;
		identity_of(cnirt_cache_entry_result(c), ra->ifname, &was);
		bool ips_kept, mac_kept;
		_cleanup_free_ char *caps =
		    with_identity(a.capability_args, l, &was, &ips_kept, &mac_kept);
		_cleanup_free_ char *why = NULL;
		a.capability_args = caps;
		if (!ips_kept) {
			o = say(id, ra, RELOAD_FAILED,
				"CHECK: %s; not re-applied: no plugin of the network declares the "
				"\"ips\" capability, so its addresses could change; restart the "
				"container",
				check);
		} else if (reapply(cfg, ctx, l, &a, ra->network, result, &why) < 0) {
			o = say(id, ra, RELOAD_FAILED, "CHECK: %s; %s", check, why);
		} else {
			_cleanup_free_ char *what = changes(&was, *result, ra->ifname);
			o = say(id, ra, RELOAD_DONE, "CHECK: %s%s%s", check, what,
				*what && !mac_kept ? " (no plugin declares the \"mac\" capability)"
						   : "");
			log_info("%s reload: network \"%s\" interface %s re-applied after CHECK "
				 "failed: %s%s",
				 id, ra->network, ra->ifname, check, what);
		}
		identity_free(&was);
	}
	cnirt_netlist_free(l);
	cnirt_cache_entry_free(c);
	return o;
}

/* Reload container id's attachments under its lock. Returns whether all
 * of them are ok or were reloaded. */
static bool reload_container(const struct hook_config *cfg, cnirt_ctx *ctx, const char *id)
{
	_cleanup_free_ char *err = NULL;
	int fd = -1;
	if (lock_take(cfg->state_dir, id, &fd, &err) < 0) {
		printf("reload: container \"%s\": failed (%s)\n", id, err);
		return false;
	}
	_cleanup_free_ char *rpath = layout_record(cfg->state_dir, id);
	struct record *rec = NULL;
	bool good = true;
	if (record_read(rpath, &rec, &err) < 0) {
		printf("reload: container \"%s\": failed (%s)\n", id, err);
		good = false;
	} else if (rec == NULL) {
		printf("reload: container \"%s\": no attachment record (detached, or never "
		       "attached): nothing to reload\n",
		       id);
	}
	/* The name dnsname was given at ADD (the record's), for its DEL and
	 * ADD here; none for a record without one (ctx serves every target). */
	_cleanup_free_ char *name_err = NULL;
	(void)plugin_args_give_name(ctx, rec ? rec->hostname : NULL, &name_err);
	const char *netns = rec && rec->netns ? rec->netns : "";
	bool alive = rec && netns_pin_is_netns(netns);
	_cleanup_free_ char *spath = layout_status(cfg->state_dir, id);
	for (size_t i = 0; rec && i < rec->n; i++) {
		const struct record_att *a = &rec->v[i];
		if (!alive) {
			_cleanup_free_ char *ns = error_shown_whole(netns);
			say(id, a, RELOAD_FAILED,
			    "its network namespace %s is gone: nothing to re-apply it in", ns);
			good = false;
			continue;
		}
		_cleanup_free_ char *result = NULL;
		enum outcome o = reload_one(cfg, ctx, id, a, netns, &result);
		good &= o == RELOAD_OK || o == RELOAD_DONE;
		if (o != RELOAD_DONE)
			continue;
		_cleanup_free_ char *name =
		    a->ns ? xasprintf("%s/%s", a->ns, a->network) : xstrdup(a->network);
		struct network_status_entry st = {
		    .network = name, .ifname = a->ifname, .result = result};
		_cleanup_free_ char *serr = NULL;
		if (network_status_update(spath, &st, &serr) < 0)
			log_warn("%s reload: %s", id, serr);
	}
	record_free(rec);
	lock_release(cfg->state_dir, id, fd, true);
	return good;
}

/* The containers ids name, in the state directory sd (each once, in the
 * order given), or every container of it (n 0). Returns 0, or the exit
 * status (logged): 2 for an id that is no container id, 1 for one that
 * names no container or several. */
static int reload_targets(const struct snapshot *sd, char *const *ids, size_t n, const char ***out,
			  size_t *n_out)
{
	const char **v = xreallocarray(NULL, n ? n : sd->n ? sd->n : 1, sizeof(*v));
	size_t k = 0;
	for (size_t i = 0; n == 0 && i < sd->n; i++)
		if (snapshot_is_container(sd, &sd->v[i]))
			v[k++] = sd->v[i].name;
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *key = NULL;
		_cleanup_free_ char *err = NULL;
		const char *id = NULL;
		int bad = container_key_parse(ids[i], &key, &err) < 0	  ? 2
			  : container_key_resolve(sd, key, &id, &err) < 0 ? 1
									  : 0;
		if (bad) {
			log_error("reload: %s", err);
			free(v);
			return bad;
		}
		bool seen = false;
		for (size_t j = 0; j < k; j++)
			seen |= v[j] == id;
		if (!seen)
			v[k++] = id;
	}
	*out = v;
	*n_out = k;
	return 0;
}

int reload_run(const struct hook_config *cfg, char *const *ids, size_t n)
{
	if (geteuid() != 0) {
		log_error("reload needs root (it reads the state directory and the cache, and "
			  "runs the plugins)");
		return 1;
	}
	_cleanup_(snapshot_close) struct snapshot sd = {.fd = -1};
	int errnum = 0;
	if (snapshot_open(cfg->state_dir, &sd, &errnum) < 0) {
		log_error("reload: cannot read the state directory %s: %s", cfg->state_dir,
			  strerror(errnum));
		return 1;
	}
	const char **targets = NULL;
	size_t n_targets = 0;
	int bad = reload_targets(&sd, ids, n, &targets, &n_targets);
	if (bad)
		return bad;
	cnirt_ctx *ctx = hookconf_ctx(cfg);
	bool good = true;
	for (size_t i = 0; i < n_targets; i++)
		good &= reload_container(cfg, ctx, targets[i]);
	fflush(stdout);
	free(targets);
	cnirt_ctx_free(ctx);
	return good ? 0 : 1;
}
