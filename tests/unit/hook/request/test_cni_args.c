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
	struct kvlist v = {0};
	char *problem = NULL;
	assert_int_equal(cni_args_parse("a.b-C_1=x y;E=", &v, &problem), 0);
	const char *want[] = {"a.b-C_1=x y", "E=", NULL};
	args_are(&v, want);
	kvlist_free(&v);
}

static void test_refusals(void **state)
{
	(void)state;
	char *problem = NULL;
	struct kvlist v = {0};
	REFUSED(cni_args_parse("", &v, &problem), "is empty");
	REFUSED(cni_args_parse("A=1;", &v, &problem), "pair 2 is empty");
	REFUSED(cni_args_parse(";A=1", &v, &problem), "pair 1 is empty");
	REFUSED(cni_args_parse("A", &v, &problem), "\"A\" is not a KEY=VALUE pair");
	REFUSED(cni_args_parse("=1", &v, &problem), "\"=1\": the key is empty");
	REFUSED(cni_args_parse("A B=1", &v, &problem),
		"\"A B=1\": the key may only contain letters, digits, '_', '-' and '.'");
	REFUSED(cni_args_parse("ip=1", &v, &problem), "\"ip=1\": key ip is set by cnihook itself");
	REFUSED(cni_args_parse("k8s_pod_name=x", &v, &problem),
		"\"k8s_pod_name=x\": key k8s_pod_name is set by cnihook itself");
	REFUSED(cni_args_parse("ignoreunknown=0", &v, &problem),
		"\"ignoreunknown=0\": key ignoreunknown is set by cnihook itself");
	REFUSED(cni_args_parse("A=1;A=2", &v, &problem), "key A is given twice");
	REFUSED(cni_args_parse("A=1=2", &v, &problem),
		"\"A=1=2\": value \"1=2\" must not contain ';', '=' or control characters");
	REFUSED(cni_args_parse("A=\x7f", &v, &problem),
		"\"A=\\x7f\": value \"\\x7f\" must not contain ';', '=' or control characters");
	assert_null(v.v);
	assert_int_equal(v.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pairs),
	    cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
