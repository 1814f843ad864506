/* SPDX-License-Identifier: Apache-2.0 */
/* The network status of a container (Network Plumbing WG network-status). */
#include "config.h"

#include <string.h>

#include <cnirt.h>

#include "netstatus.h"
#include "util.h"

char *status_path(const char *state_dir, const char *id)
{
	return xasprintf("%s/%s/network-status.json", state_dir, id);
}

/* The result in 1.0.0 form (ips[].address, interfaces[]), or NULL. */
static json *result_v1(const char *result)
{
	if (result == NULL)
		return NULL;
	cnirt_error *e = NULL;
	_cleanup_free_ char *conv = NULL;
	if (cnirt_result_convert(result, strlen(result), "1.0.0", &conv, &e) < 0) {
		cnirt_error_free(e);
		return NULL;
	}
	json *v = NULL;
	_cleanup_free_ char *err = NULL;
	if (json_parse_with(conv, strlen(conv), "result", &hook_json, &v, &err) < 0)
		return NULL;
	return v;
}

static void render_one(yajl_gen g, const struct status_entry *s)
{
	json *r = result_v1(s->result);
	json *ifaces = json_obj_get(r, "interfaces");
	json *ips = json_obj_get(r, "ips");
	long ifindex = -1;
	const char *mac = NULL;
	for (size_t i = 0; json_is_array(ifaces) && i < ifaces->u.array.n; i++) {
		json *f = ifaces->u.array.v[i];
		const char *sandbox = json_str(json_obj_get(f, "sandbox"));
		if (sandbox && *sandbox && json_str(json_obj_get(f, "name")) &&
		    strcmp(json_str(json_obj_get(f, "name")), s->ifname) == 0) {
			ifindex = (long)i;
			mac = json_str(json_obj_get(f, "mac"));
		}
	}
	yajl_gen_map_open(g);
	gen_str(g, "name");
	gen_str(g, s->network);
	gen_str(g, "interface");
	gen_str(g, s->ifname);
	gen_str(g, "ips");
	yajl_gen_array_open(g);
	for (size_t i = 0; json_is_array(ips) && i < ips->u.array.n; i++) {
		json *ip = ips->u.array.v[i];
		json *idx = json_obj_get(ip, "interface");
		const char *addr = json_str(json_obj_get(ip, "address"));
		if (addr == NULL ||
		    (idx && json_is_int(idx) && ifindex >= 0 && json_int_value(idx) != ifindex))
			continue;
		const char *slash = strchr(addr, '/');
		_cleanup_free_ char *a =
		    slash ? xstrndup(addr, (size_t)(slash - addr)) : xstrdup(addr);
		gen_str(g, a);
	}
	yajl_gen_array_close(g);
	if (mac) {
		gen_str(g, "mac");
		gen_str(g, mac);
	}
	gen_str(g, "default");
	yajl_gen_bool(g, s->is_default);
	gen_str(g, "dns");
	json *dns = json_obj_get(r, "dns");
	if (json_is_object(dns)) {
		gen_json(g, dns);
	} else {
		yajl_gen_map_open(g);
		yajl_gen_map_close(g);
	}
	yajl_gen_map_close(g);
	json_free(r);
}

char *status_render(const struct status_entry *v, size_t n)
{
	yajl_gen g = gen_new();
	yajl_gen_array_open(g);
	for (size_t i = 0; i < n; i++)
		render_one(g, &v[i]);
	yajl_gen_array_close(g);
	return gen_finish(g);
}

int status_write(const char *path, const struct status_entry *v, size_t n, char **err)
{
	_cleanup_free_ char *text = status_render(v, n);
	int e = write_file_atomic(path, text, strlen(text), 0644, false);
	if (e < 0) {
		*err = xasprintf("network status %s: %s", path, strerror(-e));
		return -1;
	}
	return 0;
}
