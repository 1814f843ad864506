/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The container's /etc/hosts composed (hosts-file.h). The block goes before
 * the engine's lines: a resolver takes the first line that names a host,
 * and an engine may map the container's host name to a loopback address.
 */
#include "config.h"

#include <string.h>

#include "names/hosts-file.h"

static const char localhost_lines[] = "127.0.0.1\tlocalhost\n"
				      "::1\tlocalhost ip6-localhost ip6-loopback\n";

/* The interface at index `idx` of the result lives in a sandbox. */
static bool in_sandbox(const json *result, long long idx)
{
	const json *ifs = json_obj_get((json *)result, "interfaces");
	if (ifs == NULL || !json_is_array(ifs) || idx < 0 || (size_t)idx >= ifs->u.array.n)
		return false;
	const char *sb = json_str(json_obj_get(ifs->u.array.v[idx], "sandbox"));
	return sb && *sb;
}

void hosts_file_add_result(const json *result, char ***addrs, size_t *n)
{
	const json *ips =
	    result && json_is_object(result) ? json_obj_get((json *)result, "ips") : NULL;
	if (ips == NULL || !json_is_array(ips))
		return;
	for (size_t i = 0; i < ips->u.array.n; i++) {
		const json *e = ips->u.array.v[i];
		if (!json_is_object(e))
			continue;
		const char *cidr = json_str(json_obj_get((json *)e, "address"));
		const json *ifx = json_obj_get((json *)e, "interface");
		if (cidr == NULL ||
		    (ifx && !(json_is_int(ifx) && in_sandbox(result, json_int_value(ifx)))))
			continue;
		_cleanup_free_ char *a = xstrndup(cidr, strcspn(cidr, "/"));
		if (a[0] == '\0' || strspn(a, "0123456789abcdefABCDEF.:") != strlen(a))
			continue;
		bool dup = false;
		for (size_t k = 0; k < *n && !dup; k++)
			dup = strcmp((*addrs)[k], a) == 0;
		if (!dup)
			strv_append(addrs, n, a);
	}
}

bool hosts_file_name_ok(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n > 253 || name[0] == '-' || name[0] == '.')
		return false;
	return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._") ==
	       n;
}

static bool is_loopback(const char *a)
{
	return strncmp(a, "127.", 4) == 0 || strcmp(a, "::1") == 0;
}

/* Does the hosts line (address, then names) name `name`? */
static bool line_names(const char *line, const char *name)
{
	size_t k = strlen(name);
	for (const char *p = line; (p = strstr(p, name)) != NULL; p++)
		if (p > line && (p[-1] == ' ' || p[-1] == '\t') &&
		    (p[k] == '\0' || p[k] == ' ' || p[k] == '\t'))
			return true;
	return false;
}

void hosts_file_engine_names(const char *engine, const char *hostname, char ***names, size_t *n)
{
	_cleanup_free_ char *text = hosts_file_compose(engine, NULL, 0, NULL, 0);
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		line[strcspn(line, "#")] = '\0';
		if (hostname == NULL || !line_names(line, hostname))
			continue;
		char *w = NULL;
		char *addr = strtok_r(line, " \t", &w);
		if (addr == NULL || !is_loopback(addr))
			continue;
		for (char *name = strtok_r(NULL, " \t", &w); name;
		     name = strtok_r(NULL, " \t", &w)) {
			bool skip = !hosts_file_name_ok(name) ||
				    strncmp(name, "localhost", 9) == 0 ||
				    strncmp(name, "ip6-", 4) == 0;
			for (size_t k = 0; k < *n && !skip; k++)
				skip = strcmp((*names)[k], name) == 0;
			if (!skip)
				strv_append(names, n, name);
		}
	}
}

/* The engine's text without an earlier block of cnihook's. */
static void append_without_block(struct buf *b, const char *text)
{
	bool in_block = false;
	const char *p = text;
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);
		size_t bl = strlen(HOSTS_BEGIN), el = strlen(HOSTS_END);
		if (!in_block && strncmp(p, HOSTS_BEGIN, bl) == 0 && (p[bl] == '\n' || !p[bl]))
			in_block = true;
		else if (in_block && strncmp(p, HOSTS_END, el) == 0 && (p[el] == '\n' || !p[el]))
			in_block = false;
		else if (!in_block)
			buf_append(b, p, len);
		p = nl ? nl + 1 : NULL;
	}
	if (b->len && b->data[b->len - 1] != '\n')
		buf_appends(b, "\n");
}

char *hosts_file_compose(const char *engine, char *const *addrs, size_t n_addrs, char *const *names,
			 size_t n_names)
{
	struct buf b = {0};
	if (engine == NULL)
		buf_appends(&b, localhost_lines);
	if (n_addrs && n_names) {
		buf_appends(&b, HOSTS_BEGIN "\n");
		for (size_t i = 0; i < n_addrs; i++) {
			buf_appends(&b, addrs[i]);
			for (size_t k = 0; k < n_names; k++)
				buf_printf(&b, "%s%s", k ? " " : "\t", names[k]);
			buf_appends(&b, "\n");
		}
		buf_appends(&b, HOSTS_END "\n");
	}
	if (engine)
		append_without_block(&b, engine);
	return buf_steal(&b, NULL);
}
