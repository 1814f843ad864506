/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fuzz target: the container's annotations (hook/request/annotations.c and the
 * files it reads them with, annotations_parse; hook/request/plugin-args.c,
 * plugin_args_build).
 *
 * Input: one flags byte, then annotations as NUL-separated fields
 * KEY\0VALUE\0KEY\0VALUE... (a last key without a value gets "").
 * Flags: bits 0-4 say which capabilities the networks' chains declare
 * (portMappings, mac, ips, bandwidth, infinibandGUID); bits 5-6 the number
 * of default networks (0 to 3); bit 7 unset: a container id is given.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "request/annotations.h"
#include "request/plugin-args.h"
#include "cnirt.h"
#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ANNOTATIONS 64

static const char *const caps[] = {"portMappings", "mac", "ips", "bandwidth", "infinibandGUID"};
static char *const defaults[] = {(char *)"default", (char *)"net-b", (char *)"c.3"};

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "fuzz_annotations: invariant broken: %s\n", #cond);        \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

static bool has_cap(void *data, const char *cap)
{
	unsigned flags = *(const unsigned *)data;
	for (size_t i = 0; i < ARRAY_SIZE(caps); i++)
		if (strcmp(cap, caps[i]) == 0)
			return flags & (1u << i);
	CHECK(!"unknown capability asked");
	return false;
}

/* JSON text the hook wrote itself: must parse, and be of the given type. */
static void check_json(const char *text, enum json_type type)
{
	json *v = NULL;
	char *err = NULL;
	if (json_parse_with(text, strlen(text), "fuzz", &util_json, &v, &err) < 0) {
		fprintf(stderr, "fuzz_annotations: normalised JSON does not parse: %s: %s\n", err,
			text);
		abort();
	}
	CHECK(v->type == type);
	json_free(v);
}

/* CNI_ARGS pairs: plugins split CNI_ARGS at ';' and '='. */
static void check_pairs(const struct kvlist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct kv *p = &l->v[i];
		CHECK(p->key && p->key[0] && p->value);
		CHECK(strpbrk(p->key, ";=") == NULL);
		CHECK(strpbrk(p->value, ";=") == NULL);
	}
}

static void check_selection(const struct selection *s)
{
	cnirt_error *e = NULL;
	for (size_t i = 0; i < s->n; i++) {
		const struct attach_req *r = &s->v[i];
		CHECK(r->network && cnirt_check_network_name(r->network, &e) == 0);
		CHECK(r->ifname && cnirt_check_ifname(r->ifname, &e) == 0);
		for (size_t k = 0; k < i; k++)
			CHECK(strcmp(s->v[k].ifname, r->ifname) != 0);
		for (size_t k = 0; k < r->ports.n; k++) {
			const struct port_mapping *m = &r->ports.v[k];
			CHECK(m->host_port >= 1 && m->host_port <= 65535);
			CHECK(m->container_port >= 1 && m->container_port <= 65535);
			CHECK(strcmp(m->proto, "tcp") == 0 || strcmp(m->proto, "udp") == 0 ||
			      strcmp(m->proto, "sctp") == 0);
		}
		if (r->ports.n) {
			_cleanup_free_ char *text = port_mappings_json_text(&r->ports);
			check_json(text, JSON_ARRAY);
		}
		if (r->bandwidth)
			check_json(r->bandwidth, JSON_OBJECT);
		if (r->cni_args)
			check_json(r->cni_args, JSON_OBJECT);
		for (size_t k = 0; k < r->n_ips; k++)
			CHECK(r->ips[k] && r->ips[k][0]);
	}
	check_pairs(&s->args);
	check_pairs(&s->pod);
	CHECK(s->netns == NULL || s->netns[0] == '/');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	unsigned flags = data[0];
	size_t n_default = (flags >> 5) & 3;
	const char *cid = (flags & 0x80) ? NULL : "0123456789abcdef";

	/* Copy so that every field is NUL terminated. */
	char *text = xmalloc(size);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	const char *fields[2 * MAX_ANNOTATIONS];
	size_t n_fields = 0;
	for (const char *p = text; p < text + size && n_fields < ARRAY_SIZE(fields);
	     p += strlen(p) + 1)
		fields[n_fields++] = p;
	/* A trailing empty field is the terminator of the last one. */
	if (n_fields > 0 && n_fields % 2 == 1 && fields[n_fields - 1][0] == '\0' && size > 1 &&
	    text[size - 2] == '\0')
		n_fields--;
	struct kv pairs[MAX_ANNOTATIONS];
	struct kvlist ann = {pairs, 0};
	for (size_t i = 0; i < n_fields; i += 2, ann.n++) {
		pairs[ann.n].key = (char *)fields[i];
		pairs[ann.n].value = (char *)(i + 1 < n_fields ? fields[i + 1] : "");
	}

	const struct container_defaults d = {defaults, n_default, cid};
	struct selection s;
	char *err = NULL;
	if (annotations_parse(&ann, &d, &s, &err) < 0) {
		CHECK(err && err[0]);
		free(err);
		free(text);
		return 0;
	}
	CHECK(err == NULL);
	check_selection(&s);

	unsigned capflags = flags & 0x1f;
	for (size_t i = 0; i <= s.n; i++) {
		char *cap_args = NULL;
		struct kvlist args = {0};
		if (plugin_args_build(&s, i, has_cap, &capflags, &cap_args, &args, &err) < 0) {
			CHECK(err && err[0]);
			free(err);
			err = NULL;
			continue;
		}
		CHECK(i < s.n);
		if (cap_args)
			check_json(cap_args, JSON_OBJECT);
		CHECK(args.n >= 1);
		check_pairs(&args);
		free(cap_args);
		kvlist_free(&args);
	}
	annotations_selection_free(&s);
	free(text);
	return 0;
}
