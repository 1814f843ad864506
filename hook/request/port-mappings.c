/* SPDX-License-Identifier: Apache-2.0 */
/* Port mappings as annotations ask for them (port-mappings.h). */
#include "config.h"

#include <arpa/inet.h>
#include <string.h>
#include <strings.h>

#include "base/suggest.h"
#include "request/addresses.h"
#include "request/annotation-value.h"
#include "request/port-mappings.h"

/* v[0..n) freed (a list built up to a failure). */
static void portmap_v_free(struct port_mapping *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].host_ip);
	free(v);
}

void port_mappings_free(struct port_mappings *m)
{
	if (m == NULL)
		return;
	portmap_v_free(m->v, m->n);
	m->v = NULL;
	m->n = 0;
}

static const char *const protocols[] = {"tcp", "udp", "sctp"};

static const char *protocol(const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(protocols); i++)
		if (strcasecmp(s, protocols[i]) == 0)
			return protocols[i];
	return NULL;
}

/* `<what>"s" is not tcp, udp or sctp`, with the nearest if one is near. */
static int bad_protocol(char **problem, const char *what, const char *s)
{
	_cleanup_free_ char *text = error_shown(s);
	const char *near = suggest_nearest(s, protocols, ARRAY_SIZE(protocols));
	if (near)
		return error_set(problem, "%s\"%s\" is not tcp, udp or sctp; did you mean \"%s\"?",
				 what, text, near);
	return error_set(problem, "%s\"%s\" is not tcp, udp or sctp", what, text);
}

json *port_mappings_to_json(const struct port_mappings *m)
{
	json *a = json_new(JSON_ARRAY);
	for (size_t i = 0; i < m->n; i++) {
		const struct port_mapping *pm = &m->v[i];
		json *o = json_new(JSON_OBJECT);
		json_obj_set(o, "hostPort", json_new_int(pm->host_port));
		json_obj_set(o, "containerPort", json_new_int(pm->container_port));
		json_obj_set(o, "protocol", json_new_string(pm->proto));
		if (pm->host_ip)
			json_obj_set(o, "hostIP", json_new_string(pm->host_ip));
		json_arr_append(a, o);
	}
	return a;
}

char *port_mappings_json_text(const struct port_mappings *m)
{
	_cleanup_json_ json *a = port_mappings_to_json(m);
	return json_gen(a, false, NULL);
}

char *port_mappings_one_text(const struct port_mapping *m)
{
	if (m->host_ip == NULL)
		return xasprintf("%u:%u/%s", m->host_port, m->container_port, m->proto);
	if (strchr(m->host_ip, ':'))
		return xasprintf("[%s]:%u:%u/%s", m->host_ip, m->host_port, m->container_port,
				 m->proto);
	return xasprintf("%s:%u:%u/%s", m->host_ip, m->host_port, m->container_port, m->proto);
}

char *port_mappings_text(const struct port_mappings *m)
{
	struct buf b = {0};
	for (size_t i = 0; i < m->n; i++) {
		_cleanup_free_ char *t = port_mappings_one_text(&m->v[i]);
		buf_printf(&b, "%s%s", i ? "," : "", t);
	}
	size_t len;
	return buf_steal(&b, &len);
}

/* ------------------------------------------------------------ JSON form */

static const char *const portmap_fields[] = {"hostPort", "containerPort", "protocol", "hostIP"};

/* hostPort or containerPort k is no integer in 1-65535. */
static int bad_port(char **problem, const char *k, const json *v)
{
	if (json_is_number(v)) {
		_cleanup_free_ char *text = error_shown(v->u.number);
		return error_set(problem, "field \"%s\": %s is not an integer in 1-65535", k, text);
	}
	return error_set(problem, "field \"%s\": is %s, expected an integer in 1-65535", k,
			 json_type_name(v));
}

/* Member k (value v) of a port mapping object, into *m. */
static int portmap_field(const char *k, const json *v, struct port_mapping *m, char **problem)
{
	const char *s = NULL;
	long long n;
	if (strcmp(k, "hostPort") == 0 || strcmp(k, "containerPort") == 0) {
		if (annotation_value_json_int(v, 1, 65535, &n) < 0)
			return bad_port(problem, k, v);
		*(k[0] == 'h' ? &m->host_port : &m->container_port) = (unsigned)n;
	} else if (strcmp(k, "protocol") == 0) {
		if (annotation_value_json_string(v, k, &s, problem) < 0)
			return -1;
		m->proto = protocol(s);
		if (m->proto == NULL)
			return bad_protocol(problem, "field \"protocol\": ", s);
	} else if (strcmp(k, "hostIP") == 0) {
		if (annotation_value_json_string(v, k, &s, problem) < 0)
			return -1;
		if (addresses_check_ip(s, IP_ONLY, problem) < 0)
			return annotation_value_prefix(problem, "field \"hostIP\"");
		free(m->host_ip);
		m->host_ip = xstrdup(s);
	} else {
		return annotation_value_unknown_field(problem, k, portmap_fields,
						      ARRAY_SIZE(portmap_fields));
	}
	return 0;
}

/* One port mapping object {hostPort, containerPort, protocol?, hostIP?}. */
static int portmap_from_json(const json *o, struct port_mapping *pm, char **problem)
{
	if (!json_is_object(o))
		return error_set(problem, "is %s, expected an object", json_type_name(o));
	struct port_mapping m = {.proto = "tcp"};
	for (size_t i = 0; i < o->u.object.n; i++) {
		if (portmap_field(o->u.object.k[i], o->u.object.v[i], &m, problem) < 0) {
			free(m.host_ip);
			return -1;
		}
	}
	if (m.host_port == 0 || m.container_port == 0) {
		free(m.host_ip);
		return error_set(problem, "field \"%s\" is missing",
				 m.host_port ? "containerPort" : "hostPort");
	}
	*pm = m;
	return 0;
}

int port_mappings_from_json(const json *a, struct port_mappings *out, char **problem)
{
	if (!json_is_array(a))
		return error_set(problem, "is %s, expected an array of port mappings",
				 json_type_name(a));
	size_t n = a->u.array.n;
	struct port_mapping *v = n ? xreallocarray(NULL, n, sizeof(*v)) : NULL;
	for (size_t i = 0; i < n; i++) {
		if (portmap_from_json(a->u.array.v[i], &v[i], problem) < 0) {
			portmap_v_free(v, i);
			_cleanup_free_ char *where = xasprintf("port mapping %zu", i + 1);
			return annotation_value_prefix(problem, where);
		}
	}
	*out = (struct port_mappings){.v = v, .n = n};
	return 0;
}

/* ------------------------------------------------------------ short form */

/* A TCP/UDP/SCTP port: decimal digits, no sign, no leading zero, 1-65535. */
static int parse_port(const char *s, size_t len, const char *what, unsigned *out, char **problem)
{
	_cleanup_free_ char *v = error_shown_n(s, len);
	if (len == 0)
		return error_set(problem, "%s is empty", what);
	for (size_t i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return error_set(problem, "%s \"%s\" is not a decimal number", what, v);
	if (s[0] == '0' && len > 1)
		return error_set(problem, "%s \"%s\" has a leading zero", what, v);
	unsigned long n = 0;
	for (size_t i = 0; i < len && n <= 65535; i++)
		n = n * 10 + (unsigned long)(s[i] - '0');
	if (n < 1 || n > 65535)
		return error_set(problem, "%s %s is not in 1-65535", what, v);
	*out = (unsigned)n;
	return 0;
}

static int portmap_from_string(const char *item, struct port_mapping *pm, char **problem);

/* "8080:80:tcp" (the protocol after a ':', not a '/'): a problem that
 * suggests the '/' form when that form is valid. */
static bool protocol_after_colon(const char *item, char **problem)
{
	const char *colon = strrchr(item, ':');
	if (colon == NULL || protocol(colon + 1) == NULL)
		return false;
	_cleanup_free_ char *fixed = xstrdup(item);
	fixed[colon - item] = '/';
	struct port_mapping m;
	char *ignored = NULL;
	if (portmap_from_string(fixed, &m, &ignored) < 0) {
		free(ignored);
		return error_set(problem, "the protocol follows a '/', not a ':' "
					  "([HOSTIP:]HOSTPORT:CONTAINERPORT/PROTOCOL)") < 0;
	}
	free(m.host_ip);
	_cleanup_free_ char *text = error_shown(fixed);
	return error_set(problem, "the protocol follows a '/', not a ':'; did you mean \"%s\"?",
			 text) < 0;
}

/* `[hostIP:]hostPort:containerPort[/proto]`, hostIP of IPv6 in brackets. */
static int portmap_from_string(const char *item, struct port_mapping *pm, char **problem)
{
	struct port_mapping m = {.proto = "tcp"};
	_cleanup_free_ char *s = xstrdup(item);
	char *slash = strrchr(s, '/');
	if (slash) {
		*slash = '\0';
		m.proto = protocol(slash + 1);
		if (m.proto == NULL)
			return bad_protocol(problem, "protocol ", slash + 1);
	} else if (protocol_after_colon(s, problem)) {
		return -1;
	}
	char *ports = s;
	if (s[0] == '[') {
		char *close = strchr(s, ']');
		if (close == NULL || close[1] != ':')
			return error_set(problem, "an IPv6 host IP is written [ADDRESS]:HOSTPORT:"
						  "CONTAINERPORT");
		*close = '\0';
		if (addresses_check_ip(s + 1, IP_ONLY, problem) < 0)
			return annotation_value_prefix(problem, "host IP");
		if (addresses_ip_family(s + 1) != AF_INET6)
			return error_set(problem, "host IP in brackets must be IPv6");
		m.host_ip = xstrdup(s + 1);
		ports = close + 2;
	}
	size_t colons = 0;
	for (const char *p = ports; *p; p++)
		colons += *p == ':';
	if (colons == 2 && m.host_ip == NULL) {
		char *c = strchr(ports, ':');
		*c = '\0';
		if (addresses_check_ip(ports, IP_ONLY, problem) < 0)
			return annotation_value_prefix(problem, "host IP");
		m.host_ip = xstrdup(ports);
		ports = c + 1;
	} else if (colons != 1) {
		free(m.host_ip);
		if (colons == 0)
			return error_set(problem, "expected HOSTPORT:CONTAINERPORT");
		return error_set(problem, "too many ':' (an IPv6 host IP goes in brackets: "
					  "[fd00::1]:8080:80)");
	}
	char *c = strchr(ports, ':');
	if (parse_port(ports, (size_t)(c - ports), "host port", &m.host_port, problem) < 0 ||
	    parse_port(c + 1, strlen(c + 1), "container port", &m.container_port, problem) < 0) {
		free(m.host_ip);
		return -1;
	}
	*pm = m;
	return 0;
}

static int portmaps_from_string(const char *value, struct port_mappings *out, char **problem)
{
	char **items = NULL;
	size_t n = 0;
	if (annotation_value_split(value, ',', &items, &n, problem) < 0)
		return -1;
	struct port_mapping *v = xreallocarray(NULL, n, sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		if (portmap_from_string(items[i], &v[i], problem) < 0) {
			_cleanup_free_ char *text = error_shown(items[i]);
			_cleanup_free_ char *where = xasprintf("\"%s\"", text);
			portmap_v_free(v, i);
			strv_free(items, n);
			return annotation_value_prefix(problem, where);
		}
	}
	*out = (struct port_mappings){.v = v, .n = n};
	strv_free(items, n);
	return 0;
}

/* ------------------------------------------------------------ the annotation */

/* io.cnihook.ports starting with '[' is a JSON list, unless an IPv6 address
 * follows: "[fd00::1]:8080:80". ('{': JSON, to say it is not a list.) */
static bool ports_are_json(const char *value)
{
	const char *p = annotation_value_skip_space(value);
	if (*p == '{')
		return true;
	if (*p != '[')
		return false;
	p = annotation_value_skip_space(p + 1);
	bool hex = (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') || (*p >= 'A' && *p <= 'F');
	return !hex && *p != ':';
}

int port_mappings_from_annotation(const char *value, struct port_mappings *out, char **problem)
{
	if (!ports_are_json(value))
		return portmaps_from_string(value, out, problem);
	_cleanup_json_ json *top = NULL;
	struct port_mappings m = {0};
	if (annotation_value_json(value, &top, problem) < 0 ||
	    port_mappings_from_json(top, &m, problem) < 0)
		return -1;
	if (m.n == 0)
		return error_set(problem, "the list is empty");
	*out = m;
	return 0;
}
