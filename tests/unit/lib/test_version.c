/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of lib/version.c: parsing, comparison and the supported set. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "internal.h"

static void assert_parses(const char *v, unsigned major, unsigned minor, unsigned patch)
{
	unsigned a = 99, b = 99, c = 99;
	if (version_parse(v, &a, &b, &c) != 0)
		fail_msg("version \"%s\" was refused", v);
	assert_int_equal(a, major);
	assert_int_equal(b, minor);
	assert_int_equal(c, patch);
}

static void assert_refused(const char *v)
{
	unsigned a = 99, b = 98, c = 97;
	if (version_parse(v, &a, &b, &c) != -1)
		fail_msg("version \"%s\" was accepted", v ? v : "(null)");
	/* Out parameters are written only on success. */
	assert_int_equal(a, 99);
	assert_int_equal(b, 98);
	assert_int_equal(c, 97);
}

static void test_parse_good(void **state)
{
	(void)state;
	assert_parses("0.1.0", 0, 1, 0);
	assert_parses("0.3.1", 0, 3, 1);
	assert_parses("1.1.0", 1, 1, 0);
	assert_parses("0.0.0", 0, 0, 0);
	assert_parses("10.20.30", 10, 20, 30);
	assert_parses("4294967295.4294967295.4294967295", 4294967295u, 4294967295u, 4294967295u);
	/* Leading zeros are read as decimal (the reference's strconv.Atoi
	 * accepts them too). */
	assert_parses("01.0.0", 1, 0, 0);
	assert_parses("0.010.0", 0, 10, 0);
	assert_parses("000.000.001", 0, 0, 1);
}

static void test_parse_bad(void **state)
{
	(void)state;
	/* Exactly three parts. (The reference's ParseVersion also takes "1",
	 * "1.0" and "" as 0.1.0; here a version is always X.Y.Z.) */
	assert_refused(NULL);
	assert_refused("");
	assert_refused("1");
	assert_refused("1.0");
	assert_refused("1.0.0.0");
	assert_refused("1.0.0.");
	/* Decimal digits only, no sign, no white space, nothing after. */
	assert_refused("a.b.c");
	assert_refused("1.0.x");
	assert_refused("v1.0.0");
	assert_refused("-1.0.0");
	assert_refused("+1.0.0");
	assert_refused("1.-1.0");
	assert_refused(" 1.0.0");
	assert_refused("1.0.0 ");
	assert_refused("1. 0.0");
	assert_refused("1.0.0\n");
	assert_refused("1.0.0-rc1");
	assert_refused("1.0.0+build");
	assert_refused("0x1.0.0");
	assert_refused("1..0");
	assert_refused(".1.0");
	assert_refused("1.0.");
	assert_refused("..");
	assert_refused("1,0,0");
	assert_refused("\xd9\xa1.0.0"); /* ARABIC-INDIC DIGIT ONE */
	/* Each part must fit in an unsigned int. */
	assert_refused("4294967296.0.0");
	assert_refused("0.4294967296.0");
	assert_refused("0.0.4294967296");
	assert_refused("99999999999999999999.0.0");
	assert_refused("0.0.184467440737095516160");
}

static void test_compare_order(void **state)
{
	(void)state;
	/* Oldest first; numeric, not textual, comparison. */
	static const char *const ordered[] = {
	    "0.0.0", "0.1.0", "0.2.0", "0.3.0", "0.3.1",  "0.4.0", "0.9.0",  "0.10.0",
	    "1.0.0", "1.0.1", "1.1.0", "1.9.9", "1.10.0", "2.0.0", "10.0.0",
	};
	for (size_t i = 0; i < ARRAY_SIZE(ordered); i++) {
		for (size_t k = 0; k < ARRAY_SIZE(ordered); k++) {
			int r = cnirt_version_compare(ordered[i], ordered[k]);
			if ((i < k && r >= 0) || (i == k && r != 0) || (i > k && r <= 0))
				fail_msg("compare(\"%s\", \"%s\") = %d", ordered[i], ordered[k], r);
		}
	}
	/* Equal values written differently compare equal. */
	assert_int_equal(cnirt_version_compare("01.0.0", "1.0.0"), 0);
	assert_int_equal(cnirt_version_compare("4294967295.0.0", "4294967295.0.0"), 0);
	assert_true(cnirt_version_compare("4294967295.0.0", "4294967294.9.9") > 0);
}

static void test_compare_invalid(void **state)
{
	(void)state;
	/* cnirt.h: "Unparsable versions compare lower than any valid one." */
	static const char *const invalid[] = {NULL, "", "1.0", "x", "1.0.0.0", "-1.0.0"};
	static const char *const valid[] = {"0.0.0", "0.1.0", "1.1.0", "4294967295.0.0"};
	for (size_t i = 0; i < ARRAY_SIZE(invalid); i++) {
		for (size_t k = 0; k < ARRAY_SIZE(valid); k++) {
			assert_true(cnirt_version_compare(invalid[i], valid[k]) < 0);
			assert_true(cnirt_version_compare(valid[k], invalid[i]) > 0);
		}
		/* Two invalid versions are equal to each other. */
		for (size_t k = 0; k < ARRAY_SIZE(invalid); k++)
			assert_int_equal(cnirt_version_compare(invalid[i], invalid[k]), 0);
	}
}

static void test_version_ge(void **state)
{
	(void)state;
	assert_true(version_ge("0.4.0", "0.4.0"));
	assert_true(version_ge("1.0.0", "0.4.0"));
	assert_true(version_ge("0.10.0", "0.4.0"));
	assert_false(version_ge("0.3.1", "0.4.0"));
	assert_false(version_ge("0.3.0", "0.3.1"));
	assert_false(version_ge("1.0", "0.1.0"));
	assert_true(version_ge("1.0.0", "1.0"));
}

static void test_supported(void **state)
{
	(void)state;
	static const char *const yes[] = {
	    "0.1.0", "0.2.0", "0.3.0", "0.3.1", "0.4.0", "1.0.0", "1.1.0",
	};
	for (size_t i = 0; i < ARRAY_SIZE(yes); i++)
		if (!version_is_supported(yes[i]))
			fail_msg("%s is not supported", yes[i]);
	static const char *const no[] = {
	    "0.5.0", "2.0.0", "0.0.0", "0.3.2",	 "1.0.1",  "1.2.0",  "0.1",
	    "1.0",   "",      NULL,    "01.0.0", "1.0.0 ", " 1.0.0", "1.1.0\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(no); i++)
		if (version_is_supported(no[i]))
			fail_msg("\"%s\" is supported", no[i] ? no[i] : "(null)");
}

static void test_supported_list(void **state)
{
	(void)state;
	static const char *const expect[] = {
	    "0.1.0", "0.2.0", "0.3.0", "0.3.1", "0.4.0", "1.0.0", "1.1.0",
	};
	const char *const *v = cnirt_supported_versions();
	assert_non_null(v);
	size_t n = 0;
	while (v[n])
		n++;
	assert_int_equal(n, ARRAY_SIZE(expect));
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(v[i], expect[i]);
		/* Every entry parses, is supported, and is newer than the last. */
		unsigned a, b, c;
		assert_int_equal(version_parse(v[i], &a, &b, &c), 0);
		assert_true(version_is_supported(v[i]));
		if (i > 0)
			assert_true(cnirt_version_compare(v[i - 1], v[i]) < 0);
	}
	/* The same list every time. */
	assert_ptr_equal(cnirt_supported_versions(), v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_good),	   cmocka_unit_test(test_parse_bad),
	    cmocka_unit_test(test_compare_order),  cmocka_unit_test(test_compare_invalid),
	    cmocka_unit_test(test_version_ge),	   cmocka_unit_test(test_supported),
	    cmocka_unit_test(test_supported_list),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
