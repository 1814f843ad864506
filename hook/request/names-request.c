/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The names annotations (names-request.h): each value checked for what a
 * resolv.conf line can hold, so that no annotation can add a line of its
 * own to the container's files.
 */
#include "config.h"

#include <arpa/inet.h>
#include <string.h>

#include "request/annotation-value.h"
#include "request/names-request.h"

#define MAX_ITEMS 32

static bool is_ip(const char *s)
{
	unsigned char buf[16];
	return inet_pton(AF_INET, s, buf) == 1 || inet_pton(AF_INET6, s, buf) == 1;
}

bool names_request_domain_ok(const char *s)
{
	size_t n = strlen(s);
	return n > 0 && n <= 253 && s[0] != '.' && s[0] != '-' &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") == n;
}

bool names_request_option_ok(const char *s)
{
	size_t n = strlen(s);
	return n > 0 && n <= 64 &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_:.") == n;
}

static int parse_list(const struct kvlist *ann, const char *key, bool (*ok)(const char *),
		      const char *what, char ***out, size_t *n, char **err)
{
	const char *value = kvlist_get(ann, key);
	if (value == NULL)
		return 0;
	char *problem = NULL;
	char **items = NULL;
	size_t k = 0;
	if (annotation_value_split(value, ',', &items, &k, &problem) < 0)
		return annotation_value_fail(err, key, problem);
	if (k > MAX_ITEMS) {
		strv_free(items, k);
		return annotation_value_fail(err, key,
					     xasprintf("%zu items, at most %d", k, MAX_ITEMS));
	}
	for (size_t i = 0; i < k; i++)
		if (!ok(items[i])) {
			_cleanup_free_ char *v = error_shown(items[i]);
			strv_free(items, k);
			return annotation_value_fail(
			    err, key, xasprintf("item %zu \"%s\" is not %s", i + 1, v, what));
		}
	*out = items;
	*n = k;
	return 0;
}

int names_request_parse(const struct kvlist *ann, struct names_request *out, char **err)
{
	struct names_request r = {0};
	const char *mode = kvlist_get(ann, ANN_DNS);
	if (mode && strcmp(mode, "off") != 0 && strcmp(mode, "auto") != 0 &&
	    strcmp(mode, "always") != 0) {
		_cleanup_free_ char *v = error_shown(mode);
		return annotation_value_fail(
		    err, ANN_DNS, xasprintf("\"%s\": must be \"off\", \"auto\" or \"always\"", v));
	}
	r.mode = mode ? xstrdup(mode) : NULL;
	if (parse_list(ann, ANN_DNS_SERVERS, is_ip, "an IP address", &r.servers, &r.n_servers,
		       err) < 0 ||
	    parse_list(ann, ANN_DNS_SEARCH, names_request_domain_ok, "a domain", &r.search,
		       &r.n_search, err) < 0 ||
	    parse_list(ann, ANN_DNS_OPTIONS, names_request_option_ok, "a resolv.conf option",
		       &r.options, &r.n_options, err) < 0) {
		names_request_free(&r);
		return -1;
	}
	*out = r;
	return 0;
}

bool names_request_any(const struct names_request *r, const char **key)
{
	*key = r->mode	      ? ANN_DNS
	       : r->n_servers ? ANN_DNS_SERVERS
	       : r->n_search  ? ANN_DNS_SEARCH
	       : r->n_options ? ANN_DNS_OPTIONS
			      : NULL;
	return *key != NULL;
}

void names_request_free(struct names_request *r)
{
	free(r->mode);
	strv_free(r->servers, r->n_servers);
	strv_free(r->search, r->n_search);
	strv_free(r->options, r->n_options);
	*r = (struct names_request){0};
}
