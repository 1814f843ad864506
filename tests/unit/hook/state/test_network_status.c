/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/state/network-status.c: network-status.json (NPWG network-status). */
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

#include "base/util.h"
#include "state/layout.h"
#include "state/network-status.h"

static const char RESULT[] =
    "{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"veth1\",\"mac\":\"aa:aa:aa:aa:aa:aa\"},"
    "{\"name\":\"eth0\",\"mac\":\"0a:58:0a:01:02:03\",\"sandbox\":\"/run/netns/x\"}],"
    "\"ips\":[{\"address\":\"10.1.2.3/24\",\"interface\":1},"
    "{\"address\":\"10.9.9.9/24\",\"interface\":0},{\"address\":\"fd00::3/64\"}],"
    "\"dns\":{\"nameservers\":[\"10.1.2.1\"]}}";

/* The container's interface: its mac, the addresses on it (or on no
 * interface) without prefix length, the result's dns. */
static void test_render(void **state)
{
	(void)state;
	const struct network_status_entry v[] = {
	    {.network = "ns/a", .ifname = "eth0", .is_default = true, .result = RESULT},
	    {.network = "b", .ifname = "net1", .is_default = false, .result = NULL},
	};
	_cleanup_free_ char *got = network_status_render(v, 2);
	assert_string_equal(
	    got, "[{\"name\":\"ns/a\",\"interface\":\"eth0\",\"ips\":[\"10.1.2.3\",\"fd00::3\"],"
		 "\"mac\":\"0a:58:0a:01:02:03\",\"default\":true,\"dns\":{\"nameservers\":["
		 "\"10.1.2.1\"]}},{\"name\":\"b\",\"interface\":\"net1\",\"ips\":[],"
		 "\"default\":false,\"dns\":{}}]");
	_cleanup_free_ char *none = network_status_render(NULL, 0);
	assert_string_equal(none, "[]");
}

/* A result of an older version is converted first (0.2.0: ip4). */
static void test_render_old_result(void **state)
{
	(void)state;
	const struct network_status_entry v[] = {
	    {.network = "a",
	     .ifname = "eth0",
	     .is_default = true,
	     .result = "{\"cniVersion\":\"0.2.0\",\"ip4\":{\"ip\":\"10.4.0.2/16\"}}"},
	};
	_cleanup_free_ char *got = network_status_render(v, 1);
	assert_string_equal(got, "[{\"name\":\"a\",\"interface\":\"eth0\",\"ips\":[\"10.4.0.2\"],"
				 "\"default\":true,\"dns\":{}}]");
}

static void test_write(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_netstatus.XXXXXX";
	assert_non_null(mkdtemp(dir));
	_cleanup_free_ char *path = layout_status(dir, "c1");
	_cleanup_free_ char *want_path = xasprintf("%s/c1/network-status.json", dir);
	assert_string_equal(path, want_path);
	const struct network_status_entry v[] = {
	    {.network = "a", .ifname = "eth0", .result = RESULT}};
	_cleanup_free_ char *err = NULL;
	/* no <id> directory: the error names the file */
	assert_int_equal(network_status_write(path, v, 1, &err), -1);
	_cleanup_free_ char *want = xasprintf("network status %s: No such file or directory", path);
	assert_string_equal(err, want);
	_cleanup_free_ char *sub = xasprintf("%s/c1", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	assert_int_equal(network_status_write(path, v, 1, &err), 0);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	unlink(path);
	rmdir(sub);
	rmdir(dir);
}

/* update: the entry of that name and interface from the new result, its
 * "default" kept; the others as they were. */
static void test_update(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_netstatus.XXXXXX";
	assert_non_null(mkdtemp(dir));
	_cleanup_free_ char *sub = xasprintf("%s/c1", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	_cleanup_free_ char *path = layout_status(dir, "c1");
	const struct network_status_entry v[] = {
	    {.network = "ns/a", .ifname = "eth0", .is_default = true, .result = NULL},
	    {.network = "b", .ifname = "net1", .is_default = false, .result = NULL},
	};
	_cleanup_free_ char *err = NULL;
	assert_int_equal(network_status_write(path, v, 2, &err), 0);
	const struct network_status_entry now = {
	    .network = "ns/a", .ifname = "eth0", .result = RESULT};
	assert_int_equal(network_status_update(path, &now, &err), 0);
	_cleanup_free_ char *got = NULL;
	size_t len;
	int errnum;
	assert_int_equal(read_file(path, 1 << 20, &got, &len, &errnum, &err), 0);
	assert_string_equal(
	    got, "[{\"name\":\"ns/a\",\"interface\":\"eth0\",\"ips\":[\"10.1.2.3\",\"fd00::3\"],"
		 "\"mac\":\"0a:58:0a:01:02:03\",\"default\":true,\"dns\":{\"nameservers\":["
		 "\"10.1.2.1\"]}},{\"name\":\"b\",\"interface\":\"net1\",\"ips\":[],"
		 "\"default\":false,\"dns\":{}}]");
	/* no file: the error says so */
	unlink(path);
	free(TAKE_PTR(err));
	assert_int_equal(network_status_update(path, &now, &err), -1);
	assert_non_null(err);
	rmdir(sub);
	rmdir(dir);
}

/* first_ip: the first address of the entry asked for; none, an error
 * naming the entry. */
static void test_first_ip(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_netstatus.XXXXXX";
	assert_non_null(mkdtemp(dir));
	_cleanup_free_ char *sub = xasprintf("%s/c1", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	_cleanup_free_ char *path = layout_status(dir, "c1");
	const struct network_status_entry v[] = {
	    {.network = "b", .ifname = "net1", .result = NULL},
	    {.network = "ns/a", .ifname = "eth0", .result = RESULT},
	};
	_cleanup_free_ char *err = NULL;
	assert_int_equal(network_status_write(path, v, 2, &err), 0);
	_cleanup_free_ char *ip = network_status_first_ip(path, 1, &err);
	assert_string_equal(ip, "10.1.2.3");
	assert_null(network_status_first_ip(path, 0, &err));
	free(TAKE_PTR(err));
	assert_null(network_status_first_ip(path, 2, &err));
	free(TAKE_PTR(err));
	assert_null(network_status_first_ip(path, 0, &err));
	_cleanup_free_ char *want = xasprintf("network status %s: no address in entry 0", path);
	assert_string_equal(err, want);
	unlink(path);
	rmdir(sub);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_render),   cmocka_unit_test(test_render_old_result),
	    cmocka_unit_test(test_write),    cmocka_unit_test(test_update),
	    cmocka_unit_test(test_first_ip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
