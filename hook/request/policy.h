/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The administrator's policy over what annotations may ask (the `policy`
 * object of cnihook.json(5)), enforced before any plugin runs. Every refusal
 * names the annotation, the value and the policy rule.
 */
#ifndef CNIHOOK_REQUEST_POLICY_H
#define CNIHOOK_REQUEST_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include "json.h"

#include "base/util.h"
#include "request/annotations.h"

/* Fields an annotation may set (policy.allowedFields). */
enum {
	POLICY_PORT_MAPPINGS = 1 << 0, /* "portMappings" */
	POLICY_MAC = 1 << 1,	       /* "mac" */
	POLICY_IPS = 1 << 2,	       /* "ips" */
	POLICY_BANDWIDTH = 1 << 3,     /* "bandwidth" */
	POLICY_ARGS = 1 << 4,	       /* "args": io.cnihook.args and NPWG cni-args */
	POLICY_IB_GUID = 1 << 5,       /* "infinibandGUID" */
	POLICY_NETNS = 1 << 6,	       /* "netns": io.cnihook.netns */
	POLICY_DNS = 1 << 7,	       /* "dns": io.cnihook.dns and its overrides */
};

struct policy {
	char **networks; /* policy.networks: names or globs (fnmatch) annotations may select;
			    default ["*"] */
	size_t n_networks;
	unsigned allowed_fields; /* policy.allowedFields; default all but POLICY_NETNS */
	unsigned host_port_min;	 /* policy.hostPortRange [min, max]; default 1024-65535 */
	unsigned host_port_max;
	char **host_ips; /* policy.hostIPs: allowed hostIP of port mappings; default [] = any */
	size_t n_host_ips;
	char **netns_prefixes; /* policy.netnsPrefixes: allowed io.cnihook.netns directories;
				  default [] */
	size_t n_netns_prefixes;
	unsigned max_attachments; /* policy.maxAttachments; default 8 */
	size_t max_annotation;	  /* policy.maxAnnotationSize (bytes); default 65536 */
};

/* The largest values policy.maxAttachments and policy.maxAnnotationSize
 * take (cnihook.json(5)): the bounds of what any caller of the annotation
 * parser may be given, whatever the policy says. Defined here only. */
#define POLICY_MAX_ATTACHMENTS	   32
#define POLICY_MAX_ANNOTATION_SIZE (1024 * 1024)

void policy_defaults(struct policy *p);
/* Parse cnihook.json's "policy" object (v may be NULL: defaults). Errors
 * name the field: `<path>: field "policy.hostPortRange": ...`. */
int policy_parse(const json *v, const char *path, struct policy *out, char **err);
void policy_free(struct policy *p);
/* Before the annotations are parsed: the size of every annotation cnihook
 * reads against maxAnnotationSize. */
int policy_check_annotations(const struct policy *p, const struct kvlist *ann, char **err);
/* After: the selection (networks, fields, ports, host IPs, netns, count). */
int policy_check_selection(const struct policy *p, const struct selection *s, char **err);
/* The same, naming in refusals the annotation that set each refused value
 * (ann: the annotations the selection was parsed from). */
int policy_check_selection_ann(const struct policy *p, const struct selection *s,
			       const struct kvlist *ann, char **err);

#endif
