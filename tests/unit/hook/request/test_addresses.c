/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/request/addresses.c: the names and addresses an attachment asks for. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/socket.h>

#include "request/addresses.h"
#include "hooktest.h"

static void ip_ok(const char *s, enum ip_form form)
{
	char *problem = NULL;
	if (addresses_check_ip(s, form, &problem) < 0)
		fail_msg("\"%s\" refused: %s", s, problem);
}

/* Prefix lengths at their edges, for each family and form. */
static void test_ip(void **state)
{
	(void)state;
	char *problem = NULL;
	ip_ok("10.1.2.3", IP_ONLY);
	ip_ok("10.1.2.3/0", IP_CIDR);
	ip_ok("10.1.2.3/32", IP_CIDR);
	ip_ok("fd00::1/128", IP_OR_CIDR);
	ip_ok("fd00::1", IP_OR_CIDR);
	REFUSED(addresses_check_ip("10.1.2.3/33", IP_CIDR, &problem),
		"\"10.1.2.3/33\": prefix length 33 is not in 0-32");
	REFUSED(addresses_check_ip("fd00::1/129", IP_CIDR, &problem),
		"\"fd00::1/129\": prefix length 129 is not in 0-128");
	REFUSED(addresses_check_ip("10.1.2.3/08", IP_CIDR, &problem),
		"\"10.1.2.3/08\": prefix length is not a decimal number");
	REFUSED(addresses_check_ip("10.1.2.3/", IP_CIDR, &problem),
		"\"10.1.2.3/\": prefix length is not a decimal number");
	REFUSED(addresses_check_ip("fd00::1/1280", IP_CIDR, &problem),
		"\"fd00::1/1280\": prefix length is not a decimal number");
	REFUSED(addresses_check_ip("10.1.2.3", IP_CIDR, &problem),
		"\"10.1.2.3\" has no prefix length (ADDRESS/LENGTH)");
	REFUSED(addresses_check_ip("10.1.2.3/24", IP_ONLY, &problem),
		"\"10.1.2.3/24\" is not an IP address (no prefix length here)");
	REFUSED(addresses_check_ip("10.1.2", IP_ONLY, &problem), "\"10.1.2\" is not an IP address");
	REFUSED(addresses_check_ip("fe80::1%eth0", IP_ONLY, &problem),
		"\"fe80::1%eth0\": IPv6 zone ids ('%') are not allowed");
	assert_int_equal(addresses_ip_family("10.0.0.1"), AF_INET);
	assert_int_equal(addresses_ip_family("::"), AF_INET6);
	assert_int_equal(addresses_ip_family("10.0.0.1/8"), 0);
}

static void mac_is(const char *s, const char *want)
{
	char *out = NULL, *problem = NULL;
	if (addresses_parse_mac(s, &out, &problem) < 0)
		fail_msg("\"%s\" refused: %s", s, problem);
	assert_string_equal(out, want);
	free(out);
}

static void test_mac(void **state)
{
	(void)state;
	char *problem = NULL;
	char *out = NULL;
	mac_is("C2-11-22-33-44-AA", "c2:11:22:33:44:aa");
	mac_is("fe:ff:ff:ff:ff:ff", "fe:ff:ff:ff:ff:ff");
	mac_is("00:00:00:00:00:01", "00:00:00:00:00:01");
	REFUSED(addresses_parse_mac("00:00:00:00:00:00", &out, &problem),
		"\"00:00:00:00:00:00\" is the all-zero address");
	REFUSED(addresses_parse_mac("01:00:5e:00:00:01", &out, &problem),
		"\"01:00:5e:00:00:01\" is a multicast address, not a unicast one");
	REFUSED(addresses_parse_mac("c2:11:22:33:44", &out, &problem),
		"\"c2:11:22:33:44\" is not a MAC address (6 hex octets separated by ':')");
	REFUSED(addresses_parse_mac("c2:11-22:33:44:55", &out, &problem),
		"\"c2:11-22:33:44:55\" is not a MAC address (6 hex octets separated by ':')");
	REFUSED(addresses_parse_mac("c2:11:22:33:44:5g", &out, &problem),
		"\"c2:11:22:33:44:5g\" is not a MAC address (6 hex octets separated by ':')");
	assert_null(out);
}

static void test_guid(void **state)
{
	(void)state;
	char *out = NULL, *problem = NULL;
	assert_int_equal(addresses_parse_guid("00-11-22-33-44-55-66-AA", &out, &problem), 0);
	assert_string_equal(out, "00:11:22:33:44:55:66:aa");
	free(out);
	out = NULL;
	REFUSED(addresses_parse_guid("00:11:22:33:44:55:66", &out, &problem),
		"\"00:11:22:33:44:55:66\" is not an InfiniBand GUID (8 hex octets separated by "
		"':')");
	assert_null(out);
}

/* A DNS-1123 label: 63 bytes at most, a letter or digit at each end. */
static void test_namespace(void **state)
{
	(void)state;
	char *problem = NULL;
	char label[65];
	memset(label, 'a', 63);
	label[63] = '\0';
	assert_int_equal(addresses_check_k8s_namespace(label, &problem), 0);
	assert_int_equal(addresses_check_k8s_namespace("0-a", &problem), 0);
	label[63] = 'a', label[64] = '\0';
	REFUSED(addresses_check_k8s_namespace(label, &problem),
		"namespace \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\" is "
		"longer than 63 bytes");
	REFUSED(addresses_check_k8s_namespace("", &problem), "namespace is empty");
	REFUSED(addresses_check_k8s_namespace("a-", &problem),
		"namespace \"a-\" must start and end with a letter or a digit");
	REFUSED(addresses_check_k8s_namespace("Kube", &problem),
		"namespace \"Kube\" may only contain lower case letters, digits and '-'");
}

/* Network and interface names are the library's rules; its message. */
static void test_names(void **state)
{
	(void)state;
	char *problem = NULL;
	assert_int_equal(addresses_check_network("net-1.a_b", &problem), 0);
	assert_int_equal(addresses_check_ifname("eth0", &problem), 0);
	assert_int_equal(addresses_check_network("a/b", &problem), -1);
	assert_non_null(problem);
	free(problem);
	problem = NULL;
	assert_int_equal(addresses_check_ifname("0123456789abcdef", &problem), -1);
	assert_non_null(problem);
	free(problem);
}

static void test_ip_list(void **state)
{
	(void)state;
	char **v = NULL;
	size_t n = 0;
	char *problem = NULL, *msg = NULL;
	json *a = NULL;
	assert_int_equal(
	    json_parse_with("[\"10.0.0.1\",\"fd00::1/64\"]", 25, "t", &util_json, &a, &msg), 0);
	assert_int_equal(addresses_ip_list_from_json(a, "ips", IP_OR_CIDR, &v, &n, &problem), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[1], "fd00::1/64");
	assert_null(v[2]);
	strv_free(v, n);
	v = NULL;
	REFUSED(addresses_ip_list_from_json(a, "default-route", IP_ONLY, &v, &n, &problem),
		"field \"default-route\": \"fd00::1/64\" is not an IP address (no prefix length "
		"here)");
	json_free(a);
	a = json_new(JSON_OBJECT);
	REFUSED(addresses_ip_list_from_json(a, "ips", IP_CIDR, &v, &n, &problem),
		"field \"ips\": is an object, expected an array of strings");
	json_arr_append(a = (json_free(a), json_new(JSON_ARRAY)), json_new_int(1));
	REFUSED(addresses_ip_list_from_json(a, "ips", IP_CIDR, &v, &n, &problem),
		"field \"ips\": item 1 is a number, expected a string");
	json_free(a);
	assert_null(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ip),	  cmocka_unit_test(test_mac),
	    cmocka_unit_test(test_guid),  cmocka_unit_test(test_namespace),
	    cmocka_unit_test(test_names), cmocka_unit_test(test_ip_list),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
