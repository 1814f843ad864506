/* SPDX-License-Identifier: Apache-2.0 */
/* What is attached: the status of containers, and the cache's attachments. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cnirt.h>

#include "inventory.h"
#include "log.h"
#include "netstatus.h"
#include "record.h"
#include "util.h"

static char *join_strings(json *arr, const char *sep)
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

/* Ids in tables are cut to this length, as podman and runc users see them,
 * unless --no-trunc. */
#define SHORT_ID_LEN 12

/* A table whose columns are as wide as their widest cell. */
struct table {
	size_t cols;
	char **cells; /* rows * cols */
	size_t n;
};

static void table_row(struct table *t, ...)
{
	va_list ap;
	va_start(ap, t);
	t->cells = xreallocarray(t->cells, t->n + t->cols, sizeof(*t->cells));
	for (size_t i = 0; i < t->cols; i++) {
		const char *c = va_arg(ap, const char *);
		t->cells[t->n++] = xstrdup(c && *c ? c : "-");
	}
	va_end(ap);
}

/* Print the table (two spaces between columns, the last one not padded),
 * and free it. */
static void table_print(struct table *t)
{
	_cleanup_free_ size_t *w = xzalloc(t->cols * sizeof(*w));
	for (size_t i = 0; i < t->n; i++)
		if (strlen(t->cells[i]) > w[i % t->cols])
			w[i % t->cols] = strlen(t->cells[i]);
	for (size_t i = 0; i < t->n; i++) {
		size_t col = i % t->cols;
		if (col + 1 < t->cols)
			printf("%-*s  ", (int)w[col], t->cells[i]);
		else
			printf("%s\n", t->cells[i]);
		free(t->cells[i]);
	}
	free(t->cells);
	t->cells = NULL;
	t->n = 0;
}

static char *id_shown(const char *id, bool no_trunc)
{
	return no_trunc ? xstrdup(id) : xstrndup(id, SHORT_ID_LEN);
}

/* Container `id` (a CNI_CONTAINERID) as users name it: a containerd
 * container as "<namespace>/<id>" (its id cut, not its namespace), others
 * by their id. */
static char *container_shown(const struct hook_config *cfg, const char *id, bool no_trunc)
{
	_cleanup_free_ char *name = record_name_read(cfg->state_dir, id);
	char *slash = name ? strchr(name, '/') : NULL;
	if (slash == NULL)
		return id_shown(id, no_trunc);
	_cleanup_free_ char *short_id = id_shown(slash + 1, no_trunc);
	*slash = '\0';
	return xasprintf("%s/%s", name, short_id);
}

/* Log that `what` cannot be read; as a user other than root, say that the
 * command needs root. */
static void log_unreadable(const char *verb, const char *what, int errnum)
{
	bool perm = errnum == EACCES || errnum == EPERM;
	log_error("%s: cannot read %s: %s%s", verb, what, strerror(errnum),
		  perm && geteuid() != 0 ? " (needs root)" : "");
}

/* The status file of one container, parsed; NULL when there is none. */
static json *read_status(const struct hook_config *cfg, const char *id, int *errnum)
{
	_cleanup_free_ char *path = status_path(cfg->state_dir, id);
	_cleanup_free_ char *buf = NULL;
	_cleanup_free_ char *err = NULL;
	size_t len;
	json *v = NULL;
	if (read_file(path, 16u << 20, &buf, &len, errnum, &err) < 0)
		return NULL;
	if (json_parse_with(buf, len, path, &hook_json, &v, &err) < 0) {
		*errnum = EBADMSG;
		return NULL;
	}
	return v;
}

static void status_rows(const struct hook_config *cfg, struct table *t, const char *id, json *st,
			bool no_trunc)
{
	_cleanup_free_ char *shown_id = container_shown(cfg, id, no_trunc);
	for (size_t i = 0; json_is_array(st) && i < st->u.array.n; i++) {
		json *e = st->u.array.v[i];
		_cleanup_free_ char *ips = join_strings(json_obj_get(e, "ips"), ",");
		table_row(t, shown_id, json_str(json_obj_get(e, "name")),
			  json_str(json_obj_get(e, "interface")), ips,
			  json_str(json_obj_get(e, "mac")),
			  json_is_true(json_obj_get(e, "default")) ? "yes" : "no");
	}
}

#define STATUS_HEADER "CONTAINER", "NETWORK", "INTERFACE", "IPS", "MAC", "DEFAULT"

/* The containers of the state directory (its subdirectories named like
 * container ids), sorted; -1 when it cannot be read (logged). A missing
 * state directory holds none. */
static int state_ids(const struct hook_config *cfg, const char *verb, char ***out, size_t *n)
{
	struct dirent **names = NULL;
	int k = scandir(cfg->state_dir, &names, NULL, alphasort);
	if (k < 0 && errno != ENOENT) {
		_cleanup_free_ char *p = xasprintf("the state directory %s", cfg->state_dir);
		log_unreadable(verb, p, errno);
		return -1;
	}
	for (int i = 0; i < k; i++) {
		cnirt_error *e = NULL;
		const char *name = names[i]->d_name;
		_cleanup_free_ char *path = xasprintf("%s/%s", cfg->state_dir, name);
		struct stat st;
		bool dir =
		    names[i]->d_type == DT_DIR || (names[i]->d_type == DT_UNKNOWN &&
						   lstat(path, &st) == 0 && S_ISDIR(st.st_mode));
		if (dir && name[0] != '.' && cnirt_check_container_id(name, &e) == 0 &&
		    strcmp(name, "ports") != 0)
			strv_append(out, n, name);
		cnirt_error_free(e);
		free(names[i]);
	}
	free(names);
	return 0;
}

/* The container that `id` names: itself, or the one container of the state
 * directory whose id starts with it. NULL when none or several (logged). */
static char *resolve_id(const struct hook_config *cfg, const char *id)
{
	char **ids = NULL;
	size_t n = 0;
	if (state_ids(cfg, "status", &ids, &n) < 0)
		return NULL;
	char *found = NULL;
	size_t matches = 0, len = strlen(id);
	_cleanup_free_ char *list = NULL;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(ids[i], id) == 0) {
			free(found);
			found = xstrdup(ids[i]);
			matches = 1;
			break;
		}
		if (strncmp(ids[i], id, len) != 0)
			continue;
		char *l = list ? xasprintf("%s, %s", list, ids[i]) : xstrdup(ids[i]);
		free(list);
		list = l;
		if (matches++ == 0)
			found = xstrdup(ids[i]);
	}
	strv_free(ids, n);
	if (matches == 1)
		return found;
	free(found);
	if (matches == 0)
		log_error("status: container \"%s\": no network status (not attached by cnihook)",
			  id);
	else
		log_error("status: \"%s\" is the start of %zu container ids: %s; give more of it",
			  id, matches, list);
	return NULL;
}

/* A container named "<namespace>/<id>" (containerd's, as `status` and
 * `list` show it) is "<namespace>-<id>" in the state directory and the
 * cache; any other name is its id. */
static char *id_key(const char *arg)
{
	const char *slash = strchr(arg, '/');
	if (slash == NULL || slash == arg || slash[1] == '\0' || strchr(slash + 1, '/'))
		return xstrdup(arg);
	return xasprintf("%.*s-%s", (int)(slash - arg), arg, slash + 1);
}

int inventory_status(const struct hook_config *cfg, const char *id_arg, bool as_json, bool no_trunc)
{
	int errnum = 0;
	struct table t = {.cols = 6};
	if (!as_json)
		table_row(&t, STATUS_HEADER);
	if (id_arg) {
		cnirt_error *e = NULL;
		_cleanup_free_ char *key = id_key(id_arg);
		if (cnirt_check_container_id(key, &e) < 0) {
			log_error("status: %s", cnirt_error_msg(e));
			cnirt_error_free(e);
			return 2;
		}
		_cleanup_free_ char *id = resolve_id(cfg, key);
		if (id == NULL)
			return 1;
		json *st = read_status(cfg, id, &errnum);
		if (st == NULL) {
			if (errnum == ENOENT)
				log_error("status: container \"%s\": no network status (not "
					  "attached by cnihook)",
					  id);
			else
				log_unreadable("status", id, errnum);
			return 1;
		}
		if (as_json) {
			_cleanup_free_ char *text = json_gen(st, false, NULL);
			printf("%s\n", text);
		} else {
			status_rows(cfg, &t, id, st, no_trunc);
			table_print(&t);
		}
		json_free(st);
		return 0;
	}

	char **ids = NULL;
	size_t n = 0;
	if (state_ids(cfg, "status", &ids, &n) < 0)
		return 1;
	/* The ids are the state directory's names: unique, so appended. */
	_cleanup_json_ json *all = json_new(JSON_OBJECT);
	for (size_t i = 0; i < n; i++) {
		json *st = read_status(cfg, ids[i], &errnum);
		if (st == NULL && errnum != ENOENT) {
			_cleanup_free_ char *p = status_path(cfg->state_dir, ids[i]);
			log_unreadable("status", p, errnum);
		}
		if (st && as_json) {
			json_obj_append(all, ids[i], st);
			continue;
		}
		if (st)
			status_rows(cfg, &t, ids[i], st, no_trunc);
		json_free(st);
	}
	strv_free(ids, n);
	if (as_json) {
		_cleanup_free_ char *text = json_gen(all, false, NULL);
		printf("%s\n", text);
	} else {
		table_print(&t);
	}
	return 0;
}

/* The addresses of a cached result, comma separated. */
static char *result_ips(const char *result)
{
	cnirt_error *e = NULL;
	_cleanup_free_ char *conv = NULL;
	if (result == NULL ||
	    cnirt_result_convert(result, strlen(result), "1.0.0", &conv, &e) < 0) {
		cnirt_error_free(e);
		return xstrdup("");
	}
	json *v = NULL;
	_cleanup_free_ char *err = NULL;
	if (json_parse_with(conv, strlen(conv), "result", &hook_json, &v, &err) < 0)
		return xstrdup("");
	json *ips = json_obj_get(v, "ips");
	_cleanup_json_ json *a = json_new(JSON_ARRAY);
	for (size_t i = 0; json_is_array(ips) && i < ips->u.array.n; i++) {
		const char *addr = json_str(json_obj_get(ips->u.array.v[i], "address"));
		if (addr)
			json_arr_append(a, json_new_string(addr));
	}
	char *s = join_strings(a, ",");
	json_free(v);
	return s;
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

char *inventory_cache_file_shown(const cnirt_ctx *ctx, const char *name)
{
	_cleanup_free_ char *path = xasprintf("%s/results/%s", cnirt_ctx_cache_dir(ctx), name);
	return shown_whole(path);
}

/* What gc makes of an entry (cnihook(8), "gc"), by its kind: "own" (the
 * hook's: its pin decides), "netns" (another program's: goes with the
 * namespace it names), "kept:no-netns" (another program's naming no
 * namespace: gc never collects it by default). */
static const char *gc_rule(const struct hook_config *cfg, const cnirt_cache_entry *c)
{
	_cleanup_free_ char *dir =
	    xasprintf("%s/%s", cfg->state_dir, cnirt_cache_entry_container_id(c));
	struct stat st;
	if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
		return "own";
	const char *netns = cnirt_cache_entry_netns(c);
	return netns && *netns ? "netns" : "kept:no-netns";
}

/* One entry of `list --json`; ips is the comma separated list (consumed). */
static json *list_entry(const struct hook_config *cfg, const cnirt_cache_entry *c, char *ips,
			const char *netns, long long secs)
{
	json *o = json_new(JSON_OBJECT);
	const char *id = cnirt_cache_entry_container_id(c);
	json_obj_append(o, "containerId", json_new_string(id));
	_cleanup_free_ char *name = record_name_read(cfg->state_dir, id);
	if (name)
		json_obj_append(o, "name", json_new_string(name));
	json_obj_append(o, "network", json_new_string(cnirt_cache_entry_network(c)));
	json_obj_append(o, "ifname", json_new_string(cnirt_cache_entry_ifname(c)));
	json *a = json_new(JSON_ARRAY);
	char *save = NULL;
	for (char *ip = strtok_r(ips, ",", &save); ip; ip = strtok_r(NULL, ",", &save))
		json_arr_append(a, json_new_string(ip));
	json_obj_append(o, "ips", a);
	json_obj_append(o, "netns", json_new_string(netns));
	json_obj_append(o, "ageSeconds", json_new_int(secs));
	json_obj_append(o, "gc", json_new_string(gc_rule(cfg, c)));
	return o;
}

int inventory_list(const struct hook_config *cfg, bool as_json, bool no_trunc)
{
	cnirt_ctx *ctx = config_ctx(cfg);
	cnirt_cache_entry **v = NULL;
	size_t n = 0;
	cnirt_cache_damage *damaged = NULL;
	size_t n_damaged = 0;
	cnirt_error *e = NULL;
	if (cnirt_cache_scan(ctx, &v, &n, &damaged, &n_damaged, &e) < 0) {
		int errnum = cnirt_error_errno(e);
		log_error("list: %s%s", cnirt_error_msg(e),
			  (errnum == EACCES || errnum == EPERM) && geteuid() != 0 ? " (needs root)"
										  : "");
		cnirt_error_free(e);
		cnirt_ctx_free(ctx);
		return 1;
	}
	long long now = (long long)time(NULL);
	_cleanup_json_ json *all = json_new(JSON_ARRAY);
	struct table t = {.cols = 7};
	if (!as_json)
		table_row(&t, "CONTAINER", "NETWORK", "INTERFACE", "IPS", "NETNS", "AGE", "GC");
	for (size_t i = 0; i < n; i++) {
		const cnirt_cache_entry *c = v[i];
		_cleanup_free_ char *ips = result_ips(cnirt_cache_entry_result(c));
		const char *netns = cnirt_cache_entry_netns(c) ? cnirt_cache_entry_netns(c) : "";
		long long secs = now - cnirt_cache_entry_mtime(c);
		if (secs < 0)
			secs = 0;
		if (as_json) {
			json_arr_append(all, list_entry(cfg, c, ips, netns, secs));
		} else {
			_cleanup_free_ char *a = age(secs);
			_cleanup_free_ char *id =
			    container_shown(cfg, cnirt_cache_entry_container_id(c), no_trunc);
			table_row(&t, id, cnirt_cache_entry_network(c), cnirt_cache_entry_ifname(c),
				  ips, netns, a, gc_rule(cfg, c));
		}
	}
	if (as_json) {
		_cleanup_free_ char *text = json_gen(all, false, NULL);
		printf("%s\n", text);
	} else {
		table_print(&t);
	}
	/* What the table cannot show: files that are not readable entries. */
	fflush(stdout);
	for (size_t i = 0; i < n_damaged; i++) {
		_cleanup_free_ char *p = inventory_cache_file_shown(ctx, damaged[i].name);
		log_warn("list: damaged cache entry \"%s\": %s", p, damaged[i].problem);
	}
	cnirt_cache_damage_free(damaged, n_damaged);
	cnirt_cache_entries_free(v, n);
	cnirt_ctx_free(ctx);
	return 0;
}
