/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/state/container-key.c: a container as the operator names
 * it made its key, the container of the state directory a key or a prefix
 * of one finds, and the name a container is shown by. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "state/container-key.h"
#include "state/record.h"
#include "tmpdir.h"
#include "base/util.h"

static int setup(void **state)
{
	if (tmpdir_make(state) < 0)
		return -1;
	for (const char *const *d =
		 (const char *const[]){"ctr-b", "ctr-a", "k8s.io-abc", "ports", NULL};
	     *d; d++) {
		_cleanup_free_ char *p = xasprintf("%s/%s", dir, *d);
		if (mkdir(p, 0700) < 0)
			return -1;
	}
	_cleanup_free_ char *err = NULL;
	if (record_name_write(dir, "k8s.io-abc", "k8s.io/abc", &err) < 0 ||
	    record_name_write(dir, "ctr-a", "other/a", &err) < 0)
		return -1;
	return 0;
}

/* "<namespace>/<id>" is "<namespace>-<id>"; the key must be a container
 * id. */
static void test_parse(void **state)
{
	(void)state;
	char *key = NULL, *err = NULL;
	assert_int_equal(container_key_parse("k8s.io/abc", &key, &err), 0);
	assert_string_equal(key, "k8s.io-abc");
	free(key);
	assert_int_equal(container_key_parse("ctr-a", &key, &err), 0);
	assert_string_equal(key, "ctr-a");
	free(key);
	/* A slash at either end, or two: not a containerd name, and no id. */
	assert_int_equal(container_key_parse("a/b/c", &key, &err), -1);
	assert_non_null(err);
	free(err);
	err = NULL;
	assert_int_equal(container_key_parse("bad id!", &key, &err), -1);
	assert_non_null(err);
	free(err);
}

/* An id, or the start of one container's id, finds it; a start that two
 * share or none is refused, saying which; a containerd id alone finds the
 * one container of that id in a namespace. */
static void test_resolve(void **state)
{
	(void)state;
	struct snapshot sd;
	int errnum = 0;
	char *err = NULL;
	assert_int_equal(snapshot_open(dir, &sd, &errnum), 0);
	const char *id = NULL;
	assert_int_equal(container_key_resolve(&sd, "ctr-b", &id, &err), 0);
	assert_string_equal(id, "ctr-b");
	assert_int_equal(container_key_resolve(&sd, "ctr-a", &id, &err), 0);
	assert_string_equal(id, "ctr-a");
	assert_int_equal(container_key_resolve(&sd, "ctr-", &id, &err), -1);
	assert_string_equal(err, "\"ctr-\" is the start of 2 container ids: ctr-a, ctr-b; give "
				 "more of it");
	free(err);
	err = NULL;
	assert_int_equal(container_key_resolve(&sd, "ctr-c", &id, &err), -1);
	assert_string_equal(err, "container \"ctr-c\": no network status (not attached by "
				 "cnihook; name a container by its id or a prefix of it, podman's "
				 "by podman inspect -f '{{.Id}}' NAME, a containerd one as "
				 "NAMESPACE/ID)");
	free(err);
	/* A containerd id without its namespace ("ctr" here): the one
	 * NAMESPACE-ID. */
	assert_int_equal(container_key_resolve(&sd, "b", &id, &err), 0);
	assert_string_equal(id, "ctr-b");
	assert_int_equal(container_key_resolve(&sd, "abc", &id, &err), 0);
	assert_string_equal(id, "k8s.io-abc");
	snapshot_close(&sd);
}

/* The name a container's users know it by, when its link names it; none
 * for a container without one, or whose link names another. */
static void test_name(void **state)
{
	(void)state;
	struct snapshot sd;
	int errnum = 0;
	assert_int_equal(snapshot_open(dir, &sd, &errnum), 0);
	_cleanup_free_ char *name = container_key_name(&sd, "k8s.io-abc");
	assert_non_null(name);
	assert_string_equal(name, "k8s.io/abc");
	assert_null(container_key_name(&sd, "ctr-b"));
	assert_null(container_key_name(&sd, "ctr-a"));
	snapshot_close(&sd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_resolve),
	    cmocka_unit_test(test_name),
	};
	return cmocka_run_group_tests(tests, setup, tmpdir_remove);
}
