/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The hook's stages: attach at createRuntime (or prestart), detach at
 * poststop. Attach validates everything before the first plugin runs,
 * writes the attachment record, pins the namespace, and attaches the
 * networks in order; any failure detaches what was attached and leaves
 * nothing behind. Detach works from the record and the cache (never from
 * /proc/<pid>), in reverse order, and succeeds when repeated, without a
 * createRuntime, or after the state directory was wiped.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cnirt.h>

#include "annotations.h"
#include "cachelist.h"
#include "capargs.h"
#include "hostports.h"
#include "lifecycle.h"
#include "lock.h"
#include "log.h"
#include "netns.h"
#include "policy.h"
#include "portreserve.h"
#include "record.h"
#include "netstatus.h"
#include "ocistate.h"

#define STATE_MAX_SIZE (1u << 20)

struct run {
	const struct hook_config *cfg;
	const char *stage; /* as named on the command line or inferred */
	const char *id;
	cnirt_ctx *ctx;
	long long plugin_usec;
	long long start_usec;
	/* The CNI plugin (NULL for the hook): the namespace is the runtime's,
	 * never pinned; the cluster attachment is listed first and never
	 * detached; the first failure is handed back. */
	const struct lifecycle_target *t;
	/* The hook's container (ocistate.h): its bundle, its name when that is
	 * not r->id (its CNI_CONTAINERID), its process; NULL and 0 for gc and
	 * the CNI plugin. */
	const char *bundle;
	const char *name;
	pid_t pid;
	size_t detached; /* attachments a detach tore down */
};

static long long now_usec(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int stage_parse(const char *s, enum stage *out)
{
	if (strcmp(s, "createRuntime") == 0 || strcmp(s, "prestart") == 0)
		*out = STAGE_ATTACH;
	else if (strcmp(s, "poststop") == 0)
		*out = STAGE_DETACH;
	else
		return -1;
	return 0;
}

static void observe(void *data, const cnirt_event *ev)
{
	struct run *r = data;
	const char *network = ev->network, *plugin = ev->plugin, *command = ev->command;
	long long usec = ev->usec;
	const cnirt_error *e = ev->err;
	r->plugin_usec += usec;
	if (e) {
		_cleanup_free_ char *msg = log_format_error(network, e);
		log_debug("%s %s: %s %s failed after %.1f ms", r->id, r->stage, command, msg,
			  usec / 1000.0);
	} else {
		log_debug("%s %s: network \"%s\": plugin \"%s\" %s ok in %.1f ms", r->id, r->stage,
			  network ? network : "", plugin, command, usec / 1000.0);
	}
}

/* The first failure, for a caller that reports it itself. */
static void note_failure(const struct run *r, int code, const char *msg)
{
	struct lifecycle_failure *why = r->t ? r->t->why : NULL;
	if (why && why->msg == NULL) {
		why->code = code;
		why->msg = xstrdup(msg);
	}
}

static void fail(const struct run *r, const char *msg)
{
	note_failure(r, LIFECYCLE_OWN_ERROR, msg);
	log_error("%s %s: %s", r->id ? r->id : "-", r->stage, msg);
}

static void fail_cni(const struct run *r, const char *network, cnirt_error *e)
{
	_cleanup_free_ char *msg = log_format_error(network, e);
	note_failure(r, cnirt_error_code(e) ? cnirt_error_code(e) : LIFECYCLE_OWN_ERROR, msg);
	fail(r, msg);
	cnirt_error_free(e);
}

/* The namespace for DEL: the one the CNI plugin was given, else the pin. */
static const char *given_netns(const struct run *r)
{
	return r->t && r->t->netns && *r->t->netns ? r->t->netns : NULL;
}

/* The cluster network's own cache entry (any interface when the primary
 * names none), which the plugin never touches. */
static bool is_cluster_entry(const struct run *r, const cnirt_cache_entry *e)
{
	const struct status_entry *c = r->t ? r->t->primary : NULL;
	return c && strcmp(cnirt_cache_entry_network(e), c->network) == 0 &&
	       (c->ifname == NULL || strcmp(cnirt_cache_entry_ifname(e), c->ifname) == 0);
}

static bool has_cap(void *data, const char *cap)
{
	return cnirt_netlist_has_capability(data, cap);
}

/* The port mappings against the sockets bound on the host (hostports.h),
 * before any plugin runs. /proc is read once, and only when some
 * attachment maps ports. */
static int check_host_ports(struct run *r, const struct selection *sel, const char *by)
{
	bool any = false;
	for (size_t i = 0; i < sel->n; i++)
		any |= sel->v[i].port_mappings != NULL;
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
		if (sel->v[i].port_mappings)
			ret = hostports_check(&hs, "/proc",
					      sel->v[i].ports_key ? sel->v[i].ports_key
					      : by		  ? by
								  : ANN_PORTS,
					      sel->v[i].port_mappings, &err);
	host_sockets_free(&hs);
	if (ret < 0)
		fail(r, err);
	return ret;
}

/* What one attachment needs for ADD and DEL. */
struct prepared {
	cnirt_netlist *list;
	char *cap_args;
	char *config_args;
	struct kv *args;
	size_t n_args;
	cnirt_kv *cnikv;
};

static void prepared_free(struct prepared *p, size_t n)
{
	for (size_t i = 0; p && i < n; i++) {
		cnirt_netlist_free(p[i].list);
		free(p[i].cap_args);
		free(p[i].config_args);
		kv_free(p[i].args, p[i].n_args);
		free(p[i].cnikv);
	}
	free(p);
}

static cnirt_kv *to_cnikv(const struct kv *args, size_t n)
{
	cnirt_kv *v = xreallocarray(NULL, n ? n : 1, sizeof(*v));
	for (size_t i = 0; i < n; i++)
		v[i] = (cnirt_kv){args[i].key, args[i].value};
	return v;
}

/* Load and check everything an attachment needs, before any plugin runs. */
static int prepare(const char *by, const cnirt_confdir *dir, const struct selection *sel, size_t i,
		   struct prepared *p, char **err)
{
	const struct attach_req *a = &sel->v[i];
	_cleanup_free_ char *where =
	    by ? xasprintf("annotation \"%s\"", by) : xstrdup("defaultNetworks (cnihook.json)");
	cnirt_error *e = NULL;
	cnirt_netlist *found = NULL;
	if (cnirt_confdir_get(dir, a->network, &found, &e) < 0) {
		*err = xasprintf("%s: %s", where, cnirt_error_msg(e));
		cnirt_error_free(e);
		return -1;
	}
	if (attachment_args(sel, i, has_cap, found, &p->cap_args, &p->args, &p->n_args, err) < 0) {
		cnirt_netlist_free(found);
		return -1;
	}
	p->cnikv = to_cnikv(p->args, p->n_args);
	/* libcnirt passes cni-args as args.cni of every plugin (derive.c). */
	p->config_args = xstrdup(a->cni_args);
	p->list = found;
	return 0;
}

/* DEL one recorded attachment: from the cache when it has the entry, else
 * from the record (a hook killed before the cache was written). */
static int detach_one(struct run *r, const struct record_att *a, const char *netns)
{
	cnirt_error *e = NULL;
	cnirt_cache_entry *entry = NULL;
	int got = cnirt_cache_get(r->ctx, a->network, r->id, a->ifname, &entry, &e);
	cnirt_cache_entry_free(entry);
	if (got < 0) {
		_cleanup_free_ char *msg = log_format_error(a->network, e);
		log_warn("%s %s: %s; deleting from the attachment record instead", r->id, r->stage,
			 msg);
		cnirt_error_free(TAKE_PTR(e));
	}
	if (got == 0 && entry) {
		if (cnirt_del_cached(r->ctx, a->network, r->id, a->ifname, netns, &e) < 0) {
			fail_cni(r, a->network, e);
			return -1;
		}
		return 0;
	}
	cnirt_netlist *l = NULL;
	if (cnirt_netlist_parse(a->config, strlen(a->config), "attachment record", &l, &e) < 0) {
		fail_cni(r, a->network, e);
		return -1;
	}
	_cleanup_free_ cnirt_kv *kv = to_cnikv(a->args, a->n_args);
	cnirt_attachment att = {
	    .container_id = r->id,
	    .netns = netns,
	    .ifname = a->ifname,
	    .args = kv,
	    .n_args = a->n_args,
	    .capability_args = a->cap_args,
	    .config_args = a->config_args,
	};
	int ret = cnirt_del(r->ctx, l, &att, &e);
	if (ret < 0)
		fail_cni(r, a->network, e);
	cnirt_netlist_free(l);
	return ret;
}

/* Remove what the state directory holds for the container. */
static void remove_state(const struct run *r, const char *pin)
{
	_cleanup_free_ char *err = NULL;
	if (pin)
		netns_index_remove(r->cfg->state_dir, pin, r->id);
	if (pin && netns_unpin(pin, &err) < 0)
		log_warn("%s %s: %s", r->id, r->stage, err);
	_cleanup_free_ char *status = status_path(r->cfg->state_dir, r->id);
	_cleanup_free_ char *record = record_path(r->cfg->state_dir, r->id);
	_cleanup_free_ char *dir = xasprintf("%s/%s", r->cfg->state_dir, r->id);
	_cleanup_free_ char *name = record_name_path(r->cfg->state_dir, r->id);
	_cleanup_free_ char *old_name = xasprintf("%s/" RECORD_NAME_OLD, dir);
	unlink(status);
	unlink(name);
	unlink(old_name);
	cachelist_remove(cnirt_ctx_cache_dir(r->ctx), r->id);
	unlink(record);
	if (rmdir(dir) < 0 && errno != ENOENT)
		log_warn("%s %s: cannot remove %s: %s", r->id, r->stage, dir, strerror(errno));
}

/* Detach what the record names, in reverse order. 0 when all went. */
static int detach_record(struct run *r, const struct record *rec)
{
	const char *pin = rec->netns && *rec->netns ? rec->netns : NULL;
	const char *netns = "";
	if (given_netns(r))
		netns = given_netns(r);
	else if (pin && netns_is_netns(pin))
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
 * (cachelist.h) when it has one, else those of the files whose name holds
 * the id (the cache's names are read). A damaged entry is left out, as the
 * reading by names leaves it (gc reports it); a file that cannot be read
 * fails. */
static int cached_attachments(const struct run *r, cnirt_cache_entry ***out, size_t *n,
			      bool *listed, cnirt_error **e)
{
	struct cachelist l;
	_cleanup_free_ char *err = NULL;
	int got = cachelist_read(cnirt_ctx_cache_dir(r->ctx), r->id, &l, &err);
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
			_cleanup_free_ char *m = log_format_error(l.v[i].network, *e);
			log_warn("%s %s: %s; left to gc", r->id, r->stage, m);
			cnirt_error_free(TAKE_PTR(*e));
		} else if (*e) {
			cachelist_free(&l);
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
	cachelist_free(&l);
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
static bool may_detach(const struct run *r, const cnirt_cache_entry *e, const char *pin)
{
	const char *netns = cnirt_cache_entry_netns(e);
	bool pinned = netns && strcmp(netns, pin) == 0;
	if (strcmp(r->stage, "gc") == 0)
		return pinned || netns == NULL || *netns == '\0' || !netns_is_netns(netns);
	return r->t == NULL && pinned;
}

/* No record (the state directory was wiped): find the container's
 * attachments in the cache, by its attachment list, else those of its
 * entries that are provably cnihook's; another program's entry of the
 * same id (podman's own network, containerd's other networks of the pod)
 * is left to it. *found gets how many were found. */
static int detach_from_cache(struct run *r, size_t *found)
{
	cnirt_cache_entry **v = NULL;
	size_t n = 0;
	bool listed = false;
	cnirt_error *e = NULL;
	if (cached_attachments(r, &v, &n, &listed, &e) < 0) {
		fail_cni(r, NULL, e);
		return -1;
	}
	_cleanup_free_ char *pin = xasprintf("%s/%s/netns", r->cfg->state_dir, r->id);
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
	const char *netns = given_netns(r) ? given_netns(r) : netns_is_netns(pin) ? pin : "";
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
			fail_cni(r, network, e);
			failed = 1;
		} else {
			/* The list of its port reservations went with the
			 * state directory: the entry names the ports. */
			ports_release_entry(r->cfg->state_dir, r->id, v[i]);
		}
	}
	cnirt_cache_entries_free(v, mine);
	return failed ? -1 : 0;
}

/* Is the record another container's (the same id in another engine scope
 * that the state does not show, such as another runc --root)? Only when
 * both bundles are known and differ. */
static bool other_bundle(const struct run *r, const struct record *rec)
{
	return r->bundle && rec->bundle && strcmp(r->bundle, rec->bundle) != 0;
}

static int detach(struct run *r)
{
	_cleanup_free_ char *path = record_path(r->cfg->state_dir, r->id);
	_cleanup_free_ char *err = NULL;
	struct record *rec = NULL;
	if (record_read(path, &rec, &err) < 0) {
		log_warn("%s %s: %s; looking for the container in the cache", r->id, r->stage, err);
	}
	if (rec && other_bundle(r, rec)) {
		_cleanup_free_ char *mine = shown_whole(r->bundle);
		_cleanup_free_ char *theirs = shown_whole(rec->bundle);
		log_info("%s %s: the attachment of this id belongs to the container of bundle "
			 "\"%s\", not to this one (bundle \"%s\"): left alone",
			 r->id, r->stage, theirs, mine);
		record_free(rec);
		return 0;
	}
	size_t n = rec ? rec->n : 0;
	int ret = rec ? detach_record(r, rec) : detach_from_cache(r, &n);
	r->detached = n;
	if (ret == 0) {
		_cleanup_free_ char *pin = xasprintf("%s/%s/netns", r->cfg->state_dir, r->id);
		/* A record and no pin: a hook killed between the pin index
		 * entry and the pin. */
		if (rec && !r->t && !netns_is_netns(pin))
			netns_index_forget(r->cfg->state_dir, r->id);
		ports_release(r->cfg->state_dir, r->id);
		remove_state(r, pin);
		log_info("%s %s: detached %zu network(s) in %.1f ms (plugins %.1f ms, own %.1f ms)",
			 r->id, r->stage, n, (now_usec() - r->start_usec) / 1000.0,
			 r->plugin_usec / 1000.0,
			 (now_usec() - r->start_usec - r->plugin_usec) / 1000.0);
	}
	record_free(rec);
	return ret;
}

/* network-status.json: the cluster interface first (in a pod, the default
 * unless an annotation gives "default-route" to a secondary), then the
 * attachments of the selection. */
static void write_status(const struct run *r, const struct selection *sel, const struct record *rec,
			 char *const *results)
{
	const struct status_entry *primary = r->t ? r->t->primary : NULL;
	size_t n = 0;
	struct status_entry *st = xreallocarray(NULL, sel->n + 1, sizeof(*st));
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
		st[n++] = (struct status_entry){
		    .network = a->ns ? xasprintf("%s/%s", a->ns, a->network) : xstrdup(a->network),
		    .ifname = a->ifname,
		    .is_default = rec->v[i].is_default,
		    .result = results[i],
		};
	}
	_cleanup_free_ char *err = NULL;
	_cleanup_free_ char *spath = status_path(r->cfg->state_dir, r->id);
	if (status_write(spath, st, n, &err) < 0)
		log_warn("%s %s: %s", r->id, r->stage, err);
	for (size_t i = 0; i < n; i++)
		free((char *)st[i].network);
	free(st);
}

/* Does the container that wrote `rec` still run in the namespace it
 * pinned? Its recorded process is in it (a record without a pid: the pin
 * alone says so). */
static bool record_alive(const struct record *rec)
{
	const char *pin = rec->netns && *rec->netns ? rec->netns : NULL;
	if (pin == NULL || !netns_is_netns(pin))
		return false;
	if (rec->pid <= 0)
		return true;
	_cleanup_free_ char *proc = xasprintf("/proc/%d/ns/net", rec->pid);
	return netns_same(proc, pin);
}

/* A record left by an earlier attach of the same id: refused while it is
 * another container's that still runs (never detach a live neighbour),
 * else detached first. */
static int replace_old_record(struct run *r, const char *rpath, const char *pin)
{
	_cleanup_free_ char *err = NULL;
	struct record *old = NULL;
	if (record_read(rpath, &old, &err) < 0 || old == NULL)
		return 0;
	if (other_bundle(r, old) && record_alive(old)) {
		_cleanup_free_ char *mine = shown_whole(r->bundle);
		_cleanup_free_ char *theirs = shown_whole(old->bundle);
		_cleanup_free_ char *alive = old->pid > 0 ? xasprintf("pid %d", old->pid)
							  : xstrdup("its namespace is pinned");
		_cleanup_free_ char *m = xasprintf(
		    "container id \"%s\" is attached already, for the container of bundle "
		    "\"%s\", which still runs (%s); this container (bundle \"%s\") has the "
		    "same id in another engine scope (another runc --root?): refusing to attach "
		    "it rather than detach the other (give it an id of its own)",
		    r->id, theirs, alive, mine);
		fail(r, m);
		record_free(old);
		return -1;
	}
	log_warn("%s %s: the container was attached already; detaching that first", r->id,
		 r->stage);
	int ret = detach_record(r, old);
	if (ret == 0) {
		ports_release(r->cfg->state_dir, r->id);
		remove_state(r, pin);
	}
	record_free(old);
	return ret;
}

/* The record of the attachments about to be made: what poststop and gc
 * need to detach them even if the configuration changes (rec->v is
 * allocated). */
static void record_init(struct record *rec, const struct run *r, const struct selection *sel,
			const struct prepared *p, const char *netns)
{
	const struct status_entry *primary = r->t ? r->t->primary : NULL;
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
		    /* The first attachment (in a pod: the cluster's) holds
		     * the default route unless the annotation gives
		     * "default-route" to some. */
		    .is_default =
			any_default_route || primary ? sel->v[i].n_default_route > 0 : i == 0,
		    .config = (char *)bytes,
		    .cap_args = p[i].cap_args,
		    .config_args = p[i].config_args,
		    .args = p[i].args,
		    .n_args = p[i].n_args,
		};
	}
}

/* Everything the state directory holds before the first plugin runs, in
 * the order that lets a hook killed at any point be cleaned up (the
 * directory, the port reservations, the record, the name, the pin's index
 * entry, the pin); on failure what was written is removed. */
static int state_begin(struct run *r, const struct selection *sel, const struct record *rec,
		       const char *source, const char *pin, char **err)
{
	_cleanup_free_ char *dir = xasprintf("%s/%s", r->cfg->state_dir, r->id);
	_cleanup_free_ char *rpath = record_path(r->cfg->state_dir, r->id);
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		*err = xasprintf("state directory %s: %s", dir, strerror(errno));
		return -1;
	}
	/* Host ports, once the state directory shows we are attaching (a
	 * reservation whose holder has none and no cache entry is stale). */
	if (ports_reserve(r->cfg->state_dir, r->ctx, r->id, sel, err) < 0) {
		remove_state(r, NULL);
		return -1;
	}
	int ret = record_write(rpath, rec, err);
	if (ret == 0 && r->name)
		ret = record_name_write(r->cfg->state_dir, r->id, r->name, err);
	if (ret == 0)
		ret = cachelist_write(cnirt_ctx_cache_dir(r->ctx), r->id, rec, err);
	if (ret == 0 && !r->t)
		ret = netns_index_add(r->cfg->state_dir, source, r->id, err);
	if (ret == 0 && !r->t)
		ret = netns_pin(r->cfg->state_dir, source, pin, err);
	if (ret < 0) {
		if (!r->t)
			netns_index_remove(r->cfg->state_dir, source, r->id);
		ports_release(r->cfg->state_dir, r->id);
		remove_state(r, pin);
	}
	return ret;
}

/* A cache entry for this attachment left by an earlier ADD of cnihook's
 * (a container id used again after a reboot wiped the state directory):
 * DEL it first (best effort). Its namespace is the one this ADD uses (the
 * pin, or the engine's in plugin mode). Another program's entry of the
 * same names (a confDir shared with podman) is not deleted: 0, or -1 with
 * *err naming it. */
static int delete_stale(struct run *r, const struct attach_req *a, const char *netns, char **err)
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
		return set_error(err,
				 "network \"%s\" interface %s: the cache holds another program's "
				 "attachment of this container with these names (its namespace: "
				 "%s); not replaced (is the network also the engine's own?)",
				 a->network, a->ifname, shown);
	log_info("%s %s: network \"%s\" interface %s is in the cache already: deleting it first",
		 r->id, r->stage, a->network, a->ifname);
	if (cnirt_del_cached(r->ctx, a->network, r->id, a->ifname, NULL, &e) < 0) {
		_cleanup_free_ char *m = log_format_error(a->network, e);
		log_warn("%s %s: %s", r->id, r->stage, m);
		cnirt_error_free(e);
	}
	return 0;
}

/* ADD the networks in order; *done gets how many were attached (their
 * results in results[]). */
static int add_all(struct run *r, const struct selection *sel, const struct prepared *p,
		   const char *netns, char **results, size_t *done)
{
	for (*done = 0; *done < sel->n; (*done)++) {
		const struct attach_req *a = &sel->v[*done];
		const struct prepared *pi = &p[*done];
		_cleanup_free_ char *err = NULL;
		if (delete_stale(r, a, netns, &err) < 0) {
			fail(r, err);
			return -1;
		}
		cnirt_attachment att = {
		    .container_id = r->id,
		    .netns = netns,
		    .ifname = a->ifname,
		    .args = pi->cnikv,
		    .n_args = pi->n_args,
		    .capability_args = pi->cap_args,
		    .config_args = pi->config_args,
		};
		cnirt_error *e = NULL;
		if (cnirt_add(r->ctx, pi->list, &att, &results[*done], &e) < 0) {
			fail_cni(r, a->network, e);
			return -1;
		}
		log_info("%s %s: network \"%s\" attached as %s", r->id, r->stage, a->network,
			 a->ifname);
	}
	return 0;
}

/* After a failed ADD: detach the first `done` attachments, in reverse, and
 * leave nothing (or the record, for poststop or gc, if some DEL failed). */
static void roll_back(struct run *r, const struct record *rec, size_t done, const char *pin)
{
	struct record partial = *rec;
	partial.n = done;
	if (detach_record(r, &partial) < 0) {
		log_error("%s %s: the attachments made before the failure could not all be "
			  "removed; the record in %s/%s is kept for poststop or gc",
			  r->id, r->stage, r->cfg->state_dir, r->id);
		return;
	}
	ports_release(r->cfg->state_dir, r->id);
	remove_state(r, pin);
}

/* Attach, under the container's lock: the state first (so that a hook
 * killed from here on leaves enough behind to clean up), then the
 * networks. */
static int attach_locked(struct run *r, const struct selection *sel, struct prepared *p,
			 const char *source)
{
	_cleanup_free_ char *err = NULL;
	_cleanup_free_ char *pin = xasprintf("%s/%s/netns", r->cfg->state_dir, r->id);
	_cleanup_free_ char *rpath = record_path(r->cfg->state_dir, r->id);
	if (replace_old_record(r, rpath, pin) < 0)
		return -1;
	/* The hook pins the container's namespace; the CNI plugin works in the
	 * runtime's, which the runtime keeps until its DEL. */
	const char *netns = r->t ? r->t->netns : pin;
	struct record rec;
	record_init(&rec, r, sel, p, netns);
	if (state_begin(r, sel, &rec, source, pin, &err) < 0) {
		fail(r, err);
		free(rec.v);
		return -1;
	}
	/* gc sends the GC verb only once these ADDs are in the cache. */
	int rfd = -1;
	if (lock_results(cnirt_ctx_cache_dir(r->ctx), false, &rfd, &err) < 0) {
		fail(r, err);
		roll_back(r, &rec, 0, pin);
		free(rec.v);
		return -1;
	}
	char **results = xreallocarray(NULL, sel->n, sizeof(char *));
	size_t done = 0;
	int ret = add_all(r, sel, p, netns, results, &done);
	close(rfd);
	if (ret < 0)
		roll_back(r, &rec, done, pin);
	else
		write_status(r, sel, &rec, results);
	for (size_t i = 0; i < done; i++)
		free(results[i]);
	free(results);
	free(rec.v);
	return ret;
}

/* Attach a selection (checked against the policy) to the namespace at
 * `source`: read the configuration directory once, prepare every
 * attachment, then attach under the container's lock. */
static int attach_selection(struct run *r, const struct selection *sel, const char *by,
			    const char *source)
{
	if (check_host_ports(r, sel, by) < 0)
		return -1;
	_cleanup_free_ char *err = NULL;
	cnirt_confdir *dir = NULL;
	cnirt_error *e = NULL;
	if (cnirt_confdir_scan(r->cfg->conf_dir, &dir, &e) < 0) {
		fail(r, cnirt_error_msg(e));
		cnirt_error_free(e);
		return -1;
	}
	int ret = 0;
	struct prepared *p = xreallocarray(NULL, sel->n, sizeof(*p));
	memset(p, 0, sel->n * sizeof(*p));
	for (size_t i = 0; i < sel->n && ret == 0; i++)
		if (prepare(by, dir, sel, i, &p[i], &err) < 0) {
			fail(r, err);
			ret = -1;
		}
	cnirt_confdir_free(dir);
	if (ret == 0) {
		int fd = -1;
		if (lock_take(r->cfg->state_dir, r->id, &fd, &err) < 0) {
			fail(r, err);
			ret = -1;
		} else {
			ret = attach_locked(r, sel, p, source);
			lock_release(r->cfg->state_dir, r->id, fd, true);
		}
	}
	if (ret == 0)
		log_info("%s %s: attached %zu network(s) in %.1f ms (plugins %.1f ms, own %.1f ms)",
			 r->id, r->stage, sel->n, (now_usec() - r->start_usec) / 1000.0,
			 r->plugin_usec / 1000.0,
			 (now_usec() - r->start_usec - r->plugin_usec) / 1000.0);
	prepared_free(p, sel->n);
	return ret;
}

/* The network namespace to attach (*source), as the selection, config.json
 * or the state give it: 1 when the container is left alone (it shares the
 * host's namespace, or joins one attached already), -1 when it cannot be
 * attached (*err). */
static int namespace_source(const struct run *r, const struct oci_state *st,
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
		if (netns_index_find(r->cfg->state_dir, st->netns_path, r->id)) {
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
	if (netns_refuse_host(*source, err) < 0) {
		free(TAKE_PTR(*source));
		return -1;
	}
	return 0;
}

/* The selection of the container's annotations, checked against the
 * policy; sel->n is 0 when there is nothing to attach. */
static int select_networks(struct run *r, const struct oci_state *st, struct selection *sel,
			   char **err)
{
	const struct policy *pol = &r->cfg->policy;
	if (policy_check_annotations(pol, st->annotations, st->n_annotations, err) < 0)
		return -1;
	if (annotations_parse(st->annotations, st->n_annotations, r->cfg->default_networks,
			      r->cfg->n_default_networks, st->id, sel, err) < 0)
		return -1;
	if (sel->skip_reason) {
		log_info("%s %s: left alone: %s", r->id, r->stage, sel->skip_reason);
		return 0;
	}
	if (sel->n == 0)
		return 0;
	return policy_check_selection_ann(pol, sel, st->annotations, st->n_annotations, err);
}

static int attach(struct run *r, const struct oci_state *st)
{
	struct selection sel = {0};
	_cleanup_free_ char *err = NULL;
	_cleanup_free_ char *source = NULL;
	const char *by = annotations_selected_by(st->annotations, st->n_annotations);
	int ret = select_networks(r, st, &sel, &err);
	if (ret == 0 && sel.n > 0 && !sel.skip_reason) {
		ret = namespace_source(r, st, &sel, by, &source, &err);
		if (ret == 0)
			ret = attach_selection(r, &sel, by, source);
		else if (ret > 0)
			ret = 0;
	}
	if (ret < 0 && err)
		fail(r, err);
	selection_free(&sel);
	return ret;
}

static cnirt_ctx *make_ctx(const struct hook_config *cfg, struct run *r)
{
	cnirt_ctx *ctx = config_ctx(cfg);
	cnirt_ctx_set_event_observer(ctx, observe, r);
	return ctx;
}

/* Detach container `id` under its lock (poststop, gc). */
static int detach_locked(const struct hook_config *cfg, const char *id, const char *stage,
			 bool wait, const struct lifecycle_target *t, const char *bundle,
			 size_t *detached)
{
	struct run r = {.cfg = cfg,
			.stage = stage,
			.id = id,
			.start_usec = now_usec(),
			.t = t,
			.bundle = bundle};
	_cleanup_free_ char *err = NULL;
	int lfd = -1;
	int ret = wait ? lock_take(cfg->state_dir, id, &lfd, &err)
		       : lock_try(cfg->state_dir, id, &lfd, &err);
	if (ret < 0)
		fail(&r, err);
	if (ret != 0)
		return ret;
	r.ctx = make_ctx(cfg, &r);
	ret = detach(&r);
	if (detached)
		*detached = r.detached;
	lock_release(cfg->state_dir, id, lfd, true);
	cnirt_ctx_free(r.ctx);
	return ret;
}

int lifecycle_detach(const struct hook_config *cfg, const char *id, const char *stage,
		     size_t *detached)
{
	*detached = 0;
	return detach_locked(cfg, id, stage, false, NULL, NULL, detached);
}

int lifecycle_attach(const struct hook_config *cfg, const struct lifecycle_target *t,
		     const struct selection *sel)
{
	struct run r = {
	    .cfg = cfg, .stage = t->stage, .id = t->id, .start_usec = now_usec(), .t = t};
	r.ctx = make_ctx(cfg, &r);
	int ret = attach_selection(&r, sel, t->selected_by, t->netns);
	cnirt_ctx_free(r.ctx);
	return ret;
}

int lifecycle_detach_target(const struct hook_config *cfg, const struct lifecycle_target *t)
{
	return detach_locked(cfg, t->id, t->stage, true, t, NULL, NULL);
}

/* The OCI state on `fd`, with config.json loaded when the stage needs it
 * (poststop needs nothing of it: the record and the cache say what to tear
 * down, and a bundle damaged since the container started must not keep
 * its networks attached). The stage is inferred from the status when
 * *stage is STAGE_NONE. */
static int read_state(struct run *r, int fd, enum stage *stage, struct oci_state **out, char **err)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_free_ char *e = NULL;
	size_t len;
	if (read_all_fd(fd, STATE_MAX_SIZE, &buf, &len, &e) < 0) {
		*err = xasprintf("OCI state on stdin: %s", e);
		return -1;
	}
	struct oci_state *st = NULL;
	if (state_parse_state(buf, len, &st, err) < 0)
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
	if (state_load_config(st, false, err) < 0) {
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

int lifecycle_run(const struct hook_config *cfg, enum stage stage, const char *stage_name, int fd)
{
	struct run r = {
	    .cfg = cfg, .stage = stage_name ? stage_name : "hook", .start_usec = now_usec()};
	_cleanup_free_ char *err = NULL;
	struct oci_state *st = NULL;
	if (read_state(&r, fd, &stage, &st, &err) < 0) {
		fail(&r, err);
		state_free(st);
		return 1;
	}
	r.bundle = st->bundle;
	r.name = strcmp(st->name, st->key) != 0 ? st->name : NULL;
	r.pid = st->pid;
	int ret;
	if (stage == STAGE_ATTACH) {
		r.ctx = make_ctx(cfg, &r);
		ret = attach(&r, st);
		cnirt_ctx_free(r.ctx);
	} else {
		ret = detach_locked(cfg, r.id, r.stage, true, NULL, r.bundle, NULL);
	}
	state_free(st);
	return ret < 0 ? 1 : 0;
}
