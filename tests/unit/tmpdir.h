/* SPDX-License-Identifier: Apache-2.0 */
/* A unit test's temporary directory, made before its group of tests and
 * removed after it: cmocka_run_group_tests(tests, tmpdir_make, tmpdir_remove). */
#ifndef CNIHOOK_TEST_TMPDIR_H
#define CNIHOOK_TEST_TMPDIR_H

#include <stdio.h>
#include <stdlib.h>

static char dir[64];

static int tmpdir_make(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/cnihook-unit.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int tmpdir_remove(void **state)
{
	(void)state;
	char cmd[96];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

#endif
