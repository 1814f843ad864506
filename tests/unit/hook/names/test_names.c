/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/names/names.c: config.json's view, the settings, resolv.conf's sources. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "names/names.h"

static json *parse(const char *text)
{
	json *v = NULL;
	char *err = NULL;
	if (json_parse_with(text, strlen(text), "t", &util_json, &v, &err) < 0)
		fail_msg("%s", err);
	return v;
}

static void test_bundle(void **state)
{
	(void)state;
	json *c = parse(
	    "{\"root\": {\"path\": \"rootfs\", \"readonly\": true},"
	    "\"hostname\": \"web\", \"mounts\": ["
	    "{\"destination\": \"//etc/hosts/\", \"type\": \"bind\","
	    " \"source\": \"/var/lib/c/ID/userdata/hosts\", \"options\": [\"rbind\", \"ro\"]},"
	    "{\"destination\": \"/etc/resolv.conf\", \"type\": \"tmpfs\","
	    " \"source\": \"tmpfs\"}]}");
	struct names_bundle b;
	char *err = NULL;
	assert_int_equal(names_bundle_parse(c, "/b", &b, &err), 0);
	assert_string_equal(b.root, "/b/rootfs");
	assert_string_equal(b.hostname, "web");
	assert_string_equal(b.mounted[NAMES_HOSTS], "/var/lib/c/ID/userdata/hosts");
	assert_true(b.ro[NAMES_HOSTS]);
	assert_null(b.mounted[NAMES_RESOLV_CONF]);
	assert_true(b.other[NAMES_RESOLV_CONF]);
	names_bundle_free(&b);
	json_free(c);
	c = parse("{\"hostname\": \"x\"}");
	assert_int_equal(names_bundle_parse(c, "/b", &b, &err), -1);
	assert_string_equal(err, "config.json: field \"root.path\": missing");
	free(err);
	json_free(c);
}

static void test_modes(void **state)
{
	(void)state;
	struct names_request none = {0}, off = {.mode = "off"}, always = {.mode = "always"},
			     autom = {.mode = "auto"};
	assert_int_equal(names_mode_for(NAMES_AUTO, &none), NAMES_AUTO);
	assert_int_equal(names_mode_for(NAMES_AUTO, &off), NAMES_OFF);
	assert_int_equal(names_mode_for(NAMES_AUTO, &always), NAMES_ALWAYS);
	assert_int_equal(names_mode_for(NAMES_ALWAYS, &autom), NAMES_ALWAYS);
	/* The administrator's "off" stands. */
	assert_int_equal(names_mode_for(NAMES_OFF, &always), NAMES_OFF);
}

static void test_have_dns(void **state)
{
	(void)state;
	char *with[] = {"{\"ips\": []}", "{\"dns\": {\"nameservers\": [\"10.0.0.1\"]}}"};
	char *without[] = {"{\"dns\": {}}", "{\"dns\": {\"nameservers\": []}}", "not json"};
	assert_true(names_results_have_dns(with, 2));
	assert_false(names_results_have_dns(without, 3));
}

/* The results' servers in order, then the base's without loopback ones;
 * the request's replace them. */
static void test_compose_resolv(void **state)
{
	(void)state;
	json *r[] = {
	    parse("{\"dns\": {\"nameservers\": [\"10.0.0.1\"], \"search\": [\"a.test\"]}}"),
	    parse("{\"dns\": {\"nameservers\": [\"10.0.0.1\", \"10.0.1.1\"]}}"),
	};
	struct resolv base = {0};
	resolv_conf_parse("nameserver 127.0.0.53\nnameserver 192.0.2.1\nnameserver 192.0.2.2\n"
			  "search host.test\n",
			  &base);
	struct names_request none = {0};
	char *t = names_compose_resolv(&none, r, 2, &base);
	assert_string_equal(t, "# Written by cnihook for this container (cnihook(8), NAMES).\n"
			       "nameserver 10.0.0.1\nnameserver 10.0.1.1\nnameserver 192.0.2.1\n"
			       "search a.test host.test\n");
	free(t);
	char *servers[] = {"192.0.2.53"};
	struct names_request req = {.servers = servers, .n_servers = 1};
	t = names_compose_resolv(&req, r, 2, &base);
	assert_string_equal(t, "# Written by cnihook for this container (cnihook(8), NAMES).\n"
			       "nameserver 192.0.2.53\nsearch a.test host.test\n");
	free(t);
	resolv_conf_free(&base);
	json_free(r[0]);
	json_free(r[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bundle),
	    cmocka_unit_test(test_modes),
	    cmocka_unit_test(test_have_dns),
	    cmocka_unit_test(test_compose_resolv),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
