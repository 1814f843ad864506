/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The container's resolv.conf composed (resolv-conf.h): the results' name
 * servers, search domains and options first, then the host's; duplicates
 * dropped, loopback and unspecified servers of the host's and of the
 * results dropped (in the container's network namespace they name the
 * container itself), search domains and options held to what the
 * annotations allow (names-request.h), no public fallback.
 */
#include "config.h"

#include <arpa/inet.h>
#include <string.h>

#include "names/resolv-conf.h"
#include "request/names-request.h"

/* A word a resolv.conf line can hold: no white space, no control bytes, no
 * comment character, not empty, not over 253 bytes (a domain's limit). */
static bool word_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 253)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c <= ' ' || c == 0x7f || c == '#' || c == ';')
			return false;
	}
	return true;
}

/* An IPv4 or IPv6 address (an IPv6 one may carry a `%zone`). */
static bool server_ok(const char *s)
{
	unsigned char buf[16];
	if (!word_ok(s))
		return false;
	if (inet_pton(AF_INET, s, buf) == 1)
		return true;
	_cleanup_free_ char *a = xstrdup(s);
	char *zone = strchr(a, '%');
	if (zone)
		*zone = '\0';
	return inet_pton(AF_INET6, a, buf) == 1;
}

static bool has(char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

/* An option's name: what comes before ':' (ndots:2 and ndots:5 are one). */
static bool has_option(char *const *v, size_t n, const char *opt)
{
	size_t k = strcspn(opt, ":");
	for (size_t i = 0; i < n; i++)
		if (strcspn(v[i], ":") == k && strncmp(v[i], opt, k) == 0)
			return true;
	return false;
}

static void add_server(struct resolv *r, const char *s)
{
	if (server_ok(s) && !has(r->servers, r->n_servers, s))
		strv_append(&r->servers, &r->n_servers, s);
}

/* A server of the host's or of a result: not a local one. */
static void add_remote_server(struct resolv *r, const char *s)
{
	if (!resolv_conf_is_local(s))
		add_server(r, s);
}

static void add_search(struct resolv *r, const char *s)
{
	if (names_request_domain_ok(s) && !has(r->search, r->n_search, s))
		strv_append(&r->search, &r->n_search, s);
}

static void add_option(struct resolv *r, const char *s)
{
	if (names_request_option_ok(s) && !has_option(r->options, r->n_options, s))
		strv_append(&r->options, &r->n_options, s);
}

/* The words after the keyword on one line. */
static void add_words(struct resolv *r, const char *line,
		      void (*add)(struct resolv *, const char *))
{
	_cleanup_free_ char *copy = xstrdup(line);
	char *save = NULL;
	for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
		add(r, w);
}

void resolv_conf_parse(const char *text, struct resolv *out)
{
	const char *p = text;
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		_cleanup_free_ char *line = xstrndup(p, len);
		line[strcspn(line, "#;\r")] = '\0';
		char *rest = line + strcspn(line, " \t");
		if (*rest)
			*rest++ = '\0';
		if (strcmp(line, "nameserver") == 0) {
			rest += strspn(rest, " \t");
			rest[strcspn(rest, " \t")] = '\0';
			add_server(out, rest);
		} else if (strcmp(line, "search") == 0 || strcmp(line, "domain") == 0) {
			add_words(out, rest, add_search);
		} else if (strcmp(line, "options") == 0) {
			add_words(out, rest, add_option);
		}
		p = nl ? nl + 1 : NULL;
	}
}

static void add_strings(struct resolv *r, const json *dns, const char *key,
			void (*add)(struct resolv *, const char *))
{
	const json *v = json_obj_get((json *)dns, key);
	if (v == NULL || !json_is_array(v))
		return;
	for (size_t i = 0; i < v->u.array.n; i++) {
		const char *s = json_str(v->u.array.v[i]);
		if (s)
			add(r, s);
	}
}

void resolv_conf_add_dns(struct resolv *acc, const json *dns)
{
	if (dns == NULL || !json_is_object(dns))
		return;
	add_strings(acc, dns, "nameservers", add_remote_server);
	const char *domain = json_str(json_obj_get((json *)dns, "domain"));
	if (domain)
		add_search(acc, domain);
	add_strings(acc, dns, "search", add_search);
	add_strings(acc, dns, "options", add_option);
}

bool resolv_conf_names_stub(const struct resolv *r)
{
	return has(r->servers, r->n_servers, RESOLV_STUB);
}

static bool local_v4(uint32_t a)
{
	return (a >> 24) == 127 || a == 0;
}

bool resolv_conf_is_local(const char *server)
{
	struct in_addr a4;
	struct in6_addr a6;
	if (inet_pton(AF_INET, server, &a4) == 1)
		return local_v4(ntohl(a4.s_addr));
	_cleanup_free_ char *a = xstrdup(server);
	a[strcspn(a, "%")] = '\0';
	if (inet_pton(AF_INET6, a, &a6) != 1)
		return false;
	if (IN6_IS_ADDR_V4MAPPED(&a6) || IN6_IS_ADDR_V4COMPAT(&a6)) {
		uint32_t v4;
		memcpy(&v4, &a6.s6_addr[12], sizeof(v4));
		return local_v4(ntohl(v4));
	}
	return IN6_IS_ADDR_LOOPBACK(&a6) || IN6_IS_ADDR_UNSPECIFIED(&a6);
}

void resolv_conf_merge(struct resolv *acc, const struct resolv *from, bool skip_local)
{
	for (size_t i = 0; i < from->n_servers; i++)
		if (!skip_local || !resolv_conf_is_local(from->servers[i]))
			add_server(acc, from->servers[i]);
	for (size_t i = 0; i < from->n_search; i++)
		add_search(acc, from->search[i]);
	for (size_t i = 0; i < from->n_options; i++)
		add_option(acc, from->options[i]);
}

/* One `key word...` line of at most `max` words and RESOLV_MAX_LINE bytes
 * (a word that would pass it is left out), none when no word fits. */
static void compose_line(struct buf *b, const char *key, char *const *v, size_t n, size_t max)
{
	size_t start = b->len, words = 0;
	buf_appends(b, key);
	for (size_t i = 0; i < n && words < max; i++) {
		size_t line = b->len - start;
		if (line + 1 + strlen(v[i]) > RESOLV_MAX_LINE)
			continue;
		buf_printf(b, " %s", v[i]);
		words++;
	}
	if (words == 0)
		b->len = start;
	else
		buf_appends(b, "\n");
}

char *resolv_conf_compose(const struct resolv *r)
{
	struct buf b = {0};
	buf_printf(&b, "# Written by cnihook for this container (cnihook(8), NAMES).\n");
	for (size_t i = 0; i < r->n_servers && i < RESOLV_MAX_SERVERS; i++)
		buf_printf(&b, "nameserver %s\n", r->servers[i]);
	compose_line(&b, "search", r->search, r->n_search, RESOLV_MAX_SEARCH);
	compose_line(&b, "options", r->options, r->n_options, r->n_options);
	return buf_steal(&b, NULL);
}

void resolv_conf_free(struct resolv *r)
{
	strv_free(r->servers, r->n_servers);
	strv_free(r->search, r->n_search);
	strv_free(r->options, r->n_options);
	*r = (struct resolv){0};
}
