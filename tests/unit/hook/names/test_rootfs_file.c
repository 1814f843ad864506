/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/names/rootfs-file.c: which engine files are rewritten, and
 * how; the private file's tmpfs; a process of the hook's own mount
 * namespace is never mounted into. */
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
#include <errno.h>
#include <sys/stat.h>
#include <sys/statfs.h>
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

/* The engine's own files, by the shape of their path. */
static void test_engine_path(void **state)
{
	(void)state;
	assert_true(rootfs_file_engine_path(
	    "/run/containers/storage/overlay-containers/abc/userdata/hosts", "abc", "hosts"));
	assert_true(rootfs_file_engine_path("/var/lib/docker/containers/abc/resolv.conf", "abc",
					    "resolv.conf"));
	assert_true(rootfs_file_engine_path("/d//containers/abc//hosts", "abc", "hosts"));
	/* the id elsewhere, another file's name, a user's volume */
	assert_false(rootfs_file_engine_path("/home/u/abc/hosts", "abc", "hosts"));
	assert_false(
	    rootfs_file_engine_path("/var/lib/docker/containers/abcd/hosts", "abc", "hosts"));
	assert_false(
	    rootfs_file_engine_path("/var/lib/docker/containers/abc/hosts", "abc", "resolv.conf"));
	assert_false(rootfs_file_engine_path("/vol/abc/userdata/hosts", "abc", "hosts"));
	assert_false(
	    rootfs_file_engine_path("/x/overlay-containers/abc/other/hosts", "abc", "hosts"));
	assert_false(rootfs_file_engine_path("containers/abc/hosts", "abc", "hosts"));
}

/* Rewritten in place: same inode, whole content replaced. */
static void test_rewrite(void **state)
{
	(void)state;
	char *d = at("overlay-containers/c1/userdata"),
	     *p = at("overlay-containers/c1/userdata/hosts");
	char *cmd = xasprintf("mkdir -p '%s'", d);
	assert_int_equal(system(cmd), 0);
	write_text(p, "127.0.0.1 localhost\n# a long line the new text is shorter than\n");
	struct stat before, after;
	assert_int_equal(stat(p, &before), 0);
	int fd = -1;
	char *text = NULL, *err = NULL;
	assert_int_equal(rootfs_file_engine_open(p, "c1", "hosts", &fd, &text, &err), 0);
	assert_string_equal(text,
			    "127.0.0.1 localhost\n# a long line the new text is shorter than\n");
	assert_int_equal(rootfs_file_engine_write(fd, "new\n", &err), 0);
	close(fd);
	assert_int_equal(stat(p, &after), 0);
	assert_int_equal(before.st_ino, after.st_ino);
	assert_int_equal(after.st_size, 4);
	free(text);
	free(cmd);
	free(d);
	free(p);
}

/* Left alone: a path not of the engine's shape, a hard link, a FIFO; a
 * symbolic link is not followed (fails). */
static void test_refused(void **state)
{
	(void)state;
	char *d = at("containers/c2"), *p = at("containers/c2/hosts"),
	     *l = at("containers/c2/link"), *f = at("containers/c2/hosts.fifo"),
	     *s = at("containers/c2/sym");
	char *cmd = xasprintf("mkdir -p '%s'", d);
	assert_int_equal(system(cmd), 0);
	write_text(p, "x\n");
	int fd = -1;
	char *text = NULL, *err = NULL;
	assert_int_equal(rootfs_file_engine_open(p, "other", "hosts", &fd, &text, &err), 1);
	assert_non_null(strstr(err, "not the engine's own file"));
	free(TAKE_PTR(err));
	assert_int_equal(link(p, l), 0);
	assert_int_equal(rootfs_file_engine_open(p, "c2", "hosts", &fd, &text, &err), 1);
	assert_non_null(strstr(err, "more than one link"));
	free(TAKE_PTR(err));
	unlink(l);
	assert_int_equal(mkfifo(f, 0644), 0);
	assert_int_equal(rename(f, p), 0);
	assert_int_equal(rootfs_file_engine_open(p, "c2", "hosts", &fd, &text, &err), 1);
	assert_non_null(strstr(err, "not a regular file"));
	free(TAKE_PTR(err));
	assert_int_equal(unlink(p), 0);
	assert_int_equal(symlink("/etc/hosts", p), 0);
	assert_int_equal(rootfs_file_engine_open(p, "c2", "hosts", &fd, &text, &err), -1);
	free(TAKE_PTR(err));
	free(cmd);
	free(d);
	free(p);
	free(l);
	free(f);
	free(s);
}

/* A private file: its text, read-only, on a tmpfs no bigger than a page
 * over the text (root only: fsopen needs CAP_SYS_ADMIN). */
static void test_private_file(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();
	char *err = NULL;
	int tree = rootfs_file_private("nameserver 10.1.2.3\n", 0, 0, &err);
	assert_true(tree >= 0);
	int fd = openat(tree, "", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		char *path = xasprintf("/proc/self/fd/%d", tree);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		free(path);
	}
	assert_true(fd >= 0);
	char buf[64] = {0};
	assert_int_equal(read(fd, buf, sizeof(buf) - 1), 20);
	assert_string_equal(buf, "nameserver 10.1.2.3\n");
	close(fd);
	char *path = xasprintf("/proc/self/fd/%d", tree);
	assert_true(open(path, O_WRONLY | O_CLOEXEC) < 0);
	assert_int_equal(errno, EROFS);
	struct statfs sfs;
	assert_int_equal(statfs(path, &sfs), 0);
	assert_true((unsigned long)sfs.f_blocks * (unsigned long)sfs.f_bsize <= 8192);
	free(path);
	close(tree);
}

/* The hook's own mount namespace is never the container's. */
static void test_own_namespace(void **state)
{
	(void)state;
	const struct rootfs_target t = {
	    .pid = getpid(), .root = dir, .dir = "etc", .name = "hosts"};
	char *err = NULL;
	assert_int_equal(rootfs_file_bind(&t, -1, &err), 1);
	assert_non_null(strstr(err, "the hook's own mount namespace"));
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_engine_path),	  cmocka_unit_test(test_rewrite),
	    cmocka_unit_test(test_refused),	  cmocka_unit_test(test_private_file),
	    cmocka_unit_test(test_own_namespace),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
