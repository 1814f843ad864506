/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of hook/state/address-holders.c: a static IP or a MAC asked for,
 * found in the cached result of another container's attachment to the same
 * network (prefix lengths, IPv6 spellings and MAC case aside; results of
 * older versions converted); not found on another network, in the asking
 * container's own entries, on the host side of a result, or when nothing
 * is asked.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <sys/stat.h>

#include "base/util.h"
#include "state/address-holders.h"
#include "tmpdir.h"

/* One test's cache directory, under the group's directory. */
struct fx {
	char *results;
	cnirt_ctx *ctx;
	cnirt_cache_entry **v;
	size_t n;
};

static int fx_setup(void **state)
{
	static unsigned seq;
	struct fx *f = xzalloc(sizeof(*f));
	_cleanup_free_ char *cache = xasprintf("%s/%u", dir, ++seq);
	f->results = xasprintf("%s/results", cache);
	_cleanup_free_ char *err = NULL;
	if (dir_mkdir_p(f->results, 0700, &err) < 0)
		return -1;
	f->ctx = cnirt_ctx_new();
	cnirt_ctx_set_cache_dir(f->ctx, cache);
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;
	cnirt_cache_entries_free(f->v, f->n);
	cnirt_ctx_free(f->ctx);
	free(f->results);
	free(f);
	return 0;
}

/* The cache entry <network>-<id>-eth0 with `result` (JSON text). */
static void entry(struct fx *f, const char *network, const char *id, const char *result)
{
	_cleanup_free_ char *text =
	    xasprintf("{\"kind\":\"cniCacheV1\",\"containerId\":\"%s\",\"ifName\":\"eth0\","
		      "\"networkName\":\"%s\",\"result\":%s}",
		      id, network, result);
	_cleanup_free_ char *path = xasprintf("%s/%s-%s-eth0", f->results, network, id);
	assert_int_equal(file_write_atomic(path, text, strlen(text), 0600, false), 0);
}

/* A 1.0.0 result: eth0 in a sandbox with `mac`, the host's veth with
 * `host_mac`, and the addresses `ips` (a JSON array text of objects). */
static char *result(const char *mac, const char *host_mac, const char *ips)
{
	return xasprintf("{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"veth1\","
			 "\"mac\":\"%s\"},{\"name\":\"eth0\",\"mac\":\"%s\",\"sandbox\":"
			 "\"/run/netns/x\"}],\"ips\":%s}",
			 host_mac, mac, ips);
}

/* The holder of what `a` asks for, as the cache now lists it, by container
 * id ("" when none), with what it holds in *what (allocated, or NULL). */
static const char *holder_of(struct fx *f, const struct attach_req *a, const char *self,
			     char **what)
{
	cnirt_error *e = NULL;
	cnirt_cache_entries_free(f->v, f->n);
	assert_int_equal(cnirt_cache_list(f->ctx, &f->v, &f->n, &e), 0);
	struct holder_hit hit = {0};
	*what = NULL;
	if (address_holders_find(a, self, f->v, f->n, &hit) == 0)
		return "";
	*what = TAKE_PTR(hit.what);
	return cnirt_cache_entry_container_id(hit.entry);
}

static void found(struct fx *f, const struct attach_req *a, const char *want_id,
		  const char *want_what)
{
	_cleanup_free_ char *what = NULL;
	assert_string_equal(holder_of(f, a, "me", &what), want_id);
	if (want_what)
		assert_string_equal(what, want_what);
	else
		assert_null(what);
}

static char *IPS_A[] = {"10.1.2.3/24"};

/* An IP asked for with one prefix length, held with another on the same
 * network. */
static void test_ip_held(void **state)
{
	struct fx *f = *state;
	_cleanup_free_ char *r =
	    result("02:00:00:00:00:01", "aa:aa:aa:aa:aa:aa",
		   "[{\"address\":\"10.1.2.4/24\"},{\"address\":\"10.1.2.3/16\"}]");
	entry(f, "net1", "other", r);
	struct attach_req a = {.network = "net1", .ips = IPS_A, .n_ips = 1};
	found(f, &a, "other", "IP 10.1.2.3");
}

/* The same address on another network, or in the asking container's own
 * entry, is not held; nor is anything when nothing is asked. */
static void test_ip_elsewhere(void **state)
{
	struct fx *f = *state;
	_cleanup_free_ char *r =
	    result("02:00:00:00:00:01", "aa:aa:aa:aa:aa:aa", "[{\"address\":\"10.1.2.3/24\"}]");
	entry(f, "net2", "other", r);
	entry(f, "net1", "me", r);
	struct attach_req a = {.network = "net1", .ips = IPS_A, .n_ips = 1};
	found(f, &a, "", NULL);
	struct attach_req none = {.network = "net2"};
	found(f, &none, "", NULL);
	assert_false(address_holders_asked(&none));
	assert_true(address_holders_asked(&a));
}

/* IPv6 spelled otherwise; a 0.4.0 result converted. */
static void test_ipv6_and_old_result(void **state)
{
	struct fx *f = *state;
	entry(f, "net1", "old",
	      "{\"cniVersion\":\"0.4.0\",\"ips\":[{\"version\":\"6\",\"address\":"
	      "\"fd00:0:0::0:5/64\"}]}");
	char *ips[] = {"10.9.9.9/24", "fd00::5/64"};
	struct attach_req a = {.network = "net1", .ips = ips, .n_ips = 2};
	found(f, &a, "old", "IP fd00::5");
}

/* A MAC on the container's interface, case aside; not the host side's, not
 * on another network. */
static void test_mac(void **state)
{
	struct fx *f = *state;
	_cleanup_free_ char *r = result("02:AB:00:00:00:01", "02:cd:00:00:00:01", "[]");
	entry(f, "net1", "other", r);
	entry(f, "net2", "third", r);
	struct attach_req a = {.network = "net1", .mac = "02:ab:00:00:00:01"};
	found(f, &a, "other", "MAC 02:ab:00:00:00:01");
	struct attach_req host = {.network = "net1", .mac = "02:cd:00:00:00:01"};
	found(f, &host, "", NULL);
	struct attach_req other_net = {.network = "net3", .mac = "02:ab:00:00:00:01"};
	found(f, &other_net, "", NULL);
}

/* An entry without a result, or with one that is not valid, holds
 * nothing. */
static void test_no_result(void **state)
{
	struct fx *f = *state;
	entry(f, "net1", "bad", "{\"cniVersion\":\"1.0.0\",\"ips\":\"x\"}");
	entry(f, "net1", "none", "null");
	struct attach_req a = {.network = "net1", .ips = IPS_A, .n_ips = 1};
	found(f, &a, "", NULL);
}

#define T(name) cmocka_unit_test_setup_teardown(name, fx_setup, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
	    T(test_ip_held), T(test_ip_elsewhere), T(test_ipv6_and_old_result),
	    T(test_mac),     T(test_no_result),
	};
	return cmocka_run_group_tests(tests, tmpdir_make, tmpdir_remove);
}
