/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `cnihook status [ID]`: the network status of containers, with the
 * attaches a killed hook left unfinished (state/unfinished.h) as gc judges
 * them (docs/architecture.md, "What the tools show of an unfinished
 * attach").
 *
 * A few system calls per container and nothing that grows with the
 * others: the state directory is read once (one listing, sorted, walked
 * and looked up in: snapshot.h) and its files are read relative to it.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cnirt.h>

#include "base/log.h"
#include "base/table.h"
#include "base/util.h"
#include "cmd/columns.h"
#include "cmd/status.h"
#include "host/rootless-netns.h"
#include "state/container-key.h"
#include "state/journal.h"
#include "state/layout.h"
#include "state/network-status.h"
#include "state/snapshot.h"
#include "state/unfinished.h"

/* "cannot read WHAT: PROBLEM", with " (needs root)" when a user other than
 * root is refused. */
static char *unreadable(const char *what, int errnum)
{
	bool perm = errnum == EACCES || errnum == EPERM;
	return xasprintf("cannot read %s: %s%s", what, strerror(errnum),
			 perm && geteuid() != 0 ? " (needs root)" : "");
}

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
	struct json_limits lim = util_json;
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
	const struct rootless_user *rl; /* a rootless user, else NULL */
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
	const char *shown_id = table_keep(t, columns_container(id, name, no_trunc));
	for (size_t i = 0; json_is_array(st) && i < st->u.array.n; i++) {
		const json *e = st->u.array.v[i];
		const char *ips = table_keep(t, json_join_strings(json_obj_get(e, "ips"), ","));
		const char *gc = json_str(json_obj_get(e, "gc"));
		const json *miss = json_obj_get(e, "missing");
		table_row(t, shown_id, table_copy(t, json_str(json_obj_get(e, "name"))),
			  table_copy(t, json_str(json_obj_get(e, "interface"))), ips,
			  table_copy(t, json_str(json_obj_get(e, "mac"))),
			  json_is_true(json_obj_get(e, "default")) ? "yes" : "no",
			  gc ? table_copy(t, gc) : "own",
			  miss ? table_keep(t, json_join_strings(miss, ",")) : "-");
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
	unfinished_read(cfg->state_dir, sd, &u);
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
	unfinished_judge(cfg->state_dir, &out->w, &u);
	struct network_status_entry *st = xcalloc(n + 1, sizeof(*st));
	char **results = xcalloc(n + 1, sizeof(*results));
	for (size_t i = 0; i < n; i++) {
		const struct record_att *a = &u.rec->v[i];
		_cleanup_free_ char *err = NULL;
		if (own[i] == NULL &&
		    journal_read(cfg->state_dir, id, a->network, a->ifname, &results[i], &err) < 0)
			results[i] = NULL;
		st[i] = (struct network_status_entry){
		    .network = a->ns ? xasprintf("%s/%s", a->ns, a->network) : xstrdup(a->network),
		    .ifname = a->ifname,
		    .is_default = a->is_default,
		    .result = own[i] ? cnirt_cache_entry_result(own[i]) : results[i],
		};
	}
	_cleanup_free_ char *text = network_status_render(st, n);
	_cleanup_free_ char *err = NULL;
	json *v = NULL;
	if (json_parse_with(text, strlen(text), "status", &util_json, &v, &err) < 0)
		v = json_new(JSON_ARRAY);
	if (n == 0)
		json_arr_append(v, json_new(JSON_OBJECT));
	for (size_t i = 0; i < v->u.array.n; i++) {
		json *o = v->u.array.v[i];
		unsigned m = n ? unfinished_missing(&u, u.rec->v[i].network, u.rec->v[i].ifname)
			       : unfinished_missing(&u, NULL, NULL);
		json_obj_set(o, "missing", columns_missing_json(m));
		json_obj_set(o, "gc", json_new_string(columns_gc(&u)));
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
	if (!out->rl || !json_is_array(st))
		return;
	_cleanup_free_ char *pidfile = layout_rootless_forwarder(out->rl->dir, id);
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

/* The user's slirp4netns and watch, running or MISSING, a line each
 * (nothing when the user has no directory). */
static void status_rootless_helpers(const struct rootless_user *u)
{
	static const char *const names[] = {"slirp4netns", "watch"};
	const char *const files[] = {u->slirp_pid, u->watch_pid};
	if (access(u->dir, F_OK) < 0)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		long pid = 0;
		if (rootless_netns_pidfile_alive(files[i], &pid))
			printf("%s: running (pid %ld)\n", names[i], pid);
		else
			printf("%s: MISSING (pid %ld): the next stage of a container of the "
			       "user's, or podman unshare cnihook reload, starts it again\n",
			       names[i], pid);
	}
}

int status_run(const struct hook_config *cfg, const char *id_arg, bool as_json, bool no_trunc,
	       const struct rootless_user *rl)
{
	_cleanup_free_ char *err = NULL;
	_cleanup_free_ char *key = NULL;
	if (id_arg && container_key_parse(id_arg, &key, &err) < 0) {
		log_error("status: %s", err);
		return 2;
	}
	_cleanup_(snapshot_close) struct snapshot sd = {.fd = -1};
	struct status_out out = {.t.cols = 8, .no_trunc = no_trunc, .rl = rl};
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
	if (rl && !as_json && !key)
		status_rootless_helpers(rl);
	return 0;
}
