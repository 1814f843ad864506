/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `cnihook list`: every attachment of the result cache, whoever made it,
 * and what gc makes of it; with the attaches a killed hook left unfinished
 * (state/unfinished.h), as gc judges them (docs/architecture.md, "What the
 * tools show of an unfinished attach").
 *
 * A few system calls per entry and nothing that grows with the others:
 * the cache is read once (cnirt_cache_scan()), the state directory once
 * (one listing, sorted, looked up in: snapshot.h) and its files relative
 * to it; the addresses of each cached result are read without converting
 * it (cnirt_result_ips()).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cnirt.h>

#include "base/log.h"
#include "base/table.h"
#include "base/util.h"
#include "cmd/columns.h"
#include "cmd/list.h"
#include "state/container-key.h"
#include "state/journal.h"
#include "state/layout.h"
#include "state/snapshot.h"
#include "state/unfinished.h"

/* The addresses of a result (NULL: none) as its conversion to 1.0.0
 * writes them; none when it is not a valid result. */
static void result_ips(const char *result, char ***v, size_t *n)
{
	cnirt_error *e = NULL;
	*v = NULL;
	*n = 0;
	if (result && cnirt_result_ips(result, strlen(result), v, n, &e) < 0)
		cnirt_error_free(e);
}

/* The addresses of the running result of attachment (network, ifname) of
 * container `id` in its ADD journal (none when there is none). */
static void journal_ips(const char *state_dir, const char *id, const char *network,
			const char *ifname, char ***v, size_t *n)
{
	_cleanup_free_ char *result = NULL;
	_cleanup_free_ char *err = NULL;
	if (journal_read(state_dir, id, network, ifname, &result, &err) < 0)
		result = NULL;
	result_ips(result, v, n);
}

static char *age(long long seconds)
{
	if (seconds < 120)
		return xasprintf("%llds", seconds);
	if (seconds < 7200)
		return xasprintf("%lldm", seconds / 60);
	if (seconds < 172800)
		return xasprintf("%lldh", seconds / 3600);
	return xasprintf("%lldd", seconds / 86400);
}

/* One row of `list`: an attachment of the cache, or one that cnihook holds
 * something of but no cache entry (an unfinished attach). */
struct list_row {
	const char *id, *network, *ifname; /* the cache entry's or the record's */
	char *name;			   /* record_name_read(), or NULL */
	char **ips;			   /* cnirt_result_ips() */
	size_t n_ips;
	const char *netns;
	long long age; /* seconds */
	const char *gc;
	unsigned missing; /* UNFINISHED_NO_* */
	const char *why;  /* gc's evidence, for an unfinished attach */
};

/* What `list` shows: the cache's entries, its damaged files, the
 * unfinished attaches of the state directory, a row for each entry and
 * then for each attachment of an unfinished attach that has no entry. */
struct list {
	cnirt_cache_entry **v;
	size_t n;
	cnirt_cache_damage *damaged;
	size_t n_damaged;
	struct unfinished *u;
	size_t n_u;
	struct list_row *rows;
	size_t n_rows, cap_rows;
};

static void list_free(struct list *l)
{
	for (size_t i = 0; i < l->n_rows; i++) {
		free(l->rows[i].name);
		cnirt_result_ips_free(l->rows[i].ips, l->rows[i].n_ips);
	}
	free(l->rows);
	for (size_t i = 0; i < l->n_u; i++)
		unfinished_free(&l->u[i]);
	free(l->u);
	cnirt_cache_damage_free(l->damaged, l->n_damaged);
	cnirt_cache_entries_free(l->v, l->n);
	*l = (struct list){0};
}

/* What gc makes of an entry (cnihook(8), "gc"), by its kind: "own" (the
 * hook's: its pin decides), "netns" (another program's: goes with the
 * namespace it names), "kept:no-netns" (another program's naming no
 * namespace: gc never collects it by default). */
static const char *gc_rule(bool own, const char *netns)
{
	if (own)
		return "own";
	return *netns ? "netns" : "kept:no-netns";
}

static int unfinished_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct unfinished *)elem)->id);
}

/* The unfinished attach of container `id`, or NULL. */
static struct unfinished *list_unfinished(const struct list *l, const char *id)
{
	return l->n_u ? bsearch(id, l->u, l->n_u, sizeof(*l->u), unfinished_cmp) : NULL;
}

static struct list_row *list_row_new(struct list *l)
{
	if (l->n_rows == l->cap_rows) {
		l->cap_rows = l->cap_rows ? 2 * l->cap_rows : 16;
		l->rows = xreallocarray(l->rows, l->cap_rows, sizeof(*l->rows));
	}
	struct list_row *r = &l->rows[l->n_rows++];
	*r = (struct list_row){0};
	return r;
}

/* The row of entry c; sd is the state directory. */
static void list_row(struct list *l, const struct snapshot *sd, const cnirt_cache_entry *c,
		     long long now)
{
	const char *id = cnirt_cache_entry_container_id(c);
	const char *netns = cnirt_cache_entry_netns(c);
	bool own = snapshot_is_dir(sd, id);
	const struct unfinished *u = own ? list_unfinished(l, id) : NULL;
	struct list_row *r = list_row_new(l);
	*r = (struct list_row){
	    .id = id,
	    .network = cnirt_cache_entry_network(c),
	    .ifname = cnirt_cache_entry_ifname(c),
	    .name = own ? container_key_name(sd, id) : NULL,
	    .netns = netns ? netns : "",
	    .age = now - cnirt_cache_entry_mtime(c),
	    .gc = u ? columns_gc(u) : gc_rule(own, netns ? netns : ""),
	    .missing =
		u ? unfinished_missing(u, cnirt_cache_entry_network(c), cnirt_cache_entry_ifname(c))
		  : 0,
	    .why = u ? u->why : NULL,
	};
	if (r->age < 0)
		r->age = 0;
	result_ips(cnirt_cache_entry_result(c), &r->ips, &r->n_ips);
}

/* The rows of the unfinished attach u for what the cache has no entry of:
 * each attachment of its record without one, or the container itself when
 * it has no record and no entry. */
static void list_unfinished_rows(struct list *l, const struct hook_config *cfg,
				 const struct snapshot *sd, const struct unfinished *u,
				 long long now)
{
	size_t n = u->rec ? u->rec->n : 0;
	for (size_t i = 0; i <= n; i++) {
		const struct record_att *a = i < n ? &u->rec->v[i] : NULL;
		if (a ? unfinished_entry(u, a->network, a->ifname) != NULL : n || u->n)
			continue;
		struct list_row *r = list_row_new(l);
		*r = (struct list_row){
		    .id = u->id,
		    .network = a ? a->network : "-",
		    .ifname = a ? a->ifname : "-",
		    .name = container_key_name(sd, u->id),
		    .netns = u->rec && u->rec->netns ? u->rec->netns : "",
		    .age = u->mtime && now > u->mtime ? now - u->mtime : 0,
		    .gc = columns_gc(u),
		    .missing = unfinished_missing(u, a ? a->network : NULL, a ? a->ifname : NULL),
		    .why = u->why,
		};
		if (a)
			journal_ips(cfg->state_dir, u->id, a->network, a->ifname, &r->ips,
				    &r->n_ips);
	}
}

/* The unfinished attaches of the state directory, sorted by id as the
 * listing is, each with its cache entries, read and judged. A hook removes
 * the lock beside a container's directory (<id>.lock) when its attach or
 * detach is done, and a hook killed leaves it: so only the containers with a
 * lock in the listing (found there, no system call) are looked at further,
 * and those that lack nothing (a stage under way, in time) are left out. */
static void list_find_unfinished(struct list *l, const struct hook_config *cfg,
				 const struct snapshot *sd)
{
	for (size_t i = 0; sd->listed && i < sd->n; i++) {
		const struct dir_entry *f = &sd->v[i];
		if (!snapshot_is_container(sd, f))
			continue;
		_cleanup_free_ char *lock = layout_lock(NULL, f->name);
		if (snapshot_find(sd, lock) == NULL)
			continue;
		l->u = xreallocarray(l->u, l->n_u + 1, sizeof(*l->u));
		l->u[l->n_u++] = (struct unfinished){.id = xstrdup(f->name)};
	}
	if (l->n_u == 0)
		return;
	for (size_t i = 0; i < l->n; i++) {
		struct unfinished *u = list_unfinished(l, cnirt_cache_entry_container_id(l->v[i]));
		if (u == NULL)
			continue;
		u->v = xreallocarray(u->v, u->n + 1, sizeof(*u->v));
		u->v[u->n++] = l->v[i];
	}
	struct liveness_world *w = NULL;
	size_t k = 0;
	for (size_t i = 0; i < l->n_u; i++) {
		struct unfinished *u = &l->u[i];
		unfinished_read(cfg->state_dir, sd, u);
		if (!unfinished_lacks(u)) {
			unfinished_free(u);
			continue;
		}
		unfinished_judge(cfg->state_dir, &w, u);
		l->u[k++] = *u;
	}
	l->n_u = k;
	liveness_world_free(w);
}

/* Read the cache, and the state directory for what the cache does not say
 * (which entries are the hook's, the names of their containers, the
 * unfinished attaches). */
static int list_read(const struct hook_config *cfg, const cnirt_ctx *ctx, struct list *l,
		     char **err)
{
	cnirt_error *e = NULL;
	if (cnirt_cache_scan(ctx, &l->v, &l->n, &l->damaged, &l->n_damaged, &e) < 0) {
		int errnum = cnirt_error_errno(e);
		bool perm = errnum == EACCES || errnum == EPERM;
		error_set(err, "%s%s", cnirt_error_msg(e),
			  perm && geteuid() != 0 ? " (needs root)" : "");
		cnirt_error_free(e);
		return -1;
	}
	/* Unreadable: each entry is looked up by name instead. */
	_cleanup_(snapshot_close) struct snapshot sd = {.fd = -1};
	int ignored;
	snapshot_open(cfg->state_dir, &sd, &ignored);
	long long now = (long long)time(NULL);
	list_find_unfinished(l, cfg, &sd);
	l->cap_rows = l->n + 1;
	l->rows = xreallocarray(NULL, l->cap_rows, sizeof(*l->rows));
	for (size_t i = 0; i < l->n; i++)
		list_row(l, &sd, l->v[i], now);
	for (size_t i = 0; i < l->n_u; i++)
		list_unfinished_rows(l, cfg, &sd, &l->u[i], now);
	return 0;
}

/* One entry of `list --json`. */
static json *list_entry(const struct list_row *r)
{
	json *o = json_new(JSON_OBJECT);
	json_obj_append(o, "containerId", json_new_string(r->id));
	if (r->name)
		json_obj_append(o, "name", json_new_string(r->name));
	json_obj_append(o, "network", json_new_string(r->network));
	json_obj_append(o, "ifname", json_new_string(r->ifname));
	json *a = json_new(JSON_ARRAY);
	for (size_t i = 0; i < r->n_ips; i++)
		json_arr_append(a, json_new_string(r->ips[i]));
	json_obj_append(o, "ips", a);
	json_obj_append(o, "netns", json_new_string(r->netns));
	json_obj_append(o, "ageSeconds", json_new_int(r->age));
	json_obj_append(o, "gc", json_new_string(r->gc));
	json_obj_append(o, "missing", columns_missing_json(r->missing));
	if (r->why)
		json_obj_append(o, "gcEvidence", json_new_string(r->why));
	return o;
}

static void list_print(const struct list *l, bool as_json, bool no_trunc)
{
	if (as_json) {
		_cleanup_json_ json *all = json_new(JSON_ARRAY);
		for (size_t i = 0; i < l->n_rows; i++)
			json_arr_append(all, list_entry(&l->rows[i]));
		_cleanup_free_ char *text = json_gen(all, false, NULL);
		printf("%s\n", text);
		return;
	}
	struct table t = {.cols = 8};
	table_row(&t, "CONTAINER", "NETWORK", "INTERFACE", "IPS", "NETNS", "AGE", "GC", "MISSING");
	for (size_t i = 0; i < l->n_rows; i++) {
		const struct list_row *r = &l->rows[i];
		table_row(&t, table_keep(&t, columns_container(r->id, r->name, no_trunc)),
			  r->network, r->ifname, table_keep(&t, strv_join(r->ips, r->n_ips, ",")),
			  r->netns, table_keep(&t, age(r->age)), r->gc,
			  r->missing ? table_keep(&t, columns_missing_text(r->missing)) : "-");
	}
	table_print(&t, stdout);
}

int list_run(const struct hook_config *cfg, bool as_json, bool no_trunc)
{
	cnirt_ctx *ctx = hookconf_ctx(cfg);
	_cleanup_(list_free) struct list l = {0};
	_cleanup_free_ char *err = NULL;
	if (list_read(cfg, ctx, &l, &err) < 0) {
		log_error("list: %s", err);
		cnirt_ctx_free(ctx);
		return 1;
	}
	list_print(&l, as_json, no_trunc);
	/* What the table cannot show: files that are not readable entries. */
	fflush(stdout);
	for (size_t i = 0; i < l.n_damaged; i++) {
		_cleanup_free_ char *p =
		    layout_result_shown(cnirt_ctx_cache_dir(ctx), l.damaged[i].name);
		log_warn("list: damaged cache entry \"%s\": %s", p, l.damaged[i].problem);
	}
	cnirt_ctx_free(ctx);
	return 0;
}
