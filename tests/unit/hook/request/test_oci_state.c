/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/request/oci-state.c: the OCI state on stdin and the bundle's config.json. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/util.h"
#include "request/oci-state.h"

/* A bundle directory of the test's own, removed after each test. */
static char bundle[] = "/tmp/test_ocistate.XXXXXX";

static int setup(void **unused)
{
	strcpy(bundle, "/tmp/test_ocistate.XXXXXX");
	return mkdtemp(bundle) ? 0 : -1;
}

static int teardown(void **unused)
{
	_cleanup_free_ char *config = xasprintf("%s/config.json", bundle);
	if (unlink(config) < 0 && errno == EISDIR)
		rmdir(config);
	return rmdir(bundle);
}

static void write_config(const char *text)
{
	_cleanup_free_ char *path = xasprintf("%s/config.json", bundle);
	assert_int_equal(file_write_atomic(path, text, strlen(text), 0644, false), 0);
}

static struct oci_state *parse_ok(const char *text, bool need_config)
{
	struct oci_state *s = NULL;
	char *err = NULL;
	int r = oci_state_parse(text, strlen(text), need_config, &s, &err);
	if (r < 0)
		fail_msg("oci_state_parse failed: %s", err);
	assert_non_null(s);
	return s;
}

/* Parse must fail, with a message containing `want`, leaving *out alone. */
static void parse_err_len(const char *text, size_t len, bool need_config, const char *want)
{
	struct oci_state *s = (struct oci_state *)0x1;
	_cleanup_free_ char *err = NULL;
	int r = oci_state_parse(text, len, need_config, &s, &err);
	assert_int_equal(r, -1);
	assert_ptr_equal(s, (struct oci_state *)0x1);
	assert_non_null(err);
	if (strstr(err, want) == NULL)
		fail_msg("error \"%s\" does not contain \"%s\"", err, want);
}

static void parse_err(const char *text, bool need_config, const char *want)
{
	parse_err_len(text, strlen(text), need_config, want);
}

static const char *annotation(const struct oci_state *s, const char *key)
{
	return kvlist_get(&s->annotations, key);
}

/* ------------------------------------------------ what runtimes really pass */

/* runc at createRuntime: status "creating", the pid of the container's init,
 * the annotations of config.json copied into the state. */
static void test_runc_create_runtime(void **unused)
{
	write_config("{\"ociVersion\":\"1.0.2-dev\",\"process\":{\"args\":[\"sh\"]},"
		     "\"annotations\":{\"io.cnihook.networks\":\"from-config\"},"
		     "\"linux\":{\"namespaces\":[{\"type\":\"pid\"},{\"type\":\"network\"},"
		     "{\"type\":\"ipc\"},{\"type\":\"uts\"},{\"type\":\"mount\"}]}}");
	_cleanup_free_ char *text = xasprintf(
	    "{\"ociVersion\":\"1.0.2-dev\",\"id\":\"x\",\"status\":\"creating\",\"pid\":1234,"
	    "\"bundle\":\"%s\",\"annotations\":{\"io.cnihook.networks\":\"net1,net2\","
	    "\"io.cnihook.ports\":\"8080:80/tcp\"}}",
	    bundle);
	struct oci_state *s = parse_ok(text, true);
	assert_string_equal(s->oci_version, "1.0.2-dev");
	assert_string_equal(s->id, "x");
	assert_string_equal(s->status, "creating");
	assert_int_equal(s->pid, 1234);
	assert_string_equal(s->bundle, bundle);
	/* The state's annotations win over config.json's. */
	assert_int_equal(s->annotations.n, 2);
	assert_string_equal(s->annotations.v[0].key, "io.cnihook.networks");
	assert_string_equal(s->annotations.v[0].value, "net1,net2");
	assert_string_equal(s->annotations.v[1].key, "io.cnihook.ports");
	assert_string_equal(s->annotations.v[1].value, "8080:80/tcp");
	assert_true(s->has_config);
	assert_true(s->netns_in_config);
	assert_null(s->netns_path);
	oci_state_free(s);
}

/* runc at poststop: no "pid" (omitempty of a zero pid). runtime-spec
 * "State": pid is "REQUIRED when status is created or running". */
static void test_runc_poststop_without_pid(void **unused)
{
	write_config("{\"ociVersion\":\"1.0.2-dev\",\"linux\":{\"namespaces\":[{\"type\":"
		     "\"network\"}]}}");
	_cleanup_free_ char *text =
	    xasprintf("{\"ociVersion\":\"1.0.2-dev\",\"id\":\"x\",\"status\":\"stopped\","
		      "\"bundle\":\"%s\",\"annotations\":{\"io.cnihook.networks\":\"net1\"}}",
		      bundle);
	struct oci_state *s = parse_ok(text, false);
	assert_string_equal(s->status, "stopped");
	assert_int_equal(s->pid, 0);
	assert_true(s->has_config);
	assert_string_equal(annotation(s, "io.cnihook.networks"), "net1");
	oci_state_free(s);
}

/* crun at poststop: "ociVersion":"1.0", "pid":0. */
static void test_crun_poststop_pid_zero(void **unused)
{
	write_config("{\"ociVersion\":\"1.0.0\",\"linux\":{\"namespaces\":[{\"type\":"
		     "\"network\"}]}}");
	_cleanup_free_ char *text = xasprintf("{\"ociVersion\":\"1.0\",\"id\":\"crun-ctr\","
					      "\"pid\":0,\"status\":\"stopped\",\"bundle\":\"%s\"}",
					      bundle);
	struct oci_state *s = parse_ok(text, false);
	assert_string_equal(s->oci_version, "1.0");
	assert_string_equal(s->id, "crun-ctr");
	assert_string_equal(s->status, "stopped");
	assert_int_equal(s->pid, 0);
	assert_int_equal(s->annotations.n, 0);
	oci_state_free(s);
}

/* podman runs poststop itself after the container is gone: no pid, and the
 * bundle directory may be gone too. */
static void test_podman_poststop_bundle_gone(void **unused)
{
	const char *text =
	    "{\"ociVersion\":\"1.2.0\",\"id\":"
	    "\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\","
	    "\"status\":\"stopped\",\"bundle\":\"/nonexistent/overlay-containers/"
	    "0123456789abcdef/userdata\",\"annotations\":{\"io.cnihook.networks\":\"n\","
	    "\"io.container.manager\":\"libpod\"}}";
	struct oci_state *s = parse_ok(text, false);
	assert_int_equal(s->pid, 0);
	assert_false(s->has_config);
	assert_false(s->netns_in_config);
	assert_int_equal(s->annotations.n, 2);
	assert_string_equal(annotation(s, "io.container.manager"), "libpod");
	oci_state_free(s);
}

/* A runtime-defined status. runtime-spec "State": "Additional values MAY be
 * defined by the runtime". */
static void test_status_runtime_defined(void **unused)
{
	struct oci_state *s = parse_ok(
	    "{\"ociVersion\":\"1.0.2\",\"id\":\"x\",\"status\":\"paused\",\"pid\":7}", false);
	assert_string_equal(s->status, "paused");
	assert_null(s->bundle);
	assert_false(s->has_config);
	oci_state_free(s);
}

/* Unknown members of the state are for future versions: ignored. */
static void test_unknown_fields_ignored(void **unused)
{
	struct oci_state *s = parse_ok("{\"ociVersion\":\"1.3.0\",\"id\":\"x\",\"status\":"
				       "\"created\",\"pid\":1,\"future\":{\"a\":[1,2]}}",
				       false);
	assert_string_equal(s->status, "created");
	oci_state_free(s);
}

/* ------------------------------------------------------------ annotations */

static void test_annotations_from_config(void **unused)
{
	write_config("{\"ociVersion\":\"1.0.2\",\"annotations\":{\"io.cnihook.networks\":"
		     "\"cfgnet\",\"k8s.v1.cni.cncf.io/networks\":\"[]\"},\"linux\":{}}");
	/* No annotations in the state. */
	_cleanup_free_ char *text = xasprintf("{\"ociVersion\":\"1.0.2\",\"id\":\"x\",\"status\":"
					      "\"creating\",\"pid\":5,\"bundle\":\"%s\"}",
					      bundle);
	struct oci_state *s = parse_ok(text, true);
	assert_int_equal(s->annotations.n, 2);
	assert_string_equal(annotation(s, "io.cnihook.networks"), "cfgnet");
	assert_string_equal(annotation(s, "k8s.v1.cni.cncf.io/networks"), "[]");
	/* linux without namespaces: no network entry, the host's namespace. */
	assert_true(s->has_config);
	assert_false(s->netns_in_config);
	oci_state_free(s);
}

static void test_annotations_empty_in_state(void **unused)
{
	write_config("{\"annotations\":{\"a\":\"from-config\"}}");
	_cleanup_free_ char *text =
	    xasprintf("{\"ociVersion\":\"1.0.2\",\"id\":\"x\",\"status\":\"creating\","
		      "\"pid\":5,\"bundle\":\"%s\",\"annotations\":{}}",
		      bundle);
	struct oci_state *s = parse_ok(text, true);
	assert_int_equal(s->annotations.n, 1);
	assert_string_equal(annotation(s, "a"), "from-config");
	oci_state_free(s);
}

static void test_annotations_null_in_state(void **unused)
{
	write_config("{\"annotations\":{\"a\":\"from-config\"}}");
	_cleanup_free_ char *text =
	    xasprintf("{\"ociVersion\":\"1.0.2\",\"id\":\"x\",\"status\":\"creating\","
		      "\"pid\":5,\"bundle\":\"%s/\",\"annotations\":null}",
		      bundle);
	struct oci_state *s = parse_ok(text, true);
	assert_string_equal(annotation(s, "a"), "from-config");
	oci_state_free(s);
}

/* ------------------------------------------------------ network namespace */

static void test_netns_path_from_config(void **unused)
{
	write_config("{\"linux\":{\"namespaces\":[{\"type\":\"mount\"},{\"type\":\"network\","
		     "\"path\":\"/var/run/netns/shared\"}]}}");
	_cleanup_free_ char *text =
	    xasprintf("{\"ociVersion\":\"1.0\",\"id\":\"x\",\"status\":\"creating\",\"pid\":9,"
		      "\"bundle\":\"%s\"}",
		      bundle);
	struct oci_state *s = parse_ok(text, true);
	assert_true(s->netns_in_config);
	assert_string_equal(s->netns_path, "/var/run/netns/shared");
	oci_state_free(s);
}

/* config.json's hostname (the name the dnsname plugin answers for, unless
 * io.cnihook.name gives one); empty or absent: none. */
static void test_hostname_from_config(void **unused)
{
	_cleanup_free_ char *text =
	    xasprintf("{\"ociVersion\":\"1.0\",\"id\":\"x\",\"status\":\"creating\",\"pid\":9,"
		      "\"bundle\":\"%s\"}",
		      bundle);
	write_config("{\"hostname\":\"web-1\"}");
	struct oci_state *s = parse_ok(text, true);
	assert_string_equal(s->hostname, "web-1");
	oci_state_free(s);
	write_config("{\"hostname\":\"\"}");
	s = parse_ok(text, true);
	assert_null(s->hostname);
	oci_state_free(s);
	write_config("{}");
	s = parse_ok(text, true);
	assert_null(s->hostname);
	oci_state_free(s);
}

/* An empty path is treated as no path (runc and crun create a new namespace). */
static void test_netns_empty_path(void **unused)
{
	write_config("{\"linux\":{\"namespaces\":[{\"type\":\"network\",\"path\":\"\"}]}}");
	_cleanup_free_ char *text =
	    xasprintf("{\"ociVersion\":\"1.0\",\"id\":\"x\",\"status\":\"creating\",\"pid\":9,"
		      "\"bundle\":\"%s\"}",
		      bundle);
	struct oci_state *s = parse_ok(text, true);
	assert_true(s->netns_in_config);
	assert_null(s->netns_path);
	oci_state_free(s);
}

static void test_no_network_namespace(void **unused)
{
	write_config("{\"linux\":{\"namespaces\":[{\"type\":\"pid\"},{\"type\":\"mount\"}]}}");
	_cleanup_free_ char *text =
	    xasprintf("{\"ociVersion\":\"1.0\",\"id\":\"x\",\"status\":\"creating\",\"pid\":9,"
		      "\"bundle\":\"%s\"}",
		      bundle);
	struct oci_state *s = parse_ok(text, true);
	assert_true(s->has_config);
	assert_false(s->netns_in_config);
	assert_null(s->netns_path);
	oci_state_free(s);
}

/* ------------------------------------------------------- config.json errors */

static void test_config_missing(void **unused)
{
	_cleanup_free_ char *text =
	    xasprintf("{\"ociVersion\":\"1.0\",\"id\":\"x\",\"status\":\"creating\",\"pid\":9,"
		      "\"bundle\":\"%s\"}",
		      bundle);
	_cleanup_free_ char *want = xasprintf("%s/config.json: No such file or directory", bundle);
	/* At attach time the namespace must be known. */
	parse_err(text, true, want);
	/* At poststop it need not. */
	struct oci_state *s = parse_ok(text, false);
	assert_false(s->has_config);
	assert_false(s->netns_in_config);
	oci_state_free(s);
}

static void test_bundle_missing(void **unused)
{
	const char *text = "{\"ociVersion\":\"1.0\",\"id\":\"x\",\"status\":\"creating\","
			   "\"pid\":9}";
	parse_err(text, true, "OCI state: field \"bundle\": missing");
	struct oci_state *s = parse_ok(text, false);
	assert_null(s->bundle);
	assert_false(s->has_config);
	oci_state_free(s);
}

static void test_config_not_regular(void **unused)
{
	_cleanup_free_ char *dir = xasprintf("%s/config.json", bundle);
	assert_int_equal(mkdir(dir, 0755), 0);
	_cleanup_free_ char *text = xasprintf("{\"ociVersion\":\"1.0\",\"id\":\"x\",\"status\":"
					      "\"stopped\",\"bundle\":\"%s\"}",
					      bundle);
	_cleanup_free_ char *want = xasprintf("%s: not a regular file", dir);
	parse_err(text, false, want);
}

static void test_config_too_big(void **unused)
{
	size_t n = 16 * 1024 * 1024 + 1;
	char *big = xmalloc(n + 1);
	memset(big, ' ', n);
	big[0] = '{';
	big[n - 1] = '}';
	big[n] = '\0';
	write_config(big);
	free(big);
	_cleanup_free_ char *text = xasprintf("{\"ociVersion\":\"1.0\",\"id\":\"x\",\"status\":"
					      "\"creating\",\"pid\":3,\"bundle\":\"%s\"}",
					      bundle);
	parse_err(text, true, "config.json: larger than 16 MiB");
}

static void test_config_errors(void **unused)
{
	static const struct {
		const char *config;
		const char *want;
	} cases[] = {
	    {"", "config.json: empty"},
	    {"{", "config.json: invalid JSON"},
	    {"[]", "config.json: must be a JSON object, not an array"},
	    {"{\"annotations\":[]}",
	     "config.json: field \"annotations\": must be an object, not an array"},
	    {"{\"annotations\":{\"io.cnihook.ports\":80}}",
	     "config.json: annotation \"io.cnihook.ports\": must be a string, not a number"},
	    {"{\"linux\":[]}", "config.json: field \"linux\": must be an object, not an array"},
	    {"{\"hostname\":5}", "config.json: field \"hostname\": must be a string, not a number"},
	    {"{\"linux\":{\"namespaces\":{}}}",
	     "config.json: field \"linux.namespaces\": must be an array, not an object"},
	    {"{\"linux\":{\"namespaces\":[\"network\"]}}",
	     "config.json: field \"linux.namespaces[0]\": must be an object, not a string"},
	    {"{\"linux\":{\"namespaces\":[{\"type\":\"pid\"},{}]}}",
	     "config.json: field \"linux.namespaces[1].type\": must be a string, not nothing"},
	    {"{\"linux\":{\"namespaces\":[{\"type\":\"network\",\"path\":5}]}}",
	     "config.json: field \"linux.namespaces[0].path\": must be a string, not a number"},
	    {"{\"linux\":{\"namespaces\":[{\"type\":\"network\",\"path\":\"run/netns/x\"}]}}",
	     "config.json: field \"linux.namespaces[0].path\": \"run/netns/x\" is not an "
	     "absolute path"},
	    {"{\"linux\":{\"namespaces\":[{\"type\":\"network\"},{\"type\":\"network\"}]}}",
	     "config.json: field \"linux.namespaces\": more than one \"network\" entry"},
	    {"{\"a\":\"x\\u0000y\"}",
	     "config.json: invalid JSON near byte 7: a string contains an escaped NUL"},
	    {"{\"a\":1,\"a\":2}", "config.json: invalid JSON near byte 7: duplicate key \"a\""},
	    /* JSON has no comments; only cnihook.json(5) allows them. */
	    {"{/*c*/}", "config.json: invalid JSON near byte 1"},
	};
	_cleanup_free_ char *text = xasprintf("{\"ociVersion\":\"1.0\",\"id\":\"x\",\"status\":"
					      "\"creating\",\"pid\":3,\"bundle\":\"%s\"}",
					      bundle);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		write_config(cases[i].config);
		/* A config.json that exists but is broken is an error at
		 * attach and at detach alike. */
		parse_err(text, true, cases[i].want);
		parse_err(text, false, cases[i].want);
	}
}

/* --------------------------------------------------------- OCI state errors */

static void test_state_errors(void **unused)
{
	static const struct {
		const char *state;
		const char *want;
	} cases[] = {
	    {"", "OCI state: empty"},
	    {"   ", "OCI state: invalid JSON"},
	    {"{\"id\":", "OCI state: invalid JSON"},
	    {"[]", "OCI state: must be a JSON object, not an array"},
	    {"\"x\"", "OCI state: must be a JSON object, not a string"},
	    /* runtime-spec "State": ociVersion (string, REQUIRED) */
	    {"{\"id\":\"x\",\"status\":\"creating\"}", "OCI state: field \"ociVersion\": missing"},
	    {"{\"ociVersion\":1,\"id\":\"x\",\"status\":\"creating\"}",
	     "OCI state: field \"ociVersion\": must be a string, not a number"},
	    {"{\"ociVersion\":\"\",\"id\":\"x\",\"status\":\"creating\"}",
	     "OCI state: field \"ociVersion\": must not be empty"},
	    {"{\"ociVersion\":null,\"id\":\"x\",\"status\":\"creating\"}",
	     "OCI state: field \"ociVersion\": must be a string, not null"},
	    /* id (string, REQUIRED) */
	    {"{\"ociVersion\":\"1.0\",\"status\":\"creating\"}",
	     "OCI state: field \"id\": missing"},
	    {"{\"ociVersion\":\"1.0\",\"id\":[],\"status\":\"creating\"}",
	     "OCI state: field \"id\": must be a string, not an array"},
	    {"{\"ociVersion\":\"1.0\",\"id\":\"\",\"status\":\"creating\"}",
	     "OCI state: field \"id\": must not be empty"},
	    {"{\"ociVersion\":\"1.0\",\"id\":\"a b\",\"status\":\"creating\"}",
	     "OCI state: container id \"a b\""},
	    /* status (string, REQUIRED) */
	    {"{\"ociVersion\":\"1.0\",\"id\":\"x\"}", "OCI state: field \"status\": missing"},
	    {"{\"ociVersion\":\"1.0\",\"id\":\"x\",\"status\":true}",
	     "OCI state: field \"status\": must be a string, not a boolean"},
	    {"{\"ociVersion\":\"1.0\",\"id\":\"x\",\"status\":\"\"}",
	     "OCI state: field \"status\": must not be empty"},
	    {"{\"ociVersion\":\"1.0\",\"id\":\"x\",\"status\":\"run\\nning\"}",
	     "OCI state: field \"status\": \"run\\x0aning\" must be printable ASCII"},
	    /* pid (int) */
	    {"{\"ociVersion\":\"1.0\",\"id\":\"x\",\"status\":\"created\",\"pid\":-1}",
	     "OCI state: field \"pid\": must be a non-negative integer, not -1"},
	    {"{\"ociVersion\":\"1.0\",\"id\":\"x\",\"status\":\"created\",\"pid\":1.5}",
	     "OCI state: field \"pid\": must be a non-negative integer, not 1.5"},
	    {"{\"ociVersion\":\"1.0\",\"id\":\"x\",\"status\":\"created\",\"pid\":1e3}",
	     "OCI state: field \"pid\": must be a non-negative integer, not 1e3"},
	    {"{\"ociVersion\":\"1.0\",\"id\":\"x\",\"status\":\"created\",\"pid\":\"12\"}",
	     "OCI state: field \"pid\": must be a non-negative integer, not a string"},
	    {"{\"ociVersion\":\"1.0\",\"id\":\"x\",\"status\":\"created\",\"pid\":2147483648}",
	     "OCI state: field \"pid\": must be a non-negative integer, not 2147483648"},
	    {"{\"ociVersion\":\"1.0\",\"id\":\"x\",\"status\":\"created\",\"pid\":"
	     "123456789012345678901234567890123456789}",
	     "must be a non-negative integer, not 12345678901234567890123456789012..."},
	    /* bundle (string): "the absolute path to the container's bundle
	     * directory" */
	    {"{\"ociVersion\":\"1.0\",\"id\":\"x\",\"status\":\"created\",\"bundle\":\"b\"}",
	     "OCI state: field \"bundle\": \"b\" is not an absolute path"},
	    {"{\"ociVersion\":\"1.0\",\"id\":\"x\",\"status\":\"created\",\"bundle\":\"\"}",
	     "OCI state: field \"bundle\": \"\" is not an absolute path"},
	    {"{\"ociVersion\":\"1.0\",\"id\":\"x\",\"status\":\"created\",\"bundle\":{}}",
	     "OCI state: field \"bundle\": must be a string, not an object"},
	    /* annotations (map) */
	    {"{\"ociVersion\":\"1.0\",\"id\":\"x\",\"status\":\"created\",\"annotations\":[]}",
	     "OCI state: field \"annotations\": must be an object, not an array"},
	    {"{\"ociVersion\":\"1.0\",\"id\":\"x\",\"status\":\"created\",\"annotations\":"
	     "{\"ok\":\"v\",\"io.cnihook.mac\":null}}",
	     "OCI state: annotation \"io.cnihook.mac\": must be a string, not null"},
	    {"{\"ociVersion\":\"1.0\",\"id\":\"x\",\"status\":\"created\",\"annotations\":"
	     "{\"n\":{\"a\":1}}}",
	     "OCI state: annotation \"n\": must be a string, not an object"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		parse_err(cases[i].state, false, cases[i].want);
}

/* ---------------------------------------------------------- hostile input */

static void test_hostile_too_big(void **unused)
{
	/* 10 MB: refused by size before it is parsed. */
	size_t n = 10 * 1000 * 1000;
	char *big = xmalloc(n);
	memset(big, ' ', n);
	const char *head = "{\"ociVersion\":\"1.0\",\"id\":\"x\",\"status\":\"created\"";
	memcpy(big, head, strlen(head));
	big[n - 1] = '}';
	parse_err_len(big, n, false, "OCI state: larger than 1 MiB");
	free(big);
	/* Just over the limit too. */
	n = 1024 * 1024 + 1;
	big = xmalloc(n);
	memset(big, ' ', n);
	big[0] = '{';
	big[n - 1] = '}';
	parse_err_len(big, n, false, "OCI state: larger than 1 MiB");
	free(big);
}

static void test_hostile_invalid_utf8(void **unused)
{
	parse_err("{\"ociVersion\":\"1.0\",\"id\":\"x\",\"status\":\"created\",\"annotations\":"
		  "{\"a\":\"\xff\xfe\"}}",
		  false, "OCI state: invalid JSON");
	parse_err("{\"ociVersion\":\"1.0\",\"id\":\"\xc3\",\"status\":\"created\"}", false,
		  "OCI state: invalid JSON");
}

static void test_hostile_nul(void **unused)
{
	static const char text[] =
	    "{\"ociVersion\":\"1.0\",\"id\":\"x\0y\",\"status\":\"created\"}";
	parse_err_len(text, sizeof(text) - 1, false,
		      "OCI state: invalid JSON near byte 27: contains a NUL byte");
	/* An escaped NUL would cut the id short to "x" in the parsed tree. */
	parse_err("{\"ociVersion\":\"1.0\",\"id\":\"x\\u0000/../y\",\"status\":\"created\"}", false,
		  "OCI state: invalid JSON near byte 27: a string contains an escaped NUL "
		  "(\\u0000)");
	parse_err("{\"ociVersion\":\"1.0\",\"id\":\"x\",\"status\":\"created\",\"annotations\":"
		  "{\"io.cnihook.networks\":\"a\\u0000b\"}}",
		  false, "escaped NUL");
	/* An escaped backslash followed by "u0000" is no NUL. */
	struct oci_state *s =
	    parse_ok("{\"ociVersion\":\"1.0\",\"id\":\"x\",\"status\":\"created\",\"annotations\":"
		     "{\"a\":\"\\\\u0000\"}}",
		     false);
	assert_string_equal(annotation(s, "a"), "\\u0000");
	oci_state_free(s);
}

static void test_hostile_duplicate_keys(void **unused)
{
	/* Which "id" would win is up to the parser: refuse both. */
	parse_err("{\"ociVersion\":\"1.0\",\"id\":\"x\",\"id\":\"y\",\"status\":\"created\"}",
		  false, "OCI state: invalid JSON near byte 29: duplicate key \"id\"");
	parse_err("{\"ociVersion\":\"1.0\",\"id\":\"x\",\"status\":\"created\",\"annotations\":"
		  "{\"a\":\"1\",\"a\":\"2\"}}",
		  false, "duplicate key \"a\"");
}

/* The OCI state is JSON, which has no comments: only
 * cnihook.json(5) says it allows them. */
static void test_hostile_comments(void **unused)
{
	parse_err("{/*c*/\"ociVersion\":\"1.0\",\"id\":\"x\",\"status\":\"created\"}", false,
		  "OCI state: invalid JSON near byte 1");
	parse_err("{\"ociVersion\":\"1.0\",\"id\":\"x\",\"status\":\"created\"} // c", false,
		  "OCI state: invalid JSON near byte 49: trailing garbage");
}

static void test_hostile_deep_nesting(void **unused)
{
	size_t depth = 100000;
	size_t n = 64 + 2 * depth;
	char *buf = xmalloc(n);
	char *p = stpcpy(buf, "{\"ociVersion\":\"1.0\",\"id\":\"x\",\"status\":\"c\",\"x\":");
	memset(p, '[', depth);
	p += depth;
	memset(p, ']', depth);
	p += depth;
	*p++ = '}';
	*p = '\0';
	parse_err(buf, false, "OCI state: nested deeper than 64 levels");
	free(buf);
}

static void test_hostile_id_path(void **unused)
{
	/* The id names files under the state and cache directories. */
	parse_err("{\"ociVersion\":\"1.0\",\"id\":\"../../etc\",\"status\":\"creating\",\"pid\":1}",
		  false, "OCI state: container id \"../../etc\"");
	parse_err("{\"ociVersion\":\"1.0\",\"id\":\"..\",\"status\":\"creating\",\"pid\":1}", false,
		  "OCI state: container id \"..\"");
	parse_err("{\"ociVersion\":\"1.0\",\"id\":\"a/b\",\"status\":\"creating\",\"pid\":1}",
		  false, "OCI state: container id \"a/b\"");
}

/* A hostile annotation key reaches the message escaped and cut short. */
static void test_hostile_key_in_message(void **unused)
{
	char key[300];
	memset(key, 'k', sizeof(key) - 1);
	key[sizeof(key) - 1] = '\0';
	memcpy(key, "\\u001b[31m", 10);
	_cleanup_free_ char *text =
	    xasprintf("{\"ociVersion\":\"1.0\",\"id\":\"x\",\"status\":\"created\","
		      "\"annotations\":{\"%s\":1}}",
		      key);
	struct oci_state *s = (struct oci_state *)0x1;
	_cleanup_free_ char *err = NULL;
	assert_int_equal(oci_state_parse(text, strlen(text), false, &s, &err), -1);
	assert_non_null(strstr(err, "OCI state: annotation \"\\x1b[31mkkk"));
	assert_non_null(strstr(err, "kkk...\": must be a string, not a number"));
	assert_null(strchr(err, '\x1b'));
	assert_true(strlen(err) < 200);
}

/* Engine scopes: the containerd namespace in a bundle's path makes the scope. */
static void test_identity_containerd(void **unused)
{
	struct oci_state *s =
	    parse_ok("{\"ociVersion\":\"1.0.2\",\"id\":\"web\",\"status\":\"stopped\","
		     "\"bundle\":\"/run/containerd/io.containerd.runtime.v2.task/a/web/\"}",
		     false);
	assert_string_equal(s->scope, "a");
	assert_string_equal(s->key, "a-web");
	assert_string_equal(s->name, "a/web");
	oci_state_free(s);
	s = parse_ok("{\"ociVersion\":\"1.0.2\",\"id\":\"web\",\"status\":\"stopped\","
		     "\"bundle\":\"/run/runc-bundles/a/web\"}",
		     false);
	assert_null(s->scope);
	assert_string_equal(s->key, "web");
	assert_string_equal(s->name, "web");
	oci_state_free(s);
	s = parse_ok("{\"ociVersion\":\"1.0.2\",\"id\":\"web\",\"status\":\"stopped\"}", false);
	assert_null(s->scope);
	assert_string_equal(s->key, "web");
	oci_state_free(s);
}

static void test_identity_paths(void **unused)
{
	static const struct {
		const char *bundle, *id, *ns;
	} cases[] = {
	    {"/s/io.containerd.runtime.v2.task/k8s.io/abc", "abc", "k8s.io"},
	    {"/s/io.containerd.runtime.v1.linux/default/abc", "abc", "default"},
	    {"/s/io.containerd.runtime.v2.task/a/abc//", "abc", "a"},
	    {"/s/io.containerd.runtime.v2.task/a/other", "abc", NULL},
	    {"/s/io.containerd.runtime.v2.task//abc", "abc", NULL},
	    {"/s/io.containerd.content.v1/a/abc", "abc", NULL},
	    {"/a/abc", "abc", NULL},
	    {"abc", "abc", NULL},
	    {"/", "abc", NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		_cleanup_free_ char *ns =
		    oci_state_containerd_namespace(cases[i].bundle, cases[i].id);
		if (cases[i].ns == NULL && ns != NULL)
			fail_msg("%s: namespace \"%s\", want none", cases[i].bundle, ns);
		if (cases[i].ns && (ns == NULL || strcmp(ns, cases[i].ns) != 0))
			fail_msg("%s: namespace \"%s\", want \"%s\"", cases[i].bundle,
				 ns ? ns : "(none)", cases[i].ns);
	}
}

/* A namespace that cannot make a CNI container id is refused, naming the
 * field. */
static void test_identity_bad_namespace(void **unused)
{
	parse_err("{\"ociVersion\":\"1.0.2\",\"id\":\"web\",\"status\":\"stopped\","
		  "\"bundle\":\"/s/io.containerd.runtime.v2.task/a b/web\"}",
		  false, "field \"bundle\"");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_runc_create_runtime, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_runc_poststop_without_pid, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_crun_poststop_pid_zero, setup, teardown),
	    cmocka_unit_test(test_podman_poststop_bundle_gone),
	    cmocka_unit_test(test_status_runtime_defined),
	    cmocka_unit_test(test_unknown_fields_ignored),
	    cmocka_unit_test_setup_teardown(test_annotations_from_config, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_annotations_empty_in_state, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_annotations_null_in_state, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_netns_path_from_config, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_hostname_from_config, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_netns_empty_path, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_network_namespace, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_config_missing, setup, teardown),
	    cmocka_unit_test(test_bundle_missing),
	    cmocka_unit_test_setup_teardown(test_config_not_regular, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_config_too_big, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_config_errors, setup, teardown),
	    cmocka_unit_test(test_state_errors),
	    cmocka_unit_test(test_hostile_too_big),
	    cmocka_unit_test(test_hostile_invalid_utf8),
	    cmocka_unit_test(test_hostile_nul),
	    cmocka_unit_test(test_hostile_duplicate_keys),
	    cmocka_unit_test(test_hostile_comments),
	    cmocka_unit_test(test_hostile_deep_nesting),
	    cmocka_unit_test(test_hostile_id_path),
	    cmocka_unit_test(test_hostile_key_in_message),
	    cmocka_unit_test(test_identity_containerd),
	    cmocka_unit_test(test_identity_paths),
	    cmocka_unit_test(test_identity_bad_namespace),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
