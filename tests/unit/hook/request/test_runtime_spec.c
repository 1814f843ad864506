/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/request/runtime-spec.c: config.json as cnihook-runtime
 * edits it (the environment's io.cnihook.* entries as annotations, the
 * hooks appended, nothing changed for a container that asks for nothing). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "request/runtime-spec.h"
#include "hooktest.h"

#define CID  "0123456789abcdef"
#define SELF "/usr/bin/cnihook"
#define WHAT "/b/config.json"

static const struct runtime_spec_hooks hooks = {.path = SELF};
static const struct runtime_spec_hooks hooks_conf = {.path = SELF, .config = "/etc/t.json"};

/* Edit text with no default networks: the return code, *out the result
 * (parsed; NULL when none) and *err. */
static int edit_with(const char *text, const struct container_defaults *d,
		     const struct runtime_spec_hooks *h, json **out, char **err)
{
	char *t = NULL;
	size_t len = 0;
	*out = NULL;
	*err = NULL;
	int r = runtime_spec_edit(text, strlen(text), WHAT, d, h, &t, &len, err);
	if (r == 1) {
		assert_non_null(t);
		assert_int_equal(strlen(t), len);
		char *e = NULL;
		if (json_parse_with(t, len, "edited", &util_json, out, &e) < 0)
			fail_msg("the edited config.json is no JSON: %s", e);
	} else {
		assert_null(t);
	}
	free(t);
	return r;
}

static int edit(const char *text, json **out, char **err)
{
	return edit_with(text, DEFAULTS(NULL, 0), &hooks, out, err);
}

/* The string at o[key] (o an object). */
static const char *str_at(const json *o, const char *key)
{
	const char *s = json_str(json_obj_get(o, key));
	if (s == NULL)
		fail_msg("no string \"%s\"", key);
	return s;
}

/* hooks[stage] of j: n entries, the last cnihook's with args[]. */
static void hook_is(const json *j, const char *stage, size_t n, const char *const *args)
{
	json *list = json_obj_get(json_obj_get(j, "hooks"), stage);
	assert_true(json_is_array(list));
	assert_int_equal(list->u.array.n, n);
	json *e = list->u.array.v[n - 1];
	assert_string_equal(str_at(e, "path"), SELF);
	json *a = json_obj_get(e, "args");
	size_t k = 0;
	for (; args[k]; k++) {
		assert_true(k < a->u.array.n);
		assert_string_equal(json_str(a->u.array.v[k]), args[k]);
	}
	assert_int_equal(a->u.array.n, k);
}

/* ------------------------------------------------------------ tests */

/* Docker 20.10's container: the io.cnihook.* environment entries become
 * annotations, the others stay in the environment only; both hooks are
 * appended with the --config the runtime was given. */
static void env_to_annotations(void **state)
{
	json *j;
	char *err;
	assert_int_equal(
	    edit_with("{\"process\":{\"env\":[\"PATH=/bin\",\"io.cnihook.networks=n1\","
		      "\"io.cnihook.ports=8080:80\",\"HOME=/\"]},\"annotations\":{\"a\":\"b\"}}",
		      DEFAULTS(NULL, 0), &hooks_conf, &j, &err),
	    1);
	json *ann = json_obj_get(j, "annotations");
	assert_int_equal(ann->u.object.n, 3);
	assert_string_equal(str_at(ann, "a"), "b");
	assert_string_equal(str_at(ann, "io.cnihook.networks"), "n1");
	assert_string_equal(str_at(ann, "io.cnihook.ports"), "8080:80");
	assert_int_equal(json_obj_get(json_obj_get(j, "process"), "env")->u.array.n, 4);
	hook_is(j, "createRuntime", 1,
		(const char *[]){"cnihook", "--config", "/etc/t.json", "createRuntime", NULL});
	hook_is(j, "poststop", 1,
		(const char *[]){"cnihook", "--config", "/etc/t.json", "poststop", NULL});
	json_free(j);
}

/* The engine's own hooks stay first (Docker's libnetwork prestart hook);
 * cnihook's come after them. */
static void hooks_appended(void **state)
{
	json *j;
	char *err;
	assert_int_equal(edit("{\"annotations\":{\"io.cnihook.networks\":\"n1\"},"
			      "\"hooks\":{\"prestart\":[{\"path\":\"/p\"}],"
			      "\"createRuntime\":[{\"path\":\"/x\",\"args\":[\"x\"]}]}}",
			      &j, &err),
			 1);
	json *h = json_obj_get(j, "hooks");
	assert_int_equal(json_obj_get(h, "prestart")->u.array.n, 1);
	assert_string_equal(str_at(json_obj_get(h, "createRuntime")->u.array.v[0], "path"), "/x");
	hook_is(j, "createRuntime", 2, (const char *[]){"cnihook", "createRuntime", NULL});
	hook_is(j, "poststop", 1, (const char *[]){"cnihook", "poststop", NULL});
	/* Edited again (a create retried on the same bundle): no second entry. */
	char *again = json_gen(j, false, NULL), *t = NULL;
	size_t len;
	assert_int_equal(runtime_spec_edit(again, strlen(again), WHAT, DEFAULTS(NULL, 0), &hooks,
					   &t, &len, &err),
			 1);
	assert_string_equal(t, again);
	free(t);
	free(again);
	json_free(j);
}

/* Docker 24's --annotation: the annotation is there already; only the
 * hooks are added, and an environment entry of the same key does not
 * replace it. */
static void annotation_wins(void **state)
{
	json *j;
	char *err;
	assert_int_equal(edit("{\"process\":{\"env\":[\"io.cnihook.networks=env\"]},"
			      "\"annotations\":{\"io.cnihook.networks\":\"ann\"}}",
			      &j, &err),
			 1);
	json *ann = json_obj_get(j, "annotations");
	assert_int_equal(ann->u.object.n, 1);
	assert_string_equal(str_at(ann, "io.cnihook.networks"), "ann");
	hook_is(j, "createRuntime", 1, (const char *[]){"cnihook", "createRuntime", NULL});
	json_free(j);
}

/* A container that asks for nothing: 0, no text (the caller leaves the
 * file as it is, byte for byte). */
static void nothing_asked(void **state)
{
	json *j;
	char *err;
	assert_int_equal(edit("{\"process\":{\"env\":[\"PATH=/bin\",\"IO_CNIHOOK=1\"]}}", &j, &err),
			 0);
	assert_int_equal(
	    edit("{\"annotations\":{\"org.opencontainers.image.os\":\"linux\"}}", &j, &err), 0);
	assert_int_equal(edit("{}", &j, &err), 0);
	assert_null(err);
}

/* cnihook.json's defaultNetworks: every container asks, annotations or
 * not. */
static void default_networks(void **state)
{
	json *j;
	char *err;
	char *nets[] = {"n0"};
	assert_int_equal(
	    edit_with("{\"process\":{\"env\":[]}}", DEFAULTS(nets, 1), &hooks, &j, &err), 1);
	assert_null(json_obj_get(j, "annotations"));
	hook_is(j, "poststop", 1, (const char *[]){"cnihook", "poststop", NULL});
	json_free(j);
}

/* The message annotations_parse() gives io.cnihook.networks=n1 and
 * key=value. */
static char *annotation_message(const char *key, const char *value)
{
	struct kv pairs[] = {{ANN_NETWORKS, "n1"}, {(char *)key, (char *)value}};
	struct selection sel;
	char *err = NULL;
	assert_int_equal(annotations_parse(KVLIST(pairs), DEFAULTS(NULL, 0), &sel, &err), -1);
	return err;
}

/* A malformed entry is refused with the annotation's own message, and
 * nothing is written. */
static void malformed_refused(void **state)
{
	json *j;
	char *err;
	char *want = annotation_message("io.cnihook.ports", "80:eighty");
	assert_int_equal(edit("{\"process\":{\"env\":[\"io.cnihook.networks=n1\","
			      "\"io.cnihook.ports=80:eighty\"]}}",
			      &j, &err),
			 -1);
	assert_string_equal(err, want);
	free(err);
	free(want);
	want = annotation_message("io.cnihook.netwroks", "n1");
	assert_int_equal(edit("{\"process\":{\"env\":[\"io.cnihook.networks=n1\","
			      "\"io.cnihook.netwroks=n1\"]}}",
			      &j, &err),
			 -1);
	assert_string_equal(err, want);
	free(err);
	free(want);
	assert_int_equal(edit("{\"process\":{\"env\":[\"io.cnihook.networks\"]}}", &j, &err), -1);
	assert_string_equal(err, "environment entry \"io.cnihook.networks\": expected KEY=VALUE");
	free(err);
}

/* What is wrong with the file is said with its name. */
static void bad_file(void **state)
{
	json *j;
	char *err;
	assert_int_equal(edit("[]", &j, &err), -1);
	assert_string_equal(err, WHAT ": must hold a JSON object, not an array");
	free(err);
	assert_int_equal(
	    edit("{\"annotations\":{\"io.cnihook.networks\":\"n\"},\"hooks\":[]}", &j, &err), -1);
	assert_string_equal(err, WHAT ": field \"hooks\": must be an object, not an array");
	free(err);
	assert_int_equal(edit("{\"annotations\":{\"k\":1}}", &j, &err), -1);
	assert_string_equal(err, WHAT ": annotation \"k\": must be a string, not a number");
	free(err);
	assert_int_equal(edit("{", &j, &err), -1);
	assert_non_null(strstr(err, WHAT));
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(env_to_annotations), cmocka_unit_test(hooks_appended),
	    cmocka_unit_test(annotation_wins),	  cmocka_unit_test(nothing_asked),
	    cmocka_unit_test(default_networks),	  cmocka_unit_test(malformed_refused),
	    cmocka_unit_test(bad_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
