/* SPDX-License-Identifier: Apache-2.0 */
/* What the readers of annotations share (annotation-value.h). */
#include "config.h"

#include <string.h>

#include "base/suggest.h"
#include "request/annotation-value.h"

int annotation_value_fail(char **err, const char *key, char *problem)
{
	*err = xasprintf("annotation \"%s\": %s", key, problem);
	free(problem);
	return -1;
}

int annotation_value_prefix(char **problem, const char *prefix)
{
	char *s = xasprintf("%s: %s", prefix, *problem);
	free(*problem);
	*problem = s;
	return -1;
}

int annotation_value_unknown_field(char **problem, const char *k, const char *const *known,
				   size_t n)
{
	_cleanup_free_ char *text = error_shown(k);
	_cleanup_free_ char *what = xasprintf("unknown field \"%s\"", text);
	*problem = suggest_unknown(what, k, "", known, n);
	return -1;
}

bool annotation_value_is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

const char *annotation_value_skip_space(const char *s)
{
	while (is_space(*s))
		s++;
	return s;
}

char *annotation_value_trimmed(const char *s, size_t len)
{
	while (len > 0 && is_space(*s))
		s++, len--;
	while (len > 0 && is_space(s[len - 1]))
		len--;
	return xstrndup(s, len);
}

int annotation_value_split(const char *value, char sep, char ***items, size_t *n, char **problem)
{
	char **v = NULL;
	size_t k = 0;
	const char *p = value;
	if (*annotation_value_skip_space(value) == '\0')
		return error_set(problem, "is empty");
	for (;;) {
		const char *end = strchr(p, sep);
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char *item = annotation_value_trimmed(p, len);
		if (*item == '\0') {
			free(item);
			strv_free(v, k);
			return error_set(problem, "item %zu is empty", k + 1);
		}
		v = xreallocarray(v, k + 2, sizeof(char *));
		v[k++] = item;
		v[k] = NULL;
		if (end == NULL)
			break;
		p = end + 1;
	}
	*items = v;
	*n = k;
	return 0;
}

int annotation_value_json(const char *value, json **out, char **problem)
{
	char *msg = NULL;
	if (json_parse_with(value, strlen(value), "@", &util_json, out, &msg) < 0) {
		/* json_parse_with says "@: problem". */
		*problem = xstrdup(strncmp(msg, "@: ", 3) == 0 ? msg + 3 : msg);
		free(msg);
		return -1;
	}
	return 0;
}

int annotation_value_json_int(const json *v, long long min, long long max, long long *out)
{
	if (!json_is_int(v))
		return -1;
	const char *r = v->u.number;
	for (const char *p = r + (*r == '-'); *p; p++)
		if (*p < '0' || *p > '9')
			return -1;
	if (json_int_value(v) < min || json_int_value(v) > max)
		return -1;
	*out = json_int_value(v);
	return 0;
}

int annotation_value_json_string(const json *v, const char *field, const char **out, char **problem)
{
	const char *s = json_str(v);
	if (s == NULL)
		return error_set(problem, "field \"%s\": is %s, expected a string", field,
				 json_type_name(v));
	*out = s;
	return 0;
}
