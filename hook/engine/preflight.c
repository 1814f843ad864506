/* SPDX-License-Identifier: Apache-2.0 */
/* What an attach checks before any plugin runs (preflight.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/log.h"
#include "engine/preflight.h"
#include "host/host-sockets.h"
#include "host/interfaces.h"
#include "state/address-holders.h"
#include "state/layout.h"
#include "state/liveness.h"

/* The port mappings against the sockets bound on the host (host-sockets.h),
 * before any plugin runs. /proc is read once, and only when some
 * attachment maps ports. */
int preflight_host_ports(struct engine_run *r, const struct selection *sel, const char *by)
{
	bool any = false;
	for (size_t i = 0; i < sel->n; i++)
		any |= sel->v[i].ports.n > 0;
	if (!any)
		return 0;
	struct host_sockets hs = {0};
	_cleanup_free_ char *err = NULL;
	int ret = host_sockets_read("/proc", &hs, &err);
	if (ret < 0) {
		char *m = xasprintf("sockets bound on the host: %s", err);
		free(err);
		err = m;
	}
	for (size_t i = 0; i < sel->n && ret == 0; i++)
		if (sel->v[i].ports.n)
			ret = host_sockets_check(&hs, "/proc",
						 sel->v[i].ports_key ? sel->v[i].ports_key
						 : by		     ? by
								     : ANN_PORTS,
						 &sel->v[i].ports, &err);
	host_sockets_free(&hs);
	if (ret < 0)
		run_failed(r, ENGINE_OWN_ERROR, err);
	return ret;
}

/* gc's verdict on container `holder` (liveness.h): provably gone? *own:
 * the hook attached it (its state directory exists); *why: the evidence. */
static bool holder_gone(struct engine_run *r, const char *holder, bool *own, char **why)
{
	_cleanup_free_ char *dir = layout_container_dir(r->cfg->state_dir, holder);
	struct stat st;
	cnirt_cache_entry **v = NULL;
	size_t n = 0;
	cnirt_error *e = NULL;
	*own = stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
	if (cnirt_cache_list_container(r->ctx, holder, &v, &n, &e) < 0) {
		*why = xasprintf("its cache entries: %s", cnirt_error_msg(e));
		cnirt_error_free(e);
		return false;
	}
	const struct liveness_candidate c = {
	    .id = holder,
	    .own = *own,
	    .v = (const cnirt_cache_entry *const *)v,
	    .n = n,
	};
	struct liveness_world *w = liveness_world_read();
	bool gone = liveness_gone(r->cfg->state_dir, false, w, &c, why);
	liveness_world_free(w);
	cnirt_cache_entries_free(v, n);
	return gone;
}

/* Hand `why` to *why_not when the caller wants it: -1. */
static int not_collected(char **why_not, char *why)
{
	if (why_not)
		*why_not = why;
	else
		free(why);
	return -1;
}

/* The container `holder` stands in the way of this attach (it holds `held`:
 * a host port, an IP or a MAC asked for) and may be gone without a poststop
 * (a start that failed after createRuntime, a runtime killed): when gc's
 * rules prove it gone, it is detached first, as gc would (its lock not
 * waited for), and the log says so. With `own_only`, a holder the hook did
 * not attach is never collected. 0 collected; -1 it is not provably gone,
 * or another program's, or busy, or its teardown failed (*why_not, if not
 * NULL, says which): the refusal stands. */
int preflight_collect_gone(struct engine_run *r, const char *holder, const char *held,
			   bool own_only, char **why_not)
{
	if (strcmp(holder, r->id) == 0)
		return not_collected(why_not, xstrdup("it is this container"));
	bool own = false;
	char *why = NULL;
	bool gone = holder_gone(r, holder, &own, &why);
	if (own_only && !own) {
		free(why);
		return not_collected(why_not, xstrdup("cnihook has no state for it: another "
						      "program's attachment, never collected"));
	}
	if (!gone)
		return not_collected(why_not, why);
	size_t done = 0;
	int d = engine_detach(r->cfg, holder, r->stage, &done);
	if (d != 0) {
		const char *but = d > 0 ? "a stage holds its lock" : "its teardown failed";
		log_warn("%s %s: container \"%s\", which holds %s, is gone (%s) but %s", r->id,
			 r->stage, holder, held, why, but);
		free(why);
		return not_collected(why_not, xasprintf("it is gone, but %s", but));
	}
	log_warn("%s %s: collected container \"%s\" first, which held %s: gone, as gc would "
		 "find it (%s); detached %zu attachment(s)",
		 r->id, r->stage, holder, held, why, done);
	free(why);
	return 0;
}

/* The lowest netN (N >= 1) that neither the namespace nor an attachment
 * uses (allocated). */
static char *free_ifname(const struct interfaces *ifs, const struct selection *sel)
{
	for (unsigned k = 1;; k++) {
		char *name = xasprintf("net%u", k);
		bool taken = interfaces_has(ifs, name);
		for (size_t i = 0; i < sel->n && !taken; i++)
			taken = strcmp(sel->v[i].ifname, name) == 0;
		if (!taken)
			return name;
		free(name);
	}
}

/* The interface names against the namespace, before any plugin runs
 * (interfaces.h): a name the annotation gave that another program's
 * interface has is refused; where the namespace holds another program's
 * interfaces, the names cnihook chose come from net1, net2, ... (a series
 * engines do not use for their own), free in the namespace. */
int preflight_ifnames(struct engine_run *r, struct selection *sel, const char *by,
		      const char *netns)
{
	struct interfaces ifs = {0};
	_cleanup_free_ char *err = NULL;
	if (interfaces_read(netns, &ifs, &err) < 0) {
		run_failed(r, ENGINE_OWN_ERROR, err);
		return -1;
	}
	int ret = 0;
	for (size_t i = 0; i < sel->n && ret == 0; i++) {
		struct attach_req *a = &sel->v[i];
		if (a->ifname_chosen || !interfaces_has(&ifs, a->ifname))
			continue;
		_cleanup_free_ char *m = xasprintf(
		    "%s: network \"%s\": interface \"%s\" exists in the container's network "
		    "namespace already, another program's (the engine's own network?): refusing "
		    "before any plugin runs; name a free interface (\"%s@net1\", or leave the "
		    "name out and cnihook chooses one)",
		    by ? by : "defaultNetworks (cnihook.json)", a->network, a->ifname, a->network);
		run_failed(r, ENGINE_OWN_ERROR, m);
		ret = -1;
	}
	r->foreign_default = ifs.default_route != NULL || interfaces_any_other(&ifs);
	if (ret == 0 && interfaces_any_other(&ifs))
		for (size_t i = 0; i < sel->n; i++) {
			struct attach_req *a = &sel->v[i];
			if (!a->ifname_chosen ||
			    (strncmp(a->ifname, "net", 3) == 0 && !interfaces_has(&ifs, a->ifname)))
				continue;
			char *name = free_ifname(&ifs, sel);
			log_info(
			    "%s %s: network \"%s\" attached as %s, not %s: the namespace holds "
			    "another program's interfaces",
			    r->id, r->stage, a->network, name, a->ifname);
			free(a->ifname);
			a->ifname = name;
		}
	interfaces_free(&ifs);
	return ret;
}

/* The first address asked for that another container's cached result holds
 * (address-holders.h): 1 with *hit, its entry one of *v (the cache, which
 * the caller frees), and *i the attachment; 0 none; -1 the cache could not
 * be read (recorded). */
static int find_held(struct engine_run *r, const struct selection *sel, cnirt_cache_entry ***v,
		     size_t *n, struct holder_hit *hit, size_t *i)
{
	cnirt_error *e = NULL;
	if (cnirt_cache_list(r->ctx, v, n, &e) < 0) {
		_cleanup_free_ char *m =
		    xasprintf("who holds the IP addresses and MACs asked for: %s; refusing "
			      "before any plugin runs",
			      cnirt_error_msg(e));
		cnirt_error_free(e);
		run_failed(r, ENGINE_OWN_ERROR, m);
		return -1;
	}
	for (*i = 0; *i < sel->n; (*i)++)
		if (address_holders_find(&sel->v[*i], r->id, *v, *n, hit) > 0)
			return 1;
	return 0;
}

/* Collect the holder of an address asked for (hit, attachment a) when it is
 * cnihook's and gone, else refuse naming the address, the network and the
 * holder. `again`: it was collected already and still holds it. */
static int collect_or_refuse(struct engine_run *r, const struct attach_req *a,
			     const struct holder_hit *hit, bool again)
{
	_cleanup_free_ char *holder = xstrdup(cnirt_cache_entry_container_id(hit->entry));
	_cleanup_free_ char *held =
	    xasprintf("the %s asked for on network \"%s\"", hit->what, a->network);
	_cleanup_free_ char *why =
	    again ? xstrdup("it still holds it after it was collected") : NULL;
	if (!again && preflight_collect_gone(r, holder, held, true, &why) == 0)
		return 0;
	_cleanup_free_ char *id = error_shown(holder);
	_cleanup_free_ char *ifname = error_shown(cnirt_cache_entry_ifname(hit->entry));
	_cleanup_free_ char *m = xasprintf(
	    "network \"%s\": the %s asked for is held by container \"%s\" (its interface %s, "
	    "in the result cache), not collected: %s; refusing before any plugin runs (stop or "
	    "remove that container, or ask for another address)",
	    a->network, hit->what, id, ifname, why);
	run_failed(r, ENGINE_OWN_ERROR, m);
	return -1;
}

/* The static IPs and MACs asked for against the result cache, before any
 * plugin runs: the holder of one, on the same network, is collected first
 * when it is cnihook's own and gc's rules prove it gone, else the attach
 * is refused. The cache is read only when some attachment asks for such an
 * address (and once more after each collection). */
int preflight_held_addresses(struct engine_run *r, const struct selection *sel)
{
	bool any = false;
	for (size_t i = 0; i < sel->n; i++)
		any |= address_holders_asked(&sel->v[i]);
	char **collected = NULL;
	size_t n_collected = 0;
	int ret = any ? 1 : 0;
	while (ret > 0) {
		cnirt_cache_entry **v = NULL;
		size_t n = 0, i = 0;
		struct holder_hit hit = {0};
		ret = find_held(r, sel, &v, &n, &hit, &i);
		if (ret > 0) {
			const char *holder = cnirt_cache_entry_container_id(hit.entry);
			bool again = false;
			for (size_t k = 0; k < n_collected && !again; k++)
				again = strcmp(collected[k], holder) == 0;
			strv_append(&collected, &n_collected, holder);
			ret = collect_or_refuse(r, &sel->v[i], &hit, again) < 0 ? -1 : 1;
		}
		address_holders_hit_free(&hit);
		cnirt_cache_entries_free(v, n);
	}
	strv_free(collected, n_collected);
	return ret;
}
