/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/base/sha512.c: FIPS 180-4 vectors, and the container id cnitool
 * derives from a netns path ("cnitool-" and the first 10 bytes in hex). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "base/sha512.h"
#include "base/util.h"

/* The digest of len bytes of data, in lowercase hex. */
static void hex_of(const void *data, size_t len, char out[129])
{
	uint8_t d[64];
	sha512(data, len, d);
	for (int i = 0; i < 64; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void expect(const void *data, size_t len, const char *want)
{
	char got[129];
	hex_of(data, len, got);
	assert_string_equal(got, want);
}

/* FIPS 180-4's examples (one block, two blocks) and the empty message. */
static void test_vectors(void **state)
{
	(void)state;
	expect("", 0,
	       "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
	       "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e");
	expect("abc", 3,
	       "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
	       "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f");
	const char *two = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
			  "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
	expect(two, strlen(two),
	       "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018"
	       "501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909");
}

/* The padding's edge: 111 bytes leave room for the length in the block,
 * 112 do not; and a million bytes (many blocks). */
static void test_padding_and_length(void **state)
{
	(void)state;
	char x[112];
	memset(x, 'x', sizeof(x));
	expect(x, 111,
	       "9a2a120825c2319867758ec277924f6faa254968bf752046dacdd948d8ad299b"
	       "10359fd04bfd7d3810b5fa1b16a294236138baff981cbb85248478053ac4d3dd");
	expect(x, 112,
	       "a3722b515ef40c910f2419f6e0da8ca51d410114ce6272faae64045f9e9f630e"
	       "7fa8dd5a3243c9860b899d148c3da4bc0f9e07454542604d030bb55531fe0d5b");
	_cleanup_free_ char *a = xmalloc(1000000);
	memset(a, 'a', 1000000);
	expect(a, 1000000,
	       "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973eb"
	       "de0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b");
}

/* cnitool's id for /var/run/netns/testing: "cnitool-" and the first ten
 * bytes of the SHA-512 of the absolute path, as cli.c derives it. */
static void test_cnitool_container_id(void **state)
{
	(void)state;
	char got[129];
	const char *netns = "/var/run/netns/testing";
	hex_of(netns, strlen(netns), got);
	got[20] = '\0';
	_cleanup_free_ char *id = xasprintf("cnitool-%s", got);
	assert_string_equal(id, "cnitool-77383ca0a0715733ca6f");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_vectors),
	    cmocka_unit_test(test_padding_and_length),
	    cmocka_unit_test(test_cnitool_container_id),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
