/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Spec section 3, "Deriving execution configuration from plugin
 * configuration": what one plugin execution reads on stdin.
 */
#include "config.h"

#include <string.h>

#include "internal.h"

/*
 * CONVENTIONS.md, "args in network config": what the runtime passes a
 * plugin in `args.cni` of its configuration (the NPWG `cni-args`). The
 * plugin's other `args` are kept; `args` moves last.
 */
static void inject_args(json *conf, const json *config_args)
{
	json *args = json_new(JSON_OBJECT);
	const json *old = json_obj_get(conf, "args");
	for (size_t i = 0; old && old->type == JSON_OBJECT && i < old->u.object.n; i++)
		if (strcmp(old->u.object.k[i], "cni") != 0)
			json_obj_set(args, old->u.object.k[i], json_dup(old->u.object.v[i]));
	json_obj_set(args, "cni", json_dup(config_args));
	json_obj_del(conf, "args");
	json_obj_set(conf, "args", args);
}

int derive_parse_config_args(const char *text, json **out, cnirt_error **err)
{
	*out = NULL;
	if (text == NULL)
		return 0;
	json *v = NULL;
	if (json_read_parse(text, strlen(text), "config args", &v, err) < 0)
		return -1;
	if (v->type != JSON_OBJECT) {
		json_free(v);
		return error_set(err, CNIRT_ERR_INVALID_CONFIG,
				 "config args: must be a JSON object");
	}
	*out = v;
	return 0;
}

char *derive_list_bytes(const cnirt_netlist *l, const json *config_args, size_t *len)
{
	_cleanup_json_ json *root = NULL;
	_cleanup_error_ cnirt_error *e = NULL;
	if (json_read_parse(l->bytes, l->len, "network configuration", &root, &e) < 0)
		abort(); /* it was parsed when the list was loaded */
	json *plugins = json_obj_get(root, "plugins");
	for (size_t i = 0; plugins && plugins->type == JSON_ARRAY && i < plugins->u.array.n; i++)
		if (plugins->u.array.v[i]->type == JSON_OBJECT)
			inject_args(plugins->u.array.v[i], config_args);
	return json_gen(root, false, len);
}

/*
 * "Deriving runtimeConfig": every capability the plugin declares true and
 * the runtime provides, in the order of the plugin's `capabilities`. NULL
 * when there is none.
 */
static json *runtime_config(const json *caps, const json *cap_args)
{
	if (caps == NULL || caps->type != JSON_OBJECT || cap_args == NULL ||
	    cap_args->type != JSON_OBJECT)
		return NULL;
	json *rc = NULL;
	for (size_t i = 0; i < caps->u.object.n; i++) {
		if (caps->u.object.v[i]->type != JSON_TRUE)
			continue;
		const json *arg = json_obj_get(cap_args, caps->u.object.k[i]);
		if (arg == NULL)
			continue;
		if (rc == NULL)
			rc = json_new(JSON_OBJECT);
		json_obj_set(rc, caps->u.object.k[i], json_dup(arg));
	}
	return rc;
}

char *derive_exec_config(const cnirt_netlist *l, size_t plugin, const json *cap_args,
			 const json *config_args, const json *prev_result, size_t *len)
{
	if (l == NULL || plugin >= l->n_plugins)
		return NULL;
	_cleanup_json_ json *conf = json_dup(l->plugins[plugin].conf);
	if (config_args)
		inject_args(conf, config_args);

	/* Inserted: the list's name and version, in place if the plugin
	 * configuration has them already, else appended. */
	json_obj_set(conf, "cniVersion", json_new_string(l->effective_version));
	json_obj_set(conf, "name", json_new_string(l->name));

	/*
	 * Like the reference library (injectRuntimeConfig), a runtimeConfig
	 * derived from capabilities replaces one written in the plugin
	 * configuration; when nothing is derived, a written one passes
	 * through.
	 */
	json *rc = runtime_config(json_obj_get(conf, "capabilities"), cap_args);
	json_obj_del(conf, "capabilities");
	if (rc)
		json_obj_set(conf, "runtimeConfig", rc);

	if (prev_result)
		json_obj_set(conf, "prevResult", json_dup(prev_result));

	return json_gen(conf, false, len);
}
