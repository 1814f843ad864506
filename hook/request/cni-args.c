/* SPDX-License-Identifier: Apache-2.0 */
/* CNI_ARGS pairs that annotations ask for (cni-args.h). */
#include "config.h"

#include <string.h>
#include <strings.h>

#include "request/annotation-value.h"
#include "request/cni-args.h"

int cni_args_check_value(const char *v, char **problem)
{
	/* The reference library's LoadArgs refuses a pair with two '='. */
	for (const char *p = v; *p; p++) {
		if (*p == ';' || *p == '=' || annotation_value_is_control((unsigned char)*p)) {
			_cleanup_free_ char *text = error_shown(v);
			return error_set(problem,
					 "value \"%s\" must not contain ';', '=' or control "
					 "characters",
					 text);
		}
	}
	return 0;
}

static bool reserved_key(const char *k)
{
	return strcasecmp(k, "IgnoreUnknown") == 0 || strcasecmp(k, "IP") == 0 ||
	       strcasecmp(k, "MAC") == 0 || strncasecmp(k, "K8S_POD_", 8) == 0;
}

static bool key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.';
}

/* The pair `pair` (not empty) appended to v. */
static int add_pair(const char *pair, struct kvlist *v, char **problem)
{
	_cleanup_free_ char *key = xstrdup(pair);
	_cleanup_free_ char *text = error_shown(pair);
	char *eq = strchr(key, '=');
	if (eq == NULL)
		return error_set(problem, "\"%s\" is not a KEY=VALUE pair", text);
	*eq = '\0';
	if (*key == '\0')
		return error_set(problem, "\"%s\": the key is empty", text);
	for (const char *c = key; *c; c++)
		if (!key_char(*c))
			return error_set(problem,
					 "\"%s\": the key may only contain letters, digits, '_', "
					 "'-' and '.'",
					 text);
	if (reserved_key(key))
		return error_set(problem, "\"%s\": key %s is set by cnihook itself", text, key);
	if (kvlist_get(v, key))
		return error_set(problem, "key %s is given twice", key);
	if (cni_args_check_value(eq + 1, problem) < 0) {
		_cleanup_free_ char *where = xasprintf("\"%s\"", text);
		return annotation_value_prefix(problem, where);
	}
	kvlist_append(v, key, eq + 1);
	return 0;
}

int cni_args_parse(const char *value, struct kvlist *args, char **problem)
{
	struct kvlist v = {0};
	if (*value == '\0')
		return error_set(problem, "is empty");
	const char *p = value;
	for (size_t i = 1;; i++) {
		const char *end = strchr(p, ';');
		_cleanup_free_ char *pair = end ? xstrndup(p, (size_t)(end - p)) : xstrdup(p);
		int r = *pair ? add_pair(pair, &v, problem)
			      : error_set(problem, "pair %zu is empty", i);
		if (r < 0) {
			kvlist_free(&v);
			return -1;
		}
		if (end == NULL)
			break;
		p = end + 1;
	}
	*args = v;
	return 0;
}
