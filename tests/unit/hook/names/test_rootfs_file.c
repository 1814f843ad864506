/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/names/rootfs-file.c: which engine files are rewritten, and
 * how; a process of the hook's own mount namespace is never mounted into. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"
#include "names/rootfs-file.h"

static char dir[] = "/tmp/cnihook-rootfs-file-XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char *cmd = xasprintf("rm -rf '%s'", dir);
	int r = system(cmd);
	free(cmd);
	return r;
}

static char *at(const char *rel)
{
	return xasprintf("%s/%s", dir, rel);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_component(void **state)
{
	(void)state;
	assert_true(rootfs_path_has_component("/var/lib/c/abc/userdata/hosts", "abc"));
	assert_true(rootfs_path_has_component("/abc", "abc"));
	assert_false(rootfs_path_has_component("/var/lib/c/abcd/hosts", "abc"));
	assert_false(rootfs_path_has_component("/var/lib/c/xabc/hosts", "abc"));
}

/* Rewritten in place: same inode, whole content replaced. */
static void test_rewrite(void **state)
{
	(void)state;
	char *d = at("c1"), *p = at("c1/hosts");
	assert_int_equal(mkdir(d, 0755), 0);
	write_text(p, "127.0.0.1 localhost\n# a long line the new text is shorter than\n");
	struct stat before, after;
	assert_int_equal(stat(p, &before), 0);
	int fd = -1;
	char *text = NULL, *err = NULL;
	assert_int_equal(rootfs_engine_open(p, "c1", &fd, &text, &err), 0);
	assert_string_equal(text,
			    "127.0.0.1 localhost\n# a long line the new text is shorter than\n");
	assert_int_equal(rootfs_engine_write(fd, "new\n", &err), 0);
	close(fd);
	assert_int_equal(stat(p, &after), 0);
	assert_int_equal(before.st_ino, after.st_ino);
	assert_int_equal(after.st_size, 4);
	free(text);
	free(d);
	free(p);
}

/* Left alone: a path without the id, a hard link, a FIFO; a symbolic link
 * is not followed (fails). */
static void test_refused(void **state)
{
	(void)state;
	char *d = at("c2"), *p = at("c2/hosts"), *l = at("c2/link"), *f = at("c2/fifo"),
	     *s = at("c2/sym");
	assert_int_equal(mkdir(d, 0755), 0);
	write_text(p, "x\n");
	int fd = -1;
	char *text = NULL, *err = NULL;
	assert_int_equal(rootfs_engine_open(p, "other", &fd, &text, &err), 1);
	free(TAKE_PTR(err));
	assert_int_equal(link(p, l), 0);
	assert_int_equal(rootfs_engine_open(p, "c2", &fd, &text, &err), 1);
	assert_non_null(strstr(err, "more than one link"));
	free(TAKE_PTR(err));
	assert_int_equal(mkfifo(f, 0644), 0);
	assert_int_equal(rootfs_engine_open(f, "c2", &fd, &text, &err), 1);
	assert_non_null(strstr(err, "not a regular file"));
	free(TAKE_PTR(err));
	assert_int_equal(symlink("/etc/hosts", s), 0);
	assert_int_equal(rootfs_engine_open(s, "c2", &fd, &text, &err), -1);
	free(TAKE_PTR(err));
	free(d);
	free(p);
	free(l);
	free(f);
	free(s);
}

/* The hook's own mount namespace is never the container's. */
static void test_own_namespace(void **state)
{
	(void)state;
	const struct rootfs_target t = {
	    .pid = getpid(), .root = dir, .dir = "etc", .name = "hosts"};
	char *err = NULL;
	assert_int_equal(rootfs_bind(&t, "/dev/null", &err), 1);
	assert_non_null(strstr(err, "the hook's own mount namespace"));
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_component),
	    cmocka_unit_test(test_rewrite),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_own_namespace),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
