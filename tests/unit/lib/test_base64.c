/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of lib/base64.c: standard base64 with padding (RFC 4648 section 4),
 * the form Go's encoding/json gives []byte fields of the result cache. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "internal.h"

static void assert_decodes(const char *s, const void *expect, size_t expect_len)
{
	char *out = NULL;
	size_t len = 12345;
	if (base64_decode(s, strlen(s), &out, &len) != 0)
		fail_msg("\"%s\" was refused", s);
	assert_non_null(out);
	assert_int_equal(len, expect_len);
	assert_memory_equal(out, expect, expect_len);
	/* The output is NUL terminated. */
	assert_int_equal(out[len], '\0');
	free(out);
}

static void assert_refused_n(const char *s, size_t slen)
{
	char *out = (char *)(uintptr_t)0x1;
	size_t len = 12345;
	if (base64_decode(s, slen, &out, &len) != -1) {
		free(out);
		fail_msg("\"%.*s\" was accepted", (int)slen, s);
	}
	/* Out parameters are written only on success. */
	assert_ptr_equal(out, (char *)(uintptr_t)0x1);
	assert_int_equal(len, 12345);
}

static void assert_refused(const char *s)
{
	assert_refused_n(s, strlen(s));
}

/* RFC 4648 section 10, "Test Vectors". */
static const struct {
	const char *plain;
	const char *encoded;
} rfc_vectors[] = {
    {"", ""},
    {"f", "Zg=="},
    {"fo", "Zm8="},
    {"foo", "Zm9v"},
    {"foob", "Zm9vYg=="},
    {"fooba", "Zm9vYmE="},
    {"foobar", "Zm9vYmFy"},
};

static void test_rfc4648_encode(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rfc_vectors); i++) {
		char *e = base64_encode(rfc_vectors[i].plain, strlen(rfc_vectors[i].plain));
		assert_string_equal(e, rfc_vectors[i].encoded);
		free(e);
	}
}

static void test_rfc4648_decode(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(rfc_vectors); i++)
		assert_decodes(rfc_vectors[i].encoded, rfc_vectors[i].plain,
			       strlen(rfc_vectors[i].plain));
}

static void test_encode_empty_null_pointer(void **state)
{
	(void)state;
	char *e = base64_encode(NULL, 0);
	assert_string_equal(e, "");
	free(e);
}

static void test_alphabet(void **state)
{
	(void)state;
	/* Every 6-bit value: 0x00 0x10 0x83 0x10 0x51 0x87 ... makes the
	 * whole alphabet in order, with '+' and '/' (not '-' and '_'). */
	static const unsigned char bytes[] = {
	    0x00, 0x10, 0x83, 0x10, 0x51, 0x87, 0x20, 0x92, 0x8b, 0x30, 0xd3, 0x8f,
	    0x41, 0x14, 0x93, 0x51, 0x55, 0x97, 0x61, 0x96, 0x9b, 0x71, 0xd7, 0x9f,
	    0x82, 0x18, 0xa3, 0x92, 0x59, 0xa7, 0xa2, 0x9a, 0xab, 0xb2, 0xdb, 0xaf,
	    0xc3, 0x1c, 0xb3, 0xd3, 0x5d, 0xb7, 0xe3, 0x9e, 0xbb, 0xf3, 0xdf, 0xbf,
	};
	static const char all[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *e = base64_encode(bytes, sizeof(bytes));
	assert_string_equal(e, all);
	free(e);
	assert_decodes(all, bytes, sizeof(bytes));
}

static void test_binary_with_nuls(void **state)
{
	(void)state;
	unsigned char all[256];
	for (int i = 0; i < 256; i++)
		all[i] = (unsigned char)i;
	char *e = base64_encode(all, sizeof(all));
	assert_int_equal(strlen(e), (sizeof(all) + 2) / 3 * 4);
	assert_decodes(e, all, sizeof(all));
	free(e);

	static const char nuls[] = {'\0', '\0', '\0', 'a', '\0'};
	e = base64_encode(nuls, sizeof(nuls));
	assert_string_equal(e, "AAAAYQA=");
	assert_decodes(e, nuls, sizeof(nuls));
	free(e);
	assert_decodes("AA==", "\0", 1);
	assert_decodes("AAA=", "\0\0", 2);
	assert_decodes("AAAA", "\0\0\0", 3);
	assert_decodes("/w==", "\xff", 1);
	assert_decodes("//8=", "\xff\xff", 2);
	assert_decodes("////", "\xff\xff\xff", 3);
}

/* A small deterministic generator, so that a failure can be replayed. */
static uint32_t next_random(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

static void test_round_trips(void **state)
{
	(void)state;
	uint32_t seed = 20240601;
	unsigned char data[301];
	for (size_t len = 0; len <= 300; len++) {
		for (int rep = 0; rep < 3; rep++) {
			for (size_t i = 0; i < len; i++)
				data[i] = (unsigned char)next_random(&seed);
			char *e = base64_encode(data, len);
			size_t elen = strlen(e);
			assert_int_equal(elen, (len + 2) / 3 * 4);
			/* Padding: as many '=' as the last group lacks. */
			size_t pad = (3 - len % 3) % 3;
			for (size_t i = 0; i < elen; i++) {
				bool is_pad = e[i] == '=';
				assert_true(is_pad == (i >= elen - pad));
			}
			char *d = NULL;
			size_t dlen = 0;
			assert_int_equal(base64_decode(e, elen, &d, &dlen), 0);
			assert_int_equal(dlen, len);
			assert_memory_equal(d, data, len);
			assert_int_equal(d[len], '\0');
			free(d);
			free(e);
		}
	}
}

static void test_decode_uses_slen(void **state)
{
	(void)state;
	/* Only slen bytes are read: a prefix of a longer text decodes alone. */
	char *out = NULL;
	size_t len = 0;
	assert_int_equal(base64_decode("Zm9vYmFy", 4, &out, &len), 0);
	assert_int_equal(len, 3);
	assert_string_equal(out, "foo");
	free(out);
	assert_int_equal(base64_decode("Zg==garbage", 4, &out, &len), 0);
	assert_int_equal(len, 1);
	assert_string_equal(out, "f");
	free(out);
	assert_int_equal(base64_decode("", 0, &out, &len), 0);
	assert_int_equal(len, 0);
	assert_string_equal(out, "");
	free(out);
}

static void test_invalid_length(void **state)
{
	(void)state;
	assert_refused("Z");
	assert_refused("Zg");
	assert_refused("Zg=");
	assert_refused("Zm9");
	assert_refused("Zm9vY");
	assert_refused("Zm9vYg=");
	assert_refused("Zm9vYg===");
	/* Unpadded forms (RawStdEncoding) are not this encoding. */
	assert_refused("Zm9vYg");
}

static void test_invalid_characters(void **state)
{
	(void)state;
	assert_refused("Zm9-"); /* URL-safe alphabet */
	assert_refused("Zm9_");
	assert_refused("Zm 9");
	assert_refused("Zm9v\n");
	assert_refused("Zm9v\nZm9v");
	assert_refused("Zm9v\r\n");
	assert_refused("Zm.v");
	assert_refused("Zm9v!!!!");
	assert_refused("\xc3\xa9Zm");
	assert_refused("Zm\xff=");
	/* A NUL inside the given length. */
	assert_refused_n("Zm\0v", 4);
	assert_refused_n("Zg=\0", 4);
}

static void test_invalid_padding(void **state)
{
	(void)state;
	/* '=' only in the last two places of the last group. */
	assert_refused("====");
	assert_refused("Z===");
	assert_refused("=Zm9");
	assert_refused("Z=m9");
	assert_refused("Zg=a");
	assert_refused("Zg==Zm9v");
	assert_refused("Zm8=Zm9v");
	assert_refused("Zm9vZ===");
	assert_refused("Zm9v====");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rfc4648_encode),
	    cmocka_unit_test(test_rfc4648_decode),
	    cmocka_unit_test(test_encode_empty_null_pointer),
	    cmocka_unit_test(test_alphabet),
	    cmocka_unit_test(test_binary_with_nuls),
	    cmocka_unit_test(test_round_trips),
	    cmocka_unit_test(test_decode_uses_slen),
	    cmocka_unit_test(test_invalid_length),
	    cmocka_unit_test(test_invalid_characters),
	    cmocka_unit_test(test_invalid_padding),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
