/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fuzz target: plugin results (lib/result.c: result_validate, result_convert
 * to every supported version, cnirt_result_ips, result_parse_error) and the
 * JSON tree they stand on (lib/json.c: parse, generate, compare, copy).
 *
 * Input: a plugin's stdout.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "jsoncheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "fuzz_result: invariant broken: %s\n", #cond);             \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

static void die_json(const char *what, const json *j)
{
	_cleanup_free_ char *text = json_gen(j, false, NULL);
	fprintf(stderr, "fuzz_result: %s\n%s\n", what, text);
	abort();
}

/* json_gen gives text that parses back to an equal tree, compact and
 * pretty; json_dup gives an equal tree. */
static void check_json_round_trip(const json *j)
{
	for (int pretty = 0; pretty <= 1; pretty++) {
		size_t len = 0;
		_cleanup_free_ char *text = json_gen(j, pretty, &len);
		CHECK(text && strlen(text) <= len);
		_cleanup_json_ json *back = NULL;
		_cleanup_error_ cnirt_error *e = NULL;
		if (json_read_parse(text, len, "generated", &back, &e) < 0) {
			fprintf(stderr, "fuzz_result: generated JSON does not parse: %s\n%s\n",
				cnirt_error_msg(e), text);
			abort();
		}
		if (!json_equal(j, back))
			die_json("generated JSON parses to another value", j);
	}
	_cleanup_json_ json *copy = json_dup(j);
	CHECK(json_equal(j, copy) && json_equal(copy, j));
}

static void check_converted(const json *in, const char *version, const json *out)
{
	CHECK(out && out->type == JSON_OBJECT);
	const char *v = json_str(json_obj_get(out, "cniVersion"));
	CHECK(v && strcmp(v, version) == 0);
	_cleanup_error_ cnirt_error *e = NULL;
	if (result_validate(out, &e) < 0) {
		fprintf(stderr, "fuzz_result: converted to %s, the result is invalid: %s\n",
			version, cnirt_error_msg(e));
		die_json("input:", in);
	}
	/* Converting a converted result to its own version changes nothing. */
	_cleanup_json_ json *again = NULL;
	if (result_convert(out, version, &again, &e) < 0) {
		fprintf(stderr, "fuzz_result: converted to %s, cannot convert again: %s\n", version,
			cnirt_error_msg(e));
		die_json("input:", in);
	}
	if (!json_equal(out, again)) {
		_cleanup_free_ char *a = json_gen(out, false, NULL);
		_cleanup_free_ char *b = json_gen(again, false, NULL);
		fprintf(stderr, "fuzz_result: converting to %s twice differs:\n%s\n%s\n", version,
			a, b);
		die_json("input:", in);
	}
}

/* cnirt_result_ips(): the addresses of the result converted to 1.0.0
 * (out100), in order; an error when it does not convert (NULL). */
static void check_ips(const char *buf, size_t size, const json *out100)
{
	char **v = NULL;
	size_t n = 0;
	_cleanup_error_ cnirt_error *e = NULL;
	int r = cnirt_result_ips(buf, size, &v, &n, &e);
	if (out100 == NULL) {
		CHECK(r < 0 && v == NULL && e != NULL);
		return;
	}
	CHECK(r == 0 && e == NULL && v != NULL);
	const json *ips = json_obj_get(out100, "ips");
	CHECK(n == (ips ? ips->u.array.n : 0) && v[n] == NULL);
	for (size_t i = 0; i < n; i++) {
		const char *want = json_str(json_obj_get(ips->u.array.v[i], "address"));
		CHECK(want && strcmp(v[i], want) == 0);
	}
	cnirt_result_ips_free(v, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;

	/* An error result (spec section 5, "Error"). */
	int code = -1;
	char *msg = NULL, *details = NULL;
	if (result_parse_error(buf, size, &code, &msg, &details) == 0) {
		CHECK(code >= 0);
		CHECK(details == NULL || details[0] != '\0');
		free(msg);
		free(details);
	} else {
		CHECK(msg == NULL && details == NULL);
	}

	_cleanup_json_ json *j = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	if (json_read_parse(buf, size, "result", &j, &err) < 0) {
		CHECK(cnirt_error_code(err) == CNIRT_ERR_DECODE);
		cnirt_error_free(err); /* each call sets it anew */
		err = NULL;
		CHECK(cnirt_result_validate(buf, size, &err) < 0);
		return 0;
	}
	/* lib/json.c: one value and nothing else (RFC 8259). */
	if (!json_syntax_ok(buf, size, false)) {
		fprintf(stderr, "fuzz_result: json_read_parse accepted text that is not JSON\n");
		abort();
	}
	check_json_round_trip(j);

	bool valid = result_validate(j, &err) == 0;
	cnirt_error *e2 = NULL;
	CHECK((cnirt_result_validate(buf, size, &e2) == 0) == valid);
	cnirt_error_free(e2);
	if (!valid) {
		CHECK(err != NULL && cnirt_error_msg(err)[0] != '\0');
		cnirt_error_free(err);
		err = NULL;
	}
	const char *const *versions = cnirt_supported_versions();
	for (size_t i = 0; versions[i]; i++) {
		_cleanup_json_ json *out = NULL;
		bool to_100 = strcmp(versions[i], "1.0.0") == 0;
		if (result_convert(j, versions[i], &out, &err) < 0) {
			CHECK(out == NULL && err != NULL);
			cnirt_error_free(err);
			err = NULL;
			if (to_100)
				check_ips(buf, size, NULL);
			continue;
		}
		/* Only a valid result converts. */
		CHECK(valid);
		check_converted(j, versions[i], out);
		if (to_100)
			check_ips(buf, size, out);
	}
	_cleanup_json_ json *out = NULL;
	CHECK(result_convert(j, "9.9.9", &out, &err) < 0);
	return 0;
}
