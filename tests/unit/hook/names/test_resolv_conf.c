/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/names/resolv-conf.c: the container's resolv.conf composed. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names/resolv-conf.h"

static json *parse(const char *text)
{
	json *v = NULL;
	char *err = NULL;
	if (json_parse_with(text, strlen(text), "t", &util_json, &v, &err) < 0)
		fail_msg("%s", err);
	return v;
}

static void test_parse(void **state)
{
	(void)state;
	struct resolv r = {0};
	resolv_conf_parse("# c\nnameserver 10.0.0.1\nnameserver 10.0.0.1 \n"
			  "domain a.test\nsearch b.test  a.test\noptions ndots:2 edns0 ndots:5\n"
			  "nameserver not-an-ip\nsortlist 1.2.3.4\n",
			  &r);
	assert_int_equal(r.n_servers, 1);
	assert_string_equal(r.servers[0], "10.0.0.1");
	assert_int_equal(r.n_search, 2);
	assert_string_equal(r.search[0], "a.test");
	assert_string_equal(r.search[1], "b.test");
	/* An option's name once: the first ndots wins. */
	assert_int_equal(r.n_options, 2);
	assert_string_equal(r.options[0], "ndots:2");
	resolv_conf_free(&r);
}

/* A result's dns: local servers dropped; search domains and options held
 * to what the annotations allow; the composed lines bounded. */
static void test_result_checked(void **state)
{
	(void)state;
	const char *text =
	    "{\"nameservers\": [\"127.0.0.1\", \"::ffff:127.0.0.1\", \"0.0.0.0\", \"10.1.1.1\"],"
	    " \"search\": [\"ok.test\", \"caf\u00e9.test\", \"-x.test\", \"a.test\", \"b.test\","
	    " \"c.test\", \"d.test\", \"e.test\", \"f.test\"],"
	    " \"options\": [\"ndots:2\", \"x y\", \"edns0\"]}";
	json *dns = NULL;
	char *err = NULL;
	assert_int_equal(json_parse_with(text, strlen(text), "t", &util_json, &dns, &err), 0);
	struct resolv r = {0};
	resolv_conf_add_dns(&r, dns);
	assert_int_equal(r.n_servers, 1);
	assert_string_equal(r.servers[0], "10.1.1.1");
	assert_int_equal(r.n_search, 7);
	assert_int_equal(r.n_options, 2);
	char *out = resolv_conf_compose(&r);
	assert_non_null(strstr(out, "\nsearch ok.test a.test b.test c.test d.test e.test\n"));
	assert_non_null(strstr(out, "\noptions ndots:2 edns0\n"));
	free(out);
	resolv_conf_free(&r);
	/* 40 options of 20 bytes: the line stops within 255 bytes */
	for (int i = 0; i < 40; i++) {
		char o[32];
		snprintf(o, sizeof(o), "opt%02d:0123456789abc", i);
		strv_append(&r.options, &r.n_options, o);
	}
	out = resolv_conf_compose(&r);
	const char *line = strstr(out, "options ");
	assert_non_null(line);
	assert_true(strcspn(line, "\n") <= RESOLV_MAX_LINE);
	free(out);
	resolv_conf_free(&r);
	json_free(dns);
}

static void test_stub_and_loopback(void **state)
{
	(void)state;
	struct resolv r = {0};
	resolv_conf_parse("nameserver 127.0.0.53\n", &r);
	assert_true(resolv_conf_names_stub(&r));
	assert_true(resolv_conf_is_local("127.0.0.53"));
	assert_true(resolv_conf_is_local("::1"));
	assert_true(resolv_conf_is_local("0.0.0.0"));
	assert_true(resolv_conf_is_local("::"));
	assert_true(resolv_conf_is_local("::ffff:127.0.0.1"));
	assert_true(resolv_conf_is_local("::ffff:0.0.0.0"));
	assert_false(resolv_conf_is_local("10.0.0.1"));
	assert_false(resolv_conf_is_local("::ffff:10.0.0.1"));
	assert_false(resolv_conf_is_local("fe80::1%eth0"));
	struct resolv acc = {0};
	resolv_conf_merge(&acc, &r, true);
	assert_int_equal(acc.n_servers, 0);
	resolv_conf_free(&r);
	resolv_conf_free(&acc);
}

/* A result's dns: domain before search; a value that would add a line of
 * its own is dropped. */
static void test_add_dns(void **state)
{
	(void)state;
	json *dns = parse("{\"nameservers\": [\"10.1.0.1\", \"6.6.6.6\\nnameserver 7.7.7.7\", 5],"
			  "\"domain\": \"d.test\", \"search\": [\"s.test\", \"x y\"],"
			  "\"options\": [\"ndots:1\"]}");
	struct resolv r = {0};
	resolv_conf_add_dns(&r, dns);
	assert_int_equal(r.n_servers, 1);
	assert_string_equal(r.servers[0], "10.1.0.1");
	assert_int_equal(r.n_search, 2);
	assert_string_equal(r.search[0], "d.test");
	assert_string_equal(r.search[1], "s.test");
	assert_int_equal(r.n_options, 1);
	json_free(dns);
	resolv_conf_free(&r);
}

/* glibc reads 3 servers: the fourth is not written. */
static void test_compose(void **state)
{
	(void)state;
	struct resolv r = {0};
	resolv_conf_parse("nameserver 10.0.0.1\nnameserver 10.0.0.2\nnameserver 10.0.0.3\n"
			  "nameserver 10.0.0.4\nsearch a.test\noptions edns0\n",
			  &r);
	char *text = resolv_conf_compose(&r);
	assert_string_equal(text, "# Written by cnihook for this container (cnihook(8), NAMES).\n"
				  "nameserver 10.0.0.1\nnameserver 10.0.0.2\nnameserver 10.0.0.3\n"
				  "search a.test\noptions edns0\n");
	free(text);
	resolv_conf_free(&r);
	text = resolv_conf_compose(&(struct resolv){0});
	assert_string_equal(text, "# Written by cnihook for this container (cnihook(8), NAMES).\n");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),   cmocka_unit_test(test_stub_and_loopback),
	    cmocka_unit_test(test_add_dns), cmocka_unit_test(test_result_checked),
	    cmocka_unit_test(test_compose),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
