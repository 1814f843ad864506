/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Spec section 3, "Deriving execution configuration from plugin
 * configuration": what one plugin execution reads on stdin.
 */
#include "config.h"

#include "internal.h"

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
			 const json *prev_result, size_t *len)
{
	if (l == NULL || plugin >= l->n_plugins)
		return NULL;
	_cleanup_json_ json *conf = json_dup(l->plugins[plugin].conf);

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
