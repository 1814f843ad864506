/* SPDX-License-Identifier: Apache-2.0 */
/* What is attached: the status of containers, and the cache's attachments. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cnirt.h>

#include "inventory.h"
#include "jsonutil.h"
#include "log.h"
#include "status.h"

static char *join_strings(yajl_val arr, const char *sep)
{
	size_t cap = 1, n = 0;
	for (size_t i = 0; YAJL_IS_ARRAY(arr) && i < arr->u.array.len; i++)
		if (jt_str(arr->u.array.values[i]))
			cap += strlen(jt_str(arr->u.array.values[i])) + strlen(sep);
	char *s = xmalloc(cap);
	s[0] = '\0';
	for (size_t i = 0; YAJL_IS_ARRAY(arr) && i < arr->u.array.len; i++) {
		const char *v = jt_str(arr->u.array.values[i]);
		if (v == NULL)
			continue;
		n += (size_t)sprintf(s + n, "%s%s", n ? sep : "", v);
	}
	return s;
}

/* The status file of one container, parsed; NULL when there is none. */
static yajl_val read_status(const struct hook_config *cfg, const char *id, int *errnum)
{
	_cleanup_free_ char *path = status_path(cfg->state_dir, id);
	_cleanup_free_ char *buf = NULL;
	_cleanup_free_ char *err = NULL;
	size_t len;
	int r = read_file(path, 16u << 20, &buf, &len);
	yajl_val v = NULL;
	if (r < 0) {
		*errnum = -r;
		return NULL;
	}
	if (jt_parse(buf, len, path, &v, &err) < 0) {
		*errnum = EBADMSG;
		return NULL;
	}
	return v;
}

static void print_status_rows(const char *id, yajl_val st)
{
	for (size_t i = 0; YAJL_IS_ARRAY(st) && i < st->u.array.len; i++) {
		yajl_val e = st->u.array.values[i];
		_cleanup_free_ char *ips = join_strings(jt_get(e, "ips"), ",");
		const char *mac = jt_str(jt_get(e, "mac"));
		printf("%-20.64s %-16s %-10s %-32s %-17s %s\n", id,
		       jt_str(jt_get(e, "name")) ? jt_str(jt_get(e, "name")) : "-",
		       jt_str(jt_get(e, "interface")) ? jt_str(jt_get(e, "interface")) : "-",
		       *ips ? ips : "-", mac ? mac : "-",
		       YAJL_IS_TRUE(jt_get(e, "default")) ? "yes" : "no");
	}
}

static const char status_header[] = "%-20s %-16s %-10s %-32s %-17s %s\n";

int inventory_status(const struct hook_config *cfg, const char *id, bool json)
{
	int errnum = 0;
	if (id) {
		cnirt_error *e = NULL;
		if (cnirt_check_container_id(id, &e) < 0) {
			log_error("status: %s", cnirt_error_msg(e));
			cnirt_error_free(e);
			return 2;
		}
		yajl_val st = read_status(cfg, id, &errnum);
		if (st == NULL) {
			log_error("status: container \"%s\": %s", id,
				  errnum == ENOENT ? "no network status (not attached by cnihook)"
						   : strerror(errnum));
			return 1;
		}
		if (json) {
			_cleanup_free_ char *text = jt_dump(st);
			printf("%s\n", text);
		} else {
			printf(status_header, "CONTAINER", "NETWORK", "INTERFACE", "IPS", "MAC",
			       "DEFAULT");
			print_status_rows(id, st);
		}
		yajl_tree_free(st);
		return 0;
	}

	struct dirent **names = NULL;
	int n = scandir(cfg->state_dir, &names, NULL, alphasort);
	yajl_gen g = jt_gen_new();
	yajl_gen_map_open(g);
	if (!json)
		printf(status_header, "CONTAINER", "NETWORK", "INTERFACE", "IPS", "MAC", "DEFAULT");
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		yajl_val st = NULL;
		cnirt_error *e = NULL;
		if (name[0] != '.' && cnirt_check_container_id(name, &e) == 0)
			st = read_status(cfg, name, &errnum);
		cnirt_error_free(e);
		if (st && json) {
			jt_gen_str(g, name);
			jt_gen_value(g, st);
		} else if (st) {
			print_status_rows(name, st);
		}
		yajl_tree_free(st);
		free(names[i]);
	}
	free(names);
	yajl_gen_map_close(g);
	_cleanup_free_ char *text = jt_gen_finish(g);
	if (json)
		printf("%s\n", text);
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
	yajl_val v = NULL;
	_cleanup_free_ char *err = NULL;
	if (jt_parse(conv, strlen(conv), "result", &v, &err) < 0)
		return xstrdup("");
	yajl_val ips = jt_get(v, "ips");
	yajl_gen g = jt_gen_new();
	yajl_gen_array_open(g);
	for (size_t i = 0; YAJL_IS_ARRAY(ips) && i < ips->u.array.len; i++)
		if (jt_str(jt_get(ips->u.array.values[i], "address")))
			jt_gen_str(g, jt_str(jt_get(ips->u.array.values[i], "address")));
	yajl_gen_array_close(g);
	_cleanup_free_ char *arr = jt_gen_finish(g);
	yajl_val a = NULL;
	char *s =
	    jt_parse(arr, strlen(arr), "ips", &a, &err) == 0 ? join_strings(a, ",") : xstrdup("");
	yajl_tree_free(a);
	yajl_tree_free(v);
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

int inventory_list(const struct hook_config *cfg, bool json)
{
	cnirt_ctx *ctx = config_ctx(cfg);
	cnirt_cache_entry **v = NULL;
	size_t n = 0;
	cnirt_cache_damage *damaged = NULL;
	size_t n_damaged = 0;
	cnirt_error *e = NULL;
	if (cnirt_cache_scan(ctx, &v, &n, &damaged, &n_damaged, &e) < 0) {
		log_error("list: %s", cnirt_error_msg(e));
		cnirt_error_free(e);
		cnirt_ctx_free(ctx);
		return 1;
	}
	long long now = (long long)time(NULL);
	yajl_gen g = jt_gen_new();
	yajl_gen_array_open(g);
	if (!json)
		printf("%-20s %-16s %-10s %-32s %-30s %s\n", "CONTAINER", "NETWORK", "INTERFACE",
		       "IPS", "NETNS", "AGE");
	for (size_t i = 0; i < n; i++) {
		const cnirt_cache_entry *c = v[i];
		_cleanup_free_ char *ips = result_ips(cnirt_cache_entry_result(c));
		const char *netns = cnirt_cache_entry_netns(c) ? cnirt_cache_entry_netns(c) : "";
		long long secs = now - cnirt_cache_entry_mtime(c);
		if (secs < 0)
			secs = 0;
		if (json) {
			yajl_gen_map_open(g);
			jt_gen_str(g, "containerId");
			jt_gen_str(g, cnirt_cache_entry_container_id(c));
			jt_gen_str(g, "network");
			jt_gen_str(g, cnirt_cache_entry_network(c));
			jt_gen_str(g, "ifname");
			jt_gen_str(g, cnirt_cache_entry_ifname(c));
			jt_gen_str(g, "ips");
			yajl_gen_array_open(g);
			char *save = NULL;
			for (char *t = strtok_r(ips, ",", &save); t; t = strtok_r(NULL, ",", &save))
				jt_gen_str(g, t);
			yajl_gen_array_close(g);
			jt_gen_str(g, "netns");
			jt_gen_str(g, netns);
			jt_gen_str(g, "ageSeconds");
			yajl_gen_integer(g, secs);
			yajl_gen_map_close(g);
		} else {
			_cleanup_free_ char *a = age(secs);
			printf("%-20.64s %-16s %-10s %-32s %-30s %s\n",
			       cnirt_cache_entry_container_id(c), cnirt_cache_entry_network(c),
			       cnirt_cache_entry_ifname(c), *ips ? ips : "-", *netns ? netns : "-",
			       a);
		}
	}
	yajl_gen_array_close(g);
	_cleanup_free_ char *text = jt_gen_finish(g);
	if (json)
		printf("%s\n", text);
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
