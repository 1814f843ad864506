/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/request/annotations.c: the container's annotations (cnihook-annotations(7)). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "request/annotations.h"
#include "hooktest.h"

/* ------------------------------------------------------------ helpers */

#define KV(k, v)                                                                                   \
	{                                                                                          \
		(char *)(k), (char *)(v)                                                           \
	}
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define CID	 "0123456789abcdef"

static const char *crio_container =
    "not a pod sandbox (io.kubernetes.cri-o.ContainerType=container)";

/* Parse; any failure fails the test with the message. */
static void parse_defaults(const struct kvlist *ann, char *const *defaults, size_t n_default,
			   struct selection *s)
{
	char *err = NULL;
	memset(s, 0, sizeof(*s));
	if (annotations_parse(ann, DEFAULTS(defaults, n_default), s, &err) < 0)
		fail_msg("annotations_parse failed: %s", err);
	assert_null(err);
}

static void parse(const struct kvlist *ann, struct selection *s)
{
	parse_defaults(ann, NULL, 0, s);
}

static void parse1(const char *key, const char *value, struct selection *s)
{
	struct kv ann[] = {KV(key, value)};
	parse(KVLIST(ann), s);
}

/* Parsing fails with exactly `msg`, and leaves the output alone. */
static void refused_defaults(const struct kvlist *ann, char *const *defaults, size_t n_default,
			     const char *msg)
{
	struct selection s, sentinel;
	memset(&s, 0x5a, sizeof(s));
	memcpy(&sentinel, &s, sizeof(s));
	char *err = NULL;
	int r = annotations_parse(ann, DEFAULTS(defaults, n_default), &s, &err);
	if (r >= 0) {
		annotations_selection_free(&s);
		fail_msg("annotations_parse succeeded, expected: %s", msg);
	}
	assert_non_null(err);
	if (strcmp(err, msg) != 0)
		fail_msg("wrong message:\n  got      %s\n  expected %s", err, msg);
	assert_memory_equal(&s, &sentinel, sizeof(s));
	free(err);
}

static void refused(const struct kvlist *ann, const char *msg)
{
	refused_defaults(ann, NULL, 0, msg);
}

static void refused1(const char *key, const char *value, const char *msg)
{
	struct kv ann[] = {KV(key, value)};
	refused(KVLIST(ann), msg);
}

/* A value refused with a message that starts with `prefix`. */
static void refused1_prefix(const char *key, const char *value, const char *prefix)
{
	struct kv ann[] = {KV(key, value)};
	struct selection s;
	char *err = NULL;
	if (annotations_parse(KVLIST(ann), DEFAULTS(NULL, 0), &s, &err) >= 0) {
		annotations_selection_free(&s);
		fail_msg("annotations_parse succeeded, expected: %s...", prefix);
	}
	if (strncmp(err, prefix, strlen(prefix)) != 0)
		fail_msg("wrong message:\n  got      %s\n  expected %s...", err, prefix);
	free(err);
}

/* The port mappings that io.cnihook.ports=value gives the network "n". */
static void ports_are(const char *value, const char *text)
{
	struct kv ann[] = {KV(ANN_NETWORKS, "n"), KV(ANN_PORTS, value)};
	struct selection s;
	parse(KVLIST(ann), &s);
	assert_int_equal(s.n, 1);
	assert_true(s.v[0].ports.n > 0);
	_cleanup_free_ char *got = port_mappings_json_text(&s.v[0].ports);
	if (strcmp(got, text) != 0)
		fail_msg("ports \"%s\":\n  got      %s\n  expected %s", value, got, text);
	annotations_selection_free(&s);
}

static void ports_refused(const char *value, const char *msg)
{
	struct kv ann[] = {KV(ANN_NETWORKS, "n"), KV(ANN_PORTS, value)};
	refused(KVLIST(ann), msg);
}

static void ifnames_are(const char *networks, const char *const *expected, size_t n)
{
	struct selection s;
	parse1(ANN_NETWORKS, networks, &s);
	assert_int_equal(s.n, n);
	for (size_t i = 0; i < n; i++)
		if (strcmp(s.v[i].ifname, expected[i]) != 0)
			fail_msg("\"%s\": attachment %zu got %s, expected %s", networks, i,
				 s.v[i].ifname, expected[i]);
	annotations_selection_free(&s);
}

/* ------------------------------------------------------------ selection: NPWG JSON */

/* NPWG de-facto standard v1.2, 4.1.2.1 (network selection element): "name"
 * is required; "namespace", "ips", "mac", "interface", "portMappings",
 * "bandwidth", "infiniband-guid", "cni-args", "default-route" are optional. */
static void test_json_every_field(void **state)
{
	(void)state;
	struct selection s;
	parse1(ANN_NPWG_NETWORKS,
	       "  [{\"name\":\"net1\",\"namespace\":\"team-a\",\"interface\":\"data0\","
	       "\"ips\":[\"10.1.2.3/24\",\"fd00::3\"],\"mac\":\"C2-11-22-33-44-55\","
	       "\"infiniband-guid\":\"C2:11:22:33:44:55:66:77\","
	       "\"portMappings\":[{\"hostPort\":8080,\"containerPort\":80},"
	       "{\"hostPort\":53,\"containerPort\":5353,\"protocol\":\"UDP\","
	       "\"hostIP\":\"10.0.0.1\"}],"
	       "\"bandwidth\":{\"egressBurst\":4,\"ingressRate\":1,\"ingressBurst\":2,"
	       "\"egressRate\":3},"
	       "\"cni-args\":{\"foo\":[1,{\"bar\":true}]},"
	       "\"default-route\":[\"10.1.2.1\",\"fd00::1\"]},"
	       " {\"name\":\"net2\"}]",
	       &s);
	assert_int_equal(s.n, 2);
	const struct attach_req *r = &s.v[0];
	assert_string_equal(r->network, "net1");
	assert_string_equal(r->ns, "team-a");
	assert_string_equal(r->ifname, "data0");
	assert_int_equal(r->n_ips, 2);
	assert_string_equal(r->ips[0], "10.1.2.3/24");
	assert_string_equal(r->ips[1], "fd00::3"); /* v1.2 allows a plain IP: kept as given */
	assert_string_equal(r->mac, "c2:11:22:33:44:55");
	assert_string_equal(r->ib_guid, "c2:11:22:33:44:55:66:77");
	_cleanup_free_ char *ports = port_mappings_json_text(&r->ports);
	assert_string_equal(ports, "[{\"hostPort\":8080,\"containerPort\":80,\"protocol\":\"tcp\"},"
				   "{\"hostPort\":53,\"containerPort\":5353,\"protocol\":\"udp\","
				   "\"hostIP\":\"10.0.0.1\"}]");
	assert_string_equal(r->bandwidth, "{\"ingressRate\":1,\"ingressBurst\":2,"
					  "\"egressRate\":3,\"egressBurst\":4}");
	assert_string_equal(r->cni_args, "{\"foo\":[1,{\"bar\":true}]}");
	assert_int_equal(r->n_default_route, 2);
	assert_string_equal(r->default_route[0], "10.1.2.1");
	assert_string_equal(r->default_route[1], "fd00::1");

	r = &s.v[1];
	assert_string_equal(r->network, "net2");
	assert_null(r->ns);
	assert_string_equal(r->ifname, "eth0");
	assert_int_equal(r->n_ips, 0);
	assert_null(r->mac);
	assert_int_equal(r->ports.n, 0);
	assert_null(r->bandwidth);
	assert_null(r->ib_guid);
	assert_null(r->cni_args);
	assert_int_equal(r->n_default_route, 0);
	assert_int_equal(s.args.n, 0);
	assert_int_equal(s.pod.n, 0);
	assert_null(s.netns);
	assert_null(s.skip_reason);
	annotations_selection_free(&s);
}

static void test_json_refusals(void **state)
{
	(void)state;
	const char *k = ANN_NPWG_NETWORKS;
	refused1(k, "[{\"name\":\"a\",\"color\":\"red\"}]",
		 "annotation \"k8s.v1.cni.cncf.io/networks\": element 1: unknown field \"color\" "
		 "(known: name, namespace, interface, ips, mac, infiniband-guid, portMappings, "
		 "bandwidth, cni-args, default-route)");
	/* A misspelt field: the nearest one, whatever the case. */
	refused1(k, "[{\"name\":\"a\",\"Interface\":\"eth1\"}]",
		 "annotation \"k8s.v1.cni.cncf.io/networks\": element 1: unknown field "
		 "\"Interface\"; did you mean \"interface\"? (known: name, namespace, interface, "
		 "ips, mac, infiniband-guid, portMappings, bandwidth, cni-args, default-route)");
	refused1(k, "[{\"name\":\"a\",\"defaultRoute\":[\"10.0.0.1\"]}]",
		 "annotation \"k8s.v1.cni.cncf.io/networks\": element 1: unknown field "
		 "\"defaultRoute\"; did you mean \"default-route\"? (known: name, namespace, "
		 "interface, ips, mac, infiniband-guid, portMappings, bandwidth, cni-args, "
		 "default-route)");
	refused1(k, "[{\"interface\":\"x\"}]",
		 "annotation \"k8s.v1.cni.cncf.io/networks\": element 1: field \"name\" is "
		 "missing");
	refused1(k, "[{\"name\":\"a\"},\"b\"]",
		 "annotation \"k8s.v1.cni.cncf.io/networks\": element 2: is a string, expected "
		 "an object");
	refused1(k, "[{\"name\":7}]",
		 "annotation \"k8s.v1.cni.cncf.io/networks\": element 1: field \"name\": is a "
		 "number, expected a string");
	refused1(k, "[{\"name\":\"../x\"}]",
		 "annotation \"k8s.v1.cni.cncf.io/networks\": element 1: field \"name\": network "
		 "name \"../x\": must start with a letter or a digit");
	refused1(k, "[{\"name\":\"a\",\"namespace\":\"Team_A\"}]",
		 "annotation \"k8s.v1.cni.cncf.io/networks\": element 1: field \"namespace\": "
		 "namespace \"Team_A\" may only contain lower case letters, digits and '-'");
	refused1(k, "[{\"name\":\"a\",\"namespace\":\"-a\"}]",
		 "annotation \"k8s.v1.cni.cncf.io/networks\": element 1: field \"namespace\": "
		 "namespace \"-a\" must start and end with a letter or a digit");
	refused1(k, "[{\"name\":\"a\",\"interface\":\"a/b\"}]",
		 "annotation \"k8s.v1.cni.cncf.io/networks\": element 1: field \"interface\": "
		 "interface name \"a/b\": must be printable ASCII without '/', ':' or white "
		 "space");
	refused1(k, "[{\"name\":\"a\",\"ips\":\"10.0.0.1/8\"}]",
		 "annotation \"k8s.v1.cni.cncf.io/networks\": element 1: field \"ips\": is a "
		 "string, expected an array of strings");
	refused1(k, "[{\"name\":\"a\",\"ips\":[\"10.0.0.256/8\"]}]",
		 "annotation \"k8s.v1.cni.cncf.io/networks\": element 1: field \"ips\": "
		 "\"10.0.0.256/8\" is not an IP address");
	refused1(k, "[{\"name\":\"a\",\"mac\":\"01:00:5e:00:00:01\"}]",
		 "annotation \"k8s.v1.cni.cncf.io/networks\": element 1: field \"mac\": "
		 "\"01:00:5e:00:00:01\" is a multicast address, not a unicast one");
	refused1(k, "[{\"name\":\"a\",\"infiniband-guid\":\"c2:11:22:33:44:55\"}]",
		 "annotation \"k8s.v1.cni.cncf.io/networks\": element 1: field "
		 "\"infiniband-guid\": \"c2:11:22:33:44:55\" is not an InfiniBand GUID (8 hex "
		 "octets separated by ':')");
	refused1(k, "[{\"name\":\"a\",\"portMappings\":[{\"hostPort\":80}]}]",
		 "annotation \"k8s.v1.cni.cncf.io/networks\": element 1: field \"portMappings\": "
		 "port mapping 1: field \"containerPort\" is missing");
	refused1(k,
		 "[{\"name\":\"a\",\"portMappings\":[{\"hostPort\":80,\"containerPort\":80,"
		 "\"protocol\":\"icmp\"}]}]",
		 "annotation \"k8s.v1.cni.cncf.io/networks\": element 1: field \"portMappings\": "
		 "port mapping 1: field \"protocol\": \"icmp\" is not tcp, udp or sctp");
	refused1(k,
		 "[{\"name\":\"a\",\"portMappings\":[{\"hostPort\":80,\"containerPort\":80,"
		 "\"hostIP\":\"10.0.0.1/8\"}]}]",
		 "annotation \"k8s.v1.cni.cncf.io/networks\": element 1: field \"portMappings\": "
		 "port mapping 1: field \"hostIP\": \"10.0.0.1/8\" is not an IP address (no "
		 "prefix length here)");
	refused1(k, "[{\"name\":\"a\",\"bandwidth\":{\"ingressRate\":-1}}]",
		 "annotation \"k8s.v1.cni.cncf.io/networks\": element 1: field \"bandwidth\": "
		 "field \"ingressRate\": -1 is not a non-negative integer");
	refused1(k, "[{\"name\":\"a\",\"cni-args\":[1]}]",
		 "annotation \"k8s.v1.cni.cncf.io/networks\": element 1: field \"cni-args\": is "
		 "an array, expected an object");
	refused1(k, "[{\"name\":\"a\",\"default-route\":[\"10.0.0.1/24\"]}]",
		 "annotation \"k8s.v1.cni.cncf.io/networks\": element 1: field "
		 "\"default-route\": \"10.0.0.1/24\" is not an IP address (no prefix length "
		 "here)");
	refused1(k, "[{\"name\":\"a\",\"default-route\":[1]}]",
		 "annotation \"k8s.v1.cni.cncf.io/networks\": element 1: field "
		 "\"default-route\": item 1 is a number, expected a string");
	refused1(k, " {\"name\":\"a\"}",
		 "annotation \"k8s.v1.cni.cncf.io/networks\": is an object, expected a list of "
		 "networks");
	refused1_prefix(k, "[{\"name\":\"a\"}",
			"annotation \"k8s.v1.cni.cncf.io/networks\": invalid JSON near byte ");
}

/* ------------------------------------------------------------ selection: short form */

static void test_short_form(void **state)
{
	(void)state;
	struct selection s;
	parse1(ANN_NETWORKS, " team-a/net1@data0 ,net2,  other/net3 , net4@eth0", &s);
	assert_int_equal(s.n, 4);
	assert_string_equal(s.v[0].ns, "team-a");
	assert_string_equal(s.v[0].network, "net1");
	assert_string_equal(s.v[0].ifname, "data0");
	assert_null(s.v[1].ns);
	assert_string_equal(s.v[1].network, "net2");
	assert_string_equal(s.v[1].ifname, "eth1"); /* eth0 is net4's */
	assert_string_equal(s.v[2].ns, "other");
	assert_string_equal(s.v[2].network, "net3");
	assert_string_equal(s.v[2].ifname, "eth2");
	assert_string_equal(s.v[3].network, "net4");
	assert_string_equal(s.v[3].ifname, "eth0");
	annotations_selection_free(&s);

	/* The NPWG key takes the short form too. */
	parse1(ANN_NPWG_NETWORKS, "macvlan-conf", &s);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.v[0].network, "macvlan-conf");
	assert_string_equal(s.v[0].ifname, "eth0");
	annotations_selection_free(&s);
}

static void test_short_form_refusals(void **state)
{
	(void)state;
	const char *k = ANN_NETWORKS;
	refused1(k, "../x",
		 "annotation \"io.cnihook.networks\": \"../x\": namespace \"..\" may only "
		 "contain lower case letters, digits and '-'");
	refused1(k, "ns/../x",
		 "annotation \"io.cnihook.networks\": \"ns/../x\": network name \"../x\": must "
		 "start with a letter or a digit");
	refused1(k, "a@a/b",
		 "annotation \"io.cnihook.networks\": \"a@a/b\": interface name \"a/b\": must be "
		 "printable ASCII without '/', ':' or white space");
	refused1(k, "a@",
		 "annotation \"io.cnihook.networks\": \"a@\": interface name \"\": is empty");
	refused1(k, "a@..",
		 "annotation \"io.cnihook.networks\": \"a@..\": interface name \"..\": must not "
		 "be \".\" or \"..\"");
	refused1(k, "a@abcdefghijklmnop",
		 "annotation \"io.cnihook.networks\": \"a@abcdefghijklmnop\": interface name "
		 "\"abcdefghijklmnop\": is longer than 15 bytes");
	refused1(k, "/a", "annotation \"io.cnihook.networks\": \"/a\": namespace is empty");
	refused1(k, "a,,b", "annotation \"io.cnihook.networks\": item 2 is empty");
	refused1(k, "a,", "annotation \"io.cnihook.networks\": item 2 is empty");
	refused1(k, "a b",
		 "annotation \"io.cnihook.networks\": \"a b\": network name \"a b\": may only "
		 "contain letters, digits, '_', '.' and '-'");
	refused1(k,
		 "a\x01"
		 "b",
		 "annotation \"io.cnihook.networks\": \"a\\x01b\": network name \"a\\x01b\": may "
		 "only contain letters, digits, '_', '.' and '-'");
	refused1(k, "a@eth0,b@eth0",
		 "annotation \"io.cnihook.networks\": interface \"eth0\" is requested twice");
}

/* ------------------------------------------------------------ selection: rules */

static void test_both_selection_keys(void **state)
{
	(void)state;
	struct kv ann[] = {KV(ANN_NPWG_NETWORKS, "a"), KV(ANN_NETWORKS, "b")};
	refused(KVLIST(ann),
		"annotations \"k8s.v1.cni.cncf.io/networks\" and \"io.cnihook.networks\" are "
		"both set: use one of them");
}

static void test_defaults(void **state)
{
	(void)state;
	char *defaults[] = {(char *)"a", (char *)"b"};
	struct selection s;
	parse_defaults(KVLIST_N(NULL, 0), defaults, 2, &s);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.v[0].network, "a");
	assert_string_equal(s.v[0].ifname, "eth0");
	assert_string_equal(s.v[1].network, "b");
	assert_string_equal(s.v[1].ifname, "eth1");
	annotations_selection_free(&s);

	/* An annotation replaces the defaults. */
	struct kv ann[] = {KV(ANN_NETWORKS, "c")};
	parse_defaults(KVLIST(ann), defaults, 2, &s);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.v[0].network, "c");
	annotations_selection_free(&s);

	/* No annotation, no defaults: nothing to attach. */
	parse(KVLIST_N(NULL, 0), &s);
	assert_int_equal(s.n, 0);
	assert_null(s.v);
	assert_null(s.skip_reason);
	annotations_selection_free(&s);

	/* Unrelated annotations are not looked at. */
	struct kv other[] = {KV("org.example.x", "\xff\xfe")};
	parse(KVLIST(other), &s);
	assert_int_equal(s.n, 0);
	annotations_selection_free(&s);

	char *bad[] = {(char *)"a/b"};
	refused_defaults(KVLIST_N(NULL, 0), bad, 1,
			 "defaultNetworks: network name \"a/b\": may only contain letters, "
			 "digits, '_', '.' and '-'");
}

/* Set but empty (or an empty list): no networks, as Multus reads it; the
 * defaults do not apply. */
static void test_empty_selection(void **state)
{
	(void)state;
	char *defaults[] = {(char *)"a"};
	const char *values[] = {"", "  ", "[]", " [ ] "};
	for (size_t i = 0; i < COUNT(values); i++) {
		struct kv ann[] = {KV(ANN_NETWORKS, values[i])};
		struct selection s;
		parse_defaults(KVLIST(ann), defaults, 1, &s);
		assert_int_equal(s.n, 0);
		annotations_selection_free(&s);
	}
}

static void test_ifname_assignment(void **state)
{
	(void)state;
	/* Unnamed attachments get the lowest ethN that no attachment names. */
	const char *a[] = {"eth0", "eth2", "eth1"};
	ifnames_are("a@eth0,b,c@eth1", a, 3);
	const char *b[] = {"eth1", "eth0"};
	ifnames_are("b,a@eth0", b, 2);
	const char *c[] = {"eth1", "eth0", "eth2"};
	ifnames_are("a@eth1,b,c", c, 3);
	const char *d[] = {"net1", "eth0", "eth1"};
	ifnames_are("a@net1,b,c", d, 3);
	/* The same network twice, on two interfaces, is fine. */
	const char *e[] = {"eth0", "eth1"};
	ifnames_are("a,a", e, 2);
	refused1(ANN_NPWG_NETWORKS,
		 "[{\"name\":\"a\",\"interface\":\"x\"},{\"name\":\"b\",\"interface\":\"x\"}]",
		 "annotation \"k8s.v1.cni.cncf.io/networks\": interface \"x\" is requested "
		 "twice");
}

static void test_attachment_limit(void **state)
{
	(void)state;
	char list[32 * 4 + 8] = "";
	for (int i = 0; i < 32; i++)
		sprintf(list + strlen(list), "%sn%d", i ? "," : "", i);
	struct selection s;
	parse1(ANN_NETWORKS, list, &s);
	assert_int_equal(s.n, 32);
	assert_string_equal(s.v[31].ifname, "eth31");
	annotations_selection_free(&s);
	strcat(list, ",x");
	refused1(ANN_NETWORKS, list,
		 "annotation \"io.cnihook.networks\": 33 networks requested, at most 32");

	char text[33 * 16 + 8] = "[";
	for (int i = 0; i < 33; i++)
		strcat(text, i ? ",{\"name\":\"a\"}" : "{\"name\":\"a\"}");
	strcat(text, "]");
	refused1(ANN_NPWG_NETWORKS, text,
		 "annotation \"k8s.v1.cni.cncf.io/networks\": 33 networks requested, at most 32");

	char *defaults[33];
	for (int i = 0; i < 33; i++)
		defaults[i] = (char *)"d";
	refused_defaults(KVLIST_N(NULL, 0), defaults, 33,
			 "defaultNetworks: 33 networks, at most 32");
}

/* ------------------------------------------------------------ single attachment keys */

static void test_single_keys_need_a_network(void **state)
{
	(void)state;
	refused1(ANN_PORTS, "80:80",
		 "annotation \"io.cnihook.ports\" needs a network: set io.cnihook.networks or "
		 "defaultNetworks");
	refused1(ANN_MAC, "c2:11:22:33:44:55",
		 "annotation \"io.cnihook.mac\" needs a network: set io.cnihook.networks or "
		 "defaultNetworks");
	refused1(ANN_IPS, "10.1.2.3/24",
		 "annotation \"io.cnihook.ips\" needs a network: set io.cnihook.networks or "
		 "defaultNetworks");
	refused1(ANN_BANDWIDTH, "{\"ingressRate\":1}",
		 "annotation \"io.cnihook.bandwidth\" needs a network: set io.cnihook.networks "
		 "or defaultNetworks");
	struct kv ann[] = {KV(ANN_NETWORKS, ""), KV(ANN_PORTS, "80:80")};
	refused(KVLIST(ann),
		"annotation \"io.cnihook.ports\" needs a network: set io.cnihook.networks or "
		"defaultNetworks");
}

static void test_single_keys_go_to_first(void **state)
{
	(void)state;
	char *defaults[] = {(char *)"d1", (char *)"d2"};
	struct kv ann[] = {
	    KV(ANN_PORTS, "8080:80"),
	    KV(ANN_MAC, " C2:11:22:33:44:55 "),
	    KV(ANN_IPS, "10.1.2.3/24, fd00::3/64"),
	    KV(ANN_BANDWIDTH, "{\"egressRate\":10, \"ingressRate\":20}"),
	};
	struct selection s;
	parse_defaults(KVLIST(ann), defaults, 2, &s);
	assert_int_equal(s.n, 2);
	const struct attach_req *r = &s.v[0];
	_cleanup_free_ char *ports = port_mappings_json_text(&r->ports);
	assert_string_equal(ports,
			    "[{\"hostPort\":8080,\"containerPort\":80,\"protocol\":\"tcp\"}]");
	assert_string_equal(r->mac, "c2:11:22:33:44:55");
	assert_int_equal(r->n_ips, 2);
	assert_string_equal(r->ips[0], "10.1.2.3/24");
	assert_string_equal(r->ips[1], "fd00::3/64");
	assert_string_equal(r->bandwidth, "{\"ingressRate\":20,\"egressRate\":10}");
	r = &s.v[1];
	assert_int_equal(r->ports.n, 0);
	assert_null(r->mac);
	assert_int_equal(r->n_ips, 0);
	assert_null(r->bandwidth);
	annotations_selection_free(&s);
}

static void test_single_keys_conflict_with_selection(void **state)
{
	(void)state;
	const char *npwg = "[{\"name\":\"a\",\"portMappings\":[{\"hostPort\":1,"
			   "\"containerPort\":1}],\"mac\":\"c2:00:00:00:00:01\",\"ips\":["
			   "\"10.0.0.1/8\"],\"bandwidth\":{\"ingressRate\":1}}]";
	const struct {
		const char *key, *value, *msg;
	} cases[] = {
	    {ANN_PORTS, "80:80",
	     "annotation \"io.cnihook.ports\": the first network (\"a\") already has "
	     "\"portMappings\" from the network selection: set it in one place"},
	    {ANN_MAC, "c2:00:00:00:00:02",
	     "annotation \"io.cnihook.mac\": the first network (\"a\") already has \"mac\" "
	     "from the network selection: set it in one place"},
	    {ANN_IPS, "10.0.0.2/8",
	     "annotation \"io.cnihook.ips\": the first network (\"a\") already has \"ips\" "
	     "from the network selection: set it in one place"},
	    {ANN_BANDWIDTH, "{\"egressRate\":1}",
	     "annotation \"io.cnihook.bandwidth\": the first network (\"a\") already has "
	     "\"bandwidth\" from the network selection: set it in one place"},
	};
	for (size_t i = 0; i < COUNT(cases); i++) {
		struct kv ann[] = {KV(ANN_NPWG_NETWORKS, npwg), KV(cases[i].key, cases[i].value)};
		refused(KVLIST(ann), cases[i].msg);
	}
}

/* ------------------------------------------------------------ ports */

/* CONVENTIONS.md, portMappings: "A list of portmapping entries.
 * { "hostPort": 8080, "containerPort": 80, "protocol": "tcp" }" */
static void test_ports(void **state)
{
	(void)state;
	ports_are("8080:80", "[{\"hostPort\":8080,\"containerPort\":80,\"protocol\":\"tcp\"}]");
	ports_are("1:65535/UDP", "[{\"hostPort\":1,\"containerPort\":65535,\"protocol\":\"udp\"}]");
	ports_are("10.0.0.1:8080:80/sctp",
		  "[{\"hostPort\":8080,\"containerPort\":80,\"protocol\":\"sctp\","
		  "\"hostIP\":\"10.0.0.1\"}]");
	ports_are("[fd00::1]:8080:80",
		  "[{\"hostPort\":8080,\"containerPort\":80,\"protocol\":\"tcp\","
		  "\"hostIP\":\"fd00::1\"}]");
	/* '[' then an address: the string form; '[' then '{': a JSON list. */
	ports_are("[::1]:80:80", "[{\"hostPort\":80,\"containerPort\":80,\"protocol\":\"tcp\","
				 "\"hostIP\":\"::1\"}]");
	ports_are(" 80:80/tcp , 53:53/udp,[::1]:9:9/Sctp ",
		  "[{\"hostPort\":80,\"containerPort\":80,\"protocol\":\"tcp\"},"
		  "{\"hostPort\":53,\"containerPort\":53,\"protocol\":\"udp\"},"
		  "{\"hostPort\":9,\"containerPort\":9,\"protocol\":\"sctp\",\"hostIP\":\"::1\"}]");
	ports_are(" [{\"containerPort\":80,\"hostPort\":8080,\"protocol\":\"TCP\"},"
		  "{\"hostPort\":53,\"containerPort\":53,\"protocol\":\"udp\","
		  "\"hostIP\":\"fd00::1\"}]",
		  "[{\"hostPort\":8080,\"containerPort\":80,\"protocol\":\"tcp\"},"
		  "{\"hostPort\":53,\"containerPort\":53,\"protocol\":\"udp\","
		  "\"hostIP\":\"fd00::1\"}]");
}

/* ------------------------------------------------------------ unknown keys */

#define OWN_KNOWN                                                                                  \
	"(known: io.cnihook.networks, io.cnihook.ports, io.cnihook.mac, io.cnihook.ips, "          \
	"io.cnihook.bandwidth, io.cnihook.args, io.cnihook.netns, io.cnihook.name, "               \
	"io.cnihook.dns, io.cnihook.dns-servers, io.cnihook.dns-search, io.cnihook.dns-options)"

/* A misspelt key: io.cnihook.port=18280:80 started the container with no port
 * mapping and no word. Every io.cnihook.* key that is not one of cnihook's
 * is refused, naming the nearest key and the known ones. */
static void test_unknown_keys(void **state)
{
	(void)state;
	/* Alone: no selection annotation and no defaultNetworks, where a
	 * container is otherwise left alone. */
	refused1("io.cnihook.port", "18280:80",
		 "annotation \"io.cnihook.port\": unknown key; did you mean "
		 "\"io.cnihook.ports\"? " OWN_KNOWN);
	refused1("io.cnihook.network", "cnihook",
		 "annotation \"io.cnihook.network\": unknown key; did you mean "
		 "\"io.cnihook.networks\"? " OWN_KNOWN);
	/* Beside a valid selection. */
	struct kv with_networks[] = {KV(ANN_NETWORKS, "n"), KV("io.cnihook.port", "80:80")};
	refused(KVLIST(with_networks), "annotation \"io.cnihook.port\": unknown key; did you mean "
				       "\"io.cnihook.ports\"? " OWN_KNOWN);
	/* Swapped letters, case, two edits. */
	refused1("io.cnihook.prots", "80:80",
		 "annotation \"io.cnihook.prots\": unknown key; did you mean "
		 "\"io.cnihook.ports\"? " OWN_KNOWN);
	refused1("io.cnihook.Ports", "80:80",
		 "annotation \"io.cnihook.Ports\": unknown key; did you mean "
		 "\"io.cnihook.ports\"? " OWN_KNOWN);
	refused1("IO.CNIHOOK.MAC", "02:00:00:00:00:01",
		 "annotation \"IO.CNIHOOK.MAC\": unknown key; did you mean "
		 "\"io.cnihook.mac\"? " OWN_KNOWN);
	refused1("io.cnihook.bandwith", "{}",
		 "annotation \"io.cnihook.bandwith\": unknown key; did you mean "
		 "\"io.cnihook.bandwidth\"? " OWN_KNOWN);
	refused1("io.cnihook.netwrk", "n",
		 "annotation \"io.cnihook.netwrk\": unknown key; did you mean "
		 "\"io.cnihook.networks\"? " OWN_KNOWN);
	refused1("io.cnihook.ip", "10.0.0.2/24",
		 "annotation \"io.cnihook.ip\": unknown key; did you mean "
		 "\"io.cnihook.ips\"? " OWN_KNOWN);
	/* Nothing near: the known keys only. */
	refused1("io.cnihook.colour", "red",
		 "annotation \"io.cnihook.colour\": unknown key " OWN_KNOWN);
	refused1("io.cnihook.portMappings", "[]",
		 "annotation \"io.cnihook.portMappings\": unknown key " OWN_KNOWN);
	refused1("io.cnihook.networks.off", "n",
		 "annotation \"io.cnihook.networks.off\": unknown key " OWN_KNOWN);
	refused1("io.cnihook.", "", "annotation \"io.cnihook.\": unknown key " OWN_KNOWN);
	/* The key as it may be shown: escaped, cut. */
	refused1("io.cnihook.\xff\n", "",
		 "annotation \"io.cnihook.\\xff\\x0a\": unknown key " OWN_KNOWN);
	static char long_key[70000];
	memset(long_key, 'p', sizeof(long_key) - 1);
	memcpy(long_key, "io.cnihook.", 11);
	refused1_prefix(long_key, "", "annotation \"io.cnihook.ppppp");
	/* Not cnihook's: left to whoever owns them. */
	struct kv others[] = {KV("io.cnihookports", "80:80"), KV("x-io.cnihook.port", "1"),
			      KV("org.example.io.cnihook.port", "1"),
			      KV("k8s.v1.cni.cncf.io/network-status", "[]")};
	struct selection s;
	parse(KVLIST(others), &s);
	assert_int_equal(s.n, 0);
	assert_null(s.skip_reason);
	annotations_selection_free(&s);
}

/* Refused whatever else the annotations say: with defaultNetworks, an NPWG
 * selection, or on a pod's container that is otherwise left alone. */
static void test_unknown_keys_everywhere(void **state)
{
	(void)state;
	char *const defaults[] = {(char *)"d"};
	const char *msg = "annotation \"io.cnihook.port\": unknown key; did you mean "
			  "\"io.cnihook.ports\"? " OWN_KNOWN;
	struct kv alone[] = {KV("io.cnihook.port", "80:80")};
	refused_defaults(KVLIST(alone), defaults, 1, msg);
	struct kv npwg[] = {KV(ANN_NPWG_NETWORKS, "n"), KV("io.cnihook.port", "80:80")};
	refused(KVLIST(npwg), msg);
	struct kv pod_container[] = {KV("io.kubernetes.cri-o.ContainerType", "container"),
				     KV("io.cnihook.port", "80:80")};
	refused(KVLIST(pod_container), msg);
	/* The first unknown key is named. */
	struct kv two[] = {KV("io.cnihook.mca", "x"), KV("io.cnihook.port", "80:80")};
	refused(KVLIST(two),
		"annotation \"io.cnihook.mca\": unknown key; did you mean \"io.cnihook.mac\"? "
		"" OWN_KNOWN);
}

/* Misspelt port mappings: refused with the spelling meant. */
static void test_ports_misspelt(void **state)
{
	(void)state;
	/* A mistake once made: the protocol after a ':' read as a host IP "18280". */
	ports_refused("18280:80:tcp", "annotation \"io.cnihook.ports\": \"18280:80:tcp\": the "
				      "protocol follows a '/', not a ':'; did you mean "
				      "\"18280:80/tcp\"?");
	ports_refused("127.0.0.1:53:53:UDP",
		      "annotation \"io.cnihook.ports\": \"127.0.0.1:53:53:UDP\": the protocol "
		      "follows a '/', not a ':'; did you mean \"127.0.0.1:53:53/UDP\"?");
	ports_refused("[fd00::1]:8080:80:sctp",
		      "annotation \"io.cnihook.ports\": \"[fd00::1]:8080:80:sctp\": the protocol "
		      "follows a '/', not a ':'; did you mean \"[fd00::1]:8080:80/sctp\"?");
	ports_refused("80,81:81:udp", "annotation \"io.cnihook.ports\": \"80\": expected "
				      "HOSTPORT:CONTAINERPORT");
	ports_refused("81:81,80:tcp",
		      "annotation \"io.cnihook.ports\": \"80:tcp\": the protocol follows a '/', "
		      "not a ':' ([HOSTIP:]HOSTPORT:CONTAINERPORT/PROTOCOL)");
	/* The protocol: the nearest one. */
	ports_refused("80:80/tpc", "annotation \"io.cnihook.ports\": \"80:80/tpc\": protocol "
				   "\"tpc\" is not tcp, udp or sctp; did you mean \"tcp\"?");
	ports_refused("80:80/scpt", "annotation \"io.cnihook.ports\": \"80:80/scpt\": protocol "
				    "\"scpt\" is not tcp, udp or sctp; did you mean \"sctp\"?");
	ports_refused("[{\"hostPort\":80,\"containerPort\":80,\"protocol\":\"udpp\"}]",
		      "annotation \"io.cnihook.ports\": port mapping 1: field \"protocol\": "
		      "\"udpp\" is not tcp, udp or sctp; did you mean \"udp\"?");
	/* JSON fields: the nearest, whatever the case. */
	ports_refused(
	    "[{\"hostport\":80,\"containerPort\":80}]",
	    "annotation \"io.cnihook.ports\": port mapping 1: unknown field \"hostport\"; "
	    "did you mean \"hostPort\"? (known: hostPort, containerPort, protocol, "
	    "hostIP)");
	ports_refused("[{\"hostPort\":80,\"containerPort\":80,\"hostIp\":\"10.0.0.1\"}]",
		      "annotation \"io.cnihook.ports\": port mapping 1: unknown field \"hostIp\"; "
		      "did you mean \"hostIP\"? (known: hostPort, containerPort, protocol, "
		      "hostIP)");
	/* The JSON form keeps its own "protocol" field, and the '/' form its
	 * meaning. */
	ports_are("[{\"hostPort\":18280,\"containerPort\":80,\"protocol\":\"tcp\"}]",
		  "[{\"hostPort\":18280,\"containerPort\":80,\"protocol\":\"tcp\"}]");
	ports_are("18280:80/tcp", "[{\"hostPort\":18280,\"containerPort\":80,\"protocol\":"
				  "\"tcp\"}]");
	ports_are("[fd00::1]:8080:80/udp",
		  "[{\"hostPort\":8080,\"containerPort\":80,\"protocol\":\"udp\","
		  "\"hostIP\":\"fd00::1\"}]");
}

static void test_ports_refusals(void **state)
{
	(void)state;
	ports_refused("80:99999",
		      "annotation \"io.cnihook.ports\": \"80:99999\": container port 99999 is not "
		      "in 1-65535");
	ports_refused("0:80",
		      "annotation \"io.cnihook.ports\": \"0:80\": host port 0 is not in 1-65535");
	ports_refused("65536:80", "annotation \"io.cnihook.ports\": \"65536:80\": host port "
				  "65536 is not in 1-65535");
	ports_refused("99999999999999999999999:80",
		      "annotation \"io.cnihook.ports\": \"99999999999999999999999:80\": host "
		      "port 99999999999999999999999 is not in 1-65535");
	ports_refused("-1:80", "annotation \"io.cnihook.ports\": \"-1:80\": host port \"-1\" is "
			       "not a decimal number");
	ports_refused("1e3:80", "annotation \"io.cnihook.ports\": \"1e3:80\": host port \"1e3\" "
				"is not a decimal number");
	ports_refused("+80:80", "annotation \"io.cnihook.ports\": \"+80:80\": host port \"+80\" "
				"is not a decimal number");
	ports_refused("08:80", "annotation \"io.cnihook.ports\": \"08:80\": host port \"08\" has "
			       "a leading zero");
	ports_refused("80:", "annotation \"io.cnihook.ports\": \"80:\": container port is empty");
	ports_refused("", "annotation \"io.cnihook.ports\": is empty");
	ports_refused("  ", "annotation \"io.cnihook.ports\": is empty");
	ports_refused(":::", "annotation \"io.cnihook.ports\": \":::\": too many ':' (an IPv6 "
			     "host IP goes in brackets: [fd00::1]:8080:80)");
	ports_refused("fd00::1:80:80",
		      "annotation \"io.cnihook.ports\": \"fd00::1:80:80\": too many ':' (an IPv6 "
		      "host IP goes in brackets: [fd00::1]:8080:80)");
	ports_refused("80", "annotation \"io.cnihook.ports\": \"80\": expected "
			    "HOSTPORT:CONTAINERPORT");
	ports_refused("80:80/icmp", "annotation \"io.cnihook.ports\": \"80:80/icmp\": protocol "
				    "\"icmp\" is not tcp, udp or sctp");
	ports_refused("80:80/", "annotation \"io.cnihook.ports\": \"80:80/\": protocol \"\" is "
				"not tcp, udp or sctp");
	ports_refused("999.1.1.1:80:80", "annotation \"io.cnihook.ports\": \"999.1.1.1:80:80\": "
					 "host IP: \"999.1.1.1\" is not an IP address");
	ports_refused("[10.0.0.1]:80:80", "annotation \"io.cnihook.ports\": "
					  "\"[10.0.0.1]:80:80\": host IP in brackets must be IPv6");
	ports_refused("[fd00::1]80:80", "annotation \"io.cnihook.ports\": \"[fd00::1]80:80\": "
					"an IPv6 host IP is written "
					"[ADDRESS]:HOSTPORT:CONTAINERPORT");
	ports_refused("[fe80::1%eth0]:80:80",
		      "annotation \"io.cnihook.ports\": \"[fe80::1%eth0]:80:80\": host IP: "
		      "\"fe80::1%eth0\": IPv6 zone ids ('%') are not allowed");
	ports_refused("80:80,,81:81", "annotation \"io.cnihook.ports\": item 2 is empty");
	ports_refused("[]", "annotation \"io.cnihook.ports\": the list is empty");
	ports_refused(" [ ] ", "annotation \"io.cnihook.ports\": the list is empty");
	ports_refused("[1]", "annotation \"io.cnihook.ports\": \"[1]\": an IPv6 host IP is "
			     "written [ADDRESS]:HOSTPORT:CONTAINERPORT");
	ports_refused("[\"80:80\"]", "annotation \"io.cnihook.ports\": port mapping 1: is a "
				     "string, expected an object");
	ports_refused("{\"hostPort\":80}", "annotation \"io.cnihook.ports\": is an object, "
					   "expected an array of port mappings");
	ports_refused("[{\"hostPort\":0,\"containerPort\":80}]",
		      "annotation \"io.cnihook.ports\": port mapping 1: field \"hostPort\": 0 is "
		      "not an integer in 1-65535");
	ports_refused("[{\"hostPort\":1e3,\"containerPort\":80}]",
		      "annotation \"io.cnihook.ports\": port mapping 1: field \"hostPort\": 1e3 is "
		      "not an integer in 1-65535");
	ports_refused("[{\"hostPort\":80.0,\"containerPort\":80}]",
		      "annotation \"io.cnihook.ports\": port mapping 1: field \"hostPort\": 80.0 "
		      "is not an integer in 1-65535");
	ports_refused("[{\"hostPort\":\"80\",\"containerPort\":80}]",
		      "annotation \"io.cnihook.ports\": port mapping 1: field \"hostPort\": is a "
		      "string, expected an integer in 1-65535");
	ports_refused("[{\"hostPort\":80,\"containerPort\":65536}]",
		      "annotation \"io.cnihook.ports\": port mapping 1: field \"containerPort\": "
		      "65536 is not an integer in 1-65535");
	ports_refused("[{\"hostPort\":80,\"containerPort\":80,\"x\":1}]",
		      "annotation \"io.cnihook.ports\": port mapping 1: unknown field \"x\" "
		      "(known: hostPort, containerPort, protocol, hostIP)");
	ports_refused("[{\"containerPort\":80}]",
		      "annotation \"io.cnihook.ports\": port mapping 1: field \"hostPort\" is "
		      "missing");
	ports_refused("[{\"hostPort\":80,\"hostPort\":81,\"containerPort\":80}]",
		      "annotation \"io.cnihook.ports\": invalid JSON near byte 16: duplicate key "
		      "\"hostPort\"");
}

/* ------------------------------------------------------------ mac, ips, bandwidth */

static void test_mac(void **state)
{
	(void)state;
	const char *ok[][2] = {
	    {"c2:11:22:33:44:55", "c2:11:22:33:44:55"},
	    {"C2-11-22-33-44-5A", "c2:11:22:33:44:5a"},
	    {"02:00:00:00:00:00", "02:00:00:00:00:00"},
	};
	for (size_t i = 0; i < COUNT(ok); i++) {
		struct kv ann[] = {KV(ANN_NETWORKS, "n"), KV(ANN_MAC, ok[i][0])};
		struct selection s;
		parse(KVLIST(ann), &s);
		assert_string_equal(s.v[0].mac, ok[i][1]);
		annotations_selection_free(&s);
	}
	const char *bad[][2] = {
	    {"01:00:5e:00:00:01", "\"01:00:5e:00:00:01\" is a multicast address, not a "
				  "unicast one"},
	    {"ff:ff:ff:ff:ff:ff", "\"ff:ff:ff:ff:ff:ff\" is a multicast address, not a "
				  "unicast one"},
	    {"00:00:00:00:00:00", "\"00:00:00:00:00:00\" is the all-zero address"},
	    {"c2:11:22:33:44", "\"c2:11:22:33:44\" is not a MAC address (6 hex octets "
			       "separated by ':')"},
	    {"c2:11:22:33:44:55:66", "\"c2:11:22:33:44:55:66\" is not a MAC address (6 hex "
				     "octets separated by ':')"},
	    {"c2:11-22:33:44:55", "\"c2:11-22:33:44:55\" is not a MAC address (6 hex octets "
				  "separated by ':')"},
	    {"g2:11:22:33:44:55", "\"g2:11:22:33:44:55\" is not a MAC address (6 hex octets "
				  "separated by ':')"},
	    {"c21122334455", "\"c21122334455\" is not a MAC address (6 hex octets separated "
			     "by ':')"},
	    {"", "\"\" is not a MAC address (6 hex octets separated by ':')"},
	};
	for (size_t i = 0; i < COUNT(bad); i++) {
		struct kv ann[] = {KV(ANN_NETWORKS, "n"), KV(ANN_MAC, bad[i][0])};
		char msg[256];
		snprintf(msg, sizeof(msg), "annotation \"io.cnihook.mac\": %s", bad[i][1]);
		refused(KVLIST(ann), msg);
	}
}

static void test_ips(void **state)
{
	(void)state;
	const char *bad[][2] = {
	    {"10.1.2.3", "\"10.1.2.3\" has no prefix length (ADDRESS/LENGTH)"},
	    {"10.1.2.3/33", "\"10.1.2.3/33\": prefix length 33 is not in 0-32"},
	    {"fd00::1/129", "\"fd00::1/129\": prefix length 129 is not in 0-128"},
	    {"10.1.2.3/024", "\"10.1.2.3/024\": prefix length is not a decimal number"},
	    {"10.1.2.3/", "\"10.1.2.3/\": prefix length is not a decimal number"},
	    {"10.1.2.3/-1", "\"10.1.2.3/-1\": prefix length is not a decimal number"},
	    {"10.1.2/24", "\"10.1.2/24\" is not an IP address"},
	    {"010.1.2.3/24", "\"010.1.2.3/24\" is not an IP address"},
	    {"fe80::1%eth0/64", "\"fe80::1%eth0/64\": IPv6 zone ids ('%') are not allowed"},
	    {"10.1.2.3/24,", "item 2 is empty"},
	    {"", "is empty"},
	};
	for (size_t i = 0; i < COUNT(bad); i++) {
		struct kv ann[] = {KV(ANN_NETWORKS, "n"), KV(ANN_IPS, bad[i][0])};
		char msg[256];
		snprintf(msg, sizeof(msg), "annotation \"io.cnihook.ips\": %s", bad[i][1]);
		refused(KVLIST(ann), msg);
	}
}

/* CONVENTIONS.md, bandwidth: "Rates are in bits per second, burst values are
 * in bits. { "ingressRate": 2048, "ingressBurst": 1600, "egressRate": 4096,
 * "egressBurst": 1600 }" */
static void test_bandwidth(void **state)
{
	(void)state;
	struct kv ann[] = {KV(ANN_NETWORKS, "n"),
			   KV(ANN_BANDWIDTH, "{\"ingressRate\": 2048, \"ingressBurst\": 1600, "
					     "\"egressRate\": 4096, \"egressBurst\": 0}")};
	struct selection s;
	parse(KVLIST(ann), &s);
	assert_string_equal(s.v[0].bandwidth, "{\"ingressRate\":2048,\"ingressBurst\":1600,"
					      "\"egressRate\":4096,\"egressBurst\":0}");
	annotations_selection_free(&s);

	const char *bad[][2] = {
	    {"{\"ingressRate\":-1}", "field \"ingressRate\": -1 is not a non-negative integer"},
	    {"{\"ingressRate\":1.5}", "field \"ingressRate\": 1.5 is not a non-negative "
				      "integer"},
	    {"{\"ingressRate\":1e3}", "field \"ingressRate\": 1e3 is not a non-negative "
				      "integer"},
	    {"{\"ingressRate\":99999999999999999999}",
	     "field \"ingressRate\": 99999999999999999999 is not a non-negative integer"},
	    {"{\"ingressRate\":\"1\"}", "field \"ingressRate\": is a string, expected a "
					"non-negative integer"},
	    {"{\"ingressrate\":1}", "unknown field \"ingressrate\"; did you mean \"ingressRate\"? "
				    "(known: ingressRate, ingressBurst, egressRate, egressBurst)"},
	    {"{\"egress\":1}", "unknown field \"egress\" (known: ingressRate, ingressBurst, "
			       "egressRate, egressBurst)"},
	    {"{}", "sets none of ingressRate, ingressBurst, egressRate, egressBurst"},
	    {"[1]", "is an array, expected an object"},
	    {"", "empty input, expected JSON"},
	    {"{\"ingressRate\":1,\"ingressRate\":2}",
	     "invalid JSON near byte 17: duplicate key \"ingressRate\""},
	};
	for (size_t i = 0; i < COUNT(bad); i++) {
		struct kv a[] = {KV(ANN_NETWORKS, "n"), KV(ANN_BANDWIDTH, bad[i][0])};
		char msg[256];
		snprintf(msg, sizeof(msg), "annotation \"io.cnihook.bandwidth\": %s", bad[i][1]);
		refused(KVLIST(a), msg);
	}
}

/* ------------------------------------------------------------ args, netns */

/* SPEC (CNI_ARGS): "Alphanumeric key-value pairs separated by semicolons;
 * for example, "FOO=BAR;ABC=123"" */
static void test_args(void **state)
{
	(void)state;
	struct selection s;
	parse1(ANN_ARGS, "FOO=BAR;ABC=123;EMPTY=;x.y-z_1=caf\xc3\xa9", &s);
	assert_int_equal(s.args.n, 4);
	const char *expected[] = {"FOO=BAR", "ABC=123", "EMPTY=", "x.y-z_1=caf\xc3\xa9", NULL};
	args_are(&s.args, expected);
	annotations_selection_free(&s);

	const char *k = ANN_ARGS;
	refused1(k, "", "annotation \"io.cnihook.args\": is empty");
	refused1(k, "=1", "annotation \"io.cnihook.args\": \"=1\": the key is empty");
	refused1(k, "A", "annotation \"io.cnihook.args\": \"A\" is not a KEY=VALUE pair");
	refused1(k, "A=1;;B=2", "annotation \"io.cnihook.args\": pair 2 is empty");
	refused1(k, "A=1;", "annotation \"io.cnihook.args\": pair 2 is empty");
	refused1(k, "A=b=c",
		 "annotation \"io.cnihook.args\": \"A=b=c\": value \"b=c\" must not "
		 "contain ';', '=' or control characters");
	refused1(k, "A=b\tc",
		 "annotation \"io.cnihook.args\": \"A=b\\x09c\": value \"b\\x09c\" "
		 "must not contain ';', '=' or control characters");
	refused1(k, "A B=1",
		 "annotation \"io.cnihook.args\": \"A B=1\": the key may only "
		 "contain letters, digits, '_', '-' and '.'");
	refused1(k, "A=1;A=2", "annotation \"io.cnihook.args\": key A is given twice");
	refused1(k, "IP=10.0.0.1",
		 "annotation \"io.cnihook.args\": \"IP=10.0.0.1\": key IP is "
		 "set by cnihook itself");
	refused1(k, "mac=c2:00:00:00:00:01",
		 "annotation \"io.cnihook.args\": \"mac=c2:00:00:00:00:01\": key mac is set by "
		 "cnihook itself");
	refused1(k, "IgnoreUnknown=0",
		 "annotation \"io.cnihook.args\": \"IgnoreUnknown=0\": key "
		 "IgnoreUnknown is set by cnihook itself");
	refused1(k, "K8S_POD_NAME=x",
		 "annotation \"io.cnihook.args\": \"K8S_POD_NAME=x\": key "
		 "K8S_POD_NAME is set by cnihook itself");
	refused1(k, "K8S_POD_ANYTHING=x",
		 "annotation \"io.cnihook.args\": "
		 "\"K8S_POD_ANYTHING=x\": key K8S_POD_ANYTHING is set by "
		 "cnihook itself");
}

static void test_netns(void **state)
{
	(void)state;
	struct selection s;
	parse1(ANN_NETNS, "/run/netns/vm 1", &s);
	assert_string_equal(s.netns, "/run/netns/vm 1");
	annotations_selection_free(&s);
	refused1(ANN_NETNS, "run/netns/x",
		 "annotation \"io.cnihook.netns\": is not an absolute path");
	refused1(ANN_NETNS, "", "annotation \"io.cnihook.netns\": is not an absolute path");
	refused1(ANN_NETNS, "/run/netns/a\nb",
		 "annotation \"io.cnihook.netns\": contains control characters");
}

/* io.cnihook.name: a DNS name, for the dnsname plugin. */
static void test_name(void **state)
{
	(void)state;
	struct selection s;
	parse1(ANN_NAME, "db-1.example", &s);
	assert_string_equal(s.name, "db-1.example");
	annotations_selection_free(&s);
	refused1(ANN_NAME, "db_1",
		 "annotation \"io.cnihook.name\": \"db_1\" is not a DNS name (labels of "
		 "letters, digits and '-', separated by '.', at most 253 characters)");
	refused1(ANN_NAME, "",
		 "annotation \"io.cnihook.name\": \"\" is not a DNS name (labels of letters, "
		 "digits and '-', separated by '.', at most 253 characters)");
}

/* ------------------------------------------------------------ Kubernetes */

/* The CNI plugin's parse of a pod's annotations: the pod pairs as given (from
 * CNI_ARGS), net1, net2, ... even with no pair, no defaults, and the engines'
 * container-type annotation not consulted. */
static void test_pod_annotations(void **state)
{
	(void)state;
	struct kv ann[] = {
	    KV("io.kubernetes.cri.container-type", "container"),
	    KV(ANN_NPWG_NETWORKS, "a,b@blue,c"),
	};
	struct kv pod[] = {KV("K8S_POD_NAME", "web-0"), KV("K8S_POD_NAMESPACE", "ns")};
	struct selection s;
	char *err = NULL;
	assert_int_equal(annotations_parse_pod(KVLIST(ann), KVLIST(pod), &s, &err), 0);
	assert_null(s.skip_reason);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.v[0].ifname, "net1");
	assert_string_equal(s.v[1].ifname, "blue");
	assert_string_equal(s.v[2].ifname, "net2");
	const char *expected[] = {"K8S_POD_NAME=web-0", "K8S_POD_NAMESPACE=ns", NULL};
	args_are(&s.pod, expected);
	annotations_selection_free(&s);

	assert_int_equal(annotations_parse_pod(KVLIST_N(ann + 1, 1), KVLIST_N(NULL, 0), &s, &err),
			 0);
	assert_string_equal(s.v[0].ifname, "net1");
	assert_int_equal(s.pod.n, 0);
	annotations_selection_free(&s);

	/* The same refusals as the hook's. */
	struct kv bad[] = {KV(ANN_NPWG_NETWORKS, "[{\"name\":\"a\"")};
	assert_int_equal(annotations_parse_pod(KVLIST(bad), KVLIST_N(NULL, 0), &s, &err), -1);
	struct selection s2;
	char *err2 = NULL;
	assert_int_equal(annotations_parse(KVLIST(bad), DEFAULTS(NULL, 0), &s2, &err2), -1);
	assert_string_equal(err, err2);
	free(err);
	free(err2);
}

static void test_annotations_select(void **state)
{
	(void)state;
	struct kv none[] = {KV("app", "web"), KV("io.cnihookx", "1")};
	struct kv npwg[] = {KV("app", "web"), KV(ANN_NPWG_NETWORKS, "a")};
	struct kv ports[] = {KV(ANN_PORTS, "8080:80")};
	/* Selected, so that the refusal of the unknown key reaches the pod. */
	struct kv upper[] = {KV("IO.CNIHOOK.Networks", "a")};
	struct kv npwg_upper[] = {KV("K8S.v1.cni.cncf.io/networks", "a")};
	assert_false(annotations_select(KVLIST(none)));
	assert_true(annotations_select(KVLIST(upper)));
	assert_false(annotations_select(KVLIST(npwg_upper)));
	assert_false(annotations_select(KVLIST_N(NULL, 0)));
	assert_true(annotations_select(KVLIST(npwg)));
	assert_true(annotations_select(KVLIST(ports)));
	assert_string_equal(annotations_selected_by(KVLIST(npwg)), ANN_NPWG_NETWORKS);
	assert_null(annotations_selected_by(KVLIST(ports)));
}

static void test_crio_sandbox(void **state)
{
	(void)state;
	struct kv ann[] = {
	    KV("io.kubernetes.cri-o.ContainerType", "sandbox"),
	    KV("io.kubernetes.pod.name", "web-0"),
	    KV("io.kubernetes.pod.namespace", "default"),
	    KV("io.kubernetes.pod.uid", "1f0c8e4a-0d6e-4c55-9a37-3c0f7a7f8f11"),
	    KV("io.kubernetes.cri-o.SandboxID", "sandboxid123"),
	    KV(ANN_NPWG_NETWORKS, "net1,other@eth3,third"),
	};
	struct selection s;
	parse(KVLIST(ann), &s);
	assert_null(s.skip_reason);
	assert_int_equal(s.n, 3);
	/* In a pod, eth0 is the cluster network's: the extra networks are
	 * net1, net2, ... unless named (as with Multus). */
	assert_string_equal(s.v[0].ifname, "net1");
	assert_string_equal(s.v[1].ifname, "eth3");
	assert_string_equal(s.v[2].ifname, "net2");
	const char *expected[] = {"K8S_POD_NAME=web-0", "K8S_POD_NAMESPACE=default",
				  "K8S_POD_UID=1f0c8e4a-0d6e-4c55-9a37-3c0f7a7f8f11",
				  "K8S_POD_INFRA_CONTAINER_ID=sandboxid123", NULL};
	args_are(&s.pod, expected);
	annotations_selection_free(&s);

	/* No sandbox id annotation: the sandbox is the container itself. */
	struct kv ann2[] = {
	    KV("io.kubernetes.cri-o.ContainerType", "sandbox"),
	    KV("io.kubernetes.pod.name", "web-0"),
	    KV("io.kubernetes.pod.namespace", "default"),
	};
	parse(KVLIST(ann2), &s);
	const char *expected2[] = {"K8S_POD_NAME=web-0", "K8S_POD_NAMESPACE=default",
				   "K8S_POD_INFRA_CONTAINER_ID=" CID, NULL};
	args_are(&s.pod, expected2);
	annotations_selection_free(&s);

	/* A name without a namespace is not a pod. */
	struct kv ann3[] = {KV("io.kubernetes.pod.name", "web-0")};
	parse(KVLIST(ann3), &s);
	assert_int_equal(s.pod.n, 0);
	annotations_selection_free(&s);
}

static void test_containerd_sandbox(void **state)
{
	(void)state;
	struct kv ann[] = {
	    KV("io.kubernetes.cri.container-type", "sandbox"),
	    KV("io.kubernetes.cri.sandbox-name", "web-0"),
	    KV("io.kubernetes.cri.sandbox-namespace", "prod"),
	    KV("io.kubernetes.cri.sandbox-uid", "uid-1"),
	    KV("io.kubernetes.cri.sandbox-id", "sb1"),
	    KV(ANN_NETWORKS, "net1"),
	};
	struct selection s;
	parse(KVLIST(ann), &s);
	assert_null(s.skip_reason);
	const char *expected[] = {"K8S_POD_NAME=web-0", "K8S_POD_NAMESPACE=prod",
				  "K8S_POD_UID=uid-1", "K8S_POD_INFRA_CONTAINER_ID=sb1", NULL};
	args_are(&s.pod, expected);
	annotations_selection_free(&s);
}

static void test_pod_containers_skipped(void **state)
{
	(void)state;
	/* Everything else is left unread: even a broken selection. */
	struct kv crio[] = {
	    KV(ANN_NETWORKS, "../bad"),
	    KV("io.kubernetes.cri-o.ContainerType", "container"),
	    KV("io.kubernetes.pod.name", "web-0"),
	    KV("io.kubernetes.pod.namespace", "default"),
	};
	struct selection s;
	parse(KVLIST(crio), &s);
	assert_string_equal(s.skip_reason, crio_container);
	assert_int_equal(s.n, 0);
	assert_int_equal(s.pod.n, 0);
	assert_int_equal(s.args.n, 0);
	annotations_selection_free(&s);
	assert_null(s.skip_reason);

	struct kv cri[] = {
	    KV("io.kubernetes.cri.container-type", "container"),
	    KV(ANN_NPWG_NETWORKS, "net1"),
	};
	parse(KVLIST(cri), &s);
	assert_string_equal(s.skip_reason,
			    "not a pod sandbox (io.kubernetes.cri.container-type=container)");
	assert_int_equal(s.n, 0);
	annotations_selection_free(&s);
}

static void test_kubernetes_refusals(void **state)
{
	(void)state;
	refused1("io.kubernetes.cri-o.ContainerType", "pod",
		 "annotation \"io.kubernetes.cri-o.ContainerType\": \"pod\" is neither "
		 "\"sandbox\" nor \"container\"");
	refused1("io.kubernetes.cri.container-type", "",
		 "annotation \"io.kubernetes.cri.container-type\": \"\" is neither \"sandbox\" "
		 "nor \"container\"");
	struct kv semi[] = {
	    KV("io.kubernetes.pod.name", "a;IP=10.0.0.1"),
	    KV("io.kubernetes.pod.namespace", "default"),
	};
	refused(KVLIST(semi),
		"annotation \"io.kubernetes.pod.name\": value \"a;IP=10.0.0.1\" must not contain "
		"';', '=' or control characters");
	struct kv empty[] = {
	    KV("io.kubernetes.cri.sandbox-name", "a"),
	    KV("io.kubernetes.cri.sandbox-namespace", ""),
	};
	refused(KVLIST(empty), "annotation \"io.kubernetes.cri.sandbox-namespace\": is "
			       "empty");
}

/* ------------------------------------------------------------ hostile values */

static void test_hostile_sizes(void **state)
{
	(void)state;
	/* 10 MB */
	size_t big = 10 * 1024 * 1024;
	char *v = malloc(big + 1);
	assert_non_null(v);
	memset(v, 'a', big);
	v[big] = '\0';
	refused1(ANN_NETWORKS, v,
		 "annotation \"io.cnihook.networks\": value of 10485760 bytes, more than the "
		 "1048576 allowed");
	refused1(ANN_ARGS, v,
		 "annotation \"io.cnihook.args\": value of 10485760 bytes, more than the 1048576 "
		 "allowed");
	/* 100,000 levels of nesting: refused for the nesting (not read through). */
	size_t depth = 100000;
	memset(v, '[', depth);
	memset(v + depth, ']', depth);
	v[2 * depth] = '\0';
	refused1(ANN_NPWG_NETWORKS, v,
		 "annotation \"k8s.v1.cni.cncf.io/networks\": nested deeper than 64 levels");
	struct kv ports[] = {KV(ANN_NETWORKS, "n"), KV(ANN_PORTS, v)};
	refused(KVLIST(ports), "annotation \"io.cnihook.ports\": nested deeper than 64 levels");
	/* The parser's bound is the largest policy.maxAnnotationSize, 1 MiB
	 * (there was once a second, smaller, limit of 64 KiB): exactly that
	 * is accepted (then refused for what it says), one byte more is not. */
	memset(v, 'a', 1048576);
	v[1048576] = '\0';
	refused1_prefix(ANN_NETWORKS, v, "annotation \"io.cnihook.networks\": \"aaaa");
	memset(v, 'a', 1048577);
	v[1048577] = '\0';
	refused1(ANN_NETWORKS, v,
		 "annotation \"io.cnihook.networks\": value of 1048577 bytes, more than the "
		 "1048576 allowed");
	free(v);
}

static void test_hostile_encoding(void **state)
{
	(void)state;
	refused1(ANN_NETWORKS, "net\xff",
		 "annotation \"io.cnihook.networks\": not valid UTF-8 (byte 3)");
	refused1(ANN_NETWORKS, "\xc0\xaf",
		 "annotation \"io.cnihook.networks\": not valid UTF-8 (byte 0)"); /* overlong '/' */
	refused1(ANN_NETWORKS, "a\xed\xa0\x80",
		 "annotation \"io.cnihook.networks\": not valid UTF-8 (byte 1)"); /* surrogate */
	refused1(ANN_ARGS, "A=\xe2\x82",
		 "annotation \"io.cnihook.args\": not valid UTF-8 (byte 2)");
	/* Valid UTF-8, but not a network name. */
	refused1(ANN_NETWORKS, "caf\xc3\xa9",
		 "annotation \"io.cnihook.networks\": \"caf\\xc3\\xa9\": network name "
		 "\"caf\\xc3\\xa9\": may only contain letters, digits, '_', '.' and '-'");
	/* A NUL inside a JSON string would cut the name short. */
	refused1(ANN_NPWG_NETWORKS, "[{\"name\":\"a\\u0000../../x\"}]",
		 "annotation \"k8s.v1.cni.cncf.io/networks\": invalid JSON near byte 11: a string "
		 "contains an escaped NUL (\\u0000)");
	/* An escaped backslash before "u0000" is not a NUL. */
	refused1(ANN_NPWG_NETWORKS, "[{\"name\":\"a\\\\u0000\"}]",
		 "annotation \"k8s.v1.cni.cncf.io/networks\": element 1: field \"name\": network "
		 "name \"a\\x5cu0000\": may only contain letters, digits, '_', '.' and '-'");
	/* Control characters in JSON strings, once decoded. */
	refused1(ANN_NPWG_NETWORKS, "[{\"name\":\"a\",\"interface\":\"e\\n0\"}]",
		 "annotation \"k8s.v1.cni.cncf.io/networks\": element 1: field \"interface\": "
		 "interface name \"e\\x0a0\": must be printable ASCII without '/', ':' or white "
		 "space");
}

static void test_hostile_structure(void **state)
{
	(void)state;
	/* JSON has no comments: only cnihook.json(5) allows them. */
	refused1(ANN_NPWG_NETWORKS, "[/*c*/{\"name\":\"a\"}]",
		 "annotation \"k8s.v1.cni.cncf.io/networks\": invalid JSON near byte 1: lexical "
		 "error: probable comment found in input text, comments are not enabled.");
	refused1(ANN_NPWG_NETWORKS, "[{\"name\":\"a\",\"name\":\"b\"}]",
		 "annotation \"k8s.v1.cni.cncf.io/networks\": invalid JSON near byte 13: duplicate "
		 "key \"name\"");
	struct kv twice[] = {KV(ANN_NETWORKS, "a"), KV(ANN_NETWORKS, "b")};
	refused(KVLIST(twice), "annotation \"io.cnihook.networks\": given twice");
	refused1(ANN_NPWG_NETWORKS, "[[{\"name\":\"a\"}]]",
		 "annotation \"k8s.v1.cni.cncf.io/networks\": element 1: is an array, expected "
		 "an object");
	refused1(ANN_NPWG_NETWORKS, "[null]",
		 "annotation \"k8s.v1.cni.cncf.io/networks\": element 1: is null, expected an "
		 "object");
	/* Long values are cut in messages. */
	char name[300];
	memset(name, 'x', sizeof(name) - 1);
	name[0] = '-';
	name[sizeof(name) - 1] = '\0';
	char msg[600];
	snprintf(msg, sizeof(msg),
		 "annotation \"io.cnihook.networks\": \"%.80s...\": network name \"%.80s...\": "
		 "is longer than 255 bytes",
		 name, name);
	refused1(ANN_NETWORKS, name, msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_json_every_field),
	    cmocka_unit_test(test_json_refusals),
	    cmocka_unit_test(test_short_form),
	    cmocka_unit_test(test_short_form_refusals),
	    cmocka_unit_test(test_both_selection_keys),
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_empty_selection),
	    cmocka_unit_test(test_ifname_assignment),
	    cmocka_unit_test(test_attachment_limit),
	    cmocka_unit_test(test_single_keys_need_a_network),
	    cmocka_unit_test(test_single_keys_go_to_first),
	    cmocka_unit_test(test_single_keys_conflict_with_selection),
	    cmocka_unit_test(test_ports),
	    cmocka_unit_test(test_ports_refusals),
	    cmocka_unit_test(test_ports_misspelt),
	    cmocka_unit_test(test_unknown_keys),
	    cmocka_unit_test(test_unknown_keys_everywhere),
	    cmocka_unit_test(test_mac),
	    cmocka_unit_test(test_ips),
	    cmocka_unit_test(test_bandwidth),
	    cmocka_unit_test(test_args),
	    cmocka_unit_test(test_netns),
	    cmocka_unit_test(test_name),
	    cmocka_unit_test(test_crio_sandbox),
	    cmocka_unit_test(test_containerd_sandbox),
	    cmocka_unit_test(test_pod_containers_skipped),
	    cmocka_unit_test(test_pod_annotations),
	    cmocka_unit_test(test_annotations_select),
	    cmocka_unit_test(test_kubernetes_refusals),
	    cmocka_unit_test(test_hostile_sizes),
	    cmocka_unit_test(test_hostile_encoding),
	    cmocka_unit_test(test_hostile_structure),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
