/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/request/bandwidth.c: the bandwidth an attachment asks for. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "request/bandwidth.h"
#include "hooktest.h"

/* bandwidth_from_json of the JSON text `in`. */
static int bandwidth(const char *in, char **out, char **problem)
{
	_cleanup_json_ json *o = NULL;
	_cleanup_free_ char *msg = NULL;
	if (json_parse_with(in, strlen(in), "t", &util_json, &o, &msg) < 0)
		fail_msg("test input %s: %s", in, msg);
	return bandwidth_from_json(o, out, problem);
}

/* 0 and the largest integer are rates; the fields come out in one order. */
static void test_normalised(void **state)
{
	(void)state;
	char *out = NULL, *problem = NULL;
	assert_int_equal(
	    bandwidth("{\"egressBurst\":9223372036854775807,\"ingressRate\":0}", &out, &problem),
	    0);
	assert_string_equal(out, "{\"ingressRate\":0,\"egressBurst\":9223372036854775807}");
	free(out);
}

static void test_refusals(void **state)
{
	(void)state;
	char *problem = NULL;
	char *out = NULL;
	REFUSED(bandwidth("{}", &out, &problem),
		"sets none of ingressRate, ingressBurst, egressRate, egressBurst");
	REFUSED(bandwidth("[]", &out, &problem), "is an array, expected an object");
	REFUSED(bandwidth("{\"ingressRate\":-1}", &out, &problem),
		"field \"ingressRate\": -1 is not a non-negative integer");
	REFUSED(bandwidth("{\"egressRate\":9223372036854775808}", &out, &problem),
		"field \"egressRate\": 9223372036854775808 is not a non-negative integer");
	REFUSED(bandwidth("{\"egressRate\":1.0}", &out, &problem),
		"field \"egressRate\": 1.0 is not a non-negative integer");
	REFUSED(bandwidth("{\"egressRate\":\"1\"}", &out, &problem),
		"field \"egressRate\": is a string, expected a non-negative integer");
	REFUSED(
	    bandwidth("{\"ingressRate\":1,\"ingresBurst\":1}", &out, &problem),
	    "unknown field \"ingresBurst\"; did you mean \"ingressBurst\"? (known: ingressRate, "
	    "ingressBurst, egressRate, egressBurst)");
	assert_null(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_normalised),
	    cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
