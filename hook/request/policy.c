/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The administrator's policy over what annotations may ask (the `policy`
 * object of cnihook.json(5)). Checked before any plugin runs; a refusal reads
 *     annotation "<key>": "<value>": <problem> (policy.<rule>)
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/suggest.h"
#include "request/policy.h"

/* Longest value quoted in a message, in bytes of the original. */

/* The annotations cnihook reads (cnihook-annotations(7)). */
static const char *const read_keys[] = {
    ANN_NPWG_NETWORKS, ANN_NETWORKS, ANN_PORTS, ANN_MAC,	 ANN_IPS,	 ANN_BANDWIDTH,
    ANN_ARGS,	       ANN_NETNS,    ANN_DNS,	ANN_DNS_SERVERS, ANN_DNS_SEARCH, ANN_DNS_OPTIONS,
};

static const struct {
	const char *name;
	unsigned bit;
} field_names[] = {
    {"portMappings", POLICY_PORT_MAPPINGS},
    {"mac", POLICY_MAC},
    {"ips", POLICY_IPS},
    {"bandwidth", POLICY_BANDWIDTH},
    {"args", POLICY_ARGS},
    {"infinibandGUID", POLICY_IB_GUID},
    {"netns", POLICY_NETNS},
    {"dns", POLICY_DNS},
};

static const char *field_name(unsigned bit)
{
	for (size_t i = 0; i < ARRAY_SIZE(field_names); i++)
		if (field_names[i].bit == bit)
			return field_names[i].name;
	return "?";
}

void policy_defaults(struct policy *p)
{
	memset(p, 0, sizeof(*p));
	strv_append(&p->networks, &p->n_networks, "*");
	p->allowed_fields = POLICY_PORT_MAPPINGS | POLICY_MAC | POLICY_IPS | POLICY_BANDWIDTH |
			    POLICY_ARGS | POLICY_IB_GUID | POLICY_DNS;
	p->host_port_min = 1024;
	p->host_port_max = 65535;
	p->max_attachments = 8;
	p->max_annotation = 65536;
}

void policy_free(struct policy *p)
{
	if (p == NULL)
		return;
	strv_free(p->networks, p->n_networks);
	strv_free(p->host_ips, p->n_host_ips);
	strv_free(p->netns_prefixes, p->n_netns_prefixes);
	memset(p, 0, sizeof(*p));
}

/* ------------------------------------------------------------ parsing */

static int bad(char **err, const char *path, const char *field, const char *problem)
{
	return error_set(err, "%s: field \"policy.%s\": %s", path, field, problem);
}

/* A whole number in [min, max]. */
static bool get_uint(json *v, long long min, long long max, long long *out)
{
	if (!json_is_int(v) || json_int_value(v) < min || json_int_value(v) > max)
		return false;
	*out = json_int_value(v);
	return true;
}

/* An IPv4 or IPv6 address in binary: family and 16 bytes. */
struct addr {
	int family;
	unsigned char b[16];
};

static bool parse_addr(const char *s, struct addr *a)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, s, a->b) == 1) {
		a->family = AF_INET;
		return true;
	}
	if (inet_pton(AF_INET6, s, a->b) == 1) {
		a->family = AF_INET6;
		return true;
	}
	return false;
}

/* An absolute path without "." or ".." components. */
static bool clean_abs_path(const char *s)
{
	if (s[0] != '/')
		return false;
	for (const char *p = s; *p;) {
		while (*p == '/')
			p++;
		size_t n = strcspn(p, "/");
		if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p += n;
	}
	return true;
}

/* An array of strings, each checked by `check` (NULL: any non-empty
 * string); `rule` describes what the elements must be. */
static int get_strings(json *v, const char *path, const char *field, const char *rule,
		       bool (*check)(const char *), char ***out, size_t *n_out, char **err)
{
	if (!json_is_array(v)) {
		_cleanup_free_ char *p = xasprintf("must be an array of %s", rule);
		return bad(err, path, field, p);
	}
	char **vec = NULL;
	size_t n = 0;
	for (size_t i = 0; i < v->u.array.n; i++) {
		const char *s = json_str(v->u.array.v[i]);
		if (s == NULL || s[0] == '\0' || (check && !check(s))) {
			_cleanup_free_ char *f = xasprintf("%s[%zu]", field, i);
			_cleanup_free_ char *p =
			    s ? xasprintf("\"%s\" is not %s", s, rule)
			      : xasprintf("is %s, expected %s", json_type_name(v->u.array.v[i]),
					  rule);
			strv_free(vec, n);
			return bad(err, path, f, p);
		}
		strv_append(&vec, &n, s);
	}
	*out = vec;
	*n_out = n;
	return 0;
}

static bool is_ip(const char *s)
{
	struct addr a;
	return parse_addr(s, &a);
}

static int get_fields(json *v, const char *path, unsigned *out, char **err)
{
	static const char rule[] = "one of \"portMappings\", \"mac\", \"ips\", \"bandwidth\", "
				   "\"args\", \"infinibandGUID\", \"netns\", \"dns\"";
	char **names = NULL;
	size_t n = 0;
	if (get_strings(v, path, "allowedFields", rule, NULL, &names, &n, err) < 0)
		return -1;
	unsigned bits = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned bit = 0;
		for (size_t f = 0; f < ARRAY_SIZE(field_names); f++)
			if (strcmp(names[i], field_names[f].name) == 0)
				bit = field_names[f].bit;
		if (bit == 0) {
			const char *known[ARRAY_SIZE(field_names)];
			for (size_t f = 0; f < ARRAY_SIZE(field_names); f++)
				known[f] = field_names[f].name;
			const char *near = suggest_nearest(names[i], known, ARRAY_SIZE(known));
			_cleanup_free_ char *hint =
			    near ? xasprintf("; did you mean \"%s\"?", near) : xstrdup("");
			_cleanup_free_ char *f = xasprintf("allowedFields[%zu]", i);
			_cleanup_free_ char *p =
			    xasprintf("\"%s\" is not %s%s", names[i], rule, hint);
			strv_free(names, n);
			return bad(err, path, f, p);
		}
		bits |= bit;
	}
	strv_free(names, n);
	*out = bits;
	return 0;
}

static int get_port_range(json *v, const char *path, struct policy *p, char **err)
{
	long long lo, hi;
	if (!json_is_array(v) || v->u.array.n != 2 || !get_uint(v->u.array.v[0], 1, 65535, &lo) ||
	    !get_uint(v->u.array.v[1], 1, 65535, &hi) || lo > hi)
		return bad(err, path, "hostPortRange",
			   "must be [min, max], whole numbers with 1 <= min <= max <= 65535");
	p->host_port_min = (unsigned)lo;
	p->host_port_max = (unsigned)hi;
	return 0;
}

static void replace(char ***dst, size_t *n_dst, char **v, size_t n)
{
	strv_free(*dst, *n_dst);
	*dst = v;
	*n_dst = n;
}

static int apply(const json *v, const char *path, struct policy *p, char **err)
{
	for (size_t i = 0; i < v->u.object.n; i++) {
		const char *k = v->u.object.k[i];
		json *x = v->u.object.v[i];
		char **vec = NULL;
		size_t n = 0;
		long long num;
		if (strcmp(k, "networks") == 0) {
			if (get_strings(x, path, k, "a network name or glob", NULL, &vec, &n, err) <
			    0)
				return -1;
			replace(&p->networks, &p->n_networks, vec, n);
		} else if (strcmp(k, "allowedFields") == 0) {
			if (get_fields(x, path, &p->allowed_fields, err) < 0)
				return -1;
		} else if (strcmp(k, "hostPortRange") == 0) {
			if (get_port_range(x, path, p, err) < 0)
				return -1;
		} else if (strcmp(k, "hostIPs") == 0) {
			if (get_strings(x, path, k, "an IPv4 or IPv6 address", is_ip, &vec, &n,
					err) < 0)
				return -1;
			replace(&p->host_ips, &p->n_host_ips, vec, n);
		} else if (strcmp(k, "netnsPrefixes") == 0) {
			if (get_strings(x, path, k, "an absolute directory without \".\" or \"..\"",
					clean_abs_path, &vec, &n, err) < 0)
				return -1;
			replace(&p->netns_prefixes, &p->n_netns_prefixes, vec, n);
		} else if (strcmp(k, "maxAttachments") == 0) {
			if (!get_uint(x, 1, POLICY_MAX_ATTACHMENTS, &num))
				return bad(err, path, k, "must be a whole number, 1-32");
			p->max_attachments = (unsigned)num;
		} else if (strcmp(k, "maxAnnotationSize") == 0) {
			if (!get_uint(x, 1, POLICY_MAX_ANNOTATION_SIZE, &num))
				return bad(err, path, k,
					   "must be a whole number of bytes, 1-1048576 (1 MiB)");
			p->max_annotation = (size_t)num;
		} else {
			/* Those of the branches above. */
			static const char *const fields[] = {
			    "networks",	     "allowedFields",  "hostPortRange",	   "hostIPs",
			    "netnsPrefixes", "maxAttachments", "maxAnnotationSize"};
			_cleanup_free_ char *problem = suggest_unknown(
			    "unknown field", k, "policy.", fields, ARRAY_SIZE(fields));
			return bad(err, path, k, problem);
		}
	}
	return 0;
}

int policy_parse(const json *v, const char *path, struct policy *out, char **err)
{
	struct policy p;
	policy_defaults(&p);
	if (v != NULL && !json_is_object(v)) {
		policy_free(&p);
		return error_set(err, "%s: field \"policy\": must be an object", path);
	}
	if (v != NULL && apply(v, path, &p, err) < 0) {
		policy_free(&p);
		return -1;
	}
	*out = p;
	return 0;
}

/* ------------------------------------------------------------ checks */

int policy_check_annotations(const struct policy *p, const struct kvlist *ann, char **err)
{
	for (size_t i = 0; i < ann->n; i++) {
		const struct kv *a = &ann->v[i];
		for (size_t k = 0; k < ARRAY_SIZE(read_keys); k++) {
			if (a->key == NULL || strcmp(a->key, read_keys[k]) != 0)
				continue;
			size_t len = a->value ? strlen(a->value) : 0;
			if (len > p->max_annotation)
				return error_set(err,
						 "annotation \"%s\": %zu bytes: larger than "
						 "policy.maxAnnotationSize (%zu)",
						 a->key, len, p->max_annotation);
		}
	}
	return 0;
}

/* Set *err to `annotation "<key>": "<value>": <problem>` and return -1. */
static int refuse(char **err, const char *key, const char *value, const char *fmt, ...)
    PRINTF_LIKE(4, 5);
static int refuse(char **err, const char *key, const char *value, const char *fmt, ...)
{
	va_list ap;
	char *problem;
	va_start(ap, fmt);
	if (vasprintf(&problem, fmt, ap) < 0)
		abort();
	va_end(ap);
	_cleanup_free_ char *v = error_shown(value);
	error_set(err, "annotation \"%s\": \"%s\": %s", key, v, problem);
	free(problem);
	return -1;
}

static int refuse_field(char **err, const char *key, const char *value, unsigned bit)
{
	return refuse(err, key, value, "refused by policy.allowedFields (no \"%s\")",
		      field_name(bit));
}

/* Which annotation set what: the networks annotation (NULL when the
 * networks are cnihook.json's defaultNetworks) and, for the first
 * attachment's fields, the single-field annotations present. */
struct sources {
	const char *networks;
	bool ports, mac, ips, bandwidth;
};

static bool has_key(const struct kvlist *ann, const char *key)
{
	return kvlist_get(ann, key) != NULL;
}

/* ann: the annotations, or NULL when they are not known. */
static void find_sources(const struct kvlist *ann, struct sources *src)
{
	memset(src, 0, sizeof(*src));
	if (ann == NULL) {
		/* Without the annotations: the usual spelling of each. */
		src->networks = ANN_NETWORKS;
		src->ports = src->mac = src->ips = src->bandwidth = true;
		return;
	}
	if (has_key(ann, ANN_NPWG_NETWORKS))
		src->networks = ANN_NPWG_NETWORKS;
	else if (has_key(ann, ANN_NETWORKS))
		src->networks = ANN_NETWORKS;
	src->ports = has_key(ann, ANN_PORTS);
	src->mac = has_key(ann, ANN_MAC);
	src->ips = has_key(ann, ANN_IPS);
	src->bandwidth = has_key(ann, ANN_BANDWIDTH);
}

/* The annotation that set a field of attachment i: the single-field one
 * for the first attachment when present, else the networks annotation. */
static const char *source_of(const struct sources *src, size_t i, bool single, const char *key)
{
	if (i == 0 && single)
		return key;
	return src->networks ? src->networks : key;
}

static bool network_allowed(const struct policy *p, const char *name)
{
	for (size_t i = 0; i < p->n_networks; i++)
		if (fnmatch(p->networks[i], name, FNM_PATHNAME) == 0)
			return true;
	return false;
}

static bool host_ip_allowed(const struct policy *p, const char *ip)
{
	struct addr a, b;
	if (!parse_addr(ip, &a))
		return false;
	for (size_t i = 0; i < p->n_host_ips; i++)
		if (parse_addr(p->host_ips[i], &b) && a.family == b.family &&
		    memcmp(a.b, b.b, sizeof(a.b)) == 0)
			return true;
	return false;
}

static int check_ports(const struct policy *p, const char *key, const struct port_mappings *m,
		       char **err)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct port_mapping *pm = &m->v[i];
		_cleanup_free_ char *mapping = port_mappings_one_text(pm);
		if (pm->host_port < p->host_port_min || pm->host_port > p->host_port_max)
			return refuse(err, key, mapping,
				      "host port %u is not in %u-%u (policy.hostPortRange)",
				      pm->host_port, p->host_port_min, p->host_port_max);
		if (p->n_host_ips == 0)
			continue;
		if (pm->host_ip == NULL)
			return refuse(err, key, mapping,
				      "no host IP: it would bind every address of the host "
				      "(policy.hostIPs)");
		if (!host_ip_allowed(p, pm->host_ip))
			return refuse(err, key, mapping,
				      "host IP %s is not allowed (policy.hostIPs)", pm->host_ip);
	}
	return 0;
}

static char *joined(char *const *v, size_t n, const char *sep)
{
	_cleanup_free_ char *out = xstrdup("");
	for (size_t i = 0; i < n; i++) {
		char *s = xasprintf("%s%s%s", out, i ? sep : "", v[i]);
		free(out);
		out = s;
	}
	return TAKE_PTR(out);
}

static int check_attachment(const struct policy *p, const struct sources *src,
			    const struct selection *s, size_t i, char **err)
{
	const struct attach_req *r = &s->v[i];
	const char *key;

	if (src->networks && !network_allowed(p, r->network))
		return refuse(err, src->networks, r->network,
			      "the network is not allowed (policy.networks)");

	if (r->ports.n) {
		key = source_of(src, i, src->ports, ANN_PORTS);
		if (!(p->allowed_fields & POLICY_PORT_MAPPINGS)) {
			_cleanup_free_ char *text = port_mappings_text(&r->ports);
			return refuse_field(err, key, text, POLICY_PORT_MAPPINGS);
		}
		if (check_ports(p, key, &r->ports, err) < 0)
			return -1;
	}
	if (r->mac && !(p->allowed_fields & POLICY_MAC))
		return refuse_field(err, source_of(src, i, src->mac, ANN_MAC), r->mac, POLICY_MAC);
	if (r->n_ips && !(p->allowed_fields & POLICY_IPS)) {
		_cleanup_free_ char *text = joined(r->ips, r->n_ips, ",");
		return refuse_field(err, source_of(src, i, src->ips, ANN_IPS), text, POLICY_IPS);
	}
	if (r->bandwidth && !(p->allowed_fields & POLICY_BANDWIDTH))
		return refuse_field(err, source_of(src, i, src->bandwidth, ANN_BANDWIDTH),
				    r->bandwidth, POLICY_BANDWIDTH);
	if (r->ib_guid && !(p->allowed_fields & POLICY_IB_GUID))
		return refuse_field(err, source_of(src, i, false, ANN_NETWORKS), r->ib_guid,
				    POLICY_IB_GUID);
	if (r->cni_args && !(p->allowed_fields & POLICY_ARGS))
		return refuse_field(err, source_of(src, i, false, ANN_NETWORKS), r->cni_args,
				    POLICY_ARGS);
	return 0;
}

/* Is st the file at `ref`? -1 (errno set) when `ref` cannot be looked at. */
static int same_file(const struct stat *st, const char *ref)
{
	struct stat b;
	if (stat(ref, &b) < 0)
		return -1;
	return st->st_dev == b.st_dev && st->st_ino == b.st_ino;
}

/* Is `path` (resolved) below the directory `prefix`? Components, not
 * bytes: /run/netns2/x is not below /run/netns. The prefix is resolved too
 * (/var/run is a symbolic link to /run on most systems). */
static bool below(const char *path, const char *prefix)
{
	_cleanup_free_ char *real = realpath(prefix, NULL);
	const char *pre = real ? real : prefix;
	size_t len = strlen(pre);
	while (len > 0 && pre[len - 1] == '/')
		len--;
	return strncmp(path, pre, len) == 0 && path[len] == '/' && path[len + 1] != '\0';
}

static int check_netns(const struct policy *p, const char *path, char **err)
{
	if (!(p->allowed_fields & POLICY_NETNS))
		return refuse_field(err, ANN_NETNS, path, POLICY_NETNS);
	if (p->n_netns_prefixes == 0)
		return refuse(err, ANN_NETNS, path,
			      "no directory is allowed (policy.netnsPrefixes)");
	/* What the path leads to, through every link (also the /proc magic
	 * links that realpath() cannot follow): never the host's namespace,
	 * nor the one the plugins would run in anyway. */
	struct stat st;
	if (stat(path, &st) < 0)
		return refuse(err, ANN_NETNS, path, "%s (policy.netnsPrefixes)", strerror(errno));
	/* Fail closed: a namespace that cannot be compared is refused. */
	static const struct {
		const char *ref, *what;
	} never[] = {
	    {"/proc/1/ns/net", "the host's network namespace"},
	    {"/proc/self/ns/net", "cnihook's own network namespace"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(never); i++) {
		int same = same_file(&st, never[i].ref);
		if (same < 0)
			return refuse(err, ANN_NETNS, path,
				      "cannot tell whether it is %s: %s: %s (policy.netnsPrefixes)",
				      never[i].what, never[i].ref, strerror(errno));
		if (same)
			return refuse(err, ANN_NETNS, path,
				      "is %s, never allowed (policy.netnsPrefixes)", never[i].what);
	}
	_cleanup_free_ char *real = realpath(path, NULL);
	if (real == NULL)
		return refuse(err, ANN_NETNS, path, "cannot be resolved: %s (policy.netnsPrefixes)",
			      strerror(errno));
	for (size_t i = 0; i < p->n_netns_prefixes; i++)
		if (below(real, p->netns_prefixes[i]))
			return 0;
	_cleanup_free_ char *r = error_shown(real);
	return refuse(err, ANN_NETNS, path,
		      "resolves to \"%s\", outside the allowed directories (policy.netnsPrefixes)",
		      r);
}

/* The selection against the policy; ann are the annotations it was parsed
 * from (to name the annotation that set each field), or NULL. */
static int check_selection(const struct policy *p, const struct selection *s,
			   const struct kvlist *ann, char **err)
{
	struct sources src;
	find_sources(ann, &src);

	if (s->n > p->max_attachments) {
		char **names = xreallocarray(NULL, s->n, sizeof(*names));
		for (size_t i = 0; i < s->n; i++)
			names[i] = s->v[i].network;
		_cleanup_free_ char *text = joined(names, s->n, ",");
		free(names);
		if (src.networks == NULL)
			return error_set(err,
					 "defaultNetworks: \"%s\": %zu attachments, more than %u "
					 "(policy.maxAttachments)",
					 text, s->n, p->max_attachments);
		return refuse(err, src.networks, text,
			      "%zu attachments, more than %u (policy.maxAttachments)", s->n,
			      p->max_attachments);
	}
	for (size_t i = 0; i < s->n; i++)
		if (check_attachment(p, &src, s, i, err) < 0)
			return -1;
	if (s->args.n && !(p->allowed_fields & POLICY_ARGS)) {
		_cleanup_free_ char *text = NULL;
		for (size_t i = 0; i < s->args.n; i++) {
			char *t = xasprintf("%s%s%s=%s", text ? text : "", i ? ";" : "",
					    s->args.v[i].key, s->args.v[i].value);
			free(text);
			text = t;
		}
		return refuse_field(err, ANN_ARGS, text, POLICY_ARGS);
	}
	if (s->netns && check_netns(p, s->netns, err) < 0)
		return -1;
	const char *dns_key;
	if (names_request_any(&s->names, &dns_key) && !(p->allowed_fields & POLICY_DNS)) {
		const char *value = ann ? kvlist_get(ann, dns_key) : NULL;
		return refuse_field(err, dns_key, value ? value : "", POLICY_DNS);
	}
	return 0;
}

int policy_check_selection_ann(const struct policy *p, const struct selection *s,
			       const struct kvlist *ann, char **err)
{
	return check_selection(p, s, ann, err);
}

int policy_check_selection(const struct policy *p, const struct selection *s, char **err)
{
	return check_selection(p, s, NULL, err);
}
