/* SPDX-License-Identifier: Apache-2.0 */
/* Reading the JSON libcnirt is given (configurations, results, cache
 * entries) into the tree of common/json.h, its failures as cnirt_errors. */
#include "config.h"

#include "internal.h"

/* JSON that libcnirt reads (configurations, results, cache entries): depth
 * JSON_MAX_DEPTH, no comments, strings as the bytes they are. */
int json_read_parse(const char *buf, size_t len, const char *what, json **out, cnirt_error **err)
{
	static const struct json_limits cni = {.max_depth = JSON_MAX_DEPTH};
	_cleanup_free_ char *msg = NULL;
	if (json_parse_with(buf, len, what, &cni, out, &msg) < 0)
		return error_set(err, CNIRT_ERR_DECODE, "%s", msg);
	return 0;
}

int json_read_string(const json *o, const char *key, const char **out, cnirt_error **err)
{
	const json *v = json_obj_get(o, key);
	if (v == NULL) {
		*out = NULL;
		return 0;
	}
	if (!json_is_string(v))
		return error_set(err, CNIRT_ERR_DECODE, "field \"%s\": must be a string", key);
	if (json_str(v) == NULL)
		return error_set(err, CNIRT_ERR_DECODE, "field \"%s\": contains a NUL byte", key);
	*out = v->u.string.s;
	return 0;
}

int json_read_bool(const json *o, const char *key, bool *out, cnirt_error **err)
{
	const json *v = json_obj_get(o, key);
	if (v == NULL)
		return 0;
	if (v->type != JSON_TRUE && v->type != JSON_FALSE)
		return error_set(err, CNIRT_ERR_DECODE, "field \"%s\": must be true or false", key);
	*out = v->type == JSON_TRUE;
	return 0;
}
