/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/state/layout.c: the paths of the state directory and beside
 * the cache, absolute and relative to the directory, and which entries of
 * the state directory stand for a container. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "base/util.h"
#include "state/layout.h"

/* got (taken) is want. */
static void is(char *got, const char *want)
{
	assert_string_equal(got, want);
	free(got);
}

static void test_state_paths(void **state)
{
	(void)state;
	const char *s = "/run/cnihook";
	is(layout_container_dir(s, "c1"), "/run/cnihook/c1");
	is(layout_record(s, "c1"), "/run/cnihook/c1/record.json");
	is(layout_status(s, "c1"), "/run/cnihook/c1/network-status.json");
	is(layout_pin(s, "c1"), "/run/cnihook/c1/netns");
	is(layout_own_ports(s, "c1"), "/run/cnihook/c1/ports");
	is(layout_name_old(s, "c1"), "/run/cnihook/c1/name");
	is(layout_lock(s, "c1"), "/run/cnihook/c1.lock");
	is(layout_name_link(s, "k8s-c1"), "/run/cnihook/k8s-c1.name");
	is(layout_ports_dir(s), "/run/cnihook/ports");
	is(layout_port_name("tcp", 8080), "tcp-8080");
	is(layout_port_file(s, "udp-53"), "/run/cnihook/ports/udp-53");
	is(layout_pins_dir(s), "/run/cnihook/@pins");
	is(layout_pin_entry(s, 0x2a, 0xf0000001), "/run/cnihook/@pins/2a:f0000001");
	is(layout_pin_entry_named(s, "2a:f0000001"), "/run/cnihook/@pins/2a:f0000001");
}

/* A rootless user's directories (cnihook(8), ROOTLESS). */
static void test_rootless_paths(void **state)
{
	(void)state;
	is(layout_rootless_run_dir(1001), "/run/user/1001");
	is(layout_rootless_dir("/run/user/1001"), "/run/user/1001/cnihook");
	const char *d = "/run/user/1001/cnihook";
	is(layout_rootless_netns(d), "/run/user/1001/cnihook/netns");
	is(layout_rootless_slirp_pid(d), "/run/user/1001/cnihook/slirp4netns.pid");
	is(layout_rootless_watch_pid(d), "/run/user/1001/cnihook/watch.pid");
	is(layout_rootless_state(d), "/run/user/1001/cnihook/state");
	is(layout_rootless_cache(d), "/run/user/1001/cnihook/cache");
	is(layout_rootless_run(d), "/run/user/1001/cnihook/run");
	is(layout_rootless_cni(d), "/run/user/1001/cnihook/cni");
	is(layout_rootless_forwarders(d), "/run/user/1001/cnihook/forwarders");
	is(layout_rootless_forwarder(d, "c1"), "/run/user/1001/cnihook/forwarders/c1");
	is(layout_rootless_forwarder(NULL, "c1"), "forwarders/c1");
}

static void test_relative(void **state)
{
	(void)state;
	is(layout_container_dir(NULL, "c1"), "c1");
	is(layout_status(NULL, "c1"), "c1/network-status.json");
	is(layout_name_link(NULL, "c1"), "c1.name");
	is(layout_lock(NULL, "c1"), "c1.lock");
	is(layout_port_file(NULL, "tcp-80"), "ports/tcp-80");
	is(layout_result(NULL, "net-c1-eth0"), "results/net-c1-eth0");
}

static void test_cache_paths(void **state)
{
	(void)state;
	const char *c = "/var/lib/cni";
	is(layout_results_dir(c), "/var/lib/cni/results");
	is(layout_result(c, "net-c1-eth0"), "/var/lib/cni/results/net-c1-eth0");
	is(layout_result_name("net", "c1", "eth0"), "net-c1-eth0");
	is(layout_attachment_list_dir(c), "/var/lib/cni/cnihook-attachments");
	is(layout_attachment_list(c, "c1"), "/var/lib/cni/cnihook-attachments/c1");
	is(layout_ports_index(c), "/var/lib/cni/cnihook-ports.index");
	is(layout_ports_held(c), "/var/lib/cni/cnihook-ports.held");
}

/* Names of containers, and the state directory's own names with what no
 * id can be. */
static const char *const containers[] = {"c1", "k8s.io-abc_1", "ports2"};
static const char *const not_containers[] = {"ports",	    "@pins",	     ".hidden", ".", "..",
					     "cnihook.log", "cnihook.log.1", "bad id!", ""};

static void test_container_names(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(containers); i++)
		assert_true(layout_is_container_name(containers[i]));
	for (size_t i = 0; i < ARRAY_SIZE(not_containers); i++)
		assert_false(layout_is_container_name(not_containers[i]));
}

static void test_entries(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		enum layout_entry kind;
		size_t id_len;
	} cases[] = {
	    {"c1", LAYOUT_CONTAINER, 2},
	    {"ctr-a.lock", LAYOUT_LOCK, 5},
	    {"ns-ctr.name", LAYOUT_NAME_LINK, 6},
	    /* The lock of a container whose id ends in ".name". */
	    {"a.name.lock", LAYOUT_LOCK, 6},
	    /* A suffix alone, or on a name that is no container's. */
	    {".lock", LAYOUT_OTHER, 99},
	    {".name", LAYOUT_OTHER, 99},
	    {"ports.lock", LAYOUT_OTHER, 99},
	    {"cnihook.log.lock", LAYOUT_OTHER, 99},
	    {"@pins", LAYOUT_OTHER, 99},
	    {"ports", LAYOUT_OTHER, 99},
	    {"cnihook.log", LAYOUT_OTHER, 99},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		size_t len = 99; /* left alone for LAYOUT_OTHER */
		assert_int_equal(layout_entry(cases[i].name, &len), cases[i].kind);
		assert_int_equal(len, cases[i].id_len);
		assert_int_equal(layout_entry(cases[i].name, NULL), cases[i].kind);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_state_paths), cmocka_unit_test(test_relative),
	    cmocka_unit_test(test_cache_paths), cmocka_unit_test(test_container_names),
	    cmocka_unit_test(test_entries),	cmocka_unit_test(test_rootless_paths),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
