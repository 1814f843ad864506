/* SPDX-License-Identifier: Apache-2.0 */
/* The names and addresses an attachment asks for (addresses.h). */
#include "config.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include <cnirt.h>

#include "request/addresses.h"
#include "request/annotation-value.h"

/* The message of a library error, and the error freed. */
static char *take_cnirt_msg(cnirt_error *e)
{
	char *s = xstrdup(cnirt_error_msg(e));
	cnirt_error_free(e);
	return s;
}

int addresses_check_k8s_namespace(const char *s, char **err)
{
	_cleanup_free_ char *v = error_shown(s);
	size_t len = strlen(s);
	if (len == 0)
		return error_set(err, "namespace is empty");
	if (len > 63)
		return error_set(err, "namespace \"%s\" is longer than 63 bytes", v);
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
		if (!alnum && c != '-')
			return error_set(err,
					 "namespace \"%s\" may only contain lower case letters, "
					 "digits and '-'",
					 v);
		if (!alnum && (i == 0 || i == len - 1))
			return error_set(err,
					 "namespace \"%s\" must start and end with a letter or a "
					 "digit",
					 v);
	}
	return 0;
}

int addresses_check_network(const char *s, char **err)
{
	cnirt_error *e = NULL;
	if (cnirt_check_network_name(s, &e) < 0) {
		*err = take_cnirt_msg(e);
		return -1;
	}
	return 0;
}

int addresses_check_ifname(const char *s, char **err)
{
	cnirt_error *e = NULL;
	if (cnirt_check_ifname(s, &e) < 0) {
		*err = take_cnirt_msg(e);
		return -1;
	}
	return 0;
}

int addresses_ip_family(const char *s)
{
	unsigned char buf[sizeof(struct in6_addr)];
	if (inet_pton(AF_INET, s, buf) == 1)
		return AF_INET;
	if (inet_pton(AF_INET6, s, buf) == 1)
		return AF_INET6;
	return 0;
}

int addresses_check_ip(const char *s, enum ip_form form, char **err)
{
	_cleanup_free_ char *v = error_shown(s);
	if (strchr(s, '%'))
		return error_set(err, "\"%s\": IPv6 zone ids ('%%') are not allowed", v);
	const char *slash = strchr(s, '/');
	if (slash && form == IP_ONLY)
		return error_set(err, "\"%s\" is not an IP address (no prefix length here)", v);
	if (!slash && form == IP_CIDR)
		return error_set(err, "\"%s\" has no prefix length (ADDRESS/LENGTH)", v);
	_cleanup_free_ char *addr = xstrndup(s, slash ? (size_t)(slash - s) : strlen(s));
	int family = addresses_ip_family(addr);
	if (family == 0)
		return error_set(err, "\"%s\" is not an IP address", v);
	if (slash) {
		const char *p = slash + 1;
		size_t len = strlen(p);
		unsigned max = family == AF_INET ? 32 : 128;
		unsigned long n = 0;
		bool digits = len > 0 && len <= 3;
		for (size_t i = 0; digits && i < len; i++) {
			digits = p[i] >= '0' && p[i] <= '9';
			n = n * 10 + (unsigned long)(p[i] - '0');
		}
		if (!digits || (p[0] == '0' && len > 1))
			return error_set(err, "\"%s\": prefix length is not a decimal number", v);
		if (n > max)
			return error_set(err, "\"%s\": prefix length %lu is not in 0-%u", v, n,
					 max);
	}
	return 0;
}

/* Hex octets separated by ':' (or '-', not mixed); lower case ':' form into
 * *out. */
static bool parse_octets(const char *s, size_t octets, char **out)
{
	if (strlen(s) != octets * 3 - 1)
		return false;
	char sep = octets > 1 ? s[2] : ':';
	if (sep != ':' && sep != '-')
		return false;
	char *norm = xstrdup(s);
	for (size_t i = 0; i < octets * 3 - 1; i++) {
		char c = s[i];
		if (i % 3 == 2) {
			if (c != sep) {
				free(norm);
				return false;
			}
			norm[i] = ':';
		} else if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) {
			norm[i] = c;
		} else if (c >= 'A' && c <= 'F') {
			norm[i] = (char)(c - 'A' + 'a');
		} else {
			free(norm);
			return false;
		}
	}
	*out = norm;
	return true;
}

int addresses_parse_mac(const char *s, char **out, char **err)
{
	_cleanup_free_ char *v = error_shown(s);
	char *norm = NULL;
	if (!parse_octets(s, 6, &norm))
		return error_set(err, "\"%s\" is not a MAC address (6 hex octets separated by ':')",
				 v);
	unsigned first = (unsigned)strtoul(norm, NULL, 16);
	if (first & 1) {
		free(norm);
		return error_set(err, "\"%s\" is a multicast address, not a unicast one", v);
	}
	if (strcmp(norm, "00:00:00:00:00:00") == 0) {
		free(norm);
		return error_set(err, "\"%s\" is the all-zero address", v);
	}
	*out = norm;
	return 0;
}

int addresses_parse_guid(const char *s, char **out, char **err)
{
	_cleanup_free_ char *v = error_shown(s);
	if (!parse_octets(s, 8, out))
		return error_set(err,
				 "\"%s\" is not an InfiniBand GUID (8 hex octets separated by "
				 "':')",
				 v);
	return 0;
}

int addresses_ip_list_from_json(const json *a, const char *field, enum ip_form form, char ***out,
				size_t *n, char **err)
{
	if (!json_is_array(a))
		return error_set(err, "field \"%s\": is %s, expected an array of strings", field,
				 json_type_name(a));
	char **v = NULL;
	size_t k = 0;
	for (size_t i = 0; i < a->u.array.n; i++) {
		const char *s = json_str(a->u.array.v[i]);
		if (s == NULL) {
			strv_free(v, k);
			return error_set(err, "field \"%s\": item %zu is %s, expected a string",
					 field, i + 1, json_type_name(a->u.array.v[i]));
		}
		if (addresses_check_ip(s, form, err) < 0) {
			strv_free(v, k);
			_cleanup_free_ char *where = xasprintf("field \"%s\"", field);
			return annotation_value_prefix(err, where);
		}
		strv_append(&v, &k, s);
	}
	*out = v;
	*n = k;
	return 0;
}
