/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/names/hosts-file.c: the container's /etc/hosts composed. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "names/hosts-file.h"

#define BLOCK_FOR(ip, names) HOSTS_BEGIN "\n" ip "\t" names "\n" HOSTS_END "\n"

static json *parse(const char *text)
{
	json *v = NULL;
	char *err = NULL;
	if (json_parse_with(text, strlen(text), "t", &util_json, &v, &err) < 0)
		fail_msg("%s", err);
	return v;
}

/* Only the container's addresses: those of a sandbox interface, or of no
 * interface; no duplicates. */
static void test_addresses(void **state)
{
	(void)state;
	json *r = parse("{\"interfaces\": [{\"name\": \"br0\"}, {\"name\": \"eth0\", "
			"\"sandbox\": \"/proc/1/ns/net\"}], \"ips\": ["
			"{\"address\": \"10.0.0.1/24\", \"interface\": 0},"
			"{\"address\": \"10.0.0.2/24\", \"interface\": 1},"
			"{\"address\": \"fd00::2/64\"},"
			"{\"address\": \"10.0.0.2/24\", \"interface\": 1},"
			"{\"address\": \"10.0.0.9/24\", \"interface\": 7}]}");
	char **v = NULL;
	size_t n = 0;
	hosts_file_add_result(r, &v, &n);
	assert_int_equal(n, 2);
	assert_string_equal(v[0], "10.0.0.2");
	assert_string_equal(v[1], "fd00::2");
	strv_free(v, n);
	json_free(r);
}

static void test_names(void **state)
{
	(void)state;
	assert_true(hosts_file_name_ok("web-1.example"));
	assert_false(hosts_file_name_ok(""));
	assert_false(hosts_file_name_ok("-x"));
	assert_false(hosts_file_name_ok("a b"));
	assert_false(hosts_file_name_ok("a\n10.0.0.1 evil"));
	assert_false(hosts_file_name_ok("ns/id"));
}

/* A file of cnihook's own: localhost lines, then the block. */
static void test_own(void **state)
{
	(void)state;
	char *addrs[] = {"10.0.0.2"};
	char *names[] = {"web", "c1"};
	char *t = hosts_file_compose(NULL, addrs, 1, names, 2);
	assert_string_equal(
	    t, "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n" BLOCK_FOR(
		   "10.0.0.2", "web c1"));
	free(t);
}

/* The engine's file: its lines kept after the block; a second start
 * replaces the block rather than adding one. */
static void test_engine_restart(void **state)
{
	(void)state;
	char *a1[] = {"10.0.0.2"}, *a2[] = {"10.0.0.3"};
	char *names[] = {"web"};
	const char *engine = "127.0.0.1 localhost\n127.0.1.1 web\n10.9.9.9 peer";
	char *t1 = hosts_file_compose(engine, a1, 1, names, 1);
	assert_string_equal(t1, BLOCK_FOR("10.0.0.2", "web") "127.0.0.1 localhost\n127.0.1.1 web\n"
							     "10.9.9.9 peer\n");
	char *t2 = hosts_file_compose(t1, a2, 1, names, 1);
	assert_string_equal(t2, BLOCK_FOR("10.0.0.3", "web") "127.0.0.1 localhost\n127.0.1.1 web\n"
							     "10.9.9.9 peer\n");
	/* Nothing to say: the block goes, the engine's lines stay. */
	char *t3 = hosts_file_compose(t2, NULL, 0, names, 1);
	assert_string_equal(t3, "127.0.0.1 localhost\n127.0.1.1 web\n10.9.9.9 peer\n");
	free(t1);
	free(t2);
	free(t3);
}

/* The engine's names for the container: those of its loopback lines that
 * name its host name; the host's own lines (podman copies them) not. */
static void test_engine_names(void **state)
{
	(void)state;
	char **v = NULL;
	size_t n = 0;
	hosts_file_engine_names(
	    BLOCK_FOR("10.0.0.2", "abc123 old") "127.0.0.1 localhost\n"
						"127.0.1.1 abc123 web # x\n"
						"10.9.9.9 peer abc123\n127.0.0.1 runsc\n"
						"127.0.0.1 abc123 web2 bad/name\n",
	    "abc123", &v, &n);
	assert_int_equal(n, 3);
	assert_string_equal(v[0], "abc123");
	assert_string_equal(v[1], "web");
	assert_string_equal(v[2], "web2");
	strv_free(v, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_addresses),	 cmocka_unit_test(test_names),
	    cmocka_unit_test(test_own),		 cmocka_unit_test(test_engine_restart),
	    cmocka_unit_test(test_engine_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
