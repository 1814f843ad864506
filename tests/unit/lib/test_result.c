/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of lib/result.c: spec section 5, "Result Types". */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* result-conversion.json holds this many vectors; fewer means a truncated file. */
#define N_VECTORS 30

static json *parse(const char *text)
{
	json *j = NULL;
	_cleanup_error_ cnirt_error *e = NULL;
	if (json_read_parse(text, strlen(text), "test input", &j, &e) < 0)
		fail_msg("test JSON does not parse: %s", cnirt_error_msg(e));
	return j;
}

static char *slurp(const char *path, size_t *len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fail_msg("cannot open %s", path);
	struct buf b = {0};
	for (;;) {
		char chunk[4096];
		ssize_t n = TEMP_FAILURE_RETRY(read(fd, chunk, sizeof(chunk)));
		if (n < 0)
			fail_msg("cannot read %s", path);
		if (n == 0)
			break;
		buf_append(&b, chunk, (size_t)n);
	}
	return buf_steal(&b, len);
}

static json *load_vectors(void)
{
	const char *dir = getenv("TESTDATA");
	if (dir == NULL || *dir == '\0')
		dir = "/work/main/tests/data";
	_cleanup_free_ char *path = xasprintf("%s/result-conversion.json", dir);
	size_t len;
	_cleanup_free_ char *text = slurp(path, &len);
	json *doc = NULL;
	_cleanup_error_ cnirt_error *e = NULL;
	if (json_read_parse(text, len, path, &doc, &e) < 0)
		fail_msg("%s", cnirt_error_msg(e));
	const json *v = json_obj_get(doc, "vectors");
	if (v == NULL || v->type != JSON_ARRAY)
		fail_msg("%s: no \"vectors\" array", path);
	return doc;
}

/* Convert text to version `to` and compare with the expected JSON text. */
static void expect_convert(const char *in, const char *to, const char *expected)
{
	_cleanup_json_ json *i = parse(in);
	_cleanup_json_ json *want = parse(expected);
	_cleanup_json_ json *got = NULL;
	_cleanup_error_ cnirt_error *e = NULL;
	if (result_convert(i, to, &got, &e) < 0)
		fail_msg("converting to %s failed: %s\ninput: %s", to, cnirt_error_msg(e), in);
	if (!json_equal(got, want)) {
		_cleanup_free_ char *g = json_gen(got, false, NULL);
		fail_msg("converting to %s:\n got: %s\nwant: %s", to, g, expected);
	}
}

static void expect_valid(const char *in)
{
	_cleanup_json_ json *j = parse(in);
	_cleanup_error_ cnirt_error *e = NULL;
	if (result_validate(j, &e) < 0)
		fail_msg("valid result refused: %s\ninput: %s", cnirt_error_msg(e), in);
}

static void expect_invalid(const char *in, int code, const char *msg)
{
	_cleanup_json_ json *j = parse(in);
	_cleanup_error_ cnirt_error *e = NULL;
	if (result_validate(j, &e) == 0)
		fail_msg("invalid result accepted (want \"%s\")\ninput: %s", msg, in);
	if (strcmp(cnirt_error_msg(e), msg) != 0)
		fail_msg("wrong message\n got: %s\nwant: %s\ninput: %s", cnirt_error_msg(e), msg,
			 in);
	if (cnirt_error_code(e) != code)
		fail_msg("\"%s\": code %d, want %d", msg, cnirt_error_code(e), code);
}

/* ------------------------------------------------------------- vectors */

/* Every golden vector computed by the reference library (libcni 1.1.2). */
static void test_conversion_vectors(void **state)
{
	(void)state;
	_cleanup_json_ json *doc = load_vectors();
	const json *vs = json_obj_get(doc, "vectors");
	assert_int_equal(vs->u.array.n, N_VECTORS);

	size_t failed = 0;
	for (size_t i = 0; i < vs->u.array.n; i++) {
		const json *v = vs->u.array.v[i];
		const char *name = json_str(json_obj_get(v, "name"));
		const char *from = json_str(json_obj_get(v, "from"));
		const char *to = json_str(json_obj_get(v, "to"));
		const json *input = json_obj_get(v, "input");
		const json *output = json_obj_get(v, "output");
		const char *error = json_str(json_obj_get(v, "error"));
		if (!name || !from || !to || !input || (output == NULL) == (error == NULL))
			fail_msg("vector %zu is malformed", i);
		if (strcmp(json_str(json_obj_get(input, "cniVersion")), from) != 0)
			fail_msg("vector %s: input is not version %s", name, from);

		_cleanup_json_ json *got = NULL;
		_cleanup_error_ cnirt_error *e = NULL;
		int r = result_convert(input, to, &got, &e);
		if (output && r < 0) {
			print_error("vector %s (%s -> %s): unexpected error: %s\n", name, from, to,
				    cnirt_error_msg(e));
			failed++;
		} else if (output && !json_equal(got, output)) {
			_cleanup_free_ char *g = json_gen(got, false, NULL);
			_cleanup_free_ char *w = json_gen(output, false, NULL);
			print_error("vector %s (%s -> %s):\n got: %s\nwant: %s\n", name, from, to,
				    g, w);
			failed++;
		} else if (error && r == 0) {
			print_error("vector %s (%s -> %s): converted, want error \"%s\"\n", name,
				    from, to, error);
			failed++;
		} else if (error && strcmp(cnirt_error_msg(e), error) != 0) {
			print_error("vector %s (%s -> %s): error \"%s\", want \"%s\"\n", name, from,
				    to, cnirt_error_msg(e), error);
			failed++;
		}
	}
	if (failed)
		fail_msg("%zu of %zu conversion vectors failed", failed, vs->u.array.n);
}

/* What the reference writes, we read: inputs and outputs of the vectors are
 * valid results of their versions. */
static void test_vectors_validate(void **state)
{
	(void)state;
	_cleanup_json_ json *doc = load_vectors();
	const json *vs = json_obj_get(doc, "vectors");
	for (size_t i = 0; i < vs->u.array.n; i++) {
		const json *v = vs->u.array.v[i];
		const char *name = json_str(json_obj_get(v, "name"));
		const char *to = json_str(json_obj_get(v, "to"));
		const json *check[] = {json_obj_get(v, "input"), json_obj_get(v, "output")};
		for (size_t k = 0; k < ARRAY_SIZE(check); k++) {
			_cleanup_error_ cnirt_error *e = NULL;
			if (check[k] && result_validate(check[k], &e) < 0)
				fail_msg("vector %s (-> %s): %s does not validate: %s", name, to,
					 k ? "output" : "input", cnirt_error_msg(e));
		}
	}
}

/* ---------------------------------------------------------- validation */

/* One complete result of each version (spec section 5 "Success", SPEC-0.4.0
 * "Result", PROPOSAL-0.1.0 "Result"), and abbreviated IPAM results. */
static void test_validate_good(void **state)
{
	(void)state;
	expect_valid("{\"cniVersion\":\"0.1.0\",\"ip4\":{\"ip\":\"10.1.2.3/24\","
		     "\"gateway\":\"10.1.2.1\",\"routes\":[{\"dst\":\"0.0.0.0/0\"}]},"
		     "\"dns\":{\"nameservers\":[\"10.1.2.1\"]}}");
	expect_valid(
	    "{\"cniVersion\":\"0.2.0\",\"ip4\":{\"ip\":\"10.1.2.3/24\"},"
	    "\"ip6\":{\"ip\":\"fd00::3/64\",\"gateway\":\"fd00::1\","
	    "\"routes\":[{\"dst\":\"::/0\",\"gw\":\"fd00::1\"}]},"
	    "\"dns\":{\"domain\":\"d.test\",\"search\":[\"s.test\"],\"options\":[\"ndots:2\"]}}");
	expect_valid("{\"cniVersion\":\"0.3.0\",\"interfaces\":[{\"name\":\"eth0\"}],"
		     "\"ips\":[{\"version\":\"4\",\"address\":\"10.0.0.2/8\",\"interface\":0}]}");
	expect_valid("{\"cniVersion\":\"0.3.1\",\"interfaces\":[{\"name\":\"br0\",\"mac\":"
		     "\"aa:bb:cc:dd:ee:ff\"},{\"name\":\"eth0\",\"sandbox\":\"/run/netns/x\"}],"
		     "\"ips\":[{\"version\":\"6\",\"address\":\"fd00::2/64\",\"gateway\":"
		     "\"fd00::1\",\"interface\":1}],\"routes\":[{\"dst\":\"::/0\"}]}");
	expect_valid("{\"cniVersion\":\"0.4.0\",\"interfaces\":[{\"name\":\"eth0\",\"mac\":"
		     "\"aa:bb:cc:dd:ee:ff\",\"sandbox\":\"/run/netns/x\"}],\"ips\":["
		     "{\"version\":\"4\",\"address\":\"10.0.0.2/8\",\"gateway\":\"10.0.0.1\","
		     "\"interface\":0},{\"version\":\"6\",\"address\":\"fd00::2/64\"}],"
		     "\"routes\":[{\"dst\":\"0.0.0.0/0\",\"gw\":\"10.0.0.1\"}],\"dns\":{}}");
	expect_valid("{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"eth0\"}],"
		     "\"ips\":[{\"address\":\"10.0.0.2/8\",\"gateway\":\"10.0.0.1\","
		     "\"interface\":0}],\"routes\":[{\"dst\":\"10.9.0.0/16\",\"gw\":"
		     "\"10.0.0.1\"}],\"dns\":{\"nameservers\":[\"fd00::53\"]}}");
	expect_valid("{\"cniVersion\":\"1.1.0\",\"interfaces\":[{\"name\":\"eth0\",\"mtu\":1500,"
		     "\"socketPath\":\"/run/vhost.sock\",\"pciID\":\"0000:00:1f.6\"}],"
		     "\"ips\":[{\"address\":\"10.0.0.2/8\",\"interface\":0}],\"routes\":["
		     "{\"dst\":\"0.0.0.0/0\",\"mtu\":1400,\"advmss\":1360,\"priority\":100,"
		     "\"table\":254,\"scope\":0}]}");
	/* Abbreviated IPAM results: no interfaces, no interface index. */
	expect_valid("{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.0.0.2/8\"}]}");
	expect_valid("{\"cniVersion\":\"0.4.0\",\"ips\":[{\"version\":\"4\","
		     "\"address\":\"10.0.0.2/8\"}]}");
	/* Unknown fields are not errors; null reads as absent. */
	expect_valid("{\"cniVersion\":\"1.0.0\",\"x-vendor\":{\"a\":1},\"dns\":null}");
}

static void test_validate_bad_cidr(void **state)
{
	(void)state;
	expect_invalid("{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.0.0.2/8\"},"
		       "{\"address\":\"10.0.0.1\"}]}",
		       CNIRT_ERR_DECODE, "ips[1].address: \"10.0.0.1\" is not a CIDR");
	expect_invalid("{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.0.0.1/33\"}]}",
		       CNIRT_ERR_DECODE, "ips[0].address: \"10.0.0.1/33\" is not a CIDR");
	expect_invalid("{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"fd00::1/129\"}]}",
		       CNIRT_ERR_DECODE, "ips[0].address: \"fd00::1/129\" is not a CIDR");
	expect_invalid("{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.0.0.1/\"}]}",
		       CNIRT_ERR_DECODE, "ips[0].address: \"10.0.0.1/\" is not a CIDR");
	expect_invalid("{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.0.0.1/-1\"}]}",
		       CNIRT_ERR_DECODE, "ips[0].address: \"10.0.0.1/-1\" is not a CIDR");
	expect_invalid("{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.0.0.256/8\"}]}",
		       CNIRT_ERR_DECODE, "ips[0].address: \"10.0.0.256/8\" is not a CIDR");
	expect_invalid("{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"fe80::1%eth0/64\"}]}",
		       CNIRT_ERR_DECODE, "ips[0].address: \"fe80::1%eth0/64\" is not a CIDR");
	expect_invalid("{\"cniVersion\":\"0.4.0\",\"routes\":[{\"dst\":\"default\"}]}",
		       CNIRT_ERR_DECODE, "routes[0].dst: \"default\" is not a CIDR");
	expect_invalid("{\"cniVersion\":\"0.2.0\",\"ip4\":{\"ip\":\"10.0.0.2\"}}", CNIRT_ERR_DECODE,
		       "ip4.ip: \"10.0.0.2\" is not a CIDR");
	/* PROPOSAL-0.1.0: "ip4": {"ip": <ipv4-and-subnet-in-CIDR>} */
	expect_invalid("{\"cniVersion\":\"0.1.0\",\"ip4\":{\"ip\":\"fd00::2/64\"}}",
		       CNIRT_ERR_DECODE, "ip4.ip: \"fd00::2/64\" is not an IPv4 CIDR");
	expect_invalid("{\"cniVersion\":\"0.1.0\",\"ip6\":{\"ip\":\"fd00::2/64\",\"routes\":"
		       "[{\"dst\":\"0.0.0.0/0\"}]}}",
		       CNIRT_ERR_DECODE, "ip6.routes[0].dst: \"0.0.0.0/0\" is not an IPv6 CIDR");
}

static void test_validate_bad_gateway(void **state)
{
	(void)state;
	expect_invalid("{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.0.0.2/8\","
		       "\"gateway\":\"10.0.0.1/8\"}]}",
		       CNIRT_ERR_DECODE, "ips[0].gateway: \"10.0.0.1/8\" is not an IP address");
	expect_invalid("{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.0.0.2/8\","
		       "\"gateway\":\"\"}]}",
		       CNIRT_ERR_DECODE, "ips[0].gateway: \"\" is not an IP address");
	expect_invalid("{\"cniVersion\":\"1.0.0\",\"routes\":[{\"dst\":\"0.0.0.0/0\","
		       "\"gw\":\"router\"}]}",
		       CNIRT_ERR_DECODE, "routes[0].gw: \"router\" is not an IP address");
	expect_invalid("{\"cniVersion\":\"0.2.0\",\"ip4\":{\"ip\":\"10.0.0.2/8\","
		       "\"gateway\":\"010.0.0.1\"}}",
		       CNIRT_ERR_DECODE, "ip4.gateway: \"010.0.0.1\" is not an IP address");
	/* SPEC-0.4.0 "IPs": All IP addresses and gateways provided must be valid
	 * for the given version. */
	expect_invalid("{\"cniVersion\":\"0.4.0\",\"ips\":[{\"version\":\"4\",\"address\":"
		       "\"10.0.0.2/8\",\"gateway\":\"fd00::1\"}]}",
		       CNIRT_ERR_DECODE, "ips[0].gateway: \"fd00::1\" is not an IPv4 address");
	/* SPEC-0.4.0 "Routes": All IP addresses in the routes entry must be the
	 * same IP version. */
	expect_invalid("{\"cniVersion\":\"0.4.0\",\"routes\":[{\"dst\":\"::/0\","
		       "\"gw\":\"10.0.0.1\"}]}",
		       CNIRT_ERR_DECODE, "routes[0].gw: \"10.0.0.1\" is not an IPv6 address");
	/* Spec 1.0.0 has no such rule (IPv4 routes via IPv6 next hops exist). */
	expect_valid("{\"cniVersion\":\"1.0.0\",\"routes\":[{\"dst\":\"0.0.0.0/0\","
		     "\"gw\":\"fe80::1\"}]}");
}

/* Spec section 5: interface (uint): the index into the interfaces list. */
static void test_validate_interface_index(void **state)
{
	(void)state;
	expect_invalid(
	    "{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"a\"},{\"name\":\"b\"}],"
	    "\"ips\":[{\"address\":\"10.0.0.2/8\",\"interface\":2}]}",
	    CNIRT_ERR_DECODE, "ips[0].interface: index 2 is out of range (2 interfaces)");
	expect_invalid("{\"cniVersion\":\"0.3.1\",\"ips\":[{\"version\":\"4\",\"address\":"
		       "\"10.0.0.2/8\",\"interface\":0}]}",
		       CNIRT_ERR_DECODE,
		       "ips[0].interface: index 0 is out of range (0 interfaces)");
	expect_invalid("{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"a\"}],"
		       "\"ips\":[{\"address\":\"10.0.0.2/8\",\"interface\":-1}]}",
		       CNIRT_ERR_DECODE,
		       "ips[0].interface: index -1 is out of range (1 interface)");
	expect_invalid("{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"a\"}],"
		       "\"ips\":[{\"address\":\"10.0.0.2/8\",\"interface\":0.5}]}",
		       CNIRT_ERR_DECODE, "ips[0].interface: must be an integer");
}

static void test_validate_types(void **state)
{
	(void)state;
	expect_invalid("[]", CNIRT_ERR_DECODE, "result: must be a JSON object");
	expect_invalid("{\"cniVersion\":1}", CNIRT_ERR_DECODE, "cniVersion: must be a string");
	expect_invalid("{\"ips\":[]}", CNIRT_ERR_DECODE, "cniVersion: missing");
	expect_invalid("{\"cniVersion\":\"1.0.0\",\"ips\":{}}", CNIRT_ERR_DECODE,
		       "ips: must be an array");
	expect_invalid("{\"cniVersion\":\"1.0.0\",\"ips\":[\"10.0.0.2/8\"]}", CNIRT_ERR_DECODE,
		       "ips[0]: must be an object");
	expect_invalid("{\"cniVersion\":\"1.0.0\",\"ips\":[{}]}", CNIRT_ERR_DECODE,
		       "ips[0].address: missing");
	expect_invalid("{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":4}]}", CNIRT_ERR_DECODE,
		       "ips[0].address: must be a string");
	expect_invalid("{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"a\"},"
		       "{\"name\":\"b\",\"mac\":7}]}",
		       CNIRT_ERR_DECODE, "interfaces[1].mac: must be a string");
	expect_invalid(
	    "{\"cniVersion\":\"0.4.0\",\"interfaces\":[{\"mac\":\"aa:bb:cc:dd:ee:ff\"}]}",
	    CNIRT_ERR_DECODE, "interfaces[0].name: missing");
	expect_invalid("{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.0.0.2/8\","
		       "\"interface\":\"0\"}]}",
		       CNIRT_ERR_DECODE, "ips[0].interface: must be an integer");
	expect_invalid("{\"cniVersion\":\"1.0.0\",\"routes\":[{\"gw\":\"10.0.0.1\"}]}",
		       CNIRT_ERR_DECODE, "routes[0].dst: missing");
	expect_invalid("{\"cniVersion\":\"1.0.0\",\"dns\":[]}", CNIRT_ERR_DECODE,
		       "dns: must be an object");
	expect_invalid("{\"cniVersion\":\"1.0.0\",\"dns\":{\"nameservers\":\"10.0.0.1\"}}",
		       CNIRT_ERR_DECODE, "dns.nameservers: must be an array");
	expect_invalid("{\"cniVersion\":\"0.2.0\",\"dns\":{\"search\":[\"a\",1]}}",
		       CNIRT_ERR_DECODE, "dns.search[1]: must be a string");
	expect_invalid("{\"cniVersion\":\"1.0.0\",\"dns\":{\"domain\":[]}}", CNIRT_ERR_DECODE,
		       "dns.domain: must be a string");
	expect_invalid("{\"cniVersion\":\"0.1.0\",\"ip4\":\"10.0.0.2/8\"}", CNIRT_ERR_DECODE,
		       "ip4: must be an object");
	expect_invalid("{\"cniVersion\":\"0.1.0\",\"ip4\":{\"ip\":\"10.0.0.2/8\",\"routes\":{}}}",
		       CNIRT_ERR_DECODE, "ip4.routes: must be an array");
	expect_invalid(
	    "{\"cniVersion\":\"1.1.0\",\"interfaces\":[{\"name\":\"a\",\"mtu\":\"9000\"}]}",
	    CNIRT_ERR_DECODE, "interfaces[0].mtu: must be an integer");
	expect_invalid(
	    "{\"cniVersion\":\"1.1.0\",\"routes\":[{\"dst\":\"0.0.0.0/0\",\"table\":1.5}]}",
	    CNIRT_ERR_DECODE, "routes[0].table: must be an integer");
	expect_invalid("{\"cniVersion\":\"1.1.0\",\"interfaces\":[{\"name\":\"a\",\"pciID\":3}]}",
		       CNIRT_ERR_DECODE, "interfaces[0].pciID: must be a string");
	expect_invalid("{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"a\\u0000b\"}]}",
		       CNIRT_ERR_DECODE, "interfaces[0].name: contains a NUL byte");
}

/* SPEC-0.4.0 "IPs": version (string): either "4" or "6" and corresponds to
 * the IP version of the addresses in the entry. */
static void test_validate_version_mismatch(void **state)
{
	(void)state;
	expect_invalid("{\"cniVersion\":\"0.4.0\",\"ips\":[{\"version\":\"4\",\"address\":"
		       "\"fd00::2/64\"}]}",
		       CNIRT_ERR_DECODE,
		       "ips[0].version: \"4\" does not match address \"fd00::2/64\"");
	expect_invalid("{\"cniVersion\":\"0.3.0\",\"ips\":[{\"version\":\"6\",\"address\":"
		       "\"10.0.0.2/8\"}]}",
		       CNIRT_ERR_DECODE,
		       "ips[0].version: \"6\" does not match address \"10.0.0.2/8\"");
	expect_invalid("{\"cniVersion\":\"0.3.1\",\"ips\":[{\"version\":\"IPv4\",\"address\":"
		       "\"10.0.0.2/8\"}]}",
		       CNIRT_ERR_DECODE, "ips[0].version: \"IPv4\" is not \"4\" or \"6\"");
	expect_invalid("{\"cniVersion\":\"0.4.0\",\"ips\":[{\"address\":\"10.0.0.2/8\"}]}",
		       CNIRT_ERR_DECODE, "ips[0].version: missing");
	expect_invalid("{\"cniVersion\":\"0.4.0\",\"ips\":[{\"version\":4,\"address\":"
		       "\"10.0.0.2/8\"}]}",
		       CNIRT_ERR_DECODE, "ips[0].version: must be a string");
	/* 1.0.0 has no "version": an unknown field, ignored. */
	expect_valid("{\"cniVersion\":\"1.0.0\",\"ips\":[{\"version\":\"6\",\"address\":"
		     "\"10.0.0.2/8\"}]}");
}

static void test_validate_unknown_version(void **state)
{
	(void)state;
	expect_invalid("{\"cniVersion\":\"9.9.9\"}", CNIRT_ERR_INCOMPATIBLE_VERSION,
		       "cniVersion: unsupported result version \"9.9.9\"");
	expect_invalid("{\"cniVersion\":\"\"}", CNIRT_ERR_INCOMPATIBLE_VERSION,
		       "cniVersion: unsupported result version \"\"");
	expect_invalid("{\"cniVersion\":\"1.0\"}", CNIRT_ERR_INCOMPATIBLE_VERSION,
		       "cniVersion: unsupported result version \"1.0\"");
}

/* ---------------------------------------------------------- conversion */

static const char full_100[] =
    "{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"br0\",\"mac\":\"aa:bb:cc:00:00:01\"},"
    "{\"name\":\"eth0\",\"mac\":\"aa:bb:cc:00:00:02\",\"sandbox\":\"/run/netns/t\"}],"
    "\"ips\":[{\"interface\":1,\"address\":\"10.7.0.5/16\",\"gateway\":\"10.7.0.1\"},"
    "{\"interface\":1,\"address\":\"fd07::5/64\",\"gateway\":\"fd07::1\"},"
    "{\"interface\":1,\"address\":\"10.8.0.5/16\"}],"
    "\"routes\":[{\"dst\":\"0.0.0.0/0\"},{\"dst\":\"10.9.0.0/16\",\"gw\":\"10.7.0.254\"},"
    "{\"dst\":\"::/0\",\"gw\":\"fd07::1\"}],"
    "\"dns\":{\"nameservers\":[\"10.7.0.1\"],\"domain\":\"d.test\",\"search\":[\"s.test\"],"
    "\"options\":[\"ndots:3\"]}}";

static void test_round_trip_100_040(void **state)
{
	(void)state;
	const char *versions[] = {"0.3.0", "0.3.1", "0.4.0"};
	for (size_t i = 0; i < ARRAY_SIZE(versions); i++) {
		_cleanup_json_ json *in = parse(full_100);
		_cleanup_json_ json *mid = NULL;
		_cleanup_json_ json *back = NULL;
		_cleanup_error_ cnirt_error *e = NULL;
		if (result_convert(in, versions[i], &mid, &e) < 0)
			fail_msg("1.0.0 -> %s: %s", versions[i], cnirt_error_msg(e));
		const json *ips = json_obj_get(mid, "ips");
		assert_string_equal(json_str(json_obj_get(ips->u.array.v[0], "version")), "4");
		assert_string_equal(json_str(json_obj_get(ips->u.array.v[1], "version")), "6");
		if (result_convert(mid, "1.0.0", &back, &e) < 0)
			fail_msg("%s -> 1.0.0: %s", versions[i], cnirt_error_msg(e));
		if (!json_equal(in, back)) {
			_cleanup_free_ char *g = json_gen(back, false, NULL);
			fail_msg("1.0.0 -> %s -> 1.0.0 changed the result: %s", versions[i], g);
		}
	}
}

/* SPEC-0.4.0 "Routes": every address of a route in one family (and an
 * address's gateway is of its family); 1.0.0 has no such rule. A route via a next hop of the other
 * family is left out going below 1.0.0, so that the result still validates (found by fuzzing:
 * tests/fuzz/regressions/fuzz_result). */
static void test_mixed_family_route_dropped_below_100(void **state)
{
	(void)state;
	const char *in = "{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.1.0.5/16\","
			 "\"gateway\":\"fd00::99\"},"
			 "{\"address\":\"fd00::5/64\"}],\"routes\":[{\"dst\":\"::/0\","
			 "\"gw\":\"10.1.0.1\"},{\"dst\":\"0.0.0.0/0\",\"gw\":\"10.1.0.1\"}]}";
	static const char *const to[] = {"0.2.0", "0.3.1", "0.4.0"};
	for (size_t i = 0; i < ARRAY_SIZE(to); i++) {
		cnirt_error *err = NULL;
		char *out = NULL;
		assert_int_equal(cnirt_result_convert(in, strlen(in), to[i], &out, &err), 0);
		assert_null(strstr(out, "::/0"));
		assert_null(strstr(out, "fd00::99")); /* the gateway of the other family too */
		assert_non_null(strstr(out, "0.0.0.0/0"));
		assert_int_equal(cnirt_result_validate(out, strlen(out), &err), 0);
		free(out);
	}
	cnirt_error *err = NULL;
	char *out = NULL;
	assert_int_equal(cnirt_result_convert(in, strlen(in), "1.1.0", &out, &err), 0);
	assert_non_null(strstr(out, "::/0"));
	free(out);
}

static void test_round_trip_020(void **state)
{
	(void)state;
	const char *in = "{\"cniVersion\":\"0.2.0\",\"ip4\":{\"ip\":\"10.5.0.7/24\",\"gateway\":"
			 "\"10.5.0.1\",\"routes\":[{\"dst\":\"0.0.0.0/0\"},{\"dst\":"
			 "\"172.20.0.0/16\",\"gw\":\"10.5.0.254\"}]},\"ip6\":{\"ip\":"
			 "\"fd05::7/64\",\"routes\":[{\"dst\":\"::/0\",\"gw\":\"fd05::1\"}]},"
			 "\"dns\":{\"nameservers\":[\"10.5.0.1\"]}}";
	const char *via[] = {"0.1.0", "0.3.1", "0.4.0", "1.0.0", "1.1.0"};
	for (size_t i = 0; i < ARRAY_SIZE(via); i++) {
		_cleanup_json_ json *a = parse(in);
		_cleanup_json_ json *b = NULL;
		_cleanup_json_ json *c = NULL;
		_cleanup_error_ cnirt_error *e = NULL;
		if (result_convert(a, via[i], &b, &e) < 0 || result_convert(b, "0.2.0", &c, &e) < 0)
			fail_msg("0.2.0 -> %s -> 0.2.0: %s", via[i], cnirt_error_msg(e));
		if (!json_equal(a, c)) {
			_cleanup_free_ char *g = json_gen(c, false, NULL);
			fail_msg("0.2.0 -> %s -> 0.2.0 changed the result: %s", via[i], g);
		}
	}
}

/* 1.1.0 results have the shape of 1.0.0: between the two only cniVersion
 * changes; older versions have no place for the 1.1.0 fields. */
static void test_convert_110(void **state)
{
	(void)state;
	const char *in = "{\"cniVersion\":\"1.1.0\",\"interfaces\":[{\"name\":\"eth0\","
			 "\"mtu\":9000,\"socketPath\":\"/run/v.sock\",\"pciID\":\"0000:03:00.1\"}],"
			 "\"ips\":[{\"interface\":0,\"address\":\"10.0.0.2/8\"}],"
			 "\"routes\":[{\"dst\":\"0.0.0.0/0\",\"mtu\":1400,\"advmss\":1360,"
			 "\"priority\":10,\"table\":100,\"scope\":0}],\"dns\":{}}";
	_cleanup_json_ json *want100 = parse(in);
	json_obj_set(want100, "cniVersion", json_new_string("1.0.0"));
	_cleanup_free_ char *want100_text = json_gen(want100, false, NULL);
	expect_convert(in, "1.0.0", want100_text);
	expect_convert(in, "1.1.0", in);
	expect_convert(want100_text, "1.1.0", in);
	expect_convert(in, "0.4.0",
		       "{\"cniVersion\":\"0.4.0\",\"interfaces\":[{\"name\":\"eth0\"}],"
		       "\"ips\":[{\"version\":\"4\",\"interface\":0,\"address\":\"10.0.0.2/8\"}],"
		       "\"routes\":[{\"dst\":\"0.0.0.0/0\"}],\"dns\":{}}");
	expect_convert(in, "0.2.0",
		       "{\"cniVersion\":\"0.2.0\",\"ip4\":{\"ip\":\"10.0.0.2/8\","
		       "\"routes\":[{\"dst\":\"0.0.0.0/0\"}]},\"dns\":{}}");
}

/* To 0.1.0/0.2.0 (reference rules): the first address of each family, the
 * routes of that family, interfaces dropped. */
static void test_convert_down_to_020(void **state)
{
	(void)state;
	expect_convert(full_100, "0.2.0",
		       "{\"cniVersion\":\"0.2.0\",\"ip4\":{\"ip\":\"10.7.0.5/16\",\"gateway\":"
		       "\"10.7.0.1\",\"routes\":[{\"dst\":\"0.0.0.0/0\"},{\"dst\":\"10.9.0.0/16\","
		       "\"gw\":\"10.7.0.254\"}]},\"ip6\":{\"ip\":\"fd07::5/64\",\"gateway\":"
		       "\"fd07::1\",\"routes\":[{\"dst\":\"::/0\",\"gw\":\"fd07::1\"}]},"
		       "\"dns\":{\"nameservers\":[\"10.7.0.1\"],\"domain\":\"d.test\","
		       "\"search\":[\"s.test\"],\"options\":[\"ndots:3\"]}}");
	/* IPv6 routes without an IPv6 address have nowhere to go. */
	expect_convert("{\"cniVersion\":\"0.4.0\",\"ips\":[{\"version\":\"4\",\"address\":"
		       "\"10.0.0.2/8\"}],\"routes\":[{\"dst\":\"::/0\"},{\"dst\":\"0.0.0.0/0\"}]}",
		       "0.1.0",
		       "{\"cniVersion\":\"0.1.0\",\"ip4\":{\"ip\":\"10.0.0.2/8\",\"routes\":"
		       "[{\"dst\":\"0.0.0.0/0\"}]},\"dns\":{}}");
	/* Without any address a later result cannot be expressed... */
	_cleanup_json_ json *noip = parse("{\"cniVersion\":\"0.4.0\",\"routes\":"
					  "[{\"dst\":\"0.0.0.0/0\"}]}");
	_cleanup_json_ json *out = NULL;
	_cleanup_error_ cnirt_error *e = NULL;
	assert_int_equal(result_convert(noip, "0.2.0", &out, &e), -1);
	assert_null(out);
	assert_string_equal(cnirt_error_msg(e), "cannot convert: no valid IP addresses");
	/* ...but a 0.1.0 result without one stays as it is (as in the reference). */
	expect_convert("{\"cniVersion\":\"0.1.0\"}", "0.2.0",
		       "{\"cniVersion\":\"0.2.0\",\"dns\":{}}");
	expect_convert("{\"cniVersion\":\"0.1.0\"}", "1.0.0",
		       "{\"cniVersion\":\"1.0.0\",\"dns\":{}}");
}

/* The output is written the way the reference writes it: canonical address
 * text, unknown and empty fields left out, dns always present. */
static void test_convert_normalizes(void **state)
{
	(void)state;
	expect_convert("{\"cniVersion\":\"1.0.0\",\"x\":1,\"interfaces\":[{\"name\":\"e\","
		       "\"mac\":\"\",\"sandbox\":\"\",\"y\":2}],\"ips\":[{\"address\":"
		       "\"FD00:0:0:0::0005/064\",\"gateway\":\"fd00:0000::1\",\"version\":\"6\"},"
		       "{\"address\":\"2001:db8:0:0:1:0:0:1/128\"},{\"address\":\"::/0\"},"
		       "{\"address\":\"::ffff:10.0.0.1/120\",\"gateway\":\"::ffff:10.0.0.9\"}],"
		       "\"routes\":[],\"dns\":{\"nameservers\":[],\"domain\":\"\"}}",
		       "1.0.0",
		       "{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"e\"}],\"ips\":["
		       "{\"address\":\"fd00::5/64\",\"gateway\":\"fd00::1\"},"
		       "{\"address\":\"2001:db8::1:0:0:1/128\"},{\"address\":\"::/0\"},"
		       "{\"address\":\"10.0.0.1/24\",\"gateway\":\"10.0.0.9\"}],\"dns\":{}}");
	/* An IPv4-mapped address is IPv4 to the reference: version "4". */
	expect_convert("{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"::ffff:10.0.0.1/120\"}]}",
		       "0.4.0",
		       "{\"cniVersion\":\"0.4.0\",\"ips\":[{\"version\":\"4\",\"address\":"
		       "\"10.0.0.1/24\"}],\"dns\":{}}");
	/* Host bits of a CIDR are kept, as in the reference. */
	expect_convert(
	    "{\"cniVersion\":\"0.3.1\",\"routes\":[{\"dst\":\"10.1.2.3/8\"}]}", "0.4.0",
	    "{\"cniVersion\":\"0.4.0\",\"routes\":[{\"dst\":\"10.1.2.3/8\"}],\"dns\":{}}");
}

static void test_convert_errors(void **state)
{
	(void)state;
	_cleanup_json_ json *ok = parse(full_100);
	_cleanup_json_ json *bad =
	    parse("{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"x\"}]}");
	json *out = NULL;
	_cleanup_error_ cnirt_error *e = NULL;

	assert_int_equal(result_convert(ok, "0.5.0", &out, &e), -1);
	assert_null(out);
	assert_int_equal(cnirt_error_code(e), CNIRT_ERR_INCOMPATIBLE_VERSION);
	assert_string_equal(cnirt_error_msg(e),
			    "cannot convert a result to unsupported version \"0.5.0\"");

	assert_int_equal(result_convert(bad, "0.4.0", &out, &e), -1);
	assert_null(out);
	assert_int_equal(cnirt_error_code(e), CNIRT_ERR_DECODE);
	assert_string_equal(cnirt_error_msg(e), "ips[0].address: \"x\" is not a CIDR");
}

/* ---------------------------------------------------------- public API */

static void test_public_api(void **state)
{
	(void)state;
	_cleanup_error_ cnirt_error *e = NULL;
	assert_int_equal(cnirt_result_validate(full_100, strlen(full_100), &e), 0);

	_cleanup_free_ char *out = NULL;
	assert_int_equal(cnirt_result_convert(full_100, strlen(full_100), "1.0.0", &out, &e), 0);
	_cleanup_json_ json *a = parse(full_100);
	_cleanup_json_ json *b = parse(out);
	assert_true(json_equal(a, b));

	const char *garbage = "{\"cniVersion\":";
	cnirt_error_free(e); /* each call sets it anew */
	e = NULL;
	assert_int_equal(cnirt_result_validate(garbage, strlen(garbage), &e), -1);
	assert_int_equal(cnirt_error_code(e), CNIRT_ERR_DECODE);
	char *untouched = NULL;
	cnirt_error_free(e); /* each call sets it anew */
	e = NULL;
	assert_int_equal(cnirt_result_convert(garbage, strlen(garbage), "1.0.0", &untouched, &e),
			 -1);
	assert_null(untouched);
	assert_int_equal(cnirt_error_code(e), CNIRT_ERR_DECODE);

	const char *v9 = "{\"cniVersion\":\"9.0.0\"}";
	cnirt_error_free(e); /* each call sets it anew */
	e = NULL;
	assert_int_equal(cnirt_result_validate(v9, strlen(v9), &e), -1);
	assert_int_equal(cnirt_error_code(e), CNIRT_ERR_INCOMPATIBLE_VERSION);
}

/* The addresses as the conversion to 1.0.0 writes them, one string each. */
static void expect_ips(const char *in, const char *const *want, size_t n_want)
{
	char **v = NULL;
	size_t n = 0;
	_cleanup_error_ cnirt_error *e = NULL;
	if (cnirt_result_ips(in, strlen(in), &v, &n, &e) < 0)
		fail_msg("cnirt_result_ips failed: %s\ninput: %s", cnirt_error_msg(e), in);
	assert_null(e);
	assert_int_equal(n, n_want);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(v[i], want[i]);
	assert_null(v[n]);
	cnirt_result_ips_free(v, n);
}

static void test_result_ips(void **state)
{
	(void)state;
	/* Canonical text: IPv6 as RFC 5952 writes it, IPv4-mapped as IPv4. */
	expect_ips("{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.1.2.3/24\"},"
		   "{\"address\":\"2001:DB8:0:0:0:0:0:1/64\"},"
		   "{\"address\":\"::ffff:10.0.0.5/120\"}]}",
		   (const char *const[]){"10.1.2.3/24", "2001:db8::1/64", "10.0.0.5/24"}, 3);
	/* 0.2.0: ip4 then ip6, whatever their order in the text. */
	expect_ips("{\"cniVersion\":\"0.2.0\",\"ip6\":{\"ip\":\"fd00::5/64\"},"
		   "\"ip4\":{\"ip\":\"10.1.0.5/16\"}}",
		   (const char *const[]){"10.1.0.5/16", "fd00::5/64"}, 2);
	expect_ips("{\"cniVersion\":\"0.4.0\",\"ips\":[{\"version\":\"6\",\"address\":\"fd00::"
		   "0005/64\"},{\"version\":\"4\",\"address\":\"10.1.0.5/16\"}]}",
		   (const char *const[]){"fd00::5/64", "10.1.0.5/16"}, 2);
	/* None: an empty array, NULL terminated. */
	expect_ips("{\"cniVersion\":\"1.1.0\"}", NULL, 0);

	/* Not valid: an error, nothing handed out. */
	const char *bad = "{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.1.2.3\"}]}";
	char **untouched = NULL;
	size_t n = 7;
	_cleanup_error_ cnirt_error *e = NULL;
	assert_int_equal(cnirt_result_ips(bad, strlen(bad), &untouched, &n, &e), -1);
	assert_null(untouched);
	assert_int_equal(n, 7);
	assert_int_equal(cnirt_error_code(e), CNIRT_ERR_DECODE);
	assert_string_equal(cnirt_error_msg(e), "ips[0].address: \"10.1.2.3\" is not a CIDR");
}

/* Every vector's input: the addresses are those of its conversion to 1.0.0. */
static void test_result_ips_vectors(void **state)
{
	(void)state;
	_cleanup_json_ json *doc = load_vectors();
	const json *vs = json_obj_get(doc, "vectors");
	for (size_t i = 0; i < vs->u.array.n; i++) {
		const json *v = vs->u.array.v[i];
		const char *name = json_str(json_obj_get(v, "name"));
		_cleanup_free_ char *in = json_gen(json_obj_get(v, "input"), false, NULL);
		_cleanup_free_ char *conv = NULL;
		_cleanup_json_ json *c = NULL;
		_cleanup_error_ cnirt_error *e = NULL;
		if (cnirt_result_convert(in, strlen(in), "1.0.0", &conv, &e) < 0)
			fail_msg("vector %s: converting to 1.0.0: %s", name, cnirt_error_msg(e));
		c = parse(conv);
		const json *ips = json_obj_get(c, "ips");
		size_t n_want = ips ? ips->u.array.n : 0;
		char **got = NULL;
		size_t n = 0;
		if (cnirt_result_ips(in, strlen(in), &got, &n, &e) < 0)
			fail_msg("vector %s: %s", name, cnirt_error_msg(e));
		if (n != n_want)
			fail_msg("vector %s: %zu addresses, the conversion has %zu", name, n,
				 n_want);
		for (size_t k = 0; k < n; k++) {
			const char *want = json_str(json_obj_get(ips->u.array.v[k], "address"));
			if (strcmp(got[k], want) != 0)
				fail_msg(
				    "vector %s: address %zu is \"%s\", the conversion's \"%s\"",
				    name, k, got[k], want);
		}
		cnirt_result_ips_free(got, n);
	}
}

/* --------------------------------------------------------- error result */

/* Spec section 5, "Error": cniVersion, code, msg, details. */
static void test_parse_error_full(void **state)
{
	(void)state;
	const char *t = "{\"cniVersion\":\"1.0.0\",\"code\":7,\"msg\":\"Invalid Configuration\","
			"\"details\":\"Network 192.168.0.0/31 too small to allocate from.\"}";
	int code = -5;
	_cleanup_free_ char *msg = NULL;
	_cleanup_free_ char *details = NULL;
	assert_int_equal(result_parse_error(t, strlen(t), &code, &msg, &details), 0);
	assert_int_equal(code, 7);
	assert_string_equal(msg, "Invalid Configuration");
	assert_string_equal(details, "Network 192.168.0.0/31 too small to allocate from.");
}

/* Codes of 100 and above are the plugin's own: kept as they are. */
static void test_parse_error_plugin_code(void **state)
{
	(void)state;
	const char *t = "{\"code\":142,\"msg\":\"custom\"}";
	int code = 0;
	_cleanup_free_ char *msg = NULL;
	_cleanup_free_ char *details = NULL;
	assert_int_equal(result_parse_error(t, strlen(t), &code, &msg, &details), 0);
	assert_int_equal(code, 142);
	assert_string_equal(msg, "custom");
}

/* SPEC-0.4.0: "details": <long-error-message> (optional) */
static void test_parse_error_details_optional(void **state)
{
	(void)state;
	const char *texts[] = {
	    "{\"cniVersion\":\"0.4.0\",\"code\":11,\"msg\":\"busy\"}",
	    "{\"cniVersion\":\"0.4.0\",\"code\":11,\"msg\":\"busy\",\"details\":\"\"}",
	};
	for (size_t i = 0; i < ARRAY_SIZE(texts); i++) {
		int code = 0;
		_cleanup_free_ char *msg = NULL;
		char *details = (char *)"sentinel";
		assert_int_equal(
		    result_parse_error(texts[i], strlen(texts[i]), &code, &msg, &details), 0);
		assert_int_equal(code, 11);
		assert_string_equal(msg, "busy");
		assert_null(details);
	}
	/* msg missing: still an error result with its code. */
	const char *t = "{\"code\":3}";
	int code = 0;
	char *msg = (char *)"sentinel";
	char *details = NULL;
	assert_int_equal(result_parse_error(t, strlen(t), &code, &msg, &details), 0);
	assert_int_equal(code, 3);
	assert_null(msg);
}

static void test_parse_error_garbage(void **state)
{
	(void)state;
	const char *texts[] = {
	    "",
	    "plugin crashed",
	    "[7]",
	    "{\"msg\":\"no code\"}",
	    "{\"code\":\"7\",\"msg\":\"code is a string\"}",
	    "{\"code\":7.5,\"msg\":\"fraction\"}",
	    "{\"code\":-1,\"msg\":\"negative\"}",
	    "{\"code\":99999999999,\"msg\":\"too big\"}",
	    "{\"code\":7,\"msg\":\"trailing\"} x",
	    "{\"cniVersion\":\"1.0.0\",\"ips\":[]}",
	};
	for (size_t i = 0; i < ARRAY_SIZE(texts); i++) {
		int code = -5;
		char *msg = NULL;
		char *details = NULL;
		if (result_parse_error(texts[i], strlen(texts[i]), &code, &msg, &details) == 0)
			fail_msg("accepted as an error result: %s", texts[i]);
		assert_int_equal(code, -5);
		assert_null(msg);
		assert_null(details);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_conversion_vectors),
	    cmocka_unit_test(test_vectors_validate),
	    cmocka_unit_test(test_validate_good),
	    cmocka_unit_test(test_validate_bad_cidr),
	    cmocka_unit_test(test_validate_bad_gateway),
	    cmocka_unit_test(test_validate_interface_index),
	    cmocka_unit_test(test_validate_types),
	    cmocka_unit_test(test_validate_version_mismatch),
	    cmocka_unit_test(test_validate_unknown_version),
	    cmocka_unit_test(test_round_trip_100_040),
	    cmocka_unit_test(test_round_trip_020),
	    cmocka_unit_test(test_mixed_family_route_dropped_below_100),
	    cmocka_unit_test(test_convert_110),
	    cmocka_unit_test(test_convert_down_to_020),
	    cmocka_unit_test(test_convert_normalizes),
	    cmocka_unit_test(test_convert_errors),
	    cmocka_unit_test(test_public_api),
	    cmocka_unit_test(test_result_ips),
	    cmocka_unit_test(test_result_ips_vectors),
	    cmocka_unit_test(test_parse_error_full),
	    cmocka_unit_test(test_parse_error_plugin_code),
	    cmocka_unit_test(test_parse_error_details_optional),
	    cmocka_unit_test(test_parse_error_garbage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
