/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/request/names-request.c: io.cnihook.dns and its overrides. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "hooktest.h"
#include "request/names-request.h"

#define KV(k, v)                                                                                   \
	{                                                                                          \
		(char *)(k), (char *)(v)                                                           \
	}

static void test_parse(void **state)
{
	(void)state;
	struct kv a[] = {KV(ANN_DNS, "always"), KV(ANN_DNS_SERVERS, "10.0.0.1, fd00::1"),
			 KV(ANN_DNS_SEARCH, "a.test,b.test"), KV(ANN_DNS_OPTIONS, "ndots:2")};
	struct names_request r;
	char *err = NULL;
	assert_int_equal(names_request_parse(KVLIST(a), &r, &err), 0);
	assert_string_equal(r.mode, "always");
	assert_int_equal(r.n_servers, 2);
	assert_string_equal(r.servers[1], "fd00::1");
	assert_int_equal(r.n_search, 2);
	assert_int_equal(r.n_options, 1);
	const char *key;
	assert_true(names_request_any(&r, &key));
	assert_string_equal(key, ANN_DNS);
	names_request_free(&r);
	assert_int_equal(names_request_parse(KVLIST_N(a, 0), &r, &err), 0);
	assert_false(names_request_any(&r, &key));
	names_request_free(&r);
}

static void refused(const char *key, const char *value, const char *want)
{
	struct kv a[] = {KV(key, value)};
	struct names_request r;
	char *err = NULL;
	assert_int_equal(names_request_parse(KVLIST(a), &r, &err), -1);
	assert_string_equal(err, want);
	free(err);
}

/* Nothing that would add a line of its own to resolv.conf. */
static void test_refused(void **state)
{
	(void)state;
	refused(ANN_DNS, "on",
		"annotation \"io.cnihook.dns\": \"on\": must be \"off\", \"auto\" or \"always\"");
	refused(
	    ANN_DNS_SERVERS, "10.0.0.1,dns.google",
	    "annotation \"io.cnihook.dns-servers\": item 2 \"dns.google\" is not an IP address");
	refused(ANN_DNS_SEARCH, "a.test\nnameserver 6.6.6.6",
		"annotation \"io.cnihook.dns-search\": item 1 \"a.test\\x0anameserver 6.6.6.6\" is "
		"not a domain");
	refused(ANN_DNS_OPTIONS, "ndots:2 rotate",
		"annotation \"io.cnihook.dns-options\": item 1 \"ndots:2 rotate\" is not a "
		"resolv.conf option");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
