/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Spec section 5, "Result Types": success results of every version this
 * library implements (validation, and conversion between versions with the
 * rules of the reference library) and error results.
 *
 * A success result is read into one model (struct result) whatever its
 * version, checking every field on the way; conversion writes the model out
 * in the layout of the target version. The model keeps only the fields the
 * spec defines, and is written the way the reference library writes a
 * result: addresses in canonical text, "dns" always present, empty optional
 * fields left out. So a conversion, even to the same version, gives what the
 * reference gives.
 */
#include "config.h"

#include <arpa/inet.h>
#include <limits.h>
#include <string.h>

#include "internal.h"

/* The three layouts of a success result. */
enum layout {
	LAYOUT_020, /* 0.1.0, 0.2.0: ip4, ip6 (ip, gateway, routes), dns */
	LAYOUT_040, /* 0.3.0, 0.3.1, 0.4.0: interfaces, ips with "version", routes, dns */
	LAYOUT_100, /* 1.0.0, 1.1.0: ips without "version"; the 1.1.0 fields */
};

static const struct {
	const char *version;
	enum layout layout;
} layouts[] = {
    {"0.1.0", LAYOUT_020}, {"0.2.0", LAYOUT_020}, {"0.3.0", LAYOUT_040}, {"0.3.1", LAYOUT_040},
    {"0.4.0", LAYOUT_040}, {"1.0.0", LAYOUT_100}, {"1.1.0", LAYOUT_100},
};

static int layout_of(const char *version)
{
	for (size_t i = 0; version && i < ARRAY_SIZE(layouts); i++)
		if (strcmp(version, layouts[i].version) == 0)
			return (int)layouts[i].layout;
	return -1;
}

/* ------------------------------------------------------------ addresses */

/* An IP address as the reference library sees it: an IPv4-mapped IPv6
 * address (::ffff:a.b.c.d) is an IPv4 address. */
struct addr {
	int family;	     /* 4 or 6 */
	unsigned char b[16]; /* family 4: the first 4 bytes */
};

struct cidr {
	struct addr ip;
	unsigned prefix;
};

static bool addr_parse(const char *s, struct addr *out, bool *mapped)
{
	static const unsigned char v4_mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	struct addr a = {0};
	bool m = false;

	if (inet_pton(AF_INET, s, a.b) == 1) {
		a.family = 4;
	} else if (inet_pton(AF_INET6, s, a.b) == 1) {
		a.family = 6;
		if (memcmp(a.b, v4_mapped, sizeof(v4_mapped)) == 0) {
			memmove(a.b, a.b + 12, 4);
			memset(a.b + 4, 0, 12);
			a.family = 4;
			m = true;
		}
	} else {
		return false;
	}
	*out = a;
	if (mapped)
		*mapped = m;
	return true;
}

/* "address/prefix", the prefix in decimal within the address's length. */
static bool cidr_parse(const char *s, struct cidr *out)
{
	const char *slash = strchr(s, '/');
	if (slash == NULL || slash[1] == '\0')
		return false;
	_cleanup_free_ char *ip = xstrndup(s, (size_t)(slash - s));
	struct addr a;
	bool mapped;
	if (!addr_parse(ip, &a, &mapped))
		return false;
	unsigned n = 0;
	for (const char *p = slash + 1; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		n = n * 10 + (unsigned)(*p - '0');
		if (n > 128)
			return false;
	}
	if (n > (a.family == 4 && !mapped ? 32u : 128u))
		return false;
	/* The reference prints the last 32 bits of a mapped address's mask. */
	if (mapped)
		n = n >= 96 ? n - 96 : 0;
	out->ip = a;
	out->prefix = n;
	return true;
}

/* Canonical text (RFC 5952 for IPv6: lower case, no leading zeros, the
 * first longest run of two or more zero groups written "::"). */
static char *addr_format(const struct addr *a)
{
	if (a->family == 4)
		return xasprintf("%u.%u.%u.%u", a->b[0], a->b[1], a->b[2], a->b[3]);

	unsigned w[8];
	for (int i = 0; i < 8; i++)
		w[i] = (unsigned)a->b[2 * i] << 8 | a->b[2 * i + 1];
	int gap = -1, gap_len = 1;
	for (int i = 0; i < 8; i++) {
		int j = i;
		while (j < 8 && w[j] == 0)
			j++;
		if (j - i > gap_len) {
			gap = i;
			gap_len = j - i;
		}
		if (j > i)
			i = j - 1;
	}
	struct buf b = {0};
	for (int i = 0; i < 8; i++) {
		if (i == gap) {
			buf_appends(&b, "::");
			i += gap_len - 1;
			continue;
		}
		bool first = i == 0 || i == gap + gap_len;
		buf_printf(&b, "%s%x", first ? "" : ":", w[i]);
	}
	return buf_steal(&b, NULL);
}

static char *cidr_format(const struct cidr *c)
{
	_cleanup_free_ char *ip = addr_format(&c->ip);
	return xasprintf("%s/%u", ip, c->prefix);
}

/* ---------------------------------------------------------------- model */

/* Fields added by spec 1.1.0, carried between 1.x results. */
struct extra_field {
	const char *key;
	bool integer; /* else a string */
};
static const struct extra_field iface_extras[] = {
    {"mtu", true},
    {"socketPath", false},
    {"pciID", false},
};
static const struct extra_field route_extras[] = {
    {"mtu", true}, {"advmss", true}, {"priority", true}, {"table", true}, {"scope", true},
};

struct r_iface {
	const char *name, *mac, *sandbox;
	const json *extra[ARRAY_SIZE(iface_extras)];
};

struct r_ip {
	struct cidr address;
	bool has_gateway;
	struct addr gateway;
	bool has_interface;
	long long interface;
};

struct r_route {
	struct cidr dst;
	bool has_gw;
	struct addr gw;
	const json *extra[ARRAY_SIZE(route_extras)];
};

struct r_dns {
	const json *nameservers, *search, *options; /* arrays of strings */
	const char *domain;
};

/* A success result of any version. Strings and extras point into the JSON
 * tree it was read from. ip4/ip6 of 0.1.0/0.2.0 become ips (IPv4 first) and
 * their routes become routes: a route's family tells where it came from. */
struct result {
	enum layout layout;
	struct r_iface *ifaces;
	size_t n_ifaces;
	struct r_ip *ips;
	size_t n_ips;
	struct r_route *routes;
	size_t n_routes;
	struct r_dns dns;
};

static void result_release(struct result *r)
{
	free(r->ifaces);
	free(r->ips);
	free(r->routes);
	*r = (struct result){0};
}

/* -------------------------------------------------------------- reading */

/* A problem with the value at path.key (key may be NULL, path may be "").
 * Malformed results are decoding failures. */
static int bad(cnirt_error **err, const char *path, const char *key, const char *fmt, ...)
    PRINTF_LIKE(4, 5);
static int bad(cnirt_error **err, const char *path, const char *key, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	_cleanup_free_ char *m = xvasprintf(fmt, ap);
	va_end(ap);
	if (key == NULL)
		return error_set(err, CNIRT_ERR_DECODE, "%s: %s", path, m);
	if (*path == '\0')
		return error_set(err, CNIRT_ERR_DECODE, "%s: %s", key, m);
	return error_set(err, CNIRT_ERR_DECODE, "%s.%s: %s", path, key, m);
}

/* A member that is absent or null reads as absent, as in the reference. */
static const json *member(const json *o, const char *key)
{
	const json *v = json_obj_get(o, key);
	return v && v->type != JSON_NULL ? v : NULL;
}

static bool integer_text(const char *t, long long *out)
{
	const char *p = t[0] == '-' ? t + 1 : t;
	if (*p == '\0')
		return false;
	for (; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	errno = 0;
	long long v = strtoll(t, NULL, 10);
	if (errno == ERANGE)
		return false;
	*out = v;
	return true;
}

static int read_string(const json *o, const char *path, const char *key, bool required,
		       const char **out, cnirt_error **err)
{
	const json *v = member(o, key);
	if (v == NULL) {
		if (required)
			return bad(err, path, key, "missing");
		*out = NULL;
		return 0;
	}
	if (v->type != JSON_STRING)
		return bad(err, path, key, "must be a string");
	if (json_str(v) == NULL)
		return bad(err, path, key, "contains a NUL byte");
	*out = json_str(v);
	return 0;
}

static int read_int(const json *o, const char *path, const char *key, bool *present, long long *out,
		    cnirt_error **err)
{
	const json *v = member(o, key);
	*present = v != NULL;
	if (v == NULL)
		return 0;
	if (v->type != JSON_NUMBER || !integer_text(v->u.number, out))
		return bad(err, path, key, "must be an integer");
	return 0;
}

/* An optional IP address; family 0: either. */
static int read_addr(const json *o, const char *path, const char *key, int family, bool *present,
		     struct addr *out, cnirt_error **err)
{
	const char *s;
	if (read_string(o, path, key, false, &s, err) < 0)
		return -1;
	*present = s != NULL;
	if (s == NULL)
		return 0;
	if (!addr_parse(s, out, NULL))
		return bad(err, path, key, "\"%s\" is not an IP address", s);
	if (family && out->family != family)
		return bad(err, path, key, "\"%s\" is not an IPv%d address", s, family);
	return 0;
}

/* A required CIDR; family 0: either. */
static int read_cidr(const json *o, const char *path, const char *key, int family, struct cidr *out,
		     cnirt_error **err)
{
	const char *s;
	if (read_string(o, path, key, true, &s, err) < 0)
		return -1;
	if (!cidr_parse(s, out))
		return bad(err, path, key, "\"%s\" is not a CIDR", s);
	if (family && out->ip.family != family)
		return bad(err, path, key, "\"%s\" is not an IPv%d CIDR", s, family);
	return 0;
}

static int read_extras(const json *o, const char *path, const struct extra_field *f, size_t n,
		       const json **out, cnirt_error **err)
{
	for (size_t i = 0; i < n; i++) {
		const json *v = member(o, f[i].key);
		long long ignored;
		if (v && f[i].integer &&
		    (v->type != JSON_NUMBER || !integer_text(v->u.number, &ignored)))
			return bad(err, path, f[i].key, "must be an integer");
		if (v && !f[i].integer && json_str(v) == NULL)
			return bad(err, path, f[i].key, "must be a string");
		out[i] = v;
	}
	return 0;
}

/* An optional array member; its length in *n. */
static int read_array(const json *o, const char *path, const char *key, const json **out,
		      cnirt_error **err)
{
	const json *v = member(o, key);
	if (v && v->type != JSON_ARRAY)
		return bad(err, path, key, "must be an array");
	*out = v;
	return 0;
}

static int read_string_list(const json *o, const char *path, const char *key, const json **out,
			    cnirt_error **err)
{
	const json *a = NULL;
	if (read_array(o, path, key, &a, err) < 0)
		return -1;
	for (size_t i = 0; a && i < a->u.array.n; i++) {
		if (json_str(a->u.array.v[i]) == NULL) {
			_cleanup_free_ char *p = xasprintf("%s.%s[%zu]", path, key, i);
			return bad(err, p, NULL, "must be a string");
		}
	}
	*out = a;
	return 0;
}

static int read_dns(const json *r, struct r_dns *dns, cnirt_error **err)
{
	const json *d = member(r, "dns");
	*dns = (struct r_dns){0};
	if (d == NULL)
		return 0;
	if (d->type != JSON_OBJECT)
		return bad(err, "", "dns", "must be an object");
	if (read_string_list(d, "dns", "nameservers", &dns->nameservers, err) < 0 ||
	    read_string(d, "dns", "domain", false, &dns->domain, err) < 0 ||
	    read_string_list(d, "dns", "search", &dns->search, err) < 0 ||
	    read_string_list(d, "dns", "options", &dns->options, err) < 0)
		return -1;
	return 0;
}

/* The routes of o[key] appended to r->routes. family 0: either (else the
 * family of ip4/ip6 they belong to). Before 1.0.0 the spec wants every
 * address of a route in one family. */
static int read_routes(const json *o, const char *path, const char *key, int family,
		       struct result *r, cnirt_error **err)
{
	const json *a = NULL;
	if (read_array(o, path, key, &a, err) < 0)
		return -1;
	if (a == NULL)
		return 0;
	r->routes = xreallocarray(r->routes, r->n_routes + a->u.array.n, sizeof(*r->routes));
	for (size_t i = 0; i < a->u.array.n; i++) {
		const json *v = a->u.array.v[i];
		_cleanup_free_ char *p =
		    *path ? xasprintf("%s.%s[%zu]", path, key, i) : xasprintf("%s[%zu]", key, i);
		struct r_route rt = {0};
		if (v->type != JSON_OBJECT)
			return bad(err, p, NULL, "must be an object");
		if (read_cidr(v, p, "dst", family, &rt.dst, err) < 0)
			return -1;
		int gw_family = r->layout == LAYOUT_100 ? 0 : rt.dst.ip.family;
		if (read_addr(v, p, "gw", gw_family, &rt.has_gw, &rt.gw, err) < 0)
			return -1;
		if (r->layout == LAYOUT_100 &&
		    read_extras(v, p, route_extras, ARRAY_SIZE(route_extras), rt.extra, err) < 0)
			return -1;
		r->routes[r->n_routes++] = rt;
	}
	return 0;
}

/* 0.1.0/0.2.0 "ip4" or "ip6". */
static int read_ipconfig(const json *o, const char *key, int family, struct result *r,
			 cnirt_error **err)
{
	const json *c = member(o, key);
	if (c == NULL)
		return 0;
	if (c->type != JSON_OBJECT)
		return bad(err, "", key, "must be an object");
	struct r_ip ip = {0};
	if (read_cidr(c, key, "ip", family, &ip.address, err) < 0 ||
	    read_addr(c, key, "gateway", family, &ip.has_gateway, &ip.gateway, err) < 0)
		return -1;
	r->ips = xreallocarray(r->ips, r->n_ips + 1, sizeof(*r->ips));
	r->ips[r->n_ips++] = ip;
	return read_routes(c, key, "routes", family, r, err);
}

static int read_interfaces(const json *o, struct result *r, cnirt_error **err)
{
	const json *a = NULL;
	if (read_array(o, "", "interfaces", &a, err) < 0)
		return -1;
	if (a == NULL)
		return 0;
	r->ifaces = xcalloc(a->u.array.n, sizeof(*r->ifaces));
	for (size_t i = 0; i < a->u.array.n; i++) {
		const json *v = a->u.array.v[i];
		struct r_iface *f = &r->ifaces[i];
		_cleanup_free_ char *p = xasprintf("interfaces[%zu]", i);
		if (v->type != JSON_OBJECT)
			return bad(err, p, NULL, "must be an object");
		if (read_string(v, p, "name", true, &f->name, err) < 0 ||
		    read_string(v, p, "mac", false, &f->mac, err) < 0 ||
		    read_string(v, p, "sandbox", false, &f->sandbox, err) < 0)
			return -1;
		if (r->layout == LAYOUT_100 &&
		    read_extras(v, p, iface_extras, ARRAY_SIZE(iface_extras), f->extra, err) < 0)
			return -1;
		r->n_ifaces++;
	}
	return 0;
}

static int read_ip(const json *v, const char *p, struct result *r, struct r_ip *ip,
		   cnirt_error **err)
{
	if (v->type != JSON_OBJECT)
		return bad(err, p, NULL, "must be an object");
	if (read_cidr(v, p, "address", 0, &ip->address, err) < 0)
		return -1;
	int family = 0;
	if (r->layout == LAYOUT_040) {
		/* 0.4.0: "version": either "4" or "6" [...] All IP addresses and
		 * gateways provided must be valid for the given version. */
		const char *version;
		if (read_string(v, p, "version", true, &version, err) < 0)
			return -1;
		if (strcmp(version, "4") != 0 && strcmp(version, "6") != 0)
			return bad(err, p, "version", "\"%s\" is not \"4\" or \"6\"", version);
		family = version[0] - '0';
		if (ip->address.ip.family != family)
			return bad(err, p, "version", "\"%s\" does not match address \"%s\"",
				   version, json_str(json_obj_get(v, "address")));
	}
	if (read_addr(v, p, "gateway", family, &ip->has_gateway, &ip->gateway, err) < 0 ||
	    read_int(v, p, "interface", &ip->has_interface, &ip->interface, err) < 0)
		return -1;
	if (ip->has_interface && (ip->interface < 0 || (size_t)ip->interface >= r->n_ifaces))
		return bad(err, p, "interface", "index %lld is out of range (%zu interface%s)",
			   ip->interface, r->n_ifaces, r->n_ifaces == 1 ? "" : "s");
	return 0;
}

static int read_ips(const json *o, struct result *r, cnirt_error **err)
{
	const json *a = NULL;
	if (read_array(o, "", "ips", &a, err) < 0)
		return -1;
	if (a == NULL)
		return 0;
	r->ips = xcalloc(a->u.array.n, sizeof(*r->ips));
	for (size_t i = 0; i < a->u.array.n; i++) {
		_cleanup_free_ char *p = xasprintf("ips[%zu]", i);
		if (read_ip(a->u.array.v[i], p, r, &r->ips[i], err) < 0)
			return -1;
		r->n_ips++;
	}
	return 0;
}

static int result_read(const json *j, struct result *r, cnirt_error **err)
{
	if (j == NULL || j->type != JSON_OBJECT)
		return error_set(err, CNIRT_ERR_DECODE, "result: must be a JSON object");
	const char *version;
	if (read_string(j, "", "cniVersion", true, &version, err) < 0)
		return -1;
	int layout = layout_of(version);
	if (layout < 0)
		return error_set(err, CNIRT_ERR_INCOMPATIBLE_VERSION,
				 "cniVersion: unsupported result version \"%s\"", version);
	r->layout = (enum layout)layout;
	if (r->layout == LAYOUT_020) {
		if (read_ipconfig(j, "ip4", 4, r, err) < 0 ||
		    read_ipconfig(j, "ip6", 6, r, err) < 0)
			return -1;
	} else {
		if (read_interfaces(j, r, err) < 0 || read_ips(j, r, err) < 0 ||
		    read_routes(j, "", "routes", 0, r, err) < 0)
			return -1;
	}
	return read_dns(j, &r->dns, err);
}

int result_validate(const json *j, cnirt_error **err)
{
	_cleanup_(result_release) struct result r = {0};
	return result_read(j, &r, err);
}

/* -------------------------------------------------------------- writing */

static void set_string(json *o, const char *key, const char *s)
{
	json_obj_set(o, key, json_new_string(s));
}

static void set_addr(json *o, const char *key, const struct addr *a)
{
	_cleanup_free_ char *s = addr_format(a);
	set_string(o, key, s);
}

static void set_cidr(json *o, const char *key, const struct cidr *c)
{
	_cleanup_free_ char *s = cidr_format(c);
	set_string(o, key, s);
}

static void set_extras(json *o, const struct extra_field *f, size_t n, const json *const *v)
{
	for (size_t i = 0; i < n; i++)
		if (v[i])
			json_obj_set(o, f[i].key, json_dup(v[i]));
}

/* Empty lists and strings are left out, as the reference does. */
static json *dns_json(const struct r_dns *d)
{
	json *o = json_new(JSON_OBJECT);
	if (d->nameservers && d->nameservers->u.array.n)
		json_obj_set(o, "nameservers", json_dup(d->nameservers));
	if (d->domain && *d->domain)
		set_string(o, "domain", d->domain);
	if (d->search && d->search->u.array.n)
		json_obj_set(o, "search", json_dup(d->search));
	if (d->options && d->options->u.array.n)
		json_obj_set(o, "options", json_dup(d->options));
	return o;
}

static json *route_json(const struct r_route *rt, bool extras)
{
	json *o = json_new(JSON_OBJECT);
	set_cidr(o, "dst", &rt->dst);
	if (rt->has_gw)
		set_addr(o, "gw", &rt->gw);
	if (extras)
		set_extras(o, route_extras, ARRAY_SIZE(route_extras), rt->extra);
	return o;
}

/* "ip4"/"ip6" of 0.1.0/0.2.0: the address, and the routes of its family. */
/* Before 1.0.0 every address of a route is of one family (SPEC-0.4.0
 * "Routes"); 1.0.0 dropped the rule. A route via a next hop of the other
 * family cannot be written in an older version: it is left out. */
static bool route_fits(const struct r_route *rt, enum layout to)
{
	return to == LAYOUT_100 || !rt->has_gw || rt->gw.family == rt->dst.ip.family;
}

/* The same for an address's gateway: one of the other family cannot be
 * written before 1.0.0, and is left out. */
static bool gateway_fits(const struct r_ip *ip, enum layout to)
{
	return ip->has_gateway && (to == LAYOUT_100 || ip->gateway.family == ip->address.ip.family);
}

static json *ipconfig_json(const struct result *r, const struct r_ip *ip)
{
	json *o = json_new(JSON_OBJECT);
	set_cidr(o, "ip", &ip->address);
	if (gateway_fits(ip, LAYOUT_020))
		set_addr(o, "gateway", &ip->gateway);
	json *routes = json_new(JSON_ARRAY);
	for (size_t i = 0; i < r->n_routes; i++)
		if (r->routes[i].dst.ip.family == ip->address.ip.family &&
		    route_fits(&r->routes[i], LAYOUT_020))
			json_arr_append(routes, route_json(&r->routes[i], false));
	if (routes->u.array.n)
		json_obj_set(o, "routes", routes);
	else
		json_free(routes);
	return o;
}

/* 0.1.0/0.2.0 hold one address of each family: the first of each. */
static int write_020(const struct result *r, json *o, cnirt_error **err)
{
	const struct r_ip *ip4 = NULL, *ip6 = NULL;
	for (size_t i = 0; i < r->n_ips; i++) {
		const struct r_ip *ip = &r->ips[i];
		if (ip->address.ip.family == 4 && ip4 == NULL)
			ip4 = ip;
		else if (ip->address.ip.family == 6 && ip6 == NULL)
			ip6 = ip;
	}
	/* A 0.1.0/0.2.0 result without addresses stays as it is; a later
	 * one cannot become one (the reference's rule). */
	if (ip4 == NULL && ip6 == NULL && r->layout != LAYOUT_020)
		return error_set(err, CNIRT_ERR_INCOMPATIBLE_VERSION,
				 "cannot convert: no valid IP addresses");
	if (ip4)
		json_obj_set(o, "ip4", ipconfig_json(r, ip4));
	if (ip6)
		json_obj_set(o, "ip6", ipconfig_json(r, ip6));
	return 0;
}

static void write_040_100(const struct result *r, enum layout to, json *o)
{
	bool extras = to == LAYOUT_100 && r->layout == LAYOUT_100;
	if (r->n_ifaces) {
		json *a = json_new(JSON_ARRAY);
		for (size_t i = 0; i < r->n_ifaces; i++) {
			const struct r_iface *f = &r->ifaces[i];
			json *v = json_new(JSON_OBJECT);
			set_string(v, "name", f->name);
			if (f->mac && *f->mac)
				set_string(v, "mac", f->mac);
			if (f->sandbox && *f->sandbox)
				set_string(v, "sandbox", f->sandbox);
			if (extras)
				set_extras(v, iface_extras, ARRAY_SIZE(iface_extras), f->extra);
			json_arr_append(a, v);
		}
		json_obj_set(o, "interfaces", a);
	}
	if (r->n_ips) {
		json *a = json_new(JSON_ARRAY);
		for (size_t i = 0; i < r->n_ips; i++) {
			const struct r_ip *ip = &r->ips[i];
			json *v = json_new(JSON_OBJECT);
			if (to == LAYOUT_040)
				set_string(v, "version", ip->address.ip.family == 4 ? "4" : "6");
			if (ip->has_interface)
				json_obj_set(v, "interface", json_new_int(ip->interface));
			set_cidr(v, "address", &ip->address);
			if (gateway_fits(ip, to))
				set_addr(v, "gateway", &ip->gateway);
			json_arr_append(a, v);
		}
		json_obj_set(o, "ips", a);
	}
	json *routes = json_new(JSON_ARRAY);
	for (size_t i = 0; i < r->n_routes; i++)
		if (route_fits(&r->routes[i], to))
			json_arr_append(routes, route_json(&r->routes[i], extras));
	if (routes->u.array.n)
		json_obj_set(o, "routes", routes);
	else
		json_free(routes);
}

int result_convert(const json *j, const char *to_version, json **out, cnirt_error **err)
{
	_cleanup_(result_release) struct result r = {0};
	if (result_read(j, &r, err) < 0)
		return -1;
	int to = layout_of(to_version);
	if (to < 0)
		return error_set(err, CNIRT_ERR_INCOMPATIBLE_VERSION,
				 "cannot convert a result to unsupported version \"%s\"",
				 to_version ? to_version : "");
	_cleanup_json_ json *o = json_new(JSON_OBJECT);
	set_string(o, "cniVersion", to_version);
	if (to == LAYOUT_020) {
		if (write_020(&r, o, err) < 0)
			return -1;
	} else {
		write_040_100(&r, (enum layout)to, o);
	}
	json_obj_set(o, "dns", dns_json(&r.dns));
	*out = TAKE_PTR(o);
	return 0;
}

/* ---------------------------------------------------------------- error */

int result_parse_error(const char *buf, size_t len, int *code, char **msg, char **details)
{
	_cleanup_json_ json *j = NULL;
	_cleanup_error_ cnirt_error *e = NULL;
	if (json_read_parse(buf, len, "error result", &j, &e) < 0 || j->type != JSON_OBJECT)
		return -1;
	/* Spec section 5, "Error": code is a number (the reference: unsigned). */
	const json *c = json_obj_get(j, "code");
	long long v;
	if (c == NULL || c->type != JSON_NUMBER || !integer_text(c->u.number, &v) || v < 0 ||
	    v > INT_MAX)
		return -1;
	const char *m = json_str(json_obj_get(j, "msg"));
	const char *d = json_str(json_obj_get(j, "details"));
	if (code)
		*code = (int)v;
	if (msg)
		*msg = m ? xstrdup(m) : NULL;
	if (details)
		*details = d && *d ? xstrdup(d) : NULL;
	return 0;
}

/* --------------------------------------------------------------- public */

CNIRT_EXPORT int cnirt_result_validate(const char *text, size_t len, cnirt_error **err)
{
	ERR_OUT_INIT(err);
	_cleanup_json_ json *j = NULL;
	if (json_read_parse(text, len, "result", &j, err) < 0)
		return -1;
	return result_validate(j, err);
}

CNIRT_EXPORT int cnirt_result_convert(const char *text, size_t len, const char *to_version,
				      char **out, cnirt_error **err)
{
	ERR_OUT_INIT(err);
	_cleanup_json_ json *j = NULL;
	_cleanup_json_ json *c = NULL;
	if (json_read_parse(text, len, "result", &j, err) < 0 ||
	    result_convert(j, to_version, &c, err) < 0)
		return -1;
	*out = json_gen(c, false, NULL);
	return 0;
}

CNIRT_EXPORT int cnirt_result_ips(const char *text, size_t len, char ***out, size_t *n,
				  cnirt_error **err)
{
	ERR_OUT_INIT(err);
	_cleanup_json_ json *j = NULL;
	_cleanup_(result_release) struct result r = {0};
	if (json_read_parse(text, len, "result", &j, err) < 0 || result_read(j, &r, err) < 0)
		return -1;
	char **v = xcalloc(r.n_ips + 1, sizeof(*v));
	for (size_t i = 0; i < r.n_ips; i++)
		v[i] = cidr_format(&r.ips[i].address);
	*out = v;
	*n = r.n_ips;
	return 0;
}

CNIRT_EXPORT void cnirt_result_ips_free(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}
