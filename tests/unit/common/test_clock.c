/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of common/clock.c: the monotonic clock in both units. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <time.h>

#include "common.h"

/* The two units read one clock, and it never goes back. */
static void test_units_agree(void **state)
{
	(void)state;
	long long us = clock_monotonic_usec(), ms = clock_monotonic_ms(),
		  us2 = clock_monotonic_usec();
	assert_true(us / 1000 <= ms);
	assert_true(ms <= us2 / 1000);
	assert_true(us <= us2);
}

static void test_advances(void **state)
{
	(void)state;
	long long start = clock_monotonic_usec();
	struct timespec ts = {.tv_nsec = 20 * 1000 * 1000};
	nanosleep(&ts, NULL);
	long long took = clock_monotonic_usec() - start;
	assert_true(took >= 20000);
	assert_true(took < 10 * 1000 * 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_units_agree),
	    cmocka_unit_test(test_advances),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
