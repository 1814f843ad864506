/* SPDX-License-Identifier: Apache-2.0 */
/* The network status of a container (Network Plumbing WG network-status). */
#include "config.h"

#include <string.h>

#include <cnirt.h>

#include "base/util.h"
#include "state/network-status.h"

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

static json *render_one(const struct netstatus_entry *s)
{
	_cleanup_json_ json *r = result_v1(s->result);
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
	json *o = json_new(JSON_OBJECT);
	json_obj_set(o, "name", json_new_string(s->network));
	json_obj_set(o, "interface", json_new_string(s->ifname));
	json *addrs = json_new(JSON_ARRAY);
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
		json_arr_append(addrs, json_new_string(a));
	}
	json_obj_set(o, "ips", addrs);
	if (mac)
		json_obj_set(o, "mac", json_new_string(mac));
	json_obj_set(o, "default", json_new_bool(s->is_default));
	json *dns = json_obj_get(r, "dns");
	json_obj_set(o, "dns", json_is_object(dns) ? json_dup(dns) : json_new(JSON_OBJECT));
	return o;
}

char *netstatus_render(const struct netstatus_entry *v, size_t n)
{
	_cleanup_json_ json *a = json_new(JSON_ARRAY);
	for (size_t i = 0; i < n; i++)
		json_arr_append(a, render_one(&v[i]));
	return json_gen(a, false, NULL);
}

int netstatus_write(const char *path, const struct netstatus_entry *v, size_t n, char **err)
{
	_cleanup_free_ char *text = netstatus_render(v, n);
	int e = write_file_atomic(path, text, strlen(text), 0644, false);
	if (e < 0) {
		*err = xasprintf("network status %s: %s", path, strerror(-e));
		return -1;
	}
	return 0;
}
