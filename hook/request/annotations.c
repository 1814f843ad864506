/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The container's annotations (cnihook-annotations(7)): the networks to
 * attach (Network Plumbing WG selection, JSON or short form), the single
 * attachment keys io.cnihook.{ports,mac,ips,bandwidth}, CNI_ARGS pairs, the
 * netns override and the Kubernetes engines' pod annotations.
 *
 * Everything here is input written by whoever made the container: every
 * byte is checked, and a refusal reads `annotation "KEY": problem`. Helpers
 * report a problem without the annotation (char **problem); the function
 * that knows the annotation puts it in front (annotation-value.h). What an
 * annotation holds is read by the file of its concept: port mappings
 * (port-mappings.c), names and addresses (addresses.c), bandwidth (bandwidth.c),
 * CNI_ARGS pairs (cni-args.c), the Kubernetes pod keys (kube-pod.c); what an
 * attachment gives its plugins is plugin-args.c's.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/sha512.h"
#include "base/suggest.h"
#include "request/addresses.h"
#include "request/annotation-value.h"
#include "request/annotations.h"
#include "request/bandwidth.h"
#include "request/plugin-args.h"
#include "request/cni-args.h"
#include "request/kube-pod.h"
#include "request/policy.h"
#include "request/port-mappings.h"

/* Refused above the largest the policy may allow (policy.h): the policy's
 * own, smaller, limits are checked before (policy_check_annotations()). */
#define VALUE_LIMIT	POLICY_MAX_ANNOTATION_SIZE
#define MAX_ATTACHMENTS POLICY_MAX_ATTACHMENTS

/* Every annotation cnihook reads (checked for size, encoding, repetition). */
static const char *const known_keys[] = {
    ANN_NPWG_NETWORKS,
    ANN_NETWORKS,
    ANN_PORTS,
    ANN_MAC,
    ANN_IPS,
    ANN_BANDWIDTH,
    ANN_ARGS,
    ANN_NETNS,
    ANN_NAME,
    ANN_DNS,
    ANN_DNS_SERVERS,
    ANN_DNS_SEARCH,
    ANN_DNS_OPTIONS,
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
    OWN_KEY(ANN_NETWORKS),    OWN_KEY(ANN_PORTS),      OWN_KEY(ANN_MAC),
    OWN_KEY(ANN_IPS),	      OWN_KEY(ANN_BANDWIDTH),  OWN_KEY(ANN_ARGS),
    OWN_KEY(ANN_NETNS),	      OWN_KEY(ANN_NAME),       OWN_KEY(ANN_DNS),
    OWN_KEY(ANN_DNS_SERVERS), OWN_KEY(ANN_DNS_SEARCH), OWN_KEY(ANN_DNS_OPTIONS),
};

/* ------------------------------------------------------------ the selection */

static void attach_req_free(struct attach_req *r)
{
	free(r->network);
	free(r->ns);
	free(r->ifname);
	strv_free(r->ips, r->n_ips);
	free(r->mac);
	port_mappings_free(&r->ports);
	free(r->bandwidth);
	free(r->ib_guid);
	free(r->cni_args);
	strv_free(r->default_route, r->n_default_route);
	memset(r, 0, sizeof(*r));
}

void annotations_selection_free(struct selection *s)
{
	if (s == NULL)
		return;
	for (size_t i = 0; i < s->n; i++)
		attach_req_free(&s->v[i]);
	free(s->v);
	kvlist_free(&s->args);
	kvlist_free(&s->pod);
	free(s->netns);
	free(s->name);
	free(s->pod_id);
	names_request_free(&s->names);
	memset(s, 0, sizeof(*s));
}

static struct attach_req *selection_add(struct selection *s)
{
	s->v = xreallocarray(s->v, s->n + 1, sizeof(*s->v));
	memset(&s->v[s->n], 0, sizeof(*s->v));
	return &s->v[s->n++];
}

/* The fields of an NPWG network selection element. */
static const char *const element_fields[] = {
    "name",	    "namespace", "interface", "ips",	       "mac", "infiniband-guid",
    "portMappings", "bandwidth", "cni-args",  "default-route",
};

/* A string field, checked by check() and kept as it is, or normalised by
 * parse(), into *dst. */
static int string_field(const char *k, const json *v, int (*check)(const char *, char **),
			int (*parse)(const char *, char **, char **), char **dst, char **problem)
{
	const char *s = NULL;
	if (annotation_value_json_string(v, k, &s, problem) < 0)
		return -1;
	if (check ? check(s, problem) < 0 : parse(s, dst, problem) < 0) {
		_cleanup_free_ char *where = xasprintf("field \"%s\"", k);
		return annotation_value_prefix(problem, where);
	}
	if (check)
		*dst = xstrdup(s);
	return 0;
}

/* Member k (value v) of a network selection element, into r. */
static int element_field(const char *k, const json *v, struct attach_req *r, char **problem)
{
	if (strcmp(k, "name") == 0)
		return string_field(k, v, addresses_check_network, NULL, &r->network, problem);
	if (strcmp(k, "namespace") == 0)
		return string_field(k, v, addresses_check_k8s_namespace, NULL, &r->ns, problem);
	if (strcmp(k, "interface") == 0)
		return string_field(k, v, addresses_check_ifname, NULL, &r->ifname, problem);
	if (strcmp(k, "mac") == 0)
		return string_field(k, v, NULL, addresses_parse_mac, &r->mac, problem);
	if (strcmp(k, "infiniband-guid") == 0)
		return string_field(k, v, NULL, addresses_parse_guid, &r->ib_guid, problem);
	/* v1.2: "ips" may hold addresses with or without a prefix. */
	if (strcmp(k, "ips") == 0)
		return addresses_ip_list_from_json(v, k, IP_OR_CIDR, &r->ips, &r->n_ips, problem);
	if (strcmp(k, "default-route") == 0)
		return addresses_ip_list_from_json(v, k, IP_ONLY, &r->default_route,
						   &r->n_default_route, problem);
	if (strcmp(k, "portMappings") == 0)
		return port_mappings_from_json(v, &r->ports, problem) < 0
			   ? annotation_value_prefix(problem, "field \"portMappings\"")
			   : 0;
	if (strcmp(k, "bandwidth") == 0)
		return bandwidth_from_json(v, &r->bandwidth, problem) < 0
			   ? annotation_value_prefix(problem, "field \"bandwidth\"")
			   : 0;
	if (strcmp(k, "cni-args") == 0) {
		if (!json_is_object(v))
			return error_set(problem, "field \"cni-args\": is %s, expected an object",
					 json_type_name(v));
		r->cni_args = json_gen(v, false, NULL);
		return 0;
	}
	return annotation_value_unknown_field(problem, k, element_fields,
					      ARRAY_SIZE(element_fields));
}

/* One NPWG network selection element (the de-facto standard v1.2,
 * section 4.1.2.1), into r. */
static int element_from_json(const json *o, struct attach_req *r, char **problem)
{
	if (!json_is_object(o))
		return error_set(problem, "is %s, expected an object", json_type_name(o));
	for (size_t i = 0; i < o->u.object.n; i++)
		if (element_field(o->u.object.k[i], o->u.object.v[i], r, problem) < 0)
			return -1;
	if (r->network == NULL)
		return error_set(problem, "field \"name\" is missing");
	return 0;
}

static int selection_from_json(const char *value, struct selection *s, char **problem)
{
	_cleanup_json_ json *top = NULL;
	if (annotation_value_json(value, &top, problem) < 0)
		return -1;
	if (!json_is_array(top))
		return error_set(problem, "is %s, expected a list of networks",
				 json_type_name(top));
	if (top->u.array.n > MAX_ATTACHMENTS)
		return error_set(problem, "%zu networks requested, at most %d", top->u.array.n,
				 MAX_ATTACHMENTS);
	for (size_t i = 0; i < top->u.array.n; i++) {
		struct attach_req *r = selection_add(s);
		if (element_from_json(top->u.array.v[i], r, problem) < 0) {
			_cleanup_free_ char *where = xasprintf("element %zu", i + 1);
			return annotation_value_prefix(problem, where);
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
		if (addresses_check_k8s_namespace(left, problem) < 0)
			return -1;
		r->ns = xstrdup(left);
		name = slash + 1;
	}
	if (addresses_check_network(name, problem) < 0)
		return -1;
	r->network = xstrdup(name);
	if (at) {
		if (addresses_check_ifname(at + 1, problem) < 0)
			return -1;
		r->ifname = xstrdup(at + 1);
	}
	return 0;
}

static int selection_from_string(const char *value, struct selection *s, char **problem)
{
	char **items = NULL;
	size_t n = 0;
	if (annotation_value_split(value, ',', &items, &n, problem) < 0)
		return -1;
	int rc = 0;
	if (n > MAX_ATTACHMENTS)
		rc = error_set(problem, "%zu networks requested, at most %d", n, MAX_ATTACHMENTS);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		struct attach_req *r = selection_add(s);
		if (element_from_string(items[i], r, problem) < 0) {
			_cleanup_free_ char *text = error_shown(items[i]);
			_cleanup_free_ char *where = xasprintf("\"%s\"", text);
			rc = annotation_value_prefix(problem, where);
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
				return error_set(problem, "interface \"%s\" is requested twice",
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
				s->v[i].ifname_chosen = true;
				break;
			}
		}
	}
	return 0;
}

/* ------------------------------------------------------------ the annotations */

/* Every io.cnihook.* key is one of own_keys: a misspelt key would be
 * ignored, and the container would start without what it asked for. */
static int check_own_keys(const struct kvlist *ann, char **err)
{
	const size_t plen = strlen(ANN_PREFIX);
	for (size_t i = 0; i < ann->n; i++) {
		const char *k = ann->v[i].key;
		if (k == NULL || strncasecmp(k, ANN_PREFIX, plen) != 0)
			continue;
		bool known = false;
		for (size_t j = 0; j < ARRAY_SIZE(own_keys) && !known; j++)
			known =
			    strncmp(k, ANN_PREFIX, plen) == 0 && strcmp(k + plen, own_keys[j]) == 0;
		if (known)
			continue;
		_cleanup_free_ char *text = error_shown(k);
		_cleanup_free_ char *what = xasprintf("annotation \"%s\": unknown key", text);
		*err = suggest_unknown(what, k, ANN_PREFIX, own_keys, ARRAY_SIZE(own_keys));
		return -1;
	}
	return 0;
}

static int check_values(const struct kvlist *ann, char **err)
{
	for (size_t k = 0; k < ARRAY_SIZE(known_keys); k++) {
		const char *key = known_keys[k];
		const char *value = NULL;
		for (size_t i = 0; i < ann->n; i++) {
			const struct kv *a = &ann->v[i];
			if (a->key == NULL || strcmp(a->key, key) != 0)
				continue;
			if (value)
				return annotation_value_fail(err, key, xstrdup("given twice"));
			value = a->value ? a->value : "";
		}
		if (value == NULL)
			continue;
		size_t len = strlen(value);
		if (len > VALUE_LIMIT)
			return annotation_value_fail(
			    err, key,
			    xasprintf("value of %zu bytes, more than the %d allowed", len,
				      VALUE_LIMIT));
		long bad = text_utf8_invalid_at(value, len);
		if (bad >= 0)
			return annotation_value_fail(err, key,
						     xasprintf("not valid UTF-8 (byte %ld)", bad));
	}
	return 0;
}

static int parse_selection(const struct kvlist *ann, char *const *defaults, size_t n_default,
			   struct selection *s, char **err)
{
	const char *npwg = kvlist_get(ann, ANN_NPWG_NETWORKS);
	const char *own = kvlist_get(ann, ANN_NETWORKS);
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
			if (addresses_check_network(defaults[i], &problem) < 0) {
				*err = xasprintf("defaultNetworks: %s", problem);
				free(problem);
				return -1;
			}
			selection_add(s)->network = xstrdup(defaults[i]);
		}
	} else if (*annotation_value_skip_space(value) == '\0') {
		/* Set but empty: no networks (as Multus reads it). */
	} else if (*annotation_value_skip_space(value) == '[' ||
		   *annotation_value_skip_space(value) == '{') {
		if (selection_from_json(value, s, &problem) < 0)
			return annotation_value_fail(err, key, problem);
	} else if (selection_from_string(value, s, &problem) < 0) {
		return annotation_value_fail(err, key, problem);
	}
	return 0;
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
		return annotation_value_fail(
		    err, key,
		    xasprintf("the first network (\"%s\") already has \"%s\" from "
			      "the network selection: set it in one place",
			      s->v[0].network, field));
	*out = &s->v[0];
	return 0;
}

/* io.cnihook.ports: the first attachment's port mappings. */
static int single_ports(const char *value, struct selection *s, char **err)
{
	struct attach_req *r = NULL;
	char *problem = NULL;
	if (first_attachment(s, ANN_PORTS, "portMappings", s->n && s->v[0].ports.n, &r, err) < 0)
		return -1;
	if (port_mappings_from_annotation(value, &r->ports, &problem) < 0)
		return annotation_value_fail(err, ANN_PORTS, problem);
	r->ports_key = ANN_PORTS;
	return 0;
}

/* io.cnihook.mac: the first attachment's MAC address. */
static int single_mac(const char *value, struct selection *s, char **err)
{
	struct attach_req *r = NULL;
	char *problem = NULL;
	if (first_attachment(s, ANN_MAC, "mac", s->n && s->v[0].mac, &r, err) < 0)
		return -1;
	_cleanup_free_ char *t = annotation_value_trimmed(value, strlen(value));
	if (addresses_parse_mac(t, &r->mac, &problem) < 0)
		return annotation_value_fail(err, ANN_MAC, problem);
	return 0;
}

/* io.cnihook.ips: the first attachment's addresses, CIDRs separated by ','. */
static int single_ips(const char *value, struct selection *s, char **err)
{
	struct attach_req *r = NULL;
	char *problem = NULL;
	char **items = NULL;
	size_t k = 0;
	if (first_attachment(s, ANN_IPS, "ips", s->n && s->v[0].n_ips, &r, err) < 0)
		return -1;
	if (annotation_value_split(value, ',', &items, &k, &problem) < 0)
		return annotation_value_fail(err, ANN_IPS, problem);
	for (size_t i = 0; i < k; i++) {
		if (addresses_check_ip(items[i], IP_CIDR, &problem) < 0) {
			strv_free(items, k);
			return annotation_value_fail(err, ANN_IPS, problem);
		}
	}
	r->ips = items;
	r->n_ips = k;
	return 0;
}

/* io.cnihook.bandwidth: the first attachment's bandwidth (JSON). */
static int single_bandwidth(const char *value, struct selection *s, char **err)
{
	struct attach_req *r = NULL;
	char *problem = NULL;
	_cleanup_json_ json *top = NULL;
	if (first_attachment(s, ANN_BANDWIDTH, "bandwidth", s->n && s->v[0].bandwidth, &r, err) < 0)
		return -1;
	if (annotation_value_json(value, &top, &problem) < 0 ||
	    bandwidth_from_json(top, &r->bandwidth, &problem) < 0)
		return annotation_value_fail(err, ANN_BANDWIDTH, problem);
	return 0;
}

/* The keys for the first attachment, in this order. */
static int parse_single_keys(const struct kvlist *ann, struct selection *s, char **err)
{
	static const struct {
		const char *key;
		int (*parse)(const char *value, struct selection *s, char **err);
	} keys[] = {
	    {ANN_PORTS, single_ports},
	    {ANN_MAC, single_mac},
	    {ANN_IPS, single_ips},
	    {ANN_BANDWIDTH, single_bandwidth},
	};
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		const char *value = kvlist_get(ann, keys[i].key);
		if (value && keys[i].parse(value, s, err) < 0)
			return -1;
	}
	return 0;
}

/* io.cnihook.args: CNI_ARGS pairs. */
static int parse_args(const char *value, struct selection *s, char **err)
{
	char *problem = NULL;
	if (cni_args_parse(value, &s->args, &problem) < 0)
		return annotation_value_fail(err, ANN_ARGS, problem);
	return 0;
}

static int parse_netns(const char *value, struct selection *s, char **err)
{
	if (value[0] != '/')
		return annotation_value_fail(err, ANN_NETNS, xstrdup("is not an absolute path"));
	for (const char *p = value; *p; p++)
		if (annotation_value_is_control((unsigned char)*p))
			return annotation_value_fail(err, ANN_NETNS,
						     xstrdup("contains control characters"));
	s->netns = xstrdup(value);
	return 0;
}

/* io.cnihook.name: the container's name for the plugins that take one
 * (plugin-args.h: dnsname), instead of config.json's hostname. */
static int parse_name(const char *value, struct selection *s, char **err)
{
	char *problem = NULL;
	if (plugin_args_check_name(value, &problem) < 0)
		return annotation_value_fail(err, ANN_NAME, problem);
	s->name = xstrdup(value);
	return 0;
}

/* The selection of the annotations with its pod pairs: read from the
 * annotations with d's defaults (a container; pod NULL), or as given (the
 * CNI plugin: pod from CNI_ARGS; d NULL). */
static int parse_all(const struct kvlist *ann, const struct container_defaults *d,
		     const struct kvlist *pod, struct selection *out, char **err)
{
	static const struct container_defaults none = {0};
	struct selection s = {0};
	const char *v;
	bool in_pod = pod != NULL;
	if (d == NULL)
		d = &none;
	if (check_values(ann, err) < 0 ||
	    parse_selection(ann, d->networks, d->n_networks, &s, err) < 0 ||
	    parse_single_keys(ann, &s, err) < 0 ||
	    ((v = kvlist_get(ann, ANN_ARGS)) && parse_args(v, &s, err) < 0) ||
	    ((v = kvlist_get(ann, ANN_NETNS)) && parse_netns(v, &s, err) < 0) ||
	    ((v = kvlist_get(ann, ANN_NAME)) && parse_name(v, &s, err) < 0) ||
	    names_request_parse(ann, &s.names, err) < 0 ||
	    (!in_pod && kube_pod_parse(ann, d->container_id, &s.pod, err) < 0)) {
		annotations_selection_free(&s);
		return -1;
	}
	if (in_pod)
		kvlist_append_all(&s.pod, pod);
	/* In a Kubernetes pod the engine gives eth0 to the cluster network:
	 * the extra networks are net1, net2, ... as with Multus. */
	char *problem = NULL;
	in_pod |= s.pod.n > 0;
	if (assign_ifnames(&s, in_pod ? "net" : "eth", in_pod ? 1 : 0, &problem) < 0) {
		const char *key =
		    kvlist_get(ann, ANN_NPWG_NETWORKS) ? ANN_NPWG_NETWORKS : ANN_NETWORKS;
		annotations_selection_free(&s);
		return annotation_value_fail(err, key, problem);
	}
	*out = s;
	return 0;
}

int annotations_parse(const struct kvlist *ann, const struct container_defaults *d,
		      struct selection *out, char **err)
{
	const char *skip = NULL, *pod_id = NULL;
	if (check_own_keys(ann, err) < 0 || kube_pod_libpod_pod(ann, &pod_id, err) < 0 ||
	    (!pod_id && kube_pod_container_type(ann, &skip, err) < 0))
		return -1;
	if (pod_id && !annotations_select(ann))
		skip = "a member of a podman pod without a network annotation (the pod's "
		       "networks are its annotated members')";
	if (skip) {
		*out = (struct selection){.skip_reason = skip};
		return 0;
	}
	if (parse_all(ann, d, NULL, out, err) < 0)
		return -1;
	out->pod_id = pod_id ? xstrdup(pod_id) : NULL;
	return 0;
}

int annotations_parse_pod(const struct kvlist *ann, const struct kvlist *pod, struct selection *out,
			  char **err)
{
	static const struct kvlist no_pairs = {0};
	if (check_own_keys(ann, err) < 0)
		return -1;
	return parse_all(ann, NULL, pod ? pod : &no_pairs, out, err);
}

static bool asks_networks(const char *key)
{
	return strcmp(key, ANN_NPWG_NETWORKS) == 0 ||
	       strncasecmp(key, ANN_PREFIX, strlen(ANN_PREFIX)) == 0;
}

static int compare_keys(const void *a, const void *b)
{
	return strcmp((*(const struct kv *const *)a)->key, (*(const struct kv *const *)b)->key);
}

char *annotations_request_digest(const struct kvlist *ann)
{
	_cleanup_free_ const struct kv **v = xreallocarray(NULL, ann->n + 1, sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; i < ann->n; i++)
		if (asks_networks(ann->v[i].key))
			v[n++] = &ann->v[i];
	qsort(v, n, sizeof(*v), compare_keys);
	struct buf b = {0};
	for (size_t i = 0; i < n; i++) {
		buf_append(&b, v[i]->key, strlen(v[i]->key) + 1);
		buf_append(&b, v[i]->value, strlen(v[i]->value) + 1);
	}
	uint8_t d[64];
	sha512(b.data ? b.data : "", b.len, d);
	buf_free(&b);
	char *hex = xmalloc(2 * 32 + 1);
	for (size_t i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	return hex;
}

const char *annotations_selected_by(const struct kvlist *ann)
{
	for (size_t i = 0; i < ann->n; i++)
		if (strcmp(ann->v[i].key, ANN_NPWG_NETWORKS) == 0 ||
		    strcmp(ann->v[i].key, ANN_NETWORKS) == 0)
			return ann->v[i].key;
	return NULL;
}

bool annotations_select(const struct kvlist *ann)
{
	for (size_t i = 0; i < ann->n; i++)
		if (asks_networks(ann->v[i].key))
			return true;
	return false;
}
