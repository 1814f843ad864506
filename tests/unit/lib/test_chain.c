/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of lib/chain.c: the operations over a network configuration list
 * (spec section 3) in what the conformance suite
 * (tests/conformance/test_conformance.c) leaves out: refusal of bad
 * attachment parameters before any plugin runs, plugins that answer nothing
 * or an invalid result, the roll-back after a failed ADD, the version of the
 * result handed out, DEL with and without a cached result, cnirt_del_cached,
 * the names GC is given, VERSION probing (legacy plugins, malformed answers)
 * and the observer.
 *
 * Plugins are copies of the recording fake plugin ($FAKEPLUGIN, see the top
 * of tests/plugins/fakeplugin.c) in a temp bin dir: control files
 * NAME.COMMAND / NAME.default tell each copy how to answer, and every call
 * is recorded in bin/rec/NNNN-NAME-COMMAND.{env,stdin,argv}.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

#define CONTAINER_ID "ctr1"
#define NETNS	     "/var/run/netns/blue"
#define IFNAME	     "eth0"

struct fx {
	char *top;   /* temp dir, removed at teardown */
	char *bin;   /* <top>/bin: plugin copies, control files, .seq, rec/ */
	char *cache; /* <top>/cache */
	char *fake;  /* $FAKEPLUGIN */
	cnirt_ctx *ctx;
};

/* ------------------------------------------------------------ files */

static char *slurp(const char *path, size_t *len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return NULL;
		fail_msg("open %s: %s", path, strerror(errno));
	}
	struct buf b = {0};
	char chunk[8192];
	for (;;) {
		ssize_t n = TEMP_FAILURE_RETRY(read(fd, chunk, sizeof(chunk)));
		if (n < 0)
			fail_msg("read %s: %s", path, strerror(errno));
		if (n == 0)
			break;
		buf_append(&b, chunk, (size_t)n);
	}
	return buf_steal(&b, len);
}

static void write_file(const char *path, const void *data, size_t len, mode_t mode)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0)
		fail_msg("create %s: %s", path, strerror(errno));
	const char *p = data;
	while (len > 0) {
		ssize_t n = TEMP_FAILURE_RETRY(write(fd, p, len));
		if (n < 0)
			fail_msg("write %s: %s", path, strerror(errno));
		p += n;
		len -= (size_t)n;
	}
	if (fchmod(fd, mode) < 0)
		fail_msg("chmod %s: %s", path, strerror(errno));
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if ((flag == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT)
		fprintf(stderr, "test_chain: cannot remove %s: %s\n", path, strerror(errno));
	return 0;
}

static void remove_tree(const char *path)
{
	struct stat st;
	if (lstat(path, &st) == 0)
		nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static bool exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

/* ------------------------------------------------------------ fixture */

static int setup(void **state)
{
	const char *fake = getenv("FAKEPLUGIN");
	struct stat st;
	if (fake == NULL || fake[0] == '\0' || stat(fake, &st) < 0 || !S_ISREG(st.st_mode)) {
		*state = NULL;
		return 0;
	}
	struct fx *f = xzalloc(sizeof(*f));
	f->top = xstrdup("/tmp/cnirt-chain-test-XXXXXX");
	if (mkdtemp(f->top) == NULL) {
		fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
		free(f->top);
		free(f);
		return -1;
	}
	f->bin = xasprintf("%s/bin", f->top);
	f->cache = xasprintf("%s/cache", f->top);
	f->fake = xstrdup(fake);
	if (mkdir(f->bin, 0700) < 0) {
		fprintf(stderr, "mkdir %s: %s\n", f->bin, strerror(errno));
		return -1;
	}
	f->ctx = cnirt_ctx_new();
	const char *dirs[] = {f->bin};
	cnirt_ctx_set_bin_dirs(f->ctx, dirs, 1);
	cnirt_ctx_set_cache_dir(f->ctx, f->cache);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	if (f == NULL)
		return 0;
	remove_tree(f->top);
	cnirt_ctx_free(f->ctx);
	free(f->top);
	free(f->bin);
	free(f->cache);
	free(f->fake);
	free(f);
	return 0;
}

static struct fx *fixture(void **state)
{
	if (*state == NULL) {
		print_message("FAKEPLUGIN is not set to the built fake plugin: skipped\n");
		skip();
	}
	return *state;
}

/* ------------------------------------------------------------ plugins */

/* Copy the fake plugin into bin/ under each name of the comma-separated list. */
static void add_plugins(struct fx *f, const char *names)
{
	size_t len;
	_cleanup_free_ char *bytes = slurp(f->fake, &len);
	if (bytes == NULL)
		fail_msg("fake plugin %s is gone", f->fake);
	_cleanup_free_ char *copy = xstrdup(names);
	char *save = NULL;
	for (char *n = strtok_r(copy, ",", &save); n; n = strtok_r(NULL, ",", &save)) {
		_cleanup_free_ char *path = xasprintf("%s/%s", f->bin, n);
		if (!exists(path))
			write_file(path, bytes, len, 0755);
	}
}

/* The control file of `plugin` for `command` (NULL: default), replaced. */
static void control(struct fx *f, const char *plugin, const char *command, const char *text)
{
	_cleanup_free_ char *path =
	    xasprintf("%s/%s.%s", f->bin, plugin, command ? command : "default");
	write_file(path, text, strlen(text), 0644);
}

/* Make `plugin` answer `command` with `answer` on stdout and exit `status`. */
static void answer(struct fx *f, const char *plugin, const char *command, const char *text,
		   int status)
{
	_cleanup_free_ char *out = xasprintf("%s/%s.%s.out", f->top, plugin, command);
	write_file(out, text, strlen(text), 0644);
	_cleanup_free_ char *ctl = xasprintf("exit=%d\nstdout-file=%s\n", status, out);
	control(f, plugin, command, ctl);
}

/* ------------------------------------------------------------ records */

struct rec {
	unsigned seq;
	char *plugin;
	char *command;
	char *prefix; /* <bin>/rec/NNNN-NAME-COMMAND */
};

struct recs {
	struct rec *v;
	size_t n;
};

static void recs_free(struct recs *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].plugin);
		free(r->v[i].command);
		free(r->v[i].prefix);
	}
	free(r->v);
	r->v = NULL;
	r->n = 0;
}

static int rec_cmp(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* "NNNN-NAME-COMMAND.stdin": NAME may hold '-', COMMAND does not. */
static bool rec_parse(const char *dir, const char *name, struct rec *r)
{
	size_t len = strlen(name);
	static const char sfx[] = ".stdin";
	if (len <= strlen(sfx) || strcmp(name + len - strlen(sfx), sfx) != 0)
		return false;
	_cleanup_free_ char *stem = xstrndup(name, len - strlen(sfx));
	char *first = strchr(stem, '-'), *last = strrchr(stem, '-');
	if (first == NULL || first == last)
		return false;
	r->prefix = xasprintf("%s/%s", dir, stem);
	*first = '\0';
	*last = '\0';
	r->seq = (unsigned)strtoul(stem, NULL, 10);
	r->plugin = xstrdup(first + 1);
	r->command = xstrdup(last + 1);
	return true;
}

/* The calls recorded so far, in order. */
static struct recs recs_get(struct fx *f)
{
	struct recs r = {0};
	_cleanup_free_ char *dir = xasprintf("%s/rec", f->bin);
	DIR *d = opendir(dir);
	if (d == NULL) {
		if (errno != ENOENT)
			fail_msg("opendir %s: %s", dir, strerror(errno));
		return r;
	}
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		struct rec one = {0};
		if (!rec_parse(dir, de->d_name, &one))
			continue;
		r.v = xreallocarray(r.v, r.n + 1, sizeof(*r.v));
		r.v[r.n++] = one;
	}
	closedir(d);
	qsort(r.v, r.n, sizeof(*r.v), rec_cmp);
	return r;
}

static void recs_clear(struct fx *f)
{
	_cleanup_free_ char *dir = xasprintf("%s/rec", f->bin);
	remove_tree(dir);
}

/* The recorded calls must be exactly `want` ("a ADD, b ADD"); returns them. */
static struct recs expect_calls(struct fx *f, const char *want)
{
	struct recs r = recs_get(f);
	struct buf b = {0};
	buf_appends(&b, "");
	for (size_t i = 0; i < r.n; i++)
		buf_printf(&b, "%s%s %s", i ? ", " : "", r.v[i].plugin, r.v[i].command);
	if (strcmp(b.data, want) != 0)
		fail_msg("plugins ran as [%s], expected [%s]", b.data, want);
	buf_free(&b);
	return r;
}

/* No plugin ran at all: not even the rec/ directory exists. */
static void expect_no_plugin_ran(struct fx *f)
{
	_cleanup_free_ char *dir = xasprintf("%s/rec", f->bin);
	if (exists(dir)) {
		struct recs r = expect_calls(f, "");
		recs_free(&r);
		fail_msg("%s exists although no plugin was called", dir);
	}
}

static json *parse(const char *text, size_t len, const char *what)
{
	_cleanup_error_ cnirt_error *err = NULL;
	json *j = NULL;
	if (json_read_parse(text, len, what, &j, &err) < 0)
		fail_msg("%s is not JSON: %s\n%.*s", what, cnirt_error_msg(err), (int)len, text);
	return j;
}

static json *text_json(const char *text)
{
	return parse(text, strlen(text), "test JSON");
}

static json *rec_stdin(const struct rec *r)
{
	_cleanup_free_ char *path = xasprintf("%s.stdin", r->prefix);
	size_t len;
	_cleanup_free_ char *data = slurp(path, &len);
	if (data == NULL)
		fail_msg("no record %s", path);
	return parse(data, len, path);
}

/* The value of the recorded variable `key`, NULL when unset (caller frees). */
static char *rec_env(const struct rec *r, const char *key)
{
	_cleanup_free_ char *path = xasprintf("%s.env", r->prefix);
	_cleanup_free_ char *data = slurp(path, NULL);
	if (data == NULL)
		fail_msg("no record %s", path);
	size_t klen = strlen(key);
	char *save = NULL;
	for (char *l = strtok_r(data, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (strncmp(l, key, klen) == 0 && l[klen] == '=')
			return xstrdup(l + klen + 1);
	return NULL;
}

static void assert_env(const struct rec *r, const char *key, const char *want)
{
	_cleanup_free_ char *got = rec_env(r, key);
	if (want == NULL) {
		if (got != NULL && got[0] != '\0')
			fail_msg("%s %s: %s=%s, expected it empty or unset", r->plugin, r->command,
				 key, got);
		return;
	}
	if (got == NULL || strcmp(got, want) != 0)
		fail_msg("%s %s: %s=%s, expected %s", r->plugin, r->command, key,
			 got ? got : "(unset)", want);
}

static void assert_json_equal(const json *got, const json *want, const char *what)
{
	if (json_equal(got, want))
		return;
	_cleanup_free_ char *g = got ? json_gen(got, false, NULL) : xstrdup("(absent)");
	_cleanup_free_ char *w = want ? json_gen(want, false, NULL) : xstrdup("(absent)");
	fail_msg("%s: expected %s, got %s", what, w, g);
}

/* ------------------------------------------------------------ lists */

static cnirt_netlist *list_text(const char *text)
{
	_cleanup_error_ cnirt_error *err = NULL;
	cnirt_netlist *l = NULL;
	if (cnirt_netlist_parse(text, strlen(text), "test", &l, &err) < 0)
		fail_msg("cnirt_netlist_parse: %s\n%s", cnirt_error_msg(err), text);
	return l;
}

/* A list of version `version` named `name` whose plugins are the types of
 * the comma-separated `types`, each installed as a fake plugin. */
static cnirt_netlist *simple_list(struct fx *f, const char *version, const char *name,
				  const char *types)
{
	add_plugins(f, types);
	struct buf b = {0};
	buf_printf(&b, "{\"cniVersion\":\"%s\",\"name\":\"%s\",\"plugins\":[", version, name);
	_cleanup_free_ char *copy = xstrdup(types);
	char *save = NULL;
	bool first = true;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		buf_printf(&b, "%s{\"type\":\"%s\"}", first ? "" : ",", t);
		first = false;
	}
	buf_appends(&b, "]}");
	_cleanup_free_ char *text = buf_steal(&b, NULL);
	return list_text(text);
}

static const cnirt_attachment plain = {
    .container_id = CONTAINER_ID,
    .netns = NETNS,
    .ifname = IFNAME,
};

#define assert_ok(expr, err)                                                                       \
	do {                                                                                       \
		if ((expr) < 0)                                                                    \
			fail_msg("%s failed: %s", #expr, cnirt_error_msg(err));                    \
	} while (0)

/* err has `code` and a message containing `part`. */
static void assert_error(const cnirt_error *err, int code, const char *part)
{
	if (err == NULL)
		fail_msg("no error, expected code %d with \"%s\"", code, part);
	if (cnirt_error_code(err) != code || strstr(cnirt_error_msg(err), part) == NULL)
		fail_msg("error %d \"%s\", expected code %d with \"%s\"", cnirt_error_code(err),
			 cnirt_error_msg(err), code, part);
}

static void assert_names(const cnirt_error *err, const char *network, const char *plugin)
{
	const char *n = cnirt_error_network(err), *p = cnirt_error_plugin(err);
	if (network && (n == NULL || strcmp(n, network) != 0))
		fail_msg("error \"%s\" names network %s, expected %s", cnirt_error_msg(err),
			 n ? n : "(none)", network);
	if (plugin && (p == NULL || strcmp(p, plugin) != 0))
		fail_msg("error \"%s\" names plugin %s, expected %s", cnirt_error_msg(err),
			 p ? p : "(none)", plugin);
}

static bool cached(struct fx *f, const char *network, const char *id, const char *ifname)
{
	_cleanup_error_ cnirt_error *err = NULL;
	cnirt_cache_entry *e = NULL;
	assert_ok(cnirt_cache_get(f->ctx, network, id, ifname, &e, &err), err);
	bool found = e != NULL;
	cnirt_cache_entry_free(e);
	return found;
}

static char *cache_file(struct fx *f, const char *network, const char *id, const char *ifname)
{
	return xasprintf("%s/results/%s-%s-%s", f->cache, network, id, ifname);
}

/* Replace field `key` of a cache entry's JSON by `value` (taken). */
static void cache_entry_set(struct fx *f, const char *network, const char *id, const char *ifname,
			    const char *key, json *value)
{
	_cleanup_free_ char *path = cache_file(f, network, id, ifname);
	size_t len;
	_cleanup_free_ char *text = slurp(path, &len);
	if (text == NULL)
		fail_msg("no cache entry %s", path);
	_cleanup_json_ json *o = parse(text, len, path);
	json_obj_set(o, key, value);
	size_t out_len;
	_cleanup_free_ char *out = json_gen(o, false, &out_len);
	write_file(path, out, out_len, 0600);
}

static void add_ok(struct fx *f, const cnirt_netlist *l, const cnirt_attachment *a)
{
	_cleanup_error_ cnirt_error *err = NULL;
	assert_ok(cnirt_add(f->ctx, l, a, NULL, &err), err);
}

/* ------------------------------------------- attachment parameters */

enum op { OP_ADD, OP_CHECK, OP_DEL };
static const char *const op_names[] = {"ADD", "CHECK", "DEL"};

static int run_op(struct fx *f, enum op op, const cnirt_netlist *l, const cnirt_attachment *a,
		  cnirt_error **err)
{
	switch (op) {
	case OP_ADD:
		return cnirt_add(f->ctx, l, a, NULL, err);
	case OP_CHECK:
		return cnirt_check(f->ctx, l, a, err);
	case OP_DEL:
		return cnirt_del(f->ctx, l, a, err);
	}
	return -1;
}

/* `op` with attachment `a` is refused with code `code`, a message holding
 * `part`, the network named, and no plugin run. */
static void expect_refused(struct fx *f, enum op op, const cnirt_netlist *l,
			   const cnirt_attachment *a, int code, const char *part)
{
	_cleanup_error_ cnirt_error *err = NULL;
	if (run_op(f, op, l, a, &err) == 0)
		fail_msg("%s succeeded, expected a refusal with \"%s\"", op_names[op], part);
	assert_error(err, code, part);
	assert_names(err, cnirt_netlist_name(l), NULL);
	expect_no_plugin_ran(f);
}

/* No attachment at all: refused, code 4 (spec 1.0.0 section 5, "Error": 4 is
 * "Invalid necessary environment variables, like CNI_COMMAND,
 * CNI_CONTAINERID, etc."). */
static void test_attachment_missing(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "1.0.0", "attnet", "a,b");
	for (enum op op = OP_ADD; op <= OP_DEL; op++)
		expect_refused(f, op, l, NULL, CNIRT_ERR_INVALID_ENV, "no attachment");
	cnirt_netlist_free(l);
}

/* No list: refused, nothing runs. */
static void test_list_missing(void **state)
{
	struct fx *f = fixture(state);
	_cleanup_error_ cnirt_error *err = NULL;
	assert_true(cnirt_add(f->ctx, NULL, &plain, NULL, &err) < 0);
	assert_error(err, CNIRT_ERR_INVALID_CONFIG, "no network configuration");
	cnirt_error_free(TAKE_PTR(err));
	assert_true(cnirt_check(f->ctx, NULL, &plain, &err) < 0);
	assert_error(err, CNIRT_ERR_INVALID_CONFIG, "no network configuration");
	cnirt_error_free(TAKE_PTR(err));
	assert_true(cnirt_del(f->ctx, NULL, &plain, &err) < 0);
	assert_error(err, CNIRT_ERR_INVALID_CONFIG, "no network configuration");
}

/*
 * Spec 1.0.0 section 2, "Parameters": CNI_CONTAINERID "Must not be empty.
 * Must start with an alphanumeric character, optionally followed by any
 * combination of one or more alphanumeric characters, underscore (), dot (.)
 * or hyphen (-)." Section 5: error 4, "The error message must contain the
 * names of invalid variables". Checked for DEL too (the id becomes part of
 * a cache path).
 */
static void test_attachment_bad_container_id(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "1.0.0", "attnet", "a,b");
	static const char *const bad[] = {"", "-x", "../etc", "a/b", "a b", "ä"};
	for (enum op op = OP_ADD; op <= OP_DEL; op++) {
		cnirt_attachment a = plain;
		a.container_id = NULL;
		expect_refused(f, op, l, &a, CNIRT_ERR_INVALID_ENV, "container id");
		for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
			a.container_id = bad[i];
			expect_refused(f, op, l, &a, CNIRT_ERR_INVALID_ENV, "container id");
		}
	}
	cnirt_netlist_free(l);
}

/* CNI_IFNAME: a Linux interface name (at most 15 bytes, no '/', ':' or
 * white space, not "." or ".."): refused with code 4 naming the field. */
static void test_attachment_bad_ifname(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "1.0.0", "attnet", "a,b");
	static const char *const bad[] = {
	    "", ".", "..", "a/b", "eth:0", "eth 0", "a123456789012345"};
	for (enum op op = OP_ADD; op <= OP_DEL; op++) {
		cnirt_attachment a = plain;
		a.ifname = NULL;
		expect_refused(f, op, l, &a, CNIRT_ERR_INVALID_ENV, "interface name");
		for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
			a.ifname = bad[i];
			expect_refused(f, op, l, &a, CNIRT_ERR_INVALID_ENV, "interface name");
		}
	}
	cnirt_netlist_free(l);
}

/*
 * Spec 1.0.0 section 2: CNI_NETNS is a "Required environment parameter" of
 * ADD and CHECK, an "Optional environment parameter" of DEL. ADD and CHECK
 * without one are refused before any plugin runs; DEL runs every plugin with
 * CNI_NETNS empty or unset.
 */
static void test_attachment_empty_netns(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "1.0.0", "attnet", "a,b");
	static const char *const none[] = {NULL, ""};
	for (size_t i = 0; i < ARRAY_SIZE(none); i++) {
		cnirt_attachment a = plain;
		a.netns = none[i];
		expect_refused(f, OP_ADD, l, &a, CNIRT_ERR_INVALID_ENV, "network namespace");
		expect_refused(f, OP_CHECK, l, &a, CNIRT_ERR_INVALID_ENV, "network namespace");

		_cleanup_error_ cnirt_error *err = NULL;
		assert_ok(cnirt_del(f->ctx, l, &a, &err), err);
		struct recs r = expect_calls(f, "b DEL, a DEL");
		for (size_t k = 0; k < r.n; k++) {
			assert_env(&r.v[k], "CNI_NETNS", NULL);
			assert_env(&r.v[k], "CNI_CONTAINERID", CONTAINER_ID);
			assert_env(&r.v[k], "CNI_IFNAME", IFNAME);
		}
		recs_free(&r);
		recs_clear(f);
	}
	cnirt_netlist_free(l);
}

/*
 * Spec 1.0.0 section 2: CNI_ARGS holds "Alphanumeric key-value pairs
 * separated by semicolons; for example, "FOO=BAR;ABC=123"". A pair that
 * could not be read back from that form (empty key, '=' or ';' in the key,
 * ';' in the value) is refused, naming the pair, before any plugin runs.
 */
static void test_attachment_bad_args(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "1.0.0", "attnet", "a,b");
	static const struct {
		cnirt_kv second;
		const char *named;
	} cases[] = {
	    {{"", "v"}, "CNI_ARGS pair 2 (\"\")"},
	    {{NULL, "v"}, "CNI_ARGS pair 2"},
	    {{"K=EY", "v"}, "CNI_ARGS pair 2 (\"K=EY\")"},
	    {{"K;EY", "v"}, "CNI_ARGS pair 2 (\"K;EY\")"},
	    {{"KEY", "v;w"}, "CNI_ARGS pair 2 (\"KEY\")"},
	    {{"KEY", NULL}, "CNI_ARGS pair 2 (\"KEY\")"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		cnirt_kv args[] = {{"GOOD", "1"}, cases[i].second, {"LAST", "2"}};
		cnirt_attachment a = plain;
		a.args = args;
		a.n_args = ARRAY_SIZE(args);
		for (enum op op = OP_ADD; op <= OP_DEL; op++)
			expect_refused(f, op, l, &a, CNIRT_ERR_INVALID_ENV, cases[i].named);
	}
	cnirt_netlist_free(l);
}

/* Pairs that are fine pass in order, joined with ';'; a value may hold '='
 * (the reader splits each pair at its first '='). */
static void test_attachment_args_joined(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "1.0.0", "attnet", "a,b");
	const cnirt_kv args[] = {{"IgnoreUnknown", "1"}, {"K8S_POD_NAME", "web=1"}, {"E", ""}};
	cnirt_attachment a = plain;
	a.args = args;
	a.n_args = ARRAY_SIZE(args);
	add_ok(f, l, &a);
	struct recs r = expect_calls(f, "a ADD, b ADD");
	for (size_t i = 0; i < r.n; i++)
		assert_env(&r.v[i], "CNI_ARGS", "IgnoreUnknown=1;K8S_POD_NAME=web=1;E=");
	recs_free(&r);
	cnirt_netlist_free(l);
}

/* The preexec function told the type of each plugin it prepares: one line
 * per plugin appended to <bin>/preexec.types (the child may not share our
 * memory). */
static int preexec_types(void *data, const char *plugin)
{
	int fd = open(data, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return errno;
	char line[64];
	int n = snprintf(line, sizeof(line), "%s\n", plugin ? plugin : "(null)");
	int e = write(fd, line, (size_t)n) == n ? 0 : EIO;
	close(fd);
	return e;
}

/* cnirt_ctx_set_plugin_args(): pairs for one plugin type reach that
 * plugin alone, in ADD, CHECK, DEL and the DEL from the cache; n 0 removes
 * them; cnirt_ctx_set_plugin_preexec() is told each plugin's type. */
static void test_plugin_args_one_type(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "1.0.0", "attnet", "a,b");
	const cnirt_kv args[] = {{"IgnoreUnknown", "1"}};
	const cnirt_kv own[] = {{"K8S_POD_NAME", "web"}};
	_cleanup_free_ char *types = xasprintf("%s/preexec.types", f->bin);
	cnirt_ctx_set_plugin_preexec(f->ctx, preexec_types, types);
	_cleanup_error_ cnirt_error *err = NULL;
	assert_ok(cnirt_ctx_set_plugin_args(f->ctx, "b", own, 1, &err), err);
	cnirt_attachment a = plain;
	a.args = args;
	a.n_args = 1;
	add_ok(f, l, &a);
	assert_ok(cnirt_check(f->ctx, l, &a, &err), err);
	assert_ok(cnirt_del_cached(f->ctx, "attnet", a.container_id, a.ifname, NULL, &err), err);
	struct recs r = expect_calls(f, "a ADD, b ADD, a CHECK, b CHECK, b DEL, a DEL");
	for (size_t i = 0; i < r.n; i++)
		assert_env(&r.v[i], "CNI_ARGS",
			   i % 2 == (i < 4 ? 1 : 0) ? "IgnoreUnknown=1;K8S_POD_NAME=web"
						    : "IgnoreUnknown=1");
	recs_free(&r);
	size_t len;
	_cleanup_free_ char *seen = slurp(types, &len);
	assert_non_null(seen);
	assert_string_equal(seen, "a\nb\na\nb\nb\na\n");

	/* Alone (no attachment pairs), then removed. */
	recs_clear(f);
	add_ok(f, l, &plain);
	assert_ok(cnirt_ctx_set_plugin_args(f->ctx, "b", NULL, 0, &err), err);
	assert_ok(cnirt_del(f->ctx, l, &plain, &err), err);
	r = expect_calls(f, "a ADD, b ADD, b DEL, a DEL");
	assert_env(&r.v[0], "CNI_ARGS", "");
	assert_env(&r.v[1], "CNI_ARGS", "K8S_POD_NAME=web");
	assert_env(&r.v[2], "CNI_ARGS", "");
	recs_free(&r);

	/* The pairs' rules are the attachment's. */
	const cnirt_kv bad[] = {{"K8S_POD_NAME", "a;b"}};
	assert_true(cnirt_ctx_set_plugin_args(f->ctx, "b", bad, 1, &err) < 0);
	assert_error(err, CNIRT_ERR_INVALID_CONFIG, "CNI_ARGS of plugin \"b\", pair 1");
	cnirt_netlist_free(l);
}

/*
 * Spec 1.0.0 section 3, "Deriving runtimeConfig": runtimeConfig is built
 * from the capability arguments, which are keys of a JSON object; anything
 * else is refused, naming the capability arguments, before any plugin runs.
 */
static void test_capability_args_refused(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "1.0.0", "attnet", "a,b");
	static const struct {
		const char *text;
		int code;
	} cases[] = {
	    {"{", CNIRT_ERR_DECODE},
	    {"portMappings", CNIRT_ERR_DECODE},
	    {"{\"mac\":\"c2:11:22:33:44:55\"} x", CNIRT_ERR_DECODE},
	    {"[]", CNIRT_ERR_INVALID_CONFIG},
	    {"\"mac\"", CNIRT_ERR_INVALID_CONFIG},
	    {"42", CNIRT_ERR_INVALID_CONFIG},
	    {"null", CNIRT_ERR_INVALID_CONFIG},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		cnirt_attachment a = plain;
		a.capability_args = cases[i].text;
		for (enum op op = OP_ADD; op <= OP_DEL; op++)
			expect_refused(f, op, l, &a, cases[i].code, "capability arguments");
	}
	cnirt_netlist_free(l);
}

/*
 * An empty capability argument text: chain.c (call_init) takes it as none.
 * Whatever is chosen, it must be decided before any plugin runs: either the
 * ADD succeeds without runtimeConfig and is cached, or it is refused with
 * no plugin run.
 *
 * FAILS against lib/chain.c as of this writing: call_init() (chain.c, `if
 * (a->capability_args && a->capability_args[0])`) lets "" through as "no
 * capability arguments", every plugin ADDs, then cnirt_add() hands the same
 * attachment to cache_write(), whose entry_build() (cache.c) parses any
 * non-NULL capability_args and fails on "" ("capabilityArgs: empty input,
 * expected JSON"): the ADD fails after the fact and is rolled back (a ADD,
 * a DEL). Expected: cnirt_add() passes capability_args NULL to cache_write()
 * when it is empty (or refuses "" in call_init(), cnirt.h saying "JSON
 * object text, or NULL").
 */
static void test_capability_args_empty(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "1.0.0", "attnet", "a");
	cnirt_attachment a = plain;
	a.capability_args = "";
	_cleanup_error_ cnirt_error *err = NULL;
	if (cnirt_add(f->ctx, l, &a, NULL, &err) < 0) {
		struct recs r = recs_get(f);
		size_t ran = r.n;
		recs_free(&r);
		if (ran > 0) {
			print_error(
			    "ADD with capability_args \"\" ran %zu plugins, then failed: %s\n", ran,
			    cnirt_error_msg(err));
			cnirt_error_free(TAKE_PTR(err));
			cnirt_netlist_free(l);
			fail();
		}
		assert_non_null(strstr(cnirt_error_msg(err), "capability arguments"));
	} else {
		struct recs r = expect_calls(f, "a ADD");
		_cleanup_json_ json *in = rec_stdin(&r.v[0]);
		assert_null(json_obj_get(in, "runtimeConfig"));
		recs_free(&r);
		assert_true(cached(f, "attnet", CONTAINER_ID, IFNAME));
	}
	cnirt_netlist_free(l);
}

/* ------------------------------------------------------------ ADD */

/* The ADD failed on `plugin` and was rolled back: no cache entry. */
static void assert_add_failed(struct fx *f, const cnirt_netlist *l, const cnirt_error *err,
			      const char *plugin)
{
	assert_non_null(err);
	assert_names(err, cnirt_netlist_name(l), plugin);
	assert_false(cached(f, cnirt_netlist_name(l), CONTAINER_ID, IFNAME));
}

/*
 * Spec 1.0.0 section 2, ADD: "If the CNI plugin is successful, it must
 * output a result structure". A plugin that exits 0 with nothing on stdout
 * has given no result: error 6 ("Failed to decode content"), the plugin
 * named. Spec 0.4.0, "Network Configuration List Error Handling": after a
 * failed ADD the runtime "should execute the DEL action (in reverse order
 * from the ADD as specified above) for all plugins in the list, even if
 * some were not called during the ADD action".
 */
static void test_add_no_output(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "1.0.0", "addnet", "a,b,c");
	control(f, "b", "ADD", "stdout=\n");
	_cleanup_error_ cnirt_error *err = NULL;
	char *result = NULL;
	assert_true(cnirt_add(f->ctx, l, &plain, &result, &err) < 0);
	assert_null(result);
	assert_error(err, CNIRT_ERR_DECODE, "ADD returned no result");
	assert_string_equal(cnirt_error_msg(err), "ADD returned no result");
	assert_false(cnirt_error_from_plugin(err));
	assert_add_failed(f, l, err, "b");
	struct recs r = expect_calls(f, "a ADD, b ADD, c DEL, b DEL, a DEL");
	for (size_t i = 2; i < r.n; i++) {
		assert_env(&r.v[i], "CNI_CONTAINERID", CONTAINER_ID);
		assert_env(&r.v[i], "CNI_NETNS", NETNS);
		assert_env(&r.v[i], "CNI_IFNAME", IFNAME);
	}
	recs_free(&r);
	cnirt_netlist_free(l);
}

/* Same for the first plugin (no previous result at all) and for the last
 * (the rollback also reaches the plugin that ran last). */
static void test_add_no_output_first_and_last(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "1.0.0", "addnet", "a,b,c");
	control(f, "a", "ADD", "stdout=\n");
	_cleanup_error_ cnirt_error *err = NULL;
	assert_true(cnirt_add(f->ctx, l, &plain, NULL, &err) < 0);
	assert_error(err, CNIRT_ERR_DECODE, "ADD returned no result");
	assert_add_failed(f, l, err, "a");
	struct recs r = expect_calls(f, "a ADD, c DEL, b DEL, a DEL");
	for (size_t i = 1; i < r.n; i++) {
		_cleanup_json_ json *in = rec_stdin(&r.v[i]);
		assert_null(json_obj_get(in, "prevResult"));
	}
	recs_free(&r);
	recs_clear(f);
	cnirt_error_free(TAKE_PTR(err));

	control(f, "a", "ADD", "# default answer\n");
	control(f, "c", "ADD", "stdout=\n");
	assert_true(cnirt_add(f->ctx, l, &plain, NULL, &err) < 0);
	assert_error(err, CNIRT_ERR_DECODE, "ADD returned no result");
	assert_add_failed(f, l, err, "c");
	r = expect_calls(f, "a ADD, b ADD, c ADD, c DEL, b DEL, a DEL");
	recs_free(&r);
	cnirt_netlist_free(l);
}

/*
 * Spec 1.0.0 section 5, "Success": ips[].address is "an IP address in CIDR
 * notation". A result that breaks the result format is a decoding failure
 * (error 6) naming the field, and the ADD is rolled back.
 */
static void test_add_invalid_result(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "1.0.0", "addnet", "a,b,c");
	answer(f, "b", "ADD",
	       "{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.1.2.3\","
	       "\"gateway\":\"10.1.2.1\"}]}",
	       0);
	_cleanup_error_ cnirt_error *err = NULL;
	assert_true(cnirt_add(f->ctx, l, &plain, NULL, &err) < 0);
	assert_error(err, CNIRT_ERR_DECODE, "ips[0].address");
	assert_non_null(strstr(cnirt_error_msg(err), "10.1.2.3"));
	assert_add_failed(f, l, err, "b");
	struct recs r = expect_calls(f, "a ADD, b ADD, c DEL, b DEL, a DEL");
	recs_free(&r);
	cnirt_netlist_free(l);
}

/* An error result printed with exit status 0 is not a success result:
 * refused (the code of a success result is not read as an error code). */
static void test_add_result_not_object(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "1.0.0", "addnet", "a,b");
	answer(f, "b", "ADD", "[]", 0);
	_cleanup_error_ cnirt_error *err = NULL;
	assert_true(cnirt_add(f->ctx, l, &plain, NULL, &err) < 0);
	assert_int_equal(cnirt_error_code(err), CNIRT_ERR_DECODE);
	assert_add_failed(f, l, err, "b");
	struct recs r = expect_calls(f, "a ADD, b ADD, b DEL, a DEL");
	recs_free(&r);
	cnirt_netlist_free(l);
}

/*
 * The roll-back after a failed ADD must reach "all plugins in the list"
 * (spec 0.4.0, "Network Configuration List Error Handling"): a DEL that
 * fails there does not stop it, and the caller gets the error of the ADD
 * (spec 1.0.0 section 3, "Adding an attachment", 4: "If the plugin returns
 * an error, halt execution and return the error to the caller"), with its
 * code, msg and details intact.
 */
static void test_rollback_past_failing_del(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "1.0.0", "addnet", "a,b,c");
	answer(f, "c", "ADD",
	       "{\"cniVersion\":\"1.0.0\",\"code\":7,\"msg\":\"bad subnet\",\"details\":\"/31\"}",
	       1);
	answer(f, "b", "DEL", "{\"cniVersion\":\"1.0.0\",\"code\":11,\"msg\":\"busy\"}", 1);
	_cleanup_error_ cnirt_error *err = NULL;
	assert_true(cnirt_add(f->ctx, l, &plain, NULL, &err) < 0);
	assert_int_equal(cnirt_error_code(err), 7);
	assert_string_equal(cnirt_error_msg(err), "bad subnet");
	assert_string_equal(cnirt_error_details(err), "/31");
	assert_true(cnirt_error_from_plugin(err));
	assert_add_failed(f, l, err, "c");
	struct recs r = expect_calls(f, "a ADD, b ADD, c ADD, c DEL, b DEL, a DEL");
	recs_free(&r);
	cnirt_netlist_free(l);
}

/* Even when every DEL of the roll-back fails, the ADD error is returned. */
static void test_rollback_all_dels_fail(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "1.0.0", "addnet", "a,b");
	answer(f, "b", "ADD", "{\"cniVersion\":\"1.0.0\",\"code\":5,\"msg\":\"io\"}", 1);
	answer(f, "a", "DEL", "{\"cniVersion\":\"1.0.0\",\"code\":11,\"msg\":\"a busy\"}", 1);
	answer(f, "b", "DEL", "{\"cniVersion\":\"1.0.0\",\"code\":11,\"msg\":\"b busy\"}", 1);
	_cleanup_error_ cnirt_error *err = NULL;
	assert_true(cnirt_add(f->ctx, l, &plain, NULL, &err) < 0);
	assert_int_equal(cnirt_error_code(err), 5);
	assert_string_equal(cnirt_error_msg(err), "io");
	assert_add_failed(f, l, err, "b");
	struct recs r = expect_calls(f, "a ADD, b ADD, b DEL, a DEL");
	recs_free(&r);
	cnirt_netlist_free(l);
}

/*
 * "The runtime must store the result returned by the final plugin
 * persistently" (spec 1.0.0 section 3): when that cannot be done the ADD
 * fails, naming the network, and is rolled back like any other failure.
 */
static void test_add_cache_unwritable(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "1.0.0", "addnet", "a,b");
	_cleanup_free_ char *file = xasprintf("%s/not-a-dir", f->top);
	write_file(file, "x", 1, 0600);
	_cleanup_free_ char *cache = xasprintf("%s/cache", file);
	cnirt_ctx_set_cache_dir(f->ctx, cache);
	_cleanup_error_ cnirt_error *err = NULL;
	char *result = NULL;
	assert_true(cnirt_add(f->ctx, l, &plain, &result, &err) < 0);
	assert_null(result);
	assert_non_null(err);
	assert_names(err, "addnet", NULL);
	assert_false(cnirt_error_from_plugin(err));
	/* found before the first plugin runs: nothing to roll back */
	expect_no_plugin_ran(f);
	cnirt_netlist_free(l);
}

/* The pretty JSON text of `text` parsed, for comparison of whole texts. */
static char *pretty(const char *text)
{
	_cleanup_json_ json *j = text_json(text);
	return json_gen(j, true, NULL);
}

/*
 * Spec 1.0.0 section 5, "Success": "cniVersion: The same version supplied on
 * input". A plugin that answers an older version anyway: its result is
 * converted to the list's version (docs/architecture.md, "Behaviour worth
 * knowing") before it is handed out and cached, and the text handed out is
 * pretty-printed.
 */
static void test_add_result_in_list_version(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "1.0.0", "addnet", "a,b");
	answer(f, "b", "ADD",
	       "{\"cniVersion\":\"0.3.1\",\"interfaces\":[{\"name\":\"eth0\",\"sandbox\":"
	       "\"/var/run/netns/blue\"}],\"ips\":[{\"version\":\"4\",\"address\":"
	       "\"10.1.0.5/24\",\"gateway\":\"10.1.0.1\",\"interface\":0}],\"dns\":{}}",
	       0);
	_cleanup_error_ cnirt_error *err = NULL;
	_cleanup_free_ char *result = NULL;
	assert_ok(cnirt_add(f->ctx, l, &plain, &result, &err), err);
	assert_non_null(result);
	_cleanup_free_ char *want_text = pretty(result);
	assert_string_equal(result, want_text);
	assert_non_null(strchr(result, '\n'));

	_cleanup_json_ json *got = text_json(result);
	assert_string_equal(json_str(json_obj_get(got, "cniVersion")), "1.0.0");
	const json *ips = json_obj_get(got, "ips");
	assert_non_null(ips);
	assert_int_equal(ips->type, JSON_ARRAY);
	assert_int_equal(ips->u.array.n, 1);
	assert_null(json_obj_get(ips->u.array.v[0], "version"));
	assert_string_equal(json_str(json_obj_get(ips->u.array.v[0], "address")), "10.1.0.5/24");

	/* The cache holds the same result. */
	cnirt_cache_entry *e = NULL;
	assert_ok(cnirt_cache_get(f->ctx, "addnet", CONTAINER_ID, IFNAME, &e, &err), err);
	assert_non_null(e);
	_cleanup_json_ json *c = text_json(cnirt_cache_entry_result(e));
	cnirt_cache_entry_free(e);
	assert_json_equal(c, got, "cached result");
	struct recs r = expect_calls(f, "a ADD, b ADD");
	recs_free(&r);
	cnirt_netlist_free(l);
}

/* The other way round: a 1.0.0 answer for a 0.4.0 list comes back as 0.4.0,
 * with the `version` of each address that format requires. */
static void test_add_result_newer_converted_down(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "0.4.0", "addnet", "a");
	answer(f, "a", "ADD",
	       "{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.1.0.5/24\"},"
	       "{\"address\":\"fd00::5/64\"}]}",
	       0);
	_cleanup_error_ cnirt_error *err = NULL;
	_cleanup_free_ char *result = NULL;
	assert_ok(cnirt_add(f->ctx, l, &plain, &result, &err), err);
	_cleanup_json_ json *got = text_json(result);
	assert_string_equal(json_str(json_obj_get(got, "cniVersion")), "0.4.0");
	const json *ips = json_obj_get(got, "ips");
	assert_non_null(ips);
	assert_int_equal(ips->u.array.n, 2);
	assert_string_equal(json_str(json_obj_get(ips->u.array.v[0], "version")), "4");
	assert_string_equal(json_str(json_obj_get(ips->u.array.v[1], "version")), "6");
	cnirt_netlist_free(l);
}

/* ------------------------------------------------------------ CHECK */

/* Spec 1.0.0 section 3, "Checking an attachment", 4: "If the plugin returns
 * an error, halt execution and return the error to the caller." */
static void test_check_stops_at_failure(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "1.0.0", "chknet", "a,b,c");
	add_ok(f, l, &plain);
	recs_clear(f);
	answer(f, "b", "CHECK", "{\"cniVersion\":\"1.0.0\",\"code\":11,\"msg\":\"later\"}", 1);
	_cleanup_error_ cnirt_error *err = NULL;
	assert_true(cnirt_check(f->ctx, l, &plain, &err) < 0);
	assert_int_equal(cnirt_error_code(err), CNIRT_ERR_TRY_AGAIN);
	assert_string_equal(cnirt_error_msg(err), "later");
	assert_names(err, "chknet", "b");
	struct recs r = expect_calls(f, "a CHECK, b CHECK");
	recs_free(&r);
	/* A failed CHECK leaves the cache alone. */
	assert_true(cached(f, "chknet", CONTAINER_ID, IFNAME));
	cnirt_netlist_free(l);
}

/* ------------------------------------------------------------ DEL */

/*
 * Spec 0.4.0, DEL: the prevResult "may be omitted for DEL if not available".
 * A 1.0.0 list with nothing cached: every plugin runs, in reverse order,
 * without prevResult, and the DEL succeeds.
 */
static void test_del_no_cache_100(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "1.0.0", "delnet", "a,b,c");
	_cleanup_error_ cnirt_error *err = NULL;
	assert_ok(cnirt_del(f->ctx, l, &plain, &err), err);
	struct recs r = expect_calls(f, "c DEL, b DEL, a DEL");
	for (size_t i = 0; i < r.n; i++) {
		_cleanup_json_ json *in = rec_stdin(&r.v[i]);
		if (json_obj_get(in, "prevResult") != NULL)
			fail_msg("%s DEL got a prevResult with nothing cached", r.v[i].plugin);
		assert_string_equal(json_str(json_obj_get(in, "cniVersion")), "1.0.0");
	}
	recs_free(&r);
	cnirt_netlist_free(l);
}

/*
 * prevResult on DEL came with spec 0.4.0 ("The runtime must ... provide
 * that result as prevResult for DEL"); plugins of 0.3.x do not expect it.
 * A 0.3.1 list never gets one, even with a result in the cache, and the
 * entry is still removed after the DEL.
 */
static void test_del_031_never_prev_result(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "0.3.1", "delnet", "a,b");
	add_ok(f, l, &plain);
	cnirt_cache_entry *e = NULL;
	_cleanup_error_ cnirt_error *err = NULL;
	assert_ok(cnirt_cache_get(f->ctx, "delnet", CONTAINER_ID, IFNAME, &e, &err), err);
	assert_non_null(e);
	assert_non_null(cnirt_cache_entry_result(e));
	cnirt_cache_entry_free(e);
	recs_clear(f);

	assert_ok(cnirt_del(f->ctx, l, &plain, &err), err);
	struct recs r = expect_calls(f, "b DEL, a DEL");
	for (size_t i = 0; i < r.n; i++) {
		_cleanup_json_ json *in = rec_stdin(&r.v[i]);
		if (json_obj_get(in, "prevResult") != NULL)
			fail_msg("%s DEL of a 0.3.1 list got a prevResult", r.v[i].plugin);
	}
	recs_free(&r);
	assert_false(cached(f, "delnet", CONTAINER_ID, IFNAME));
	cnirt_netlist_free(l);
}

/* A cached result that is valid JSON but not a valid result (an address
 * that is not CIDR) is treated as none: DEL runs without prevResult and
 * succeeds (docs/architecture.md: "a missing or corrupt cache entry ... is never an
 * obstacle"); CHECK has
 * no result to check against and fails. */
static void test_del_invalid_cached_result(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "1.0.0", "delnet", "a,b");
	add_ok(f, l, &plain);
	cache_entry_set(f, "delnet", CONTAINER_ID, IFNAME, "result",
			text_json("{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"bogus\"}]}"));
	recs_clear(f);

	_cleanup_error_ cnirt_error *err = NULL;
	assert_true(cnirt_check(f->ctx, l, &plain, &err) < 0);
	assert_non_null(strstr(cnirt_error_msg(err), "no cached result"));
	assert_names(err, "delnet", NULL);
	expect_no_plugin_ran(f);
	cnirt_error_free(TAKE_PTR(err));

	assert_ok(cnirt_del(f->ctx, l, &plain, &err), err);
	struct recs r = expect_calls(f, "b DEL, a DEL");
	for (size_t i = 0; i < r.n; i++) {
		_cleanup_json_ json *in = rec_stdin(&r.v[i]);
		assert_null(json_obj_get(in, "prevResult"));
	}
	recs_free(&r);
	assert_false(cached(f, "delnet", CONTAINER_ID, IFNAME));
	cnirt_netlist_free(l);
}

/* ------------------------------------------ the running result of an ADD */

#define STEP_A "{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.1.0.5/24\"}]}"
#define STEP_B                                                                                     \
	"{\"cniVersion\":\"0.4.0\",\"ips\":[{\"version\":\"4\",\"address\":\"10.1.0.6/24\"}]}"

struct steps {
	size_t n;
	char *result[4];
	size_t index[4];
	bool cached_at_step[4]; /* was the entry in the cache when the step came? */
	int fail_at;		/* the step (from 1) that answers EROFS, or 0 */
	struct fx *f;
};

static int on_step(void *data, const cnirt_add_step *s)
{
	struct steps *st = data;
	assert_true(st->n < 4);
	assert_string_equal(s->network, "addnet");
	assert_string_equal(s->container_id, CONTAINER_ID);
	assert_string_equal(s->ifname, IFNAME);
	assert_int_equal(strlen(s->result), s->result_len);
	st->index[st->n] = s->index;
	st->cached_at_step[st->n] = cached(st->f, "addnet", CONTAINER_ID, IFNAME);
	st->result[st->n++] = xstrdup(s->result);
	return (int)st->n == st->fail_at ? EROFS : 0;
}

static void steps_free(struct steps *st)
{
	for (size_t i = 0; i < st->n; i++)
		free(st->result[i]);
}

/* cnirt.h, cnirt_ctx_set_add_step(): after each plugin's ADD, before the
 * next starts and before the cache entry is written, the running result in
 * the list's version (b answers 0.4.0: the step gets it as 1.0.0). */
static void test_add_step_results(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "1.0.0", "addnet", "a,b");
	answer(f, "a", "ADD", STEP_A, 0);
	answer(f, "b", "ADD", STEP_B, 0);
	struct steps st = {.f = f};
	cnirt_ctx_set_add_step(f->ctx, on_step, &st);
	_cleanup_error_ cnirt_error *err = NULL;
	_cleanup_free_ char *result = NULL;
	assert_ok(cnirt_add(f->ctx, l, &plain, &result, &err), err);
	assert_int_equal(st.n, 2);
	assert_int_equal(st.index[0], 0);
	assert_int_equal(st.index[1], 1);
	assert_false(st.cached_at_step[0]);
	assert_false(st.cached_at_step[1]);
	_cleanup_json_ json *first = text_json(st.result[0]);
	_cleanup_json_ json *want_a = text_json(STEP_A);
	assert_json_equal(json_obj_get(first, "ips"), json_obj_get(want_a, "ips"), "first step");
	_cleanup_json_ json *second = text_json(st.result[1]);
	_cleanup_json_ json *final = text_json(result);
	assert_json_equal(second, final, "last step");
	assert_string_equal(json_str(json_obj_get(second, "cniVersion")), "1.0.0");
	steps_free(&st);
	cnirt_netlist_free(l);
}

/* A step the engine cannot keep fails the ADD (an I/O error naming the
 * plugin) before the next plugin runs; the rollback DEL gets the result of
 * the plugin that ran last. */
static void test_add_step_refused(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "1.0.0", "addnet", "a,b,c");
	answer(f, "a", "ADD", STEP_A, 0);
	answer(f, "b", "ADD", STEP_B, 0);
	struct steps st = {.f = f, .fail_at = 2};
	cnirt_ctx_set_add_step(f->ctx, on_step, &st);
	_cleanup_error_ cnirt_error *err = NULL;
	assert_true(cnirt_add(f->ctx, l, &plain, NULL, &err) < 0);
	assert_int_equal(cnirt_error_kind(err), CNIRT_KIND_IO);
	assert_int_equal(cnirt_error_errno(err), EROFS);
	assert_names(err, "addnet", "b");
	struct recs r = expect_calls(f, "a ADD, b ADD, c DEL, b DEL, a DEL");
	_cleanup_json_ json *in = rec_stdin(&r.v[2]);
	_cleanup_json_ json *want = text_json(st.result[1]);
	assert_json_equal(json_obj_get(in, "prevResult"), want, "rollback prevResult");
	recs_free(&r);
	assert_false(cached(f, "addnet", CONTAINER_ID, IFNAME));
	steps_free(&st);
	cnirt_netlist_free(l);
}

/* cnirt_del_with_result(): nothing cached, the given result (of another
 * version) is every plugin's prevResult, in the list's version. */
static void test_del_with_result_no_cache(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "1.0.0", "delnet", "a,b");
	_cleanup_error_ cnirt_error *err = NULL;
	assert_ok(cnirt_del_with_result(f->ctx, l, &plain, STEP_B, &err), err);
	struct recs r = expect_calls(f, "b DEL, a DEL");
	for (size_t i = 0; i < r.n; i++) {
		_cleanup_json_ json *in = rec_stdin(&r.v[i]);
		const json *prev = json_obj_get(in, "prevResult");
		assert_non_null(prev);
		assert_string_equal(json_str(json_obj_get(prev, "cniVersion")), "1.0.0");
		const json *ips = json_obj_get(prev, "ips");
		assert_string_equal(json_str(json_obj_get(ips->u.array.v[0], "address")),
				    "10.1.0.6/24");
	}
	recs_free(&r);
	cnirt_netlist_free(l);
}

/* The cache wins over the given result; an invalid given result is none
 * (never an obstacle); a 0.3.1 list never gets a prevResult. */
static void test_del_with_result_cache_first(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "1.0.0", "addnet", "a");
	answer(f, "a", "ADD", STEP_A, 0);
	add_ok(f, l, &plain);
	recs_clear(f);
	_cleanup_error_ cnirt_error *err = NULL;
	assert_ok(cnirt_del_with_result(f->ctx, l, &plain, STEP_B, &err), err);
	struct recs r = expect_calls(f, "a DEL");
	_cleanup_json_ json *in = rec_stdin(&r.v[0]);
	_cleanup_json_ json *want = text_json(STEP_A);
	assert_json_equal(json_obj_get(json_obj_get(in, "prevResult"), "ips"),
			  json_obj_get(want, "ips"), "cached prevResult");
	recs_free(&r);
	assert_false(cached(f, "addnet", CONTAINER_ID, IFNAME));
	recs_clear(f);

	assert_ok(cnirt_del_with_result(f->ctx, l, &plain, "{\"ips\":7", &err), err);
	r = expect_calls(f, "a DEL");
	_cleanup_json_ json *in2 = rec_stdin(&r.v[0]);
	assert_null(json_obj_get(in2, "prevResult"));
	recs_free(&r);
	recs_clear(f);

	cnirt_netlist *old = simple_list(f, "0.3.1", "oldnet", "a");
	assert_ok(cnirt_del_with_result(f->ctx, old, &plain, STEP_B, &err), err);
	r = expect_calls(f, "a DEL");
	_cleanup_json_ json *in3 = rec_stdin(&r.v[0]);
	assert_null(json_obj_get(in3, "prevResult"));
	recs_free(&r);
	cnirt_netlist_free(old);
	cnirt_netlist_free(l);
}

/* ------------------------------------------------------ cnirt_del_cached */

/* cnirt.h: "No entry: success"; nothing runs. */
static void test_del_cached_no_entry(void **state)
{
	struct fx *f = fixture(state);
	add_plugins(f, "a,b");
	_cleanup_error_ cnirt_error *err = NULL;
	assert_ok(cnirt_del_cached(f->ctx, "delnet", CONTAINER_ID, IFNAME, NULL, &err), err);
	assert_null(err);
	expect_no_plugin_ran(f);
}

/* Invalid names are refused (they would make a path outside the cache). */
static void test_del_cached_bad_names(void **state)
{
	struct fx *f = fixture(state);
	_cleanup_error_ cnirt_error *err = NULL;
	assert_true(cnirt_del_cached(f->ctx, "../x", CONTAINER_ID, IFNAME, NULL, &err) < 0);
	assert_non_null(strstr(cnirt_error_msg(err), "network name"));
	cnirt_error_free(TAKE_PTR(err));
	assert_true(cnirt_del_cached(f->ctx, "delnet", "../x", IFNAME, NULL, &err) < 0);
	assert_error(err, CNIRT_ERR_INVALID_ENV, "container id");
	cnirt_error_free(TAKE_PTR(err));
	assert_true(cnirt_del_cached(f->ctx, "delnet", CONTAINER_ID, "a/b", NULL, &err) < 0);
	assert_error(err, CNIRT_ERR_INVALID_ENV, "interface name");
	expect_no_plugin_ran(f);
}

/* An entry under network A whose cached configuration names network B was
 * tampered with (or written by a confused runtime): refused, naming both;
 * no plugin runs and the entry stays. */
static void test_del_cached_other_network(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "1.0.0", "neta", "a,b");
	add_ok(f, l, &plain);
	recs_clear(f);
	static const char other[] =
	    "{\"cniVersion\":\"1.0.0\",\"name\":\"netb\",\"plugins\":[{\"type\":\"a\"}]}";
	_cleanup_free_ char *b64 = base64_encode(other, strlen(other));
	cache_entry_set(f, "neta", CONTAINER_ID, IFNAME, "config", json_new_string(b64));

	_cleanup_error_ cnirt_error *err = NULL;
	assert_true(cnirt_del_cached(f->ctx, "neta", CONTAINER_ID, IFNAME, NULL, &err) < 0);
	assert_error(err, CNIRT_ERR_INVALID_CONFIG, "\"netb\"");
	assert_names(err, "neta", NULL);
	expect_no_plugin_ran(f);
	assert_true(cached(f, "neta", CONTAINER_ID, IFNAME));
	cnirt_netlist_free(l);
}

/* A cached configuration that is no list at all: refused, nothing runs. */
static void test_del_cached_broken_config(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "1.0.0", "neta", "a");
	add_ok(f, l, &plain);
	recs_clear(f);
	_cleanup_free_ char *b64 = base64_encode("{\"name\":", 8);
	cache_entry_set(f, "neta", CONTAINER_ID, IFNAME, "config", json_new_string(b64));
	_cleanup_error_ cnirt_error *err = NULL;
	assert_true(cnirt_del_cached(f->ctx, "neta", CONTAINER_ID, IFNAME, NULL, &err) < 0);
	assert_names(err, "neta", NULL);
	assert_non_null(strstr(cnirt_error_msg(err), "cached configuration"));
	expect_no_plugin_ran(f);
	cnirt_netlist_free(l);
}

/* The netns given to cnirt_del_cached replaces the cached one (the pinned
 * namespace may live elsewhere by the time of the DEL); "" means none. */
static void test_del_cached_netns_override(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "1.0.0", "neta", "a,b");
	static const char *const overrides[] = {"/run/netns/elsewhere", ""};
	for (size_t i = 0; i < ARRAY_SIZE(overrides); i++) {
		add_ok(f, l, &plain);
		recs_clear(f);
		_cleanup_error_ cnirt_error *err = NULL;
		assert_ok(
		    cnirt_del_cached(f->ctx, "neta", CONTAINER_ID, IFNAME, overrides[i], &err),
		    err);
		struct recs r = expect_calls(f, "b DEL, a DEL");
		for (size_t k = 0; k < r.n; k++)
			assert_env(&r.v[k], "CNI_NETNS", overrides[i][0] ? overrides[i] : NULL);
		recs_free(&r);
		recs_clear(f);
		assert_false(cached(f, "neta", CONTAINER_ID, IFNAME));
	}
	cnirt_netlist_free(l);
}

/*
 * cnirt.h: cnirt_del_cached uses "the cached list bytes, CNI_ARGS,
 * capability arguments and result". Spec 1.0.0 section 2, DEL: "All
 * parameters ... must be the same as the corresponding ADD": the DEL gets
 * the ADD's CNI_ARGS, runtimeConfig and the cached result as prevResult.
 */
static void test_del_cached_uses_cached_args(void **state)
{
	struct fx *f = fixture(state);
	add_plugins(f, "a,b");
	cnirt_netlist *l =
	    list_text("{\"cniVersion\":\"1.0.0\",\"name\":\"neta\",\"plugins\":["
		      "{\"type\":\"a\",\"capabilities\":{\"portMappings\":true}},"
		      "{\"type\":\"b\",\"capabilities\":{\"mac\":true,\"ips\":false}}]}");
	static const char caps[] =
	    "{\"portMappings\":[{\"hostPort\":8080,\"containerPort\":80,\"protocol\":\"tcp\"}],"
	    "\"mac\":\"c2:11:22:33:44:55\",\"ips\":[\"10.1.0.9/24\"]}";
	const cnirt_kv args[] = {{"IgnoreUnknown", "1"}, {"K8S_POD_NAME", "web"}};
	cnirt_attachment a = plain;
	a.args = args;
	a.n_args = ARRAY_SIZE(args);
	a.capability_args = caps;
	_cleanup_error_ cnirt_error *err = NULL;
	_cleanup_free_ char *result = NULL;
	assert_ok(cnirt_add(f->ctx, l, &a, &result, &err), err);
	cnirt_netlist_free(l);
	recs_clear(f);

	assert_ok(cnirt_del_cached(f->ctx, "neta", CONTAINER_ID, IFNAME, NULL, &err), err);
	struct recs r = expect_calls(f, "b DEL, a DEL");
	_cleanup_json_ json *want_prev = text_json(result);
	_cleanup_json_ json *rc_b = text_json("{\"mac\":\"c2:11:22:33:44:55\"}");
	_cleanup_json_ json *rc_a = text_json(
	    "{\"portMappings\":[{\"hostPort\":8080,\"containerPort\":80,\"protocol\":\"tcp\"}]}");
	const json *want_rc[] = {rc_b, rc_a};
	for (size_t i = 0; i < r.n; i++) {
		assert_env(&r.v[i], "CNI_ARGS", "IgnoreUnknown=1;K8S_POD_NAME=web");
		assert_env(&r.v[i], "CNI_NETNS", NETNS);
		assert_env(&r.v[i], "CNI_CONTAINERID", CONTAINER_ID);
		assert_env(&r.v[i], "CNI_IFNAME", IFNAME);
		_cleanup_json_ json *in = rec_stdin(&r.v[i]);
		assert_json_equal(json_obj_get(in, "runtimeConfig"), want_rc[i], "runtimeConfig");
		assert_json_equal(json_obj_get(in, "prevResult"), want_prev, "prevResult");
		assert_string_equal(json_str(json_obj_get(in, "name")), "neta");
	}
	recs_free(&r);
	assert_false(cached(f, "neta", CONTAINER_ID, IFNAME));
}

/* ------------------------------------------------------------ GC */

/*
 * Spec 1.1.0 section 2, GC: `cni.dev/valid-attachments` holds objects with
 * `containerID` and `ifname`, which follow the rules of CNI_CONTAINERID and
 * CNI_IFNAME. An invalid one is refused, naming its index, before anything
 * is deleted or any plugin runs.
 */
static void test_gc_invalid_names(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "1.1.0", "gcnet", "a,b");
	cnirt_attachment c3 = plain;
	c3.container_id = "c3";
	add_ok(f, l, &c3);
	recs_clear(f);
	static const struct {
		cnirt_attachment_id valid[2];
		const char *named;
	} cases[] = {
	    {{{"c1", "eth0"}, {"c2", "a/b"}}, "cni.dev/valid-attachments[1]: interface name"},
	    {{{"c1", "eth0"}, {"c2", ""}}, "cni.dev/valid-attachments[1]: interface name"},
	    {{{"../c1", "eth0"}, {"c2", "eth0"}}, "cni.dev/valid-attachments[0]: container id"},
	    {{{"", "eth0"}, {"c2", "eth0"}}, "cni.dev/valid-attachments[0]: container id"},
	    {{{NULL, "eth0"}, {"c2", "eth0"}}, "cni.dev/valid-attachments[0]: container id"},
	    {{{"c1", NULL}, {"c2", "eth0"}}, "cni.dev/valid-attachments[0]: interface name"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		_cleanup_error_ cnirt_error *err = NULL;
		assert_true(cnirt_gc(f->ctx, l, cases[i].valid, 2, &err) < 0);
		assert_error(err, CNIRT_ERR_INVALID_ENV, cases[i].named);
		expect_no_plugin_ran(f);
		assert_true(cached(f, "gcnet", "c3", IFNAME));
	}
	cnirt_netlist_free(l);
}

/*
 * GC collects the stale attachments of its own network only (spec 1.1.0
 * section 2, GC: the valid attachments are those "to this network"): the
 * entries of another network stay, even with the same container id and
 * interface; an entry of this network is valid only if both its container
 * id and its interface name are listed.
 */
static void test_gc_other_networks_untouched(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *la = simple_list(f, "1.1.0", "neta", "a,b");
	cnirt_netlist *lb = simple_list(f, "1.1.0", "netb", "a,b");
	cnirt_attachment c1 = plain, c1net1 = plain, c3 = plain;
	c1.container_id = "c1";
	c1net1.container_id = "c1";
	c1net1.ifname = "net1";
	c3.container_id = "c3";
	add_ok(f, la, &c1);
	add_ok(f, la, &c1net1);
	add_ok(f, la, &c3);
	add_ok(f, lb, &c1net1);
	add_ok(f, lb, &c3);
	recs_clear(f);

	const cnirt_attachment_id valid[] = {{"c1", "eth0"}};
	_cleanup_error_ cnirt_error *err = NULL;
	assert_ok(cnirt_gc(f->ctx, la, valid, ARRAY_SIZE(valid), &err), err);
	struct recs r = expect_calls(f, "b DEL, a DEL, b DEL, a DEL, a GC, b GC");
	/* The two stale entries of neta, in whatever order the cache lists them. */
	bool saw_c1net1 = false, saw_c3 = false;
	for (size_t i = 0; i < 4; i++) {
		_cleanup_free_ char *id = rec_env(&r.v[i], "CNI_CONTAINERID");
		_cleanup_free_ char *ifn = rec_env(&r.v[i], "CNI_IFNAME");
		_cleanup_json_ json *in = rec_stdin(&r.v[i]);
		assert_string_equal(json_str(json_obj_get(in, "name")), "neta");
		assert_non_null(id);
		assert_non_null(ifn);
		if (strcmp(id, "c1") == 0 && strcmp(ifn, "net1") == 0)
			saw_c1net1 = true;
		else if (strcmp(id, "c3") == 0 && strcmp(ifn, "eth0") == 0)
			saw_c3 = true;
		else
			fail_msg("GC deleted %s/%s, expected only c1/net1 and c3/eth0", id, ifn);
	}
	assert_true(saw_c1net1 && saw_c3);
	for (size_t i = 4; i < r.n; i++) {
		_cleanup_json_ json *in = rec_stdin(&r.v[i]);
		assert_string_equal(json_str(json_obj_get(in, "name")), "neta");
	}
	recs_free(&r);
	assert_true(cached(f, "neta", "c1", "eth0"));
	assert_false(cached(f, "neta", "c1", "net1"));
	assert_false(cached(f, "neta", "c3", "eth0"));
	assert_true(cached(f, "netb", "c1", "net1"));
	assert_true(cached(f, "netb", "c3", "eth0"));
	cnirt_netlist_free(la);
	cnirt_netlist_free(lb);
}

/* GC with no valid attachment at all collects every entry of the network
 * and sends an empty `cni.dev/valid-attachments` array. */
static void test_gc_nothing_valid(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "1.1.0", "gcnet", "a");
	add_ok(f, l, &plain);
	recs_clear(f);
	_cleanup_error_ cnirt_error *err = NULL;
	assert_ok(cnirt_gc(f->ctx, l, NULL, 0, &err), err);
	struct recs r = expect_calls(f, "a DEL, a GC");
	_cleanup_json_ json *in = rec_stdin(&r.v[1]);
	_cleanup_json_ json *empty = text_json("[]");
	assert_json_equal(json_obj_get(in, "cni.dev/valid-attachments"), empty,
			  "cni.dev/valid-attachments");
	recs_free(&r);
	assert_false(cached(f, "gcnet", CONTAINER_ID, IFNAME));
	cnirt_netlist_free(l);
}

/* ------------------------------------------------------------ VERSION */

static const char legacy_error[] =
    "exit=1\nstdout={\"code\":4,\"msg\":\"unknown CNI_COMMAND: VERSION\"}\n";

/*
 * Plugins of spec 0.1.0 (PROPOSAL-0.1.0.md) had no VERSION command; their
 * skeleton answers an unknown command with an error whose msg is "unknown
 * CNI_COMMAND: VERSION". Such a plugin is taken as supporting 0.1.0 only,
 * as the reference library does (pkg/invoke, GetVersionInfo).
 */
static void test_version_legacy_plugin(void **state)
{
	struct fx *f = fixture(state);
	add_plugins(f, "old");
	control(f, "old", "VERSION", legacy_error);

	_cleanup_error_ cnirt_error *err = NULL;
	_cleanup_free_ char *v = NULL;
	assert_ok(cnirt_plugin_version(f->ctx, "old", "1.0.0", &v, &err), err);
	_cleanup_json_ json *got = text_json(v);
	_cleanup_json_ json *want = text_json("[\"0.1.0\"]");
	assert_json_equal(json_obj_get(got, "supportedVersions"), want, "supportedVersions");

	cnirt_netlist *l010 = simple_list(f, "0.1.0", "oldnet", "old");
	assert_ok(cnirt_validate(f->ctx, l010, &err), err);
	cnirt_netlist_free(l010);

	cnirt_netlist *l100 = simple_list(f, "1.0.0", "oldnet", "old");
	assert_true(cnirt_validate(f->ctx, l100, &err) < 0);
	assert_error(err, CNIRT_ERR_INCOMPATIBLE_VERSION, "supports: 0.1.0");
	assert_names(err, "oldnet", "old");
	cnirt_netlist_free(l100);
}

/* Any other failure of VERSION is an error, passed on with its code and
 * the plugin named: only the exact legacy message means "0.1.0". */
static void test_version_other_failure(void **state)
{
	struct fx *f = fixture(state);
	add_plugins(f, "p");
	control(f, "p", "VERSION",
		"exit=1\nstdout={\"code\":4,\"msg\":\"unknown CNI_COMMAND: VERSIONS\"}\n");
	_cleanup_error_ cnirt_error *err = NULL;
	char *v = NULL;
	assert_true(cnirt_plugin_version(f->ctx, "p", "1.0.0", &v, &err) < 0);
	assert_null(v);
	assert_error(err, CNIRT_ERR_INVALID_ENV, "unknown CNI_COMMAND: VERSIONS");
	assert_names(err, NULL, "p");
	assert_true(cnirt_error_from_plugin(err));
	cnirt_error_free(TAKE_PTR(err));

	/* The legacy text on stdout with exit status 0 is no VERSION result. */
	control(f, "p", "VERSION", legacy_error + strlen("exit=1\n"));
	assert_true(cnirt_plugin_version(f->ctx, "p", "1.0.0", &v, &err) < 0);
	assert_error(err, CNIRT_ERR_DECODE, "supportedVersions");
	cnirt_error_free(TAKE_PTR(err));

	/* A missing plugin. */
	assert_true(cnirt_plugin_version(f->ctx, "nosuch", "1.0.0", &v, &err) < 0);
	assert_names(err, NULL, "nosuch");
}

/* The version asked for is a version (X.Y.Z), and the VERSION stdin is
 * built as JSON (it was once pasted in with printf, so that
 * `1.0.0","injected":"x` reached the plugin as a second key). */
static void test_version_argument_checked(void **state)
{
	struct fx *f = fixture(state);
	add_plugins(f, "p");
	_cleanup_error_ cnirt_error *err = NULL;
	char *v = NULL;
	assert_true(cnirt_plugin_version(f->ctx, "p", "1.0.0\",\"injected\":\"x", &v, &err) < 0);
	assert_null(v);
	assert_error(err, CNIRT_ERR_INVALID_CONFIG,
		     "cniVersion \"1.0.0\\x22,\\x22injected\\x22:\\x22x\": not a version (X.Y.Z)");
	assert_names(err, NULL, "p");
	expect_no_plugin_ran(f);
	cnirt_error_free(TAKE_PTR(err));

	_cleanup_free_ char *ok = NULL;
	assert_ok(cnirt_plugin_version(f->ctx, "p", "1.0.0", &ok, &err), err);
	struct recs r = expect_calls(f, "p VERSION");
	_cleanup_json_ json *in = rec_stdin(&r.v[0]);
	_cleanup_json_ json *want = text_json("{\"cniVersion\":\"1.0.0\"}");
	assert_json_equal(in, want, "VERSION stdin");
	recs_free(&r);
}

/*
 * Spec 1.0.0 section 5, "Version success": the VERSION result holds
 * `supportedVersions`, a list of version strings. Without one, or with an
 * entry that is not a string, the answer cannot be used: error 6, naming
 * the field, for cnirt_plugin_version and cnirt_validate alike.
 */
static void test_version_malformed(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "1.0.0", "vnet", "p");
	static const struct {
		const char *out;
		const char *field;
	} cases[] = {
	    {"{\"cniVersion\":\"1.0.0\"}", "field \"supportedVersions\""},
	    {"{\"cniVersion\":\"1.0.0\",\"supportedVersions\":\"1.0.0\"}",
	     "field \"supportedVersions\""},
	    {"{\"cniVersion\":\"1.0.0\",\"supportedVersions\":null}",
	     "field \"supportedVersions\""},
	    {"{\"cniVersion\":\"1.0.0\",\"supportedVersions\":[\"0.4.0\",1]}",
	     "field \"supportedVersions[1]\""},
	    {"{\"cniVersion\":\"1.0.0\",\"supportedVersions\":[{}]}",
	     "field \"supportedVersions[0]\""},
	    {"not json", "VERSION result"},
	    {"", "VERSION result"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		answer(f, "p", "VERSION", cases[i].out, 0);
		_cleanup_error_ cnirt_error *err = NULL;
		char *v = NULL;
		assert_true(cnirt_plugin_version(f->ctx, "p", "1.0.0", &v, &err) < 0);
		assert_null(v);
		assert_error(err, CNIRT_ERR_DECODE, cases[i].field);
		assert_names(err, NULL, "p");
		cnirt_error_free(TAKE_PTR(err));
		assert_true(cnirt_validate(f->ctx, l, &err) < 0);
		assert_error(err, CNIRT_ERR_DECODE, cases[i].field);
		assert_names(err, "vnet", "p");
	}
	cnirt_netlist_free(l);
}

/* An empty supportedVersions is a valid answer that supports nothing:
 * validation fails with error 1 ("Incompatible CNI version"), naming the
 * plugin and the network. */
static void test_validate_supports_nothing(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "1.0.0", "vnet", "a,p");
	answer(f, "p", "VERSION", "{\"cniVersion\":\"1.0.0\",\"supportedVersions\":[]}", 0);
	_cleanup_error_ cnirt_error *err = NULL;
	assert_true(cnirt_validate(f->ctx, l, &err) < 0);
	assert_error(err, CNIRT_ERR_INCOMPATIBLE_VERSION, "supports: none");
	assert_non_null(strstr(cnirt_error_msg(err), "1.0.0"));
	assert_names(err, "vnet", "p");
	struct recs r = expect_calls(f, "a VERSION, p VERSION");
	recs_free(&r);
	cnirt_netlist_free(l);
}

/* Spec 1.0.0 section 2, VERSION: stdin is {"cniVersion": <the version in
 * use>}; without a version asked, the newest (1.1.0). */
static void test_plugin_version_input(void **state)
{
	struct fx *f = fixture(state);
	add_plugins(f, "p");
	_cleanup_error_ cnirt_error *err = NULL;
	_cleanup_free_ char *v1 = NULL, *v2 = NULL;
	assert_ok(cnirt_plugin_version(f->ctx, "p", "0.4.0", &v1, &err), err);
	assert_ok(cnirt_plugin_version(f->ctx, "p", NULL, &v2, &err), err);
	struct recs r = expect_calls(f, "p VERSION, p VERSION");
	_cleanup_json_ json *in1 = rec_stdin(&r.v[0]);
	_cleanup_json_ json *in2 = rec_stdin(&r.v[1]);
	_cleanup_json_ json *want1 = text_json("{\"cniVersion\":\"0.4.0\"}");
	_cleanup_json_ json *want2 = text_json("{\"cniVersion\":\"1.1.0\"}");
	assert_json_equal(in1, want1, "VERSION stdin");
	assert_json_equal(in2, want2, "VERSION stdin");
	for (size_t i = 0; i < r.n; i++) {
		assert_env(&r.v[i], "CNI_COMMAND", "VERSION");
		assert_env(&r.v[i], "CNI_CONTAINERID", NULL);
		assert_env(&r.v[i], "CNI_NETNS", NULL);
		assert_env(&r.v[i], "CNI_IFNAME", NULL);
	}
	recs_free(&r);
	/* The answer handed out is the plugin's VERSION result, pretty. */
	_cleanup_free_ char *p1 = pretty(v1);
	assert_string_equal(v1, p1);
	_cleanup_json_ json *got = text_json(v1);
	assert_string_equal(json_str(json_obj_get(got, "cniVersion")), "0.4.0");
}

/* ------------------------------------------------------------ observer */

struct seen {
	char *network, *plugin, *command;
	char *container_id, *ifname;
	long long usec;
	bool failed;
	int code;
	char *msg;
	char *err_plugin;
	bool rollback;
};

struct observed {
	struct seen *v;
	size_t n;
};

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void observe(void *data, const cnirt_event *ev)
{
	struct observed *o = data;
	const cnirt_error *err = ev->err;
	o->v = xreallocarray(o->v, o->n + 1, sizeof(*o->v));
	o->v[o->n++] = (struct seen){
	    .network = dup_or_null(ev->network),
	    .plugin = dup_or_null(ev->plugin),
	    .command = dup_or_null(ev->command),
	    .container_id = dup_or_null(ev->container_id),
	    .ifname = dup_or_null(ev->ifname),
	    .usec = ev->usec,
	    .failed = err != NULL,
	    .code = cnirt_error_code(err),
	    .msg = err ? xstrdup(cnirt_error_msg(err)) : NULL,
	    .err_plugin = dup_or_null(cnirt_error_plugin(err)),
	    .rollback = ev->rollback,
	};
}

static void observed_clear(struct observed *o)
{
	for (size_t i = 0; i < o->n; i++) {
		free(o->v[i].network);
		free(o->v[i].plugin);
		free(o->v[i].command);
		free(o->v[i].container_id);
		free(o->v[i].ifname);
		free(o->v[i].msg);
		free(o->v[i].err_plugin);
	}
	free(o->v);
	o->v = NULL;
	o->n = 0;
}

/* Observation i is (network, plugin, command), duration >= 0, and failed
 * with `code` when failed_code >= 0, else succeeded. */
static void assert_seen(const struct observed *o, size_t i, const char *network, const char *plugin,
			const char *command, int failed_code)
{
	if (i >= o->n)
		fail_msg("observer called %zu times, expected at least %zu", o->n, i + 1);
	const struct seen *s = &o->v[i];
	if (s->network == NULL || strcmp(s->network, network) != 0 || s->plugin == NULL ||
	    strcmp(s->plugin, plugin) != 0 || s->command == NULL ||
	    strcmp(s->command, command) != 0)
		fail_msg("observation %zu is (%s, %s, %s), expected (%s, %s, %s)", i,
			 s->network ? s->network : "NULL", s->plugin ? s->plugin : "NULL",
			 s->command ? s->command : "NULL", network, plugin, command);
	if (s->usec < 0)
		fail_msg("observation %zu: duration %lld us", i, s->usec);
	if (failed_code < 0 && s->failed)
		fail_msg("observation %zu (%s %s) has an error: %s", i, plugin, command, s->msg);
	if (failed_code >= 0) {
		if (!s->failed)
			fail_msg("observation %zu (%s %s) has no error", i, plugin, command);
		assert_int_equal(s->code, failed_code);
		assert_non_null(s->err_plugin);
		assert_string_equal(s->err_plugin, plugin);
	}
}

/* Observation i is of the attachment (container_id, ifname; NULL: none),
 * and a DEL of the rollback or not. */
static void assert_seen_att(const struct observed *o, size_t i, const char *container_id,
			    const char *ifname, bool rollback)
{
	if (i >= o->n)
		fail_msg("observer called %zu times, expected at least %zu", o->n, i + 1);
	const struct seen *s = &o->v[i];
	if (container_id == NULL)
		assert_null(s->container_id);
	else
		assert_string_equal(s->container_id, container_id);
	if (ifname == NULL)
		assert_null(s->ifname);
	else
		assert_string_equal(s->ifname, ifname);
	if (s->rollback != rollback)
		fail_msg("observation %zu (%s %s): rollback %d, expected %d", i, s->plugin,
			 s->command, s->rollback, rollback);
}

/* cnirt.h: the observer is "told of every plugin execution (for logging
 * and timing)": once per execution, with the network, the plugin, the
 * command, the attachment, its duration, for a failed one the error, and
 * for a DEL of the rollback after a failed ADD that it is one. */
static void test_observer_add(void **state)
{
	struct fx *f = fixture(state);
	struct observed o = {0};
	cnirt_ctx_set_event_observer(f->ctx, observe, &o);
	cnirt_netlist *l = simple_list(f, "1.0.0", "obsnet", "a,b,c");
	control(f, "b", "ADD", "sleep-ms=150\n");
	add_ok(f, l, &plain);
	assert_int_equal(o.n, 3);
	assert_seen(&o, 0, "obsnet", "a", "ADD", -1);
	assert_seen(&o, 1, "obsnet", "b", "ADD", -1);
	assert_seen(&o, 2, "obsnet", "c", "ADD", -1);
	for (size_t i = 0; i < 3; i++)
		assert_seen_att(&o, i, CONTAINER_ID, IFNAME, false);
	if (o.v[1].usec < 150000)
		fail_msg("b slept 150 ms, observed %lld us", o.v[1].usec);
	observed_clear(&o);

	/* A failing ADD and its roll-back, one of whose DELs fails too. */
	answer(f, "b", "ADD", "{\"cniVersion\":\"1.0.0\",\"code\":7,\"msg\":\"no\"}", 1);
	answer(f, "a", "DEL", "{\"cniVersion\":\"1.0.0\",\"code\":11,\"msg\":\"busy\"}", 1);
	cnirt_attachment a2 = plain;
	a2.container_id = "ctr2";
	_cleanup_error_ cnirt_error *err = NULL;
	assert_true(cnirt_add(f->ctx, l, &a2, NULL, &err) < 0);
	assert_int_equal(o.n, 5);
	assert_seen(&o, 0, "obsnet", "a", "ADD", -1);
	assert_seen(&o, 1, "obsnet", "b", "ADD", 7);
	assert_string_equal(o.v[1].msg, "no");
	assert_seen(&o, 2, "obsnet", "c", "DEL", -1);
	assert_seen(&o, 3, "obsnet", "b", "DEL", -1);
	assert_seen(&o, 4, "obsnet", "a", "DEL", 11);
	assert_seen_att(&o, 0, "ctr2", IFNAME, false);
	assert_seen_att(&o, 1, "ctr2", IFNAME, false);
	for (size_t i = 2; i < 5; i++)
		assert_seen_att(&o, i, "ctr2", IFNAME, true);
	observed_clear(&o);
	cnirt_netlist_free(l);
}

/* A plugin that is not found is an execution that failed: observed too. */
static void test_observer_plugin_missing(void **state)
{
	struct fx *f = fixture(state);
	struct observed o = {0};
	cnirt_ctx_set_event_observer(f->ctx, observe, &o);
	add_plugins(f, "a");
	cnirt_netlist *l = list_text("{\"cniVersion\":\"1.0.0\",\"name\":\"obsnet\",\"plugins\":"
				     "[{\"type\":\"a\"},{\"type\":\"gone\"}]}");
	_cleanup_error_ cnirt_error *err = NULL;
	assert_true(cnirt_add(f->ctx, l, &plain, NULL, &err) < 0);
	assert_names(err, "obsnet", "gone");
	/* every plugin is looked for before the first runs: "a"
	 * never runs, the failed lookup is observed */
	assert_int_equal(o.n, 1);
	assert_seen(&o, 0, "obsnet", "gone", "ADD", cnirt_error_code(err));
	assert_seen_att(&o, 0, CONTAINER_ID, IFNAME, false);
	expect_no_plugin_ran(f);
	observed_clear(&o);
	cnirt_netlist_free(l);
}

/* CHECK, DEL, STATUS and GC executions are observed the same way; nothing
 * is observed when no plugin runs (a refused attachment). */
static void test_observer_other_commands(void **state)
{
	struct fx *f = fixture(state);
	struct observed o = {0};
	cnirt_netlist *l = simple_list(f, "1.1.0", "obsnet", "a,b");
	add_ok(f, l, &plain);
	cnirt_ctx_set_event_observer(f->ctx, observe, &o);
	_cleanup_error_ cnirt_error *err = NULL;

	assert_ok(cnirt_check(f->ctx, l, &plain, &err), err);
	assert_int_equal(o.n, 2);
	assert_seen(&o, 0, "obsnet", "a", "CHECK", -1);
	assert_seen(&o, 1, "obsnet", "b", "CHECK", -1);
	assert_seen_att(&o, 1, CONTAINER_ID, IFNAME, false);
	observed_clear(&o);

	assert_ok(cnirt_status(f->ctx, l, &err), err);
	assert_int_equal(o.n, 2);
	assert_seen(&o, 0, "obsnet", "a", "STATUS", -1);
	assert_seen(&o, 1, "obsnet", "b", "STATUS", -1);
	assert_seen_att(&o, 1, NULL, NULL, false);
	observed_clear(&o);

	const cnirt_attachment_id valid[] = {{CONTAINER_ID, IFNAME}};
	answer(f, "a", "GC", "{\"cniVersion\":\"1.1.0\",\"code\":5,\"msg\":\"io\"}", 1);
	assert_true(cnirt_gc(f->ctx, l, valid, 1, &err) < 0);
	cnirt_error_free(TAKE_PTR(err));
	assert_int_equal(o.n, 2);
	assert_seen(&o, 0, "obsnet", "a", "GC", 5);
	assert_seen(&o, 1, "obsnet", "b", "GC", -1);
	assert_seen_att(&o, 1, NULL, NULL, false);
	observed_clear(&o);

	assert_ok(cnirt_del(f->ctx, l, &plain, &err), err);
	assert_int_equal(o.n, 2);
	assert_seen(&o, 0, "obsnet", "b", "DEL", -1);
	assert_seen(&o, 1, "obsnet", "a", "DEL", -1);
	assert_seen_att(&o, 1, CONTAINER_ID, IFNAME, false);
	observed_clear(&o);

	cnirt_attachment bad = plain;
	bad.ifname = "a/b";
	assert_true(cnirt_del(f->ctx, l, &bad, &err) < 0);
	assert_int_equal(o.n, 0);
	cnirt_netlist_free(l);
}

/*
 * VERSION probing executes plugins too, and cnirt.h promises the observer
 * "every plugin execution": one observation per VERSION execution, network
 * = the list's name for cnirt_validate (NULL for cnirt_plugin_version,
 * which has no network), plugin = the type, command "VERSION", no
 * attachment.
 */
static void test_observer_version(void **state)
{
	struct fx *f = fixture(state);
	struct observed o = {0};
	cnirt_ctx_set_event_observer(f->ctx, observe, &o);
	cnirt_netlist *l = simple_list(f, "1.0.0", "obsnet", "a,b");
	_cleanup_error_ cnirt_error *err = NULL;
	assert_ok(cnirt_validate(f->ctx, l, &err), err);
	struct recs r = expect_calls(f, "a VERSION, b VERSION");
	recs_free(&r);
	size_t n = o.n;
	if (n == 2) {
		assert_seen(&o, 0, "obsnet", "a", "VERSION", -1);
		assert_seen(&o, 1, "obsnet", "b", "VERSION", -1);
		assert_seen_att(&o, 1, NULL, NULL, false);
	}
	observed_clear(&o);
	cnirt_netlist_free(l);
	if (n != 2)
		fail_msg("cnirt_validate ran 2 VERSION executions, the observer saw %zu", n);
}

/* ------------------------------------------------------- for engines: parity */

/*
 * (network "a-b", id "c") and (network "a", id "b-c") share the file name
 * results/a-b-c-eth0 (the reference's naming). The second ADD fails before
 * any plugin runs, naming both; CHECK, DEL and the cache reads of the
 * second never take the first's entry for theirs, and DEL leaves it.
 */
static void test_cache_name_collision(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *ab = simple_list(f, "1.0.0", "a-b", "p");
	cnirt_netlist *a = simple_list(f, "1.0.0", "a", "p");
	cnirt_attachment c = plain, bc = plain;
	c.container_id = "c";
	bc.container_id = "b-c";
	add_ok(f, ab, &c);
	recs_clear(f);

	_cleanup_error_ cnirt_error *err = NULL;
	assert_true(cnirt_add(f->ctx, a, &bc, NULL, &err) < 0);
	expect_no_plugin_ran(f);
	const char *m = cnirt_error_msg(err);
	if (!strstr(m, "network \"a-b\", container \"c\"") ||
	    !strstr(m, "network \"a\", container \"b-c\""))
		fail_msg("message does not name both attachments: %s", m);
	assert_names(err, "a", NULL);

	/* reads of the second see nothing */
	assert_false(cached(f, "a", "b-c", IFNAME));
	assert_true(cached(f, "a-b", "c", IFNAME));
	_cleanup_free_ char *res = NULL;
	cnirt_error_free(TAKE_PTR(err)); /* each call sets it anew */
	assert_ok(cnirt_cache_result(f->ctx, "a", "b-c", IFNAME, NULL, &res, &err), err);
	assert_null(res);
	cnirt_error_free(TAKE_PTR(err));
	assert_true(cnirt_check(f->ctx, a, &bc, &err) < 0);
	assert_error(err, CNIRT_ERR_NONE, "no cached result");
	expect_no_plugin_ran(f);
	cnirt_error_free(TAKE_PTR(err));

	/* DEL of the second runs without the first's result, keeps its entry */
	assert_ok(cnirt_del(f->ctx, a, &bc, &err), err);
	struct recs r = expect_calls(f, "p DEL");
	_cleanup_json_ json *in = rec_stdin(&r.v[0]);
	assert_null(json_obj_get(in, "prevResult"));
	recs_free(&r);
	assert_true(cached(f, "a-b", "c", IFNAME));
	assert_ok(cnirt_del_cached(f->ctx, "a", "b-c", IFNAME, NULL, &err), err);
	assert_true(cached(f, "a-b", "c", IFNAME));
	cnirt_netlist_free(ab);
	cnirt_netlist_free(a);
}

/* A cache file name over NAME_MAX (a 200-character network name and a
 * 64-character id) is refused before any plugin runs, not after an ADD
 * and its roll-back. */
static void test_add_name_too_long_before_plugins(void **state)
{
	struct fx *f = fixture(state);
	char name[201], id[65];
	memset(name, 'n', 200);
	name[200] = '\0';
	memset(id, 'f', 64);
	id[64] = '\0';
	cnirt_netlist *l = simple_list(f, "1.0.0", name, "a,b");
	cnirt_attachment at = plain;
	at.container_id = id;
	_cleanup_error_ cnirt_error *err = NULL;
	assert_true(cnirt_add(f->ctx, l, &at, NULL, &err) < 0);
	assert_error(err, CNIRT_ERR_INVALID_ENV, "file name is longer than");
	expect_no_plugin_ran(f);
	cnirt_netlist_free(l);
}

/* CNIRT_ADD_NO_ROLLBACK: a failed ADD runs no DEL; unknown flags fail. */
static void test_add_no_rollback(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "1.0.0", "addnet", "a,b");
	answer(f, "b", "ADD", "{\"cniVersion\":\"1.0.0\",\"code\":5,\"msg\":\"io\"}", 1);
	_cleanup_error_ cnirt_error *err = NULL;
	assert_true(cnirt_add_with_flags(f->ctx, l, &plain, CNIRT_ADD_NO_ROLLBACK, NULL, &err) < 0);
	assert_int_equal(cnirt_error_code(err), 5);
	struct recs r = expect_calls(f, "a ADD, b ADD");
	recs_free(&r);
	assert_false(cached(f, "addnet", CONTAINER_ID, IFNAME));
	cnirt_error_free(TAKE_PTR(err));
	recs_clear(f);
	assert_true(cnirt_add_with_flags(f->ctx, l, &plain, 0x80, NULL, &err) < 0);
	assert_error(err, CNIRT_ERR_INVALID_ENV, "unknown flags");
	expect_no_plugin_ran(f);
	cnirt_netlist_free(l);
}

/* GC sends the valid attachments under both names, as libcni does. */
static void test_gc_both_attachment_keys(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *l = simple_list(f, "1.1.0", "gcnet", "a");
	const cnirt_attachment_id valid[] = {{"c1", "eth0"}, {"c2", "net1"}};
	_cleanup_error_ cnirt_error *err = NULL;
	assert_ok(cnirt_gc(f->ctx, l, valid, ARRAY_SIZE(valid), &err), err);
	struct recs r = expect_calls(f, "a GC");
	_cleanup_json_ json *in = rec_stdin(&r.v[0]);
	_cleanup_json_ json *want = text_json("[{\"containerID\":\"c1\",\"ifname\":\"eth0\"},"
					      "{\"containerID\":\"c2\",\"ifname\":\"net1\"}]");
	assert_json_equal(json_obj_get(in, "cni.dev/valid-attachments"), want,
			  "cni.dev/valid-attachments");
	assert_json_equal(json_obj_get(in, "cni.dev/attachments"), want, "cni.dev/attachments");
	recs_free(&r);
	cnirt_netlist_free(l);
}

/* The attachments cached for one container, and one cached result
 * converted to a requested version. */
static void test_cache_attachments_and_result(void **state)
{
	struct fx *f = fixture(state);
	cnirt_netlist *n1 = simple_list(f, "1.0.0", "n1", "a");
	cnirt_netlist *n2 = simple_list(f, "1.0.0", "n2", "a");
	answer(f, "a", "ADD", "{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.1.2.3/24\"}]}",
	       0);
	cnirt_attachment x = plain, xn = plain, y = plain;
	x.container_id = "x";
	xn.container_id = "x";
	xn.ifname = "net1";
	y.container_id = "y";
	add_ok(f, n1, &x);
	add_ok(f, n2, &xn);
	add_ok(f, n1, &y);

	cnirt_cache_entry **v = NULL;
	size_t n = 0;
	_cleanup_error_ cnirt_error *err = NULL;
	assert_ok(cnirt_cache_attachments(f->ctx, "x", &v, &n, &err), err);
	assert_int_equal(n, 2);
	assert_string_equal(cnirt_cache_entry_network(v[0]), "n1");
	assert_string_equal(cnirt_cache_entry_network(v[1]), "n2");
	assert_string_equal(cnirt_cache_entry_ifname(v[1]), "net1");
	cnirt_cache_entries_free(v, n);
	assert_ok(cnirt_cache_attachments(f->ctx, "none", &v, &n, &err), err);
	assert_int_equal(n, 0);
	cnirt_cache_entries_free(v, n);
	assert_true(cnirt_cache_attachments(f->ctx, "../x", &v, &n, &err) < 0);
	cnirt_error_free(TAKE_PTR(err));

	_cleanup_free_ char *r040 = NULL;
	assert_ok(cnirt_cache_result(f->ctx, "n1", "x", IFNAME, "0.4.0", &r040, &err), err);
	_cleanup_json_ json *j = text_json(r040);
	assert_string_equal(json_str(json_obj_get(j, "cniVersion")), "0.4.0");
	/* 0.4.0 results carry `version` in each IP */
	const json *ips = json_obj_get(j, "ips");
	assert_non_null(json_obj_get(ips->u.array.v[0], "version"));
	_cleanup_free_ char *same = NULL;
	assert_ok(cnirt_cache_result(f->ctx, "n1", "x", IFNAME, NULL, &same, &err), err);
	assert_non_null(strstr(same, "\"1.0.0\""));
	_cleanup_free_ char *none = NULL;
	assert_ok(cnirt_cache_result(f->ctx, "n1", "nobody", IFNAME, "1.0.0", &none, &err), err);
	assert_null(none);
	char *bad = NULL;
	assert_true(cnirt_cache_result(f->ctx, "n1", "x", IFNAME, "9.9.9", &bad, &err) < 0);
	assert_null(bad);
	cnirt_netlist_free(n1);
	cnirt_netlist_free(n2);
}

static void test_library_version(void **state)
{
	(void)state;
	assert_string_equal(cnirt_version(), PACKAGE_VERSION);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	    T(test_attachment_missing),
	    T(test_list_missing),
	    T(test_attachment_bad_container_id),
	    T(test_attachment_bad_ifname),
	    T(test_attachment_empty_netns),
	    T(test_attachment_bad_args),
	    T(test_attachment_args_joined),
	    T(test_plugin_args_one_type),
	    T(test_capability_args_refused),
	    T(test_capability_args_empty),
	    T(test_add_no_output),
	    T(test_add_no_output_first_and_last),
	    T(test_add_invalid_result),
	    T(test_add_result_not_object),
	    T(test_rollback_past_failing_del),
	    T(test_rollback_all_dels_fail),
	    T(test_add_cache_unwritable),
	    T(test_add_result_in_list_version),
	    T(test_add_result_newer_converted_down),
	    T(test_check_stops_at_failure),
	    T(test_del_no_cache_100),
	    T(test_del_031_never_prev_result),
	    T(test_del_invalid_cached_result),
	    T(test_add_step_results),
	    T(test_add_step_refused),
	    T(test_del_with_result_no_cache),
	    T(test_del_with_result_cache_first),
	    T(test_del_cached_no_entry),
	    T(test_del_cached_bad_names),
	    T(test_del_cached_other_network),
	    T(test_del_cached_broken_config),
	    T(test_del_cached_netns_override),
	    T(test_del_cached_uses_cached_args),
	    T(test_gc_invalid_names),
	    T(test_gc_other_networks_untouched),
	    T(test_gc_nothing_valid),
	    T(test_version_legacy_plugin),
	    T(test_version_other_failure),
	    T(test_version_argument_checked),
	    T(test_version_malformed),
	    T(test_validate_supports_nothing),
	    T(test_plugin_version_input),
	    T(test_observer_add),
	    T(test_observer_plugin_missing),
	    T(test_observer_other_commands),
	    T(test_observer_version),
	    T(test_cache_name_collision),
	    T(test_add_name_too_long_before_plugins),
	    T(test_add_no_rollback),
	    T(test_gc_both_attachment_keys),
	    T(test_cache_attachments_and_result),
	    T(test_library_version),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
