/* SPDX-License-Identifier: Apache-2.0 */
/* The network status of a container (Network Plumbing WG network-status). */
#include "config.h"

#include <string.h>

#include <cnirt.h>

#include "jsonutil.h"
#include "status.h"
#include "util.h"

char *status_path(const char *state_dir, const char *id)
{
	return xasprintf("%s/%s/network-status.json", state_dir, id);
}

/* The result in 1.0.0 form (ips[].address, interfaces[]), or NULL. */
static yajl_val result_v1(const char *result)
{
	if (result == NULL)
		return NULL;
	cnirt_error *e = NULL;
	_cleanup_free_ char *conv = NULL;
	if (cnirt_result_convert(result, strlen(result), "1.0.0", &conv, &e) < 0) {
		cnirt_error_free(e);
		return NULL;
	}
	yajl_val v = NULL;
	_cleanup_free_ char *err = NULL;
	if (jt_parse(conv, strlen(conv), "result", &v, &err) < 0)
		return NULL;
	return v;
}

static void render_one(yajl_gen g, const struct status_entry *s)
{
	yajl_val r = result_v1(s->result);
	yajl_val ifaces = jt_get(r, "interfaces");
	yajl_val ips = jt_get(r, "ips");
	long ifindex = -1;
	const char *mac = NULL;
	for (size_t i = 0; YAJL_IS_ARRAY(ifaces) && i < ifaces->u.array.len; i++) {
		yajl_val f = ifaces->u.array.values[i];
		const char *sandbox = jt_str(jt_get(f, "sandbox"));
		if (sandbox && *sandbox && jt_str(jt_get(f, "name")) &&
		    strcmp(jt_str(jt_get(f, "name")), s->ifname) == 0) {
			ifindex = (long)i;
			mac = jt_str(jt_get(f, "mac"));
		}
	}
	yajl_gen_map_open(g);
	jt_gen_str(g, "name");
	jt_gen_str(g, s->network);
	jt_gen_str(g, "interface");
	jt_gen_str(g, s->ifname);
	jt_gen_str(g, "ips");
	yajl_gen_array_open(g);
	for (size_t i = 0; YAJL_IS_ARRAY(ips) && i < ips->u.array.len; i++) {
		yajl_val ip = ips->u.array.values[i];
		yajl_val idx = jt_get(ip, "interface");
		const char *addr = jt_str(jt_get(ip, "address"));
		if (addr == NULL || (idx && YAJL_IS_INTEGER(idx) && ifindex >= 0 &&
				     YAJL_GET_INTEGER(idx) != ifindex))
			continue;
		const char *slash = strchr(addr, '/');
		_cleanup_free_ char *a =
		    slash ? xstrndup(addr, (size_t)(slash - addr)) : xstrdup(addr);
		jt_gen_str(g, a);
	}
	yajl_gen_array_close(g);
	if (mac) {
		jt_gen_str(g, "mac");
		jt_gen_str(g, mac);
	}
	jt_gen_str(g, "default");
	yajl_gen_bool(g, s->is_default);
	jt_gen_str(g, "dns");
	yajl_val dns = jt_get(r, "dns");
	if (YAJL_IS_OBJECT(dns)) {
		jt_gen_value(g, dns);
	} else {
		yajl_gen_map_open(g);
		yajl_gen_map_close(g);
	}
	yajl_gen_map_close(g);
	yajl_tree_free(r);
}

char *status_render(const struct status_entry *v, size_t n)
{
	yajl_gen g = jt_gen_new();
	yajl_gen_array_open(g);
	for (size_t i = 0; i < n; i++)
		render_one(g, &v[i]);
	yajl_gen_array_close(g);
	return jt_gen_finish(g);
}

int status_write(const char *path, const struct status_entry *v, size_t n, char **err)
{
	_cleanup_free_ char *text = status_render(v, n);
	int e = write_file_atomic(path, text, strlen(text), 0644);
	if (e < 0) {
		*err = xasprintf("network status %s: %s", path, strerror(-e));
		return -1;
	}
	return 0;
}
