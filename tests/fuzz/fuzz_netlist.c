/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fuzz target: network configuration lists and single-plugin
 * configurations (lib/conf.c, cnirt_netlist_parse and its accessors), and
 * the execution configuration derived from each plugin (lib/derive.c).
 *
 * Input: the configuration bytes.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "fuzz_netlist: invariant broken: %s\n", #cond);            \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

static const char *const caps[] = {"portMappings",
				   "mac",
				   "ips",
				   "bandwidth",
				   "infinibandGUID",
				   "aliases",
				   "dns",
				   "ipRanges",
				   "cgroupPath",
				   "io.kubernetes.cri.pod-annotations",
				   ""};

/* Capability arguments and a prevResult given to every derivation. */
static const char cap_args_text[] =
    "{\"portMappings\":[{\"hostPort\":8080,\"containerPort\":80,\"protocol\":\"tcp\"}],"
    "\"mac\":\"c2:11:22:33:44:55\",\"ips\":[\"10.1.2.3/24\"],\"bandwidth\":{\"ingressRate\":1},"
    "\"dns\":{\"servers\":[\"10.0.0.1\"]}}";
static const char prev_text[] =
    "{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.1.2.3/24\"}],\"dns\":{}}";
static json *cap_args, *prev_result;

static void check_derived(const cnirt_netlist *l, size_t i, const json *ca, const json *prev)
{
	size_t len = 0;
	_cleanup_free_ char *text = derive_exec_config(l, i, ca, NULL, prev, &len);
	CHECK(text != NULL && strlen(text) == len);
	_cleanup_json_ json *j = NULL;
	_cleanup_error_ cnirt_error *e = NULL;
	if (json_read_parse(text, len, "derived configuration", &j, &e) < 0) {
		fprintf(stderr, "fuzz_netlist: derived configuration does not parse: %s\n%s\n",
			cnirt_error_msg(e), text);
		abort();
	}
	/* Spec section 3: cniVersion and name from the list, no capabilities. */
	CHECK(j->type == JSON_OBJECT);
	CHECK(json_str(json_obj_get(j, "cniVersion")) &&
	      strcmp(json_str(json_obj_get(j, "cniVersion")), cnirt_netlist_version(l)) == 0);
	CHECK(json_str(json_obj_get(j, "name")) &&
	      strcmp(json_str(json_obj_get(j, "name")), cnirt_netlist_name(l)) == 0);
	CHECK(json_str(json_obj_get(j, "type")) &&
	      strcmp(json_str(json_obj_get(j, "type")), cnirt_netlist_plugin_type(l, i)) == 0);
	CHECK(json_obj_get(j, "capabilities") == NULL);
	/* prevResult: the runtime's when it has one, else the plugin
	 * configuration's own if it has one (passed through, as the
	 * reference library does). */
	const json *got = json_obj_get(j, "prevResult");
	if (prev != NULL)
		CHECK(got != NULL && json_equal(got, prev));
	else
		CHECK((got != NULL) == (json_obj_get(l->plugins[i].conf, "prevResult") != NULL));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (cap_args == NULL) {
		cnirt_error *e = NULL;
		if (json_read_parse(cap_args_text, strlen(cap_args_text), "c", &cap_args, &e) < 0 ||
		    json_read_parse(prev_text, strlen(prev_text), "p", &prev_result, &e) < 0)
			abort();
	}

	cnirt_netlist *l = NULL;
	cnirt_error *err = NULL;
	if (cnirt_netlist_parse((const char *)data, size, "fuzz", &l, &err) < 0) {
		CHECK(err != NULL && cnirt_error_msg(err)[0] != '\0');
		CHECK(l == NULL);
		(void)cnirt_error_code(err);
		(void)cnirt_error_details(err);
		cnirt_error_free(err);
		return 0;
	}
	const char *name = cnirt_netlist_name(l);
	const char *version = cnirt_netlist_version(l);
	CHECK(name && cnirt_check_network_name(name, &err) == 0);
	CHECK(version && version_is_supported(version));
	(void)cnirt_netlist_disable_check(l);
	(void)cnirt_netlist_disable_gc(l);
	size_t n = cnirt_netlist_plugin_count(l);
	CHECK(n >= 1);
	CHECK(cnirt_netlist_plugin_type(l, n) == NULL);
	for (size_t i = 0; i < n; i++) {
		const char *type = cnirt_netlist_plugin_type(l, i);
		CHECK(type && type[0] && strchr(type, '/') == NULL);
		for (size_t k = 0; k < ARRAY_SIZE(caps); k++)
			if (cnirt_netlist_plugin_has_capability(l, i, caps[k]))
				CHECK(cnirt_netlist_has_capability(l, caps[k]));
		check_derived(l, i, NULL, NULL);
		check_derived(l, i, cap_args, prev_result);
	}
	CHECK(!cnirt_netlist_plugin_has_capability(l, n, "mac"));
	CHECK(derive_exec_config(l, n, NULL, NULL, NULL, NULL) == NULL);
	CHECK(strcmp(cnirt_netlist_path(l), "fuzz") == 0);

	/* The bytes kept for the cache are a list that loads as the same. */
	size_t len;
	const char *bytes = cnirt_netlist_bytes(l, &len);
	cnirt_netlist *again = NULL;
	if (cnirt_netlist_parse(bytes, len, NULL, &again, &err) < 0) {
		fprintf(stderr, "fuzz_netlist: the list's bytes do not load: %s\n",
			cnirt_error_msg(err));
		abort();
	}
	CHECK(strcmp(cnirt_netlist_name(again), name) == 0);
	CHECK(strcmp(cnirt_netlist_version(again), version) == 0);
	CHECK(cnirt_netlist_plugin_count(again) == n);
	for (size_t i = 0; i < n; i++)
		CHECK(strcmp(cnirt_netlist_plugin_type(again, i),
			     cnirt_netlist_plugin_type(l, i)) == 0);
	size_t len2;
	cnirt_netlist_bytes(again, &len2);
	CHECK(len2 == len);
	CHECK(cnirt_netlist_path(again) == NULL);
	cnirt_netlist_free(again);
	cnirt_netlist_free(l);
	return 0;
}
