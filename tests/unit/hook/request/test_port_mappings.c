/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/request/port-mappings.c: port mappings as annotations ask for them. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "request/port-mappings.h"
#include "hooktest.h"

/* io.cnihook.ports=value is normalised to want. */
static void ports_are(const char *value, const char *want)
{
	struct port_mappings m = {0};
	char *problem = NULL;
	if (port_mappings_from_annotation(value, &m, &problem) < 0)
		fail_msg("\"%s\" refused: %s", value, problem);
	char *out = port_mappings_json_text(&m);
	if (strcmp(out, want) != 0)
		fail_msg("\"%s\":\n  got      %s\n  expected %s", value, out, want);
	free(out);
	port_mappings_free(&m);
}

#define TCP(h, c)   "{\"hostPort\":" #h ",\"containerPort\":" #c ",\"protocol\":\"tcp\"}"
#define PM(h, c, p) "{\"hostPort\":" #h ",\"containerPort\":" #c ",\"protocol\":\"" p "\"}"
#define PMIP(h, c, i)                                                                              \
	"{\"hostPort\":" #h ",\"containerPort\":" #c ",\"protocol\":\"tcp\",\"hostIP\":\"" i "\"}"

/* The short form at its edges: ports 1 and 65535, each protocol in any
 * case, host IPs of both families, white space around items. */
static void test_short_form(void **state)
{
	(void)state;
	ports_are("1:1", "[" TCP(1, 1) "]");
	ports_are("65535:65535/SCTP", "[" PM(65535, 65535, "sctp") "]");
	ports_are(" 8080:80/udp , 8443:443 ", "[" PM(8080, 80, "udp") "," TCP(8443, 443) "]");
	ports_are("127.0.0.1:8080:80", "[" PMIP(8080, 80, "127.0.0.1") "]");
	ports_are("[fd00::1]:8080:80", "[" PMIP(8080, 80, "fd00::1") "]");
}

static void test_short_form_refusals(void **state)
{
	(void)state;
	char *problem = NULL;
	struct port_mappings out = {0};
	REFUSED(port_mappings_from_annotation("0:80", &out, &problem),
		"\"0:80\": host port 0 is not in 1-65535");
	REFUSED(port_mappings_from_annotation("65536:80", &out, &problem),
		"\"65536:80\": host port 65536 is not in 1-65535");
	REFUSED(port_mappings_from_annotation("80:99999999999999999999", &out, &problem),
		"\"80:99999999999999999999\": container port 99999999999999999999 is not in "
		"1-65535");
	REFUSED(port_mappings_from_annotation("080:80", &out, &problem),
		"\"080:80\": host port \"080\" has a leading zero");
	REFUSED(port_mappings_from_annotation("+80:80", &out, &problem),
		"\"+80:80\": host port \"+80\" is not a decimal number");
	REFUSED(port_mappings_from_annotation(":80", &out, &problem),
		"\":80\": host port is empty");
	REFUSED(port_mappings_from_annotation("8080", &out, &problem),
		"\"8080\": expected HOSTPORT:CONTAINERPORT");
	REFUSED(port_mappings_from_annotation("fd00::1:8080:80", &out, &problem),
		"\"fd00::1:8080:80\": too many ':' (an IPv6 host IP goes in brackets: "
		"[fd00::1]:8080:80)");
	REFUSED(port_mappings_from_annotation("[10.0.0.1]:8080:80", &out, &problem),
		"\"[10.0.0.1]:8080:80\": host IP in brackets must be IPv6");
	REFUSED(
	    port_mappings_from_annotation("[fd00::1:8080:80", &out, &problem),
	    "\"[fd00::1:8080:80\": an IPv6 host IP is written [ADDRESS]:HOSTPORT:CONTAINERPORT");
	REFUSED(port_mappings_from_annotation("8080:80/icmp", &out, &problem),
		"\"8080:80/icmp\": protocol \"icmp\" is not tcp, udp or sctp");
	REFUSED(port_mappings_from_annotation("8080:80/tpc", &out, &problem),
		"\"8080:80/tpc\": protocol \"tpc\" is not tcp, udp or sctp; did you mean \"tcp\"?");
	REFUSED(port_mappings_from_annotation("8080:80:udp", &out, &problem),
		"\"8080:80:udp\": the protocol follows a '/', not a ':'; did you mean "
		"\"8080:80/udp\"?");
	REFUSED(port_mappings_from_annotation("8080:80,", &out, &problem), "item 2 is empty");
	REFUSED(port_mappings_from_annotation(" ", &out, &problem), "is empty");
	assert_int_equal(out.n, 0);
}

/* JSON: protocol and hostIP optional; the fields normalised in one order. */
static void test_json(void **state)
{
	(void)state;
	ports_are("[{\"containerPort\":1,\"hostPort\":65535}]", "[" TCP(65535, 1) "]");
	ports_are(
	    " [{\"hostPort\":53,\"containerPort\":53,\"protocol\":\"UDP\","
	    "\"hostIP\":\"fd00::1\"}]",
	    "[{\"hostPort\":53,\"containerPort\":53,\"protocol\":\"udp\",\"hostIP\":\"fd00::1\"}]");

	struct port_mappings out = {.n = 7};
	char *problem = NULL;
	json *empty = json_new(JSON_ARRAY);
	assert_int_equal(port_mappings_from_json(empty, &out, &problem), 0);
	assert_int_equal(out.n, 0);
	json_free(empty);
}

static void test_json_refusals(void **state)
{
	(void)state;
	char *problem = NULL;
	struct port_mappings out = {0};
	REFUSED(port_mappings_from_annotation("[]", &out, &problem), "the list is empty");
	REFUSED(port_mappings_from_annotation("{}", &out, &problem),
		"is an object, expected an array of port mappings");
	REFUSED(port_mappings_from_annotation("[true]", &out, &problem),
		"port mapping 1: is a boolean, expected an object");
	/* '[' and a hex digit: an IPv6 host IP of the short form. */
	REFUSED(port_mappings_from_annotation("[1]", &out, &problem),
		"\"[1]\": an IPv6 host IP is written [ADDRESS]:HOSTPORT:CONTAINERPORT");
	REFUSED(
	    port_mappings_from_annotation("[{\"hostPort\":0,\"containerPort\":1}]", &out, &problem),
	    "port mapping 1: field \"hostPort\": 0 is not an integer in 1-65535");
	REFUSED(port_mappings_from_annotation("[{\"hostPort\":1,\"containerPort\":65536}]", &out,
					      &problem),
		"port mapping 1: field \"containerPort\": 65536 is not an integer in 1-65535");
	REFUSED(port_mappings_from_annotation("[{\"hostPort\":8e1,\"containerPort\":1}]", &out,
					      &problem),
		"port mapping 1: field \"hostPort\": 8e1 is not an integer in 1-65535");
	REFUSED(port_mappings_from_annotation("[{\"hostPort\":\"80\",\"containerPort\":1}]", &out,
					      &problem),
		"port mapping 1: field \"hostPort\": is a string, expected an integer in 1-65535");
	REFUSED(port_mappings_from_annotation(
		    "[{\"hostPort\":1,\"containerPort\":1},{\"hostPort\":1}]", &out, &problem),
		"port mapping 2: field \"containerPort\" is missing");
	REFUSED(port_mappings_from_annotation("[{\"containerPort\":1,\"hostIP\":\"10.0.0.1\"}]",
					      &out, &problem),
		"port mapping 1: field \"hostPort\" is missing");
	REFUSED(
	    port_mappings_from_annotation(
		"[{\"hostPort\":1,\"containerPort\":1,\"hostIP\":\"10.0.0.0/8\"}]", &out, &problem),
	    "port mapping 1: field \"hostIP\": \"10.0.0.0/8\" is not an IP address (no prefix "
	    "length here)");
	REFUSED(
	    port_mappings_from_annotation(
		"[{\"hostPort\":1,\"containerPort\":1,\"protocol\":\"tcpp\"}]", &out, &problem),
	    "port mapping 1: field \"protocol\": \"tcpp\" is not tcp, udp or sctp; did you mean "
	    "\"tcp\"?");
	REFUSED(port_mappings_from_annotation(
		    "[{\"hostPort\":1,\"containerPort\":1,\"protocol\":6}]", &out, &problem),
		"port mapping 1: field \"protocol\": is a number, expected a string");
	assert_int_equal(out.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_short_form),
	    cmocka_unit_test(test_short_form_refusals),
	    cmocka_unit_test(test_json),
	    cmocka_unit_test(test_json_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
