/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/request/cni-args.c: CNI_ARGS pairs that annotations ask for. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "request/cni-args.h"
#include "hooktest.h"

static void test_pairs(void **state)
{
	(void)state;
	struct kv *v = NULL;
	size_t n = 0;
	char *problem = NULL;
	assert_int_equal(cniargs_parse("a.b-C_1=x y;E=", &v, &n, &problem), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].key, "a.b-C_1");
	assert_string_equal(v[0].value, "x y");
	assert_string_equal(v[1].key, "E");
	assert_string_equal(v[1].value, "");
	kv_free(v, n);
}

static void test_refusals(void **state)
{
	(void)state;
	char *problem = NULL;
	struct kv *v = NULL;
	size_t n = 0;
	REFUSED(cniargs_parse("", &v, &n, &problem), "is empty");
	REFUSED(cniargs_parse("A=1;", &v, &n, &problem), "pair 2 is empty");
	REFUSED(cniargs_parse(";A=1", &v, &n, &problem), "pair 1 is empty");
	REFUSED(cniargs_parse("A", &v, &n, &problem), "\"A\" is not a KEY=VALUE pair");
	REFUSED(cniargs_parse("=1", &v, &n, &problem), "\"=1\": the key is empty");
	REFUSED(cniargs_parse("A B=1", &v, &n, &problem),
		"\"A B=1\": the key may only contain letters, digits, '_', '-' and '.'");
	REFUSED(cniargs_parse("ip=1", &v, &n, &problem),
		"\"ip=1\": key ip is set by cnihook itself");
	REFUSED(cniargs_parse("k8s_pod_name=x", &v, &n, &problem),
		"\"k8s_pod_name=x\": key k8s_pod_name is set by cnihook itself");
	REFUSED(cniargs_parse("ignoreunknown=0", &v, &n, &problem),
		"\"ignoreunknown=0\": key ignoreunknown is set by cnihook itself");
	REFUSED(cniargs_parse("A=1;A=2", &v, &n, &problem), "key A is given twice");
	REFUSED(cniargs_parse("A=1=2", &v, &n, &problem),
		"\"A=1=2\": value \"1=2\" must not contain ';', '=' or control characters");
	REFUSED(cniargs_parse("A=\x7f", &v, &n, &problem),
		"\"A=\\x7f\": value \"\\x7f\" must not contain ';', '=' or control characters");
	assert_null(v);
	assert_int_equal(n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pairs),
	    cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
