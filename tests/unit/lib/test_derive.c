/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of lib/derive.c: spec section 3, "Deriving execution configuration
 * from plugin configuration" and "Deriving runtimeConfig". */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "internal.h"

/*
 * The spec 1.0.0 appendix ("Appendix: Examples"), copied verbatim. The
 * network configuration is the one of section 1, "Example configuration",
 * with its two `//` comments removed (it is JSONC there). The appendix's
 * results of the bridge and tuning plugins are the prevResults.
 */
static const char ADD_BRIDGE_CONF[] =
    "{\n"
    "    \"cniVersion\": \"1.0.0\",\n"
    "    \"name\": \"dbnet\",\n"
    "    \"type\": \"bridge\",\n"
    "    \"bridge\": \"cni0\",\n"
    "    \"keyA\": [\"some more\", \"plugin specific\", \"configuration\"],\n"
    "    \"ipam\": {\n"
    "        \"type\": \"host-local\",\n"
    "        \"subnet\": \"10.1.0.0/16\",\n"
    "        \"gateway\": \"10.1.0.1\"\n"
    "    },\n"
    "    \"dns\": {\n"
    "        \"nameservers\": [ \"10.1.0.1\" ]\n"
    "    }\n"
    "}\n";

static const char BRIDGE_RESULT[] = "{\n"
				    "    \"ips\": [\n"
				    "        {\n"
				    "          \"address\": \"10.1.0.5/16\",\n"
				    "          \"gateway\": \"10.1.0.1\",\n"
				    "          \"interface\": 2\n"
				    "        }\n"
				    "    ],\n"
				    "    \"routes\": [\n"
				    "      {\n"
				    "        \"dst\": \"0.0.0.0/0\"\n"
				    "      }\n"
				    "    ],\n"
				    "    \"interfaces\": [\n"
				    "        {\n"
				    "            \"name\": \"cni0\",\n"
				    "            \"mac\": \"00:11:22:33:44:55\"\n"
				    "        },\n"
				    "        {\n"
				    "            \"name\": \"veth3243\",\n"
				    "            \"mac\": \"55:44:33:22:11:11\"\n"
				    "        },\n"
				    "        {\n"
				    "            \"name\": \"eth0\",\n"
				    "            \"mac\": \"99:88:77:66:55:44\",\n"
				    "            \"sandbox\": \"/var/run/netns/blue\"\n"
				    "        }\n"
				    "    ],\n"
				    "    \"dns\": {\n"
				    "      \"nameservers\": [ \"10.1.0.1\" ]\n"
				    "    }\n"
				    "}\n";

static const char ADD_TUNING_CONF[] = "{\n"
				      "  \"cniVersion\": \"1.0.0\",\n"
				      "  \"name\": \"dbnet\",\n"
				      "  \"type\": \"tuning\",\n"
				      "  \"sysctl\": {\n"
				      "    \"net.core.somaxconn\": \"500\"\n"
				      "  },\n"
				      "  \"runtimeConfig\": {\n"
				      "    \"mac\": \"00:11:22:33:44:66\"\n"
				      "  },\n"
				      "  \"prevResult\": {\n"
				      "    \"ips\": [\n"
				      "        {\n"
				      "          \"address\": \"10.1.0.5/16\",\n"
				      "          \"gateway\": \"10.1.0.1\",\n"
				      "          \"interface\": 2\n"
				      "        }\n"
				      "    ],\n"
				      "    \"routes\": [\n"
				      "      {\n"
				      "        \"dst\": \"0.0.0.0/0\"\n"
				      "      }\n"
				      "    ],\n"
				      "    \"interfaces\": [\n"
				      "        {\n"
				      "            \"name\": \"cni0\",\n"
				      "            \"mac\": \"00:11:22:33:44:55\"\n"
				      "        },\n"
				      "        {\n"
				      "            \"name\": \"veth3243\",\n"
				      "            \"mac\": \"55:44:33:22:11:11\"\n"
				      "        },\n"
				      "        {\n"
				      "            \"name\": \"eth0\",\n"
				      "            \"mac\": \"99:88:77:66:55:44\",\n"
				      "            \"sandbox\": \"/var/run/netns/blue\"\n"
				      "        }\n"
				      "    ],\n"
				      "    \"dns\": {\n"
				      "      \"nameservers\": [ \"10.1.0.1\" ]\n"
				      "    }\n"
				      "  }\n"
				      "}\n";

static const char TUNING_RESULT[] = "{\n"
				    "    \"ips\": [\n"
				    "        {\n"
				    "          \"address\": \"10.1.0.5/16\",\n"
				    "          \"gateway\": \"10.1.0.1\",\n"
				    "          \"interface\": 2\n"
				    "        }\n"
				    "    ],\n"
				    "    \"routes\": [\n"
				    "      {\n"
				    "        \"dst\": \"0.0.0.0/0\"\n"
				    "      }\n"
				    "    ],\n"
				    "    \"interfaces\": [\n"
				    "        {\n"
				    "            \"name\": \"cni0\",\n"
				    "            \"mac\": \"00:11:22:33:44:55\"\n"
				    "        },\n"
				    "        {\n"
				    "            \"name\": \"veth3243\",\n"
				    "            \"mac\": \"55:44:33:22:11:11\"\n"
				    "        },\n"
				    "        {\n"
				    "            \"name\": \"eth0\",\n"
				    "            \"mac\": \"00:11:22:33:44:66\",\n"
				    "            \"sandbox\": \"/var/run/netns/blue\"\n"
				    "        }\n"
				    "    ],\n"
				    "    \"dns\": {\n"
				    "      \"nameservers\": [ \"10.1.0.1\" ]\n"
				    "    }\n"
				    "}\n";

static const char ADD_PORTMAP_CONF[] =
    "{\n"
    "  \"cniVersion\": \"1.0.0\",\n"
    "  \"name\": \"dbnet\",\n"
    "  \"type\": \"portmap\",\n"
    "  \"runtimeConfig\": {\n"
    "    \"portMappings\" : [\n"
    "      { \"hostPort\": 8080, \"containerPort\": 80, \"protocol\": \"tcp\" }\n"
    "    ]\n"
    "  },\n"
    "  \"prevResult\": {\n"
    "    \"ips\": [\n"
    "        {\n"
    "          \"address\": \"10.1.0.5/16\",\n"
    "          \"gateway\": \"10.1.0.1\",\n"
    "          \"interface\": 2\n"
    "        }\n"
    "    ],\n"
    "    \"routes\": [\n"
    "      {\n"
    "        \"dst\": \"0.0.0.0/0\"\n"
    "      }\n"
    "    ],\n"
    "    \"interfaces\": [\n"
    "        {\n"
    "            \"name\": \"cni0\",\n"
    "            \"mac\": \"00:11:22:33:44:55\"\n"
    "        },\n"
    "        {\n"
    "            \"name\": \"veth3243\",\n"
    "            \"mac\": \"55:44:33:22:11:11\"\n"
    "        },\n"
    "        {\n"
    "            \"name\": \"eth0\",\n"
    "            \"mac\": \"00:11:22:33:44:66\",\n"
    "            \"sandbox\": \"/var/run/netns/blue\"\n"
    "        }\n"
    "    ],\n"
    "    \"dns\": {\n"
    "      \"nameservers\": [ \"10.1.0.1\" ]\n"
    "    }\n"
    "  }\n"
    "}\n";

static const char CHECK_BRIDGE_CONF[] =
    "{\n"
    "  \"cniVersion\": \"1.0.0\",\n"
    "  \"name\": \"dbnet\",\n"
    "  \"type\": \"bridge\",\n"
    "  \"bridge\": \"cni0\",\n"
    "  \"keyA\": [\"some more\", \"plugin specific\", \"configuration\"],\n"
    "  \"ipam\": {\n"
    "    \"type\": \"host-local\",\n"
    "    \"subnet\": \"10.1.0.0/16\",\n"
    "    \"gateway\": \"10.1.0.1\"\n"
    "  },\n"
    "  \"dns\": {\n"
    "    \"nameservers\": [ \"10.1.0.1\" ]\n"
    "  },\n"
    "  \"prevResult\": {\n"
    "    \"ips\": [\n"
    "        {\n"
    "          \"address\": \"10.1.0.5/16\",\n"
    "          \"gateway\": \"10.1.0.1\",\n"
    "          \"interface\": 2\n"
    "        }\n"
    "    ],\n"
    "    \"routes\": [\n"
    "      {\n"
    "        \"dst\": \"0.0.0.0/0\"\n"
    "      }\n"
    "    ],\n"
    "    \"interfaces\": [\n"
    "        {\n"
    "            \"name\": \"cni0\",\n"
    "            \"mac\": \"00:11:22:33:44:55\"\n"
    "        },\n"
    "        {\n"
    "            \"name\": \"veth3243\",\n"
    "            \"mac\": \"55:44:33:22:11:11\"\n"
    "        },\n"
    "        {\n"
    "            \"name\": \"eth0\",\n"
    "            \"mac\": \"00:11:22:33:44:66\",\n"
    "            \"sandbox\": \"/var/run/netns/blue\"\n"
    "        }\n"
    "    ],\n"
    "    \"dns\": {\n"
    "      \"nameservers\": [ \"10.1.0.1\" ]\n"
    "    }\n"
    "  }\n"
    "}\n";

static const char CHECK_TUNING_CONF[] = "{\n"
					"  \"cniVersion\": \"1.0.0\",\n"
					"  \"name\": \"dbnet\",\n"
					"  \"type\": \"tuning\",\n"
					"  \"sysctl\": {\n"
					"    \"net.core.somaxconn\": \"500\"\n"
					"  },\n"
					"  \"runtimeConfig\": {\n"
					"    \"mac\": \"00:11:22:33:44:66\"\n"
					"  },\n"
					"  \"prevResult\": {\n"
					"    \"ips\": [\n"
					"        {\n"
					"          \"address\": \"10.1.0.5/16\",\n"
					"          \"gateway\": \"10.1.0.1\",\n"
					"          \"interface\": 2\n"
					"        }\n"
					"    ],\n"
					"    \"routes\": [\n"
					"      {\n"
					"        \"dst\": \"0.0.0.0/0\"\n"
					"      }\n"
					"    ],\n"
					"    \"interfaces\": [\n"
					"        {\n"
					"            \"name\": \"cni0\",\n"
					"            \"mac\": \"00:11:22:33:44:55\"\n"
					"        },\n"
					"        {\n"
					"            \"name\": \"veth3243\",\n"
					"            \"mac\": \"55:44:33:22:11:11\"\n"
					"        },\n"
					"        {\n"
					"            \"name\": \"eth0\",\n"
					"            \"mac\": \"00:11:22:33:44:66\",\n"
					"            \"sandbox\": \"/var/run/netns/blue\"\n"
					"        }\n"
					"    ],\n"
					"    \"dns\": {\n"
					"      \"nameservers\": [ \"10.1.0.1\" ]\n"
					"    }\n"
					"  }\n"
					"}\n";

static const char SECTION1_CONF[] =
    "{\n"
    "  \"cniVersion\": \"1.0.0\",\n"
    "  \"name\": \"dbnet\",\n"
    "  \"plugins\": [\n"
    "    {\n"
    "      \"type\": \"bridge\",\n"
    "      \"bridge\": \"cni0\",\n"
    "      \"keyA\": [\"some more\", \"plugin specific\", \"configuration\"],\n"
    "      \n"
    "      \"ipam\": {\n"
    "        \"type\": \"host-local\",\n"
    "        \"subnet\": \"10.1.0.0/16\",\n"
    "        \"gateway\": \"10.1.0.1\",\n"
    "        \"routes\": [\n"
    "            {\"dst\": \"0.0.0.0/0\"}\n"
    "        ]\n"
    "      },\n"
    "      \"dns\": {\n"
    "        \"nameservers\": [ \"10.1.0.1\" ]\n"
    "      }\n"
    "    },\n"
    "    {\n"
    "      \"type\": \"tuning\",\n"
    "      \"capabilities\": {\n"
    "        \"mac\": true\n"
    "      },\n"
    "      \"sysctl\": {\n"
    "        \"net.core.somaxconn\": \"500\"\n"
    "      }\n"
    "    },\n"
    "    {\n"
    "        \"type\": \"portmap\",\n"
    "        \"capabilities\": {\"portMappings\": true}\n"
    "    }\n"
    "  ]\n"
    "}\n";

/* The capability arguments of the appendix: "the runtime produces `portmap`
 * and `mac` capability args". The mac is the one the appendix shows in the
 * tuning plugin's runtimeConfig. */
static const char APPENDIX_CAP_ARGS[] =
    "{\"mac\": \"00:11:22:33:44:66\","
    " \"portMappings\": [{\"hostPort\": 8080, \"containerPort\": 80, \"protocol\": \"tcp\"}]}";

static json *parse(const char *text)
{
	json *j = NULL;
	cnirt_error *err = NULL;
	if (json_read_parse(text, strlen(text), "test input", &j, &err) < 0)
		fail_msg("test input does not parse: %s", cnirt_error_msg(err));
	return j;
}

static cnirt_netlist *parse_list(const char *text)
{
	cnirt_netlist *l = NULL;
	cnirt_error *err = NULL;
	if (cnirt_netlist_parse(text, strlen(text), "test", &l, &err) < 0)
		fail_msg("test list does not parse: %s", cnirt_error_msg(err));
	return l;
}

/* Derive plugin i and parse the text back. */
static json *derive(const cnirt_netlist *l, size_t i, const json *cap_args, const json *prev)
{
	size_t len = 0;
	_cleanup_free_ char *text = derive_exec_config(l, i, cap_args, NULL, prev, &len);
	assert_non_null(text);
	assert_int_equal(len, strlen(text));
	return parse(text);
}

static void assert_json_equal_text(const json *got, const char *expected_text)
{
	_cleanup_json_ json *want = parse(expected_text);
	if (!json_equal(got, want)) {
		_cleanup_free_ char *g = json_gen(got, true, NULL);
		_cleanup_free_ char *w = json_gen(want, true, NULL);
		fail_msg("derived configuration differs\n--- got\n%s\n--- want\n%s", g, w);
	}
}

/*
 * Section 1's example keeps `"routes": [{"dst": "0.0.0.0/0"}]` in the bridge
 * plugin's `ipam`, but the appendix's bridge configurations leave it out: an
 * erratum of the appendix, since "all other fields should be passed through
 * unaltered" (section 3). The expected bridge configurations get it back.
 */
static void assert_bridge_conf(const json *got, const char *appendix_text)
{
	_cleanup_json_ json *want = parse(appendix_text);
	json_obj_set(json_obj_get(want, "ipam"), "routes", parse("[{\"dst\": \"0.0.0.0/0\"}]"));
	if (!json_equal(got, want)) {
		_cleanup_free_ char *g = json_gen(got, true, NULL);
		_cleanup_free_ char *w = json_gen(want, true, NULL);
		fail_msg("derived bridge configuration differs\n--- got\n%s\n--- want\n%s", g, w);
	}
}

/* Appendix, "Add example": bridge (no prevResult), tuning (prevResult: the
 * bridge result, runtimeConfig.mac), portmap (prevResult: the tuning
 * result, runtimeConfig.portMappings). */
static void test_appendix_add(void **state)
{
	(void)state;
	cnirt_netlist *l = parse_list(SECTION1_CONF);
	_cleanup_json_ json *caps = parse(APPENDIX_CAP_ARGS);
	_cleanup_json_ json *bridge_result = parse(BRIDGE_RESULT);
	_cleanup_json_ json *tuning_result = parse(TUNING_RESULT);

	_cleanup_json_ json *bridge = derive(l, 0, caps, NULL);
	assert_bridge_conf(bridge, ADD_BRIDGE_CONF);
	_cleanup_json_ json *tuning = derive(l, 1, caps, bridge_result);
	assert_json_equal_text(tuning, ADD_TUNING_CONF);
	_cleanup_json_ json *portmap = derive(l, 2, caps, tuning_result);
	assert_json_equal_text(portmap, ADD_PORTMAP_CONF);

	/* "The following fields must be removed by the runtime: capabilities" */
	assert_null(json_obj_get(tuning, "capabilities"));
	assert_null(json_obj_get(portmap, "capabilities"));
	/* The bridge plugin declares no capability: no runtimeConfig at all. */
	assert_null(json_obj_get(bridge, "runtimeConfig"));
	cnirt_netlist_free(l);
}

/* Appendix, "Check example" and "Delete example": every plugin gets the
 * final result of the ADD (the tuning plugin's, which portmap returned
 * unchanged) as prevResult. The check and delete configurations of one
 * plugin are the same text in the appendix. */
static void test_appendix_check_del(void **state)
{
	(void)state;
	cnirt_netlist *l = parse_list(SECTION1_CONF);
	_cleanup_json_ json *caps = parse(APPENDIX_CAP_ARGS);
	_cleanup_json_ json *final = parse(TUNING_RESULT);

	_cleanup_json_ json *bridge = derive(l, 0, caps, final);
	assert_bridge_conf(bridge, CHECK_BRIDGE_CONF);
	_cleanup_json_ json *tuning = derive(l, 1, caps, final);
	assert_json_equal_text(tuning, CHECK_TUNING_CONF);
	_cleanup_json_ json *portmap = derive(l, 2, caps, final);
	assert_json_equal_text(portmap, ADD_PORTMAP_CONF);
	assert_null(json_obj_get(tuning, "capabilities"));
	assert_null(json_obj_get(portmap, "capabilities"));
	cnirt_netlist_free(l);
}

/* "Deriving runtimeConfig": "any capability supported by the plugin
 * configuration and provided by the runtime should be inserted". */
static void test_capability_intersection(void **state)
{
	(void)state;
	cnirt_netlist *l = parse_list("{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"plugins\":[{"
				      "\"type\":\"p\",\"capabilities\":{\"declaredFalse\":false,"
				      "\"notProvided\":true,\"both\":true}}]}");
	_cleanup_json_ json *caps =
	    parse("{\"notDeclared\":[1],\"declaredFalse\":\"x\",\"both\":{\"k\":\"v\"}}");
	size_t len;
	_cleanup_free_ char *text = derive_exec_config(l, 0, caps, NULL, NULL, &len);
	/* Only "both": declared false, declared but not provided, and provided
	 * but not declared are all left out. */
	assert_string_equal(text, "{\"type\":\"p\",\"cniVersion\":\"1.0.0\",\"name\":\"n\","
				  "\"runtimeConfig\":{\"both\":{\"k\":\"v\"}}}");
	cnirt_netlist_free(l);
}

/* Nothing to insert: no runtimeConfig (not an empty one). */
static void test_runtime_config_omitted_when_empty(void **state)
{
	(void)state;
	cnirt_netlist *l = parse_list("{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"plugins\":[{"
				      "\"type\":\"p\",\"capabilities\":{\"mac\":true}}]}");
	_cleanup_json_ json *caps = parse("{\"portMappings\":[]}");
	_cleanup_free_ char *with_other = derive_exec_config(l, 0, caps, NULL, NULL, NULL);
	assert_string_equal(with_other, "{\"type\":\"p\",\"cniVersion\":\"1.0.0\",\"name\":\"n\"}");
	_cleanup_free_ char *with_none = derive_exec_config(l, 0, NULL, NULL, NULL, NULL);
	assert_string_equal(with_none, "{\"type\":\"p\",\"cniVersion\":\"1.0.0\",\"name\":\"n\"}");
	cnirt_netlist_free(l);
}

/* runtimeConfig follows the order of the plugin's `capabilities`, not the
 * order of the capability arguments; a null argument is still provided
 * (as in the reference library). */
static void test_runtime_config_order(void **state)
{
	(void)state;
	cnirt_netlist *l = parse_list("{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"plugins\":[{"
				      "\"type\":\"p\",\"capabilities\":{\"z\":true,\"a\":true,"
				      "\"m\":true}}]}");
	_cleanup_json_ json *caps = parse("{\"a\":1,\"m\":null,\"z\":2}");
	_cleanup_free_ char *text = derive_exec_config(l, 0, caps, NULL, NULL, NULL);
	assert_string_equal(text, "{\"type\":\"p\",\"cniVersion\":\"1.0.0\",\"name\":\"n\","
				  "\"runtimeConfig\":{\"z\":2,\"a\":1,\"m\":null}}");
	cnirt_netlist_free(l);
}

/*
 * `runtimeConfig` is reserved (section 1, "Reserved keys"). One written in
 * the plugin configuration is replaced by the derived one, and passes
 * through when nothing is derived: the reference library's
 * injectRuntimeConfig does the same.
 */
static void test_written_runtime_config(void **state)
{
	(void)state;
	cnirt_netlist *l = parse_list("{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"plugins\":[{"
				      "\"type\":\"p\",\"runtimeConfig\":{\"old\":1},"
				      "\"capabilities\":{\"mac\":true},\"x\":0}]}");
	_cleanup_json_ json *caps = parse("{\"mac\":\"00:11:22:33:44:55\"}");
	_cleanup_free_ char *replaced = derive_exec_config(l, 0, caps, NULL, NULL, NULL);
	assert_string_equal(replaced, "{\"type\":\"p\",\"runtimeConfig\":{\"mac\":"
				      "\"00:11:22:33:44:55\"},\"x\":0,\"cniVersion\":\"1.0.0\","
				      "\"name\":\"n\"}");
	_cleanup_free_ char *kept = derive_exec_config(l, 0, NULL, NULL, NULL, NULL);
	assert_string_equal(kept, "{\"type\":\"p\",\"runtimeConfig\":{\"old\":1},\"x\":0,"
				  "\"cniVersion\":\"1.0.0\",\"name\":\"n\"}");
	cnirt_netlist_free(l);
}

/*
 * `prevResult` is inserted by the runtime (section 3) as "the result type
 * returned by the previous plugin". One written in the plugin configuration
 * is replaced where it stands when there is a previous result, and passes
 * through when there is none (the first plugin of an ADD, a DEL without a
 * cached result), as with the reference library, which inserts prevResult
 * only when it has one (buildOneConfig). Found by fuzz_netlist.
 */
static void test_written_prev_result(void **state)
{
	(void)state;
	cnirt_netlist *l = parse_list("{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"plugins\":[{"
				      "\"type\":\"p\",\"prevResult\":{\"written\":1},\"x\":0}]}");
	_cleanup_json_ json *prev = parse("{\"cniVersion\":\"1.0.0\",\"ips\":[]}");
	_cleanup_free_ char *replaced = derive_exec_config(l, 0, NULL, NULL, prev, NULL);
	assert_string_equal(replaced,
			    "{\"type\":\"p\",\"prevResult\":{\"cniVersion\":\"1.0.0\","
			    "\"ips\":[]},\"x\":0,\"cniVersion\":\"1.0.0\",\"name\":\"n\"}");
	_cleanup_free_ char *kept = derive_exec_config(l, 0, NULL, NULL, NULL, NULL);
	assert_string_equal(kept, "{\"type\":\"p\",\"prevResult\":{\"written\":1},\"x\":0,"
				  "\"cniVersion\":\"1.0.0\",\"name\":\"n\"}");
	cnirt_netlist_free(l);
}

/* "cniVersion: taken from the cniVersion field of the network
 * configuration", "name: taken from the name field": a plugin's own
 * values are replaced where they stand. */
static void test_name_and_version_replaced_in_place(void **state)
{
	(void)state;
	cnirt_netlist *l = parse_list("{\"cniVersion\":\"0.4.0\",\"name\":\"list\",\"plugins\":[{"
				      "\"name\":\"own\",\"type\":\"p\",\"cniVersion\":\"0.1.0\","
				      "\"z\":true}]}");
	_cleanup_free_ char *text = derive_exec_config(l, 0, NULL, NULL, NULL, NULL);
	assert_string_equal(text, "{\"name\":\"list\",\"type\":\"p\",\"cniVersion\":\"0.4.0\","
				  "\"z\":true}");
	cnirt_netlist_free(l);
}

/* With `cniVersions`, the plugins get the effective version. */
static void test_effective_version_inserted(void **state)
{
	(void)state;
	cnirt_netlist *l = parse_list("{\"cniVersion\":\"0.4.0\",\"cniVersions\":[\"1.0.0\","
				      "\"9.9.9\"],\"name\":\"n\",\"plugins\":[{\"type\":\"p\"}]}");
	_cleanup_free_ char *text = derive_exec_config(l, 0, NULL, NULL, NULL, NULL);
	assert_string_equal(text, "{\"type\":\"p\",\"cniVersion\":\"1.0.0\",\"name\":\"n\"}");
	cnirt_netlist_free(l);
}

/* A single-plugin configuration: its own name and version stay in place;
 * the prevResult is inserted as given. */
static void test_single_config_with_prev_result(void **state)
{
	(void)state;
	cnirt_netlist *l = parse_list("{\"cniVersion\":\"0.3.1\",\"name\":\"one\",\"type\":"
				      "\"bridge\",\"ipam\":{\"type\":\"host-local\"}}");
	_cleanup_json_ json *prev = parse("{\"cniVersion\":\"0.3.1\",\"ips\":[]}");
	_cleanup_free_ char *text = derive_exec_config(l, 0, NULL, NULL, prev, NULL);
	assert_string_equal(text, "{\"cniVersion\":\"0.3.1\",\"name\":\"one\",\"type\":\"bridge\","
				  "\"ipam\":{\"type\":\"host-local\"},\"prevResult\":{"
				  "\"cniVersion\":\"0.3.1\",\"ips\":[]}}");
	cnirt_netlist_free(l);
}

/*
 * "All other fields should be passed through unaltered" (section 3): key
 * order, the text of numbers (beyond what a double holds, -0.0), nested
 * values, UTF-8 and escapes. The plugin's members are written here in
 * the generator's compact form, so the derived text must hold them byte for
 * byte, in order, followed only by the inserted keys.
 */
#define FIDELITY_MEMBERS                                                                           \
	"\"zeta\":1,\"type\":\"fidelity\",\"big\":12345678901234567890,\"huge\":1.5e300,"          \
	"\"negzero\":-0.0,\"frac\":2.50,\"exp\":1E-7,\"nested\":{\"y\":[1,2,{\"b\":null,"          \
	"\"a\":false}],\"x\":{}},\"utf8\":\"h\xc3\xa9llo \xe2\x9c\x93 \xe6\x97\xa5\xe6\x9c\xac\"," \
	"\"escaped\":\"q\\\"b\\\\s\\n\\t\\r\\b\\f\\u0001 /\",\"alpha\":[]"

static void test_pass_through_fidelity(void **state)
{
	(void)state;
	/* Two plugins with the same members after a different first one. */
	cnirt_netlist *l =
	    parse_list("{\"cniVersion\":\"1.0.0\",\"name\":\"fid\",\"plugins\":["
		       "{\"other\":\"first\"," FIDELITY_MEMBERS "},"
		       "{\"cap\":1,\"capabilities\":{\"mac\":true}," FIDELITY_MEMBERS "}]}");
	size_t len;
	_cleanup_free_ char *first = derive_exec_config(l, 0, NULL, NULL, NULL, &len);
	assert_string_equal(first, "{\"other\":\"first\"," FIDELITY_MEMBERS
				   ",\"cniVersion\":\"1.0.0\",\"name\":\"fid\"}");
	assert_int_equal(len, strlen(first));

	/* `capabilities` removed from the middle: the rest keeps its order. */
	_cleanup_json_ json *caps = parse("{\"mac\":\"00:11:22:33:44:55\"}");
	_cleanup_json_ json *prev = parse("{\"cniVersion\":\"1.0.0\",\"n\":1.000}");
	_cleanup_free_ char *second = derive_exec_config(l, 1, caps, NULL, prev, NULL);
	assert_string_equal(second,
			    "{\"cap\":1," FIDELITY_MEMBERS
			    ",\"cniVersion\":\"1.0.0\",\"name\":\"fid\",\"runtimeConfig\":{\"mac\":"
			    "\"00:11:22:33:44:55\"},\"prevResult\":{\"cniVersion\":\"1.0.0\","
			    "\"n\":1.000}}");
	assert_non_null(strstr(second, "12345678901234567890"));
	assert_non_null(strstr(second, "1.5e300"));
	assert_non_null(strstr(second, "-0.0"));
	assert_non_null(strstr(second, "h\xc3\xa9llo \xe2\x9c\x93 \xe6\x97\xa5\xe6\x9c\xac"));
	cnirt_netlist_free(l);
}

/* The capability arguments are copied: deriving does not change them, nor
 * the list (two derivations give the same text). */
static void test_inputs_untouched(void **state)
{
	(void)state;
	cnirt_netlist *l = parse_list(SECTION1_CONF);
	_cleanup_json_ json *caps = parse(APPENDIX_CAP_ARGS);
	_cleanup_json_ json *caps_copy = json_dup(caps);
	_cleanup_json_ json *prev = parse(BRIDGE_RESULT);
	_cleanup_free_ char *a = derive_exec_config(l, 1, caps, NULL, prev, NULL);
	_cleanup_free_ char *b = derive_exec_config(l, 1, caps, NULL, prev, NULL);
	assert_string_equal(a, b);
	assert_true(json_equal(caps, caps_copy));
	assert_non_null(json_obj_get(l->plugins[1].conf, "capabilities"));
	assert_null(derive_exec_config(l, 3, caps, NULL, prev, NULL));
	cnirt_netlist_free(l);
}

/* CONVENTIONS.md, "args in network config": the attachment's config args
 * become args.cni of every plugin; the plugin's other args are kept, a
 * written args.cni is replaced, and args moves last, before what the
 * derivation inserts (moved here from the hook). */
static void test_config_args(void **state)
{
	(void)state;
	cnirt_netlist *l =
	    parse_list("{\"cniVersion\":\"1.0.0\",\"name\":\"list\",\"plugins\":["
		       "{\"type\":\"a\",\"args\":{\"cni\":{\"old\":1},\"other\":[2]},\"z\":3},"
		       "{\"type\":\"b\"}]}");
	json *extra = parse("{\"ips\":[\"10.1.2.3/24\"],\"k\":\"v\"}");
	_cleanup_free_ char *a = derive_exec_config(l, 0, NULL, extra, NULL, NULL);
	assert_string_equal(a, "{\"type\":\"a\",\"z\":3,\"args\":{\"other\":[2],\"cni\":{\"ips\":"
			       "[\"10.1.2.3/24\"],\"k\":\"v\"}},\"cniVersion\":\"1.0.0\","
			       "\"name\":\"list\"}");
	_cleanup_free_ char *b = derive_exec_config(l, 1, NULL, extra, NULL, NULL);
	assert_string_equal(b, "{\"type\":\"b\",\"args\":{\"cni\":{\"ips\":[\"10.1.2.3/24\"],"
			       "\"k\":\"v\"}},\"cniVersion\":\"1.0.0\",\"name\":\"list\"}");
	/* Without config args, args as written. */
	_cleanup_free_ char *none = derive_exec_config(l, 0, NULL, NULL, NULL, NULL);
	assert_string_equal(none, "{\"type\":\"a\",\"args\":{\"cni\":{\"old\":1},\"other\":[2]},"
				  "\"z\":3,\"cniVersion\":\"1.0.0\",\"name\":\"list\"}");
	/* The list as the cache keeps it: the same args in every plugin. */
	size_t len;
	_cleanup_free_ char *list = derive_list_bytes(l, extra, &len);
	assert_int_equal(len, strlen(list));
	assert_string_equal(list,
			    "{\"cniVersion\":\"1.0.0\",\"name\":\"list\",\"plugins\":["
			    "{\"type\":\"a\",\"z\":3,\"args\":{\"other\":[2],\"cni\":{\"ips\":"
			    "[\"10.1.2.3/24\"],\"k\":\"v\"}}},{\"type\":\"b\",\"args\":{\"cni\":"
			    "{\"ips\":[\"10.1.2.3/24\"],\"k\":\"v\"}}}]}");
	json_free(extra);
	cnirt_netlist_free(l);
}

/* Config args that are not a JSON object are refused, naming them. */
static void test_config_args_invalid(void **state)
{
	(void)state;
	json *v = NULL;
	cnirt_error *err = NULL;
	assert_int_equal(derive_parse_config_args(NULL, &v, &err), 0);
	assert_null(v);
	assert_int_equal(derive_parse_config_args("[1]", &v, &err), -1);
	assert_string_equal(cnirt_error_msg(err), "config args: must be a JSON object");
	assert_int_equal(cnirt_error_code(err), CNIRT_ERR_INVALID_CONFIG);
	cnirt_error_free(err);
	err = NULL;
	assert_int_equal(derive_parse_config_args("{\"a\":", &v, &err), -1);
	assert_non_null(strstr(cnirt_error_msg(err), "config args: invalid JSON"));
	cnirt_error_free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_appendix_add),
	    cmocka_unit_test(test_appendix_check_del),
	    cmocka_unit_test(test_capability_intersection),
	    cmocka_unit_test(test_runtime_config_omitted_when_empty),
	    cmocka_unit_test(test_runtime_config_order),
	    cmocka_unit_test(test_written_runtime_config),
	    cmocka_unit_test(test_written_prev_result),
	    cmocka_unit_test(test_name_and_version_replaced_in_place),
	    cmocka_unit_test(test_effective_version_inserted),
	    cmocka_unit_test(test_single_config_with_prev_result),
	    cmocka_unit_test(test_pass_through_fidelity),
	    cmocka_unit_test(test_inputs_untouched),
	    cmocka_unit_test(test_config_args),
	    cmocka_unit_test(test_config_args_invalid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
