/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of lib/names.c (container id, interface name, network name) and of
 * lib/error.c (the error object). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

typedef int (*check_fn)(const char *, cnirt_error **);

static void assert_good(check_fn check, const char *v)
{
	cnirt_error *err = NULL;
	int r = check(v, &err);
	if (r != 0) {
		char msg[512];
		snprintf(msg, sizeof(msg), "%s", cnirt_error_msg(err));
		cnirt_error_free(err);
		fail_msg("\"%s\" refused: %s", v, msg);
	}
	assert_null(err);
}

/* The value as messages show it: bytes outside printable ASCII, '"' and '\\'
 * as \xNN, cut after 80 bytes with "...". */
static void shown(const char *v, char *out, size_t size)
{
	size_t n = 0, o = 0;
	for (const unsigned char *p = (const unsigned char *)(v ? v : ""); *p; p++, n++) {
		if (n == 80) {
			o += (size_t)snprintf(out + o, size - o, "...");
			break;
		}
		if (*p < 0x20 || *p >= 0x7f || *p == '"' || *p == '\\')
			o += (size_t)snprintf(out + o, size - o, "\\x%02x", *p);
		else
			out[o++] = (char)*p;
	}
	out[o] = '\0';
}

/* The check fails with `code` and the message `<field> "<v>": <problem>`. */
static void assert_bad(check_fn check, const char *v, int code, const char *field,
		       const char *problem)
{
	cnirt_error *err = NULL;
	int r = check(v, &err);
	if (r == 0)
		fail_msg("%s \"%s\" accepted", field, v ? v : "(null)");
	assert_true(r < 0);
	assert_non_null(err);
	char expect[1024], value[512];
	shown(v, value, sizeof(value));
	snprintf(expect, sizeof(expect), "%s \"%s\": %s", field, value, problem);
	char got[1024];
	snprintf(got, sizeof(got), "%s", cnirt_error_msg(err));
	int got_code = cnirt_error_code(err);
	bool plugin = cnirt_error_from_plugin(err);
	cnirt_error_free(err);
	assert_string_equal(got, expect);
	assert_int_equal(got_code, code);
	assert_false(plugin);
}

#define CHARSET_PROBLEM "may only contain letters, digits, '_', '.' and '-'"
#define START_PROBLEM	"must start with a letter or a digit"

/* A string of n copies of c (static storage, n < 300). */
static const char *repeat(char c, size_t n)
{
	static char s[300];
	assert_true(n < sizeof(s));
	memset(s, c, n);
	s[n] = '\0';
	return s;
}

/* -------------------------------------------------------- container id */

/* SPEC-1.0.0 section "Parameters", CNI_CONTAINERID: "Must not be empty. Must
 * start with an alphanumeric character, optionally followed by any
 * combination of one or more alphanumeric characters, underscore (), dot (.)
 * or hyphen (-)." */
static void test_container_id_good(void **state)
{
	(void)state;
	assert_good(cnirt_check_container_id, "abc");
	assert_good(cnirt_check_container_id, "a-b_c.d");
	assert_good(cnirt_check_container_id, "A");
	assert_good(cnirt_check_container_id, "0");
	assert_good(cnirt_check_container_id, "9abc-");
	assert_good(cnirt_check_container_id, "a..b");
	assert_good(cnirt_check_container_id, "a.");
	assert_good(cnirt_check_container_id,
		    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
	assert_good(cnirt_check_container_id, repeat('a', 255));
}

static void test_container_id_bad(void **state)
{
	(void)state;
	const check_fn f = cnirt_check_container_id;
	const int code = CNIRT_ERR_INVALID_ENV;
	const char *field = "container id";
	assert_bad(f, NULL, code, field, "is empty");
	assert_bad(f, "", code, field, "is empty");
	assert_bad(f, "-a", code, field, START_PROBLEM);
	assert_bad(f, ".a", code, field, START_PROBLEM);
	assert_bad(f, "_a", code, field, START_PROBLEM);
	assert_bad(f, ".", code, field, START_PROBLEM);
	assert_bad(f, "..", code, field, START_PROBLEM);
	assert_bad(f, "../x", code, field, START_PROBLEM);
	assert_bad(f, "/abs", code, field, START_PROBLEM);
	assert_bad(f, " a", code, field, START_PROBLEM);
	assert_bad(f, "a/b", code, field, CHARSET_PROBLEM);
	assert_bad(f, "a/../../etc", code, field, CHARSET_PROBLEM);
	assert_bad(f, "a b", code, field, CHARSET_PROBLEM);
	assert_bad(f, "a:b", code, field, CHARSET_PROBLEM);
	assert_bad(f, "a;b", code, field, CHARSET_PROBLEM);
	assert_bad(f, "a=b", code, field, CHARSET_PROBLEM);
	assert_bad(f, "a\tb", code, field, CHARSET_PROBLEM);
	assert_bad(f, "a\nb", code, field, CHARSET_PROBLEM);
	assert_bad(f, "a\\b", code, field, CHARSET_PROBLEM);
	assert_bad(f, "a*", code, field, CHARSET_PROBLEM);
	assert_bad(f, "a+b", code, field, CHARSET_PROBLEM);
	/* Non-ASCII letters are not alphanumeric here ("é", "ü", "日"). */
	assert_bad(f, "\xc3\xa9", code, field, START_PROBLEM);
	assert_bad(f, "a\xc3\xbc", code, field, CHARSET_PROBLEM);
	assert_bad(f, "id\xe6\x97\xa5", code, field, CHARSET_PROBLEM);
	assert_bad(f, "\xff", code, field, START_PROBLEM);
	assert_bad(f, "a\x7f", code, field, CHARSET_PROBLEM);
	assert_bad(f, repeat('a', 256), code, field, "is longer than 255 bytes");
}

/* -------------------------------------------------------- network name */

/* SPEC-1.0.0 section 1, `name`: "Must start with an alphanumeric character,
 * optionally followed by any combination of one or more alphanumeric
 * characters, underscore, dot (.) or hyphen (-)." */
static void test_network_name(void **state)
{
	(void)state;
	const check_fn f = cnirt_check_network_name;
	assert_good(f, "dbnet");
	assert_good(f, "my-net_1.0");
	assert_good(f, "0");
	assert_good(f, repeat('n', 255));
	const int code = CNIRT_ERR_INVALID_CONFIG;
	const char *field = "network name";
	assert_bad(f, NULL, code, field, "is empty");
	assert_bad(f, "", code, field, "is empty");
	assert_bad(f, "-net", code, field, START_PROBLEM);
	assert_bad(f, ".net", code, field, START_PROBLEM);
	assert_bad(f, "..", code, field, START_PROBLEM);
	assert_bad(f, "../etc", code, field, START_PROBLEM);
	assert_bad(f, "a/b", code, field, CHARSET_PROBLEM);
	assert_bad(f, "my net", code, field, CHARSET_PROBLEM);
	assert_bad(f, "net:1", code, field, CHARSET_PROBLEM);
	assert_bad(f, "r\xc3\xa9seau", code, field, CHARSET_PROBLEM);
	assert_bad(f, repeat('n', 256), code, field, "is longer than 255 bytes");
}

/* ------------------------------------------------------ interface name */

/* The kernel's dev_valid_name() rules, as the reference library's
 * ValidateInterfaceName applies them: not empty, at most 15 bytes (IFNAMSIZ
 * 16 with the NUL), not "." or "..", no '/', ':' or white space. */
static void test_ifname_good(void **state)
{
	(void)state;
	const check_fn f = cnirt_check_ifname;
	assert_good(f, "eth0");
	assert_good(f, "net1");
	assert_good(f, "eth0.100");
	assert_good(f, "veth-a_b@x");
	assert_good(f, "...");
	assert_good(f, ".a");
	assert_good(f, "-");
	assert_good(f, repeat('i', 15));
}

static void test_ifname_bad(void **state)
{
	(void)state;
	const check_fn f = cnirt_check_ifname;
	const int code = CNIRT_ERR_INVALID_ENV;
	const char *field = "interface name";
	static const char sep[] = "must be printable ASCII without '/', ':' or white space";
	assert_bad(f, NULL, code, field, "is empty");
	assert_bad(f, "", code, field, "is empty");
	assert_bad(f, repeat('i', 16), code, field, "is longer than 15 bytes");
	assert_bad(f, repeat('i', 200), code, field, "is longer than 15 bytes");
	/* 15 characters but 16 bytes: the limit is in bytes. */
	assert_bad(f,
		   "eth\xc3\xa9"
		   "abcdefghijk",
		   code, field, "is longer than 15 bytes");
	assert_bad(f, ".", code, field, "must not be \".\" or \"..\"");
	assert_bad(f, "..", code, field, "must not be \".\" or \"..\"");
	assert_bad(f, "a/b", code, field, sep);
	assert_bad(f, "/", code, field, sep);
	assert_bad(f, "../x", code, field, sep);
	assert_bad(f, "a:b", code, field, sep);
	assert_bad(f, "eth0:1", code, field, sep);
	assert_bad(f, "a b", code, field, sep);
	assert_bad(f, "a\tb", code, field, sep);
	assert_bad(f, "a\nb", code, field, sep);
	assert_bad(f, "a\rb", code, field, sep);
	assert_bad(f, "a\vb", code, field, sep);
	assert_bad(f, "a\fb", code, field, sep);
	assert_bad(f, " ", code, field, sep);
	assert_bad(f, "eth0 ", code, field, sep);
	/* Unicode white space (U+00A0, U+0085) and control bytes, which the
	 * kernel and the reference refuse too: only printable ASCII passes. */
	assert_bad(f,
		   "eth\xc2\xa0"
		   "0",
		   code, field, sep);
	assert_bad(f, "eth\xc2\x85", code, field, sep);
	assert_bad(f, "eth\x7f", code, field, sep);
}

/* ----------------------------------------------------------- error.c */

static void test_error_set(void **state)
{
	(void)state;
	cnirt_error *err = NULL;
	assert_int_equal(
	    error_set(&err, CNIRT_ERR_INVALID_CONFIG, "field \"%s\": %d is bad", "mtu", -1), -1);
	assert_non_null(err);
	assert_int_equal(cnirt_error_code(err), CNIRT_ERR_INVALID_CONFIG);
	assert_string_equal(cnirt_error_msg(err), "field \"mtu\": -1 is bad");
	assert_null(cnirt_error_details(err));
	assert_null(cnirt_error_network(err));
	assert_null(cnirt_error_plugin(err));
	assert_false(cnirt_error_from_plugin(err));
	assert_int_equal(cnirt_error_errno(err), 0);

	/* A second error replaces the first (valgrind checks the old one is
	 * freed), and may quote it. */
	error_set_network(err, "n");
	assert_int_equal(error_set(&err, CNIRT_ERR_IO, "wrapped: %s", cnirt_error_msg(err)), -1);
	assert_int_equal(cnirt_error_code(err), CNIRT_ERR_IO);
	assert_string_equal(cnirt_error_msg(err), "wrapped: field \"mtu\": -1 is bad");
	assert_null(cnirt_error_network(err));

	/* CNIRT_ERR_NONE is a valid code for runtime failures. */
	assert_int_equal(error_set(&err, CNIRT_ERR_NONE, "%s", "plain"), -1);
	assert_int_equal(cnirt_error_code(err), CNIRT_ERR_NONE);
	assert_string_equal(cnirt_error_msg(err), "plain");
	cnirt_error_free(err);
}

static void test_error_set_errno(void **state)
{
	(void)state;
	cnirt_error *err = NULL;
	errno = 0;
	assert_int_equal(error_set_errno(&err, CNIRT_ERR_IO, ENOENT, "open \"%s\"", "/x"), -1);
	assert_int_equal(cnirt_error_code(err), CNIRT_ERR_IO);
	assert_int_equal(cnirt_error_errno(err), ENOENT);
	char expect[256];
	snprintf(expect, sizeof(expect), "open \"/x\": %s", strerror(ENOENT));
	assert_string_equal(cnirt_error_msg(err), expect);
	/* Does not touch errno itself. */
	assert_int_equal(errno, 0);

	/* Replacing with a plain error resets errno. */
	error_set(&err, CNIRT_ERR_DECODE, "bad");
	assert_int_equal(cnirt_error_errno(err), 0);

	/* Another errno, replacing. */
	error_set_errno(&err, CNIRT_ERR_NONE, EACCES, "exec");
	snprintf(expect, sizeof(expect), "exec: %s", strerror(EACCES));
	assert_string_equal(cnirt_error_msg(err), expect);
	assert_int_equal(cnirt_error_errno(err), EACCES);
	assert_int_equal(cnirt_error_code(err), CNIRT_ERR_NONE);
	cnirt_error_free(err);
}

static void test_error_prefix(void **state)
{
	(void)state;
	cnirt_error *err = NULL;
	error_set_errno(&err, CNIRT_ERR_IO, EPERM, "write");
	assert_int_equal(error_prefix(&err, "plugin \"%s\" %s", "bridge", "ADD"), -1);
	assert_int_equal(error_prefix(&err, "network \"%s\"", "n"), -1);
	char expect[256];
	snprintf(expect, sizeof(expect), "network \"n\": plugin \"bridge\" ADD: write: %s",
		 strerror(EPERM));
	assert_string_equal(cnirt_error_msg(err), expect);
	/* Code and errno travel unchanged. */
	assert_int_equal(cnirt_error_code(err), CNIRT_ERR_IO);
	assert_int_equal(cnirt_error_errno(err), EPERM);
	cnirt_error_free(err);

	/* No error: nothing to prefix, still -1. */
	err = NULL;
	assert_int_equal(error_prefix(&err, "context"), -1);
	assert_null(err);

	/* A '%' in the message is not read as a format. */
	error_set(&err, 0, "%s", "100%d");
	error_prefix(&err, "%s", "a%sb");
	assert_string_equal(cnirt_error_msg(err), "a%sb: 100%d");
	cnirt_error_free(err);
}

static void test_error_network_plugin(void **state)
{
	(void)state;
	cnirt_error *err = NULL;
	error_set(&err, CNIRT_ERR_IO, "x");
	error_set_network(err, NULL);
	assert_null(cnirt_error_network(err));
	error_set_network(err, "first");
	error_set_network(err, "second");
	assert_string_equal(cnirt_error_network(err), "first");
	error_set_plugin(err, NULL);
	assert_null(cnirt_error_plugin(err));
	error_set_plugin(err, "bridge");
	error_set_plugin(err, "other");
	assert_string_equal(cnirt_error_plugin(err), "bridge");
	/* Prefixing keeps them. */
	error_prefix(&err, "ctx");
	assert_string_equal(cnirt_error_network(err), "first");
	assert_string_equal(cnirt_error_plugin(err), "bridge");
	/* A NULL error is ignored. */
	error_set_network(NULL, "n");
	error_set_plugin(NULL, "p");
	cnirt_error_free(err);
}

static void test_error_plugin_fields(void **state)
{
	(void)state;
	/* What exec.c fills for a plugin's error result. */
	cnirt_error *err = NULL;
	error_set(&err, 42, "%s", "plugin message");
	err->from_plugin = true;
	err->details = xstrdup("more");
	assert_int_equal(cnirt_error_code(err), 42);
	assert_true(cnirt_error_from_plugin(err));
	assert_string_equal(cnirt_error_details(err), "more");
	error_prefix(&err, "ctx");
	assert_int_equal(cnirt_error_code(err), 42);
	assert_true(cnirt_error_from_plugin(err));
	assert_string_equal(cnirt_error_details(err), "more");
	cnirt_error_free(err);
}

static void test_error_accessors_null(void **state)
{
	(void)state;
	assert_int_equal(cnirt_error_code(NULL), 0);
	assert_string_equal(cnirt_error_msg(NULL), "unknown error");
	assert_null(cnirt_error_details(NULL));
	assert_null(cnirt_error_network(NULL));
	assert_null(cnirt_error_plugin(NULL));
	assert_false(cnirt_error_from_plugin(NULL));
	assert_int_equal(cnirt_error_errno(NULL), 0);
	cnirt_error_free(NULL);
}

static void test_error_cleanup(void **state)
{
	(void)state;
	/* _cleanup_error_ frees on scope exit (valgrind checks). */
	{
		_cleanup_error_ cnirt_error *err = NULL;
		error_set(&err, 1, "scoped");
		assert_string_equal(cnirt_error_msg(err), "scoped");
	}
	{
		_cleanup_error_ cnirt_error *none = NULL;
		assert_null(none);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_container_id_good),	 cmocka_unit_test(test_container_id_bad),
	    cmocka_unit_test(test_network_name),	 cmocka_unit_test(test_ifname_good),
	    cmocka_unit_test(test_ifname_bad),		 cmocka_unit_test(test_error_set),
	    cmocka_unit_test(test_error_set_errno),	 cmocka_unit_test(test_error_prefix),
	    cmocka_unit_test(test_error_network_plugin), cmocka_unit_test(test_error_plugin_fields),
	    cmocka_unit_test(test_error_accessors_null), cmocka_unit_test(test_error_cleanup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
