/* SPDX-License-Identifier: Apache-2.0 */
/* What one attachment gives its network's plugins (plugin-args.h). */
#include "config.h"

#include <string.h>

#include "cnirt.h"
#include "request/plugin-args.h"

/* The capabilities the network's chain declares. */
struct caps {
	bool ports, mac, ips, bandwidth, guid;
};

/* A field of r that no plugin of the network can take is refused. */
static int check_capabilities(const struct attach_req *r, const struct caps *c, char **err)
{
	if (r->ports.n && !c->ports)
		return error_set(err,
				 "network \"%s\" has no plugin with the \"portMappings\" "
				 "capability: cannot map ports",
				 r->network);
	if (r->bandwidth && !c->bandwidth)
		return error_set(err,
				 "network \"%s\" has no plugin with the \"bandwidth\" "
				 "capability: cannot limit bandwidth",
				 r->network);
	if (r->ib_guid && !c->guid)
		return error_set(err,
				 "network \"%s\" has no plugin with the \"infinibandGUID\" "
				 "capability: cannot set the InfiniBand GUID",
				 r->network);
	if (r->n_ips > 1 && !c->ips)
		return error_set(err,
				 "network \"%s\" declares no \"ips\" capability: only one "
				 "IP can be passed, as CNI_ARGS IP=",
				 r->network);
	return 0;
}

/* The capability arguments object's text into *out, NULL when it has no
 * member; -1 when the bandwidth (JSON text annotations.c normalised)
 * cannot be read back. */
static int cap_args_json(const struct attach_req *r, const struct caps *c, char **out, char **err)
{
	_cleanup_json_ json *o = json_new(JSON_OBJECT);
	if (r->ports.n)
		json_obj_set(o, "portMappings", port_mappings_to_json(&r->ports));
	if (r->mac && c->mac)
		json_obj_set(o, "mac", json_new_string(r->mac));
	if (r->n_ips && c->ips) {
		json *ips = json_new(JSON_ARRAY);
		for (size_t k = 0; k < r->n_ips; k++)
			json_arr_append(ips, json_new_string(r->ips[k]));
		json_obj_set(o, "ips", ips);
	}
	if (r->bandwidth) {
		_cleanup_free_ char *msg = NULL;
		json *v = NULL;
		if (json_parse_with(r->bandwidth, strlen(r->bandwidth), "bandwidth", &util_json, &v,
				    &msg) < 0)
			return error_set(err, "network \"%s\": %s", r->network, msg);
		json_obj_set(o, "bandwidth", v);
	}
	if (r->ib_guid)
		json_obj_set(o, "infinibandGUID", json_new_string(r->ib_guid));
	*out = o->u.object.n ? json_gen(o, false, NULL) : NULL;
	return 0;
}

/* CNI_ARGS: IgnoreUnknown=1, IP= and MAC= for a chain without the
 * capability, the user's pairs, the K8S_POD_* pairs. */
static void cni_args(const struct selection *s, const struct attach_req *r, const struct caps *c,
		     struct kvlist *v)
{
	kvlist_append(v, "IgnoreUnknown", "1");
	if (r->n_ips == 1 && !c->ips) {
		/* Without the prefix, as engines pass it. */
		_cleanup_free_ char *ip = xstrndup(r->ips[0], strcspn(r->ips[0], "/"));
		kvlist_append(v, "IP", ip);
	}
	if (r->mac && !c->mac)
		kvlist_append(v, "MAC", r->mac);
	kvlist_append_all(v, &s->args);
	kvlist_append_all(v, &s->pod);
}

int plugin_args_check_name(const char *hostname, char **problem)
{
	size_t len = strlen(hostname), label = 0;
	bool ok = len > 0 && len <= 253;
	for (size_t k = 0; ok && k <= len; k++) {
		char c = hostname[k];
		if (c == '.' || c == '\0') {
			/* A label: 1 to 63 characters, no '-' at either end. */
			ok = label > 0 && label <= 63 && hostname[k - 1] != '-' &&
			     hostname[k - label] != '-';
			label = 0;
		} else {
			ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			     (c >= '0' && c <= '9') || c == '-';
			label++;
		}
	}
	if (!ok) {
		_cleanup_free_ char *text = error_shown(hostname);
		return error_set(problem,
				 "\"%s\" is not a DNS name (labels of letters, digits and '-', "
				 "separated by '.', at most 253 characters)",
				 text);
	}
	return 0;
}

int plugin_args_name(const char *hostname, struct kvlist *args, char **problem)
{
	if (hostname == NULL)
		return error_set(problem,
				 "no annotation " ANN_NAME " and no \"hostname\" in config.json");
	_cleanup_free_ char *bad = NULL;
	if (plugin_args_check_name(hostname, &bad) < 0)
		return error_set(problem, "the name %s", bad);
	struct kvlist v = {0};
	kvlist_append(&v, PLUGIN_ARGS_NAME_KEY, hostname);
	*args = v;
	return 0;
}

int plugin_args_give_name(cnirt_ctx *ctx, const char *name, char **problem)
{
	struct kvlist v = {0};
	if (name && plugin_args_name(name, &v, problem) < 0)
		return -1;
	_cleanup_free_ struct cnirt_kv *kv = kvlist_to_cnirt(&v);
	cnirt_error *e = NULL;
	int ret = cnirt_ctx_set_plugin_args(ctx, PLUGIN_ARGS_NAME_TYPE, kv, v.n, &e);
	if (ret < 0) {
		error_set(problem, "%s", cnirt_error_msg(e));
		cnirt_error_free(e);
	}
	kvlist_free(&v);
	return ret < 0 ? -1 : 0;
}

int plugin_args_build(const struct selection *s, size_t i, has_capability_fn has_cap, void *data,
		      char **cap_args, struct kvlist *args, char **err)
{
	if (i >= s->n) {
		*err = xasprintf("attachment %zu: there are only %zu", i, s->n);
		return -1;
	}
	const struct attach_req *r = &s->v[i];
	const struct caps c = {
	    .ports = has_cap(data, "portMappings"),
	    .mac = has_cap(data, "mac"),
	    .ips = has_cap(data, "ips"),
	    .bandwidth = has_cap(data, "bandwidth"),
	    .guid = has_cap(data, "infinibandGUID"),
	};
	if (check_capabilities(r, &c, err) < 0 || cap_args_json(r, &c, cap_args, err) < 0)
		return -1;
	struct kvlist v = {0};
	cni_args(s, r, &c, &v);
	*args = v;
	return 0;
}
