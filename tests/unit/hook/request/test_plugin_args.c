/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/request/plugin-args.c: what one attachment gives its network's plugins. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "cnirt.h"
#include "request/plugin-args.h"
#include "hooktest.h"

#define KV(k, v)                                                                                   \
	{                                                                                          \
		(char *)(k), (char *)(v)                                                           \
	}
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define CID	 "0123456789abcdef"

/* The selection of ann; a failure fails the test. */
static void parse(const struct kvlist *ann, struct selection *s)
{
	char *err = NULL;
	if (annotations_parse(ann, DEFAULTS(NULL, 0), s, &err) < 0)
		fail_msg("annotations_parse failed: %s", err);
}

/* A chain's capabilities for plugin_args_build: a NULL-terminated list. */
static bool has_cap(void *data, const char *cap)
{
	for (const char *const *c = data; *c; c++)
		if (strcmp(*c, cap) == 0)
			return true;
	return false;
}

static const char *all_caps[] = {"portMappings", "mac", "ips", "bandwidth", "infinibandGUID", NULL};
static const char *no_caps[] = {NULL};

static void args_refused(const struct selection *s, size_t i, const char **caps, const char *msg)
{
	char *cap_args = (char *)"untouched";
	struct kvlist args = {(struct kv *)&cap_args, 4242};
	char *err = NULL;
	assert_int_equal(plugin_args_build(s, i, has_cap, caps, &cap_args, &args, &err), -1);
	assert_non_null(err);
	if (strcmp(err, msg) != 0)
		fail_msg("wrong message:\n  got      %s\n  expected %s", err, msg);
	assert_string_equal(cap_args, "untouched");
	assert_ptr_equal(args.v, (struct kv *)&cap_args);
	assert_int_equal(args.n, 4242);
	free(err);
}

static void name_refused(const char *name)
{
	char *problem = NULL;
	if (plugin_args_check_name(name, &problem) == 0)
		fail_msg("\"%s\" taken as a DNS name", name);
	assert_non_null(strstr(problem, "is not a DNS name"));
	free(problem);
}

/* The names dnsname can take: DNS names, as dnsmasq's hosts file and
 * CNI_ARGS (no ';' or '=') hold them. */
static void test_name_checked(void **state)
{
	(void)state;
	char *problem = NULL;
	static const char *const good[] = {"a", "web-1", "db.example.org", "A1", "1a"};
	for (size_t i = 0; i < COUNT(good); i++)
		if (plugin_args_check_name(good[i], &problem) < 0)
			fail_msg("\"%s\" refused: %s", good[i], problem);
	static const char *const bad[] = {"",	 "-a",	"a-",	  "a..b", ".a", "a.",
					  "a b", "a;b", "K=V",	  "a_b",  "é",	"a\tb",
					  "a\n", "a/b", "a.-b.c", "a-.b"};
	for (size_t i = 0; i < COUNT(bad); i++)
		name_refused(bad[i]);
	/* Labels of 63 characters at most. */
	char label[65];
	memset(label, 'a', 64);
	label[63] = '\0';
	assert_int_equal(plugin_args_check_name(label, &problem), 0);
	label[63] = 'a';
	label[64] = '\0';
	name_refused(label);
	/* 253 characters at most. */
	char long_name[256];
	memset(long_name, 'a', sizeof(long_name));
	for (size_t k = 63; k < 253; k += 64)
		long_name[k] = '.';
	long_name[253] = '\0';
	assert_int_equal(plugin_args_check_name(long_name, &problem), 0);
	long_name[253] = 'a';
	long_name[254] = '\0';
	name_refused(long_name);
}

/* The pair dnsname takes, and the problem without a name. */
static void test_name_pairs(void **state)
{
	(void)state;
	struct kvlist v = {0};
	char *problem = NULL;
	assert_int_equal(plugin_args_name("peer", &v, &problem), 0);
	assert_int_equal(v.n, 1);
	assert_string_equal(v.v[0].key, "K8S_POD_NAME");
	assert_string_equal(v.v[0].value, "peer");
	kvlist_free(&v);
	assert_int_equal(plugin_args_name(NULL, &v, &problem), -1);
	assert_string_equal(problem,
			    "no annotation io.cnihook.name and no \"hostname\" in config.json");
	free(problem);
	problem = NULL;
	assert_int_equal(plugin_args_name("a b", &v, &problem), -1);
	assert_string_equal(problem, "the name \"a b\" is not a DNS name (labels of letters, "
				     "digits and '-', separated by '.', at most 253 characters)");
	free(problem);
	assert_string_equal(PLUGIN_ARGS_NAME_TYPE, "dnsname");

	/* Given to a context (and taken back); a bad name leaves it alone. */
	cnirt_ctx *ctx = cnirt_ctx_new();
	problem = NULL;
	assert_int_equal(plugin_args_give_name(ctx, "peer", &problem), 0);
	assert_int_equal(plugin_args_give_name(ctx, NULL, &problem), 0);
	assert_null(problem);
	assert_int_equal(plugin_args_give_name(ctx, "a;b", &problem), -1);
	assert_non_null(strstr(problem, "is not a DNS name"));
	free(problem);
	cnirt_ctx_free(ctx);
}

/* CONVENTIONS.md: "Plugins can request that the runtime insert this dynamic
 * configuration by explicitly listing their capabilities"; the well-known
 * ones are portMappings, ips, mac, bandwidth, infinibandGUID. */
static void test_args_all_capabilities(void **state)
{
	(void)state;
	struct kv ann[] = {
	    KV(ANN_NPWG_NETWORKS,
	       "[{\"name\":\"a\",\"ips\":[\"10.1.2.3/24\",\"fd00::3/64\"],"
	       "\"mac\":\"c2:11:22:33:44:55\",\"infiniband-guid\":\"00:11:22:33:44:55:66:77\","
	       "\"portMappings\":[{\"hostPort\":8080,\"containerPort\":80}],"
	       "\"bandwidth\":{\"ingressRate\":1,\"ingressBurst\":2}},{\"name\":\"b\"}]"),
	    KV(ANN_ARGS, "FOO=1;BAR=2"),
	    KV("io.kubernetes.cri.sandbox-name", "p"),
	    KV("io.kubernetes.cri.sandbox-namespace", "ns"),
	};
	struct selection s;
	parse(KVLIST(ann), &s);
	char *cap_args = NULL, *err = NULL;
	struct kvlist args = {0};
	assert_int_equal(plugin_args_build(&s, 0, has_cap, all_caps, &cap_args, &args, &err), 0);
	assert_null(err);
	assert_string_equal(cap_args, "{\"portMappings\":[{\"hostPort\":8080,\"containerPort\":80,"
				      "\"protocol\":\"tcp\"}],\"mac\":\"c2:11:22:33:44:55\","
				      "\"ips\":[\"10.1.2.3/24\",\"fd00::3/64\"],"
				      "\"bandwidth\":{\"ingressRate\":1,\"ingressBurst\":2},"
				      "\"infinibandGUID\":\"00:11:22:33:44:55:66:77\"}");
	const char *expected[] = {"IgnoreUnknown=1",
				  "FOO=1",
				  "BAR=2",
				  "K8S_POD_NAME=p",
				  "K8S_POD_NAMESPACE=ns",
				  "K8S_POD_INFRA_CONTAINER_ID=" CID,
				  NULL};
	args_are(&args, expected);
	free(cap_args);
	kvlist_free(&args);

	/* Nothing requested for the second attachment: no capability arguments. */
	assert_int_equal(plugin_args_build(&s, 1, has_cap, all_caps, &cap_args, &args, &err), 0);
	assert_null(cap_args);
	args_are(&args, expected);
	kvlist_free(&args);

	args_refused(&s, 2, all_caps, "attachment 2: there are only 2");
	annotations_selection_free(&s);
}

/* CONVENTIONS.md, CNI_ARGS: "IP | Request a specific IP from IPAM plugins |
 * IP=<ip>[/<prefix>]" -- engines pass it without the prefix. */
static void test_args_no_capabilities(void **state)
{
	(void)state;
	struct kv ann[] = {
	    KV(ANN_NETWORKS, "a,b,c,d,e"),
	    KV(ANN_IPS, "10.1.2.3/24"),
	    KV(ANN_MAC, "c2:11:22:33:44:55"),
	};
	struct selection s;
	parse(KVLIST(ann), &s);
	char *cap_args = NULL, *err = NULL;
	struct kvlist args = {0};
	assert_int_equal(plugin_args_build(&s, 0, has_cap, no_caps, &cap_args, &args, &err), 0);
	assert_null(cap_args);
	const char *expected[] = {"IgnoreUnknown=1", "IP=10.1.2.3", "MAC=c2:11:22:33:44:55", NULL};
	args_are(&args, expected);
	kvlist_free(&args);

	/* Only "ips" declared: the MAC still goes as CNI_ARGS. */
	const char *ips_only[] = {"ips", NULL};
	assert_int_equal(plugin_args_build(&s, 0, has_cap, ips_only, &cap_args, &args, &err), 0);
	assert_string_equal(cap_args, "{\"ips\":[\"10.1.2.3/24\"]}");
	const char *expected2[] = {"IgnoreUnknown=1", "MAC=c2:11:22:33:44:55", NULL};
	args_are(&args, expected2);
	free(cap_args);
	kvlist_free(&args);
	annotations_selection_free(&s);

	/* Fields no plugin of the chain can take are refused, never dropped. */
	struct kv refusing[] = {
	    KV(ANN_NPWG_NETWORKS,
	       "[{\"name\":\"p\",\"portMappings\":[{\"hostPort\":1,\"containerPort\":1}]},"
	       "{\"name\":\"b\",\"bandwidth\":{\"egressRate\":1}},"
	       "{\"name\":\"g\",\"infiniband-guid\":\"00:11:22:33:44:55:66:77\"},"
	       "{\"name\":\"i\",\"ips\":[\"10.0.0.1/8\",\"10.0.0.2/8\"]}]"),
	};
	parse(KVLIST(refusing), &s);
	args_refused(&s, 0, no_caps,
		     "network \"p\" has no plugin with the \"portMappings\" capability: cannot "
		     "map ports");
	args_refused(&s, 1, no_caps,
		     "network \"b\" has no plugin with the \"bandwidth\" capability: cannot limit "
		     "bandwidth");
	args_refused(&s, 2, no_caps,
		     "network \"g\" has no plugin with the \"infinibandGUID\" capability: cannot "
		     "set the InfiniBand GUID");
	args_refused(&s, 3, no_caps,
		     "network \"i\" declares no \"ips\" capability: only one IP can be passed, "
		     "as CNI_ARGS IP=");
	assert_int_equal(plugin_args_build(&s, 3, has_cap, all_caps, &cap_args, &args, &err), 0);
	assert_string_equal(cap_args, "{\"ips\":[\"10.0.0.1/8\",\"10.0.0.2/8\"]}");
	free(cap_args);
	kvlist_free(&args);
	annotations_selection_free(&s);
}

/* One attachment, by hand: a single IP of either family goes without its
 * prefix; a declared "mac" takes the MAC out of CNI_ARGS; nothing at all
 * is an empty selection's. */
static void test_args_edges(void **state)
{
	(void)state;
	char *ips[] = {(char *)"fd00::3/64", NULL};
	struct attach_req r = {
	    .network = (char *)"a", .ips = ips, .n_ips = 1, .mac = (char *)"c2:11:22:33:44:55"};
	struct selection s = {.v = &r, .n = 1};
	char *cap_args = NULL, *err = NULL;
	struct kvlist args = {0};
	const char *mac_only[] = {"mac", NULL};
	assert_int_equal(plugin_args_build(&s, 0, has_cap, mac_only, &cap_args, &args, &err), 0);
	assert_string_equal(cap_args, "{\"mac\":\"c2:11:22:33:44:55\"}");
	const char *expected[] = {"IgnoreUnknown=1", "IP=fd00::3", NULL};
	args_are(&args, expected);
	free(cap_args);
	kvlist_free(&args);

	struct selection empty = {0};
	args_refused(&empty, 0, all_caps, "attachment 0: there are only 0");

	/* A bandwidth that cannot be read back is refused (the hook went on
	 * with abort() before), and nothing is handed out. */
	struct attach_req bad = {.network = (char *)"a", .bandwidth = (char *)"{\"ingressRate\":"};
	struct selection one = {.v = &bad, .n = 1};
	char *msg = NULL;
	assert_int_equal(plugin_args_build(&one, 0, has_cap, all_caps, &cap_args, &args, &msg), -1);
	if (strncmp(msg, "network \"a\": ", 13) != 0)
		fail_msg("%s", msg);
	free(msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_args_all_capabilities),
	    cmocka_unit_test(test_args_no_capabilities),
	    cmocka_unit_test(test_args_edges),
	    cmocka_unit_test(test_name_checked),
	    cmocka_unit_test(test_name_pairs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
