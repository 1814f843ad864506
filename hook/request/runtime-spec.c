/* SPDX-License-Identifier: Apache-2.0 */
/*
 * config.json as cnihook-runtime edits it (runtime-spec.h): the
 * annotations the environment gives, then the hooks, as the runtime-spec
 * says them (config.md "Annotations", config.md "POSIX-platform Hooks").
 */
#include "config.h"

#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "request/runtime-spec.h"

#include "base/util.h"

/* The annotations of config.json into *ann: an object of strings (null
 * or absent: none). */
static int read_annotations(json *root, const char *what, struct kvlist *ann, char **err)
{
	json *a = json_obj_get(root, "annotations");
	if (a == NULL || json_is_null(a))
		return 0;
	if (!json_is_object(a))
		return error_set(err, "%s: field \"annotations\": must be an object, not %s", what,
				 json_type_name(a));
	for (size_t i = 0; i < a->u.object.n; i++) {
		const char *v = json_str(a->u.object.v[i]);
		if (v == NULL) {
			_cleanup_free_ char *k = error_shown(a->u.object.k[i]);
			_cleanup_free_ char *key = xasprintf("\"%s\"", k);
			return error_set(err, "%s: annotation %s: must be a string, not %s", what,
					 key, json_type_name(a->u.object.v[i]));
		}
		kvlist_append(ann, a->u.object.k[i], v);
	}
	return 0;
}

/* The io.cnihook.* entries of process.env (the prefix in any case, as
 * the hook reads a key) that no annotation of the same key overrides,
 * appended to *ann and to *added. */
static int read_env(json *root, const char *what, struct kvlist *ann, struct kvlist *added,
		    char **err)
{
	json *process = json_obj_get(root, "process");
	json *env = json_is_object(process) ? json_obj_get(process, "env") : NULL;
	if (env == NULL || json_is_null(env))
		return 0;
	if (!json_is_array(env))
		return error_set(err, "%s: field \"process.env\": must be an array, not %s", what,
				 json_type_name(env));
	for (size_t i = 0; i < env->u.array.n; i++) {
		const char *e = json_str(env->u.array.v[i]);
		if (e == NULL || strncasecmp(e, ANN_PREFIX, strlen(ANN_PREFIX)) != 0)
			continue;
		const char *eq = strchr(e, '=');
		if (eq == NULL) {
			_cleanup_free_ char *k = error_shown(e);
			return error_set(err, "environment entry \"%s\": expected KEY=VALUE", k);
		}
		_cleanup_free_ char *key = xstrndup(e, (size_t)(eq - e));
		if (kvlist_get(ann, key))
			continue;
		kvlist_append(ann, key, eq + 1);
		kvlist_append(added, key, eq + 1);
	}
	return 0;
}

/* The object `key` of o, made when absent or null. */
static json *object_at(json *o, const char *key, const char *what, const char *field, char **err)
{
	json *v = json_obj_get(o, key);
	if (v == NULL || json_is_null(v)) {
		v = json_new(JSON_OBJECT);
		json_obj_set(o, key, v);
	} else if (!json_is_object(v)) {
		error_set(err, "%s: field \"%s\": must be an object, not %s", what, field,
			  json_type_name(v));
		return NULL;
	}
	return v;
}

/* Append cnihook's entry for `stage` to hooks[stage], unless there. */
static int add_hook(json *hooks, const char *stage, const struct runtime_spec_hooks *h,
		    const char *what, char **err)
{
	json *list = json_obj_get(hooks, stage);
	if (list == NULL || json_is_null(list)) {
		list = json_new(JSON_ARRAY);
		json_obj_set(hooks, stage, list);
	} else if (!json_is_array(list)) {
		return error_set(err, "%s: field \"hooks.%s\": must be an array, not %s", what,
				 stage, json_type_name(list));
	}
	json *entry = json_new(JSON_OBJECT);
	json *args = json_new(JSON_ARRAY);
	json_obj_set(entry, "path", json_new_string(h->path));
	json_arr_append(args, json_new_string("cnihook"));
	if (h->config) {
		json_arr_append(args, json_new_string("--config"));
		json_arr_append(args, json_new_string(h->config));
	}
	json_arr_append(args, json_new_string(stage));
	json_obj_set(entry, "args", args);
	for (size_t i = 0; i < list->u.array.n; i++)
		if (json_equal(list->u.array.v[i], entry)) {
			json_free(entry);
			return 0;
		}
	json_arr_append(list, entry);
	return 0;
}

/* The edit itself: the added annotations, then the hooks. */
static int edit(json *root, const struct kvlist *added, const struct runtime_spec_hooks *h,
		const char *what, char **err)
{
	if (added->n > 0) {
		json *a = object_at(root, "annotations", what, "annotations", err);
		if (a == NULL)
			return -1;
		for (size_t i = 0; i < added->n; i++)
			json_obj_set(a, added->v[i].key, json_new_string(added->v[i].value));
	}
	json *hooks = object_at(root, "hooks", what, "hooks", err);
	if (hooks == NULL || add_hook(hooks, "createRuntime", h, what, err) < 0 ||
	    add_hook(hooks, "poststop", h, what, err) < 0)
		return -1;
	return 0;
}

int runtime_spec_edit(const char *text, size_t len, const char *what,
		      const struct container_defaults *d, const struct runtime_spec_hooks *h,
		      char **out, size_t *out_len, char **err)
{
	_cleanup_json_ json *root = NULL;
	struct kvlist ann = {0}, added = {0};
	struct selection sel = {0};
	int ret = -1;
	if (json_parse_with(text, len, what, &util_json, &root, err) < 0)
		return -1;
	if (!json_is_object(root)) {
		error_set(err, "%s: must hold a JSON object, not %s", what, json_type_name(root));
		goto out;
	}
	if (read_annotations(root, what, &ann, err) < 0 ||
	    read_env(root, what, &ann, &added, err) < 0 ||
	    annotations_parse(&ann, d, &sel, err) < 0)
		goto out;
	if (sel.skip_reason || sel.n == 0) {
		ret = 0;
		goto out;
	}
	if (edit(root, &added, h, what, err) < 0)
		goto out;
	*out = json_gen(root, false, out_len);
	ret = 1;
out:
	annotations_selection_free(&sel);
	kvlist_free(&ann);
	kvlist_free(&added);
	return ret;
}
