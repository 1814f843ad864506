/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of common/json.c (the JSON tree, its limits), of lib/json-read.c
 * (json_read_parse, json_read_string, json_read_bool) and of common/buf.c's struct buf. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "internal.h"

/* ------------------------------------------------------------ helpers */

/* `s` with bytes outside printable ASCII escaped, cut at 200 bytes (for
 * failure messages only). */
static const char *show(const char *s, size_t n)
{
	static char out[1024];
	size_t o = 0;
	for (size_t i = 0; i < n && i < 200; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7f)
			out[o++] = (char)c;
		else
			o += (size_t)snprintf(out + o, sizeof(out) - o, "\\x%02x", c);
	}
	out[o] = '\0';
	return out;
}

static json *parse_n(const char *s, size_t len)
{
	json *j = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	if (json_read_parse(s, len, "test input", &j, &err) < 0)
		fail_msg("parsing %s failed: %s", show(s, len), cnirt_error_msg(err));
	assert_non_null(j);
	return j;
}

static json *parse(const char *s)
{
	return parse_n(s, strlen(s));
}

static char *gen(const json *j)
{
	size_t len = 0;
	char *s = json_gen(j, false, &len);
	assert_non_null(s);
	assert_int_equal(len, strlen(s));
	return s;
}

/* The compact text of `in` after parse and generate. */
static void assert_roundtrip_as(const char *in, const char *expected)
{
	_cleanup_json_ json *j = parse(in);
	_cleanup_free_ char *out = gen(j);
	assert_string_equal(out, expected);
}

static void assert_roundtrip(const char *in)
{
	assert_roundtrip_as(in, in);
}

/* Parse must fail with CNIRT_ERR_DECODE, a message that names the input and
 * contains `needle`, and leave *out alone. Returns the message's byte offset,
 * or -1 if it has none. */
static long assert_parse_fails_n(const char *s, size_t len, const char *needle)
{
	json *sentinel = (json *)(uintptr_t)0x1;
	json *j = sentinel;
	_cleanup_error_ cnirt_error *err = NULL;
	int r = json_read_parse(s, len, "test input", &j, &err);
	if (r >= 0) {
		json_free(j);
		fail_msg("input %s was accepted", show(s, len));
	}
	assert_int_equal(r, -1);
	assert_ptr_equal(j, sentinel);
	assert_non_null(err);
	assert_int_equal(cnirt_error_code(err), CNIRT_ERR_DECODE);
	const char *m = cnirt_error_msg(err);
	if (strncmp(m, "test input: ", 12) != 0)
		fail_msg("message does not name the input: %s", m);
	if (needle && strstr(m, needle) == NULL)
		fail_msg("message lacks \"%s\": %s", needle, m);
	const char *at = strstr(m, "near byte ");
	if (at == NULL)
		return -1;
	long off = strtol(at + strlen("near byte "), NULL, 10);
	assert_in_range(off, 0, len);
	return off;
}

static long assert_parse_fails(const char *s, const char *needle)
{
	return assert_parse_fails_n(s, strlen(s), needle);
}

/* Strict UTF-8 (RFC 3629): no overlong forms, no surrogates, <= U+10FFFF. */
static bool utf8_valid(const unsigned char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		unsigned char c = s[i];
		size_t k;
		uint32_t cp, min;
		if (c < 0x80) {
			i++;
			continue;
		} else if ((c & 0xe0) == 0xc0) {
			k = 1, cp = c & 0x1f, min = 0x80;
		} else if ((c & 0xf0) == 0xe0) {
			k = 2, cp = c & 0x0f, min = 0x800;
		} else if ((c & 0xf8) == 0xf0) {
			k = 3, cp = c & 0x07, min = 0x10000;
		} else {
			return false;
		}
		if (n - i <= k)
			return false;
		for (size_t m = 1; m <= k; m++) {
			if ((s[i + m] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + m] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += k + 1;
	}
	return true;
}

/* A text of `depth` nested arrays (open and close). */
static char *nested_arrays(size_t depth, bool closed)
{
	struct buf b = {0};
	for (size_t i = 0; i < depth; i++)
		buf_appends(&b, "[");
	for (size_t i = 0; closed && i < depth; i++)
		buf_appends(&b, "]");
	return buf_steal(&b, NULL);
}

/* `depth` nested objects {"k":{"k":...{"k":1}...}}. */
static char *nested_objects(size_t depth, bool closed)
{
	struct buf b = {0};
	for (size_t i = 0; i < depth; i++)
		buf_appends(&b, "{\"k\":");
	buf_appends(&b, "1");
	for (size_t i = 0; closed && i < depth; i++)
		buf_appends(&b, "}");
	return buf_steal(&b, NULL);
}

/* --------------------------------------------------------- value types */

static void test_parse_scalars(void **state)
{
	(void)state;
	_cleanup_json_ json *n = parse("null");
	assert_int_equal(n->type, JSON_NULL);
	_cleanup_json_ json *t = parse("true");
	assert_int_equal(t->type, JSON_TRUE);
	_cleanup_json_ json *f = parse("false");
	assert_int_equal(f->type, JSON_FALSE);
	_cleanup_json_ json *num = parse("42");
	assert_int_equal(num->type, JSON_NUMBER);
	assert_string_equal(num->u.number, "42");
	_cleanup_json_ json *s = parse("\"hi\"");
	assert_int_equal(s->type, JSON_STRING);
	assert_int_equal(s->u.string.len, 2);
	assert_string_equal(s->u.string.s, "hi");
	_cleanup_json_ json *empty = parse("\"\"");
	assert_int_equal(empty->type, JSON_STRING);
	assert_int_equal(empty->u.string.len, 0);
	assert_string_equal(json_str(empty), "");
	/* Surrounding white space is allowed. */
	_cleanup_json_ json *ws = parse(" \t\r\n true \n");
	assert_int_equal(ws->type, JSON_TRUE);
}

/* json_join_strings(): the strings of an array in order, the other
 * elements left out; "" for none or for what is not an array. */
static void test_join_strings(void **state)
{
	(void)state;
	static const struct {
		const char *in, *sep, *want;
	} cases[] = {
	    {"[\"10.0.0.2/24\", 1, null, \"fd00::2/64\", [\"x\"]]", ",", "10.0.0.2/24,fd00::2/64"},
	    {"[\"a\"]", ", ", "a"},
	    {"[\"a\", \"b\"]", ", ", "a, b"},
	    {"[1, 2]", ",", ""},
	    {"\"a\"", ",", ""},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		_cleanup_json_ json *a = parse(cases[i].in);
		_cleanup_free_ char *s = json_join_strings(a, cases[i].sep);
		assert_string_equal(s, cases[i].want);
	}
	_cleanup_free_ char *u = json_join_strings(NULL, ",");
	assert_string_equal(u, "");
}

static void test_parse_containers(void **state)
{
	(void)state;
	_cleanup_json_ json *j =
	    parse("{\"a\":[1,\"two\",null,true,false,{},[]],\"b\":{\"c\":{}}}");
	assert_int_equal(j->type, JSON_OBJECT);
	assert_int_equal(j->u.object.n, 2);
	json *a = json_obj_get(j, "a");
	assert_non_null(a);
	assert_int_equal(a->type, JSON_ARRAY);
	assert_int_equal(a->u.array.n, 7);
	assert_int_equal(a->u.array.v[0]->type, JSON_NUMBER);
	assert_string_equal(a->u.array.v[0]->u.number, "1");
	assert_string_equal(json_str(a->u.array.v[1]), "two");
	assert_int_equal(a->u.array.v[2]->type, JSON_NULL);
	assert_int_equal(a->u.array.v[3]->type, JSON_TRUE);
	assert_int_equal(a->u.array.v[4]->type, JSON_FALSE);
	assert_int_equal(a->u.array.v[5]->type, JSON_OBJECT);
	assert_int_equal(a->u.array.v[5]->u.object.n, 0);
	assert_int_equal(a->u.array.v[6]->type, JSON_ARRAY);
	assert_int_equal(a->u.array.v[6]->u.array.n, 0);
	json *c = json_obj_get(json_obj_get(j, "b"), "c");
	assert_non_null(c);
	assert_int_equal(c->type, JSON_OBJECT);
	_cleanup_free_ char *out = gen(j);
	assert_string_equal(out, "{\"a\":[1,\"two\",null,true,false,{},[]],\"b\":{\"c\":{}}}");
}

/* Spec section 3: "Other fields ... must be passed through unaltered"; the
 * text of numbers is kept as written, not reformatted through a double. */
static void test_numbers_kept_exactly(void **state)
{
	(void)state;
	static const char *const numbers[] = {
	    "12345678901234567890",
	    "-12345678901234567890123456789",
	    "1.5e300",
	    "-0.0",
	    "-0",
	    "1E+2",
	    "1e-7",
	    "0",
	    "123.4560000",
	    "9007199254740993",
	    "1E400",
	};
	for (size_t i = 0; i < ARRAY_SIZE(numbers); i++) {
		_cleanup_json_ json *j = parse(numbers[i]);
		assert_int_equal(j->type, JSON_NUMBER);
		assert_string_equal(j->u.number, numbers[i]);
		_cleanup_free_ char *out = gen(j);
		assert_string_equal(out, numbers[i]);
	}
	assert_roundtrip("[12345678901234567890,1.5e300,-0.0,1E+2]");
	assert_roundtrip("{\"mtu\":1500,\"big\":12345678901234567890,\"f\":0.10}");
}

static void test_key_order_kept(void **state)
{
	(void)state;
	assert_roundtrip("{\"z\":1,\"a\":2,\"m\":3,\"b\":{\"y\":1,\"x\":2}}");
	_cleanup_json_ json *j =
	    parse("{\"type\":\"bridge\",\"name\":\"n\",\"cniVersion\":\"1.0.0\"}");
	assert_string_equal(j->u.object.k[0], "type");
	assert_string_equal(j->u.object.k[1], "name");
	assert_string_equal(j->u.object.k[2], "cniVersion");
}

static void test_utf8_kept(void **state)
{
	(void)state;
	/* "héllo ✓ 日本", written as raw bytes. */
	static const char text[] = "h\xc3\xa9llo \xe2\x9c\x93 \xe6\x97\xa5\xe6\x9c\xac";
	static const char doc[] = "{\"h\xc3\xa9llo \xe2\x9c\x93 \xe6\x97\xa5\xe6\x9c\xac\":"
				  "\"h\xc3\xa9llo \xe2\x9c\x93 \xe6\x97\xa5\xe6\x9c\xac\"}";
	_cleanup_json_ json *j = parse(doc);
	assert_string_equal(j->u.object.k[0], text);
	assert_int_equal(j->u.object.v[0]->u.string.len, strlen(text));
	assert_string_equal(json_str(j->u.object.v[0]), text);
	assert_true(utf8_valid((const unsigned char *)text, strlen(text)));
	assert_false(utf8_valid((const unsigned char *)"\xc0\xaf", 2));
	/* Generated as the same raw bytes, not as \u escapes. */
	assert_roundtrip(doc);
	/* A 4-byte sequence (U+1F600) kept too. */
	assert_roundtrip("\"\xf0\x9f\x98\x80\"");
}

static void test_escapes_decoded(void **state)
{
	(void)state;
	static const struct {
		const char *in;
		const char *bytes;
		size_t len;
	} cases[] = {
	    {"\"a\\nb\"", "a\nb", 3},
	    {"\"\\u0001\"", "\x01", 1},
	    {"\"\\\"\"", "\"", 1},
	    {"\"\\\\\"", "\\", 1},
	    {"\"\\/\"", "/", 1},
	    {"\"\\b\\f\\r\\t\"", "\b\f\r\t", 4},
	    {"\"\\u00e9\"", "\xc3\xa9", 2},
	    {"\"\\u00E9\"", "\xc3\xa9", 2},
	    {"\"\\u2713\"", "\xe2\x9c\x93", 3},
	    {"\"\\ud83d\\ude00\"", "\xf0\x9f\x98\x80", 4},
	    {"\"\\u0041\\u0062c\"", "Abc", 3},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		_cleanup_json_ json *j = parse(cases[i].in);
		assert_int_equal(j->type, JSON_STRING);
		assert_int_equal(j->u.string.len, cases[i].len);
		assert_memory_equal(j->u.string.s, cases[i].bytes, cases[i].len);
		assert_int_equal(j->u.string.s[cases[i].len], '\0');
	}
}

static void test_escapes_reencoded(void **state)
{
	(void)state;
	/* Characters JSON requires escaped come out escaped; '/' and non-ASCII
	 * come out as themselves. */
	assert_roundtrip_as("\"a\\nb\"", "\"a\\nb\"");
	assert_roundtrip_as("\"\\u0001\"", "\"\\u0001\"");
	assert_roundtrip_as("\"\\u001F\"", "\"\\u001f\"");
	assert_roundtrip_as("\"\\\"\"", "\"\\\"\"");
	assert_roundtrip_as("\"\\\\\"", "\"\\\\\"");
	assert_roundtrip_as("\"\\/\"", "\"/\"");
	assert_roundtrip_as("\"\\b\\f\\r\\t\"", "\"\\b\\f\\r\\t\"");
	assert_roundtrip_as("\"\\u00e9\"", "\"\xc3\xa9\"");
	assert_roundtrip_as("\"\\ud83d\\ude00\"", "\"\xf0\x9f\x98\x80\"");
	/* A string built in C with every control character: the output
	 * parses back to the same bytes. */
	char all[32];
	for (int i = 0; i < 32; i++)
		all[i] = (char)i;
	_cleanup_json_ json *s = json_new_stringn(all, sizeof(all));
	_cleanup_free_ char *out = gen(s);
	for (const char *p = out; *p; p++)
		assert_true((unsigned char)*p >= 0x20);
	_cleanup_json_ json *back = parse(out);
	assert_int_equal(back->u.string.len, sizeof(all));
	assert_memory_equal(back->u.string.s, all, sizeof(all));
}

static void test_string_with_nul(void **state)
{
	(void)state;
	_cleanup_json_ json *j = parse("{\"k\":\"a\\u0000b\",\"ok\":\"x\"}");
	json *v = json_obj_get(j, "k");
	assert_true(json_is_string(v));
	assert_int_equal(v->u.string.len, 3);
	assert_memory_equal(v->u.string.s, "a\0b", 3);
	assert_null(json_str(v));
	assert_string_equal(json_str(json_obj_get(j, "ok")), "x");

	const char *out = (const char *)(uintptr_t)0x1;
	_cleanup_error_ cnirt_error *err = NULL;
	assert_int_equal(json_read_string(j, "k", &out, &err), -1);
	assert_ptr_equal(out, (const char *)(uintptr_t)0x1);
	assert_int_equal(cnirt_error_code(err), CNIRT_ERR_DECODE);
	assert_non_null(strstr(cnirt_error_msg(err), "\"k\""));
	assert_non_null(strstr(cnirt_error_msg(err), "NUL"));

	/* The NUL survives generation. */
	_cleanup_free_ char *text = gen(j);
	assert_string_equal(text, "{\"k\":\"a\\u0000b\",\"ok\":\"x\"}");

	/* A key with a NUL is refused (keys are C strings). */
	assert_parse_fails("{\"a\\u0000b\":1}", "NUL");
}

/* ------------------------------------------------------ invalid inputs */

static void test_invalid_utf8_rejected(void **state)
{
	(void)state;
	static const char *const bad[] = {
	    "\"\xff\"",			 /* never valid */
	    "\"\xfe\"",			 /* never valid */
	    "\"\x80\"",			 /* lone continuation byte */
	    "\"a\xc3\"",		 /* truncated 2-byte sequence */
	    "\"\xe6\x97\"",		 /* truncated 3-byte sequence */
	    "\"\xf0\x9f\x98\"",		 /* truncated 4-byte sequence */
	    "\"\xc3\x28\"",		 /* bad continuation */
	    "{\"\xff\":1}",		 /* in a key */
	    "[\"ok\",\"\xe2\x28\xa1\"]", /* nested */
	    "\xef\xbb\xbf{}",		 /* a byte order mark outside strings */
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_parse_fails(bad[i], NULL);
}

/*
 * yajl checks only the shape of a sequence; json.c also refuses overlong
 * forms, UTF-16 surrogates encoded in UTF-8 and code points above U+10FFFF
 * (RFC 3629 section 3 forbids all three).
 */
static void test_invalid_utf8_strict(void **state)
{
	(void)state;
	static const char *const bad[] = {
	    "\"\xc0\xaf\"",	    /* overlong '/' */
	    "\"\xc1\xbf\"",	    /* overlong */
	    "\"\xe0\x80\xaf\"",	    /* overlong '/' */
	    "\"\xed\xa0\x80\"",	    /* U+D800, a surrogate */
	    "\"\xf4\x90\x80\x80\"", /* U+110000 */
	    "\"\xf5\x80\x80\x80\"", /* lead byte above U+10FFFF */
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_parse_fails(bad[i], NULL);
}

/*
 * yajl alone would decode escapes of unpaired UTF-16 surrogates to invalid UTF-8
 * ("\udc00" -> ED B0 80) or to a character that is not in the input
 * ("\ud800\u0041" -> U+10041, "\ud800\ud800" -> U+10000). Either refusing
 * them or decoding each to U+FFFD (as Go's encoding/json does) would do; the
 * tree must never hold invalid UTF-8 or invented characters. None of these
 * inputs holds a valid pair, so no 4-byte sequence may come out.
 */
static void test_lone_surrogate_escapes(void **state)
{
	(void)state;
	static const char *const inputs[] = {
	    "\"\\udc00\"",  "\"\\ud800\\u0041\"", "\"\\ud800\\ud800\"",
	    "\"\\ud800x\"", "\"x\\ud800\"",
	};
	for (size_t i = 0; i < ARRAY_SIZE(inputs); i++) {
		json *j = NULL;
		_cleanup_error_ cnirt_error *err = NULL;
		if (json_read_parse(inputs[i], strlen(inputs[i]), "test input", &j, &err) < 0) {
			assert_int_equal(cnirt_error_code(err), CNIRT_ERR_DECODE);
			continue;
		}
		const unsigned char *u = (const unsigned char *)j->u.string.s;
		size_t n = j->u.string.len;
		bool ok = utf8_valid(u, n);
		bool invented = false;
		for (size_t k = 0; k < n; k++)
			invented |= u[k] >= 0xf0;
		json_free(j);
		if (!ok)
			fail_msg("%s decoded to invalid UTF-8", show(inputs[i], strlen(inputs[i])));
		if (invented)
			fail_msg("%s decoded to a supplementary character",
				 show(inputs[i], strlen(inputs[i])));
	}
}

static void test_duplicate_keys_rejected(void **state)
{
	(void)state;
	assert_parse_fails("{\"a\":1,\"a\":2}", "duplicate key \"a\"");
	assert_parse_fails("{\"a\":1,\"b\":2,\"a\":1}", "duplicate key \"a\"");
	assert_parse_fails("{\"x\":{\"cniVersion\":1,\"cniVersion\":1}}",
			   "duplicate key \"cniVersion\"");
	/* The same key after escapes is the same key. */
	assert_parse_fails("{\"ab\":1,\"a\\u0062\":2}", "duplicate key \"ab\"");
	/* The same key in different objects is fine. */
	_cleanup_json_ json *j = parse("{\"a\":{\"a\":1},\"b\":[{\"a\":1},{\"a\":2}]}");
	assert_int_equal(j->u.object.n, 2);
	/* Keys are compared by bytes. */
	_cleanup_json_ json *k = parse("{\"a\":1,\"A\":2}");
	assert_int_equal(k->u.object.n, 2);
}

static void test_depth_limit(void **state)
{
	(void)state;
	_cleanup_free_ char *ok_a = nested_arrays(JSON_MAX_DEPTH, true);
	_cleanup_json_ json *ja = parse(ok_a);
	_cleanup_free_ char *ok_o = nested_objects(JSON_MAX_DEPTH, true);
	_cleanup_json_ json *jo = parse(ok_o);

	char msg[64];
	snprintf(msg, sizeof(msg), "nested deeper than %d levels", JSON_MAX_DEPTH);
	_cleanup_free_ char *bad_a = nested_arrays(JSON_MAX_DEPTH + 1, true);
	assert_parse_fails(bad_a, msg);
	_cleanup_free_ char *bad_o = nested_objects(JSON_MAX_DEPTH + 1, true);
	assert_parse_fails(bad_o, msg);
}

static void test_depth_100000(void **state)
{
	(void)state;
	char msg[64];
	snprintf(msg, sizeof(msg), "nested deeper than %d levels", JSON_MAX_DEPTH);
	_cleanup_free_ char *open = nested_arrays(100000, false);
	assert_parse_fails(open, msg);
	_cleanup_free_ char *closed = nested_arrays(100000, true);
	assert_parse_fails(closed, msg);
	_cleanup_free_ char *objs = nested_objects(100000, true);
	assert_parse_fails(objs, msg);
}

/* The writer has no depth limit of its own: a tree of JSON_MAX_DEPTH
 * levels, which json_read_parse accepts, comes out whole. */
static void test_gen_max_depth_tree(void **state)
{
	(void)state;
	_cleanup_free_ char *text = nested_objects(JSON_MAX_DEPTH, true);
	_cleanup_json_ json *j = parse(text);
	_cleanup_free_ char *out = json_gen(j, false, NULL);
	assert_string_equal(out, text);
	_cleanup_free_ char *pretty = json_gen(j, true, NULL);
	_cleanup_json_ json *again = parse(pretty);
	assert_true(json_equal(j, again));
}

/* A parsed tree placed one level down, as derive_exec_config does with
 * prevResult, is written out byte for byte. */
static void test_gen_deeper_than_parse_limit(void **state)
{
	(void)state;
	_cleanup_free_ char *text = nested_objects(JSON_MAX_DEPTH, true);
	_cleanup_json_ json *conf = parse("{\"cniVersion\":\"1.0.0\",\"name\":\"n\"}");
	json_obj_set(conf, "prevResult", parse(text));
	_cleanup_free_ char *out = json_gen(conf, false, NULL);
	_cleanup_free_ char *want =
	    xasprintf("{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"prevResult\":%s}", text);
	assert_string_equal(out, want);
}

static void test_trailing_garbage_rejected(void **state)
{
	(void)state;
	assert_parse_fails("{} x", "near byte ");
	assert_parse_fails("[1] [2]", "near byte ");
	assert_parse_fails("1 2", "near byte ");
	assert_parse_fails("{}}", "near byte ");
	assert_parse_fails("\"a\"\"b\"", "near byte ");
	assert_parse_fails("nullx", "near byte ");
	/* A NUL after the value is garbage too. */
	assert_parse_fails_n("{}\0", 3, "near byte ");
	/* Trailing white space is not garbage. */
	_cleanup_json_ json *j = parse("{} \n\t\r ");
	assert_int_equal(j->type, JSON_OBJECT);
}

static void test_empty_input_rejected(void **state)
{
	(void)state;
	assert_parse_fails("", "empty input");
	assert_parse_fails_n(NULL, 0, "empty input");
	assert_parse_fails(" \n\t", NULL);
}

static void test_truncated_input_rejected(void **state)
{
	(void)state;
	static const char *const bad[] = {
	    "{",     "{\"a\"",	"{\"a\":", "{\"a\":1", "{\"a\":1,", "[", "[1,", "[1", "\"abc",
	    "\"a\\", "\"\\u00", "tru",	   "nul",      "fals",	    "-", "1.",	"1e", "1e+",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_parse_fails(bad[i], "near byte ");
}

static void test_malformed_rejected(void **state)
{
	(void)state;
	static const char *const bad[] = {
	    "01",		 /* leading zero */
	    "+1",		 /* sign */
	    ".5",		 /* no integer part */
	    "0x10",		 /* hex */
	    "NaN",		 /* not a JSON number */
	    "Infinity",		 /* not a JSON number */
	    "[1,]",		 /* trailing comma */
	    "{\"a\":1,}",	 /* trailing comma */
	    "[1 2]",		 /* missing comma */
	    "{\"a\":1 \"b\":2}", /* missing comma */
	    "{\"a\" 1}",	 /* missing colon */
	    "{a:1}",		 /* unquoted key */
	    "{1:1}",		 /* number key */
	    "{'a':1}",		 /* single quotes */
	    "'a'",		 /* single quotes */
	    "\"a\tb\"",		 /* raw tab in a string */
	    "\"a\nb\"",		 /* raw newline in a string */
	    "\"\\x\"",		 /* unknown escape */
	    "\"\\U0041\"",	 /* unknown escape */
	    "\"\\u12\"",	 /* short \u escape */
	    "/* c */ 1",	 /* comment */
	    "// c\n1",		 /* comment */
	    "]",		 /* stray closer */
	    "}",		 /* stray closer */
	    ",",		 /* stray comma */
	    "True",		 /* literals are lower case */
	    "NULL",		 /* literals are lower case */
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_parse_fails(bad[i], "near byte ");
}

static void test_error_offset(void **state)
{
	(void)state;
	/* The offset points at or just after the problem, not at 0. */
	long off = assert_parse_fails("{\"aaaa\":1,\"bbbb\":[1,2,x]}", "near byte ");
	assert_in_range(off, 20, 24);
	off = assert_parse_fails("{\"a\":1,\"a\":2}", "near byte ");
	assert_in_range(off, 7, 13);
	/* Input that stops too early: the problem is at its end. */
	off = assert_parse_fails("{\"kind\":", "premature EOF");
	assert_int_equal(off, 8);
	off = assert_parse_fails("[1, 2", "premature EOF");
	assert_int_equal(off, 5);
	/* The start of an unterminated string after the value: where it
	 * starts. */
	off = assert_parse_fails("{}  \"ab", "near byte 4: trailing garbage");
	assert_int_equal(off, 4);
	/* `what` starts the message. */
	json *j = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	assert_int_equal(json_read_parse("[", 1, "plugin result", &j, &err), -1);
	assert_null(j);
	assert_int_equal(strncmp(cnirt_error_msg(err), "plugin result: invalid JSON near byte ",
				 strlen("plugin result: invalid JSON near byte ")),
			 0);
}

static void test_parse_replaces_previous_error(void **state)
{
	(void)state;
	cnirt_error *err = NULL;
	error_set(&err, CNIRT_ERR_IO, "an older error");
	json *j = NULL;
	assert_int_equal(json_read_parse("x", 1, "in", &j, &err), -1);
	assert_int_equal(cnirt_error_code(err), CNIRT_ERR_DECODE);
	cnirt_error_free(err);
}

/* ------------------------------------------------------- tree editing */

static void test_obj_set_replaces_in_place(void **state)
{
	(void)state;
	_cleanup_json_ json *j = parse("{\"a\":1,\"b\":2,\"c\":3}");
	json_obj_set(j, "b", json_new_string("two"));
	assert_int_equal(j->u.object.n, 3);
	_cleanup_free_ char *out = gen(j);
	assert_string_equal(out, "{\"a\":1,\"b\":\"two\",\"c\":3}");
}

static void test_obj_set_appends(void **state)
{
	(void)state;
	_cleanup_json_ json *j = json_new(JSON_OBJECT);
	json_obj_set(j, "z", json_new_int(0));
	json_obj_set(j, "a", json_new_bool(true));
	/* Past the first allocation. */
	for (int i = 0; i < 20; i++) {
		char k[16];
		snprintf(k, sizeof(k), "k%d", i);
		json_obj_set(j, k, json_new_int(i));
	}
	assert_int_equal(j->u.object.n, 22);
	assert_string_equal(j->u.object.k[0], "z");
	assert_string_equal(j->u.object.k[1], "a");
	assert_string_equal(j->u.object.k[21], "k19");
	assert_string_equal(json_obj_get(j, "k19")->u.number, "19");
	/* Replacing the first one keeps it first. */
	json_obj_set(j, "z", json_new(JSON_NULL));
	assert_string_equal(j->u.object.k[0], "z");
	assert_int_equal(j->u.object.v[0]->type, JSON_NULL);
	assert_int_equal(j->u.object.n, 22);
}

/* json_obj_append does not look for the key: the caller's keys are unique. */
static void test_obj_append(void **state)
{
	(void)state;
	_cleanup_json_ json *j = json_new(JSON_OBJECT);
	for (int i = 0; i < 20; i++) {
		char k[16];
		snprintf(k, sizeof(k), "k%d", i);
		json_obj_append(j, k, json_new_int(i));
	}
	assert_int_equal(j->u.object.n, 20);
	assert_string_equal(j->u.object.k[19], "k19");
	json_obj_append(j, "k0", json_new(JSON_NULL));
	assert_int_equal(j->u.object.n, 21);
	assert_string_equal(json_obj_get(j, "k0")->u.number, "0");
	_cleanup_json_ json *small = json_new(JSON_OBJECT);
	json_obj_append(small, "b", json_new_string("x"));
	json_obj_append(small, "a", json_new_int(1));
	_cleanup_free_ char *out = gen(small);
	assert_string_equal(out, "{\"b\":\"x\",\"a\":1}");
}

static void test_obj_del(void **state)
{
	(void)state;
	_cleanup_json_ json *j = parse("{\"a\":1,\"b\":[1,{\"x\":2}],\"c\":3,\"d\":4}");
	assert_true(json_obj_del(j, "b"));
	_cleanup_free_ char *o1 = gen(j);
	assert_string_equal(o1, "{\"a\":1,\"c\":3,\"d\":4}");
	assert_false(json_obj_del(j, "b"));
	assert_false(json_obj_del(j, "nope"));
	assert_true(json_obj_del(j, "d"));
	assert_true(json_obj_del(j, "a"));
	_cleanup_free_ char *o2 = gen(j);
	assert_string_equal(o2, "{\"c\":3}");
	assert_true(json_obj_del(j, "c"));
	_cleanup_free_ char *o3 = gen(j);
	assert_string_equal(o3, "{}");
	/* Usable again after emptying. */
	json_obj_set(j, "e", json_new_int(5));
	_cleanup_free_ char *o4 = gen(j);
	assert_string_equal(o4, "{\"e\":5}");
	/* Not an object, or NULL. */
	_cleanup_json_ json *arr = parse("[1]");
	assert_false(json_obj_del(arr, "a"));
	assert_false(json_obj_del(NULL, "a"));
}

static void test_obj_get(void **state)
{
	(void)state;
	_cleanup_json_ json *j = parse("{\"a\":null,\"b\":{\"c\":1}}");
	assert_non_null(json_obj_get(j, "a"));
	assert_int_equal(json_obj_get(j, "a")->type, JSON_NULL);
	assert_null(json_obj_get(j, "c"));
	assert_null(json_obj_get(j, ""));
	assert_null(json_obj_get(json_obj_get(j, "a"), "c"));
	assert_null(json_obj_get(NULL, "a"));
	_cleanup_json_ json *arr = parse("[\"a\"]");
	assert_null(json_obj_get(arr, "a"));
}

static void test_arr_append(void **state)
{
	(void)state;
	_cleanup_json_ json *a = json_new(JSON_ARRAY);
	_cleanup_free_ char *empty = gen(a);
	assert_string_equal(empty, "[]");
	struct buf expect = {0};
	buf_appends(&expect, "[");
	for (int i = 0; i < 100; i++) {
		json_arr_append(a, json_new_int(i));
		buf_printf(&expect, "%s%d", i ? "," : "", i);
	}
	buf_appends(&expect, "]");
	assert_int_equal(a->u.array.n, 100);
	_cleanup_free_ char *out = gen(a);
	assert_string_equal(out, expect.data);
	buf_free(&expect);
}

static void test_constructors(void **state)
{
	(void)state;
	_cleanup_json_ json *a = json_new(JSON_ARRAY);
	json_arr_append(a, json_new(JSON_NULL));
	json_arr_append(a, json_new(JSON_TRUE));
	json_arr_append(a, json_new(JSON_FALSE));
	json_arr_append(a, json_new_bool(true));
	json_arr_append(a, json_new_bool(false));
	json_arr_append(a, json_new_int(LLONG_MIN));
	json_arr_append(a, json_new_int(LLONG_MAX));
	json_arr_append(a, json_new_int(0));
	json_arr_append(a, json_new_number("1.50"));
	json_arr_append(a, json_new_string("s"));
	json_arr_append(a, json_new_stringn("a\0b", 3));
	json_arr_append(a, json_new_stringn("xyz", 1));
	json_arr_append(a, json_new(JSON_OBJECT));
	_cleanup_free_ char *out = gen(a);
	assert_string_equal(out, "[null,true,false,true,false,-9223372036854775808,"
				 "9223372036854775807,0,1.50,\"s\",\"a\\u0000b\",\"x\",{}]");
	/* stringn copies exactly len bytes and terminates them. */
	assert_int_equal(a->u.array.v[11]->u.string.len, 1);
	assert_string_equal(a->u.array.v[11]->u.string.s, "x");
	json_free(NULL);
}

static void test_json_str_and_is_string(void **state)
{
	(void)state;
	_cleanup_json_ json *j = parse("[\"s\",1,null,\"\"]");
	assert_true(json_is_string(j->u.array.v[0]));
	assert_string_equal(json_str(j->u.array.v[0]), "s");
	assert_false(json_is_string(j->u.array.v[1]));
	assert_null(json_str(j->u.array.v[1]));
	assert_null(json_str(j->u.array.v[2]));
	assert_string_equal(json_str(j->u.array.v[3]), "");
	assert_false(json_is_string(NULL));
	assert_null(json_str(NULL));
	assert_false(json_is_string(j));
}

static void test_dup(void **state)
{
	(void)state;
	static const char doc[] = "{\"b\":[1.0,12345678901234567890,\"a\\u0000b\",null,true,false],"
				  "\"a\":{\"y\":{},\"x\":[]},\"\xc3\xa9\":\"\xe2\x9c\x93\"}";
	_cleanup_json_ json *j = parse(doc);
	_cleanup_json_ json *d = json_dup(j);
	assert_ptr_not_equal(d, j);
	assert_true(json_equal(j, d));
	_cleanup_free_ char *out = gen(d);
	assert_string_equal(out, doc);
	/* Independent of the original. */
	json_obj_set(json_obj_get(d, "a"), "y", json_new_int(1));
	assert_true(json_obj_del(d, "b"));
	_cleanup_free_ char *orig = gen(j);
	assert_string_equal(orig, doc);
	assert_false(json_equal(j, d));
	assert_null(json_dup(NULL));
	_cleanup_json_ json *scalar = json_dup(json_obj_get(j, "\xc3\xa9"));
	assert_string_equal(json_str(scalar), "\xe2\x9c\x93");
}

static bool equal_texts(const char *a, const char *b)
{
	_cleanup_json_ json *ja = parse(a);
	_cleanup_json_ json *jb = parse(b);
	bool r = json_equal(ja, jb);
	assert_true(json_equal(jb, ja) == r);
	return r;
}

static void test_equal(void **state)
{
	(void)state;
	/* Objects: the order of keys does not matter. */
	assert_true(equal_texts("{\"a\":1,\"b\":2}", "{\"b\":2,\"a\":1}"));
	assert_true(equal_texts("{\"o\":{\"x\":[1,{\"p\":1,\"q\":2}],\"y\":null}}",
				"{\"o\":{\"y\":null,\"x\":[1,{\"q\":2,\"p\":1}]}}"));
	assert_false(equal_texts("{\"a\":1,\"b\":2}", "{\"a\":1}"));
	assert_false(equal_texts("{\"a\":1}", "{\"a\":1,\"b\":2}"));
	assert_false(equal_texts("{\"a\":1,\"b\":2}", "{\"a\":1,\"c\":2}"));
	assert_false(equal_texts("{\"a\":1}", "{\"a\":2}"));
	assert_true(equal_texts("{}", "{}"));
	/* Arrays: the order matters. */
	assert_false(equal_texts("[1,2]", "[2,1]"));
	assert_false(equal_texts("[1,2]", "[1,2,3]"));
	assert_true(equal_texts("[]", "[]"));
	/* Numbers compare by value. */
	assert_true(equal_texts("1", "1.0"));
	assert_true(equal_texts("100", "1e2"));
	assert_true(equal_texts("100", "1E+2"));
	assert_true(equal_texts("0", "-0.0"));
	assert_false(equal_texts("1", "2"));
	assert_false(equal_texts("1", "1.0000001"));
	/* Types. */
	assert_false(equal_texts("1", "\"1\""));
	assert_false(equal_texts("true", "false"));
	assert_false(equal_texts("null", "false"));
	assert_false(equal_texts("[]", "{}"));
	assert_true(equal_texts("null", "null"));
	assert_true(equal_texts("true", "true"));
	/* Strings compare by bytes, NULs included. */
	assert_true(equal_texts("\"a\\u0000b\"", "\"a\\u0000b\""));
	assert_false(equal_texts("\"a\\u0000b\"", "\"a\\u0000c\""));
	assert_false(equal_texts("\"a\"", "\"a\\u0000\""));
	assert_true(equal_texts("\"\\u00e9\"", "\"\xc3\xa9\""));
	/* NULL. */
	_cleanup_json_ json *n = parse("null");
	assert_true(json_equal(NULL, NULL));
	assert_false(json_equal(n, NULL));
	assert_false(json_equal(NULL, n));
}

/* ------------------------------------------------------ typed getters */

static void test_get_bool(void **state)
{
	(void)state;
	_cleanup_json_ json *j =
	    parse("{\"t\":true,\"f\":false,\"s\":\"true\",\"n\":null,\"i\":1}");
	_cleanup_error_ cnirt_error *err = NULL;
	bool b = false;
	assert_int_equal(json_read_bool(j, "t", &b, &err), 0);
	assert_true(b);
	assert_int_equal(json_read_bool(j, "f", &b, &err), 0);
	assert_false(b);
	/* Absent: the default stays. */
	b = true;
	assert_int_equal(json_read_bool(j, "absent", &b, &err), 0);
	assert_true(b);
	b = false;
	assert_int_equal(json_read_bool(j, "absent", &b, &err), 0);
	assert_false(b);
	assert_null(err);
	/* Wrong types: an error naming the key, *out untouched. */
	static const char *const wrong[] = {"s", "n", "i"};
	for (size_t i = 0; i < ARRAY_SIZE(wrong); i++) {
		b = true;
		assert_int_equal(json_read_bool(j, wrong[i], &b, &err), -1);
		assert_true(b);
		assert_int_equal(cnirt_error_code(err), CNIRT_ERR_DECODE);
		char expect[64];
		snprintf(expect, sizeof(expect), "field \"%s\": must be true or false", wrong[i]);
		assert_string_equal(cnirt_error_msg(err), expect);
	}
}

static void test_get_string(void **state)
{
	(void)state;
	_cleanup_json_ json *j =
	    parse("{\"s\":\"v\",\"e\":\"\",\"n\":null,\"i\":1,\"o\":{},\"a\":[]}");
	_cleanup_error_ cnirt_error *err = NULL;
	const char *s = NULL;
	assert_int_equal(json_read_string(j, "s", &s, &err), 0);
	assert_string_equal(s, "v");
	/* The pointer is into the tree. */
	assert_ptr_equal(s, json_obj_get(j, "s")->u.string.s);
	assert_int_equal(json_read_string(j, "e", &s, &err), 0);
	assert_string_equal(s, "");
	/* Absent: NULL. */
	s = "x";
	assert_int_equal(json_read_string(j, "absent", &s, &err), 0);
	assert_null(s);
	assert_null(err);
	/* Not an object: everything is absent. */
	s = "x";
	assert_int_equal(json_read_string(json_obj_get(j, "a"), "s", &s, &err), 0);
	assert_null(s);
	/* Wrong types: an error naming the key, *out untouched. */
	static const char *const wrong[] = {"n", "i", "o", "a"};
	for (size_t i = 0; i < ARRAY_SIZE(wrong); i++) {
		s = "untouched";
		assert_int_equal(json_read_string(j, wrong[i], &s, &err), -1);
		assert_string_equal(s, "untouched");
		assert_int_equal(cnirt_error_code(err), CNIRT_ERR_DECODE);
		char expect[64];
		snprintf(expect, sizeof(expect), "field \"%s\": must be a string", wrong[i]);
		assert_string_equal(cnirt_error_msg(err), expect);
	}
}

/* ------------------------------------------------------------ output */

static void test_pretty_roundtrip(void **state)
{
	(void)state;
	static const char doc[] =
	    "{\"cniVersion\":\"1.0.0\",\"name\":\"net\",\"plugins\":[{\"type\":\"bridge\","
	    "\"ipam\":{\"type\":\"host-local\",\"ranges\":[[{\"subnet\":\"10.1.0.0/16\"}]]},"
	    "\"mtu\":1.5e300,\"big\":12345678901234567890,\"neg\":-0.0,\"e\":1E+2,"
	    "\"s\":\"h\xc3\xa9llo \\\"q\\\" \\n \\u0000\"},{\"type\":\"x\",\"empty\":{},"
	    "\"arr\":[],\"n\":null,\"t\":true,\"f\":false}]}";
	_cleanup_json_ json *j = parse(doc);
	size_t len = 0;
	_cleanup_free_ char *pretty = json_gen(j, true, &len);
	assert_int_equal(len, strlen(pretty));
	/* Indented by two spaces, no trailing newline. */
	assert_non_null(strstr(pretty, "\n  \"cniVersion\": \"1.0.0\""));
	assert_non_null(strstr(pretty, "\n    {\n      \"type\": \"bridge\""));
	assert_true(len > 0 && pretty[len - 1] == '}');
	assert_null(strchr(pretty, '\t'));
	/* Parses back to an equal tree with the same text. */
	_cleanup_json_ json *back = parse(pretty);
	assert_true(json_equal(j, back));
	_cleanup_free_ char *compact = gen(back);
	assert_string_equal(compact, doc);
}

static void test_gen_scalars_and_len(void **state)
{
	(void)state;
	_cleanup_json_ json *n = json_new(JSON_NULL);
	_cleanup_free_ char *s = json_gen(n, false, NULL);
	assert_string_equal(s, "null");
	_cleanup_free_ char *p = json_gen(n, true, NULL);
	assert_string_equal(p, "null");
	_cleanup_json_ json *e = json_new(JSON_OBJECT);
	size_t len = 99;
	_cleanup_free_ char *pe = json_gen(e, true, &len);
	assert_int_equal(len, strlen(pe));
	_cleanup_json_ json *eb = parse(pe);
	assert_true(json_equal(e, eb));
	/* The length counts NULs escaped in strings, and no newline. */
	_cleanup_json_ json *str = json_new_stringn("\0", 1);
	_cleanup_free_ char *ss = json_gen(str, false, &len);
	assert_string_equal(ss, "\"\\u0000\"");
	assert_int_equal(len, 8);
}

static void test_large_document(void **state)
{
	(void)state;
	struct buf b = {0};
	buf_appends(&b, "[");
	for (int i = 0; i < 5000; i++)
		buf_printf(&b, "%s{\"id\":%d,\"name\":\"item-%d\",\"v\":%d.%03d,\"ok\":%s}",
			   i ? "," : "", i, i, i, i % 1000, i % 2 ? "true" : "false");
	buf_appends(&b, "]");
	_cleanup_free_ char *doc = buf_steal(&b, NULL);
	assert_roundtrip(doc);
}

/* ----------------------------------------------------- buf.c struct buf */

static void test_buf_append(void **state)
{
	(void)state;
	struct buf b = {0};
	buf_append(&b, "ab", 2);
	assert_int_equal(b.len, 2);
	assert_string_equal(b.data, "ab");
	/* Bytes, NULs included, then always a terminating NUL. */
	buf_append(&b, "c\0d", 3);
	assert_int_equal(b.len, 5);
	assert_memory_equal(b.data, "abc\0d", 6);
	buf_append(&b, NULL, 0);
	assert_int_equal(b.len, 5);
	buf_appends(&b, "ef");
	assert_int_equal(b.len, 7);
	assert_memory_equal(b.data, "abc\0def", 8);
	assert_true(b.cap > b.len);
	buf_free(&b);
	assert_null(b.data);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.cap, 0);
	/* Empty append on an empty buffer still gives a string. */
	buf_append(&b, NULL, 0);
	assert_non_null(b.data);
	assert_string_equal(b.data, "");
	buf_free(&b);
}

static void test_buf_grows(void **state)
{
	(void)state;
	struct buf b = {0};
	for (int i = 0; i < 10000; i++)
		buf_append(&b, &"0123456789"[i % 10], 1);
	assert_int_equal(b.len, 10000);
	assert_int_equal(strlen(b.data), 10000);
	for (int i = 0; i < 10000; i++)
		assert_int_equal(b.data[i], '0' + i % 10);
	/* One big append. */
	char big[100000];
	memset(big, 'x', sizeof(big));
	buf_append(&b, big, sizeof(big));
	assert_int_equal(b.len, 110000);
	assert_int_equal(b.data[109999], 'x');
	assert_int_equal(b.data[110000], '\0');
	assert_true(b.cap > b.len);
	buf_free(&b);
}

static void test_buf_printf(void **state)
{
	(void)state;
	struct buf b = {0};
	buf_printf(&b, "%d-%s", 42, "x");
	buf_printf(&b, "%s", "");
	buf_printf(&b, "|%05.1f|%c", 3.14159, 'z');
	assert_string_equal(b.data, "42-x|003.1|z");
	assert_int_equal(b.len, strlen("42-x|003.1|z"));
	/* Longer than any initial capacity. */
	char *long_s = xmalloc(5001);
	memset(long_s, 'q', 5000);
	long_s[5000] = '\0';
	buf_printf(&b, "<%s>", long_s);
	assert_int_equal(b.len, 12 + 5002);
	assert_int_equal(b.data[b.len - 1], '>');
	free(long_s);
	buf_free(&b);
}

static void test_buf_steal(void **state)
{
	(void)state;
	struct buf b = {0};
	buf_appends(&b, "hello");
	size_t len = 0;
	char *s = buf_steal(&b, &len);
	assert_string_equal(s, "hello");
	assert_int_equal(len, 5);
	assert_null(b.data);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.cap, 0);
	free(s);
	/* The buffer is usable again after a steal; len may be NULL. */
	buf_appends(&b, "again");
	s = buf_steal(&b, NULL);
	assert_string_equal(s, "again");
	free(s);
	buf_free(&b);
}

/* Regression: buf_steal on a buffer that holds no data yet handed out 64
 * unterminated bytes (fixed in 6f7cd40). internal.h: "always NUL terminated",
 * "never NULL". */
static void test_buf_steal_empty(void **state)
{
	(void)state;
	/* Leave garbage in the chunk malloc hands out next. */
	volatile char *dirty = xmalloc(64);
	for (int i = 0; i < 64; i++)
		dirty[i] = 'x';
	free((void *)dirty);
	struct buf b = {0};
	size_t len = 99;
	char *s = buf_steal(&b, &len);
	assert_non_null(s);
	assert_int_equal(len, 0);
	bool terminated = s[0] == '\0';
	free(s);
	if (!terminated)
		fail_msg("buf_steal of an empty buffer returned an unterminated string");
}

static void test_alloc_helpers(void **state)
{
	(void)state;
	_cleanup_free_ char *m = xmemdup("ab\0c", 4);
	assert_memory_equal(m, "ab\0c", 4);
	assert_int_equal(m[4], '\0');
	_cleanup_free_ char *z = xmemdup("", 0);
	assert_string_equal(z, "");
	assert_null(xstrdup(NULL));
	_cleanup_free_ char *d = xstrdup("dup");
	assert_string_equal(d, "dup");
	_cleanup_free_ char *n = xstrndup("abcdef", 3);
	assert_string_equal(n, "abc");
	_cleanup_free_ char *f = xasprintf("%s=%d", "k", 7);
	assert_string_equal(f, "k=7");
	_cleanup_free_ unsigned char *zero = xzalloc(64);
	for (int i = 0; i < 64; i++)
		assert_int_equal(zero[i], 0);
	_cleanup_free_ int *c = xcalloc(8, sizeof(int));
	assert_int_equal(c[7], 0);
	/* Zero sizes still give a pointer that can be freed. */
	_cleanup_free_ void *p0 = xmalloc(0);
	assert_non_null(p0);
	_cleanup_free_ int *arr = xreallocarray(NULL, 4, sizeof(int));
	arr[3] = 3;
	arr = xreallocarray(arr, 1000, sizeof(int));
	assert_int_equal(arr[3], 3);
}

/* ------------------------------------------------------ caller's limits */

/* Parse with `lim`: 0 and the tree freed, or -1 with *msg. */
static int parse_lim(const char *text, const struct json_limits *lim, char **msg)
{
	json *j = NULL;
	*msg = NULL;
	int r = json_parse_with(text, strlen(text), "in", lim, &j, msg);
	json_free(j);
	return r;
}

static void assert_lim_fails(const char *text, const struct json_limits *lim, const char *want)
{
	_cleanup_free_ char *msg = NULL;
	assert_int_equal(parse_lim(text, lim, &msg), -1);
	if (strcmp(msg, want) != 0)
		fail_msg("\"%s\": got \"%s\", want \"%s\"", text, msg, want);
}

static void assert_lim_ok(const char *text, const struct json_limits *lim)
{
	_cleanup_free_ char *msg = NULL;
	if (parse_lim(text, lim, &msg) < 0)
		fail_msg("\"%s\": %s", text, msg);
}

/* Comments only where the caller says the format has them (cnihook.json). */
static void test_limit_comments(void **state)
{
	(void)state;
	const struct json_limits plain = {0}, conf = {.comments = true};
	assert_lim_fails("[/*c*/{\"name\":\"a\"}]", &plain,
			 "in: invalid JSON near byte 1: lexical error: probable comment found in "
			 "input text, comments are not enabled.");
	assert_lim_fails("{} // c", &plain, "in: invalid JSON near byte 3: trailing garbage");
	assert_lim_ok("[/*c*/{\"name\":\"a\"}]", &conf);
	assert_lim_ok("{} // c\n/* d */", &conf);
	assert_lim_fails("{} /* never closed", &conf,
			 "in: invalid JSON near byte 3: trailing garbage");
}

/* Depth: max levels parse, one more does not. */
static void test_limit_depth(void **state)
{
	(void)state;
	const struct json_limits lim = {.max_depth = 3};
	assert_lim_ok("[[[1]]]", &lim);
	assert_lim_fails("[[[[1]]]]", &lim, "in: nested deeper than 3 levels");
	assert_lim_ok("{\"a\":{\"b\":{}}}", &lim);
	assert_lim_fails("{\"a\":{\"b\":{\"c\":{}}}}", &lim, "in: nested deeper than 3 levels");
}

/* Size: max bytes parse, one more does not. */
static void test_limit_size(void **state)
{
	(void)state;
	const struct json_limits lim = {.max_size = 7};
	assert_lim_ok("[12345]", &lim);
	assert_lim_fails("[123456]", &lim, "in: more than 7 bytes");
}

/* NUL in strings: refused where the caller turns strings into C strings. */
static void test_limit_no_nul(void **state)
{
	(void)state;
	const struct json_limits plain = {0}, no_nul = {.no_nul = true};
	assert_lim_ok("[\"a\\u0000b\"]", &plain);
	assert_lim_fails(
	    "[\"a\\u0000b\"]", &no_nul,
	    "in: invalid JSON near byte 3: a string contains an escaped NUL (\\u0000)");
	/* An escaped backslash before "u0000" is no NUL. */
	assert_lim_ok("[\"a\\\\u0000b\"]", &no_nul);
}

/* Duplicate keys are refused whatever the limits; the place is the second
 * key's, as LINE:COLUMN in a file. */
static void test_limit_duplicates_file(void **state)
{
	(void)state;
	const struct json_limits file = {.file = true, .comments = true};
	assert_lim_fails("{\"a\": 1,\n  \"a\": 2}", &file, "in:2:3: duplicate key \"a\"");
	assert_lim_fails("{\"a\": 1,\n  \"a\": 2}", &(struct json_limits){0},
			 "in: invalid JSON near byte 11: duplicate key \"a\"");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_scalars),
	    cmocka_unit_test(test_join_strings),
	    cmocka_unit_test(test_parse_containers),
	    cmocka_unit_test(test_numbers_kept_exactly),
	    cmocka_unit_test(test_key_order_kept),
	    cmocka_unit_test(test_utf8_kept),
	    cmocka_unit_test(test_escapes_decoded),
	    cmocka_unit_test(test_escapes_reencoded),
	    cmocka_unit_test(test_string_with_nul),
	    cmocka_unit_test(test_invalid_utf8_rejected),
	    cmocka_unit_test(test_invalid_utf8_strict),
	    cmocka_unit_test(test_lone_surrogate_escapes),
	    cmocka_unit_test(test_duplicate_keys_rejected),
	    cmocka_unit_test(test_depth_limit),
	    cmocka_unit_test(test_depth_100000),
	    cmocka_unit_test(test_gen_max_depth_tree),
	    cmocka_unit_test(test_gen_deeper_than_parse_limit),
	    cmocka_unit_test(test_trailing_garbage_rejected),
	    cmocka_unit_test(test_empty_input_rejected),
	    cmocka_unit_test(test_truncated_input_rejected),
	    cmocka_unit_test(test_malformed_rejected),
	    cmocka_unit_test(test_error_offset),
	    cmocka_unit_test(test_parse_replaces_previous_error),
	    cmocka_unit_test(test_obj_set_replaces_in_place),
	    cmocka_unit_test(test_obj_set_appends),
	    cmocka_unit_test(test_obj_append),
	    cmocka_unit_test(test_obj_del),
	    cmocka_unit_test(test_obj_get),
	    cmocka_unit_test(test_arr_append),
	    cmocka_unit_test(test_constructors),
	    cmocka_unit_test(test_json_str_and_is_string),
	    cmocka_unit_test(test_dup),
	    cmocka_unit_test(test_equal),
	    cmocka_unit_test(test_get_bool),
	    cmocka_unit_test(test_get_string),
	    cmocka_unit_test(test_pretty_roundtrip),
	    cmocka_unit_test(test_gen_scalars_and_len),
	    cmocka_unit_test(test_large_document),
	    cmocka_unit_test(test_buf_append),
	    cmocka_unit_test(test_buf_grows),
	    cmocka_unit_test(test_buf_printf),
	    cmocka_unit_test(test_buf_steal),
	    cmocka_unit_test(test_buf_steal_empty),
	    cmocka_unit_test(test_alloc_helpers),
	    cmocka_unit_test(test_limit_comments),
	    cmocka_unit_test(test_limit_depth),
	    cmocka_unit_test(test_limit_size),
	    cmocka_unit_test(test_limit_no_nul),
	    cmocka_unit_test(test_limit_duplicates_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
