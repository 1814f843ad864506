/* SPDX-License-Identifier: Apache-2.0 */
/* The network status of a container (Network Plumbing WG network-status). */
#include "config.h"

#include <string.h>

#include <cnirt.h>

#include "base/util.h"
#include "state/network-status.h"

json *network_status_result_v1(const char *result)
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
	if (json_parse_with(conv, strlen(conv), "result", &util_json, &v, &err) < 0)
		return NULL;
	return v;
}

const char *network_status_result_mac(const json *r, const char *ifname, long *ifindex)
{
	const json *ifaces = json_obj_get(r, "interfaces");
	const char *mac = NULL;
	*ifindex = -1;
	for (size_t i = 0; json_is_array(ifaces) && i < ifaces->u.array.n; i++) {
		const json *f = ifaces->u.array.v[i];
		const char *sandbox = json_str(json_obj_get(f, "sandbox"));
		if (sandbox && *sandbox && json_str(json_obj_get(f, "name")) &&
		    strcmp(json_str(json_obj_get(f, "name")), ifname) == 0) {
			*ifindex = (long)i;
			mac = json_str(json_obj_get(f, "mac"));
		}
	}
	return mac;
}

bool network_status_ip_of(const json *ip, long ifindex)
{
	const json *idx = json_obj_get(ip, "interface");
	return json_str(json_obj_get(ip, "address")) &&
	       !(idx && json_is_int(idx) && ifindex >= 0 && json_int_value(idx) != ifindex);
}

static json *render_one(const struct network_status_entry *s)
{
	_cleanup_json_ json *r = network_status_result_v1(s->result);
	json *ips = json_obj_get(r, "ips");
	long ifindex;
	const char *mac = network_status_result_mac(r, s->ifname, &ifindex);
	json *o = json_new(JSON_OBJECT);
	json_obj_set(o, "name", json_new_string(s->network));
	json_obj_set(o, "interface", json_new_string(s->ifname));
	json *addrs = json_new(JSON_ARRAY);
	for (size_t i = 0; json_is_array(ips) && i < ips->u.array.n; i++) {
		json *ip = ips->u.array.v[i];
		if (!network_status_ip_of(ip, ifindex))
			continue;
		const char *addr = json_str(json_obj_get(ip, "address"));
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

char *network_status_render(const struct network_status_entry *v, size_t n)
{
	_cleanup_json_ json *a = json_new(JSON_ARRAY);
	for (size_t i = 0; i < n; i++)
		json_arr_append(a, render_one(&v[i]));
	return json_gen(a, false, NULL);
}

int network_status_write(const char *path, const struct network_status_entry *v, size_t n,
			 char **err)
{
	_cleanup_free_ char *text = network_status_render(v, n);
	int e = file_write_atomic(path, text, strlen(text), 0644, false);
	if (e < 0) {
		*err = xasprintf("network status %s: %s", path, strerror(-e));
		return -1;
	}
	return 0;
}

int network_status_update(const char *path, const struct network_status_entry *e, char **err)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int errnum;
	if (read_file(path, 16u << 20, &buf, &len, &errnum, err) < 0)
		return -1;
	_cleanup_json_ json *all = NULL;
	if (json_parse_with(buf, len, path, &util_json, &all, err) < 0)
		return -1;
	for (size_t i = 0; json_is_array(all) && i < all->u.array.n; i++) {
		json **v = &all->u.array.v[i];
		const char *name = json_str(json_obj_get(*v, "name"));
		const char *ifname = json_str(json_obj_get(*v, "interface"));
		if (name && ifname && strcmp(name, e->network) == 0 &&
		    strcmp(ifname, e->ifname) == 0) {
			bool is_default = json_is_true(json_obj_get(*v, "default"));
			struct network_status_entry now = *e;
			now.is_default = is_default;
			json_free(*v);
			*v = render_one(&now);
		}
	}
	_cleanup_free_ char *text = json_gen(all, false, NULL);
	int r = file_write_atomic(path, text, strlen(text), 0644, false);
	if (r < 0)
		return error_set(err, "network status %s: %s", path, strerror(-r));
	return 0;
}

char *network_status_first_ip(const char *path, size_t index, char **err)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int errnum;
	if (read_file(path, 16u << 20, &buf, &len, &errnum, err) < 0)
		return NULL;
	_cleanup_json_ json *all = NULL;
	if (json_parse_with(buf, len, path, &util_json, &all, err) < 0)
		return NULL;
	const json *e = json_is_array(all) && index < all->u.array.n ? all->u.array.v[index] : NULL;
	const json *ips = e ? json_obj_get(e, "ips") : NULL;
	if (json_is_array(ips) && ips->u.array.n > 0 && json_str(ips->u.array.v[0]))
		return xstrdup(json_str(ips->u.array.v[0]));
	*err = xasprintf("network status %s: no address in entry %zu", path, index);
	return NULL;
}
