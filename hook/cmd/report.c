/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What is attached: the status of containers, and the cache's attachments.
 *
 * Both commands cost a few system calls per entry and nothing that grows
 * with the others: the state directory is read once (one listing, sorted,
 * that both walk and look ids up in: snapshot.h) and its files are read
 * relative to it; list takes the addresses of each cached
 * result as they are when they are written as its conversion to 1.0.0
 * writes them.
 */
#include "config.h"

#include <arpa/inet.h>
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
#include "base/table.h"
#include "base/util.h"
#include "cmd/report.h"
#include "state/layout.h"
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

/* A container named "<namespace>/<id>" (containerd's, as `status` and
 * `list` show it) is "<namespace>-<id>" in the state directory and the
 * cache; any other name is its id. Checked as a container id. */
int report_key(const char *arg, char **out, char **err)
{
	const char *slash = strchr(arg, '/');
	_cleanup_free_ char *key = NULL;
	if (slash == NULL || slash == arg || slash[1] == '\0' || strchr(slash + 1, '/'))
		key = xstrdup(arg);
	else
		key = xasprintf("%.*s-%s", (int)(slash - arg), arg, slash + 1);
	cnirt_error *e = NULL;
	if (cnirt_check_container_id(key, &e) < 0) {
		set_error(err, "%s", cnirt_error_msg(e));
		cnirt_error_free(e);
		return -1;
	}
	*out = TAKE_PTR(key);
	return 0;
}

/* The container that `key` names: itself, or the one container of the
 * state directory whose id starts with it. */
int report_resolve(const struct snapshot *sd, const char *key, const char **out, char **err)
{
	const char *found = NULL;
	size_t matches = 0, len = strlen(key);
	struct buf list = {0};
	for (size_t i = 0; i < sd->n; i++) {
		const char *id = sd->v[i].name;
		if (strncmp(id, key, len) != 0 || !snapshot_is_container(sd, &sd->v[i]))
			continue;
		if (id[len] == '\0') {
			found = id;
			matches = 1;
			break;
		}
		buf_printf(&list, "%s%s", matches ? ", " : "", id);
		if (matches++ == 0)
			found = id;
	}
	_cleanup_free_ char *ids = buf_steal(&list, NULL);
	if (matches == 1) {
		*out = found;
		return 0;
	}
	if (matches == 0)
		return set_error(
		    err, "container \"%s\": no network status (not attached by cnihook)", key);
	return set_error(err, "\"%s\" is the start of %zu container ids: %s; give more of it", key,
			 matches, ids);
}

/* Where status puts the statuses it reads: JSON (`all`, container id ->
 * status) with --json, else the rows of a table. */
struct status_out {
	json *all;
	struct table t;
	bool no_trunc;
};

/* The name of container `id` (record.h), when the state directory's
 * listing shows it has one (or could not be listed). */
static char *container_name(const struct snapshot *sd, const char *id)
{
	_cleanup_free_ char *link = layout_name_link(NULL, id);
	if (sd->listed && snapshot_find(sd, link) == NULL)
		return NULL;
	return record_name_read(sd->fd, id);
}

/* A copy of s kept by the table (NULL for NULL). */
static const char *table_copy(struct table *t, const char *s)
{
	return s ? table_keep(t, xstrdup(s)) : NULL;
}

/* The rows of one container: one per network of its status st. */
static void status_rows(const struct snapshot *sd, struct table *t, const char *id, const json *st,
			bool no_trunc)
{
	_cleanup_free_ char *name = container_name(sd, id);
	const char *shown_id = table_keep(t, container_shown(id, name, no_trunc));
	for (size_t i = 0; json_is_array(st) && i < st->u.array.n; i++) {
		const json *e = st->u.array.v[i];
		const char *ips = table_keep(t, join_strings(json_obj_get(e, "ips"), ","));
		table_row(t, shown_id, table_copy(t, json_str(json_obj_get(e, "name"))),
			  table_copy(t, json_str(json_obj_get(e, "interface"))), ips,
			  table_copy(t, json_str(json_obj_get(e, "mac"))),
			  json_is_true(json_obj_get(e, "default")) ? "yes" : "no");
	}
}

/* Add the status st of container `id` (taken) to out. */
static void status_add(const struct snapshot *sd, struct status_out *out, const char *id, json *st)
{
	if (out->all) {
		json_obj_append(out->all, id, st); /* ids are unique */
		return;
	}
	status_rows(sd, &out->t, id, st, out->no_trunc);
	json_free(st);
}

/* The status of the container `key` names, added to out. */
static int status_gather_one(const char *dir, const struct snapshot *sd, const char *key,
			     struct status_out *out, char **err)
{
	const char *id = NULL;
	if (report_resolve(sd, key, &id, err) < 0)
		return -1;
	json *st = NULL;
	int errnum;
	if (status_read(dir, sd, id, &st, &errnum, err) < 0) {
		if (errnum != ENOENT)
			return -1;
		free(*err);
		return set_error(
		    err, "container \"%s\": no network status (not attached by cnihook)", id);
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
		else if (errnum != ENOENT)
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

int report_status(const struct hook_config *cfg, const char *id_arg, bool as_json, bool no_trunc)
{
	_cleanup_free_ char *err = NULL;
	_cleanup_free_ char *key = NULL;
	if (id_arg && report_key(id_arg, &key, &err) < 0) {
		log_error("status: %s", err);
		return 2;
	}
	_cleanup_(snapshot_close) struct snapshot sd = {.fd = -1};
	struct status_out out = {.t.cols = 6, .no_trunc = no_trunc};
	if (as_json)
		out.all = json_new(JSON_OBJECT);
	else
		table_row(&out.t, "CONTAINER", "NETWORK", "INTERFACE", "IPS", "MAC", "DEFAULT");
	char **problems = NULL;
	size_t n_problems = 0;
	int errnum = 0;
	int ret = snapshot_open(cfg->state_dir, &sd, &errnum);
	if (ret < 0) {
		_cleanup_free_ char *what = xasprintf("the state directory %s", cfg->state_dir);
		err = unreadable(what, errnum);
	}
	if (ret == 0 && key)
		ret = status_gather_one(cfg->state_dir, &sd, key, &out, &err);
	else if (ret == 0)
		status_gather_all(cfg, &sd, &out, &problems, &n_problems);
	for (size_t i = 0; i < n_problems; i++)
		log_error("status: %s", problems[i]);
	strv_free(problems, n_problems);
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

/* Whether the address/prefix `cidr` is written as a result's conversion
 * writes it (lib/result.c): an IPv4 address as inet_pton() takes it (which
 * glibc does in that one form only), an IPv6 one as inet_ntop() writes it
 * but never with an IPv4 part; the prefix in decimal, in range. */
static bool cidr_as_converted(const char *cidr)
{
	const char *slash = strchr(cidr, '/');
	char ip[INET6_ADDRSTRLEN], back[INET6_ADDRSTRLEN];
	size_t n = slash ? (size_t)(slash - cidr) : 0;
	if (n == 0 || n >= sizeof(ip))
		return false;
	memcpy(ip, cidr, n);
	ip[n] = '\0';
	int family = strchr(ip, ':') ? AF_INET6 : AF_INET;
	unsigned char a[16];
	if ((family == AF_INET6 && strchr(ip, '.')) || inet_pton(family, ip, a) != 1 ||
	    (family == AF_INET6 &&
	     (inet_ntop(family, a, back, sizeof(back)) == NULL || strcmp(ip, back) != 0)))
		return false;
	const char *p = slash + 1;
	unsigned prefix = 0;
	if (*p == '\0' || (p[0] == '0' && p[1] != '\0'))
		return false;
	for (; *p; p++) {
		if (*p < '0' || *p > '9' || (prefix = prefix * 10 + (unsigned)(*p - '0')) > 128)
			return false;
	}
	return prefix <= (family == AF_INET ? 32u : 128u);
}

/* The addresses of the valid result r, comma separated as its conversion
 * to 1.0.0 writes them: "ips"[].address, or for 0.1.0 and 0.2.0 "ip4" then
 * "ip6" .ip. -1 when one is written otherwise. */
static int ips_as_is(const json *r, char **out)
{
	const char *v = json_str(json_obj_get(r, "cniVersion"));
	bool old = strcmp(v, "0.1.0") == 0 || strcmp(v, "0.2.0") == 0;
	const json *ips = json_obj_get(r, "ips");
	const char *addr[2] = {json_str(json_obj_get(json_obj_get(r, "ip4"), "ip")),
			       json_str(json_obj_get(json_obj_get(r, "ip6"), "ip"))};
	size_t n = old ? 2 : json_is_array(ips) ? ips->u.array.n : 0;
	struct buf b = {0};
	for (size_t i = 0; i < n; i++) {
		const char *a =
		    old ? addr[i] : json_str(json_obj_get(ips->u.array.v[i], "address"));
		if (a == NULL && old)
			continue;
		if (a == NULL || !cidr_as_converted(a)) {
			buf_free(&b);
			return -1;
		}
		if (b.len)
			buf_appends(&b, ",");
		buf_appends(&b, a);
	}
	*out = buf_steal(&b, NULL);
	return 0;
}

/* The addresses of a result converted to 1.0.0, comma separated. */
static char *ips_converted(const char *result)
{
	cnirt_error *e = NULL;
	_cleanup_free_ char *conv = NULL;
	_cleanup_json_ json *v = NULL;
	_cleanup_free_ char *err = NULL;
	if (cnirt_result_convert(result, strlen(result), "1.0.0", &conv, &e) < 0 ||
	    json_parse_with(conv, strlen(conv), "result", &hook_json, &v, &err) < 0) {
		cnirt_error_free(e);
		return xstrdup("");
	}
	const json *ips = json_obj_get(v, "ips");
	_cleanup_json_ json *a = json_new(JSON_ARRAY);
	for (size_t i = 0; json_is_array(ips) && i < ips->u.array.n; i++) {
		const char *addr = json_str(json_obj_get(ips->u.array.v[i], "address"));
		if (addr)
			json_arr_append(a, json_new_string(addr));
	}
	return join_strings(a, ",");
}

/* The addresses of a cached result, comma separated, as its conversion to
 * 1.0.0 gives them (none when it is not a valid result): taken as they are
 * when they are written so, else converted. */
static char *result_ips(const char *result)
{
	cnirt_error *e = NULL;
	if (result == NULL || cnirt_result_validate(result, strlen(result), &e) < 0) {
		cnirt_error_free(e);
		return xstrdup("");
	}
	_cleanup_json_ json *v = NULL;
	_cleanup_free_ char *err = NULL;
	char *ips = NULL;
	if (json_parse_with(result, strlen(result), "result", &hook_json, &v, &err) == 0 &&
	    ips_as_is(v, &ips) == 0)
		return ips;
	return ips_converted(result);
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

char *report_cache_file_shown(const cnirt_ctx *ctx, const char *name)
{
	_cleanup_free_ char *path = layout_result(cnirt_ctx_cache_dir(ctx), name);
	return shown_whole(path);
}

/* One attachment of the cache, as `list` shows it. */
struct list_row {
	const cnirt_cache_entry *c;
	char *name; /* record_name_read(), or NULL */
	char *ips;  /* comma separated */
	const char *netns;
	long long age; /* seconds */
	const char *gc;
};

/* What `list` shows: the cache's entries, its damaged files, a row for
 * each entry. */
struct list {
	cnirt_cache_entry **v;
	size_t n;
	cnirt_cache_damage *damaged;
	size_t n_damaged;
	struct list_row *rows;
};

static void list_free(struct list *l)
{
	for (size_t i = 0; l->rows && i < l->n; i++) {
		free(l->rows[i].name);
		free(l->rows[i].ips);
	}
	free(l->rows);
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

/* The row of entry c; sd is the state directory. */
static void list_row(const struct snapshot *sd, const cnirt_cache_entry *c, long long now,
		     struct list_row *r)
{
	const char *id = cnirt_cache_entry_container_id(c);
	const char *netns = cnirt_cache_entry_netns(c);
	bool own = snapshot_is_dir(sd, id);
	*r = (struct list_row){
	    .c = c,
	    .name = own ? container_name(sd, id) : NULL,
	    .ips = result_ips(cnirt_cache_entry_result(c)),
	    .netns = netns ? netns : "",
	    .age = now - cnirt_cache_entry_mtime(c),
	    .gc = gc_rule(own, netns ? netns : ""),
	};
	if (r->age < 0)
		r->age = 0;
}

/* Read the cache, and the state directory for what the cache does not say
 * (which entries are the hook's, the names of their containers). */
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
	l->rows = xcalloc(l->n ? l->n : 1, sizeof(*l->rows));
	for (size_t i = 0; i < l->n; i++)
		list_row(&sd, l->v[i], now, &l->rows[i]);
	return 0;
}

/* One entry of `list --json`. */
static json *list_entry(const struct list_row *r)
{
	json *o = json_new(JSON_OBJECT);
	json_obj_append(o, "containerId", json_new_string(cnirt_cache_entry_container_id(r->c)));
	if (r->name)
		json_obj_append(o, "name", json_new_string(r->name));
	json_obj_append(o, "network", json_new_string(cnirt_cache_entry_network(r->c)));
	json_obj_append(o, "ifname", json_new_string(cnirt_cache_entry_ifname(r->c)));
	json *a = json_new(JSON_ARRAY);
	char *save = NULL;
	for (char *ip = strtok_r(r->ips, ",", &save); ip; ip = strtok_r(NULL, ",", &save))
		json_arr_append(a, json_new_string(ip));
	json_obj_append(o, "ips", a);
	json_obj_append(o, "netns", json_new_string(r->netns));
	json_obj_append(o, "ageSeconds", json_new_int(r->age));
	json_obj_append(o, "gc", json_new_string(r->gc));
	return o;
}

static void list_print(const struct list *l, bool as_json, bool no_trunc)
{
	if (as_json) {
		_cleanup_json_ json *all = json_new(JSON_ARRAY);
		for (size_t i = 0; i < l->n; i++)
			json_arr_append(all, list_entry(&l->rows[i]));
		_cleanup_free_ char *text = json_gen(all, false, NULL);
		printf("%s\n", text);
		return;
	}
	struct table t = {.cols = 7};
	table_row(&t, "CONTAINER", "NETWORK", "INTERFACE", "IPS", "NETNS", "AGE", "GC");
	for (size_t i = 0; i < l->n; i++) {
		const struct list_row *r = &l->rows[i];
		const char *id = cnirt_cache_entry_container_id(r->c);
		table_row(&t, table_keep(&t, container_shown(id, r->name, no_trunc)),
			  cnirt_cache_entry_network(r->c), cnirt_cache_entry_ifname(r->c), r->ips,
			  r->netns, table_keep(&t, age(r->age)), r->gc);
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
		_cleanup_free_ char *p = report_cache_file_shown(ctx, l.damaged[i].name);
		log_warn("list: damaged cache entry \"%s\": %s", p, l.damaged[i].problem);
	}
	cnirt_ctx_free(ctx);
	return 0;
}
