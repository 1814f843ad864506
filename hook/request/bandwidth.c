/* SPDX-License-Identifier: Apache-2.0 */
/* The bandwidth an attachment asks for (bandwidth.h). */
#include "config.h"

#include <limits.h>
#include <string.h>

#include "request/annotation-value.h"
#include "request/bandwidth.h"

static const char *const fields[] = {"ingressRate", "ingressBurst", "egressRate", "egressBurst"};

/* Every member of o is one of fields, and there is one. */
static int check_fields(const json *o, char **err)
{
	for (size_t i = 0; i < o->u.object.n; i++) {
		const char *k = o->u.object.k[i];
		bool known = false;
		for (size_t f = 0; f < ARRAY_SIZE(fields); f++)
			known = known || strcmp(k, fields[f]) == 0;
		if (!known)
			return annotation_value_unknown_field(err, k, fields, ARRAY_SIZE(fields));
	}
	if (o->u.object.n == 0)
		return error_set(err, "sets none of ingressRate, ingressBurst, egressRate, "
				      "egressBurst");
	return 0;
}

int bandwidth_from_json(const json *o, char **out, char **err)
{
	if (!json_is_object(o))
		return error_set(err, "is %s, expected an object", json_type_name(o));
	if (check_fields(o, err) < 0)
		return -1;
	_cleanup_json_ json *bw = json_new(JSON_OBJECT);
	for (size_t f = 0; f < ARRAY_SIZE(fields); f++) {
		const json *v = json_obj_get(o, fields[f]);
		long long n;
		if (v == NULL)
			continue;
		if (annotation_value_json_int(v, 0, LLONG_MAX, &n) < 0) {
			if (json_is_number(v)) {
				_cleanup_free_ char *text = error_shown(v->u.number);
				return error_set(err,
						 "field \"%s\": %s is not a non-negative integer",
						 fields[f], text);
			}
			return error_set(err,
					 "field \"%s\": is %s, expected a non-negative integer",
					 fields[f], json_type_name(v));
		}
		json_obj_set(bw, fields[f], json_new_int(n));
	}
	*out = json_gen(bw, false, NULL);
	return 0;
}
