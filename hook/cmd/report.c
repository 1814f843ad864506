/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What is attached: the status of containers, and the cache's attachments;
 * both with the attaches a killed hook left unfinished (struct unfinished),
 * as gc judges them (docs/architecture.md, "What the tools show of an
 * unfinished attach").
 *
 * Both commands cost a few system calls per entry and nothing that grows
 * with the others: the state directory is read once (one listing, sorted,
 * that both walk and look ids up in: snapshot.h) and its files are read
 * relative to it; list reads the addresses of each cached result without
 * converting it (cnirt_result_ips()).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cnirt.h>

#include "base/log.h"
#include "host/rootless-netns.h"
#include "base/table.h"
#include "base/util.h"
#include "cmd/report.h"
#include "state/container-key.h"
#include "state/journal.h"
#include "state/layout.h"
#include "state/liveness.h"
#include "state/netns-pin.h"
#include "state/network-status.h"
#include "state/record.h"
#include "state/snapshot.h"

/* The strings of an array, joined by sep (the others left out). */
static char *join_strings(const json *arr, const char *sep)
{
	size_t cap = 1, n = 0;
	for (size_t i = 0; json_is_array(arr) && i < arr->u.array.n; i++)
		if (json_str(arr->u.array.v[i]))
			cap += strlen(json_str(arr->u.array.v[i])) + strlen(sep);
	char *s = xmalloc(cap);
	s[0] = '\0';
	for (size_t i = 0; json_is_array(arr) && i < arr->u.array.n; i++) {
		const char *v = json_str(arr->u.array.v[i]);
		if (v == NULL)
			continue;
		n += (size_t)sprintf(s + n, "%s%s", n ? sep : "", v);
	}
	return s;
}

/* "cannot read WHAT: PROBLEM", with " (needs root)" when a user other than
 * root is refused. */
static char *unreadable(const char *what, int errnum)
{
	bool perm = errnum == EACCES || errnum == EPERM;
	return xasprintf("cannot read %s: %s%s", what, strerror(errnum),
			 perm && geteuid() != 0 ? " (needs root)" : "");
}

/* Ids in tables are cut to this length, as podman and runc users see them,
 * unless --no-trunc. */
#define SHORT_ID_LEN 12

static char *id_shown(const char *id, bool no_trunc)
{
	return no_trunc ? xstrdup(id) : xstrndup(id, SHORT_ID_LEN);
}

/* Container `id` (a CNI_CONTAINERID) as users name it, from its name
 * (record_name_read(), or NULL): a containerd container as
 * "<namespace>/<id>" (its id cut, not its namespace), others by their id. */
static char *container_shown(const char *id, const char *name, bool no_trunc)
{
	const char *slash = name ? strchr(name, '/') : NULL;
	if (slash == NULL)
		return id_shown(id, no_trunc);
	_cleanup_free_ char *short_id = id_shown(slash + 1, no_trunc);
	return xasprintf("%.*s/%s", (int)(slash - name), name, short_id);
}

/* ---------------------------------------------------- unfinished attaches */

/*
 * A container of the state directory whose attach did not finish (the hook
 * was killed: no network status, perhaps no cache entry), or is under way.
 * Status and list show what cnihook holds of it (its attachment record, the
 * ADD journal, the pin, cache entries), what a finished attach has that it
 * lacks, and gc's verdict on it (liveness.h, the rules gc itself applies).
 * Status finds them by their missing status file, list by the lock a
 * killed hook leaves beside the directory; only these cost more: their
 * record is read and judged.
 */
struct unfinished {
	char *id;
	struct record *rec;
	bool pin, status;
	long long mtime;	     /* of the record, else of the directory */
	const cnirt_cache_entry **v; /* its cache entries (the caller's) */
	size_t n;
	bool gone;
	char *why;
};

/* What missing means, in the order an attach writes them. */
enum { MISS_RECORD = 1, MISS_PIN = 2, MISS_CACHE = 4, MISS_STATUS = 8 };

static const char *const miss_names[] = {"record", "pin", "cache", "status"};

/* "cache,status", or "-" for nothing. */
static char *missing_text(unsigned m)
{
	struct buf b = {0};
	for (size_t i = 0; i < ARRAY_SIZE(miss_names); i++)
		if (m & (1u << i))
			buf_printf(&b, "%s%s", b.len ? "," : "", miss_names[i]);
	if (b.len == 0)
		buf_appends(&b, "-");
	return buf_steal(&b, NULL);
}

static json *missing_json(unsigned m)
{
	json *a = json_new(JSON_ARRAY);
	for (size_t i = 0; i < ARRAY_SIZE(miss_names); i++)
		if (m & (1u << i))
			json_arr_append(a, json_new_string(miss_names[i]));
	return a;
}

/* gc's verdict as the GC column shows it. */
static const char *unfinished_gc(const struct unfinished *u)
{
	return u->gone ? "would-detach" : "kept:live";
}

/* Whether the container `id` of the snapshot has a network status: one
 * fstatat(), relative to the state directory. */
static bool has_status(const struct snapshot *sd, const char *id)
{
	_cleanup_free_ char *rel = layout_status(NULL, id);
	struct stat st;
	return fstatat(sd->fd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT;
}

/* The cache entry of attachment (network, ifname) among u's, or NULL. */
static const cnirt_cache_entry *unfinished_entry(const struct unfinished *u, const char *network,
						 const char *ifname)
{
	for (size_t i = 0; i < u->n; i++)
		if (strcmp(cnirt_cache_entry_network(u->v[i]), network) == 0 &&
		    strcmp(cnirt_cache_entry_ifname(u->v[i]), ifname) == 0)
			return u->v[i];
	return NULL;
}

/* What attachment (network, ifname) of u lacks (a cache entry looked up
 * among u's; network NULL: the container as a whole). */
static unsigned unfinished_missing(const struct unfinished *u, const char *network,
				   const char *ifname)
{
	unsigned m = u->status ? 0 : MISS_STATUS;
	if (u->rec == NULL)
		m |= MISS_RECORD;
	if (!u->pin)
		m |= MISS_PIN;
	if (network == NULL || unfinished_entry(u, network, ifname) == NULL)
		m |= MISS_CACHE;
	return m;
}

/* Read what cnihook holds of u->id in the state directory: its record,
 * whether its pin is one, its age. */
static void unfinished_read(const struct hook_config *cfg, const struct snapshot *sd,
			    struct unfinished *u)
{
	_cleanup_free_ char *rpath = layout_record(cfg->state_dir, u->id);
	_cleanup_free_ char *err = NULL;
	if (record_read(rpath, &u->rec, &err) < 0)
		u->rec = NULL; /* unreadable: gc reads it no better */
	_cleanup_free_ char *pin = layout_pin(cfg->state_dir, u->id);
	u->pin = netns_is_netns(pin);
	struct stat st;
	_cleanup_free_ char *rrel = layout_record(NULL, u->id);
	if (fstatat(sd->fd, rrel, &st, 0) == 0 || fstatat(sd->fd, u->id, &st, 0) == 0)
		u->mtime = (long long)st.st_mtime;
}

/* Judge u (its cache entries u->v set) as gc does; *w is read on first
 * use, once for all. */
static void unfinished_judge(const struct hook_config *cfg, struct liveness_world **w,
			     struct unfinished *u)
{
	if (*w == NULL)
		*w = liveness_world_read();
	const struct liveness_candidate lc = {u->id, true, u->v, u->n};
	u->gone = liveness_gone(cfg->state_dir, false, *w, &lc, &u->why);
}

static void unfinished_free(struct unfinished *u)
{
	free(u->id);
	record_free(u->rec);
	free(u->v);
	free(u->why);
}

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

/* Addresses, comma separated. */
static char *ips_text(char *const *v, size_t n)
{
	struct buf b = {0};
	for (size_t i = 0; i < n; i++)
		buf_printf(&b, "%s%s", i ? "," : "", v[i]);
	return buf_steal(&b, NULL);
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

/* ------------------------------------------------------------- status */

/* The status file of container `id` in the state directory `dir`,
 * parsed; -1 with *errnum (ENOENT: there is none) and *err, which names
 * the file (and, when it is not JSON, the line, column and problem). */
static int status_read(const char *dir, const struct snapshot *sd, const char *id, json **out,
		       int *errnum, char **err)
{
	_cleanup_free_ char *path = layout_status(NULL, id);
	_cleanup_free_ char *full = layout_status(dir, id);
	_cleanup_free_ char *buf = NULL;
	_cleanup_free_ char *e = NULL;
	size_t len;
	if (read_file_at(sd->fd, path, 16u << 20, &buf, &len, errnum, &e) < 0) {
		*err = unreadable(full, *errnum);
		return -1;
	}
	struct json_limits lim = hook_json;
	lim.file = true;
	if (json_parse_with(buf, len, full, &lim, out, err) < 0) {
		*errnum = EBADMSG;
		return -1;
	}
	return 0;
}

/* Where status puts the statuses it reads: JSON (`all`, container id ->
 * status) with --json, else the rows of a table. */
struct status_out {
	json *all;
	struct table t;
	bool no_trunc;
	const char *forwarders; /* a rootless user's forwarders/, else NULL */
	/* For the unfinished attaches: read on first use. */
	cnirt_ctx *ctx;
	struct liveness_world *w;
};

/* A copy of s kept by the table (NULL for NULL). */
static const char *table_copy(struct table *t, const char *s)
{
	return s ? table_keep(t, xstrdup(s)) : NULL;
}

/* The rows of one container: one per network of its status st. The GC
 * and MISSING columns: an unfinished attach's (its entries say them), else
 * "own" (gc goes by its pin) and "-". */
static void status_rows(const struct snapshot *sd, struct table *t, const char *id, const json *st,
			bool no_trunc)
{
	_cleanup_free_ char *name = container_key_name(sd, id);
	const char *shown_id = table_keep(t, container_shown(id, name, no_trunc));
	for (size_t i = 0; json_is_array(st) && i < st->u.array.n; i++) {
		const json *e = st->u.array.v[i];
		const char *ips = table_keep(t, join_strings(json_obj_get(e, "ips"), ","));
		const char *gc = json_str(json_obj_get(e, "gc"));
		const json *miss = json_obj_get(e, "missing");
		table_row(t, shown_id, table_copy(t, json_str(json_obj_get(e, "name"))),
			  table_copy(t, json_str(json_obj_get(e, "interface"))), ips,
			  table_copy(t, json_str(json_obj_get(e, "mac"))),
			  json_is_true(json_obj_get(e, "default")) ? "yes" : "no",
			  gc ? table_copy(t, gc) : "own",
			  miss ? table_keep(t, join_strings(miss, ",")) : "-");
	}
}

/* The status of the unfinished container `id` (struct unfinished): an
 * entry per attachment of its record as its status file would have it,
 * from the result there is (its cache entry, else its ADD journal), or one
 * entry without name and interface when it has no record; each with
 * "missing", "gc" and "gcEvidence". */
static json *status_unfinished(const struct hook_config *cfg, const struct snapshot *sd,
			       struct status_out *out, const char *id)
{
	struct unfinished u = {.id = xstrdup(id)};
	unfinished_read(cfg, sd, &u);
	size_t n = u.rec ? u.rec->n : 0;
	if (n && out->ctx == NULL)
		out->ctx = hookconf_ctx(cfg);
	cnirt_cache_entry **own = xcalloc(n + 1, sizeof(*own));
	u.v = xcalloc(n + 1, sizeof(*u.v));
	for (size_t i = 0; i < n; i++) {
		const struct record_att *a = &u.rec->v[i];
		_cleanup_free_ char *file = layout_result_name(a->network, id, a->ifname);
		cnirt_error *e = NULL;
		if (cnirt_cache_get_file(out->ctx, file, &own[i], &e) < 0)
			cnirt_error_free(e);
		if (own[i])
			u.v[u.n++] = own[i];
	}
	unfinished_judge(cfg, &out->w, &u);
	struct netstatus_entry *st = xcalloc(n + 1, sizeof(*st));
	char **results = xcalloc(n + 1, sizeof(*results));
	for (size_t i = 0; i < n; i++) {
		const struct record_att *a = &u.rec->v[i];
		_cleanup_free_ char *err = NULL;
		if (own[i] == NULL &&
		    journal_read(cfg->state_dir, id, a->network, a->ifname, &results[i], &err) < 0)
			results[i] = NULL;
		st[i] = (struct netstatus_entry){
		    .network = a->ns ? xasprintf("%s/%s", a->ns, a->network) : xstrdup(a->network),
		    .ifname = a->ifname,
		    .is_default = a->is_default,
		    .result = own[i] ? cnirt_cache_entry_result(own[i]) : results[i],
		};
	}
	_cleanup_free_ char *text = netstatus_render(st, n);
	_cleanup_free_ char *err = NULL;
	json *v = NULL;
	if (json_parse_with(text, strlen(text), "status", &hook_json, &v, &err) < 0)
		v = json_new(JSON_ARRAY);
	if (n == 0)
		json_arr_append(v, json_new(JSON_OBJECT));
	for (size_t i = 0; i < v->u.array.n; i++) {
		json *o = v->u.array.v[i];
		unsigned m = n ? unfinished_missing(&u, u.rec->v[i].network, u.rec->v[i].ifname)
			       : unfinished_missing(&u, NULL, NULL);
		json_obj_set(o, "missing", missing_json(m));
		json_obj_set(o, "gc", json_new_string(unfinished_gc(&u)));
		json_obj_set(o, "gcEvidence", json_new_string(u.why ? u.why : ""));
	}
	for (size_t i = 0; i < n; i++) {
		free((char *)st[i].network);
		free(results[i]);
		cnirt_cache_entry_free(own[i]);
	}
	free(st);
	free(results);
	free(own);
	unfinished_free(&u);
	return v;
}

/* A rootless attachment whose forwarder is listed but not running
 * (killed): "forwarder" added to the MISSING of each of its networks. */
static void forwarder_missing(const struct status_out *out, const char *id, json *st)
{
	if (!out->forwarders || !json_is_array(st))
		return;
	_cleanup_free_ char *pidfile = xasprintf("%s/%s", out->forwarders, id);
	if (access(pidfile, F_OK) < 0 || rootless_netns_pidfile_alive(pidfile, NULL))
		return;
	for (size_t i = 0; i < st->u.array.n; i++) {
		json *e = st->u.array.v[i];
		json *miss = json_obj_get(e, "missing");
		if (!json_is_array(miss)) {
			miss = json_new(JSON_ARRAY);
			json_obj_set(e, "missing", miss);
		}
		json_arr_append(miss, json_new_string("forwarder"));
	}
}

/* Add the status st of container `id` (taken) to out. */
static void status_add(const struct snapshot *sd, struct status_out *out, const char *id, json *st)
{
	forwarder_missing(out, id, st);
	if (out->all) {
		json_obj_append(out->all, id, st); /* ids are unique */
		return;
	}
	status_rows(sd, &out->t, id, st, out->no_trunc);
	json_free(st);
}

/* The status of the container `key` names, added to out. */
static int status_gather_one(const struct hook_config *cfg, const struct snapshot *sd,
			     const char *key, struct status_out *out, char **err)
{
	const char *dir = cfg->state_dir;
	const char *id = NULL;
	if (container_key_resolve(sd, key, &id, err) < 0)
		return -1;
	json *st = NULL;
	int errnum;
	if (status_read(dir, sd, id, &st, &errnum, err) < 0) {
		if (errnum != ENOENT)
			return -1;
		free(TAKE_PTR(*err));
		st = status_unfinished(cfg, sd, out, id);
	}
	status_add(sd, out, id, st);
	return 0;
}

/* The status of every container of the state directory, added to out in
 * the order of their ids; the files that cannot be read in problems. */
static void status_gather_all(const struct hook_config *cfg, const struct snapshot *sd,
			      struct status_out *out, char ***problems, size_t *n_problems)
{
	for (size_t i = 0; i < sd->n; i++) {
		const char *id = sd->v[i].name;
		json *st = NULL;
		int errnum;
		if (!snapshot_is_container(sd, &sd->v[i]))
			continue;
		_cleanup_free_ char *m = NULL;
		if (status_read(cfg->state_dir, sd, id, &st, &errnum, &m) == 0)
			status_add(sd, out, id, st);
		else if (errnum == ENOENT)
			status_add(sd, out, id, status_unfinished(cfg, sd, out, id));
		else
			strv_append(problems, n_problems, m);
	}
}

/* Print what status gathered: JSON (one container's status alone), or
 * the table; and free it. */
static void status_print(struct status_out *out, bool one)
{
	if (out->all) {
		json *all = out->all;
		_cleanup_free_ char *text = json_gen(one ? all->u.object.v[0] : all, false, NULL);
		printf("%s\n", text);
		json_free(all);
		return;
	}
	table_print(&out->t, stdout);
}

int report_status(const struct hook_config *cfg, const char *id_arg, bool as_json, bool no_trunc,
		  const char *forwarders)
{
	_cleanup_free_ char *err = NULL;
	_cleanup_free_ char *key = NULL;
	if (id_arg && container_key_parse(id_arg, &key, &err) < 0) {
		log_error("status: %s", err);
		return 2;
	}
	_cleanup_(snapshot_close) struct snapshot sd = {.fd = -1};
	struct status_out out = {.t.cols = 8, .no_trunc = no_trunc, .forwarders = forwarders};
	if (as_json)
		out.all = json_new(JSON_OBJECT);
	else
		table_row(&out.t, "CONTAINER", "NETWORK", "INTERFACE", "IPS", "MAC", "DEFAULT",
			  "GC", "MISSING");
	char **problems = NULL;
	size_t n_problems = 0;
	int errnum = 0;
	int ret = snapshot_open(cfg->state_dir, &sd, &errnum);
	if (ret < 0) {
		_cleanup_free_ char *what = xasprintf("the state directory %s", cfg->state_dir);
		err = unreadable(what, errnum);
	}
	if (ret == 0 && key)
		ret = status_gather_one(cfg, &sd, key, &out, &err);
	else if (ret == 0)
		status_gather_all(cfg, &sd, &out, &problems, &n_problems);
	for (size_t i = 0; i < n_problems; i++)
		log_error("status: %s", problems[i]);
	strv_free(problems, n_problems);
	liveness_world_free(out.w);
	cnirt_ctx_free(out.ctx);
	if (ret < 0) {
		log_error("status: %s", err);
		json_free(out.all);
		table_free(&out.t);
		return 1;
	}
	status_print(&out, key != NULL);
	return 0;
}

/* --------------------------------------------------------------- list */

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
	unsigned missing; /* MISS_* */
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
	    .gc = u ? unfinished_gc(u) : gc_rule(own, netns ? netns : ""),
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
		    .gc = unfinished_gc(u),
		    .missing = unfinished_missing(u, a ? a->network : NULL, a ? a->ifname : NULL),
		    .why = u->why,
		};
		if (a)
			journal_ips(cfg->state_dir, u->id, a->network, a->ifname, &r->ips,
				    &r->n_ips);
	}
}

/* Whether u, read, lacks anything a finished attach has. */
static bool unfinished_lacks(const struct unfinished *u)
{
	if (!u->status || u->rec == NULL || !u->pin)
		return true;
	for (size_t i = 0; i < u->rec->n; i++)
		if (unfinished_entry(u, u->rec->v[i].network, u->rec->v[i].ifname) == NULL)
			return true;
	return false;
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
		unfinished_read(cfg, sd, u);
		u->status = has_status(sd, u->id);
		if (!unfinished_lacks(u)) {
			unfinished_free(u);
			continue;
		}
		unfinished_judge(cfg, &w, u);
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
		set_error(err, "%s%s", cnirt_error_msg(e),
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
	json_obj_append(o, "missing", missing_json(r->missing));
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
		table_row(&t, table_keep(&t, container_shown(r->id, r->name, no_trunc)), r->network,
			  r->ifname, table_keep(&t, ips_text(r->ips, r->n_ips)), r->netns,
			  table_keep(&t, age(r->age)), r->gc,
			  r->missing ? table_keep(&t, missing_text(r->missing)) : "-");
	}
	table_print(&t, stdout);
}

int report_list(const struct hook_config *cfg, bool as_json, bool no_trunc)
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
