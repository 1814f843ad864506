/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of lib/conf.c: spec section 1, "Network configuration format", and
 * the configuration directory. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

/* ------------------------------------------------------------- helpers */

static cnirt_netlist *parse_ok(const char *text)
{
	cnirt_netlist *l = NULL;
	cnirt_error *err = NULL;
	if (cnirt_netlist_parse(text, strlen(text), NULL, &l, &err) < 0)
		fail_msg("unexpected error: %s", cnirt_error_msg(err));
	assert_non_null(l);
	return l;
}

/* Parsing `text` (origin "ORIGIN") fails with `code` and exactly `msg`. */
static void expect_error(const char *text, int code, const char *msg)
{
	cnirt_netlist *l = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	int r = cnirt_netlist_parse(text, strlen(text), "ORIGIN", &l, &err);
	if (r == 0)
		fail_msg("accepted, expected error \"%s\"", msg);
	assert_null(l);
	assert_non_null(err);
	assert_string_equal(cnirt_error_msg(err), msg);
	assert_int_equal(cnirt_error_code(err), code);
}

/* A list with the given top-level members before `plugins`. */
#define LIST(members) "{" members ",\"plugins\":[{\"type\":\"bridge\"}]}"

static void assert_version(const char *text, const char *effective)
{
	cnirt_netlist *l = parse_ok(text);
	assert_string_equal(cnirt_netlist_version(l), effective);
	cnirt_netlist_free(l);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int tmpdir_setup(void **state)
{
	char *dir = xstrdup("/tmp/cnirt-test-conf-XXXXXX");
	if (mkdtemp(dir) == NULL) {
		free(dir);
		return -1;
	}
	*state = dir;
	return 0;
}

static int tmpdir_teardown(void **state)
{
	char *dir = *state;
	int r = nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	struct stat st;
	if (r == 0 && lstat(dir, &st) == 0)
		r = -1; /* something was left */
	free(dir);
	return r;
}

static char *write_file(const char *dir, const char *name, const char *content)
{
	char *path = xasprintf("%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	size_t n = strlen(content);
	assert_int_equal(write(fd, content, n), (ssize_t)n);
	assert_int_equal(close(fd), 0);
	return path;
}

/* The section 1 example (without its JSONC comments). */
static const char EXAMPLE_LIST[] =
    "{\"cniVersion\":\"1.0.0\",\"name\":\"dbnet\",\"plugins\":["
    "{\"type\":\"bridge\",\"bridge\":\"cni0\",\"ipam\":{\"type\":\"host-local\","
    "\"subnet\":\"10.1.0.0/16\"}},"
    "{\"type\":\"tuning\",\"capabilities\":{\"mac\":true},\"sysctl\":{\"net.core.somaxconn\":"
    "\"500\"}},"
    "{\"type\":\"portmap\",\"capabilities\":{\"portMappings\":true,\"other\":false}}]}";

/* --------------------------------------------------------------- lists */

/* Section 1, "Configuration format": a list with its plugins in order. */
static void test_list(void **state)
{
	(void)state;
	cnirt_netlist *l = NULL;
	cnirt_error *err = NULL;
	assert_int_equal(
	    cnirt_netlist_parse(EXAMPLE_LIST, strlen(EXAMPLE_LIST), "origin", &l, &err), 0);
	assert_string_equal(cnirt_netlist_name(l), "dbnet");
	assert_string_equal(cnirt_netlist_version(l), "1.0.0");
	assert_false(cnirt_netlist_disable_check(l));
	assert_false(cnirt_netlist_disable_gc(l));
	assert_int_equal(cnirt_netlist_plugin_count(l), 3);
	assert_string_equal(cnirt_netlist_plugin_type(l, 0), "bridge");
	assert_string_equal(cnirt_netlist_plugin_type(l, 1), "tuning");
	assert_string_equal(cnirt_netlist_plugin_type(l, 2), "portmap");
	assert_null(cnirt_netlist_plugin_type(l, 3));
	assert_string_equal(cnirt_netlist_path(l), "origin");

	/* Capabilities: per plugin, only those declared true. */
	assert_false(cnirt_netlist_plugin_has_capability(l, 0, "mac"));
	assert_true(cnirt_netlist_plugin_has_capability(l, 1, "mac"));
	assert_true(cnirt_netlist_plugin_has_capability(l, 2, "portMappings"));
	assert_false(cnirt_netlist_plugin_has_capability(l, 2, "other"));
	assert_false(cnirt_netlist_plugin_has_capability(l, 7, "mac"));
	assert_true(cnirt_netlist_has_capability(l, "portMappings"));
	assert_false(cnirt_netlist_has_capability(l, "other"));
	assert_false(cnirt_netlist_has_capability(l, "ips"));

	/* The bytes are kept as given (they go to the cache). */
	size_t len;
	const char *bytes = cnirt_netlist_bytes(l, &len);
	assert_int_equal(len, strlen(EXAMPLE_LIST));
	assert_memory_equal(bytes, EXAMPLE_LIST, len);

	/* Each plugin object is kept as written. */
	_cleanup_free_ char *p1 = json_gen(l->plugins[1].conf, false, NULL);
	assert_string_equal(p1, "{\"type\":\"tuning\",\"capabilities\":{\"mac\":true},\"sysctl\":"
				"{\"net.core.somaxconn\":\"500\"}}");
	cnirt_netlist_free(l);
}

/* A single plugin configuration is a list of one with the same name and
 * version (the reference's ConfListFromConf); the list-level flags keep
 * their defaults there, and the whole object is the plugin's. */
static void test_single_config(void **state)
{
	(void)state;
	const char *text = "{\"cniVersion\":\"0.3.1\",\"name\":\"single\",\"type\":\"bridge\","
			   "\"disableCheck\":true,\"ipam\":{\"type\":\"host-local\"}}";
	cnirt_netlist *l = parse_ok(text);
	assert_string_equal(cnirt_netlist_name(l), "single");
	assert_string_equal(cnirt_netlist_version(l), "0.3.1");
	assert_int_equal(cnirt_netlist_plugin_count(l), 1);
	assert_string_equal(cnirt_netlist_plugin_type(l, 0), "bridge");
	assert_false(cnirt_netlist_disable_check(l));
	assert_null(cnirt_netlist_path(l));
	_cleanup_free_ char *conf = json_gen(l->plugins[0].conf, false, NULL);
	assert_string_equal(conf, text);
	/* The cached bytes are the list that wraps the config, as the
	 * reference's ConfListFromConf writes it, with the config's own bytes. */
	size_t len;
	_cleanup_free_ char *wrapped =
	    xasprintf("{\"cniVersion\":\"0.3.1\",\"name\":\"single\",\"plugins\":[%s]}", text);
	assert_string_equal(cnirt_netlist_bytes(l, &len), wrapped);
	assert_int_equal(len, strlen(wrapped));
	cnirt_netlist *again = NULL;
	cnirt_error *err = NULL;
	assert_int_equal(cnirt_netlist_parse(wrapped, len, NULL, &again, &err), 0);
	assert_int_equal(cnirt_netlist_plugin_count(again), 1);
	cnirt_netlist_free(again);
	cnirt_netlist_free(l);

	expect_error("{\"cniVersion\":\"0.3.1\",\"name\":\"single\"}", CNIRT_ERR_INVALID_CONFIG,
		     "ORIGIN: field \"type\": missing");
	expect_error("{\"cniVersion\":\"0.3.1\",\"name\":\"single\",\"type\":\"a/b\"}",
		     CNIRT_ERR_INVALID_CONFIG, "ORIGIN: field \"type\": must not contain '/'");
}

/* Not JSON, or not an object. */
static void test_not_an_object(void **state)
{
	(void)state;
	cnirt_netlist *l = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	const char *bad = "{\"name\":";
	assert_int_equal(cnirt_netlist_parse(bad, strlen(bad), "/x/bad.conflist", &l, &err), -1);
	assert_int_equal(cnirt_error_code(err), CNIRT_ERR_DECODE);
	assert_true(strncmp(cnirt_error_msg(err), "/x/bad.conflist: ", 17) == 0);
	assert_null(l);

	expect_error("[1]", CNIRT_ERR_INVALID_CONFIG,
		     "ORIGIN: network configuration must be a JSON object, not an array");

	/* Without an origin, the message starts with the field. */
	_cleanup_error_ cnirt_error *err2 = NULL;
	const char *noname = LIST("\"cniVersion\":\"1.0.0\"");
	assert_int_equal(cnirt_netlist_parse(noname, strlen(noname), NULL, &l, &err2), -1);
	assert_string_equal(cnirt_error_msg(err2), "field \"name\": missing");
}

/* Section 1: `name` "Must start with an alphanumeric character, optionally
 * followed by any combination of one or more alphanumeric characters,
 * underscore, dot (.) or hyphen (-)." */
static void test_name(void **state)
{
	(void)state;
	cnirt_netlist *l = parse_ok(LIST("\"cniVersion\":\"1.0.0\",\"name\":\"0a.b_c-D\""));
	assert_string_equal(cnirt_netlist_name(l), "0a.b_c-D");
	cnirt_netlist_free(l);

	expect_error(LIST("\"cniVersion\":\"1.0.0\""), CNIRT_ERR_INVALID_CONFIG,
		     "ORIGIN: field \"name\": missing");
	expect_error(LIST("\"cniVersion\":\"1.0.0\",\"name\":7"), CNIRT_ERR_INVALID_CONFIG,
		     "ORIGIN: field \"name\": must be a string, not a number");
	expect_error(LIST("\"cniVersion\":\"1.0.0\",\"name\":\"\""), CNIRT_ERR_INVALID_CONFIG,
		     "ORIGIN: field \"name\": network name \"\": is empty");
	expect_error(LIST("\"cniVersion\":\"1.0.0\",\"name\":\"-net\""), CNIRT_ERR_INVALID_CONFIG,
		     "ORIGIN: field \"name\": network name \"-net\": must start with a letter or "
		     "a digit");
	expect_error(LIST("\"cniVersion\":\"1.0.0\",\"name\":\"a/../b\""), CNIRT_ERR_INVALID_CONFIG,
		     "ORIGIN: field \"name\": network name \"a/../b\": may only contain letters, "
		     "digits, '_', '.' and '-'");
	expect_error(LIST("\"cniVersion\":\"1.0.0\",\"name\":\"a b\""), CNIRT_ERR_INVALID_CONFIG,
		     "ORIGIN: field \"name\": network name \"a b\": may only contain letters, "
		     "digits, '_', '.' and '-'");
	expect_error(LIST("\"cniVersion\":\"1.0.0\",\"name\":\"a\\u0000b\""),
		     CNIRT_ERR_INVALID_CONFIG, "ORIGIN: field \"name\": contains a NUL byte");
}

/* Section 1, plugin `type`: "Must not contain characters disallowed in file
 * paths for the system (e.g. / or \\)". */
static void test_plugin_type(void **state)
{
	(void)state;
	expect_error("{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"plugins\":[{\"type\":\"ok\"},"
		     "{\"type\":\"../bin/x\"}]}",
		     CNIRT_ERR_INVALID_CONFIG,
		     "ORIGIN: field \"plugins[1].type\": must not contain '/'");
	expect_error("{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"plugins\":[{\"type\":\"\"}]}",
		     CNIRT_ERR_INVALID_CONFIG, "ORIGIN: field \"plugins[0].type\": is empty");
	expect_error("{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"plugins\":[{\"type\":\"..\"}]}",
		     CNIRT_ERR_INVALID_CONFIG,
		     "ORIGIN: field \"plugins[0].type\": must not be \".\" or \"..\"");
	expect_error("{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"plugins\":[{\"bridge\":\"x\"}]}",
		     CNIRT_ERR_INVALID_CONFIG, "ORIGIN: field \"plugins[0].type\": missing");
	expect_error("{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"plugins\":[{\"type\":[]}]}",
		     CNIRT_ERR_INVALID_CONFIG,
		     "ORIGIN: field \"plugins[0].type\": must be a string, not an array");
}

/* Section 1: `plugins` (list) of plugin configuration objects. */
static void test_plugins(void **state)
{
	(void)state;
	expect_error("{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"plugins\":[]}",
		     CNIRT_ERR_INVALID_CONFIG,
		     "ORIGIN: field \"plugins\": must hold at least one plugin");
	expect_error("{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"plugins\":{\"type\":\"x\"}}",
		     CNIRT_ERR_INVALID_CONFIG,
		     "ORIGIN: field \"plugins\": must be an array, not an object");
	expect_error("{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"plugins\":[{\"type\":\"x\"},3]}",
		     CNIRT_ERR_INVALID_CONFIG,
		     "ORIGIN: field \"plugins[1]\": must be an object, not a number");
}

/* Section 1, `cniVersion`: "Semantic Version 2.0 of CNI specification to
 * which this configuration list and all the individual configurations
 * conform." */
static void test_cni_version(void **state)
{
	(void)state;
	const char *const *v = cnirt_supported_versions();
	for (size_t i = 0; v[i]; i++) {
		_cleanup_free_ char *text =
		    xasprintf(LIST("\"cniVersion\":\"%s\",\"name\":\"n\""), v[i]);
		assert_version(text, v[i]);
	}
	expect_error(LIST("\"name\":\"n\""), CNIRT_ERR_INVALID_CONFIG,
		     "ORIGIN: field \"cniVersion\": missing");
	expect_error(LIST("\"cniVersion\":\"1.x\",\"name\":\"n\""), CNIRT_ERR_INVALID_CONFIG,
		     "ORIGIN: field \"cniVersion\": \"1.x\" is not a version (expected X.Y.Z)");
	expect_error(LIST("\"cniVersion\":\"1.0\",\"name\":\"n\""), CNIRT_ERR_INVALID_CONFIG,
		     "ORIGIN: field \"cniVersion\": \"1.0\" is not a version (expected X.Y.Z)");
	expect_error(LIST("\"cniVersion\":1.0,\"name\":\"n\""), CNIRT_ERR_INVALID_CONFIG,
		     "ORIGIN: field \"cniVersion\": must be a string, not a number");
}

/* A well-formed version this library does not implement. */
static void test_cni_version_unsupported(void **state)
{
	(void)state;
	expect_error(LIST("\"cniVersion\":\"2.0.0\",\"name\":\"n\""),
		     CNIRT_ERR_INCOMPATIBLE_VERSION,
		     "ORIGIN: field \"cniVersion\": version \"2.0.0\" is not supported (supported: "
		     "0.1.0, 0.2.0, 0.3.0, 0.3.1, 0.4.0, 1.0.0, 1.1.0)");
	expect_error(LIST("\"cniVersion\":\"0.3.2\",\"name\":\"n\""),
		     CNIRT_ERR_INCOMPATIBLE_VERSION,
		     "ORIGIN: field \"cniVersion\": version \"0.3.2\" is not supported (supported: "
		     "0.1.0, 0.2.0, 0.3.0, 0.3.1, 0.4.0, 1.0.0, 1.1.0)");
}

/* Spec 1.1.0 `cniVersions`: the highest version the runtime supports. Like
 * the reference library, `cniVersion` is a candidate too. */
static void test_cni_versions(void **state)
{
	(void)state;
	assert_version(LIST("\"cniVersions\":[\"0.3.1\",\"1.0.0\",\"9.0.0\",\"0.4.0\"],"
			    "\"name\":\"n\""),
		       "1.0.0");
	/* An unsupported cniVersion is fine when cniVersions offers one. */
	cnirt_netlist *l = parse_ok(LIST("\"cniVersion\":\"7.0.0\",\"cniVersions\":[\"0.4.0\"],"
					 "\"name\":\"n\""));
	assert_string_equal(cnirt_netlist_version(l), "0.4.0");
	assert_string_equal(l->cni_version, "7.0.0");
	cnirt_netlist_free(l);
	assert_version(LIST("\"cniVersion\":\"1.1.0\",\"cniVersions\":[\"1.0.0\"],\"name\":\"n\""),
		       "1.1.0");
	assert_version(LIST("\"cniVersion\":\"0.4.0\",\"cniVersions\":[\"1.1.0\",\"1.0.0\"],"
			    "\"name\":\"n\""),
		       "1.1.0");
	assert_version(LIST("\"cniVersion\":\"1.0.0\",\"cniVersions\":[],\"name\":\"n\""), "1.0.0");
}

static void test_cni_versions_none_supported(void **state)
{
	(void)state;
	expect_error(LIST("\"cniVersions\":[\"2.0.0\",\"0.3.2\"],\"name\":\"n\""),
		     CNIRT_ERR_INCOMPATIBLE_VERSION,
		     "ORIGIN: field \"cniVersions\": none of [\"2.0.0\", \"0.3.2\"] is supported "
		     "(supported: 0.1.0, 0.2.0, 0.3.0, 0.3.1, 0.4.0, 1.0.0, 1.1.0)");
	expect_error(
	    LIST("\"cniVersion\":\"3.0.0\",\"cniVersions\":[\"2.0.0\"],\"name\":\"n\""),
	    CNIRT_ERR_INCOMPATIBLE_VERSION,
	    "ORIGIN: field \"cniVersions\": none of [\"2.0.0\", \"3.0.0\" (cniVersion)] is "
	    "supported (supported: 0.1.0, 0.2.0, 0.3.0, 0.3.1, 0.4.0, 1.0.0, 1.1.0)");
	expect_error(LIST("\"cniVersions\":[],\"name\":\"n\""), CNIRT_ERR_INCOMPATIBLE_VERSION,
		     "ORIGIN: field \"cniVersions\": none of [] is supported (supported: 0.1.0, "
		     "0.2.0, 0.3.0, 0.3.1, 0.4.0, 1.0.0, 1.1.0)");
	expect_error(LIST("\"cniVersions\":[\"1.0.0\",\"x\"],\"name\":\"n\""),
		     CNIRT_ERR_INVALID_CONFIG,
		     "ORIGIN: field \"cniVersions[1]\": \"x\" is not a version (expected X.Y.Z)");
	expect_error(LIST("\"cniVersions\":[\"1.0.0\",false],\"name\":\"n\""),
		     CNIRT_ERR_INVALID_CONFIG,
		     "ORIGIN: field \"cniVersions[1]\": must be a string");
	expect_error(LIST("\"cniVersions\":\"1.0.0\",\"name\":\"n\""), CNIRT_ERR_INVALID_CONFIG,
		     "ORIGIN: field \"cniVersions\": must be an array of version strings, not a "
		     "string");
}

static void assert_flags(const char *members, bool check, bool gc)
{
	_cleanup_free_ char *text =
	    xasprintf(LIST("\"cniVersion\":\"1.1.0\",\"name\":\"n\",%s"), members);
	cnirt_netlist *l = parse_ok(text);
	if (cnirt_netlist_disable_check(l) != check || cnirt_netlist_disable_gc(l) != gc)
		fail_msg("%s: disableCheck %d disableGC %d", members,
			 cnirt_netlist_disable_check(l), cnirt_netlist_disable_gc(l));
	cnirt_netlist_free(l);
}

/* Section 1, `disableCheck` (boolean), and spec 1.1.0 `disableGC`. The
 * reference library also accepts the strings "true" and "false" in any
 * case. */
static void test_disable_flags(void **state)
{
	(void)state;
	assert_flags("\"disableCheck\":true", true, false);
	assert_flags("\"disableCheck\":false,\"disableGC\":true", false, true);
	assert_flags("\"disableCheck\":\"true\",\"disableGC\":\"false\"", true, false);
	assert_flags("\"disableCheck\":\"FALSE\",\"disableGC\":\"True\"", false, true);

	expect_error(LIST("\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"disableCheck\":1"),
		     CNIRT_ERR_INVALID_CONFIG,
		     "ORIGIN: field \"disableCheck\": must be true or false");
	expect_error(LIST("\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"disableCheck\":\"yes\""),
		     CNIRT_ERR_INVALID_CONFIG,
		     "ORIGIN: field \"disableCheck\": must be true or false");
	expect_error(LIST("\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"disableGC\":null"),
		     CNIRT_ERR_INVALID_CONFIG,
		     "ORIGIN: field \"disableGC\": must be true or false");
}

/* Section 1: `capabilities` (dictionary), section 3 "Deriving
 * runtimeConfig": capability names mapped to booleans. */
static void test_capabilities(void **state)
{
	(void)state;
	expect_error("{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"plugins\":[{\"type\":\"p\","
		     "\"capabilities\":[\"mac\"]}]}",
		     CNIRT_ERR_INVALID_CONFIG,
		     "ORIGIN: field \"plugins[0].capabilities\": must be an object, not an array");
	expect_error("{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"plugins\":[{\"type\":\"p\"},"
		     "{\"type\":\"q\",\"capabilities\":{\"ips\":true,\"mac\":\"true\"}}]}",
		     CNIRT_ERR_INVALID_CONFIG,
		     "ORIGIN: field \"plugins[1].capabilities.mac\": must be true or false, not a "
		     "string");
	expect_error("{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"type\":\"p\",\"capabilities\":1}",
		     CNIRT_ERR_INVALID_CONFIG,
		     "ORIGIN: field \"capabilities\": must be an object, not a number");
}

/* ---------------------------------------------------------------- files */

static void test_load_files(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *list = write_file(dir, "10-list.conflist", EXAMPLE_LIST);
	_cleanup_free_ char *conf = write_file(
	    dir, "20-one.conf", "{\"cniVersion\":\"0.4.0\",\"name\":\"one\",\"type\":\"ptp\"}");
	_cleanup_free_ char *js = write_file(
	    dir, "30-two.json", "{\"cniVersion\":\"0.2.0\",\"name\":\"two\",\"type\":\"macvlan\"}");
	/* Tolerated: a list in a .conf file. */
	_cleanup_free_ char *listconf = write_file(dir, "40-list.conf", EXAMPLE_LIST);

	cnirt_netlist *l = NULL;
	cnirt_error *err = NULL;
	assert_int_equal(cnirt_netlist_load_file(list, &l, &err), 0);
	assert_string_equal(cnirt_netlist_name(l), "dbnet");
	assert_int_equal(cnirt_netlist_plugin_count(l), 3);
	assert_string_equal(cnirt_netlist_path(l), list);
	size_t len;
	assert_string_equal(cnirt_netlist_bytes(l, &len), EXAMPLE_LIST);
	cnirt_netlist_free(l);

	assert_int_equal(cnirt_netlist_load_file(conf, &l, &err), 0);
	assert_string_equal(cnirt_netlist_name(l), "one");
	assert_string_equal(cnirt_netlist_version(l), "0.4.0");
	assert_string_equal(cnirt_netlist_plugin_type(l, 0), "ptp");
	cnirt_netlist_free(l);

	assert_int_equal(cnirt_netlist_load_file(js, &l, &err), 0);
	assert_string_equal(cnirt_netlist_name(l), "two");
	assert_string_equal(cnirt_netlist_plugin_type(l, 0), "macvlan");
	cnirt_netlist_free(l);

	assert_int_equal(cnirt_netlist_load_file(listconf, &l, &err), 0);
	assert_int_equal(cnirt_netlist_plugin_count(l), 3);
	cnirt_netlist_free(l);
}

/* A .conflist holds a list: a single plugin configuration in one is an
 * error naming the file. */
static void test_load_conflist_without_plugins(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *path = write_file(
	    dir, "x.conflist", "{\"cniVersion\":\"1.0.0\",\"name\":\"x\",\"type\":\"bridge\"}");
	cnirt_netlist *l = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	assert_int_equal(cnirt_netlist_load_file(path, &l, &err), -1);
	_cleanup_free_ char *want =
	    xasprintf("%s: field \"plugins\": missing (a .conflist file holds a configuration "
		      "list) and its plugin folder x/ has no plugin",
		      path);
	assert_string_equal(cnirt_error_msg(err), want);
	assert_int_equal(cnirt_error_code(err), CNIRT_ERR_INVALID_CONFIG);
}

static void test_load_errors(void **state)
{
	const char *dir = *state;
	cnirt_netlist *l = NULL;

	_cleanup_error_ cnirt_error *missing = NULL;
	_cleanup_free_ char *path = xasprintf("%s/none.conflist", dir);
	assert_int_equal(cnirt_netlist_load_file(path, &l, &missing), -1);
	assert_int_equal(cnirt_error_code(missing), CNIRT_ERR_IO);
	assert_int_equal(cnirt_error_errno(missing), ENOENT);
	assert_non_null(strstr(cnirt_error_msg(missing), path));

	_cleanup_error_ cnirt_error *isdir = NULL;
	assert_int_equal(cnirt_netlist_load_file(dir, &l, &isdir), -1);
	assert_int_equal(cnirt_error_code(isdir), CNIRT_ERR_IO);

	/* Bigger than the 16 MiB cap. */
	_cleanup_free_ char *big = xasprintf("%s/big.conflist", dir);
	int fd = open(big, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (16 << 20) + 1), 0);
	close(fd);
	_cleanup_error_ cnirt_error *toobig = NULL;
	assert_int_equal(cnirt_netlist_load_file(big, &l, &toobig), -1);
	_cleanup_free_ char *want = xasprintf("%s: larger than 16 MiB", big);
	assert_string_equal(cnirt_error_msg(toobig), want);

	/* Unparsable JSON: code "decode", message names the file. */
	_cleanup_free_ char *garbage = write_file(dir, "g.conf", "{\"name\":\"x\",}");
	_cleanup_error_ cnirt_error *decode = NULL;
	assert_int_equal(cnirt_netlist_load_file(garbage, &l, &decode), -1);
	assert_int_equal(cnirt_error_code(decode), CNIRT_ERR_DECODE);
	assert_true(strncmp(cnirt_error_msg(decode), garbage, strlen(garbage)) == 0);
	assert_null(l);
}

/* ------------------------------------------------------------ directory */

static const char BROKEN[] = "{\"cniVersion\":\"1.0.0\",\"name\":\"broken\",\"plugins\":[{"
			     "\"type\":\"a/b\"}]}";

static void make_conf_dir(const char *dir)
{
	free(write_file(dir, "30-c.json",
			"{\"cniVersion\":\"0.3.1\",\"name\":\"net-c\",\"type\":\"ipvlan\"}"));
	free(write_file(dir, "10-a.conflist",
			"{\"cniVersion\":\"1.0.0\",\"name\":\"net-a\",\"plugins\":[{\"type\":"
			"\"bridge\"},{\"type\":\"portmap\"}]}"));
	free(write_file(dir, "15-broken.conflist", BROKEN));
	free(write_file(dir, "20-b.conf",
			"{\"cniVersion\":\"0.4.0\",\"name\":\"net-b\",\"type\":\"ptp\"}"));
	free(write_file(dir, "README.md", "not a configuration"));
	_cleanup_free_ char *sub = xasprintf("%s/sub.conf", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
}

/* Every .conflist/.conf/.json, by file name; a broken file is an entry
 * with its error, and hides nothing. */
static void test_scan(void **state)
{
	const char *dir = *state;
	make_conf_dir(dir);
	cnirt_confdir *d = NULL;
	cnirt_error *err = NULL;
	assert_int_equal(cnirt_confdir_scan(dir, &d, &err), 0);
	assert_int_equal(cnirt_confdir_count(d), 4);
	const char *names[] = {"10-a.conflist", "15-broken.conflist", "20-b.conf", "30-c.json"};
	const char *nets[] = {"net-a", NULL, "net-b", "net-c"};
	for (size_t i = 0; i < 4; i++) {
		_cleanup_free_ char *path = xasprintf("%s/%s", dir, names[i]);
		assert_string_equal(cnirt_confdir_path(d, i), path);
		if (nets[i]) {
			assert_non_null(cnirt_confdir_list(d, i));
			assert_null(cnirt_confdir_error(d, i));
			assert_string_equal(cnirt_netlist_name(cnirt_confdir_list(d, i)), nets[i]);
			assert_string_equal(cnirt_netlist_path(cnirt_confdir_list(d, i)), path);
		} else {
			assert_null(cnirt_confdir_list(d, i));
			assert_non_null(cnirt_confdir_error(d, i));
			_cleanup_free_ char *want =
			    xasprintf("%s: field \"plugins[0].type\": must not contain '/'", path);
			assert_string_equal(cnirt_error_msg(cnirt_confdir_error(d, i)), want);
		}
	}
	assert_null(cnirt_confdir_path(d, 4));
	cnirt_confdir_free(d);
}

static void test_find(void **state)
{
	const char *dir = *state;
	make_conf_dir(dir);
	const char *nets[] = {"net-a", "net-b", "net-c"};
	const char *types[] = {"bridge", "ptp", "ipvlan"};
	for (size_t i = 0; i < 3; i++) {
		cnirt_netlist *l = NULL;
		cnirt_error *err = NULL;
		if (cnirt_confdir_find(dir, nets[i], &l, &err) < 0)
			fail_msg("%s: %s", nets[i], cnirt_error_msg(err));
		assert_string_equal(cnirt_netlist_name(l), nets[i]);
		assert_string_equal(cnirt_netlist_plugin_type(l, 0), types[i]);
		cnirt_netlist_free(l);
	}

	/* Not found: the message names the broken file and why. */
	cnirt_netlist *l = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	assert_int_equal(cnirt_confdir_find(dir, "broken", &l, &err), -1);
	assert_null(l);
	assert_int_equal(cnirt_error_code(err), CNIRT_ERR_INVALID_CONFIG);
	_cleanup_free_ char *want = xasprintf(
	    "network \"broken\" not found in %s (broken files: %s/15-broken.conflist: field "
	    "\"plugins[0].type\": must not contain '/')",
	    dir, dir);
	assert_string_equal(cnirt_error_msg(err), want);
}

/* The reference library's lookup (libcni LoadConfList): a .conflist wins
 * over a .conf or .json of the same name whatever their file names, and
 * among files of one kind the first in name order wins. Without broken
 * files the not-found message is short. */
static void test_find_first_wins(void **state)
{
	const char *dir = *state;
	free(write_file(dir, "50-later.conflist",
			"{\"cniVersion\":\"1.0.0\",\"name\":\"dup\",\"plugins\":[{\"type\":"
			"\"later\"}]}"));
	free(write_file(dir, "60-last.conflist",
			"{\"cniVersion\":\"1.0.0\",\"name\":\"dup\",\"plugins\":[{\"type\":"
			"\"last\"}]}"));
	free(write_file(dir, "05-early.conf",
			"{\"cniVersion\":\"1.0.0\",\"name\":\"dup\",\"type\":\"early\"}"));
	free(write_file(dir, "07-single.json",
			"{\"cniVersion\":\"1.0.0\",\"name\":\"one\",\"type\":\"json\"}"));
	free(write_file(dir, "06-single.conf",
			"{\"cniVersion\":\"1.0.0\",\"name\":\"one\",\"type\":\"conf\"}"));
	cnirt_netlist *l = NULL;
	cnirt_error *err = NULL;
	assert_int_equal(cnirt_confdir_find(dir, "dup", &l, &err), 0);
	assert_string_equal(cnirt_netlist_plugin_type(l, 0), "later");
	cnirt_netlist_free(l);
	assert_int_equal(cnirt_confdir_find(dir, "one", &l, &err), 0);
	assert_string_equal(cnirt_netlist_plugin_type(l, 0), "conf");
	cnirt_netlist_free(l);

	_cleanup_error_ cnirt_error *nf = NULL;
	assert_int_equal(cnirt_confdir_find(dir, "nope", &l, &nf), -1);
	_cleanup_free_ char *want = xasprintf("network \"nope\" not found in %s", dir);
	assert_string_equal(cnirt_error_msg(nf), want);

	_cleanup_error_ cnirt_error *bad = NULL;
	assert_int_equal(cnirt_confdir_find(dir, "../x", &l, &bad), -1);
	assert_int_equal(cnirt_error_code(bad), CNIRT_ERR_INVALID_CONFIG);
}

/* One scan, several lookups: each is a copy that outlives the directory
 * and equals what cnirt_confdir_find() loads on its own. */
static void test_get(void **state)
{
	const char *dir = *state;
	make_conf_dir(dir);
	cnirt_confdir *d = NULL;
	cnirt_error *err = NULL;
	assert_int_equal(cnirt_confdir_scan(dir, &d, &err), 0);
	cnirt_netlist *a = NULL, *a2 = NULL, *b = NULL, *fa = NULL;
	assert_int_equal(cnirt_confdir_get(d, "net-a", &a, &err), 0);
	assert_int_equal(cnirt_confdir_get(d, "net-a", &a2, &err), 0);
	assert_int_equal(cnirt_confdir_get(d, "net-b", &b, &err), 0);
	assert_true(a != a2);

	/* Not found, and a bad name: the messages of cnirt_confdir_find(). */
	cnirt_netlist *none = NULL;
	_cleanup_error_ cnirt_error *nf = NULL;
	assert_int_equal(cnirt_confdir_get(d, "broken", &none, &nf), -1);
	assert_null(none);
	_cleanup_free_ char *want = xasprintf(
	    "network \"broken\" not found in %s (broken files: %s/15-broken.conflist: field "
	    "\"plugins[0].type\": must not contain '/')",
	    dir, dir);
	assert_string_equal(cnirt_error_msg(nf), want);
	_cleanup_error_ cnirt_error *bad = NULL;
	assert_int_equal(cnirt_confdir_get(d, "../x", &none, &bad), -1);
	assert_int_equal(cnirt_error_code(bad), CNIRT_ERR_INVALID_CONFIG);
	cnirt_confdir_free(d);

	assert_int_equal(cnirt_confdir_find(dir, "net-a", &fa, &err), 0);
	const cnirt_netlist *ls[] = {a, a2};
	for (size_t k = 0; k < 2; k++) {
		const cnirt_netlist *l = ls[k];
		assert_string_equal(cnirt_netlist_name(l), cnirt_netlist_name(fa));
		assert_string_equal(cnirt_netlist_version(l), cnirt_netlist_version(fa));
		assert_string_equal(cnirt_netlist_path(l), cnirt_netlist_path(fa));
		assert_int_equal(cnirt_netlist_plugin_count(l), cnirt_netlist_plugin_count(fa));
		assert_string_equal(cnirt_netlist_plugin_type(l, 0),
				    cnirt_netlist_plugin_type(fa, 0));
		size_t n1, n2;
		const char *b1 = cnirt_netlist_bytes(l, &n1), *b2 = cnirt_netlist_bytes(fa, &n2);
		assert_int_equal(n1, n2);
		assert_memory_equal(b1, b2, n1);
	}
	assert_string_equal(cnirt_netlist_plugin_type(b, 0), "ptp");
	cnirt_netlist_free(a);
	cnirt_netlist_free(a2);
	cnirt_netlist_free(b);
	cnirt_netlist_free(fa);
}

static void test_missing_dir(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *missing = xasprintf("%s/no-such-dir", dir);
	cnirt_confdir *d = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	assert_int_equal(cnirt_confdir_scan(missing, &d, &err), -1);
	assert_null(d);
	assert_int_equal(cnirt_error_code(err), CNIRT_ERR_IO);
	_cleanup_free_ char *want =
	    xasprintf("configuration directory %s: No such file or directory", missing);
	assert_string_equal(cnirt_error_msg(err), want);

	cnirt_netlist *l = NULL;
	_cleanup_error_ cnirt_error *err2 = NULL;
	assert_int_equal(cnirt_confdir_find(missing, "net", &l, &err2), -1);
	assert_string_equal(cnirt_error_msg(err2), want);

	/* An empty directory is no error. */
	cnirt_error_free(err2); /* each call sets it anew */
	err2 = NULL;
	assert_int_equal(cnirt_confdir_scan(dir, &d, &err2), 0);
	assert_int_equal(cnirt_confdir_count(d), 0);
	cnirt_confdir_free(d);
}

/* -------------------------------------------------------------- libcni parity */

static void mkdir_in(const char *dir, const char *name)
{
	_cleanup_free_ char *p = xasprintf("%s/%s", dir, name);
	assert_int_equal(mkdir(p, 0755), 0);
}

/* libcni 1.3's plugin folders: <dir>/<network>/ files ending in .conf are
 * appended to a .conflist's chain in file name order (other extensions and
 * subdirectories ignored), and are part of the bytes the cache stores. */
static void test_plugin_folder(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *path = write_file(
	    dir, "10-pf.conflist",
	    "{\"cniVersion\":\"1.0.0\",\"name\":\"pf\",\"plugins\":[{\"type\":\"bridge\"}]}");
	mkdir_in(dir, "pf");
	mkdir_in(dir, "pf/sub.conf");
	free(write_file(dir, "pf/20-b.conf", "{\"type\":\"tuning\",\"sysctl\":{}}"));
	free(write_file(dir, "pf/10-a.conf",
			"{\"type\":\"portmap\",\"capabilities\":{\"portMappings\":true}}"));
	free(write_file(dir, "pf/30-c.json", "{\"type\":\"ignored\"}"));
	free(write_file(dir, "pf/40-d.conflist", "{\"type\":\"ignored\"}"));
	cnirt_netlist *l = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	if (cnirt_netlist_load_file(path, &l, &err) < 0)
		fail_msg("%s", cnirt_error_msg(err));
	assert_int_equal(cnirt_netlist_plugin_count(l), 3);
	assert_string_equal(cnirt_netlist_plugin_type(l, 0), "bridge");
	assert_string_equal(cnirt_netlist_plugin_type(l, 1), "portmap");
	assert_string_equal(cnirt_netlist_plugin_type(l, 2), "tuning");
	assert_true(cnirt_netlist_has_capability(l, "portMappings"));
	/* the cached bytes give the whole chain back */
	size_t len;
	const char *bytes = cnirt_netlist_bytes(l, &len);
	cnirt_netlist *again = NULL;
	assert_int_equal(cnirt_netlist_parse(bytes, len, NULL, &again, &err), 0);
	assert_int_equal(cnirt_netlist_plugin_count(again), 3);
	assert_string_equal(cnirt_netlist_plugin_type(again, 2), "tuning");
	cnirt_netlist_free(again);
	cnirt_netlist_free(l);

	/* the same through a directory scan */
	cnirt_netlist *found = NULL;
	assert_int_equal(cnirt_confdir_find(dir, "pf", &found, &err), 0);
	assert_int_equal(cnirt_netlist_plugin_count(found), 3);
	cnirt_netlist_free(found);
}

static char *write_one_plugin_list(const char *dir, const char *file, const char *name)
{
	_cleanup_free_ char *text = xasprintf(
	    "{\"cniVersion\":\"1.0.0\",\"name\":\"%s\",\"plugins\":[{\"type\":\"bridge\"}]}", name);
	return write_file(dir, file, text);
}

/* A directory scan knows which names its directory holds: a list whose
 * folder is not there loads without looking for it, a folder reached by a
 * symbolic link is used, and a file of the folder's name fails the list as
 * cnirt_netlist_load_file() fails it (libcni's ReadDir error). */
static void test_plugin_folder_scan(void **state)
{
	const char *dir = *state;
	free(write_one_plugin_list(dir, "10-plain.conflist", "plain"));
	free(write_one_plugin_list(dir, "20-linked.conflist", "linked"));
	_cleanup_free_ char *filed = write_one_plugin_list(dir, "30-filed.conflist", "filed");
	mkdir_in(dir, "real");
	free(write_file(dir, "real/a.conf", "{\"type\":\"tuning\"}"));
	_cleanup_free_ char *link = xasprintf("%s/linked", dir);
	assert_int_equal(symlink("real", link), 0);
	free(write_file(dir, "filed", "not a folder"));

	cnirt_netlist *l = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	assert_int_equal(cnirt_confdir_find(dir, "plain", &l, &err), 0);
	assert_int_equal(cnirt_netlist_plugin_count(l), 1);
	cnirt_netlist_free(l);
	assert_int_equal(cnirt_confdir_find(dir, "linked", &l, &err), 0);
	assert_int_equal(cnirt_netlist_plugin_count(l), 2);
	assert_string_equal(cnirt_netlist_plugin_type(l, 1), "tuning");
	cnirt_netlist_free(l);

	assert_int_equal(cnirt_netlist_load_file(filed, &l, &err), -1);
	_cleanup_free_ char *want = xasprintf("plugin folder %s/filed", dir);
	if (strstr(cnirt_error_msg(err), want) == NULL)
		fail_msg("load_file: %s", cnirt_error_msg(err));
	cnirt_error_free(TAKE_PTR(err));
	assert_int_equal(cnirt_confdir_find(dir, "filed", &l, &err), -1);
	if (strstr(cnirt_error_msg(err), want) == NULL)
		fail_msg("confdir_find: %s", cnirt_error_msg(err));
}

/* loadOnlyInlinedPlugins: true turns the folder off; without `plugins` a
 * list takes all its plugins from the folder, which then must have some;
 * "plugins": [] stays an error; a folder file without type fails the list. */
static void test_plugin_folder_rules(void **state)
{
	const char *dir = *state;
	mkdir_in(dir, "only");
	mkdir_in(dir, "nopl");
	mkdir_in(dir, "bad");
	free(write_file(dir, "only/a.conf", "{\"type\":\"tuning\"}"));
	free(write_file(dir, "nopl/a.conf", "{\"type\":\"tuning\"}"));
	free(write_file(dir, "bad/a.conf", "{\"notype\":1}"));
	_cleanup_free_ char *only = write_file(
	    dir, "only.conflist",
	    "{\"cniVersion\":\"1.0.0\",\"name\":\"only\",\"loadOnlyInlinedPlugins\":true,"
	    "\"plugins\":[{\"type\":\"bridge\"}]}");
	_cleanup_free_ char *nopl =
	    write_file(dir, "nopl.conflist", "{\"cniVersion\":\"1.0.0\",\"name\":\"nopl\"}");
	_cleanup_free_ char *inl = write_file(
	    dir, "inl.conflist",
	    "{\"cniVersion\":\"1.0.0\",\"name\":\"nopl\",\"loadOnlyInlinedPlugins\":true}");
	_cleanup_free_ char *empty = write_file(
	    dir, "empty.conflist", "{\"cniVersion\":\"1.0.0\",\"name\":\"nopl\",\"plugins\":[]}");
	_cleanup_free_ char *bad = write_file(
	    dir, "bad.conflist",
	    "{\"cniVersion\":\"1.0.0\",\"name\":\"bad\",\"plugins\":[{\"type\":\"bridge\"}]}");
	cnirt_netlist *l = NULL;
	_cleanup_error_ cnirt_error *err = NULL;

	assert_int_equal(cnirt_netlist_load_file(only, &l, &err), 0);
	assert_int_equal(cnirt_netlist_plugin_count(l), 1);
	cnirt_netlist_free(l);

	assert_int_equal(cnirt_netlist_load_file(nopl, &l, &err), 0);
	assert_int_equal(cnirt_netlist_plugin_count(l), 1);
	assert_string_equal(cnirt_netlist_plugin_type(l, 0), "tuning");
	cnirt_netlist_free(l);

	assert_int_equal(cnirt_netlist_load_file(inl, &l, &err), -1);
	assert_non_null(strstr(cnirt_error_msg(err), "loadOnlyInlinedPlugins is true"));
	cnirt_error_free(err);
	err = NULL;

	assert_int_equal(cnirt_netlist_load_file(empty, &l, &err), -1);
	assert_non_null(strstr(cnirt_error_msg(err), "\"plugins\": must hold at least one"));
	cnirt_error_free(err);
	err = NULL;

	assert_int_equal(cnirt_netlist_load_file(bad, &l, &err), -1);
	_cleanup_free_ char *want = xasprintf("%s/bad/a.conf: field \"type\": missing", dir);
	assert_string_equal(cnirt_error_msg(err), want);
	cnirt_error_free(err);
	err = NULL;

	/* bytes given directly have no folder */
	const char text[] = "{\"cniVersion\":\"1.0.0\",\"name\":\"nopl\",\"plugins\":[{\"type\":"
			    "\"bridge\"}]}";
	assert_int_equal(cnirt_netlist_parse(text, strlen(text), NULL, &l, &err), 0);
	assert_int_equal(cnirt_netlist_plugin_count(l), 1);
	cnirt_netlist_free(l);
}

/* The capabilities of a list: the union over its plugins, each once. */
static void test_capability_union(void **state)
{
	(void)state;
	cnirt_netlist *l =
	    parse_ok("{\"cniVersion\":\"1.0.0\",\"name\":\"caps\",\"plugins\":["
		     "{\"type\":\"a\",\"capabilities\":{\"ips\":true,\"mac\":false}},"
		     "{\"type\":\"b\"},"
		     "{\"type\":\"c\",\"capabilities\":{\"portMappings\":true,\"ips\":true,\"mac\":"
		     "true}}]}");
	assert_int_equal(cnirt_netlist_capability_count(l), 3);
	assert_string_equal(cnirt_netlist_capability(l, 0), "ips");
	assert_string_equal(cnirt_netlist_capability(l, 1), "portMappings");
	assert_string_equal(cnirt_netlist_capability(l, 2), "mac");
	assert_null(cnirt_netlist_capability(l, 3));
	cnirt_netlist_free(l);
	l = parse_ok(LIST("\"cniVersion\":\"1.0.0\",\"name\":\"none\""));
	assert_int_equal(cnirt_netlist_capability_count(l), 0);
	cnirt_netlist_free(l);
}

/* libcni's InjectConf and ConfListFromConf. */
static void test_inject_and_from_conf(void **state)
{
	(void)state;
	cnirt_netlist *l = parse_ok(EXAMPLE_LIST);
	cnirt_netlist *n = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	assert_int_equal(cnirt_netlist_inject(l, 1, "mtu", "1400", &n, &err), 0);
	assert_int_equal(cnirt_netlist_plugin_count(n), cnirt_netlist_plugin_count(l));
	const char *bytes = cnirt_netlist_bytes(n, NULL);
	assert_non_null(strstr(bytes, "\"mtu\":1400"));
	/* replaced in place, the original untouched */
	cnirt_netlist *n2 = NULL;
	assert_int_equal(cnirt_netlist_inject(n, 1, "mtu", "9000", &n2, &err), 0);
	assert_null(strstr(cnirt_netlist_bytes(n2, NULL), "1400"));
	assert_null(strstr(cnirt_netlist_bytes(l, NULL), "\"mtu\""));
	cnirt_netlist_free(n2);
	cnirt_netlist_free(n);

	cnirt_error_free(err); /* each call sets it anew */
	err = NULL;
	assert_int_equal(cnirt_netlist_inject(l, 9, "mtu", "1", &n, &err), -1);
	assert_non_null(strstr(cnirt_error_msg(err), "has no plugin 9"));
	cnirt_error_free(err); /* each call sets it anew */
	err = NULL;
	assert_int_equal(cnirt_netlist_inject(l, 0, "", "1", &n, &err), -1);
	cnirt_error_free(err); /* each call sets it anew */
	err = NULL;
	assert_int_equal(cnirt_netlist_inject(l, 0, "k", "null", &n, &err), -1);
	cnirt_error_free(err); /* each call sets it anew */
	err = NULL;
	assert_int_equal(cnirt_netlist_inject(l, 0, "k", "{bad", &n, &err), -1);
	/* the result is validated again */
	cnirt_error_free(err); /* each call sets it anew */
	err = NULL;
	assert_int_equal(cnirt_netlist_inject(l, 0, "type", "\"\"", &n, &err), -1);
	assert_non_null(strstr(cnirt_error_msg(err), "\"plugins[0].type\": is empty"));
	cnirt_netlist_free(l);
	cnirt_error_free(err); /* each call sets it anew */
	err = NULL;

	const char conf[] = "{\"cniVersion\":\"0.4.0\",\"name\":\"one\",\"type\":\"bridge\"}";
	assert_int_equal(cnirt_netlist_from_conf(conf, strlen(conf), NULL, &n, &err), 0);
	assert_int_equal(cnirt_netlist_plugin_count(n), 1);
	assert_string_equal(cnirt_netlist_name(n), "one");
	cnirt_netlist_free(n);
	cnirt_error_free(err); /* each call sets it anew */
	err = NULL;
	assert_int_equal(
	    cnirt_netlist_from_conf(EXAMPLE_LIST, strlen(EXAMPLE_LIST), NULL, &n, &err), -1);
	assert_non_null(strstr(cnirt_error_msg(err), "not a single plugin configuration"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_list),
	    cmocka_unit_test(test_single_config),
	    cmocka_unit_test(test_not_an_object),
	    cmocka_unit_test(test_name),
	    cmocka_unit_test(test_plugin_type),
	    cmocka_unit_test(test_plugins),
	    cmocka_unit_test(test_cni_version),
	    cmocka_unit_test(test_cni_version_unsupported),
	    cmocka_unit_test(test_cni_versions),
	    cmocka_unit_test(test_cni_versions_none_supported),
	    cmocka_unit_test(test_disable_flags),
	    cmocka_unit_test(test_capabilities),
	    cmocka_unit_test_setup_teardown(test_load_files, tmpdir_setup, tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_load_conflist_without_plugins, tmpdir_setup,
					    tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_load_errors, tmpdir_setup, tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_scan, tmpdir_setup, tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_find, tmpdir_setup, tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_find_first_wins, tmpdir_setup, tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_get, tmpdir_setup, tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_missing_dir, tmpdir_setup, tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_plugin_folder, tmpdir_setup, tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_plugin_folder_scan, tmpdir_setup, tmpdir_teardown),
	    cmocka_unit_test_setup_teardown(test_plugin_folder_rules, tmpdir_setup,
					    tmpdir_teardown),
	    cmocka_unit_test(test_capability_union),
	    cmocka_unit_test(test_inject_and_from_conf),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
