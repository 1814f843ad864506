/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/request/policy.c: the `policy` object of cnihook.json(5) and its checks. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "request/annotations.h"
#include "request/policy.h"
#include "hooktest.h"

#define KV(k, v)                                                                                   \
	{                                                                                          \
		(char *)(k), (char *)(v)                                                           \
	}
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define CID	 "0123456789abcdef"
/* The annotations io.cnihook.networks=a and k=v. */
#define NETWORK_A_AND(k, v) KVLIST(((struct kv[]){KV(ANN_NETWORKS, "a"), KV(k, v)}))
#define CONF		    "cnihook.json"

/* ------------------------------------------------------------ helpers */

/* The policy of `json` (a cnihook.json "policy" object; NULL: defaults). */
static void load(const char *text, struct policy *p)
{
	_cleanup_json_ json *v = NULL;
	char *err = NULL;
	if (text && json_parse_with(text, strlen(text), "test", &util_json, &v, &err) < 0)
		fail_msg("bad test JSON: %s", err);
	if (policy_parse(v, CONF, p, &err) < 0)
		fail_msg("policy_parse failed: %s", err);
}

/* Parsing `json` fails with exactly `msg` and leaves the output alone. */
static void parse_fails(const char *text, const char *msg)
{
	_cleanup_json_ json *v = NULL;
	char *err = NULL;
	if (json_parse_with(text, strlen(text), "test", &util_json, &v, &err) < 0)
		fail_msg("bad test JSON: %s", err);
	struct policy p, sentinel;
	memset(&p, 0x5a, sizeof(p));
	memcpy(&sentinel, &p, sizeof(p));
	if (policy_parse(v, CONF, &p, &err) == 0) {
		policy_free(&p);
		fail_msg("policy %s was accepted, expected: %s", text, msg);
	}
	assert_non_null(err);
	assert_string_equal(err, msg);
	assert_memory_equal(&p, &sentinel, sizeof(p));
	free(err);
}

/* Parse the annotations (they must be valid) and check them against the
 * policy: NULL `msg` means accepted, else refused with exactly `msg`. */
static void check_defaults(const char *policy_json, const struct kvlist *ann, char *const *defaults,
			   size_t n_defaults, const char *msg)
{
	struct policy p;
	struct selection s;
	char *err = NULL;
	load(policy_json, &p);
	memset(&s, 0, sizeof(s));
	if (policy_check_annotations(&p, ann, &err) < 0)
		goto done;
	if (annotations_parse(ann, DEFAULTS(defaults, n_defaults), &s, &err) < 0)
		fail_msg("annotations_parse failed (the test is wrong): %s", err);
	policy_check_selection_ann(&p, &s, ann, &err);
done:
	annotations_selection_free(&s);
	policy_free(&p);
	if (msg == NULL && err != NULL)
		fail_msg("refused, expected accepted: %s", err);
	if (msg != NULL && err == NULL)
		fail_msg("accepted, expected refused: %s", msg);
	if (msg != NULL)
		assert_string_equal(err, msg);
	free(err);
}

static void check(const char *policy_json, const struct kvlist *ann, const char *msg)
{
	check_defaults(policy_json, ann, NULL, 0, msg);
}

static void check1(const char *policy_json, const char *key, const char *value, const char *msg)
{
	struct kv ann[] = {KV(key, value)};
	check(policy_json, KVLIST(ann), msg);
}

/* ------------------------------------------------------------ parsing */

static void assert_defaults(const struct policy *p)
{
	assert_int_equal(p->n_networks, 1);
	assert_string_equal(p->networks[0], "*");
	assert_int_equal(p->allowed_fields, POLICY_PORT_MAPPINGS | POLICY_MAC | POLICY_IPS |
						POLICY_BANDWIDTH | POLICY_ARGS | POLICY_IB_GUID |
						POLICY_DNS);
	assert_false(p->allowed_fields & POLICY_NETNS);
	assert_int_equal(p->host_port_min, 1024);
	assert_int_equal(p->host_port_max, 65535);
	assert_int_equal(p->n_host_ips, 0);
	assert_int_equal(p->n_netns_prefixes, 0);
	assert_int_equal(p->max_attachments, 8);
	assert_int_equal(p->max_annotation, 65536);
}

static void test_defaults(void **state)
{
	(void)state;
	struct policy p;
	policy_defaults(&p);
	assert_defaults(&p);
	policy_free(&p);
	load(NULL, &p); /* no "policy" object */
	assert_defaults(&p);
	policy_free(&p);
	load("{}", &p);
	assert_defaults(&p);
	policy_free(&p);
}

static void test_parse_all(void **state)
{
	(void)state;
	struct policy p;
	load("{\"networks\": [\"net-*\", \"db\"], \"allowedFields\": [\"mac\", \"netns\"],"
	     " \"hostPortRange\": [30000, 32767], \"hostIPs\": [\"127.0.0.1\", \"fd00::1\"],"
	     " \"netnsPrefixes\": [\"/run/netns\", \"/var/run/netns/\"], \"maxAttachments\": 32,"
	     " \"maxAnnotationSize\": 1048576}",
	     &p);
	assert_int_equal(p.n_networks, 2);
	assert_string_equal(p.networks[0], "net-*");
	assert_string_equal(p.networks[1], "db");
	assert_int_equal(p.allowed_fields, POLICY_MAC | POLICY_NETNS);
	assert_int_equal(p.host_port_min, 30000);
	assert_int_equal(p.host_port_max, 32767);
	assert_int_equal(p.n_host_ips, 2);
	assert_string_equal(p.host_ips[1], "fd00::1");
	assert_int_equal(p.n_netns_prefixes, 2);
	assert_string_equal(p.netns_prefixes[1], "/var/run/netns/");
	assert_int_equal(p.max_attachments, 32);
	assert_int_equal(p.max_annotation, 1048576);
	policy_free(&p);

	/* Empty lists: no network may be selected, no field set. */
	load("{\"networks\": [], \"allowedFields\": [], \"hostPortRange\": [1, 65535]}", &p);
	assert_int_equal(p.n_networks, 0);
	assert_int_equal(p.allowed_fields, 0);
	assert_int_equal(p.host_port_min, 1);
	policy_free(&p);
}

static void test_parse_errors(void **state)
{
	(void)state;
	parse_fails("[]", CONF ": field \"policy\": must be an object");
	parse_fails("{\"network\": []}",
		    CONF ": field \"policy.network\": unknown field; did you mean "
			 "\"policy.networks\"? (known: policy.networks, policy.allowedFields, "
			 "policy.hostPortRange, policy.hostIPs, policy.netnsPrefixes, "
			 "policy.maxAttachments, policy.maxAnnotationSize)");
	parse_fails("{\"networks\": \"*\"}",
		    CONF ": field \"policy.networks\": must be an array of a network name or glob");
	parse_fails("{\"networks\": [\"a\", 1]}",
		    CONF ": field \"policy.networks[1]\": is a number, expected a network name or "
			 "glob");
	parse_fails("{\"networks\": [\"\"]}",
		    CONF ": field \"policy.networks[0]\": \"\" is not a network name or glob");
	parse_fails("{\"allowedFields\": [\"mac\", \"dhcp\"]}",
		    CONF ": field \"policy.allowedFields[1]\": \"dhcp\" is not one of "
			 "\"portMappings\", \"mac\", \"ips\", \"bandwidth\", \"args\", "
			 "\"infinibandGUID\", \"netns\", \"dns\"");
	parse_fails("{\"allowedFields\": {}}",
		    CONF ": field \"policy.allowedFields\": must be an array of one of "
			 "\"portMappings\", \"mac\", \"ips\", \"bandwidth\", \"args\", "
			 "\"infinibandGUID\", \"netns\", \"dns\"");
	static const char *const bad_ranges[] = {
	    "[2000, 1000]", "[0, 1000]",      "[1000, 65536]",	"[1000]",
	    "[1, 2, 3]",    "\"1024-65535\"", "[1024.5, 2000]", "[\"1\", 2]",
	};
	for (size_t i = 0; i < COUNT(bad_ranges); i++) {
		char *text = xasprintf("{\"hostPortRange\": %s}", bad_ranges[i]);
		parse_fails(text,
			    CONF ": field \"policy.hostPortRange\": must be [min, max], whole "
				 "numbers with 1 <= min <= max <= 65535");
		free(text);
	}
	parse_fails("{\"hostIPs\": [\"127.0.0.1\", \"300.1.1.1\"]}",
		    CONF ": field \"policy.hostIPs[1]\": \"300.1.1.1\" is not an IPv4 or IPv6 "
			 "address");
	parse_fails("{\"hostIPs\": [\"10.0.0.0/8\"]}",
		    CONF ": field \"policy.hostIPs[0]\": \"10.0.0.0/8\" is not an IPv4 or IPv6 "
			 "address");
	parse_fails("{\"netnsPrefixes\": [\"run/netns\"]}",
		    CONF ": field \"policy.netnsPrefixes[0]\": \"run/netns\" is not an absolute "
			 "directory without \".\" or \"..\"");
	parse_fails("{\"netnsPrefixes\": [\"/run/netns/../..\"]}",
		    CONF ": field \"policy.netnsPrefixes[0]\": \"/run/netns/../..\" is not an "
			 "absolute directory without \".\" or \"..\"");
	parse_fails("{\"netnsPrefixes\": [\"/run/./netns\"]}",
		    CONF ": field \"policy.netnsPrefixes[0]\": \"/run/./netns\" is not an "
			 "absolute directory without \".\" or \"..\"");
	static const char *const bad_counts[] = {"0", "33", "\"8\"", "8.0", "-1", "true"};
	for (size_t i = 0; i < COUNT(bad_counts); i++) {
		char *text = xasprintf("{\"maxAttachments\": %s}", bad_counts[i]);
		parse_fails(text, CONF ": field \"policy.maxAttachments\": must be a whole number, "
				       "1-32");
		free(text);
	}
	static const char *const bad_sizes[] = {"0", "1048577", "\"64k\"", "null"};
	for (size_t i = 0; i < COUNT(bad_sizes); i++) {
		char *text = xasprintf("{\"maxAnnotationSize\": %s}", bad_sizes[i]);
		parse_fails(text, CONF ": field \"policy.maxAnnotationSize\": must be a whole "
				       "number of bytes, 1-1048576 (1 MiB)");
		free(text);
	}
}

/* ------------------------------------------------------------ sizes */

static void test_annotation_size(void **state)
{
	(void)state;
	char *big = xmalloc(70001);
	memset(big, '1', 70000);
	big[70000] = '\0';
	check1(NULL, ANN_PORTS, big,
	       "annotation \"io.cnihook.ports\": 70000 bytes: larger than "
	       "policy.maxAnnotationSize (65536)");
	check1(NULL, ANN_NETNS, big,
	       "annotation \"io.cnihook.netns\": 70000 bytes: larger than "
	       "policy.maxAnnotationSize (65536)");
	/* An annotation cnihook does not read is not its business. */
	check1(NULL, "org.example.big", big, NULL);
	free(big);

	/* The limit itself is allowed. */
	check1("{\"maxAnnotationSize\": 3}", ANN_NETWORKS, "abc", NULL);
	check1("{\"maxAnnotationSize\": 3}", ANN_NETWORKS, "abcd",
	       "annotation \"io.cnihook.networks\": 4 bytes: larger than "
	       "policy.maxAnnotationSize (3)");
	struct kv npwg[] = {KV(ANN_NPWG_NETWORKS, "[{\"name\":\"a\"}]")};
	check("{\"maxAnnotationSize\": 10}", KVLIST(npwg),
	      "annotation \"k8s.v1.cni.cncf.io/networks\": 14 bytes: larger than "
	      "policy.maxAnnotationSize (10)");

	/* The setting at its largest, 1 MiB, is what the annotations may be
	 * (a 100 kB value was once refused by a second limit, 64 KiB). */
	const char *max = "{\"maxAnnotationSize\": 1048576}";
	size_t n = 1048576;
	char *v = xmalloc(n + 2);
	memcpy(v, "n", 1);
	memset(v + 1, ' ', 100000 - 1);
	v[100000] = '\0';
	check1(max, ANN_NETWORKS, v, NULL);
	memset(v + 1, ' ', n - 1);
	v[n] = '\0';
	check1(max, ANN_NETWORKS, v, NULL);
	v[n] = ' ', v[n + 1] = '\0';
	check1(max, ANN_NETWORKS, v,
	       "annotation \"io.cnihook.networks\": 1048577 bytes: larger than "
	       "policy.maxAnnotationSize (1048576)");
	free(v);
}

/* ------------------------------------------------------------ networks */

static void test_networks(void **state)
{
	(void)state;
	static const char pol[] = "{\"networks\": [\"net-*\", \"db\", \"x?\", \"[ab]c\"]}";
	check1(pol, ANN_NETWORKS, "net-a,db,x1,ac,bc", NULL);
	check1(pol, ANN_NETWORKS, "net-a,web",
	       "annotation \"io.cnihook.networks\": \"web\": the network is not allowed "
	       "(policy.networks)");
	/* Globs match whole names. */
	check1(pol, ANN_NETWORKS, "dbx",
	       "annotation \"io.cnihook.networks\": \"dbx\": the network is not allowed "
	       "(policy.networks)");
	check1(pol, ANN_NETWORKS, "x12",
	       "annotation \"io.cnihook.networks\": \"x12\": the network is not allowed "
	       "(policy.networks)");
	check1(pol, ANN_NETWORKS, "cc",
	       "annotation \"io.cnihook.networks\": \"cc\": the network is not allowed "
	       "(policy.networks)");
	/* The annotation that selected the network is the one named. */
	check1(pol, ANN_NPWG_NETWORKS, "[{\"name\": \"net-b\"}, {\"name\": \"secret\"}]",
	       "annotation \"k8s.v1.cni.cncf.io/networks\": \"secret\": the network is not "
	       "allowed (policy.networks)");
	/* The NPWG namespace is not part of the name matched. */
	check1(pol, ANN_NPWG_NETWORKS, "team/db", NULL);
	/* No network at all may be selected. */
	check1("{\"networks\": []}", ANN_NETWORKS, "a",
	       "annotation \"io.cnihook.networks\": \"a\": the network is not allowed "
	       "(policy.networks)");
	/* defaultNetworks are the administrator's: not subject to the policy. */
	char *defaults[] = {(char *)"secret"};
	check_defaults("{\"networks\": [\"net-*\"]}", KVLIST_N(NULL, 0), defaults, 1, NULL);

	/* Without the annotations (policy_check_selection), the networks are
	 * still checked. */
	struct policy p;
	struct selection s;
	char *err = NULL;
	struct kv ann[] = {KV(ANN_NETWORKS, "web")};
	load(pol, &p);
	assert_int_equal(annotations_parse(KVLIST(ann), DEFAULTS(NULL, 0), &s, &err), 0);
	assert_int_equal(policy_check_selection(&p, &s, &err), -1);
	assert_string_equal(err, "annotation \"io.cnihook.networks\": \"web\": the network is not "
				 "allowed (policy.networks)");
	free(err);
	annotations_selection_free(&s);
	policy_free(&p);
}

static void test_max_attachments(void **state)
{
	(void)state;
	static const char pol[] = "{\"maxAttachments\": 2}";
	check1(pol, ANN_NETWORKS, "a,b", NULL);
	check1(pol, ANN_NETWORKS, "a,b,c",
	       "annotation \"io.cnihook.networks\": \"a,b,c\": 3 attachments, more than 2 "
	       "(policy.maxAttachments)");
	check1(pol, ANN_NPWG_NETWORKS, "a@e1,a@e2,a@e3",
	       "annotation \"k8s.v1.cni.cncf.io/networks\": \"a,a,a\": 3 attachments, more than 2 "
	       "(policy.maxAttachments)");
	/* The default: 8. */
	check1(NULL, ANN_NETWORKS, "a,b,c,d,e,f,g,h", NULL);
	check1(NULL, ANN_NETWORKS, "a,b,c,d,e,f,g,h,i",
	       "annotation \"io.cnihook.networks\": \"a,b,c,d,e,f,g,h,i\": 9 attachments, more "
	       "than 8 (policy.maxAttachments)");
}

/* ------------------------------------------------------------ fields */

static void test_fields_allowed_by_default(void **state)
{
	(void)state;
	struct kv ann[] = {
	    KV(ANN_NPWG_NETWORKS,
	       "[{\"name\": \"a\", \"infiniband-guid\": \"c2:11:22:33:44:55:66:77\","
	       " \"cni-args\": {\"x\": 1}},"
	       " {\"name\": \"b\", \"mac\": \"02:00:00:00:00:02\", \"ips\": [\"10.1.2.3/24\"],"
	       "  \"portMappings\": [{\"hostPort\": 8080, \"containerPort\": 80}],"
	       "  \"bandwidth\": {\"ingressRate\": 1000}}]"),
	    KV(ANN_PORTS, "8081:81"),
	    KV(ANN_MAC, "02:00:00:00:00:01"),
	    KV(ANN_IPS, "10.1.2.4/24"),
	    KV(ANN_BANDWIDTH, "{\"egressRate\": 1000}"),
	    KV(ANN_ARGS, "K=V"),
	};
	check(NULL, KVLIST(ann), NULL);
}

static void test_fields_refused(void **state)
{
	(void)state;
	/* Everything allowed but the field under test. */
	static const char no_ports[] = "{\"allowedFields\": [\"mac\", \"ips\", \"bandwidth\", "
				       "\"args\", \"infinibandGUID\"]}";
	static const char no_mac[] = "{\"allowedFields\": [\"portMappings\", \"ips\", "
				     "\"bandwidth\", \"args\", \"infinibandGUID\"]}";
	static const char no_ips[] = "{\"allowedFields\": [\"portMappings\", \"mac\", "
				     "\"bandwidth\", \"args\", \"infinibandGUID\"]}";
	static const char no_bw[] = "{\"allowedFields\": [\"portMappings\", \"mac\", \"ips\", "
				    "\"args\", \"infinibandGUID\"]}";
	static const char no_args[] = "{\"allowedFields\": [\"portMappings\", \"mac\", \"ips\", "
				      "\"bandwidth\", \"infinibandGUID\"]}";
	static const char no_guid[] = "{\"allowedFields\": [\"portMappings\", \"mac\", \"ips\", "
				      "\"bandwidth\", \"args\"]}";

	/* From the single-field annotations, which are named. */
	struct kv ports[] = {KV(ANN_NETWORKS, "a"),
			     KV(ANN_PORTS, "8080:80,[fd00::1]:8443:443/udp")};
	check(no_ports, KVLIST(ports),
	      "annotation \"io.cnihook.ports\": \"8080:80/tcp,[fd00::1]:8443:443/udp\": refused by "
	      "policy.allowedFields (no \"portMappings\")");
	check(no_mac, KVLIST(ports), NULL);
	struct kv mac[] = {KV(ANN_NETWORKS, "a"), KV(ANN_MAC, "02:00:00:00:00:01")};
	check(no_mac, KVLIST(mac),
	      "annotation \"io.cnihook.mac\": \"02:00:00:00:00:01\": refused by "
	      "policy.allowedFields (no \"mac\")");
	check(no_ports, KVLIST(mac), NULL);
	struct kv ips[] = {KV(ANN_NETWORKS, "a"), KV(ANN_IPS, "10.1.2.3/24,fd00::3/64")};
	check(no_ips, KVLIST(ips),
	      "annotation \"io.cnihook.ips\": \"10.1.2.3/24,fd00::3/64\": refused by "
	      "policy.allowedFields (no \"ips\")");
	struct kv bw[] = {KV(ANN_NETWORKS, "a"), KV(ANN_BANDWIDTH, "{\"ingressRate\": 5}")};
	check(no_bw, KVLIST(bw),
	      "annotation \"io.cnihook.bandwidth\": \"{\\x22ingressRate\\x22:5}\": refused by "
	      "policy.allowedFields (no \"bandwidth\")");
	struct kv args[] = {KV(ANN_NETWORKS, "a"), KV(ANN_ARGS, "A=1;B=2")};
	check(no_args, KVLIST(args),
	      "annotation \"io.cnihook.args\": \"A=1;B=2\": refused by policy.allowedFields (no "
	      "\"args\")");
	check(no_guid, KVLIST(args), NULL);

	/* From the networks annotation, which is named. */
	check1(no_ports, ANN_NPWG_NETWORKS,
	       "[{\"name\": \"a\"}, {\"name\": \"b\", \"portMappings\": [{\"hostPort\": 8080, "
	       "\"containerPort\": 80, \"hostIP\": \"127.0.0.1\"}]}]",
	       "annotation \"k8s.v1.cni.cncf.io/networks\": \"127.0.0.1:8080:80/tcp\": refused by "
	       "policy.allowedFields (no \"portMappings\")");
	check1(no_mac, ANN_NETWORKS, "[{\"name\": \"a\", \"mac\": \"02:00:00:00:00:0A\"}]",
	       "annotation \"io.cnihook.networks\": \"02:00:00:00:00:0a\": refused by "
	       "policy.allowedFields (no \"mac\")");
	check1(no_ips, ANN_NPWG_NETWORKS, "[{\"name\": \"a\", \"ips\": [\"10.1.2.3/24\"]}]",
	       "annotation \"k8s.v1.cni.cncf.io/networks\": \"10.1.2.3/24\": refused by "
	       "policy.allowedFields (no \"ips\")");
	check1(
	    no_bw, ANN_NPWG_NETWORKS, "[{\"name\": \"a\", \"bandwidth\": {\"egressRate\": 7}}]",
	    "annotation \"k8s.v1.cni.cncf.io/networks\": \"{\\x22egressRate\\x22:7}\": refused by "
	    "policy.allowedFields (no \"bandwidth\")");
	check1(
	    no_args, ANN_NPWG_NETWORKS, "[{\"name\": \"a\", \"cni-args\": {\"k\": \"v\"}}]",
	    "annotation \"k8s.v1.cni.cncf.io/networks\": \"{\\x22k\\x22:\\x22v\\x22}\": refused by "
	    "policy.allowedFields (no \"args\")");
	check1(no_guid, ANN_NPWG_NETWORKS,
	       "[{\"name\": \"a\", \"infiniband-guid\": \"c2:11:22:33:44:55:66:77\"}]",
	       "annotation \"k8s.v1.cni.cncf.io/networks\": \"c2:11:22:33:44:55:66:77\": refused "
	       "by policy.allowedFields (no \"infinibandGUID\")");
	check1(no_ports, ANN_NPWG_NETWORKS,
	       "[{\"name\": \"a\", \"infiniband-guid\": \"c2:11:22:33:44:55:66:77\"}]", NULL);

	/* A single-field annotation on a default network. */
	char *defaults[] = {(char *)"a"};
	struct kv mac_only[] = {KV(ANN_MAC, "02:00:00:00:00:01")};
	check_defaults(no_mac, KVLIST(mac_only), defaults, 1,
		       "annotation \"io.cnihook.mac\": \"02:00:00:00:00:01\": refused by "
		       "policy.allowedFields (no \"mac\")");

	/* Nothing allowed: a plain selection still passes. */
	check1("{\"allowedFields\": []}", ANN_NETWORKS, "a,b@net9", NULL);
}

/* ------------------------------------------------------------ ports */

static void test_host_ports(void **state)
{
	(void)state;
	struct kv low[] = {KV(ANN_NETWORKS, "a"), KV(ANN_PORTS, "8080:80,80:80")};
	check(NULL, KVLIST(low),
	      "annotation \"io.cnihook.ports\": \"80:80/tcp\": host port 80 is not in 1024-65535 "
	      "(policy.hostPortRange)");
	struct kv edges[] = {KV(ANN_NETWORKS, "a"), KV(ANN_PORTS, "1024:80,65535:81/udp")};
	check(NULL, KVLIST(edges), NULL);
	check(NULL, NETWORK_A_AND(ANN_PORTS, "1023:80"),
	      "annotation \"io.cnihook.ports\": \"1023:80/tcp\": host port 1023 is not in "
	      "1024-65535 (policy.hostPortRange)");

	static const char range[] = "{\"hostPortRange\": [30000, 32767]}";
	check(range, NETWORK_A_AND(ANN_PORTS, "30000:80,32767:80"), NULL);
	check(range, NETWORK_A_AND(ANN_PORTS, "29999:80"),
	      "annotation \"io.cnihook.ports\": \"29999:80/tcp\": host port 29999 is not in "
	      "30000-32767 (policy.hostPortRange)");
	check(range, NETWORK_A_AND(ANN_PORTS, "32768:80/sctp"),
	      "annotation \"io.cnihook.ports\": \"32768:80/sctp\": host port 32768 is not in "
	      "30000-32767 (policy.hostPortRange)");
	/* Port mappings of any attachment, named by the networks annotation. */
	check1(range, ANN_NPWG_NETWORKS,
	       "[{\"name\": \"a\"}, {\"name\": \"b\", \"portMappings\": "
	       "[{\"hostPort\": 22, \"containerPort\": 22}]}]",
	       "annotation \"k8s.v1.cni.cncf.io/networks\": \"22:22/tcp\": host port 22 is not in "
	       "30000-32767 (policy.hostPortRange)");
}

static void test_host_ips(void **state)
{
	(void)state;
	static const char pol[] = "{\"hostIPs\": [\"127.0.0.1\", \"fd00::1\"]}";
	check(pol, NETWORK_A_AND(ANN_PORTS, "127.0.0.1:8080:80,[fd00::1]:8081:80"), NULL);
	/* Addresses are compared, not their text. */
	check(pol, NETWORK_A_AND(ANN_PORTS, "[fd00:0:0::0001]:8080:80"), NULL);
	check(pol, NETWORK_A_AND(ANN_PORTS, "127.0.0.1:8080:80,10.0.0.1:8081:80"),
	      "annotation \"io.cnihook.ports\": \"10.0.0.1:8081:80/tcp\": host IP 10.0.0.1 is not "
	      "allowed (policy.hostIPs)");
	check(pol, NETWORK_A_AND(ANN_PORTS, "[fd00::2]:8080:80"),
	      "annotation \"io.cnihook.ports\": \"[fd00::2]:8080:80/tcp\": host IP fd00::2 is not "
	      "allowed (policy.hostIPs)");
	/* No hostIP binds every address: refused when the list is not empty. */
	check(pol, NETWORK_A_AND(ANN_PORTS, "8080:80"),
	      "annotation \"io.cnihook.ports\": \"8080:80/tcp\": no host IP: it would bind every "
	      "address of the host (policy.hostIPs)");
	/* Unless every address is allowed... which still needs the address. */
	check("{\"hostIPs\": [\"0.0.0.0\"]}", NETWORK_A_AND(ANN_PORTS, "0.0.0.0:8080:80"), NULL);
	/* The default: any host IP. */
	check(NULL, NETWORK_A_AND(ANN_PORTS, "10.9.9.9:8080:80"), NULL);
}

/* ------------------------------------------------------------ netns */

#define ALLOW_NETNS(prefixes) "{\"allowedFields\": [\"netns\"], \"netnsPrefixes\": [" prefixes "]}"

static void test_netns_refused_by_default(void **state)
{
	(void)state;
	check(NULL, NETWORK_A_AND(ANN_NETNS, "/proc/1/ns/net"),
	      "annotation \"io.cnihook.netns\": \"/proc/1/ns/net\": refused by "
	      "policy.allowedFields (no \"netns\")");
	check(NULL, NETWORK_A_AND(ANN_NETNS, "/run/netns/x"),
	      "annotation \"io.cnihook.netns\": \"/run/netns/x\": refused by "
	      "policy.allowedFields (no \"netns\")");
	/* Allowed, but no directory is. */
	check("{\"allowedFields\": [\"netns\"]}", NETWORK_A_AND(ANN_NETNS, "/run/netns/x"),
	      "annotation \"io.cnihook.netns\": \"/run/netns/x\": no directory is allowed "
	      "(policy.netnsPrefixes)");
}

/*
 * The netns cases run against a temporary tree (@ in policy, path and
 * message stands for it):
 *   netns/ns1, netns2/x             plain files
 *   alias -> netns                  a directory link
 *   netns/link -> ../netns2/x       a link out of the allowed directory
 *   netns/host -> /proc/1/ns/net    a link to the host's namespace
 *   netns/self -> /proc/self/ns/net
 * and, made by run_in_own_host() only (bind mounts of namespaces):
 *   netns/other     a namespace neither the host's nor cnihook's
 *   netns/own       cnihook's own namespace (not the host's)
 *   netns/hostbind  the host's namespace
 */
struct ncase {
	const char *policy, *path, *msg; /* msg NULL: accepted */
};

#define NOT_UNDER(p, r)                                                                            \
	"annotation \"io.cnihook.netns\": \"" p "\": resolves to \"" r "\", outside the allowed "  \
	"directories (policy.netnsPrefixes)"
#define NEVER(p, what)                                                                             \
	"annotation \"io.cnihook.netns\": \"" p "\": is " what ", never allowed "                  \
	"(policy.netnsPrefixes)"
#define HOST "the host's network namespace"
#define OWN  "cnihook's own network namespace"
#define IN   ALLOW_NETNS("\"@/netns\"")

static const struct ncase file_cases[] = {
    {IN, "@/netns/ns1", NULL},
    /* A trailing slash, and a prefix that is itself a symbolic link. */
    {ALLOW_NETNS("\"@/netns/\""), "@/netns/ns1", NULL},
    {ALLOW_NETNS("\"@/alias\""), "@/netns/ns1", NULL},
    {IN, "@/alias/ns1", NULL},
    /* Path components, not a string prefix: netns2 is not under netns. */
    {IN, "@/netns2/x", NOT_UNDER("@/netns2/x", "@/netns2/x")},
    /* ".." and symbolic links are resolved first. */
    {IN, "@/netns/../netns2/x", NOT_UNDER("@/netns/../netns2/x", "@/netns2/x")},
    {IN, "@/netns/link", NOT_UNDER("@/netns/link", "@/netns2/x")},
    /* The directory is not under itself. */
    {IN, "@/netns", NOT_UNDER("@/netns", "@/netns")},
    {IN, "@/netns/", NOT_UNDER("@/netns/", "@/netns")},
    /* Any of several directories. */
    {ALLOW_NETNS("\"/run/netns\", \"@/netns2\""), "@/netns2/x", NULL},
    {IN, "@/netns/missing",
     "annotation \"io.cnihook.netns\": \"@/netns/missing\": No such file or directory "
     "(policy.netnsPrefixes)"},
    /* A symbolic link to the host's namespace in an allowed directory. */
    {IN, "@/netns/host", NEVER("@/netns/host", HOST)},
    /* The host's namespace even when its directory is allowed. */
    {ALLOW_NETNS("\"/proc/1/ns\""), "/proc/1/ns/net", NEVER("/proc/1/ns/net", HOST)},
    {ALLOW_NETNS("\"/proc\""), "/proc/1/task/1/ns/net", NEVER("/proc/1/task/1/ns/net", HOST)},
    {ALLOW_NETNS("\"/\""), "/proc/1/ns/../../1/ns/net", NEVER("/proc/1/ns/../../1/ns/net", HOST)},
};

/* Only where netns/other, netns/own and netns/hostbind exist, and cnihook's
 * namespace is not the host's. */
static const struct ncase mount_cases[] = {
    {IN, "@/netns/other", NULL},
    {ALLOW_NETNS("\"@/netns2\", \"@/alias\""), "@/netns/other", NULL},
    {IN, "@/netns/own", NEVER("@/netns/own", OWN)},
    {IN, "@/netns/self", NEVER("@/netns/self", OWN)},
    {ALLOW_NETNS("\"/proc/self/ns\""), "/proc/self/ns/net", NEVER("/proc/self/ns/net", OWN)},
    {IN, "@/netns/hostbind", NEVER("@/netns/hostbind", HOST)},
};

/* `s` with every "@" replaced by `dir`. */
static char *at(const char *s, const char *dir)
{
	char *out = xstrdup("");
	for (const char *p = s; *p; p++) {
		char *n = *p == '@' ? xasprintf("%s%s", out, dir) : xasprintf("%s%c", out, *p);
		free(out);
		out = n;
	}
	return out;
}

/* Run the cases without cmocka (also in child processes): the failures
 * are described on fd `out`; how many failed. */
static int run_cases(const char *dir, const struct ncase *cases, size_t n, int out)
{
	int failed = 0;
	for (size_t i = 0; i < n; i++) {
		char *pol = at(cases[i].policy, dir);
		char *path = at(cases[i].path, dir);
		char *want = cases[i].msg ? at(cases[i].msg, dir) : NULL;
		struct kv ann[] = {KV(ANN_NETWORKS, "a"), KV(ANN_NETNS, path)};
		_cleanup_json_ json *v = NULL;
		struct policy p;
		struct selection s;
		char *err = NULL;
		if (json_parse_with(pol, strlen(pol), "test", &util_json, &v, &err) < 0 ||
		    policy_parse(v, CONF, &p, &err) < 0) {
			dprintf(out, "case %zu: policy %s: %s\n", i, pol, err);
			return failed + 1;
		}
		if (annotations_parse(KVLIST(ann), DEFAULTS(NULL, 0), &s, &err) < 0) {
			dprintf(out, "case %zu: annotations: %s\n", i, err);
			return failed + 1;
		}
		policy_check_selection_ann(&p, &s, KVLIST(ann), &err);
		if ((want == NULL) != (err == NULL) || (want && strcmp(want, err) != 0)) {
			dprintf(out, "case %zu: %s under %s:\n  got  %s\n  want %s\n", i, path, pol,
				err ? err : "accepted", want ? want : "accepted");
			failed++;
		}
		annotations_selection_free(&s);
		policy_free(&p);
		free(err);
		free(want);
		free(path);
		free(pol);
	}
	return failed;
}

static int tree_setup(void **state)
{
	char *dir = xstrdup("/tmp/test_policy.XXXXXX");
	assert_non_null(mkdtemp(dir));
	static const char *const dirs[] = {"netns", "netns2"};
	static const char *const files[] = {"netns/ns1", "netns2/x", "netns/other", "netns/own",
					    "netns/hostbind"};
	static const char *const links[][2] = {{"alias", "netns"},
					       {"netns/link", "../netns2/x"},
					       {"netns/host", "/proc/1/ns/net"},
					       {"netns/self", "/proc/self/ns/net"}};
	for (size_t i = 0; i < COUNT(dirs); i++) {
		char *p = xasprintf("%s/%s", dir, dirs[i]);
		assert_int_equal(mkdir(p, 0700), 0);
		free(p);
	}
	for (size_t i = 0; i < COUNT(files); i++) {
		char *p = xasprintf("%s/%s", dir, files[i]);
		int fd = open(p, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
		assert_true(fd >= 0);
		close(fd);
		free(p);
	}
	for (size_t i = 0; i < COUNT(links); i++) {
		char *p = xasprintf("%s/%s", dir, links[i][0]);
		assert_int_equal(symlink(links[i][1], p), 0);
		free(p);
	}
	*state = dir;
	return 0;
}

static int tree_teardown(void **state)
{
	char *dir = *state;
	static const char *const paths[] = {
	    "netns/ns1",  "netns2/x",	"netns/other", "netns/own", "netns/hostbind", "alias",
	    "netns/link", "netns/host", "netns/self",  "netns",	    "netns2"};
	int bad = 0;
	for (size_t i = 0; i < COUNT(paths); i++) {
		char *p = xasprintf("%s/%s", dir, paths[i]);
		if (remove(p) < 0) {
			print_error("cannot remove %s: %s\n", p, strerror(errno));
			bad = -1;
		}
		free(p);
	}
	if (rmdir(dir) < 0)
		bad = -1;
	free(dir);
	return bad;
}

/* In this process, when it can see the host's namespace. */
static void test_netns_here(void **state)
{
	const char *dir = *state;
	struct stat st;
	int fds[2];
	char buf[8192];
	if (stat("/proc/1/ns/net", &st) < 0) {
		/* Fail closed: what cannot be compared with the host's
		 * namespace is refused. */
		const struct ncase blind[] = {
		    {IN, "@/netns/ns1", NULL},
		};
		char *want = xasprintf("annotation \"io.cnihook.netns\": \"%s/netns/ns1\": cannot "
				       "tell whether it is the host's network namespace: "
				       "/proc/1/ns/net: %s (policy.netnsPrefixes)",
				       dir, strerror(errno));
		char *pa = xasprintf("%s/netns/ns1", dir), *pol = at(blind[0].policy, dir);
		struct kv ann[] = {KV(ANN_NETWORKS, "a"), KV(ANN_NETNS, pa)};
		check(pol, KVLIST(ann), want);
		free(pol);
		free(pa);
		free(want);
		print_message("/proc/1/ns/net cannot be looked at here: the other cases run in "
			      "test_netns_own_host only\n");
		return;
	}
	assert_int_equal(pipe2(fds, O_CLOEXEC | O_NONBLOCK), 0);
	int failed = run_cases(dir, file_cases, COUNT(file_cases), fds[1]);
	ssize_t n = read(fds[0], buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	close(fds[1]);
	if (failed)
		fail_msg("%d case(s) failed:\n%s", failed, buf);
}

/* pid 2 of the new pid namespace: make the namespaces, run every case. */
static int own_host_checker(const char *dir, int out)
{
	char *other = xasprintf("%s/netns/other", dir);
	char *own = xasprintf("%s/netns/own", dir);
	char *hostbind = xasprintf("%s/netns/hostbind", dir);
	int host = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (host < 0 || mount("/proc/1/ns/net", hostbind, NULL, MS_BIND, NULL) < 0) {
		dprintf(out, "bind mount of the host's namespace: %s\n", strerror(errno));
		return 1;
	}
	/* other: a new namespace, left for the host's again */
	if (unshare(CLONE_NEWNET) < 0 ||
	    mount("/proc/self/ns/net", other, NULL, MS_BIND, NULL) < 0 ||
	    setns(host, CLONE_NEWNET) < 0) {
		dprintf(out, "other namespace: %s\n", strerror(errno));
		return 1;
	}
	/* own: the namespace the checks run in */
	if (unshare(CLONE_NEWNET) < 0 || mount("/proc/self/ns/net", own, NULL, MS_BIND, NULL) < 0) {
		dprintf(out, "own namespace: %s\n", strerror(errno));
		return 1;
	}
	int failed = run_cases(dir, file_cases, COUNT(file_cases), out) +
		     run_cases(dir, mount_cases, COUNT(mount_cases), out);
	return failed ? 2 : 0;
}

static int wait_status(pid_t pid)
{
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 99;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 100 + WTERMSIG(st);
}

/*
 * A host of our own (root only): in a new mount and pid namespace with its
 * own /proc, pid 1 is a process of this test sitting in the test's network
 * namespace (the "host's"), and pid 2, the checker, makes other
 * namespaces and bind mounts them into the tree. Nothing outlives the
 * child: its mounts go with its mount namespace.
 */
static void test_netns_own_host(void **state)
{
	const char *dir = *state;
	if (geteuid() != 0) {
		print_message("needs root (namespaces and mounts): skipped\n");
		skip();
	}
	int fds[2];
	assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		if (unshare(CLONE_NEWNS | CLONE_NEWPID) < 0 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
			dprintf(fds[1], "unshare: %s\n", strerror(errno));
			_exit(1);
		}
		pid_t init = fork();
		if (init < 0)
			_exit(1);
		if (init == 0) {
			/* pid 1 */
			if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) <
			    0) {
				dprintf(fds[1], "mount /proc: %s\n", strerror(errno));
				_exit(1);
			}
			pid_t checker = fork();
			if (checker < 0)
				_exit(1);
			if (checker == 0)
				_exit(own_host_checker(dir, fds[1]));
			_exit(wait_status(checker));
		}
		_exit(wait_status(init));
	}
	close(fds[1]);
	char buf[8192];
	size_t len = 0;
	ssize_t n;
	while (len < sizeof(buf) - 1 && (n = read(fds[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	close(fds[0]);
	int st = wait_status(pid);
	if (st != 0)
		fail_msg("status %d:\n%s", st, buf);
}

/* ------------------------------------------------------------ values */

static void test_values_escaped(void **state)
{
	(void)state;
	/* A path with a quote is shown escaped. */
	check(NULL, NETWORK_A_AND(ANN_NETNS, "/x\"y z"),
	      "annotation \"io.cnihook.netns\": \"/x\\x22y z\": refused by policy.allowedFields "
	      "(no \"netns\")");
	/* Long values are cut. */
	char *path = xmalloc(400);
	path[0] = '/';
	memset(path + 1, 'a', 398);
	path[399] = '\0';
	char *msg = xasprintf("annotation \"io.cnihook.netns\": \"%.80s...\": refused by "
			      "policy.allowedFields (no \"netns\")",
			      path);
	check(NULL, NETWORK_A_AND(ANN_NETNS, path), msg);
	free(msg);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_parse_all),
	    cmocka_unit_test(test_parse_errors),
	    cmocka_unit_test(test_annotation_size),
	    cmocka_unit_test(test_networks),
	    cmocka_unit_test(test_max_attachments),
	    cmocka_unit_test(test_fields_allowed_by_default),
	    cmocka_unit_test(test_fields_refused),
	    cmocka_unit_test(test_host_ports),
	    cmocka_unit_test(test_host_ips),
	    cmocka_unit_test(test_netns_refused_by_default),
	    cmocka_unit_test_setup_teardown(test_netns_here, tree_setup, tree_teardown),
	    cmocka_unit_test_setup_teardown(test_netns_own_host, tree_setup, tree_teardown),
	    cmocka_unit_test(test_values_escaped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
