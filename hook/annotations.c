/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The container's annotations (cnihook-annotations(7)): the networks to
 * attach (Network Plumbing WG selection, JSON or short form), the single
 * attachment keys io.cnihook.{ports,mac,ips,bandwidth}, CNI_ARGS pairs, the
 * netns override and the Kubernetes engines' pod annotations.
 *
 * Everything here is input written by whoever made the container: every
 * byte is checked, and a refusal reads `annotation "KEY": problem`. Helpers
 * below report a problem without the annotation (char **problem); the
 * function that knows the annotation puts it in front.
 */
#include "config.h"

#include <arpa/inet.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <cnirt.h>

#include "annotations.h"
#include "policy.h"
#include "suggest.h"
#include "util.h"

/* Refused above the largest the policy may allow (policy.h): the policy's
 * own, smaller, limits are checked before (policy_check_annotations()). */
#define VALUE_LIMIT	POLICY_MAX_ANNOTATION_SIZE
#define MAX_ATTACHMENTS POLICY_MAX_ATTACHMENTS

/* CRI-O puts these in the OCI config of every container of a pod. */
#define ANN_CRIO_TYPE	       "io.kubernetes.cri-o.ContainerType"
#define ANN_CRIO_SANDBOX_ID    "io.kubernetes.cri-o.SandboxID"
#define ANN_CRIO_POD_NAME      "io.kubernetes.pod.name"
#define ANN_CRIO_POD_NAMESPACE "io.kubernetes.pod.namespace"
#define ANN_CRIO_POD_UID       "io.kubernetes.pod.uid"
/* containerd's CRI plugin. */
#define ANN_CRI_TYPE	      "io.kubernetes.cri.container-type"
#define ANN_CRI_SANDBOX_ID    "io.kubernetes.cri.sandbox-id"
#define ANN_CRI_POD_NAME      "io.kubernetes.cri.sandbox-name"
#define ANN_CRI_POD_NAMESPACE "io.kubernetes.cri.sandbox-namespace"
#define ANN_CRI_POD_UID	      "io.kubernetes.cri.sandbox-uid"

/* Every annotation this file reads (checked for size, encoding, repetition). */
static const char *const known_keys[] = {
    ANN_NPWG_NETWORKS,
    ANN_NETWORKS,
    ANN_PORTS,
    ANN_MAC,
    ANN_IPS,
    ANN_BANDWIDTH,
    ANN_ARGS,
    ANN_NETNS,
    ANN_CRIO_TYPE,
    ANN_CRIO_SANDBOX_ID,
    ANN_CRIO_POD_NAME,
    ANN_CRIO_POD_NAMESPACE,
    ANN_CRIO_POD_UID,
    ANN_CRI_TYPE,
    ANN_CRI_SANDBOX_ID,
    ANN_CRI_POD_NAME,
    ANN_CRI_POD_NAMESPACE,
    ANN_CRI_POD_UID,
};

/* The io.cnihook.* keys without their prefix, as cnihook-annotations(7)
 * lists them. */
#define OWN_KEY(key) ((key) + sizeof(ANN_PREFIX) - 1)
static const char *const own_keys[] = {
    OWN_KEY(ANN_NETWORKS),  OWN_KEY(ANN_PORTS), OWN_KEY(ANN_MAC),   OWN_KEY(ANN_IPS),
    OWN_KEY(ANN_BANDWIDTH), OWN_KEY(ANN_ARGS),	OWN_KEY(ANN_NETNS),
};

/* ------------------------------------------------------------ messages */

/* `annotation "key": problem` into *err; takes problem. */
static int ann_fail(char **err, const char *key, char *problem)
{
	*err = xasprintf("annotation \"%s\": %s", key, problem);
	free(problem);
	return -1;
}

/* Put "prefix: " in front of *problem. */
static int problem_prefix(char **problem, const char *prefix)
{
	char *s = xasprintf("%s: %s", prefix, *problem);
	free(*problem);
	*problem = s;
	return -1;
}

/* `unknown field "k"` and the nearest of known[0..n) into *problem. */
static int unknown_field(char **problem, const char *k, const char *const *known, size_t n)
{
	_cleanup_free_ char *text = shown(k);
	_cleanup_free_ char *what = xasprintf("unknown field \"%s\"", text);
	*problem = suggest_unknown(what, k, "", known, n);
	return -1;
}

/* The message of a library error, and the error freed. */
static char *take_cnirt_msg(cnirt_error *e)
{
	char *s = xstrdup(cnirt_error_msg(e));
	cnirt_error_free(e);
	return s;
}

/* ------------------------------------------------------------ text */

/* Offset of the first byte that is not valid UTF-8, or -1. */
static long utf8_invalid_at(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	while (s[i]) {
		unsigned char c = s[i];
		size_t n;
		uint32_t cp, min;
		if (c < 0x80) {
			i++;
			continue;
		} else if ((c & 0xe0) == 0xc0) {
			n = 1, cp = c & 0x1f, min = 0x80;
		} else if ((c & 0xf0) == 0xe0) {
			n = 2, cp = c & 0x0f, min = 0x800;
		} else if ((c & 0xf8) == 0xf0) {
			n = 3, cp = c & 0x07, min = 0x10000;
		} else {
			return (long)i;
		}
		for (size_t k = 1; k <= n; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return (long)i;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return (long)i;
		i += n + 1;
	}
	return -1;
}

static bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

static const char *first_non_space(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	return s;
}

/* s[0..len) without white space around it, as a new string. */
static char *trimmed(const char *s, size_t len)
{
	while (len > 0 && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
		s++, len--;
	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\n' ||
			   s[len - 1] == '\r'))
		len--;
	return xstrndup(s, len);
}

/* Split `value` at `sep` into trimmed items (caller frees with strv_free).
 * An empty item is a problem. */
static int split_items(const char *value, char sep, char ***items, size_t *n, char **problem)
{
	char **v = NULL;
	size_t k = 0;
	const char *p = value;
	if (*first_non_space(value) == '\0')
		return set_error(problem, "is empty");
	for (;;) {
		const char *end = strchr(p, sep);
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char *item = trimmed(p, len);
		if (*item == '\0') {
			free(item);
			strv_free(v, k);
			return set_error(problem, "item %zu is empty", k + 1);
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

/* A DNS-1123 label (Kubernetes namespace): [a-z0-9]([-a-z0-9]*[a-z0-9])?, <= 63. */
static int check_namespace(const char *s, char **problem)
{
	_cleanup_free_ char *v = shown(s);
	size_t len = strlen(s);
	if (len == 0)
		return set_error(problem, "namespace is empty");
	if (len > 63)
		return set_error(problem, "namespace \"%s\" is longer than 63 bytes", v);
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
		if (!alnum && c != '-')
			return set_error(problem,
					 "namespace \"%s\" may only contain lower case letters, "
					 "digits and '-'",
					 v);
		if (!alnum && (i == 0 || i == len - 1))
			return set_error(problem,
					 "namespace \"%s\" must start and end with a letter or a "
					 "digit",
					 v);
	}
	return 0;
}

static int check_network(const char *s, char **problem)
{
	cnirt_error *e = NULL;
	if (cnirt_check_network_name(s, &e) < 0) {
		*problem = take_cnirt_msg(e);
		return -1;
	}
	return 0;
}

static int check_ifname(const char *s, char **problem)
{
	cnirt_error *e = NULL;
	if (cnirt_check_ifname(s, &e) < 0) {
		*problem = take_cnirt_msg(e);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ numbers, addresses */

/* A TCP/UDP/SCTP port: decimal digits, no sign, no leading zero, 1-65535. */
static int parse_port(const char *s, size_t len, const char *what, unsigned *out, char **problem)
{
	_cleanup_free_ char *v = shown_n(s, len);
	if (len == 0)
		return set_error(problem, "%s is empty", what);
	for (size_t i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return set_error(problem, "%s \"%s\" is not a decimal number", what, v);
	if (s[0] == '0' && len > 1)
		return set_error(problem, "%s \"%s\" has a leading zero", what, v);
	unsigned long n = 0;
	for (size_t i = 0; i < len && n <= 65535; i++)
		n = n * 10 + (unsigned long)(s[i] - '0');
	if (n < 1 || n > 65535)
		return set_error(problem, "%s %s is not in 1-65535", what, v);
	*out = (unsigned)n;
	return 0;
}

enum ip_form {
	IP_ONLY,    /* 10.1.2.3 */
	IP_CIDR,    /* 10.1.2.3/24 */
	IP_OR_CIDR, /* either */
};

/* Address family of an IP address (no prefix), or 0. */
static int ip_family(const char *s)
{
	unsigned char buf[sizeof(struct in6_addr)];
	if (inet_pton(AF_INET, s, buf) == 1)
		return AF_INET;
	if (inet_pton(AF_INET6, s, buf) == 1)
		return AF_INET6;
	return 0;
}

static int check_ip(const char *s, enum ip_form form, char **problem)
{
	_cleanup_free_ char *v = shown(s);
	if (strchr(s, '%'))
		return set_error(problem, "\"%s\": IPv6 zone ids ('%%') are not allowed", v);
	const char *slash = strchr(s, '/');
	if (slash && form == IP_ONLY)
		return set_error(problem, "\"%s\" is not an IP address (no prefix length here)", v);
	if (!slash && form == IP_CIDR)
		return set_error(problem, "\"%s\" has no prefix length (ADDRESS/LENGTH)", v);
	_cleanup_free_ char *addr = xstrndup(s, slash ? (size_t)(slash - s) : strlen(s));
	int family = ip_family(addr);
	if (family == 0)
		return set_error(problem, "\"%s\" is not an IP address", v);
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
			return set_error(problem, "\"%s\": prefix length is not a decimal number",
					 v);
		if (n > max)
			return set_error(problem, "\"%s\": prefix length %lu is not in 0-%u", v, n,
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

/* A unicast Ethernet MAC address, normalised. */
static int parse_mac(const char *s, char **out, char **problem)
{
	_cleanup_free_ char *v = shown(s);
	char *norm = NULL;
	if (!parse_octets(s, 6, &norm))
		return set_error(problem,
				 "\"%s\" is not a MAC address (6 hex octets separated by ':')", v);
	unsigned first = (unsigned)strtoul(norm, NULL, 16);
	if (first & 1) {
		free(norm);
		return set_error(problem, "\"%s\" is a multicast address, not a unicast one", v);
	}
	if (strcmp(norm, "00:00:00:00:00:00") == 0) {
		free(norm);
		return set_error(problem, "\"%s\" is the all-zero address", v);
	}
	*out = norm;
	return 0;
}

/* An InfiniBand GUID (CONVENTIONS.md: 8 hex octets), normalised. */
static int parse_guid(const char *s, char **out, char **problem)
{
	_cleanup_free_ char *v = shown(s);
	if (!parse_octets(s, 8, out))
		return set_error(problem,
				 "\"%s\" is not an InfiniBand GUID (8 hex octets separated by "
				 "':')",
				 v);
	return 0;
}

/* ------------------------------------------------------------ JSON */

static int parse_json(const char *value, json **out, char **problem)
{
	char *msg = NULL;
	if (json_parse_with(value, strlen(value), "@", &hook_json, out, &msg) < 0) {
		/* jt_parse says "@: problem". */
		*problem = xstrdup(strncmp(msg, "@: ", 3) == 0 ? msg + 3 : msg);
		free(msg);
		return -1;
	}
	return 0;
}

/* An integer of JSON text (digits, optional '-'), in [min, max]. */
static int json_int_in(json *v, long long min, long long max, long long *out)
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

/* A string member, or a problem. */
static int json_string(json *v, const char *field, const char **out, char **problem)
{
	const char *s = json_str(v);
	if (s == NULL)
		return set_error(problem, "field \"%s\": is %s, expected a string", field,
				 json_type_name(v));
	*out = s;
	return 0;
}

struct portmap {
	unsigned host_port, container_port;
	const char *proto; /* static: "tcp", "udp", "sctp" */
	char *host_ip;	   /* or NULL */
};

static void portmaps_free(struct portmap *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].host_ip);
	free(v);
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
	_cleanup_free_ char *text = shown(s);
	const char *near = suggest_nearest(s, protocols, ARRAY_SIZE(protocols));
	if (near)
		return set_error(problem, "%s\"%s\" is not tcp, udp or sctp; did you mean \"%s\"?",
				 what, text, near);
	return set_error(problem, "%s\"%s\" is not tcp, udp or sctp", what, text);
}

/* The normalised JSON array of port mappings. */
static char *portmaps_json(const struct portmap *v, size_t n)
{
	yajl_gen g = gen_new();
	yajl_gen_array_open(g);
	for (size_t i = 0; i < n; i++) {
		yajl_gen_map_open(g);
		gen_str(g, "hostPort");
		yajl_gen_integer(g, v[i].host_port);
		gen_str(g, "containerPort");
		yajl_gen_integer(g, v[i].container_port);
		gen_str(g, "protocol");
		gen_str(g, v[i].proto);
		if (v[i].host_ip) {
			gen_str(g, "hostIP");
			gen_str(g, v[i].host_ip);
		}
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
	return gen_finish(g);
}

/* One port mapping object {hostPort, containerPort, protocol?, hostIP?}. */
static int portmap_from_json(json *o, struct portmap *pm, char **problem)
{
	if (!json_is_object(o))
		return set_error(problem, "is %s, expected an object", json_type_name(o));
	struct portmap m = {.proto = "tcp"};
	bool have_host = false, have_container = false;
	for (size_t i = 0; i < o->u.object.n; i++) {
		const char *k = o->u.object.k[i];
		json *v = o->u.object.v[i];
		long long n;
		if (strcmp(k, "hostPort") == 0 || strcmp(k, "containerPort") == 0) {
			if (json_int_in(v, 1, 65535, &n) < 0) {
				_cleanup_free_ char *text =
				    json_is_number(v) ? shown(v->u.number) : NULL;
				free(m.host_ip);
				if (text)
					return set_error(problem,
							 "field \"%s\": %s is not an integer in "
							 "1-65535",
							 k, text);
				return set_error(problem,
						 "field \"%s\": is %s, expected an integer in "
						 "1-65535",
						 k, json_type_name(v));
			}
			if (k[0] == 'h')
				m.host_port = (unsigned)n, have_host = true;
			else
				m.container_port = (unsigned)n, have_container = true;
		} else if (strcmp(k, "protocol") == 0) {
			const char *s = NULL;
			if (json_string(v, k, &s, problem) < 0) {
				free(m.host_ip);
				return -1;
			}
			m.proto = protocol(s);
			if (m.proto == NULL) {
				free(m.host_ip);
				return bad_protocol(problem, "field \"protocol\": ", s);
			}
		} else if (strcmp(k, "hostIP") == 0) {
			const char *s = NULL;
			if (json_string(v, k, &s, problem) < 0) {
				free(m.host_ip);
				return -1;
			}
			if (check_ip(s, IP_ONLY, problem) < 0) {
				free(m.host_ip);
				return problem_prefix(problem, "field \"hostIP\"");
			}
			free(m.host_ip);
			m.host_ip = xstrdup(s);
		} else {
			static const char *const fields[] = {"hostPort", "containerPort",
							     "protocol", "hostIP"};
			free(m.host_ip);
			return unknown_field(problem, k, fields, ARRAY_SIZE(fields));
		}
	}
	if (!have_host || !have_container) {
		free(m.host_ip);
		return set_error(problem, "field \"%s\" is missing",
				 have_host ? "containerPort" : "hostPort");
	}
	*pm = m;
	return 0;
}

/* A JSON array of port mappings; *out NULL when empty. */
static int portmaps_from_json(json *a, char **out, char **problem)
{
	if (!json_is_array(a))
		return set_error(problem, "is %s, expected an array of port mappings",
				 json_type_name(a));
	size_t n = a->u.array.n;
	struct portmap *v = xreallocarray(NULL, n, sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		if (portmap_from_json(a->u.array.v[i], &v[i], problem) < 0) {
			portmaps_free(v, i);
			_cleanup_free_ char *where = xasprintf("port mapping %zu", i + 1);
			return problem_prefix(problem, where);
		}
	}
	*out = n ? portmaps_json(v, n) : NULL;
	portmaps_free(v, n);
	return 0;
}

static int portmap_from_string(const char *item, struct portmap *pm, char **problem);

/* "8080:80:tcp" (the protocol after a ':', not a '/'): a problem that
 * suggests the '/' form when that form is valid. */
static bool protocol_after_colon(const char *item, char **problem)
{
	const char *colon = strrchr(item, ':');
	if (colon == NULL || protocol(colon + 1) == NULL)
		return false;
	_cleanup_free_ char *fixed = xstrdup(item);
	fixed[colon - item] = '/';
	struct portmap m;
	char *ignored = NULL;
	if (portmap_from_string(fixed, &m, &ignored) < 0) {
		free(ignored);
		return set_error(problem, "the protocol follows a '/', not a ':' "
					  "([HOSTIP:]HOSTPORT:CONTAINERPORT/PROTOCOL)") < 0;
	}
	free(m.host_ip);
	_cleanup_free_ char *text = shown(fixed);
	return set_error(problem, "the protocol follows a '/', not a ':'; did you mean \"%s\"?",
			 text) < 0;
}

/* `[hostIP:]hostPort:containerPort[/proto]`, hostIP of IPv6 in brackets. */
static int portmap_from_string(const char *item, struct portmap *pm, char **problem)
{
	struct portmap m = {.proto = "tcp"};
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
			return set_error(problem, "an IPv6 host IP is written [ADDRESS]:HOSTPORT:"
						  "CONTAINERPORT");
		*close = '\0';
		if (check_ip(s + 1, IP_ONLY, problem) < 0)
			return problem_prefix(problem, "host IP");
		if (ip_family(s + 1) != AF_INET6)
			return set_error(problem, "host IP in brackets must be IPv6");
		m.host_ip = xstrdup(s + 1);
		ports = close + 2;
	}
	size_t colons = 0;
	for (const char *p = ports; *p; p++)
		colons += *p == ':';
	if (colons == 2 && m.host_ip == NULL) {
		char *c = strchr(ports, ':');
		*c = '\0';
		if (check_ip(ports, IP_ONLY, problem) < 0)
			return problem_prefix(problem, "host IP");
		m.host_ip = xstrdup(ports);
		ports = c + 1;
	} else if (colons != 1) {
		free(m.host_ip);
		if (colons == 0)
			return set_error(problem, "expected HOSTPORT:CONTAINERPORT");
		return set_error(problem, "too many ':' (an IPv6 host IP goes in brackets: "
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

static int portmaps_from_string(const char *value, char **out, char **problem)
{
	char **items = NULL;
	size_t n = 0;
	if (split_items(value, ',', &items, &n, problem) < 0)
		return -1;
	struct portmap *v = xreallocarray(NULL, n, sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		if (portmap_from_string(items[i], &v[i], problem) < 0) {
			_cleanup_free_ char *text = shown(items[i]);
			_cleanup_free_ char *where = xasprintf("\"%s\"", text);
			portmaps_free(v, i);
			strv_free(items, n);
			return problem_prefix(problem, where);
		}
	}
	*out = portmaps_json(v, n);
	portmaps_free(v, n);
	strv_free(items, n);
	return 0;
}

/* CONVENTIONS.md bandwidth: an object of non-negative integers. */
static int bandwidth_from_json(json *o, char **out, char **problem)
{
	static const char *const fields[] = {"ingressRate", "ingressBurst", "egressRate",
					     "egressBurst"};
	if (!json_is_object(o))
		return set_error(problem, "is %s, expected an object", json_type_name(o));
	for (size_t i = 0; i < o->u.object.n; i++) {
		const char *k = o->u.object.k[i];
		bool known = false;
		for (size_t f = 0; f < ARRAY_SIZE(fields); f++)
			known = known || strcmp(k, fields[f]) == 0;
		if (!known)
			return unknown_field(problem, k, fields, ARRAY_SIZE(fields));
	}
	if (o->u.object.n == 0)
		return set_error(problem, "sets none of ingressRate, ingressBurst, egressRate, "
					  "egressBurst");
	yajl_gen g = gen_new();
	yajl_gen_map_open(g);
	for (size_t f = 0; f < ARRAY_SIZE(fields); f++) {
		json *v = json_obj_get(o, fields[f]);
		long long n;
		if (v == NULL)
			continue;
		if (json_int_in(v, 0, LLONG_MAX, &n) < 0) {
			yajl_gen_free(g);
			if (json_is_number(v)) {
				_cleanup_free_ char *text = shown(v->u.number);
				return set_error(problem,
						 "field \"%s\": %s is not a non-negative integer",
						 fields[f], text);
			}
			return set_error(problem,
					 "field \"%s\": is %s, expected a non-negative integer",
					 fields[f], json_type_name(v));
		}
		gen_str(g, fields[f]);
		yajl_gen_integer(g, n);
	}
	yajl_gen_map_close(g);
	*out = gen_finish(g);
	return 0;
}

/* ------------------------------------------------------------ attachments */

static void attach_req_free(struct attach_req *r)
{
	free(r->network);
	free(r->ns);
	free(r->ifname);
	strv_free(r->ips, r->n_ips);
	free(r->mac);
	free(r->port_mappings);
	free(r->bandwidth);
	free(r->ib_guid);
	free(r->cni_args);
	strv_free(r->default_route, r->n_default_route);
	memset(r, 0, sizeof(*r));
}

void selection_free(struct selection *s)
{
	if (s == NULL)
		return;
	for (size_t i = 0; i < s->n; i++)
		attach_req_free(&s->v[i]);
	free(s->v);
	kv_free(s->args, s->n_args);
	kv_free(s->pod, s->n_pod);
	free(s->netns);
	memset(s, 0, sizeof(*s));
}

static struct attach_req *selection_add(struct selection *s)
{
	s->v = xreallocarray(s->v, s->n + 1, sizeof(*s->v));
	memset(&s->v[s->n], 0, sizeof(*s->v));
	return &s->v[s->n++];
}

/* An array of strings, each checked as an IP of `form`. */
static int ip_list(json *a, const char *field, enum ip_form form, char ***out, size_t *n,
		   char **problem)
{
	if (!json_is_array(a))
		return set_error(problem, "field \"%s\": is %s, expected an array of strings",
				 field, json_type_name(a));
	char **v = NULL;
	size_t k = 0;
	for (size_t i = 0; i < a->u.array.n; i++) {
		const char *s = json_str(a->u.array.v[i]);
		if (s == NULL) {
			strv_free(v, k);
			return set_error(problem, "field \"%s\": item %zu is %s, expected a string",
					 field, i + 1, json_type_name(a->u.array.v[i]));
		}
		if (check_ip(s, form, problem) < 0) {
			strv_free(v, k);
			_cleanup_free_ char *where = xasprintf("field \"%s\"", field);
			return problem_prefix(problem, where);
		}
		strv_append(&v, &k, s);
	}
	*out = v;
	*n = k;
	return 0;
}

/* The fields of an NPWG network selection element. */
static const char *const element_fields[] = {
    "name",	    "namespace", "interface", "ips",	       "mac", "infiniband-guid",
    "portMappings", "bandwidth", "cni-args",  "default-route",
};

/* One NPWG network selection element (the de-facto standard v1.2,
 * section 4.1.2.1), into r. */
static int element_from_json(json *o, struct attach_req *r, char **problem)
{
	if (!json_is_object(o))
		return set_error(problem, "is %s, expected an object", json_type_name(o));
	for (size_t i = 0; i < o->u.object.n; i++) {
		const char *k = o->u.object.k[i];
		json *v = o->u.object.v[i];
		const char *s = NULL;
		int rc = 0;
		if (strcmp(k, "name") == 0) {
			rc = json_string(v, k, &s, problem);
			if (rc == 0 && check_network(s, problem) == 0)
				r->network = xstrdup(s);
			else if (rc == 0)
				rc = problem_prefix(problem, "field \"name\"");
		} else if (strcmp(k, "namespace") == 0) {
			rc = json_string(v, k, &s, problem);
			if (rc == 0 && check_namespace(s, problem) == 0)
				r->ns = xstrdup(s);
			else if (rc == 0)
				rc = problem_prefix(problem, "field \"namespace\"");
		} else if (strcmp(k, "interface") == 0) {
			rc = json_string(v, k, &s, problem);
			if (rc == 0 && check_ifname(s, problem) == 0)
				r->ifname = xstrdup(s);
			else if (rc == 0)
				rc = problem_prefix(problem, "field \"interface\"");
		} else if (strcmp(k, "ips") == 0) {
			/* v1.2: "ips" may hold addresses with or without a prefix. */
			rc = ip_list(v, k, IP_OR_CIDR, &r->ips, &r->n_ips, problem);
		} else if (strcmp(k, "mac") == 0) {
			rc = json_string(v, k, &s, problem);
			if (rc == 0 && parse_mac(s, &r->mac, problem) < 0)
				rc = problem_prefix(problem, "field \"mac\"");
		} else if (strcmp(k, "infiniband-guid") == 0) {
			rc = json_string(v, k, &s, problem);
			if (rc == 0 && parse_guid(s, &r->ib_guid, problem) < 0)
				rc = problem_prefix(problem, "field \"infiniband-guid\"");
		} else if (strcmp(k, "portMappings") == 0) {
			if (portmaps_from_json(v, &r->port_mappings, problem) < 0)
				rc = problem_prefix(problem, "field \"portMappings\"");
		} else if (strcmp(k, "bandwidth") == 0) {
			if (bandwidth_from_json(v, &r->bandwidth, problem) < 0)
				rc = problem_prefix(problem, "field \"bandwidth\"");
		} else if (strcmp(k, "cni-args") == 0) {
			if (json_is_object(v))
				r->cni_args = json_gen(v, false, NULL);
			else
				rc = set_error(problem,
					       "field \"cni-args\": is %s, expected an object",
					       json_type_name(v));
		} else if (strcmp(k, "default-route") == 0) {
			rc =
			    ip_list(v, k, IP_ONLY, &r->default_route, &r->n_default_route, problem);
		} else {
			rc = unknown_field(problem, k, element_fields, ARRAY_SIZE(element_fields));
		}
		if (rc < 0)
			return -1;
	}
	if (r->network == NULL)
		return set_error(problem, "field \"name\" is missing");
	return 0;
}

static int selection_from_json(const char *value, struct selection *s, char **problem)
{
	_cleanup_json_ json *top = NULL;
	if (parse_json(value, &top, problem) < 0)
		return -1;
	if (!json_is_array(top))
		return set_error(problem, "is %s, expected a list of networks",
				 json_type_name(top));
	if (top->u.array.n > MAX_ATTACHMENTS)
		return set_error(problem, "%zu networks requested, at most %d", top->u.array.n,
				 MAX_ATTACHMENTS);
	for (size_t i = 0; i < top->u.array.n; i++) {
		struct attach_req *r = selection_add(s);
		if (element_from_json(top->u.array.v[i], r, problem) < 0) {
			_cleanup_free_ char *where = xasprintf("element %zu", i + 1);
			return problem_prefix(problem, where);
		}
	}
	return 0;
}

/* `[namespace/]name[@ifname]` */
static int element_from_string(const char *item, struct attach_req *r, char **problem)
{
	const char *at = strchr(item, '@');
	_cleanup_free_ char *left = at ? xstrndup(item, (size_t)(at - item)) : xstrdup(item);
	const char *name = left;
	char *slash = strchr(left, '/');
	if (slash) {
		*slash = '\0';
		if (check_namespace(left, problem) < 0)
			return -1;
		r->ns = xstrdup(left);
		name = slash + 1;
	}
	if (check_network(name, problem) < 0)
		return -1;
	r->network = xstrdup(name);
	if (at) {
		if (check_ifname(at + 1, problem) < 0)
			return -1;
		r->ifname = xstrdup(at + 1);
	}
	return 0;
}

static int selection_from_string(const char *value, struct selection *s, char **problem)
{
	char **items = NULL;
	size_t n = 0;
	if (split_items(value, ',', &items, &n, problem) < 0)
		return -1;
	int rc = 0;
	if (n > MAX_ATTACHMENTS)
		rc = set_error(problem, "%zu networks requested, at most %d", n, MAX_ATTACHMENTS);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		struct attach_req *r = selection_add(s);
		if (element_from_string(items[i], r, problem) < 0) {
			_cleanup_free_ char *text = shown(items[i]);
			_cleanup_free_ char *where = xasprintf("\"%s\"", text);
			rc = problem_prefix(problem, where);
		}
	}
	strv_free(items, n);
	return rc;
}

/* Named interfaces must differ; the others get the lowest <prefix>N
 * (N >= first) no attachment names, in order. */
static int assign_ifnames(struct selection *s, const char *prefix, unsigned first, char **problem)
{
	for (size_t i = 0; i < s->n; i++)
		for (size_t k = 0; k < i && s->v[i].ifname; k++)
			if (s->v[k].ifname && strcmp(s->v[i].ifname, s->v[k].ifname) == 0)
				return set_error(problem, "interface \"%s\" is requested twice",
						 s->v[i].ifname);
	unsigned next = first;
	for (size_t i = 0; i < s->n; i++) {
		if (s->v[i].ifname)
			continue;
		for (;; next++) {
			char name[16];
			snprintf(name, sizeof(name), "%s%u", prefix, next);
			bool taken = false;
			for (size_t k = 0; k < s->n && !taken; k++)
				taken = s->v[k].ifname && strcmp(s->v[k].ifname, name) == 0;
			if (!taken) {
				s->v[i].ifname = xstrdup(name);
				break;
			}
		}
	}
	return 0;
}

/* ------------------------------------------------------------ the annotations */

/* The value of annotation key, or NULL. Repetition, size and encoding of
 * every annotation this file reads are checked first (check_values). */
static const char *ann_get(const struct kv *ann, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (ann[i].key && strcmp(ann[i].key, key) == 0)
			return ann[i].value ? ann[i].value : "";
	return NULL;
}

/* Every io.cnihook.* key is one of own_keys: a misspelt key would be
 * ignored, and the container would start without what it asked for. */
static int check_own_keys(const struct kv *ann, size_t n, char **err)
{
	const size_t plen = strlen(ANN_PREFIX);
	for (size_t i = 0; i < n; i++) {
		const char *k = ann[i].key;
		if (k == NULL || strncasecmp(k, ANN_PREFIX, plen) != 0)
			continue;
		bool known = false;
		for (size_t j = 0; j < ARRAY_SIZE(own_keys) && !known; j++)
			known =
			    strncmp(k, ANN_PREFIX, plen) == 0 && strcmp(k + plen, own_keys[j]) == 0;
		if (known)
			continue;
		_cleanup_free_ char *text = shown(k);
		_cleanup_free_ char *what = xasprintf("annotation \"%s\": unknown key", text);
		*err = suggest_unknown(what, k, ANN_PREFIX, own_keys, ARRAY_SIZE(own_keys));
		return -1;
	}
	return 0;
}

static int check_values(const struct kv *ann, size_t n, char **err)
{
	for (size_t k = 0; k < ARRAY_SIZE(known_keys); k++) {
		const char *key = known_keys[k];
		const char *value = NULL;
		for (size_t i = 0; i < n; i++) {
			if (ann[i].key == NULL || strcmp(ann[i].key, key) != 0)
				continue;
			if (value)
				return ann_fail(err, key, xstrdup("given twice"));
			value = ann[i].value ? ann[i].value : "";
		}
		if (value == NULL)
			continue;
		size_t len = strlen(value);
		if (len > VALUE_LIMIT)
			return ann_fail(err, key,
					xasprintf("value of %zu bytes, more than the %d allowed",
						  len, VALUE_LIMIT));
		long bad = utf8_invalid_at(value);
		if (bad >= 0)
			return ann_fail(err, key, xasprintf("not valid UTF-8 (byte %ld)", bad));
	}
	return 0;
}

static int parse_selection(const struct kv *ann, size_t n, char *const *defaults, size_t n_default,
			   struct selection *s, char **err)
{
	const char *npwg = ann_get(ann, n, ANN_NPWG_NETWORKS);
	const char *own = ann_get(ann, n, ANN_NETWORKS);
	if (npwg && own) {
		*err = xasprintf("annotations \"%s\" and \"%s\" are both set: use one of them",
				 ANN_NPWG_NETWORKS, ANN_NETWORKS);
		return -1;
	}
	const char *key = npwg ? ANN_NPWG_NETWORKS : ANN_NETWORKS;
	const char *value = npwg ? npwg : own;
	char *problem = NULL;
	if (value == NULL) {
		if (n_default > MAX_ATTACHMENTS) {
			*err = xasprintf("defaultNetworks: %zu networks, at most %d", n_default,
					 MAX_ATTACHMENTS);
			return -1;
		}
		for (size_t i = 0; i < n_default; i++) {
			if (check_network(defaults[i], &problem) < 0) {
				*err = xasprintf("defaultNetworks: %s", problem);
				free(problem);
				return -1;
			}
			selection_add(s)->network = xstrdup(defaults[i]);
		}
	} else if (*first_non_space(value) == '\0') {
		/* Set but empty: no networks (as Multus reads it). */
	} else if (*first_non_space(value) == '[' || *first_non_space(value) == '{') {
		if (selection_from_json(value, s, &problem) < 0)
			return ann_fail(err, key, problem);
	} else if (selection_from_string(value, s, &problem) < 0) {
		return ann_fail(err, key, problem);
	}
	return 0;
}

/* io.cnihook.ports starting with '[' is a JSON list, unless an IPv6 address
 * follows: "[fd00::1]:8080:80". ('{': JSON, to say it is not a list.) */
static bool ports_are_json(const char *value)
{
	const char *p = first_non_space(value);
	if (*p == '{')
		return true;
	if (*p != '[')
		return false;
	p = first_non_space(p + 1);
	bool hex = (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') || (*p >= 'A' && *p <= 'F');
	return !hex && *p != ':';
}

/* A single-attachment key is set: the first attachment gets it. */
static int first_attachment(struct selection *s, const char *key, const char *field, bool already,
			    struct attach_req **out, char **err)
{
	if (s->n == 0) {
		*err = xasprintf("annotation \"%s\" needs a network: set %s or defaultNetworks",
				 key, ANN_NETWORKS);
		return -1;
	}
	if (already)
		return ann_fail(err, key,
				xasprintf("the first network (\"%s\") already has \"%s\" from "
					  "the network selection: set it in one place",
					  s->v[0].network, field));
	*out = &s->v[0];
	return 0;
}

static int parse_single_keys(const struct kv *ann, size_t n, struct selection *s, char **err)
{
	const char *value;
	char *problem = NULL;
	struct attach_req *r;

	if ((value = ann_get(ann, n, ANN_PORTS))) {
		if (first_attachment(s, ANN_PORTS, "portMappings", s->n && s->v[0].port_mappings,
				     &r, err) < 0)
			return -1;
		char *out = NULL;
		int rc;
		if (ports_are_json(value)) {
			_cleanup_json_ json *top = NULL;
			rc = parse_json(value, &top, &problem);
			if (rc == 0)
				rc = portmaps_from_json(top, &out, &problem);
			if (rc == 0 && out == NULL)
				rc = set_error(&problem, "the list is empty");
		} else {
			rc = portmaps_from_string(value, &out, &problem);
		}
		if (rc < 0)
			return ann_fail(err, ANN_PORTS, problem);
		r->port_mappings = out;
		r->ports_key = ANN_PORTS;
	}

	if ((value = ann_get(ann, n, ANN_MAC))) {
		if (first_attachment(s, ANN_MAC, "mac", s->n && s->v[0].mac, &r, err) < 0)
			return -1;
		_cleanup_free_ char *t = trimmed(value, strlen(value));
		if (parse_mac(t, &r->mac, &problem) < 0)
			return ann_fail(err, ANN_MAC, problem);
	}

	if ((value = ann_get(ann, n, ANN_IPS))) {
		if (first_attachment(s, ANN_IPS, "ips", s->n && s->v[0].n_ips, &r, err) < 0)
			return -1;
		char **items = NULL;
		size_t k = 0;
		if (split_items(value, ',', &items, &k, &problem) < 0)
			return ann_fail(err, ANN_IPS, problem);
		for (size_t i = 0; i < k; i++) {
			if (check_ip(items[i], IP_CIDR, &problem) < 0) {
				strv_free(items, k);
				return ann_fail(err, ANN_IPS, problem);
			}
		}
		r->ips = items;
		r->n_ips = k;
	}

	if ((value = ann_get(ann, n, ANN_BANDWIDTH))) {
		if (first_attachment(s, ANN_BANDWIDTH, "bandwidth", s->n && s->v[0].bandwidth, &r,
				     err) < 0)
			return -1;
		_cleanup_json_ json *top = NULL;
		if (parse_json(value, &top, &problem) < 0 ||
		    bandwidth_from_json(top, &r->bandwidth, &problem) < 0)
			return ann_fail(err, ANN_BANDWIDTH, problem);
	}
	return 0;
}

/* A CNI_ARGS value: plugins split CNI_ARGS at every ';' and '=' (the
 * reference library's LoadArgs refuses a pair with two '='). */
static int check_arg_value(const char *v, char **problem)
{
	for (const char *p = v; *p; p++) {
		if (*p == ';' || *p == '=' || is_control((unsigned char)*p)) {
			_cleanup_free_ char *text = shown(v);
			return set_error(problem,
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

static int parse_args(const char *value, struct selection *s, char **err)
{
	char *problem = NULL;
	if (*value == '\0')
		return ann_fail(err, ANN_ARGS, xstrdup("is empty"));
	const char *p = value;
	for (size_t i = 1;; i++) {
		const char *end = strchr(p, ';');
		_cleanup_free_ char *pair = end ? xstrndup(p, (size_t)(end - p)) : xstrdup(p);
		_cleanup_free_ char *text = shown(pair);
		char *eq = strchr(pair, '=');
		if (*pair == '\0')
			return ann_fail(err, ANN_ARGS, xasprintf("pair %zu is empty", i));
		if (eq == NULL)
			return ann_fail(err, ANN_ARGS,
					xasprintf("\"%s\" is not a KEY=VALUE pair", text));
		*eq = '\0';
		if (*pair == '\0')
			return ann_fail(err, ANN_ARGS, xasprintf("\"%s\": the key is empty", text));
		for (const char *c = pair; *c; c++)
			if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			      (*c >= '0' && *c <= '9') || *c == '_' || *c == '-' || *c == '.'))
				return ann_fail(
				    err, ANN_ARGS,
				    xasprintf("\"%s\": the key may only contain letters, "
					      "digits, '_', '-' and '.'",
					      text));
		if (reserved_key(pair))
			return ann_fail(
			    err, ANN_ARGS,
			    xasprintf("\"%s\": key %s is set by cnihook itself", text, pair));
		for (size_t k = 0; k < s->n_args; k++)
			if (strcmp(s->args[k].key, pair) == 0)
				return ann_fail(err, ANN_ARGS,
						xasprintf("key %s is given twice", pair));
		if (check_arg_value(eq + 1, &problem) < 0) {
			_cleanup_free_ char *where = xasprintf("\"%s\"", text);
			problem_prefix(&problem, where);
			return ann_fail(err, ANN_ARGS, problem);
		}
		kv_append(&s->args, &s->n_args, pair, eq + 1);
		if (end == NULL)
			break;
		p = end + 1;
	}
	return 0;
}

static int parse_netns(const char *value, struct selection *s, char **err)
{
	if (value[0] != '/')
		return ann_fail(err, ANN_NETNS, xstrdup("is not an absolute path"));
	for (const char *p = value; *p; p++)
		if (is_control((unsigned char)*p))
			return ann_fail(err, ANN_NETNS, xstrdup("contains control characters"));
	s->netns = xstrdup(value);
	return 0;
}

/* CRI-O's and containerd's pod annotations: K8S_POD_* pairs. */
static int parse_pod(const struct kv *ann, size_t n, const char *container_id, struct selection *s,
		     char **err)
{
	static const struct {
		const char *name, *ns, *uid, *sandbox;
	} engines[] = {
	    {ANN_CRIO_POD_NAME, ANN_CRIO_POD_NAMESPACE, ANN_CRIO_POD_UID, ANN_CRIO_SANDBOX_ID},
	    {ANN_CRI_POD_NAME, ANN_CRI_POD_NAMESPACE, ANN_CRI_POD_UID, ANN_CRI_SANDBOX_ID},
	};
	for (size_t e = 0; e < ARRAY_SIZE(engines); e++) {
		const char *name = ann_get(ann, n, engines[e].name);
		const char *ns = ann_get(ann, n, engines[e].ns);
		if (name == NULL || ns == NULL)
			continue;
		const char *uid = ann_get(ann, n, engines[e].uid);
		const char *sandbox = ann_get(ann, n, engines[e].sandbox);
		const struct {
			const char *key, *pair, *value;
		} pairs[] = {
		    {engines[e].name, "K8S_POD_NAME", name},
		    {engines[e].ns, "K8S_POD_NAMESPACE", ns},
		    {engines[e].uid, "K8S_POD_UID", uid},
		    {engines[e].sandbox, "K8S_POD_INFRA_CONTAINER_ID", sandbox},
		};
		for (size_t i = 0; i < ARRAY_SIZE(pairs); i++) {
			char *problem = NULL;
			if (pairs[i].value == NULL) {
				/* No sandbox id annotation: the sandbox is this container. */
				if (pairs[i].key == engines[e].sandbox && container_id)
					kv_append(&s->pod, &s->n_pod, pairs[i].pair, container_id);
				continue;
			}
			if (*pairs[i].value == '\0')
				return ann_fail(err, pairs[i].key, xstrdup("is empty"));
			if (check_arg_value(pairs[i].value, &problem) < 0)
				return ann_fail(err, pairs[i].key, problem);
			kv_append(&s->pod, &s->n_pod, pairs[i].pair, pairs[i].value);
		}
		return 0;
	}
	return 0;
}

/* Not NULL: a container of a pod that is not its sandbox (it joins the
 * sandbox's network namespace). */
static int container_type(const struct kv *ann, size_t n, const char **skip, char **err)
{
	static const struct {
		const char *key, *reason;
	} types[] = {
	    {ANN_CRIO_TYPE, "not a pod sandbox (" ANN_CRIO_TYPE "=container)"},
	    {ANN_CRI_TYPE, "not a pod sandbox (" ANN_CRI_TYPE "=container)"},
	};
	*skip = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(types); i++) {
		const char *v = ann_get(ann, n, types[i].key);
		if (v == NULL || strcmp(v, "sandbox") == 0)
			continue;
		if (strcmp(v, "container") == 0) {
			*skip = types[i].reason;
			return 0;
		}
		_cleanup_free_ char *text = shown(v);
		return ann_fail(err, types[i].key,
				xasprintf("\"%s\" is neither \"sandbox\" nor \"container\"", text));
	}
	return 0;
}

/* The selection of ann[0..n) with its pod pairs: from the annotations
 * (pod == NULL) or as given (the CNI plugin: from CNI_ARGS). */
static int parse_all(const struct kv *ann, size_t n, char *const *default_networks,
		     size_t n_default, const char *container_id, bool in_pod, const struct kv *pod,
		     size_t n_pod, struct selection *out, char **err)
{
	struct selection s = {0};
	const char *v;
	if (check_values(ann, n, err) < 0 ||
	    parse_selection(ann, n, default_networks, n_default, &s, err) < 0 ||
	    parse_single_keys(ann, n, &s, err) < 0 ||
	    ((v = ann_get(ann, n, ANN_ARGS)) && parse_args(v, &s, err) < 0) ||
	    ((v = ann_get(ann, n, ANN_NETNS)) && parse_netns(v, &s, err) < 0) ||
	    (!in_pod && parse_pod(ann, n, container_id, &s, err) < 0)) {
		selection_free(&s);
		return -1;
	}
	for (size_t i = 0; i < n_pod; i++)
		kv_append(&s.pod, &s.n_pod, pod[i].key, pod[i].value);
	/* In a Kubernetes pod the engine gives eth0 to the cluster network:
	 * the extra networks are net1, net2, ... as with Multus. */
	char *problem = NULL;
	in_pod |= s.n_pod > 0;
	if (assign_ifnames(&s, in_pod ? "net" : "eth", in_pod ? 1 : 0, &problem) < 0) {
		const char *key =
		    ann_get(ann, n, ANN_NPWG_NETWORKS) ? ANN_NPWG_NETWORKS : ANN_NETWORKS;
		selection_free(&s);
		return ann_fail(err, key, problem);
	}
	*out = s;
	return 0;
}

int annotations_parse(const struct kv *ann, size_t n, char *const *default_networks,
		      size_t n_default, const char *container_id, struct selection *out, char **err)
{
	const char *skip = NULL;
	if (check_own_keys(ann, n, err) < 0 || container_type(ann, n, &skip, err) < 0)
		return -1;
	if (skip) {
		*out = (struct selection){.skip_reason = skip};
		return 0;
	}
	return parse_all(ann, n, default_networks, n_default, container_id, false, NULL, 0, out,
			 err);
}

int annotations_parse_pod(const struct kv *ann, size_t n, const struct kv *pod, size_t n_pod,
			  struct selection *out, char **err)
{
	if (check_own_keys(ann, n, err) < 0)
		return -1;
	return parse_all(ann, n, NULL, 0, NULL, true, pod, n_pod, out, err);
}

const char *annotations_selected_by(const struct kv *ann, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(ann[i].key, ANN_NPWG_NETWORKS) == 0 ||
		    strcmp(ann[i].key, ANN_NETWORKS) == 0)
			return ann[i].key;
	return NULL;
}

bool annotations_select(const struct kv *ann, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(ann[i].key, ANN_NPWG_NETWORKS) == 0 ||
		    strncmp(ann[i].key, ANN_PREFIX, strlen(ANN_PREFIX)) == 0)
			return true;
	return false;
}

/* ------------------------------------------------------------ per attachment */

/* Write our own normalised JSON text into g. */
static void gen_json_text(yajl_gen g, const char *text)
{
	_cleanup_free_ char *msg = NULL;
	json *v = NULL;
	if (json_parse_with(text, strlen(text), "own", &hook_json, &v, &msg) < 0)
		abort(); /* written by this file: cannot happen */
	gen_json(g, v);
	json_free(v);
}

int attachment_args(const struct selection *s, size_t i, has_capability_fn has_cap, void *data,
		    char **cap_args, struct kv **args, size_t *n_args, char **err)
{
	if (i >= s->n) {
		*err = xasprintf("attachment %zu: there are only %zu", i, s->n);
		return -1;
	}
	const struct attach_req *r = &s->v[i];
	bool cap_ports = has_cap(data, "portMappings"), cap_mac = has_cap(data, "mac");
	bool cap_ips = has_cap(data, "ips"), cap_bw = has_cap(data, "bandwidth");
	bool cap_guid = has_cap(data, "infinibandGUID");

	if (r->port_mappings && !cap_ports)
		return set_error(err,
				 "network \"%s\" has no plugin with the \"portMappings\" "
				 "capability: cannot map ports",
				 r->network);
	if (r->bandwidth && !cap_bw)
		return set_error(err,
				 "network \"%s\" has no plugin with the \"bandwidth\" "
				 "capability: cannot limit bandwidth",
				 r->network);
	if (r->ib_guid && !cap_guid)
		return set_error(err,
				 "network \"%s\" has no plugin with the \"infinibandGUID\" "
				 "capability: cannot set the InfiniBand GUID",
				 r->network);
	if (r->n_ips > 1 && !cap_ips)
		return set_error(err,
				 "network \"%s\" declares no \"ips\" capability: only one "
				 "IP can be passed, as CNI_ARGS IP=",
				 r->network);

	yajl_gen g = gen_new();
	bool any = false;
	yajl_gen_map_open(g);
	if (r->port_mappings) {
		gen_str(g, "portMappings");
		gen_json_text(g, r->port_mappings);
		any = true;
	}
	if (r->mac && cap_mac) {
		gen_str(g, "mac");
		gen_str(g, r->mac);
		any = true;
	}
	if (r->n_ips && cap_ips) {
		gen_str(g, "ips");
		yajl_gen_array_open(g);
		for (size_t k = 0; k < r->n_ips; k++)
			gen_str(g, r->ips[k]);
		yajl_gen_array_close(g);
		any = true;
	}
	if (r->bandwidth) {
		gen_str(g, "bandwidth");
		gen_json_text(g, r->bandwidth);
		any = true;
	}
	if (r->ib_guid) {
		gen_str(g, "infinibandGUID");
		gen_str(g, r->ib_guid);
		any = true;
	}
	yajl_gen_map_close(g);
	char *caps = gen_finish(g);
	if (!any) {
		free(caps);
		caps = NULL;
	}

	struct kv *v = NULL;
	size_t n = 0;
	kv_append(&v, &n, "IgnoreUnknown", "1");
	if (r->n_ips == 1 && !cap_ips) {
		/* Without the prefix, as engines pass it. */
		_cleanup_free_ char *ip = xstrndup(r->ips[0], strcspn(r->ips[0], "/"));
		kv_append(&v, &n, "IP", ip);
	}
	if (r->mac && !cap_mac)
		kv_append(&v, &n, "MAC", r->mac);
	for (size_t k = 0; k < s->n_args; k++)
		kv_append(&v, &n, s->args[k].key, s->args[k].value);
	for (size_t k = 0; k < s->n_pod; k++)
		kv_append(&v, &n, s->pod[k].key, s->pod[k].value);

	*cap_args = caps;
	*args = v;
	*n_args = n;
	return 0;
}
