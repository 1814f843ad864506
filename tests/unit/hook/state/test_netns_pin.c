/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of hook/state/netns-pin.c: pinning network namespaces with bind mounts, and
 * what gc may conclude of a path (netns_pin_probe). They need root and run in a
 * private mount namespace of the test process (made rprivate first), so no
 * mount reaches the host's; the namespaces pinned are made by children of
 * the test.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/util.h"
#include "state/netns-pin.h"

#define MAX_CHILDREN 4

struct fixture {
	char tmp[64];	 /* /tmp/test_netns.XXXXXX */
	char *state_dir; /* <tmp>/state */
	char *pin;	 /* <tmp>/state/ctr/netns */
	pid_t children[MAX_CHILDREN];
};

static int setup(void **state)
{
	struct fixture *f = xzalloc(sizeof(*f));
	strcpy(f->tmp, "/tmp/test_netns.XXXXXX");
	if (mkdtemp(f->tmp) == NULL)
		return -1;
	f->state_dir = xasprintf("%s/state", f->tmp);
	f->pin = xasprintf("%s/ctr/netns", f->state_dir);
	_cleanup_free_ char *ctr = xasprintf("%s/ctr", f->state_dir);
	if (mkdir(f->state_dir, 0700) < 0 || mkdir(ctr, 0700) < 0)
		return -1;
	*state = f;
	return 0;
}

/* Mount points at `path` (exact) or, with below, also under it. */
static int count_mounts(const char *path, bool below)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	_cleanup_free_ char *err = NULL;
	assert_int_equal(
	    read_file("/proc/self/mountinfo", 16 * 1024 * 1024, &buf, &len, NULL, &err), 0);
	size_t plen = strlen(path);
	int n = 0;
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		char mp[4096];
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1)
			continue;
		if (strcmp(mp, path) == 0 ||
		    (below && strncmp(mp, path, plen) == 0 && mp[plen] == '/'))
			n++;
	}
	return n;
}

/* Is the mount at `path` (the topmost) shared? */
static bool mount_is_shared(const char *path)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	_cleanup_free_ char *err = NULL;
	assert_int_equal(
	    read_file("/proc/self/mountinfo", 16 * 1024 * 1024, &buf, &len, NULL, &err), 0);
	bool shared = false;
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		char mp[4096];
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1 || strcmp(mp, path) != 0)
			continue;
		char *end = strstr(line, " - ");
		char *sh = strstr(line, " shared:");
		shared = sh && end && sh < end;
	}
	return shared;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	for (int i = 0; i < MAX_CHILDREN; i++)
		if (f->children[i] > 0) {
			kill(f->children[i], SIGKILL);
			waitpid(f->children[i], NULL, 0);
		}
	_cleanup_free_ char *ctr = xasprintf("%s/ctr", f->state_dir);
	_cleanup_free_ char *pin2 = xasprintf("%s/ctr/netns2", f->state_dir);
	_cleanup_free_ char *other = xasprintf("%s/other", f->tmp);
	char *err = NULL;
	int r = 0;
	if (netns_pin_remove(f->pin, &err) < 0 || netns_pin_remove(pin2, &err) < 0) {
		fprintf(stderr, "teardown: %s\n", err);
		free(err);
		r = -1;
	}
	/* The state directory's own bind mount (and a tmpfs of a test). */
	while (umount2(f->state_dir, MNT_DETACH) == 0)
		;
	unlink(other);
	rmdir(ctr);
	rmdir(f->state_dir);
	if (count_mounts(f->tmp, true) != 0) {
		fprintf(stderr, "teardown: mounts left under %s\n", f->tmp);
		r = -1;
	}
	if (rmdir(f->tmp) < 0) {
		fprintf(stderr, "teardown: %s: %m\n", f->tmp);
		r = -1;
	}
	free(f->state_dir);
	free(f->pin);
	free(f);
	return r;
}

/* A child in a network namespace of its own, waiting to be killed. Its
 * namespace file is written to ns (/proc/<pid>/ns/net). */
static pid_t spawn_netns(struct fixture *f, char ns[64])
{
	int p[2];
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		if (unshare(CLONE_NEWNET) < 0)
			_exit(1);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	char c;
	ssize_t n = read(p[0], &c, 1);
	close(p[0]);
	for (int i = 0; i < MAX_CHILDREN; i++)
		if (f->children[i] <= 0) {
			f->children[i] = pid;
			break;
		}
	assert_int_equal(n, 1);
	snprintf(ns, 64, "/proc/%d/ns/net", (int)pid);
	return pid;
}

static void kill_child(struct fixture *f, pid_t pid)
{
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	for (int i = 0; i < MAX_CHILDREN; i++)
		if (f->children[i] == pid)
			f->children[i] = 0;
}

static void pin_ok(const char *state_dir, const char *source, const char *pin)
{
	char *err = NULL;
	if (netns_pin(state_dir, source, pin, &err) < 0)
		fail_msg("netns_pin(%s, %s): %s", source, pin, err);
	assert_null(err);
}

static void pin_err(const char *state_dir, const char *source, const char *pin, const char *want)
{
	_cleanup_free_ char *err = NULL;
	assert_int_equal(netns_pin(state_dir, source, pin, &err), -1);
	assert_non_null(err);
	if (strstr(err, want) == NULL)
		fail_msg("error \"%s\" does not contain \"%s\"", err, want);
}

static void unpin_ok(const char *pin)
{
	char *err = NULL;
	if (netns_pin_remove(pin, &err) < 0)
		fail_msg("netns_pin_remove(%s): %s", pin, err);
}

static void touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	close(fd);
}

/* Wait for a child that reports its result as one byte on a pipe (its exit
 * status would be valgrind's under valgrind). */
static int child_result(pid_t pid, int fd)
{
	char c = 'E';
	if (read(fd, &c, 1) != 1)
		c = 'E';
	close(fd);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	return c == '0' ? 0 : c;
}

static void report(int fd, char c)
{
	if (write(fd, &c, 1) != 1)
		_exit(1);
	_exit(0);
}

/* In a child: join the namespace pinned at `pin` and check that it is the
 * one we are in, with a loopback and nothing else. 0 if so. */
static int check_setns(const char *pin)
{
	int p[2];
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		int fd = open(pin, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || setns(fd, CLONE_NEWNET) < 0)
			report(p[1], 's');
		if (!netns_pin_same("/proc/self/ns/net", pin))
			report(p[1], 'n');
		struct if_nameindex *ifs = if_nameindex();
		if (ifs == NULL || ifs[0].if_name == NULL || strcmp(ifs[0].if_name, "lo") != 0 ||
		    ifs[1].if_name != NULL)
			report(p[1], 'i');
		if_freenameindex(ifs);
		report(p[1], '0');
	}
	close(p[1]);
	return child_result(pid, p[0]);
}

/* ---------------------------------------------------------------- tests */

static void test_is_netns(void **state)
{
	struct fixture *f = *state;
	assert_true(netns_pin_is_netns("/proc/self/ns/net"));
	/* nsfs, but not a network namespace. */
	assert_false(netns_pin_is_netns("/proc/self/ns/mnt"));
	assert_false(netns_pin_is_netns("/proc/self/ns/uts"));
	_cleanup_free_ char *file = xasprintf("%s/other", f->tmp);
	touch(file);
	assert_false(netns_pin_is_netns(file));
	unlink(file);
	/* A FIFO is never opened (that would block). */
	assert_int_equal(mkfifo(file, 0600), 0);
	assert_false(netns_pin_is_netns(file));
	unlink(file);
	assert_false(netns_pin_is_netns(file));
	assert_false(netns_pin_is_netns(f->tmp));
	assert_false(netns_pin_is_netns("/dev/null"));
	assert_false(netns_pin_is_netns(""));
}

/* probe_is PATH WANT EVIDENCE: netns_pin_probe(PATH) is WANT, its evidence
 * starts with EVIDENCE. */
static void probe_is(const char *path, int want, const char *evidence)
{
	char *seen = NULL;
	assert_int_equal(netns_pin_probe(path, &seen), want);
	assert_non_null(seen);
	if (strncmp(seen, evidence, strlen(evidence)) != 0)
		fail_msg("netns_pin_probe(\"%s\"): \"%s\", want \"%s...\"", path, seen, evidence);
	free(seen);
}

/* gc's proof of death: only a missing path or a file that is no network
 * namespace proves one gone; what cannot be checked proves nothing. */
static void test_probe(void **state)
{
	struct fixture *f = *state;
	probe_is("/proc/self/ns/net", 1, "/proc/self/ns/net is a network namespace");
	char ns[64];
	spawn_netns(f, ns);
	_cleanup_free_ char *want = xasprintf("%s is a network namespace", ns);
	probe_is(ns, 1, want);
	probe_is("/proc/self/ns/mnt", 0,
		 "/proc/self/ns/mnt is a namespace of another kind, not a network one");
	_cleanup_free_ char *file = xasprintf("%s/other", f->tmp);
	touch(file);
	_cleanup_free_ char *no_ns =
	    xasprintf("%s is no namespace (a file of filesystem type", file);
	probe_is(file, 0, no_ns);
	_cleanup_free_ char *below = xasprintf("%s/x", file);
	_cleanup_free_ char *missing = xasprintf("%s does not exist", below);
	probe_is(below, 0, missing); /* ENOTDIR */
	unlink(file);
	assert_int_equal(mkfifo(file, 0600), 0); /* never opened */
	probe_is(file, 0, no_ns);
	unlink(file);
	_cleanup_free_ char *gone = xasprintf("%s does not exist", file);
	probe_is(file, 0, gone);
	probe_is("proc/self/ns/net", -1, "proc/self/ns/net is not an absolute path: cannot tell");
	/* stat fails otherwise than "no such file": nothing is proven. */
	char *longpath = xmalloc(8192);
	memset(longpath, 'a', 8191);
	longpath[0] = '/';
	longpath[8191] = '\0';
	probe_is(longpath, -1, "cannot tell whether /aaa");
	free(longpath);
}

static void test_same(void **state)
{
	struct fixture *f = *state;
	assert_true(netns_pin_same("/proc/self/ns/net", "/proc/thread-self/ns/net"));
	assert_false(netns_pin_same("/proc/self/ns/net", "/proc/self/ns/mnt"));
	char ns[64];
	spawn_netns(f, ns);
	assert_false(netns_pin_same("/proc/self/ns/net", ns));
	assert_false(netns_pin_same("/proc/self/ns/net", "/nonexistent"));
	assert_false(netns_pin_same("/nonexistent", "/nonexistent"));
}

/* Never the host's namespace: the hook's own is refused with a message
 * naming it, so is one that cannot be checked (fail closed); another
 * passes. */
static void test_refuse_host(void **state)
{
	struct fixture *f = *state;
	_cleanup_free_ char *err = NULL;
	assert_int_equal(netns_pin_refuse_host("/proc/self/ns/net", &err), -1);
	assert_string_equal(err, "network namespace \"/proc/self/ns/net\" is the host's: "
				 "refusing to attach networks to it");
	_cleanup_free_ char *missing = xasprintf("%s/none", f->tmp);
	_cleanup_free_ char *err2 = NULL;
	assert_int_equal(netns_pin_refuse_host(missing, &err2), -1);
	_cleanup_free_ char *want =
	    xasprintf("network namespace \"%s\": %s", missing, strerror(ENOENT));
	assert_string_equal(err2, want);
	char ns[64];
	spawn_netns(f, ns);
	_cleanup_free_ char *err3 = NULL;
	assert_int_equal(netns_pin_refuse_host(ns, &err3), 0);
	assert_null(err3);
}

/* The whole life of a pin: the namespace outlives its last process while
 * pinned, and nothing is left after unpin. */
static void test_pin_lifecycle(void **state)
{
	struct fixture *f = *state;
	char ns[64];
	pid_t pid = spawn_netns(f, ns);
	assert_int_equal(count_mounts(f->state_dir, false), 0);

	pin_ok(f->state_dir, ns, f->pin);
	assert_true(netns_pin_is_netns(f->pin));
	assert_true(netns_pin_same(f->pin, ns));
	assert_false(netns_pin_same(f->pin, "/proc/self/ns/net"));
	/* The state directory became a shared bind mount of itself. */
	assert_int_equal(count_mounts(f->state_dir, false), 1);
	assert_true(mount_is_shared(f->state_dir));
	assert_int_equal(count_mounts(f->pin, false), 1);

	/* The last process of the namespace goes; the pin keeps it. */
	kill_child(f, pid);
	assert_true(netns_pin_is_netns(f->pin));
	assert_int_equal(check_setns(f->pin), 0);

	unpin_ok(f->pin);
	assert_int_equal(access(f->pin, F_OK), -1);
	assert_int_equal(errno, ENOENT);
	assert_false(netns_pin_is_netns(f->pin));
	/* Left: the state directory's own bind mount, nothing below. */
	assert_int_equal(count_mounts(f->tmp, true), 1);
	assert_int_equal(count_mounts(f->state_dir, false), 1);
}

/* Pinning the same namespace again is fine and mounts nothing more. */
static void test_pin_twice(void **state)
{
	struct fixture *f = *state;
	char ns[64];
	spawn_netns(f, ns);
	pin_ok(f->state_dir, ns, f->pin);
	pin_ok(f->state_dir, ns, f->pin);
	assert_int_equal(count_mounts(f->pin, false), 1);
	assert_int_equal(count_mounts(f->state_dir, false), 1);
	assert_true(netns_pin_same(f->pin, ns));
	unpin_ok(f->pin);
	unpin_ok(f->pin);
	assert_int_equal(count_mounts(f->state_dir, true), 1);
}

/* Two pins of one state directory: it is bound on itself once. */
static void test_two_pins(void **state)
{
	struct fixture *f = *state;
	char ns1[64], ns2[64];
	spawn_netns(f, ns1);
	spawn_netns(f, ns2);
	_cleanup_free_ char *pin2 = xasprintf("%s/ctr/netns2", f->state_dir);
	pin_ok(f->state_dir, ns1, f->pin);
	pin_ok(f->state_dir, ns2, pin2);
	assert_int_equal(count_mounts(f->state_dir, false), 1);
	assert_true(netns_pin_same(f->pin, ns1));
	assert_true(netns_pin_same(pin2, ns2));
	assert_false(netns_pin_same(f->pin, pin2));
	unpin_ok(f->pin);
	assert_true(netns_pin_is_netns(pin2));
	unpin_ok(pin2);
	assert_int_equal(count_mounts(f->state_dir, true), 1);
}

/* A pin of another namespace is not replaced. */
static void test_pin_exists_other_namespace(void **state)
{
	struct fixture *f = *state;
	char ns1[64], ns2[64];
	spawn_netns(f, ns1);
	spawn_netns(f, ns2);
	pin_ok(f->state_dir, ns1, f->pin);
	pin_err(f->state_dir, ns2, f->pin, "exists and is not the namespace");
	assert_true(netns_pin_same(f->pin, ns1));
	assert_int_equal(count_mounts(f->pin, false), 1);
}

/* A file that is not a pin is not mounted over, nor removed. */
static void test_pin_exists_regular_file(void **state)
{
	struct fixture *f = *state;
	touch(f->pin);
	pin_err(f->state_dir, "/proc/self/ns/net", f->pin, "exists and is not the namespace");
	struct stat st;
	assert_int_equal(stat(f->pin, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(count_mounts(f->pin, false), 0);
}

/* A source that is no network namespace: a clear error, no file left and
 * nothing mounted at all. */
static void test_pin_not_netns(void **state)
{
	struct fixture *f = *state;
	_cleanup_free_ char *file = xasprintf("%s/other", f->tmp);
	touch(file);
	_cleanup_free_ char *want = xasprintf("netns \"%s\": not a network namespace", file);
	pin_err(f->state_dir, file, f->pin, want);
	pin_err(f->state_dir, "/proc/self/ns/mnt", f->pin,
		"netns \"/proc/self/ns/mnt\": not a network namespace");
	pin_err(f->state_dir, "/nonexistent/ns/net", f->pin,
		"netns \"/nonexistent/ns/net\": No such file or directory");
	pin_err(f->state_dir, f->tmp, f->pin, "not a network namespace");
	assert_int_equal(access(f->pin, F_OK), -1);
	assert_int_equal(count_mounts(f->tmp, true), 0);
}

/* The pin's directory must exist. */
static void test_pin_dir_missing(void **state)
{
	struct fixture *f = *state;
	_cleanup_free_ char *pin = xasprintf("%s/nodir/netns", f->state_dir);
	_cleanup_free_ char *want = xasprintf("netns pin \"%s\": No such file or directory", pin);
	pin_err(f->state_dir, "/proc/self/ns/net", pin, want);
	assert_int_equal(count_mounts(f->state_dir, true), 1);
}

static void test_state_dir_missing(void **state)
{
	struct fixture *f = *state;
	_cleanup_free_ char *dir = xasprintf("%s/nostate", f->tmp);
	_cleanup_free_ char *pin = xasprintf("%s/nostate/netns", f->tmp);
	_cleanup_free_ char *want =
	    xasprintf("state directory \"%s\": No such file or directory", dir);
	pin_err(dir, "/proc/self/ns/net", pin, want);
	assert_int_equal(count_mounts(f->tmp, true), 0);
}

/* A state directory that is a mount point already (a tmpfs) is made shared,
 * not bound on itself. */
static void test_state_dir_mount_point(void **state)
{
	struct fixture *f = *state;
	assert_int_equal(mount("tmpfs", f->state_dir, "tmpfs", 0, "size=64k,mode=0700"), 0);
	assert_false(mount_is_shared(f->state_dir));
	_cleanup_free_ char *ctr = xasprintf("%s/ctr", f->state_dir);
	assert_int_equal(mkdir(ctr, 0700), 0);
	char ns[64];
	spawn_netns(f, ns);
	pin_ok(f->state_dir, ns, f->pin);
	assert_int_equal(count_mounts(f->state_dir, false), 1);
	assert_true(mount_is_shared(f->state_dir));
	unpin_ok(f->pin);
	assert_int_equal(count_mounts(f->state_dir, true), 1);
}

/* What the shared state directory is for: a pin made after another mount
 * namespace was copied from ours appears there, and its unpin too. */
static void test_pin_reaches_peer_namespace(void **state)
{
	struct fixture *f = *state;
	char ns1[64], ns2[64];
	spawn_netns(f, ns1);
	spawn_netns(f, ns2);
	/* A first pin makes the state directory a shared mount. */
	_cleanup_free_ char *pin2 = xasprintf("%s/ctr/netns2", f->state_dir);
	pin_ok(f->state_dir, ns2, pin2);

	int up[2], down[2], res[2];
	assert_int_equal(pipe2(up, O_CLOEXEC), 0);
	assert_int_equal(pipe2(down, O_CLOEXEC), 0);
	assert_int_equal(pipe2(res, O_CLOEXEC), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char c;
		if (unshare(CLONE_NEWNS) < 0 || write(up[1], "x", 1) != 1)
			report(res[1], 'u');
		/* Wait for the parent's pin. */
		if (read(down[0], &c, 1) != 1 || !netns_pin_is_netns(f->pin) ||
		    !netns_pin_same(f->pin, ns1))
			report(res[1], 'p');
		if (write(up[1], "x", 1) != 1)
			report(res[1], 'w');
		/* Wait for the parent's unpin. */
		if (read(down[0], &c, 1) != 1 || netns_pin_is_netns(f->pin))
			report(res[1], 'd');
		report(res[1], '0');
	}
	close(up[1]);
	close(down[0]);
	close(res[1]);
	char c;
	assert_int_equal(read(up[0], &c, 1), 1);
	pin_ok(f->state_dir, ns1, f->pin);
	assert_int_equal(write(down[1], "x", 1), 1);
	assert_int_equal(read(up[0], &c, 1), 1);
	unpin_ok(f->pin);
	assert_int_equal(write(down[1], "x", 1), 1);
	close(up[0]);
	close(down[1]);
	/* 'p': the pin did not reach the peer; 'd': the unpin did not. */
	assert_int_equal(child_result(pid, res[0]), 0);
	unpin_ok(pin2);
}

static void test_unpin_missing(void **state)
{
	struct fixture *f = *state;
	unpin_ok(f->pin);
	_cleanup_free_ char *pin = xasprintf("%s/nodir/netns", f->state_dir);
	unpin_ok(pin);
}

/* A leftover empty file (a pin interrupted before its mount) is removed. */
static void test_unpin_leftover_file(void **state)
{
	struct fixture *f = *state;
	touch(f->pin);
	unpin_ok(f->pin);
	assert_int_equal(access(f->pin, F_OK), -1);
}

int main(void)
{
	if (geteuid() != 0) {
		printf("test_netns: SKIP: needs root (mounts and namespaces)\n");
		return 77;
	}
	/* A mount namespace of our own whose mounts propagate nowhere. */
	if (unshare(CLONE_NEWNS) < 0 || mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0) {
		printf("test_netns: SKIP: no private mount namespace: %m\n");
		return 77;
	}
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_is_netns, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_probe, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_same, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_refuse_host, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pin_lifecycle, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pin_twice, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_two_pins, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pin_exists_other_namespace, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pin_exists_regular_file, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pin_not_netns, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pin_dir_missing, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_state_dir_missing, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_state_dir_mount_point, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pin_reaches_peer_namespace, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unpin_missing, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unpin_leftover_file, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
