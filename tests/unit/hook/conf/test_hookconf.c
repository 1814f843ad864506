/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/conf/hookconf.c: the configuration file cnihook.json(5), loaded
 * from files in a temp directory, and the libcnirt runtime made from it. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cnirt.h>

#include "conf/hookconf.h"
#include "base/util.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The temp directory of the whole run, and the file the tests write. */
static char tmpdir[] = "/tmp/test_hookconf.XXXXXX";
static char *conf_path;

/* ------------------------------------------------------------ helpers */

static void write_bytes(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		fail_msg("open %s: %s", path, strerror(errno));
	while (len > 0) {
		ssize_t w = write(fd, data, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			fail_msg("write %s: %s", path, strerror(errno));
		data += w;
		len -= (size_t)w;
	}
	close(fd);
}

/* Write `text` as the configuration file; its path. */
static const char *write_conf(const char *text)
{
	write_bytes(conf_path, text, strlen(text));
	return conf_path;
}

/* Load the file at `path`, which must succeed. */
static struct hook_config *load_path(const char *path)
{
	struct hook_config *c = NULL;
	char *err = NULL;
	if (hookconf_load(path, &c, &err) < 0)
		fail_msg("hookconf_load(%s) failed: %s", path ? path : "NULL", err);
	assert_null(err);
	assert_non_null(c);
	return c;
}

/* Load `text`, which must succeed. */
static struct hook_config *load(const char *text)
{
	return load_path(write_conf(text));
}

/* Loading the file at `path` fails with exactly `msg`, and *out is left
 * alone. */
static void path_fails(const char *path, const char *msg)
{
	struct hook_config *sentinel = (struct hook_config *)&sentinel, *c = sentinel;
	char *err = NULL;
	if (hookconf_load(path, &c, &err) == 0) {
		if (c != sentinel)
			hookconf_free(c);
		fail_msg("%s was accepted, expected: %s", path, msg);
	}
	assert_ptr_equal(c, sentinel);
	assert_non_null(err);
	assert_string_equal(err, msg);
	free(err);
}

/* The message of loading `path`, which fails, with the place of a field
 * error (":LINE:COLUMN" after the path) taken out: the tests of what each
 * field accepts need not count columns; test_field_place() does. */
static char *fails_unplaced(const char *path)
{
	struct hook_config *sentinel = (struct hook_config *)&sentinel, *c = sentinel;
	char *err = NULL;
	if (hookconf_load(path, &c, &err) == 0) {
		if (c != sentinel)
			hookconf_free(c);
		fail_msg("%s was accepted", path);
	}
	assert_ptr_equal(c, sentinel);
	assert_non_null(err);
	size_t n = strlen(path);
	unsigned line, col;
	int used = 0;
	if (strncmp(err, path, n) == 0 && strstr(err + n, ": field \"") &&
	    sscanf(err + n, ":%u:%u%n", &line, &col, &used) == 2 && err[n + (size_t)used] == ':')
		memmove(err + n, err + n + used, strlen(err + n + used) + 1);
	return err;
}

/* Loading `text` fails with exactly "<the file's path>:<place>: <msg>",
 * place being LINE:COLUMN (from 1, columns in bytes). */
static void load_fails_at(const char *text, const char *place, const char *msg)
{
	_cleanup_free_ char *want = xasprintf("%s:%s: %s", conf_path, place, msg);
	path_fails(write_conf(text), want);
}

/* Loading `text` fails with exactly "<the file's path>: <msg>" (a field
 * error at whatever place). */
static void load_fails(const char *text, const char *msg)
{
	_cleanup_free_ char *want = xasprintf("%s: %s", conf_path, msg);
	_cleanup_free_ char *got = fails_unplaced(write_conf(text));
	assert_string_equal(got, want);
}

/* Loading `{"<field>": <value>}` fails with `field "<name>": <problem>`
 * (at whatever place). */
static void field_fails(const char *field, const char *value, const char *name, const char *problem)
{
	_cleanup_free_ char *text = xasprintf("{\"%s\": %s}", field, value);
	_cleanup_free_ char *msg = xasprintf("field \"%s\": %s", name, problem);
	load_fails(text, msg);
}

/* Every default of cnihook.json(5), FIELDS, POLICY and SANDBOX. */
static void assert_defaults(const struct hook_config *c)
{
	/* cnihook's own directory, not one another engine manages
	 * (/etc/cni/net.d: podman prunes, CRI-O collects there). */
	assert_string_equal(c->conf_dir, SYSCONFDIR "/cnihook/net.d");
	assert_int_equal(c->n_bin_dirs, 3);
	assert_string_equal(c->bin_dirs[0], "/opt/cni/bin");
	assert_string_equal(c->bin_dirs[1], "/usr/libexec/cni");
	assert_string_equal(c->bin_dirs[2], "/usr/lib/cni");
	assert_string_equal(c->cache_dir, "/var/lib/cni");
	assert_string_equal(c->state_dir, "/run/cnihook");
	assert_int_equal(c->n_default_networks, 0);
	assert_int_equal(c->plugin_timeout_ms, 60 * 1000);
	assert_int_equal(c->log_level, LOG_LEVEL_WARN);
	assert_true(c->log_syslog);
	assert_string_equal(c->runtime, "runc");

	/* POLICY: "The defaults let a container select any network and set
	 * every field of cnihook-annotations(7) but io.cnihook.netns, map
	 * host ports from 1024 up, and have up to 8 attachments." */
	const struct policy *p = &c->policy;
	assert_int_equal(p->n_networks, 1);
	assert_string_equal(p->networks[0], "*");
	assert_int_equal(p->allowed_fields, POLICY_PORT_MAPPINGS | POLICY_MAC | POLICY_IPS |
						POLICY_BANDWIDTH | POLICY_ARGS | POLICY_IB_GUID |
						POLICY_DNS);
	assert_int_equal(p->host_port_min, 1024);
	assert_int_equal(p->host_port_max, 65535);
	assert_int_equal(p->n_host_ips, 0);
	assert_int_equal(p->n_netns_prefixes, 0);
	assert_int_equal(p->max_attachments, 8);
	assert_int_equal(p->max_annotation, 65536);

	/* SANDBOX: enabled, the four capabilities, seccomp "default". */
	const struct sandbox_config *s = &c->sandbox;
	assert_true(s->enabled);
	assert_true(s->seccomp);
	assert_int_equal(s->n_capabilities, 4);
	assert_string_equal(s->capabilities[0], "CAP_SYS_ADMIN");
	assert_string_equal(s->capabilities[1], "CAP_NET_ADMIN");
	assert_string_equal(s->capabilities[2], "CAP_NET_RAW");
	assert_string_equal(s->capabilities[3], "CAP_DAC_OVERRIDE");
}

static int group_setup(void **state)
{
	(void)state;
	if (mkdtemp(tmpdir) == NULL)
		return -1;
	conf_path = xasprintf("%s/cnihook.json", tmpdir);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	_cleanup_free_ char *rm = xasprintf("rm -rf -- '%s'", tmpdir);
	free(conf_path);
	return system(rm) == 0 ? 0 : -1;
}

/* ------------------------------------------------------------ defaults */

static void test_defaults_builtin(void **state)
{
	(void)state;
	struct hook_config *c = hookconf_defaults();
	assert_defaults(c);
	assert_null(c->sb); /* prepared by hookconf_load() only */
	hookconf_free(c);
}

/* SYSCONFDIR behind an empty tmpfs, in a mount namespace of this test
 * process's own (root only): the default file is absent whatever the
 * machine has installed, and whatever a test running beside this one
 * (installed.sh) installs meanwhile. false when it cannot be done. */
static bool hide_sysconfdir(void)
{
	if (geteuid() != 0 || unshare(CLONE_NEWNS) < 0)
		return false;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("cnihook-test", SYSCONFDIR, "tmpfs", 0, "size=64k") < 0)
		return false;
	return true;
}

/* "The default file may be absent; then the defaults apply." As root, with
 * SYSCONFDIR hidden; else only when the default file of this build is
 * indeed absent on this machine. */
static void test_defaults_default_path_absent(void **state)
{
	(void)state;
	bool hidden = hide_sysconfdir();
	if (!hidden && (access(CNIHOOK_CONFIG_PATH, F_OK) == 0 || errno != ENOENT)) {
		print_message("%s exists: skipped\n", CNIHOOK_CONFIG_PATH);
		skip();
	}
	struct hook_config *c = load_path(NULL);
	if (hidden)
		assert_int_equal(umount2(SYSCONFDIR, MNT_DETACH), 0);
	assert_defaults(c);
	assert_non_null(c->sb); /* the sandbox, enabled, is prepared */
	hookconf_free(c);
}

/* "Every field is optional: a field that is left out keeps its default." */
static void test_defaults_empty_object(void **state)
{
	(void)state;
	struct hook_config *c = load("{}");
	assert_defaults(c);
	assert_non_null(c->sb);
	hookconf_free(c);
	c = load(" \n{ }\n\n");
	assert_defaults(c);
	hookconf_free(c);
}

/* Each field given leaves the others at their defaults. */
static void test_one_field_keeps_others(void **state)
{
	(void)state;
	struct hook_config *c = load("{\"pluginTimeout\": 61}");
	assert_int_equal(c->plugin_timeout_ms, 61000);
	c->plugin_timeout_ms = 60000;
	assert_defaults(c);
	hookconf_free(c);
	c = load("{\"log\": {\"level\": \"debug\"}}");
	assert_int_equal(c->log_level, LOG_LEVEL_DEBUG);
	assert_true(c->log_syslog); /* the other field of log */
	hookconf_free(c);
}

/* ------------------------------------------------------------ the file */

/* "Comments are allowed, both / * ... * / and // to the end of the line." */
static void test_comments(void **state)
{
	(void)state;
	struct hook_config *c = load("// leading line comment\n"
				     "/* leading block\n   comment { [ \" */\n"
				     "{\n"
				     "  // a line comment with \"quotes\" and { braces\n"
				     "  \"confDir\": /* inline */ \"/srv/net.d\", // trailing\n"
				     "  /* \"cacheDir\": \"/nope\", */\n"
				     "  \"stateDir\": \"/run/x//y\" // slashes in a string\n"
				     "}\n"
				     "// after the object\n"
				     "/* and a block after it */\n");
	assert_string_equal(c->conf_dir, "/srv/net.d");
	assert_string_equal(c->cache_dir, "/var/lib/cni");
	assert_string_equal(c->state_dir, "/run/x//y");
	hookconf_free(c);
	/* A comment marker inside a string is part of the string. */
	c = load("{\"confDir\": \"/a/*b*/c//d\"}");
	assert_string_equal(c->conf_dir, "/a/*b*/c//d");
	hookconf_free(c);
}

static void test_trailing_garbage(void **state)
{
	(void)state;
	/* ERRORS: FILE:LINE:COLUMN where the text is at fault. */
	load_fails_at("{} x", "1:3", "invalid JSON: trailing garbage");
	load_fails_at("{}{}", "1:3", "invalid JSON: trailing garbage");
	load_fails_at("{\"confDir\": \"/a\"}\n]\n", "1:18", "invalid JSON: trailing garbage");
	/* An unterminated comment after the object is not blank. */
	load_fails_at("{} /* never closed", "1:3", "invalid JSON: trailing garbage");
}

static void test_invalid_json(void **state)
{
	(void)state;
	load_fails_at("{\"confDir\": }", "1:13",
		      "invalid JSON: parse error: unallowed token at this point in JSON text");
	/* A trailing comma: the line and column of what follows it,
	 * comments and tabs counted as the bytes they are. */
	load_fails_at(
	    "{\n  \"confDir\": \"/a\", // the networks\n\t\"log\": {\"syslog\": false},\n}\n",
	    "4:1", "invalid JSON: parse error: invalid object key (must be a string)");
	load_fails_at("{\"binDirs\": [\"/a\",\n  ]}", "2:3",
		      "invalid JSON: parse error: unallowed token at this point in JSON text");
	/* (yajl stops inside a refused string: the place points into it.) */
	load_fails_at(
	    "{\"confDir\": \"/a\"\n  \"cacheDir\": \"/b\"}", "2:4",
	    "invalid JSON: parse error: after key and value, inside map, I expect ',' or '}'");
	/* Bytes a JSON text may not hold. */
	load_fails_at("{\"confDir\":\n\v\"/a\"}", "2:1", "invalid JSON: control character 0x0b");
	load_fails_at("{\"confDir\": \"/a\\u0000/b\"}", "1:16",
		      "a string contains an escaped NUL (\\u0000)");
	/* ERRORS: "an object in it has the same key twice" */
	load_fails_at("{\"confDir\": \"/a\", \"confDir\": \"/b\"}", "1:19",
		      "duplicate key \"confDir\"");
	load_fails_at("{\"log\": {\"level\": \"info\",\n  \"level\": \"debug\"}}", "2:3",
		      "duplicate key \"level\"");
	/* The second of the duplicates, wherever it is nested. */
	load_fails_at("{\"policy\": {\"networks\": [\"a\"]},\n\"sandbox\": {\"x\": [{\"a\": 1},\n "
		      "{\"b\": 1, \"c\": 2, \"b\": 3}]}}",
		      "3:19", "duplicate key \"b\"");
	/* ERRORS: "nests deeper than 64 levels" */
	char deep[2 * 65 + 16];
	char *p = deep;
	p += sprintf(p, "{\"x\": ");
	for (int i = 0; i < 64; i++)
		*p++ = '[';
	for (int i = 0; i < 64; i++)
		*p++ = ']';
	strcpy(p, "}");
	load_fails(deep, "nested deeper than 64 levels");
}

/* ERRORS: a field's error names its place, LINE:COLUMN where its key (or,
 * in an array, the element) starts, comments and escapes counted as the
 * bytes they are. */
static void test_field_place(void **state)
{
	(void)state;
	static const char text[] = "// the hook's settings\n"
				   "{\n"
				   "  \"confDir\": \"/a\", /* \"log\": {\"level\": 1} */\n"
				   "  \"log\": {\n"
				   "\t\"level\": \"%s\"\n"
				   "  },\n"
				   "  \"binDirs\": [\"/x\", %s],\n"
				   "  \"sandbox\": {\"capabilities\": [\"CAP_NET_ADMIN\", %s]}%s\n"
				   "}\n";
	static const struct {
		const char *level, *bin, *cap, *extra;
		const char *place, *msg;
	} cases[] = {
	    {"loud", "\"/y\"", "\"CAP_NET_RAW\"", "", "5:2",
	     "field \"log.level\": must be one of \"error\", \"warn\", \"info\", \"debug\""},
	    {"info", "\"rel\"", "\"CAP_NET_RAW\"", "", "7:21",
	     "field \"binDirs[1]\": must be an absolute path without \"..\""},
	    {"info", "12", "\"CAP_NET_RAW\"", "", "7:21", "field \"binDirs[1]\": must be a string"},
	    {"info", "\"/y\"", "\"NET_RAW\"", "", "8:49",
	     "field \"sandbox.capabilities[1]\": \"NET_RAW\" is not a capability name (like "
	     "\"CAP_NET_ADMIN\", see capabilities(7))"},
	    {"info", "\"/y\"", "\"CAP_NET_RAW\"", ", \"a\\\"b\": 1", "8:66",
	     "field \"a\"b\": unknown field (known: confDir, binDirs, cacheDir, stateDir, "
	     "defaultNetworks, pluginTimeout, log, policy, sandbox, dns, runtime)"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char buf[sizeof(text) + 200];
		snprintf(buf, sizeof(buf), text, cases[i].level, cases[i].bin, cases[i].cap,
			 cases[i].extra);
		load_fails_at(buf, cases[i].place, cases[i].msg);
	}
}

/* ERRORS: "the top level is not an object" */
static void test_not_an_object(void **state)
{
	(void)state;
	load_fails("[]", "must hold a JSON object, not an array");
	load_fails("[{\"confDir\": \"/a\"}]", "must hold a JSON object, not an array");
}

/* ERRORS: "the file is larger than 1 MiB" */
static void test_too_large(void **state)
{
	(void)state;
	const size_t mib = 1u << 20;
	char *buf = xmalloc(mib + 1);
	memset(buf, ' ', mib + 1);
	buf[0] = '{';
	buf[1] = '}';
	/* Exactly 1 MiB is accepted. */
	write_bytes(conf_path, buf, mib);
	struct hook_config *c = load_path(conf_path);
	assert_defaults(c);
	hookconf_free(c);
	/* One byte more is not. */
	write_bytes(conf_path, buf, mib + 1);
	free(buf);
	_cleanup_free_ char *want = xasprintf("%s: larger than 1 MiB", conf_path);
	path_fails(conf_path, want);
}

/* "A file named by --config or CNIHOOK_CONFIG must exist." */
static void test_missing_explicit(void **state)
{
	(void)state;
	_cleanup_free_ char *path = xasprintf("%s/absent.json", tmpdir);
	_cleanup_free_ char *want = xasprintf("%s: No such file or directory", path);
	path_fails(path, want);
	/* A directory cannot be read either. */
	_cleanup_free_ char *want_dir = xasprintf("%s: Is a directory", tmpdir);
	path_fails(tmpdir, want_dir);
}

/* "The file is one JSON object": an empty file is not one (only an absent
 * default file means the defaults). */
static void test_empty_file(void **state)
{
	(void)state;
	load_fails("", "empty input, expected JSON");
	/* Nor is white space, or a file whose every line is commented out. */
	/* (The place of a premature end: the text's last byte.) */
	load_fails_at(" \n\t\n", "2:2", "invalid JSON: parse error: premature EOF");
	load_fails_at("// { \"confDir\": \"/a\" }\n", "1:23",
		      "invalid JSON: parse error: premature EOF");
	load_fails_at("/* {} */", "1:8", "invalid JSON: parse error: premature EOF");
}

/* ------------------------------------------------------------ directories */

/* confDir, cacheDir and stateDir: "a directory that is not an absolute path
 * or that contains a .. component" is refused. */
static void check_dir_field(const char *field, size_t offset)
{
	static const char *const bad_values[] = {
	    "\"\"",	 "\"etc/cni\"", "\"./x\"",    "\"..\"",		  "\"../x\"",	"\"/..\"",
	    "\"/a/..\"", "\"/a/../b\"", "\"/a/../\"", "\"/a/b/../../c\"", "\"//..//\"", "\"~/cni\"",
	};
	static const char *const wrong_types[] = {"1", "true", "null", "[\"/a\"]", "{}"};
	for (size_t i = 0; i < COUNT(bad_values); i++)
		field_fails(field, bad_values[i], field, "must be an absolute path without \"..\"");
	for (size_t i = 0; i < COUNT(wrong_types); i++)
		field_fails(field, wrong_types[i], field, "must be a string");

	/* Names that only look like "..": accepted, as written. */
	static const char *const good[] = {"/", "/a/..b", "/a/b..", "/a/.../b", "/a/./b", "/..a"};
	for (size_t i = 0; i < COUNT(good); i++) {
		_cleanup_free_ char *text = xasprintf("{\"%s\": \"%s\"}", field, good[i]);
		struct hook_config *c = load(text);
		assert_string_equal(*(char **)((char *)c + offset), good[i]);
		hookconf_free(c);
	}
}

static void test_conf_dir(void **state)
{
	(void)state;
	check_dir_field("confDir", offsetof(struct hook_config, conf_dir));
}

static void test_cache_dir(void **state)
{
	(void)state;
	check_dir_field("cacheDir", offsetof(struct hook_config, cache_dir));
}

static void test_state_dir(void **state)
{
	(void)state;
	check_dir_field("stateDir", offsetof(struct hook_config, state_dir));
}

static void test_bin_dirs(void **state)
{
	(void)state;
	/* "A list given here replaces the default list; it is not appended
	 * to it." */
	struct hook_config *c = load("{\"binDirs\": [\"/usr/local/lib/cni\", \"/usr/lib/cni\"]}");
	assert_int_equal(c->n_bin_dirs, 2);
	assert_string_equal(c->bin_dirs[0], "/usr/local/lib/cni");
	assert_string_equal(c->bin_dirs[1], "/usr/lib/cni");
	hookconf_free(c);
	c = load("{\"binDirs\": []}");
	assert_int_equal(c->n_bin_dirs, 0);
	hookconf_free(c);

	field_fails("binDirs", "\"/opt/cni/bin\"", "binDirs", "must be an array of paths");
	field_fails("binDirs", "{}", "binDirs", "must be an array of paths");
	field_fails("binDirs", "null", "binDirs", "must be an array of paths");
	field_fails("binDirs", "[1]", "binDirs[0]", "must be a string");
	field_fails("binDirs", "[\"/a\", null]", "binDirs[1]", "must be a string");
	/* The example of ERRORS. */
	field_fails("binDirs", "[\"/opt/cni/bin\", \"/opt/cni/../bin\"]", "binDirs[1]",
		    "must be an absolute path without \"..\"");
	field_fails("binDirs", "[\"/a\", \"/b\", \"lib/cni\"]", "binDirs[2]",
		    "must be an absolute path without \"..\"");
	field_fails("binDirs", "[\"/a/..\"]", "binDirs[0]",
		    "must be an absolute path without \"..\"");
	field_fails("binDirs", "[\"\"]", "binDirs[0]", "must be an absolute path without \"..\"");
}

/* ------------------------------------------------------------ defaultNetworks */

static void test_default_networks(void **state)
{
	(void)state;
	struct hook_config *c = load("{\"defaultNetworks\": [\"cnihook\", \"net_1.a-B\", \"9\"]}");
	assert_int_equal(c->n_default_networks, 3);
	assert_string_equal(c->default_networks[0], "cnihook");
	assert_string_equal(c->default_networks[1], "net_1.a-B");
	assert_string_equal(c->default_networks[2], "9");
	hookconf_free(c);
	c = load("{\"defaultNetworks\": []}");
	assert_int_equal(c->n_default_networks, 0);
	hookconf_free(c);

	field_fails("defaultNetworks", "\"cnihook\"", "defaultNetworks",
		    "must be an array of network names");
	field_fails("defaultNetworks", "{}", "defaultNetworks",
		    "must be an array of network names");
	field_fails("defaultNetworks", "[\"a\", 1]", "defaultNetworks[1]", "must be a string");
	field_fails("defaultNetworks", "[null]", "defaultNetworks[0]", "must be a string");
}

/* ERRORS: "a network name that is not a valid CNI network name (letters,
 * digits, _, . and -, starting with a letter or digit)" */
static void test_default_networks_names(void **state)
{
	(void)state;
	field_fails("defaultNetworks", "[\"\"]", "defaultNetworks[0]",
		    "network name \"\": is empty");
	field_fails("defaultNetworks", "[\"ok\", \"-net\"]", "defaultNetworks[1]",
		    "network name \"-net\": must start with a letter or a digit");
	field_fails("defaultNetworks", "[\".hidden\"]", "defaultNetworks[0]",
		    "network name \".hidden\": must start with a letter or a digit");
	field_fails("defaultNetworks", "[\"..\"]", "defaultNetworks[0]",
		    "network name \"..\": must start with a letter or a digit");
	field_fails("defaultNetworks", "[\"a/b\"]", "defaultNetworks[0]",
		    "network name \"a/b\": may only contain letters, digits, '_', '.' and '-'");
	field_fails("defaultNetworks", "[\"a b\"]", "defaultNetworks[0]",
		    "network name \"a b\": may only contain letters, digits, '_', '.' and '-'");
	field_fails("defaultNetworks", "[\"r\\u00e9seau\"]", "defaultNetworks[0]",
		    "network name \"r\\xc3\\xa9seau\": may only contain letters, digits, '_', "
		    "'.' and '-'");
	char name[257];
	memset(name, 'n', 256);
	name[256] = '\0';
	_cleanup_free_ char *value = xasprintf("[\"%s\"]", name);
	field_fails(
	    "defaultNetworks", value, "defaultNetworks[0]",
	    "network name \"nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn"
	    "nnnnnnnnnnnnnnnn...\": is longer than 255 bytes");
}

/* defaultNetworks: "there are at most 32 of them". */
static void test_default_networks_limit(void **state)
{
	(void)state;
	/* {"defaultNetworks": ["n0", ..., "n31"], without the closing "]}" */
	char *head = xstrdup("{\"defaultNetworks\": [\"n0\"");
	for (int i = 1; i < 32; i++) {
		char *longer = xasprintf("%s, \"n%d\"", head, i);
		free(head);
		head = longer;
	}
	_cleanup_free_ char *text32 = xasprintf("%s]}", head);
	struct hook_config *c = load(text32);
	assert_int_equal(c->n_default_networks, 32);
	assert_string_equal(c->default_networks[0], "n0");
	assert_string_equal(c->default_networks[31], "n31");
	hookconf_free(c);
	_cleanup_free_ char *text33 = xasprintf("%s, \"n32\"]}", head);
	free(head);
	load_fails(text33, "field \"defaultNetworks\": 33 networks, at most 32");
}

/* ------------------------------------------------------------ pluginTimeout */

/* "The number of seconds, from 1 to 3600, that one plugin may run." */
static void test_plugin_timeout(void **state)
{
	(void)state;
	struct hook_config *c = load("{\"pluginTimeout\": 1}");
	assert_int_equal(c->plugin_timeout_ms, 1000);
	hookconf_free(c);
	c = load("{\"pluginTimeout\": 3600}");
	assert_int_equal(c->plugin_timeout_ms, 3600 * 1000);
	hookconf_free(c);

	static const char *const bad_values[] = {
	    "0",
	    "3601",
	    "1.5",
	    "\"10\"",
	    "-1",
	    "60.0",
	    "6e1",
	    "1e3",
	    "true",
	    "null",
	    "[60]",
	    "{}",
	    "99999999999999999999",
	};
	for (size_t i = 0; i < COUNT(bad_values); i++)
		field_fails("pluginTimeout", bad_values[i], "pluginTimeout",
			    "must be a whole number of seconds, 1-3600");
}

/* ------------------------------------------------------------ log */

/* "dns" (cnihook.json(5)): one mode for both files, or one per file; a
 * member left out keeps "auto". */
static void test_dns(void **state)
{
	(void)state;
	struct hook_config *c = load("{}");
	assert_int_equal(c->dns_resolv_conf, NAMES_AUTO);
	assert_int_equal(c->dns_hosts, NAMES_AUTO);
	hookconf_free(c);
	c = load("{\"dns\": \"off\"}");
	assert_int_equal(c->dns_resolv_conf, NAMES_OFF);
	assert_int_equal(c->dns_hosts, NAMES_OFF);
	hookconf_free(c);
	c = load("{\"dns\": {\"hosts\": \"always\"}}");
	assert_int_equal(c->dns_resolv_conf, NAMES_AUTO);
	assert_int_equal(c->dns_hosts, NAMES_ALWAYS);
	hookconf_free(c);
	field_fails("dns", "\"on\"", "dns", "must be \"auto\", \"off\" or \"always\"");
	field_fails("dns", "{\"resolvConf\": true}", "dns.resolvConf",
		    "must be \"auto\", \"off\" or \"always\"");
	field_fails("dns", "{\"resolvconf\": \"off\"}", "dns.resolvconf",
		    "unknown field; did you mean \"dns.resolvConf\"? (known: dns.resolvConf, "
		    "dns.hosts)");
}

/* "runtime" (cnihook.json(5)): a program name or an absolute path. */
static void test_runtime(void **state)
{
	(void)state;
	struct hook_config *c = load("{\"runtime\": \"crun\"}");
	assert_string_equal(c->runtime, "crun");
	hookconf_free(c);
	c = load("{\"runtime\": \"/usr/local/bin/runc\"}");
	assert_string_equal(c->runtime, "/usr/local/bin/runc");
	hookconf_free(c);
	field_fails("runtime", "\"\"", "runtime", "must be a program name or an absolute path");
	field_fails("runtime", "1", "runtime", "must be a program name or an absolute path");
	field_fails("runtime", "\"bin/runc\"", "runtime",
		    "must be an absolute path without \"..\"");
}

static void test_log(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		enum log_level level;
	} levels[] = {
	    {"error", LOG_LEVEL_ERROR},
	    {"warn", LOG_LEVEL_WARN},
	    {"info", LOG_LEVEL_INFO},
	    {"debug", LOG_LEVEL_DEBUG},
	};
	for (size_t i = 0; i < COUNT(levels); i++) {
		_cleanup_free_ char *text =
		    xasprintf("{\"log\": {\"level\": \"%s\", \"syslog\": false}}", levels[i].name);
		struct hook_config *c = load(text);
		assert_int_equal(c->log_level, levels[i].level);
		assert_false(c->log_syslog);
		hookconf_free(c);
	}
	struct hook_config *c = load("{\"log\": {\"syslog\": true}}");
	assert_true(c->log_syslog);
	assert_int_equal(c->log_level, LOG_LEVEL_WARN);
	hookconf_free(c);
	c = load("{\"log\": {}}");
	assert_defaults(c);
	hookconf_free(c);

	field_fails("log", "\"info\"", "log", "must be an object");
	field_fails("log", "[]", "log", "must be an object");
	field_fails("log", "null", "log", "must be an object");
}

/* ERRORS: "an unknown log level" */
static void test_log_level_unknown(void **state)
{
	(void)state;
	static const char *const bad_values[] = {
	    "\"verbose\"", "\"WARN\"", "\"warning\"", "\"\"",
	    "\"debug \"",  "1",	       "null",	      "[\"info\"]",
	};
	for (size_t i = 0; i < COUNT(bad_values); i++) {
		_cleanup_free_ char *value = xasprintf("{\"level\": %s}", bad_values[i]);
		field_fails("log", value, "log.level",
			    "must be one of \"error\", \"warn\", \"info\", \"debug\"");
	}
}

static void test_log_syslog_not_boolean(void **state)
{
	(void)state;
	static const char *const bad_values[] = {"\"true\"", "\"yes\"", "1", "0", "null", "{}"};
	for (size_t i = 0; i < COUNT(bad_values); i++) {
		_cleanup_free_ char *value = xasprintf("{\"syslog\": %s}", bad_values[i]);
		field_fails("log", value, "log.syslog", "must be true or false");
	}
}

/* ------------------------------------------------------------ unknown fields */

#define TOP_KNOWN                                                                                  \
	"(known: confDir, binDirs, cacheDir, stateDir, defaultNetworks, pluginTimeout, log, "      \
	"policy, sandbox, dns, runtime)"
#define LOG_KNOWN "(known: log.level, log.syslog)"
#define POLICY_KNOWN                                                                               \
	"(known: policy.networks, policy.allowedFields, policy.hostPortRange, policy.hostIPs, "    \
	"policy.netnsPrefixes, policy.maxAttachments, policy.maxAnnotationSize)"
#define SANDBOX_KNOWN                                                                              \
	"(known: sandbox.enabled, sandbox.capabilities, sandbox.seccomp, sandbox.plugins)"

/* ERRORS: "a field is not one of those above, at the top level or inside
 * log, policy or sandbox", named with its place, with the known fields. */
static void test_unknown_fields(void **state)
{
	(void)state;
	load_fails("{\"colour\": true}", "field \"colour\": unknown field " TOP_KNOWN);
	load_fails("{\"confDir\": \"/a\", \"extra\": 1}",
		   "field \"extra\": unknown field " TOP_KNOWN);
	/* The example of ERRORS. */
	load_fails("{\"log\": {\"colour\": true}}",
		   "field \"log.colour\": unknown field " LOG_KNOWN);
	load_fails("{\"log\": {\"level\": \"info\", \"file\": \"/x\"}}",
		   "field \"log.file\": unknown field " LOG_KNOWN);
	load_fails("{\"policy\": {\"colour\": 1}}",
		   "field \"policy.colour\": unknown field " POLICY_KNOWN);
	load_fails("{\"sandbox\": {\"colour\": 1}}",
		   "field \"sandbox.colour\": unknown field " SANDBOX_KNOWN);
}

/* A misspelt field names the one meant, at every level. Names are
 * case-sensitive: a field that differs only in case is refused too. */
static void test_misspelt_fields(void **state)
{
	(void)state;
	load_fails("{\"confdir\": \"/etc/cni/net.d\"}",
		   "field \"confdir\": unknown field; did you mean \"confDir\"? " TOP_KNOWN);
	load_fails(
	    "{\"PluginTimeout\": 60}",
	    "field \"PluginTimeout\": unknown field; did you mean \"pluginTimeout\"? " TOP_KNOWN);
	load_fails("{\"plugin_timeout\": 60}", "field \"plugin_timeout\": unknown field; did you "
					       "mean \"pluginTimeout\"? " TOP_KNOWN);
	load_fails("{\"defaultNetwork\": [\"a\"]}", "field \"defaultNetwork\": unknown field; did "
						    "you mean \"defaultNetworks\"? " TOP_KNOWN);
	load_fails("{\"binDir\": [\"/a\"]}",
		   "field \"binDir\": unknown field; did you mean \"binDirs\"? " TOP_KNOWN);
	load_fails("{\"sandbx\": {}}",
		   "field \"sandbx\": unknown field; did you mean \"sandbox\"? " TOP_KNOWN);
	/* Documented elsewhere (--config): not a field here, two edits from
	 * confDir. */
	load_fails("{\"config\": \"/etc/cnihook/cnihook.json\"}",
		   "field \"config\": unknown field; did you mean \"confDir\"? " TOP_KNOWN);
	load_fails("{\"log\": {\"levl\": \"info\"}}",
		   "field \"log.levl\": unknown field; did you mean \"log.level\"? " LOG_KNOWN);
	load_fails("{\"log\": {\"Syslog\": false}}",
		   "field \"log.Syslog\": unknown field; did you mean \"log.syslog\"? " LOG_KNOWN);
	load_fails("{\"policy\": {\"maxAttachment\": 1}}",
		   "field \"policy.maxAttachment\": unknown field; did you mean "
		   "\"policy.maxAttachments\"? " POLICY_KNOWN);
	load_fails("{\"policy\": {\"allowedfields\": []}}",
		   "field \"policy.allowedfields\": unknown field; did you mean "
		   "\"policy.allowedFields\"? " POLICY_KNOWN);
	load_fails("{\"policy\": {\"hostIps\": []}}",
		   "field \"policy.hostIps\": unknown field; did you mean "
		   "\"policy.hostIPs\"? " POLICY_KNOWN);
	load_fails("{\"policy\": {\"allowedFields\": [\"portmappings\"]}}",
		   "field \"policy.allowedFields[0]\": \"portmappings\" is not one of "
		   "\"portMappings\", \"mac\", \"ips\", \"bandwidth\", \"args\", "
		   "\"infinibandGUID\", \"netns\", \"dns\"; did you mean \"portMappings\"?");
	load_fails("{\"sandbox\": {\"capabilites\": []}}",
		   "field \"sandbox.capabilites\": unknown field; did you mean "
		   "\"sandbox.capabilities\"? " SANDBOX_KNOWN);
	load_fails("{\"sandbox\": {\"enable\": false}}",
		   "field \"sandbox.enable\": unknown field; did you mean "
		   "\"sandbox.enabled\"? " SANDBOX_KNOWN);
}

/* ------------------------------------------------------------ policy, sandbox */

/* The policy and sandbox objects reach their parsers (tested in
 * test_policy and test_sandbox), with the file's path in the messages. */
static void test_policy_and_sandbox(void **state)
{
	(void)state;
	struct hook_config *c = load("{\"policy\": {\"networks\": [\"web-*\", \"storage\"], "
				     "\"maxAttachments\": 2, \"hostPortRange\": [8000, 8999]}, "
				     "\"sandbox\": {\"seccomp\": \"off\", "
				     "\"capabilities\": [\"CAP_NET_ADMIN\"]}}");
	assert_int_equal(c->policy.n_networks, 2);
	assert_string_equal(c->policy.networks[0], "web-*");
	assert_string_equal(c->policy.networks[1], "storage");
	assert_int_equal(c->policy.max_attachments, 2);
	assert_int_equal(c->policy.host_port_min, 8000);
	assert_int_equal(c->policy.host_port_max, 8999);
	assert_true(c->sandbox.enabled);
	assert_false(c->sandbox.seccomp);
	assert_int_equal(c->sandbox.n_capabilities, 1);
	assert_string_equal(c->sandbox.capabilities[0], "CAP_NET_ADMIN");
	assert_non_null(c->sb);
	hookconf_free(c);

	/* "With false, there is no sandbox at all": none prepared. */
	c = load("{\"sandbox\": {\"enabled\": false}}");
	assert_false(c->sandbox.enabled);
	assert_null(c->sb);
	hookconf_free(c);

	field_fails("policy", "[]", "policy", "must be an object");
	field_fails("policy", "null", "policy", "must be an object");
	field_fails("sandbox", "true", "sandbox", "must be an object");
	field_fails("sandbox", "null", "sandbox", "must be an object");
	/* The examples of ERRORS. */
	field_fails("policy", "{\"hostPortRange\": [0, 80]}", "policy.hostPortRange",
		    "must be [min, max], whole numbers with 1 <= min <= max <= 65535");
	field_fails("policy", "{\"allowedFields\": [\"mac\", \"dhcp\"]}", "policy.allowedFields[1]",
		    "\"dhcp\" is not one of \"portMappings\", \"mac\", \"ips\", \"bandwidth\", "
		    "\"args\", \"infinibandGUID\", \"netns\", \"dns\"");
	field_fails("sandbox", "{\"capabilities\": [\"NET_ADMIN\"]}", "sandbox.capabilities[0]",
		    "\"NET_ADMIN\" is not a capability name (like \"CAP_NET_ADMIN\", see "
		    "capabilities(7))");
}

/* ------------------------------------------------------------ examples */

/* The EXAMPLE section of cnihook.json(5). */
static void test_man_page_examples(void **state)
{
	(void)state;
	struct hook_config *c = load("{\n"
				     "  // plugins built from source\n"
				     "  \"binDirs\": [\"/usr/local/lib/cni\", \"/usr/lib/cni\"],\n"
				     "  \"pluginTimeout\": 120,\n"
				     "  \"log\": { \"level\": \"info\" }\n"
				     "}\n");
	assert_int_equal(c->n_bin_dirs, 2);
	assert_string_equal(c->bin_dirs[0], "/usr/local/lib/cni");
	assert_string_equal(c->bin_dirs[1], "/usr/lib/cni");
	assert_int_equal(c->plugin_timeout_ms, 120 * 1000);
	assert_int_equal(c->log_level, LOG_LEVEL_INFO);
	assert_true(c->log_syslog);
	hookconf_free(c);

	c = load("{ \"defaultNetworks\": [\"cnihook\"] }\n");
	assert_int_equal(c->n_default_networks, 1);
	assert_string_equal(c->default_networks[0], "cnihook");
	hookconf_free(c);

	c = load("{\n"
		 "  \"policy\": {\n"
		 "    // the web tier's networks and the storage network only\n"
		 "    \"networks\": [\"web-*\", \"storage\"],\n"
		 "    // no MAC address, no plugin arguments, no InfiniBand GUID\n"
		 "    \"allowedFields\": [\"portMappings\", \"ips\", \"bandwidth\", \"netns\"],\n"
		 "    // ports 8000 to 8999, published to the host itself only\n"
		 "    \"hostPortRange\": [8000, 8999],\n"
		 "    \"hostIPs\": [\"127.0.0.1\", \"::1\"],\n"
		 "    \"netnsPrefixes\": [\"/run/vc/netns\"],\n"
		 "    \"maxAttachments\": 2,\n"
		 "    \"maxAnnotationSize\": 4096\n"
		 "  }\n"
		 "}\n");
	assert_int_equal(c->policy.allowed_fields,
			 POLICY_PORT_MAPPINGS | POLICY_IPS | POLICY_BANDWIDTH | POLICY_NETNS);
	assert_int_equal(c->policy.n_host_ips, 2);
	assert_int_equal(c->policy.n_netns_prefixes, 1);
	assert_int_equal(c->policy.max_attachments, 2);
	assert_int_equal(c->policy.max_annotation, 4096);
	hookconf_free(c);
}

/* The shipped sample, config/cnihook.json as make generates it from
 * config/cnihook.json.in (installed as the default file): "every value
 * below is the built-in default: without this file the hook behaves the
 * same". */
static void test_shipped_sample(void **state)
{
	(void)state;
	const char *top = getenv("abs_top_builddir");
	_cleanup_free_ char *path = xasprintf("%s/config/cnihook.json", top && *top ? top : ".");
	if (access(path, R_OK) < 0)
		fail_msg("the sample %s: %s (run from the build tree or set abs_top_builddir)",
			 path, strerror(errno));
	struct hook_config *c = load_path(path);
	assert_defaults(c);
	assert_non_null(c->sb);
	hookconf_free(c);
}

/* ------------------------------------------------------------ hookconf_ctx */

/* The fake test plugin's path: $FAKEPLUGIN, or the build tree's. */
static char *fakeplugin(void)
{
	const char *p = getenv("FAKEPLUGIN");
	const char *top = getenv("abs_top_builddir");
	char *path = p ? xstrdup(p) : top ? xasprintf("%s/tests/plugins/fakeplugin", top) : NULL;
	if (path == NULL || access(path, X_OK) < 0) {
		print_message("fakeplugin not found (set FAKEPLUGIN): skipped\n");
		free(path);
		skip();
	}
	return path;
}

/* A bin dir "<tmpdir>/<name>", empty or with the fake plugin (a symbolic
 * link: it records into the directory it is run from). */
static char *bin_dir(const char *name, const char *plugin)
{
	char *dir = xasprintf("%s/%s", tmpdir, name);
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		fail_msg("mkdir %s: %s", dir, strerror(errno));
	if (plugin) {
		_cleanup_free_ char *link = xasprintf("%s/fakeplugin", dir);
		if (symlink(plugin, link) < 0 && errno != EEXIST)
			fail_msg("symlink %s: %s", link, strerror(errno));
	}
	return dir;
}

/* The line "KEY=..." of a file, or NULL. */
static char *env_line(const char *path, const char *key)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	_cleanup_free_ char *err = NULL;
	if (read_file(path, 1u << 20, &buf, &len, NULL, &err) < 0)
		fail_msg("%s", err);
	size_t klen = strlen(key);
	for (char *line = buf; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (strncmp(line, key, klen) == 0 && line[klen] == '=')
			return xstrdup(line + klen + 1);
		line = nl ? nl + 1 : NULL;
	}
	return NULL;
}

/* The cache directory reaches the runtime (cnirt_ctx_cache_dir). */
static void test_ctx_cache_dir(void **state)
{
	(void)state;
	struct hook_config *c = load("{\"cacheDir\": \"/srv/cni-cache\"}");
	cnirt_ctx *ctx = hookconf_ctx(c);
	assert_non_null(ctx);
	assert_string_equal(cnirt_ctx_cache_dir(ctx), "/srv/cni-cache");
	cnirt_ctx_free(ctx);
	hookconf_free(c);
	c = hookconf_defaults();
	ctx = hookconf_ctx(c);
	assert_string_equal(cnirt_ctx_cache_dir(ctx), "/var/lib/cni");
	cnirt_ctx_free(ctx);
	hookconf_free(c);
}

/* The bin dirs reach the runtime: the plugin is found in the second one,
 * and the plugin is given them, in order, as CNI_PATH (and our PATH).
 * libcnirt has no getter for them: a plugin is run to see them. */
static void test_ctx_bin_dirs(void **state)
{
	(void)state;
	_cleanup_free_ char *plugin = fakeplugin();
	_cleanup_free_ char *d1 = bin_dir("bin-empty", NULL);
	_cleanup_free_ char *d2 = bin_dir("bin-fake", plugin);
	/* The sandbox is tested in test_sandbox; here the plugin runs
	 * without it (and so under valgrind too). */
	_cleanup_free_ char *text =
	    xasprintf("{\"binDirs\": [\"%s\", \"%s\"], \"sandbox\": {\"enabled\": false}}", d1, d2);
	struct hook_config *c = load(text);
	cnirt_ctx *ctx = hookconf_ctx(c);
	char *version = NULL;
	cnirt_error *e = NULL;
	if (cnirt_plugin_version(ctx, "fakeplugin", "1.0.0", &version, &e) < 0)
		fail_msg("VERSION failed: %s", cnirt_error_msg(e));
	assert_non_null(strstr(version, "\"supportedVersions\""));
	free(version);
	cnirt_ctx_free(ctx);
	hookconf_free(c);

	_cleanup_free_ char *rec = xasprintf("%s/rec/0001-fakeplugin-VERSION.env", d2);
	_cleanup_free_ char *cni_path = env_line(rec, "CNI_PATH");
	_cleanup_free_ char *want = xasprintf("%s:%s", d1, d2);
	assert_non_null(cni_path);
	assert_string_equal(cni_path, want);
	const char *our_path = getenv("PATH");
	if (our_path && *our_path) {
		_cleanup_free_ char *path = env_line(rec, "PATH");
		assert_non_null(path);
		assert_string_equal(path, our_path);
	}

	/* Without the plugin's directory, it is not found. */
	_cleanup_free_ char *text1 =
	    xasprintf("{\"binDirs\": [\"%s\"], \"sandbox\": {\"enabled\": false}}", d1);
	c = load(text1);
	ctx = hookconf_ctx(c);
	assert_int_equal(cnirt_plugin_version(ctx, "fakeplugin", "1.0.0", &version, &e), -1);
	assert_non_null(e);
	assert_non_null(strstr(cnirt_error_msg(e), "fakeplugin"));
	cnirt_error_free(e);
	cnirt_ctx_free(ctx);
	hookconf_free(c);
}

/* The plugin timeout reaches the runtime: a plugin that sleeps 10 s is
 * killed after pluginTimeout, 1 s. */
static void test_ctx_timeout(void **state)
{
	(void)state;
	_cleanup_free_ char *plugin = fakeplugin();
	_cleanup_free_ char *dir = bin_dir("bin-slow", plugin);
	_cleanup_free_ char *control = xasprintf("%s/fakeplugin.VERSION", dir);
	write_bytes(control, "sleep-ms=10000\n", strlen("sleep-ms=10000\n"));
	_cleanup_free_ char *text = xasprintf(
	    "{\"binDirs\": [\"%s\"], \"pluginTimeout\": 1, \"sandbox\": {\"enabled\": false}}",
	    dir);
	struct hook_config *c = load(text);
	cnirt_ctx *ctx = hookconf_ctx(c);
	char *version = NULL;
	cnirt_error *e = NULL;
	assert_int_equal(cnirt_plugin_version(ctx, "fakeplugin", "1.0.0", &version, &e), -1);
	assert_non_null(e);
	assert_string_equal(cnirt_error_msg(e),
			    "plugin \"fakeplugin\" VERSION timed out after 1000 ms");
	cnirt_error_free(e);
	cnirt_ctx_free(ctx);
	hookconf_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults_builtin),
	    cmocka_unit_test(test_defaults_default_path_absent),
	    cmocka_unit_test(test_defaults_empty_object),
	    cmocka_unit_test(test_one_field_keeps_others),
	    cmocka_unit_test(test_comments),
	    cmocka_unit_test(test_trailing_garbage),
	    cmocka_unit_test(test_invalid_json),
	    cmocka_unit_test(test_not_an_object),
	    cmocka_unit_test(test_too_large),
	    cmocka_unit_test(test_missing_explicit),
	    cmocka_unit_test(test_empty_file),
	    cmocka_unit_test(test_field_place),
	    cmocka_unit_test(test_conf_dir),
	    cmocka_unit_test(test_cache_dir),
	    cmocka_unit_test(test_state_dir),
	    cmocka_unit_test(test_bin_dirs),
	    cmocka_unit_test(test_default_networks),
	    cmocka_unit_test(test_default_networks_names),
	    cmocka_unit_test(test_default_networks_limit),
	    cmocka_unit_test(test_plugin_timeout),
	    cmocka_unit_test(test_log),
	    cmocka_unit_test(test_dns),
	    cmocka_unit_test(test_runtime),
	    cmocka_unit_test(test_log_level_unknown),
	    cmocka_unit_test(test_log_syslog_not_boolean),
	    cmocka_unit_test(test_unknown_fields),
	    cmocka_unit_test(test_misspelt_fields),
	    cmocka_unit_test(test_policy_and_sandbox),
	    cmocka_unit_test(test_man_page_examples),
	    cmocka_unit_test(test_shipped_sample),
	    cmocka_unit_test(test_ctx_cache_dir),
	    cmocka_unit_test(test_ctx_bin_dirs),
	    cmocka_unit_test(test_ctx_timeout),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
