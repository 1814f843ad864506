/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Conformance of libcnirt's runtime side against the CNI specification.
 *
 * Each test drives the public API (cnirt.h) against copies of the recording
 * fake plugin (tests/plugins/fakeplugin, see recorder.h), then compares what
 * every plugin received, environment and stdin, with the spec's own
 * examples. Expected JSON lives in tests/conformance/data/ (see its README for
 * where each file comes from and which errata of the examples are completed
 * here).
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "internal.h"
#include "recorder.h"

/* The appendix names no container ID; its netns is the `sandbox` of its
 * results. */
#define CONTAINER_ID "example"
#define NETNS	     "/var/run/netns/blue"
#define IFNAME	     "eth0"

struct fixture {
	struct recorder *rec;
	cnirt_ctx *ctx;
};

static int setup(void **state)
{
	struct recorder *rec = recorder_new();
	if (rec == NULL) {
		*state = NULL;
		return 0;
	}
	struct fixture *f = xzalloc(sizeof(*f));
	f->rec = rec;
	f->ctx = cnirt_ctx_new();
	const char *dirs[] = {rec->bin_dir};
	cnirt_ctx_set_bin_dirs(f->ctx, dirs, 1);
	cnirt_ctx_set_cache_dir(f->ctx, rec->cache_dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	if (f == NULL)
		return 0;
	cnirt_ctx_free(f->ctx);
	recorder_free(f->rec);
	free(f);
	return 0;
}

static struct fixture *fixture(void **state)
{
	if (*state == NULL) {
		print_message("FAKEPLUGIN is not set to the built fake plugin: skipped\n");
		skip();
	}
	return *state;
}

/* ------------------------------------------------------------ helpers */

static char *data_path(const char *rel)
{
	const char *top = getenv("abs_top_srcdir");
	return xasprintf("%s/tests/conformance/data/%s", top && *top ? top : "/work/main", rel);
}

static char *load_bytes(const char *rel, size_t *len)
{
	_cleanup_free_ char *path = data_path(rel);
	char *bytes = read_whole_file(path, len);
	if (bytes == NULL)
		fail_msg("missing test data %s", path);
	return bytes;
}

static json *parse_json(const char *text, size_t len, const char *what)
{
	_cleanup_error_ cnirt_error *err = NULL;
	json *j = NULL;
	if (json_read_parse(text, len, what, &j, &err) < 0)
		fail_msg("%s is not JSON: %s", what, cnirt_error_msg(err));
	return j;
}

static json *load_json(const char *rel)
{
	size_t len;
	_cleanup_free_ char *bytes = load_bytes(rel, &len);
	return parse_json(bytes, len, rel);
}

static json *text_json(const char *text)
{
	return parse_json(text, strlen(text), "test JSON");
}

static cnirt_netlist *parse_list(const char *bytes, size_t len)
{
	_cleanup_error_ cnirt_error *err = NULL;
	cnirt_netlist *l = NULL;
	if (cnirt_netlist_parse(bytes, len, "test", &l, &err) < 0)
		fail_msg("cnirt_netlist_parse: %s\n%.*s", cnirt_error_msg(err), (int)len, bytes);
	return l;
}

static cnirt_netlist *list_from_json(const json *j)
{
	size_t len;
	_cleanup_free_ char *bytes = json_gen(j, true, &len);
	return parse_list(bytes, len);
}

static cnirt_netlist *list_from_text(const char *text)
{
	return parse_list(text, strlen(text));
}

static void set_string(json *o, const char *key, const char *value)
{
	json_obj_set(o, key, json_new_string(value));
}

static const json *list_plugin(const json *list, size_t i)
{
	const json *plugins = json_obj_get(list, "plugins");
	assert_non_null(plugins);
	assert_true(plugins->type == JSON_ARRAY && i < plugins->u.array.n);
	return plugins->u.array.v[i];
}

static char *json_text(const json *j)
{
	return j ? json_gen(j, false, NULL) : xstrdup("(absent)");
}

/* The first place where two trees differ, as "path: expected X, got Y". */
static char *json_difference(const json *got, const json *want, const char *path)
{
	if (json_equal(got, want))
		return NULL;
	if (got && want && got->type == want->type && got->type == JSON_OBJECT) {
		for (size_t i = 0; i < want->u.object.n; i++) {
			_cleanup_free_ char *sub = xasprintf("%s.%s", path, want->u.object.k[i]);
			char *d = json_difference(json_obj_get(got, want->u.object.k[i]),
						  want->u.object.v[i], sub);
			if (d)
				return d;
		}
		for (size_t i = 0; i < got->u.object.n; i++)
			if (json_obj_get(want, got->u.object.k[i]) == NULL) {
				_cleanup_free_ char *v = json_text(got->u.object.v[i]);
				return xasprintf("%s.%s: unexpected key, value %s", path,
						 got->u.object.k[i], v);
			}
	}
	if (got && want && got->type == want->type && got->type == JSON_ARRAY &&
	    got->u.array.n == want->u.array.n) {
		for (size_t i = 0; i < want->u.array.n; i++) {
			_cleanup_free_ char *sub = xasprintf("%s[%zu]", path, i);
			char *d = json_difference(got->u.array.v[i], want->u.array.v[i], sub);
			if (d)
				return d;
		}
	}
	_cleanup_free_ char *g = json_text(got), *w = json_text(want);
	return xasprintf("%s: expected %s, got %s", path, w, g);
}

static void assert_json_equal(const json *got, const json *want, const char *what)
{
	_cleanup_free_ char *diff = json_difference(got, want, "$");
	if (diff == NULL)
		return;
	_cleanup_free_ char *g = json_text(got), *w = json_text(want);
	fprintf(stderr, "--- expected %s\n%s\n--- got\n%s\n", what, w, g);
	fflush(stderr);
	fail_msg("%s differs from the expected JSON at %s", what, diff);
}

#define assert_ok(expr, err)                                                                       \
	do {                                                                                       \
		if ((expr) < 0)                                                                    \
			fail_msg("%s failed: %s", #expr, cnirt_error_msg(err));                    \
	} while (0)

static char *calls_summary(const struct rec_call *c, size_t n)
{
	struct buf b = {0};
	buf_appends(&b, "");
	for (size_t i = 0; i < n; i++)
		buf_printf(&b, "%s%s %s", i ? ", " : "", c[i].plugin, c[i].command);
	return buf_steal(&b, NULL);
}

/* The calls recorded so far must be exactly `want` ("bridge ADD, tuning ADD"). */
static struct rec_call *expect_calls(struct fixture *f, const char *want, size_t *n)
{
	struct rec_call *c;
	*n = recorder_calls(f->rec, &c);
	_cleanup_free_ char *got = calls_summary(c, *n);
	if (strcmp(got, want) != 0)
		fail_msg("plugins ran as [%s], expected [%s]", got, want);
	return c;
}

static void assert_stdin(const struct rec_call *c, const json *want)
{
	_cleanup_json_ json *got = rec_call_stdin_json(c);
	_cleanup_free_ char *what = xasprintf("stdin of %s %s", c->plugin, c->command);
	assert_json_equal(got, want, what);
}

struct env_expect {
	const char *command;
	const char *container_id; /* NULL: absent or empty */
	const char *netns;
	const char *ifname;
	const char *args;
	const char *path; /* CNI_PATH */
};

/*
 * Spec 1.0.0 section 2, "Parameters": the protocol parameters are CNI_COMMAND,
 * CNI_CONTAINERID, CNI_NETNS, CNI_IFNAME, CNI_ARGS and CNI_PATH. The runtime
 * passes those (cnirt.h: a plugin gets exactly the six, plus PATH) and
 * nothing else of its own environment.
 */
static void assert_env(const struct rec_call *c, const struct env_expect *e)
{
	static const char *const allowed[] = {"CNI_COMMAND", "CNI_CONTAINERID", "CNI_NETNS",
					      "CNI_IFNAME",  "CNI_ARGS",	"CNI_PATH",
					      "PATH"};
	const char *want[] = {e->command, e->container_id, e->netns, e->ifname, e->args, e->path};
	struct rec_env env;
	rec_call_env(c, &env);
	for (size_t i = 0; i < env.n; i++) {
		bool ok = false;
		for (size_t k = 0; k < ARRAY_SIZE(allowed); k++)
			ok = ok || strcmp(env.keys[i], allowed[k]) == 0;
		if (!ok)
			fail_msg("%s %s got variable %s=%s, not a CNI parameter", c->plugin,
				 c->command, env.keys[i], env.values[i]);
	}
	for (size_t k = 0; k < ARRAY_SIZE(want); k++) {
		const char *got = rec_env_get(&env, allowed[k]);
		if (want[k] == NULL) {
			if (got != NULL && got[0] != '\0')
				fail_msg("%s %s: %s=%s, expected it empty or unset", c->plugin,
					 c->command, allowed[k], got);
		} else if (got == NULL || strcmp(got, want[k]) != 0) {
			fail_msg("%s %s: %s=%s, expected %s", c->plugin, c->command, allowed[k],
				 got ? got : "(unset)", want[k]);
		}
	}
	const char *path = rec_env_get(&env, "PATH");
	if (path == NULL || path[0] == '\0')
		fail_msg("%s %s: no PATH", c->plugin, c->command);
	rec_env_free(&env);
}

static const cnirt_kv example_args[] = {{"argA", "foo"}};

static cnirt_attachment example_attachment(const char *capability_args)
{
	return (cnirt_attachment){
	    .container_id = CONTAINER_ID,
	    .netns = NETNS,
	    .ifname = IFNAME,
	    .args = example_args,
	    .n_args = ARRAY_SIZE(example_args),
	    .capability_args = capability_args,
	};
}

static void assert_example_env(const struct fixture *f, const struct rec_call *c,
			       const char *command)
{
	struct env_expect e = {command, CONTAINER_ID, NETNS, IFNAME, "argA=foo", f->rec->bin_dir};
	assert_env(c, &e);
}

/* A result file of the data directory, with the `cniVersion` every result
 * carries (spec 1.0.0 section 5, "Success": "cniVersion: The same version
 * supplied on input"). */
static json *result_answer(const char *rel, const char *version)
{
	json *r = load_json(rel);
	set_string(r, "cniVersion", version);
	return r;
}

/* Completes `prevResult` with its `cniVersion` (see data/README.md, 1). */
static void complete_prev_result(json *want, const char *version)
{
	json *prev = json_obj_get(want, "prevResult");
	if (prev != NULL && json_obj_get(prev, "cniVersion") == NULL)
		set_string(prev, "cniVersion", version);
}

static bool cache_entry_exists(struct fixture *f, const char *network, const char *id,
			       const char *ifname)
{
	_cleanup_error_ cnirt_error *err = NULL;
	cnirt_cache_entry *e = NULL;
	assert_ok(cnirt_cache_get(f->ctx, network, id, ifname, &e, &err), err);
	bool found = e != NULL;
	cnirt_cache_entry_free(e);
	return found;
}

static char *cache_file(struct fixture *f, const char *network, const char *id, const char *ifname)
{
	return xasprintf("%s/results/%s-%s-%s", f->rec->cache_dir, network, id, ifname);
}

/* ------------------------------------------- spec 1.0.0 appendix examples */

struct appendix {
	json *list;
	cnirt_netlist *l;
	char *capargs;
	cnirt_attachment a;
	json *final; /* what the last plugin answers */
};

static void appendix_free(struct appendix *s)
{
	json_free(s->list);
	cnirt_netlist_free(s->l);
	free(s->capargs);
	json_free(s->final);
}

static void appendix_prepare(struct fixture *f, struct appendix *s)
{
	size_t len;
	_cleanup_free_ char *bytes = load_bytes("spec-1.0.0/netlist.json", &len);
	s->list = parse_json(bytes, len, "netlist.json");
	s->l = parse_list(bytes, len);
	s->capargs = load_bytes("spec-1.0.0/capability-args.json", NULL);
	s->a = example_attachment(s->capargs);

	recorder_add_plugin(f->rec, "bridge");
	recorder_add_plugin(f->rec, "tuning");
	recorder_add_plugin(f->rec, "portmap");
	_cleanup_json_ json *bridge = result_answer("spec-1.0.0/result-bridge.json", "1.0.0");
	_cleanup_json_ json *tuning = result_answer("spec-1.0.0/result-tuning.json", "1.0.0");
	recorder_answer_json(f->rec, "bridge", "ADD", bridge, 0);
	recorder_answer_json(f->rec, "tuning", "ADD", tuning, 0);
	/* data/README.md, 3: portmap passes tuning's result on. */
	recorder_answer_json(f->rec, "portmap", "ADD", tuning, 0);
	s->final = json_dup(tuning);
}

/*
 * The appendix's request for one plugin, completed (data/README.md, 1 and
 * 2): `prevResult` gets its `cniVersion`, and the bridge's `ipam` gets the
 * `routes` of the section 1 configuration, which section 3 ("All other
 * fields should be passed through unaltered") puts there.
 */
static json *appendix_request(const struct appendix *s, const char *file, size_t plugin)
{
	_cleanup_free_ char *rel = xasprintf("spec-1.0.0/%s", file);
	json *want = load_json(rel);
	complete_prev_result(want, "1.0.0");
	const json *conf_ipam = json_obj_get(list_plugin(s->list, plugin), "ipam");
	json *want_ipam = json_obj_get(want, "ipam");
	const json *routes = json_obj_get(conf_ipam, "routes");
	if (want_ipam != NULL && routes != NULL && json_obj_get(want_ipam, "routes") == NULL)
		json_obj_set(want_ipam, "routes", json_dup(routes));
	return want;
}

static void appendix_add(struct fixture *f, struct appendix *s)
{
	_cleanup_error_ cnirt_error *err = NULL;
	assert_ok(cnirt_add(f->ctx, s->l, &s->a, NULL, &err), err);
	recorder_clear(f->rec);
}

static const char *const appendix_plugins[] = {"bridge", "tuning", "portmap"};

/*
 * Spec 1.0.0, Appendix "Add example": the runtime calls bridge, tuning and
 * portmap with CNI_COMMAND=ADD and the request configurations shown; each
 * plugin after the first gets the previous plugin's result as `prevResult`,
 * and `runtimeConfig` holds the capability arguments the plugin declares
 * (`mac` for tuning, `portMappings` for portmap). Section 3, "Adding an
 * attachment": "The runtime must store the result returned by the final
 * plugin persistently"; the final result is what ADD returns.
 */
static void test_appendix_add(void **state)
{
	struct fixture *f = fixture(state);
	struct appendix s = {0};
	appendix_prepare(f, &s);

	_cleanup_error_ cnirt_error *err = NULL;
	_cleanup_free_ char *result = NULL;
	assert_ok(cnirt_add(f->ctx, s.l, &s.a, &result, &err), err);

	size_t n;
	struct rec_call *c = expect_calls(f, "bridge ADD, tuning ADD, portmap ADD", &n);
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *file = xasprintf("add-%s.json", appendix_plugins[i]);
		_cleanup_json_ json *want = appendix_request(&s, file, i);
		assert_example_env(f, &c[i], "ADD");
		assert_stdin(&c[i], want);
	}
	rec_calls_free(c, n);

	assert_non_null(result);
	_cleanup_json_ json *got = text_json(result);
	assert_json_equal(got, s.final, "result of cnirt_add");
	assert_true(cache_entry_exists(f, "dbnet", CONTAINER_ID, IFNAME));
	appendix_free(&s);
}

/*
 * Spec 1.0.0, Appendix "Check example": bridge, tuning, portmap in order,
 * CNI_COMMAND=CHECK, each with `prevResult` = "the final JSON response from
 * the Add operation, including the changed mac". Section 2, CHECK: "All
 * parameters, with the exception of CNI_PATH, must be the same as the
 * corresponding ADD for this container."
 */
static void test_appendix_check(void **state)
{
	struct fixture *f = fixture(state);
	struct appendix s = {0};
	appendix_prepare(f, &s);
	appendix_add(f, &s);

	_cleanup_error_ cnirt_error *err = NULL;
	assert_ok(cnirt_check(f->ctx, s.l, &s.a, &err), err);

	size_t n;
	struct rec_call *c = expect_calls(f, "bridge CHECK, tuning CHECK, portmap CHECK", &n);
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *file = xasprintf("check-%s.json", appendix_plugins[i]);
		_cleanup_json_ json *want = appendix_request(&s, file, i);
		assert_example_env(f, &c[i], "CHECK");
		assert_stdin(&c[i], want);
	}
	rec_calls_free(c, n);
	appendix_free(&s);
}

/*
 * Spec 1.0.0, Appendix "Delete example": "plugins are executed in reverse
 * order from the Add and Check actions": portmap, tuning, bridge, with
 * CNI_COMMAND=DEL, each with the final ADD result as `prevResult` (section
 * 3, "Deleting an attachment": "The previous result provided is always the
 * final result of the add operation"). Spec 0.4.0, DEL: the runtime "must
 * delete that cached response on a successful DEL".
 */
static void test_appendix_del(void **state)
{
	struct fixture *f = fixture(state);
	struct appendix s = {0};
	appendix_prepare(f, &s);
	appendix_add(f, &s);

	_cleanup_error_ cnirt_error *err = NULL;
	assert_ok(cnirt_del(f->ctx, s.l, &s.a, &err), err);

	size_t n;
	struct rec_call *c = expect_calls(f, "portmap DEL, tuning DEL, bridge DEL", &n);
	for (size_t i = 0; i < n; i++) {
		size_t plugin = n - 1 - i;
		_cleanup_free_ char *file = xasprintf("del-%s.json", appendix_plugins[plugin]);
		_cleanup_json_ json *want = appendix_request(&s, file, plugin);
		assert_example_env(f, &c[i], "DEL");
		assert_stdin(&c[i], want);
	}
	rec_calls_free(c, n);
	assert_false(cache_entry_exists(f, "dbnet", CONTAINER_ID, IFNAME));
	_cleanup_free_ char *path = cache_file(f, "dbnet", CONTAINER_ID, IFNAME);
	struct stat st;
	if (lstat(path, &st) == 0)
		fail_msg("cache file %s left after a successful DEL", path);
	appendix_free(&s);
}

/*
 * Spec 1.0.0 section 2, DEL: CNI_NETNS is among the "Optional environment
 * parameters" (the namespace may be gone by then). The DEL runs with an
 * empty netns and otherwise the appendix's requests.
 */
static void test_del_without_netns(void **state)
{
	struct fixture *f = fixture(state);
	struct appendix s = {0};
	appendix_prepare(f, &s);
	appendix_add(f, &s);

	cnirt_attachment a = s.a;
	a.netns = "";
	_cleanup_error_ cnirt_error *err = NULL;
	assert_ok(cnirt_del(f->ctx, s.l, &a, &err), err);
	size_t n;
	struct rec_call *c = expect_calls(f, "portmap DEL, tuning DEL, bridge DEL", &n);
	for (size_t i = 0; i < n; i++) {
		size_t plugin = n - 1 - i;
		_cleanup_free_ char *file = xasprintf("del-%s.json", appendix_plugins[plugin]);
		_cleanup_json_ json *want = appendix_request(&s, file, plugin);
		struct env_expect e = {"DEL",  CONTAINER_ID, NULL,
				       IFNAME, "argA=foo",   f->rec->bin_dir};
		assert_env(&c[i], &e);
		assert_stdin(&c[i], want);
	}
	rec_calls_free(c, n);
	appendix_free(&s);
}

/*
 * Spec 0.4.0, DEL: the prevResult "may be omitted for DEL if not available"
 * and "When CNI_NETNS and/or prevResult are not provided, the plugin should
 * clean up as many resources as possible": a DEL with nothing cached still
 * runs every plugin, in reverse order, without prevResult.
 */
static void test_del_without_add(void **state)
{
	struct fixture *f = fixture(state);
	struct appendix s = {0};
	appendix_prepare(f, &s);
	_cleanup_error_ cnirt_error *err = NULL;
	assert_ok(cnirt_del(f->ctx, s.l, &s.a, &err), err);
	size_t n;
	struct rec_call *c = expect_calls(f, "portmap DEL, tuning DEL, bridge DEL", &n);
	for (size_t i = 0; i < n; i++) {
		size_t plugin = n - 1 - i;
		_cleanup_free_ char *file = xasprintf("del-%s.json", appendix_plugins[plugin]);
		_cleanup_json_ json *want = appendix_request(&s, file, plugin);
		json_obj_del(want, "prevResult");
		assert_example_env(f, &c[i], "DEL");
		assert_stdin(&c[i], want);
	}
	rec_calls_free(c, n);
	appendix_free(&s);
}

/* Spec 1.0.0 section 2, CHECK: "A runtime must not call CHECK for a
 * container that has not been ADDed". */
static void test_check_without_add(void **state)
{
	struct fixture *f = fixture(state);
	struct appendix s = {0};
	appendix_prepare(f, &s);
	_cleanup_error_ cnirt_error *err = NULL;
	assert_true(cnirt_check(f->ctx, s.l, &s.a, &err) < 0);
	assert_non_null(err);
	size_t n;
	struct rec_call *c = expect_calls(f, "", &n);
	rec_calls_free(c, n);
	appendix_free(&s);
}

/* Spec 1.0.0 section 2, ADD: CNI_NETNS is a "Required environment
 * parameter". An ADD without one fails before any plugin runs. */
static void test_add_needs_netns(void **state)
{
	struct fixture *f = fixture(state);
	struct appendix s = {0};
	appendix_prepare(f, &s);
	cnirt_attachment a = s.a;
	a.netns = "";
	_cleanup_error_ cnirt_error *err = NULL;
	assert_true(cnirt_add(f->ctx, s.l, &a, NULL, &err) < 0);
	assert_int_equal(cnirt_error_code(err), CNIRT_ERR_INVALID_ENV);
	size_t n;
	struct rec_call *c = expect_calls(f, "", &n);
	rec_calls_free(c, n);
	assert_false(cache_entry_exists(f, "dbnet", CONTAINER_ID, IFNAME));
	appendix_free(&s);
}

/* ------------------------------------------------- spec 0.4.0 examples */

static const cnirt_attachment plain_attachment = {
    .container_id = CONTAINER_ID,
    .netns = NETNS,
    .ifname = IFNAME,
    .args = example_args,
    .n_args = ARRAY_SIZE(example_args),
};

/* The 0.4.0 example list with its cniVersion set to `version`. */
static cnirt_netlist *example040_list(const char *version)
{
	_cleanup_json_ json *list = load_json("spec-0.4.0/netlist.json");
	set_string(list, "cniVersion", version);
	return list_from_json(list);
}

static void example040_plugins(struct fixture *f)
{
	recorder_add_plugin(f->rec, "bridge");
	recorder_add_plugin(f->rec, "tuning");
}

/* An example request of the 0.4.0 text, for a list of `version`. */
static json *example040_request(const char *file, const char *version)
{
	_cleanup_free_ char *rel = xasprintf("spec-0.4.0/%s", file);
	json *want = load_json(rel);
	set_string(want, "cniVersion", version);
	complete_prev_result(want, version);
	return want;
}

/*
 * Spec 0.4.0, "Network configuration list runtime examples", ADD: bridge
 * gets the list's plugin with `cniVersion` and `name` added; tuning gets
 * "the prevResult field containing the JSON response from the bridge plugin".
 */
static void test_spec040_add(void **state)
{
	struct fixture *f = fixture(state);
	example040_plugins(f);
	cnirt_netlist *l = example040_list("0.4.0");
	_cleanup_json_ json *bridge = result_answer("spec-0.4.0/result-bridge.json", "0.4.0");
	recorder_answer_json(f->rec, "bridge", "ADD", bridge, 0);

	_cleanup_error_ cnirt_error *err = NULL;
	_cleanup_free_ char *result = NULL;
	assert_ok(cnirt_add(f->ctx, l, &plain_attachment, &result, &err), err);

	size_t n;
	struct rec_call *c = expect_calls(f, "bridge ADD, tuning ADD", &n);
	_cleanup_json_ json *want0 = example040_request("add-bridge.json", "0.4.0");
	_cleanup_json_ json *want1 = example040_request("add-tuning.json", "0.4.0");
	assert_example_env(f, &c[0], "ADD");
	assert_example_env(f, &c[1], "ADD");
	assert_stdin(&c[0], want0);
	assert_stdin(&c[1], want1);
	rec_calls_free(c, n);

	/* tuning (the fake's default) echoes its prevResult: the final result. */
	_cleanup_json_ json *got = text_json(result);
	assert_json_equal(got, bridge, "result of cnirt_add");
	cnirt_netlist_free(l);
}

/*
 * Spec 0.4.0, runtime examples, CHECK: bridge then tuning, both with "the
 * prevResult field containing the JSON response from the ADD operation".
 */
static void test_spec040_check(void **state)
{
	struct fixture *f = fixture(state);
	example040_plugins(f);
	cnirt_netlist *l = example040_list("0.4.0");
	_cleanup_json_ json *bridge = result_answer("spec-0.4.0/result-bridge.json", "0.4.0");
	recorder_answer_json(f->rec, "bridge", "ADD", bridge, 0);
	_cleanup_error_ cnirt_error *err = NULL;
	assert_ok(cnirt_add(f->ctx, l, &plain_attachment, NULL, &err), err);
	recorder_clear(f->rec);

	assert_ok(cnirt_check(f->ctx, l, &plain_attachment, &err), err);
	size_t n;
	struct rec_call *c = expect_calls(f, "bridge CHECK, tuning CHECK", &n);
	_cleanup_json_ json *want0 = example040_request("check-bridge.json", "0.4.0");
	_cleanup_json_ json *want1 = example040_request("check-tuning.json", "0.4.0");
	assert_example_env(f, &c[0], "CHECK");
	assert_example_env(f, &c[1], "CHECK");
	assert_stdin(&c[0], want0);
	assert_stdin(&c[1], want1);
	rec_calls_free(c, n);
	cnirt_netlist_free(l);
}

/*
 * Spec 0.4.0, runtime examples, DEL: "plugins are executed in reverse order":
 * tuning then bridge, both with the ADD result as prevResult ("passing
 * prevResult on DEL" is what 0.4.0 introduced).
 */
static void test_spec040_del(void **state)
{
	struct fixture *f = fixture(state);
	example040_plugins(f);
	cnirt_netlist *l = example040_list("0.4.0");
	_cleanup_json_ json *bridge = result_answer("spec-0.4.0/result-bridge.json", "0.4.0");
	recorder_answer_json(f->rec, "bridge", "ADD", bridge, 0);
	_cleanup_error_ cnirt_error *err = NULL;
	assert_ok(cnirt_add(f->ctx, l, &plain_attachment, NULL, &err), err);
	recorder_clear(f->rec);

	assert_ok(cnirt_del(f->ctx, l, &plain_attachment, &err), err);
	size_t n;
	struct rec_call *c = expect_calls(f, "tuning DEL, bridge DEL", &n);
	_cleanup_json_ json *want0 = example040_request("del-tuning.json", "0.4.0");
	_cleanup_json_ json *want1 = example040_request("del-bridge.json", "0.4.0");
	assert_example_env(f, &c[0], "DEL");
	assert_example_env(f, &c[1], "DEL");
	assert_stdin(&c[0], want0);
	assert_stdin(&c[1], want1);
	rec_calls_free(c, n);
	assert_false(cache_entry_exists(f, "dbnet", CONTAINER_ID, IFNAME));
	cnirt_netlist_free(l);
}

/*
 * Spec 0.4.0, "Network Configuration Lists": "When executing a plugin list,
 * the runtime MUST replace the name and cniVersion fields in each individual
 * network configuration ... preventing versioning conflicts between
 * plugins", and prevResult "MUST be the Result of the previous plugin". A
 * plugin that answers in 1.0.0 inside a 0.4.0 list: the next plugin still
 * gets a 0.4.0 prevResult, with the `version` of each `ips` entry.
 */
static void test_spec040_prev_result_converted(void **state)
{
	struct fixture *f = fixture(state);
	example040_plugins(f);
	cnirt_netlist *l = example040_list("0.4.0");
	_cleanup_json_ json *bridge = load_json("spec-0.4.0/result-bridge-as-1.0.0.json");
	recorder_answer_json(f->rec, "bridge", "ADD", bridge, 0);

	_cleanup_error_ cnirt_error *err = NULL;
	_cleanup_free_ char *result = NULL;
	assert_ok(cnirt_add(f->ctx, l, &plain_attachment, &result, &err), err);

	size_t n;
	struct rec_call *c = expect_calls(f, "bridge ADD, tuning ADD", &n);
	_cleanup_json_ json *want = example040_request("add-tuning.json", "0.4.0");
	assert_stdin(&c[1], want);
	rec_calls_free(c, n);

	_cleanup_json_ json *got = text_json(result);
	_cleanup_json_ json *final = result_answer("spec-0.4.0/result-bridge.json", "0.4.0");
	assert_json_equal(got, final, "result of cnirt_add");
	cnirt_netlist_free(l);
}

/* ----------------------------------------- lists older than 0.4.0 */

/* The bridge result in the format of `version`. */
static json *legacy_result(const char *version)
{
	if (cnirt_version_compare(version, "0.3.0") >= 0)
		return result_answer("spec-0.4.0/result-bridge.json", version);
	return result_answer("spec-0.1.0/result-bridge.json", version);
}

/*
 * ADD then DEL of the 0.4.0 example list declared as an older version.
 * Spec 0.4.0, "Network Configuration Lists": on ADD "the runtime MUST also
 * add a prevResult field to the configuration JSON of any plugin after the
 * first one, which MUST be the Result of the previous plugin"; cniVersion and
 * name are the list's. Before 0.4.0 DEL carried no prevResult (the 0.4.0
 * version table: "Introduce the CHECK command and passing prevResult on
 * DEL").
 */
static void legacy_add_del(void **state, const char *version)
{
	struct fixture *f = fixture(state);
	example040_plugins(f);
	cnirt_netlist *l = example040_list(version);
	_cleanup_json_ json *bridge = legacy_result(version);
	recorder_answer_json(f->rec, "bridge", "ADD", bridge, 0);

	_cleanup_error_ cnirt_error *err = NULL;
	_cleanup_free_ char *result = NULL;
	assert_ok(cnirt_add(f->ctx, l, &plain_attachment, &result, &err), err);
	size_t n;
	struct rec_call *c = expect_calls(f, "bridge ADD, tuning ADD", &n);
	_cleanup_json_ json *add0 = example040_request("add-bridge.json", version);
	_cleanup_json_ json *add1 = example040_request("add-tuning.json", version);
	json_obj_set(add1, "prevResult", json_dup(bridge));
	assert_example_env(f, &c[0], "ADD");
	assert_example_env(f, &c[1], "ADD");
	assert_stdin(&c[0], add0);
	assert_stdin(&c[1], add1);
	rec_calls_free(c, n);
	_cleanup_json_ json *got = text_json(result);
	assert_json_equal(got, bridge, "result of cnirt_add");
	recorder_clear(f->rec);

	assert_ok(cnirt_del(f->ctx, l, &plain_attachment, &err), err);
	c = expect_calls(f, "tuning DEL, bridge DEL", &n);
	_cleanup_json_ json *del0 = example040_request("del-tuning.json", version);
	_cleanup_json_ json *del1 = example040_request("del-bridge.json", version);
	json_obj_del(del0, "prevResult");
	json_obj_del(del1, "prevResult");
	assert_example_env(f, &c[0], "DEL");
	assert_example_env(f, &c[1], "DEL");
	assert_stdin(&c[0], del0);
	assert_stdin(&c[1], del1);
	rec_calls_free(c, n);
	assert_false(cache_entry_exists(f, "dbnet", CONTAINER_ID, IFNAME));
	cnirt_netlist_free(l);
}

/*
 * CHECK arrived with 0.4.0 (version table: "Introduce the CHECK command"):
 * for an older list the runtime refuses it with error 1, "Incompatible CNI
 * version" (spec 1.0.0 section 5, "Error"), and runs no plugin.
 */
static void legacy_check_refused(void **state, const char *version)
{
	struct fixture *f = fixture(state);
	example040_plugins(f);
	cnirt_netlist *l = example040_list(version);
	_cleanup_json_ json *bridge = legacy_result(version);
	recorder_answer_json(f->rec, "bridge", "ADD", bridge, 0);
	_cleanup_error_ cnirt_error *err = NULL;
	assert_ok(cnirt_add(f->ctx, l, &plain_attachment, NULL, &err), err);
	recorder_clear(f->rec);

	assert_true(cnirt_check(f->ctx, l, &plain_attachment, &err) < 0);
	assert_non_null(err);
	assert_int_equal(cnirt_error_code(err), CNIRT_ERR_INCOMPATIBLE_VERSION);
	size_t n;
	struct rec_call *c = expect_calls(f, "", &n);
	rec_calls_free(c, n);
	cnirt_netlist_free(l);
}

static void test_v031_add_del(void **state)
{
	legacy_add_del(state, "0.3.1");
}

static void test_v031_check_refused(void **state)
{
	legacy_check_refused(state, "0.3.1");
}

static void test_v020_add_del(void **state)
{
	legacy_add_del(state, "0.2.0");
}

static void test_v020_check_refused(void **state)
{
	legacy_check_refused(state, "0.2.0");
}

static void test_v010_add_del(void **state)
{
	legacy_add_del(state, "0.1.0");
}

static void test_v010_check_refused(void **state)
{
	legacy_check_refused(state, "0.1.0");
}

/*
 * A 0.2.0 list whose first plugin answers in 1.0.0 (the appendix's bridge
 * result): the next plugin still gets the result in the list's version
 * (spec 0.4.0, "Network Configuration Lists": the list's cniVersion prevents
 * "versioning conflicts between plugins"), i.e. the 0.1.0 proposal's
 * "Result": `ip4` with `ip`, `gateway` and the IPv4 `routes`, and `dns`.
 */
static void test_v020_prev_result_converted(void **state)
{
	struct fixture *f = fixture(state);
	example040_plugins(f);
	cnirt_netlist *l = example040_list("0.2.0");
	_cleanup_json_ json *bridge = result_answer("spec-1.0.0/result-bridge.json", "1.0.0");
	recorder_answer_json(f->rec, "bridge", "ADD", bridge, 0);

	_cleanup_error_ cnirt_error *err = NULL;
	assert_ok(cnirt_add(f->ctx, l, &plain_attachment, NULL, &err), err);
	size_t n;
	struct rec_call *c = expect_calls(f, "bridge ADD, tuning ADD", &n);
	_cleanup_json_ json *want = example040_request("add-tuning.json", "0.2.0");
	json_obj_set(want, "prevResult", legacy_result("0.2.0"));
	assert_stdin(&c[1], want);
	rec_calls_free(c, n);
	cnirt_netlist_free(l);
}

/* ---------------------------------------------------------- disableCheck */

static const char two_plugin_list[] = "{\"cniVersion\":\"%s\",\"name\":\"%s\",%s"
				      "\"plugins\":[{\"type\":\"bridge\"},{\"type\":\"tuning\"}]}";

static cnirt_netlist *two_plugins(struct fixture *f, const char *version, const char *name,
				  const char *extra)
{
	recorder_add_plugin(f->rec, "bridge");
	recorder_add_plugin(f->rec, "tuning");
	_cleanup_free_ char *text = xasprintf(two_plugin_list, version, name, extra);
	return list_from_text(text);
}

/*
 * Spec 1.0.0 section 1: "If disableCheck is true, runtimes must not call
 * CHECK for this network configuration list." Section 3, "Checking an
 * attachment": "If the network configuration defines disableCheck, then
 * always return success to the caller."
 */
static void test_disable_check(void **state)
{
	struct fixture *f = fixture(state);
	cnirt_netlist *l = two_plugins(f, "1.0.0", "nocheck", "\"disableCheck\":true,");
	assert_true(cnirt_netlist_disable_check(l));
	_cleanup_error_ cnirt_error *err = NULL;
	assert_ok(cnirt_add(f->ctx, l, &plain_attachment, NULL, &err), err);
	recorder_clear(f->rec);

	assert_ok(cnirt_check(f->ctx, l, &plain_attachment, &err), err);
	size_t n;
	struct rec_call *c = expect_calls(f, "", &n);
	rec_calls_free(c, n);
	cnirt_netlist_free(l);
}

/*
 * Spec 1.1.0 section 1: `cniVersions` lists every version a configuration
 * supports, and the runtime selects the highest one it also supports (an
 * unknown 9.0.0 is skipped); that version is the `cniVersion` inserted into
 * each plugin's request (section 3). `cniVersions` is a key of the list, not
 * of a plugin: it is not passed on.
 */
static void test_cni_versions_highest(void **state)
{
	struct fixture *f = fixture(state);
	recorder_add_plugin(f->rec, "bridge");
	cnirt_netlist *l =
	    list_from_text("{\"cniVersion\":\"1.0.0\",\"cniVersions\":[\"0.4.0\",\"1.1.0\","
			   "\"1.0.0\",\"9.0.0\"],\"name\":\"multi\","
			   "\"plugins\":[{\"type\":\"bridge\"}]}");
	assert_string_equal(cnirt_netlist_version(l), "1.1.0");
	_cleanup_error_ cnirt_error *err = NULL;
	assert_ok(cnirt_add(f->ctx, l, &plain_attachment, NULL, &err), err);
	size_t n;
	struct rec_call *c = expect_calls(f, "bridge ADD", &n);
	_cleanup_json_ json *want =
	    text_json("{\"cniVersion\":\"1.1.0\",\"name\":\"multi\",\"type\":\"bridge\"}");
	assert_stdin(&c[0], want);
	rec_calls_free(c, n);
	cnirt_netlist_free(l);
}

/* ---------------------------------------------------------- capabilities */

/*
 * Spec 1.0.0 section 3, "Deriving runtimeConfig": "any capability supported
 * by the plugin configuration and provided by the runtime should be inserted
 * in the runtimeConfig", and `capabilities` "must be removed". Here `mac` is
 * declared false, `bandwidth` declared but not provided, `ips` provided but
 * not declared: only `portMappings` is both. A plugin with no capability in
 * common gets no runtimeConfig at all (as the reference library does).
 */
static void test_capability_intersection(void **state)
{
	struct fixture *f = fixture(state);
	recorder_add_plugin(f->rec, "portmap");
	recorder_add_plugin(f->rec, "tuning");
	cnirt_netlist *l = list_from_text(
	    "{\"cniVersion\":\"1.0.0\",\"name\":\"caps\",\"plugins\":["
	    "{\"type\":\"portmap\",\"capabilities\":{\"mac\":false,\"portMappings\":true,"
	    "\"bandwidth\":true},\"snat\":true},"
	    "{\"type\":\"tuning\",\"capabilities\":{\"mac\":false}}]}");
	const char *capargs = "{\"mac\":\"00:11:22:33:44:66\","
			      "\"portMappings\":[{\"hostPort\":8080,\"containerPort\":80,"
			      "\"protocol\":\"tcp\"}],"
			      "\"ips\":[\"10.1.0.5/16\"]}";
	cnirt_attachment a = example_attachment(capargs);
	_cleanup_error_ cnirt_error *err = NULL;
	assert_ok(cnirt_add(f->ctx, l, &a, NULL, &err), err);

	size_t n;
	struct rec_call *c = expect_calls(f, "portmap ADD, tuning ADD", &n);
	_cleanup_json_ json *got0 = rec_call_stdin_json(&c[0]);
	_cleanup_json_ json *want_rc = text_json("{\"portMappings\":[{\"hostPort\":8080,"
						 "\"containerPort\":80,\"protocol\":\"tcp\"}]}");
	assert_json_equal(json_obj_get(got0, "runtimeConfig"), want_rc, "portmap runtimeConfig");
	assert_null(json_obj_get(got0, "capabilities"));
	assert_non_null(json_obj_get(got0, "snat"));

	_cleanup_json_ json *got1 = rec_call_stdin_json(&c[1]);
	assert_null(json_obj_get(got1, "runtimeConfig"));
	assert_null(json_obj_get(got1, "capabilities"));
	rec_calls_free(c, n);
	cnirt_netlist_free(l);
}

/* ---------------------------------------------------------- pass-through */

/* Index of key `k` in object `o`, or -1. */
static long key_index(const json *o, const char *k)
{
	for (size_t i = 0; i < o->u.object.n; i++)
		if (strcmp(o->u.object.k[i], k) == 0)
			return (long)i;
	return -1;
}

static void assert_contains(const char *hay, size_t len, const char *needle)
{
	if (memmem(hay, len, needle, strlen(needle)) == NULL)
		fail_msg("recorded stdin lacks the exact bytes `%s`:\n%.*s", needle, (int)len, hay);
}

/*
 * Spec 1.0.0 section 1, "Plugin configuration objects": "The runtime MUST
 * pass through these fields, unchanged, to the plugin"; section 3: "All
 * other fields should be passed through unaltered." Numbers keep their text
 * (a 20-digit integer, 1.5e300, 2.50, -0E+2), UTF-8 strings their bytes, and
 * objects their key order.
 */
static void test_pass_through_fidelity(void **state)
{
	struct fixture *f = fixture(state);
	recorder_add_plugin(f->rec, "bridge");
	cnirt_netlist *l = list_from_text(
	    "{\"cniVersion\":\"1.0.0\",\"name\":\"fidelity\",\"plugins\":[{\"type\":\"bridge\","
	    "\"zeta\":12345678901234567890,\"alpha\":1.5e300,"
	    "\"greeting\":\"h\xc3\xa9llo \xe2\x9c\x93\","
	    "\"nested\":{\"z\":{\"y\":[1,2.50,{\"x\":-0E+2}]},\"a\":true,\"m\":null},"
	    "\"mid\":\"tab\\tquote\\\"\",\"last\":[]}]}");
	_cleanup_error_ cnirt_error *err = NULL;
	assert_ok(cnirt_add(f->ctx, l, &plain_attachment, NULL, &err), err);

	size_t n;
	struct rec_call *c = expect_calls(f, "bridge ADD", &n);
	size_t len;
	_cleanup_free_ char *raw = rec_call_stdin(&c[0], &len);
	assert_contains(raw, len, "12345678901234567890");
	assert_contains(raw, len, "1.5e300");
	assert_contains(raw, len, "2.50");
	assert_contains(raw, len, "-0E+2");
	assert_contains(raw, len, "h\xc3\xa9llo \xe2\x9c\x93");

	_cleanup_json_ json *got = rec_call_stdin_json(&c[0]);
	rec_calls_free(c, n);
	assert_string_equal(json_obj_get(got, "zeta")->u.number, "12345678901234567890");
	assert_string_equal(json_obj_get(got, "alpha")->u.number, "1.5e300");
	assert_string_equal(json_str(json_obj_get(got, "greeting")), "h\xc3\xa9llo \xe2\x9c\x93");
	assert_string_equal(json_str(json_obj_get(got, "mid")), "tab\tquote\"");

	static const char *const order[] = {"type",   "zeta", "alpha", "greeting",
					    "nested", "mid",  "last"};
	long prev = -1;
	for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
		long at = key_index(got, order[i]);
		if (at < 0)
			fail_msg("key %s was dropped", order[i]);
		if (at <= prev)
			fail_msg("key %s moved: the configuration's key order is not kept",
				 order[i]);
		prev = at;
	}
	const json *nested = json_obj_get(got, "nested");
	assert_int_equal(nested->u.object.n, 3);
	assert_string_equal(nested->u.object.k[0], "z");
	assert_string_equal(nested->u.object.k[1], "a");
	assert_string_equal(nested->u.object.k[2], "m");
	_cleanup_json_ json *want_nested =
	    text_json("{\"z\":{\"y\":[1,2.50,{\"x\":-0E+2}]},\"a\":true,\"m\":null}");
	assert_json_equal(nested, want_nested, "nested object");
	cnirt_netlist_free(l);
}

/* ----------------------------------------------------------- failures */

static cnirt_netlist *three_plugins(struct fixture *f, const char *middle)
{
	recorder_add_plugin(f->rec, "bridge");
	recorder_add_plugin(f->rec, "portmap");
	if (strcmp(middle, "nosuchplugin") != 0)
		recorder_add_plugin(f->rec, middle);
	_cleanup_free_ char *text =
	    xasprintf("{\"cniVersion\":\"1.0.0\",\"name\":\"errnet\","
		      "\"plugins\":[{\"type\":\"bridge\"},{\"type\":\"%s\"},"
		      "{\"type\":\"portmap\"}]}",
		      middle);
	return list_from_text(text);
}

/* The error of a failing ADD names the network and the plugin; nothing is
 * cached. */
static void assert_add_failed(struct fixture *f, const cnirt_error *err, const char *plugin)
{
	assert_non_null(err);
	if (cnirt_error_plugin(err) == NULL || strcmp(cnirt_error_plugin(err), plugin) != 0)
		fail_msg("error names plugin %s, expected %s (msg: %s)",
			 cnirt_error_plugin(err) ? cnirt_error_plugin(err) : "(none)", plugin,
			 cnirt_error_msg(err));
	if (cnirt_error_network(err) == NULL || strcmp(cnirt_error_network(err), "errnet") != 0)
		fail_msg("error names network %s, expected errnet (msg: %s)",
			 cnirt_error_network(err) ? cnirt_error_network(err) : "(none)",
			 cnirt_error_msg(err));
	assert_false(cache_entry_exists(f, "errnet", CONTAINER_ID, IFNAME));
}

/*
 * Spec 1.0.0 section 3, "Adding an attachment": "If the plugin returns an
 * error, halt execution and return the error to the caller." Section 5,
 * "Error": code, msg and details (the spec's own example). Spec 0.4.0,
 * "Network Configuration List Error Handling": "If an ADD action fails, ...
 * it should execute the DEL action (in reverse order from the ADD as
 * specified above) for all plugins in the list, even if some were not called
 * during the ADD action."
 */
static void test_add_error_propagation(void **state)
{
	struct fixture *f = fixture(state);
	cnirt_netlist *l = three_plugins(f, "tuning");
	recorder_answer(f->rec, "tuning", "ADD",
			"{\"cniVersion\":\"1.0.0\",\"code\":7,\"msg\":\"Invalid Configuration\","
			"\"details\":\"Network 192.168.0.0/31 too small to allocate from.\"}",
			1);
	cnirt_attachment a = example_attachment(NULL);
	_cleanup_error_ cnirt_error *err = NULL;
	_cleanup_free_ char *result = NULL;
	assert_true(cnirt_add(f->ctx, l, &a, &result, &err) < 0);
	assert_null(result);
	assert_non_null(err);
	assert_int_equal(cnirt_error_code(err), 7);
	assert_true(cnirt_error_from_plugin(err));
	assert_non_null(strstr(cnirt_error_msg(err), "Invalid Configuration"));
	assert_non_null(cnirt_error_details(err));
	assert_string_equal(cnirt_error_details(err),
			    "Network 192.168.0.0/31 too small to allocate from.");
	assert_add_failed(f, err, "tuning");

	size_t n;
	struct rec_call *c =
	    expect_calls(f, "bridge ADD, tuning ADD, portmap DEL, tuning DEL, bridge DEL", &n);
	for (size_t i = 2; i < n; i++)
		assert_example_env(f, &c[i], "DEL");
	rec_calls_free(c, n);
	cnirt_netlist_free(l);
}

/* Spec 1.0.0 section 3, "Adding an attachment", 1: "Look up the executable
 * specified in the type field. If this does not exist, then this is an
 * error." */
static void test_add_plugin_missing(void **state)
{
	struct fixture *f = fixture(state);
	cnirt_netlist *l = three_plugins(f, "nosuchplugin");
	_cleanup_error_ cnirt_error *err = NULL;
	assert_true(cnirt_add(f->ctx, l, &plain_attachment, NULL, &err) < 0);
	assert_add_failed(f, err, "nosuchplugin");
	assert_non_null(strstr(cnirt_error_msg(err), "nosuchplugin"));

	struct rec_call *c;
	size_t n = recorder_calls(f->rec, &c);
	_cleanup_free_ char *got = calls_summary(c, n);
	rec_calls_free(c, n);
	/* Every plugin is looked for before the first runs: no ADD
	 * ran, so there is nothing to DEL either. */
	if (got[0] != '\0')
		fail_msg("plugins ran as [%s]: expected none (a plugin is missing)", got);
	cnirt_netlist_free(l);
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The pids a fake plugin wrote to its pid-file; returns how many. */
static int read_pids(const char *path, pid_t pids[2])
{
	_cleanup_free_ char *text = read_whole_file(path, NULL);
	if (text == NULL)
		fail_msg("the fake plugin wrote no pid file %s", path);
	int a = 0, b = 0;
	int n = sscanf(text, "%d %d", &a, &b);
	pids[0] = a;
	pids[1] = b;
	return n;
}

/* The process must not exist any more. If it does, it is killed (it is a
 * process this test started) and the test fails. */
static void assert_process_gone(pid_t pid, const char *what)
{
	assert_true(pid > 0);
	if (kill(pid, 0) == 0) {
		kill(pid, SIGKILL);
		fail_msg("%s (pid %d) is still there", what, (int)pid);
	}
	assert_int_equal(errno, ESRCH);
}

/* A plugin that hangs is killed at the timeout; the ADD fails naming it and
 * is rolled back (spec 0.4.0, "Network Configuration List Error Handling"). */
static void test_add_plugin_hangs(void **state)
{
	struct fixture *f = fixture(state);
	cnirt_netlist *l = three_plugins(f, "tuning");
	_cleanup_free_ char *pid_file = xasprintf("%s/tuning.pid", f->rec->files_dir);
	recorder_control(f->rec, "tuning", "ADD", "pid-file=%s\nsleep-ms=20000\n", pid_file);
	cnirt_ctx_set_timeout_ms(f->ctx, 300);
	_cleanup_error_ cnirt_error *err = NULL;
	long long start = now_ms();
	assert_true(cnirt_add(f->ctx, l, &plain_attachment, NULL, &err) < 0);
	long long took = now_ms() - start;
	if (took > 5000)
		fail_msg("ADD took %lld ms with a 300 ms plugin timeout", took);
	assert_add_failed(f, err, "tuning");
	/* Killed and reaped: not even a zombie is left. */
	pid_t pids[2];
	assert_int_equal(read_pids(pid_file, pids), 1);
	assert_process_gone(pids[0], "the timed-out plugin");
	size_t n;
	struct rec_call *c =
	    expect_calls(f, "bridge ADD, tuning ADD, portmap DEL, tuning DEL, bridge DEL", &n);
	rec_calls_free(c, n);
	cnirt_netlist_free(l);
}

/*
 * A plugin that leaves a child behind holding its stdout and stderr (a
 * daemon it started, say): the plugin's answer counts when the plugin exits
 * (cnirt.h, lib/exec.c: the runtime does not wait on pipes its children still
 * hold),
 * not when the pipes close.
 */
static void test_add_plugin_leaves_child(void **state)
{
	struct fixture *f = fixture(state);
	cnirt_netlist *l = three_plugins(f, "tuning");
	_cleanup_free_ char *pid_file = xasprintf("%s/tuning.pid", f->rec->files_dir);
	recorder_control(f->rec, "tuning", "ADD", "pid-file=%s\nchild-sleep-ms=15000\n", pid_file);
	_cleanup_error_ cnirt_error *err = NULL;
	long long start = now_ms();
	int r = cnirt_add(f->ctx, l, &plain_attachment, NULL, &err);
	long long took = now_ms() - start;
	pid_t pids[2];
	int n = read_pids(pid_file, pids);
	if (n == 2 && kill(pids[1], 0) == 0)
		kill(pids[1], SIGKILL); /* the child this test made the plugin start */
	assert_int_equal(n, 2);
	assert_ok(r, err);
	if (took > 5000)
		fail_msg("ADD took %lld ms: it waited for the plugin's child", took);
	size_t nc;
	struct rec_call *c = expect_calls(f, "bridge ADD, tuning ADD, portmap ADD", &nc);
	rec_calls_free(c, nc);
	cnirt_netlist_free(l);
}

/* A plugin killed by a signal fails the ADD, which is rolled back. */
static void test_add_plugin_crashes(void **state)
{
	struct fixture *f = fixture(state);
	cnirt_netlist *l = three_plugins(f, "tuning");
	recorder_control(f->rec, "tuning", "ADD", "signal=11\n");
	_cleanup_error_ cnirt_error *err = NULL;
	assert_true(cnirt_add(f->ctx, l, &plain_attachment, NULL, &err) < 0);
	assert_add_failed(f, err, "tuning");
	size_t n;
	struct rec_call *c =
	    expect_calls(f, "bridge ADD, tuning ADD, portmap DEL, tuning DEL, bridge DEL", &n);
	rec_calls_free(c, n);
	cnirt_netlist_free(l);
}

/* Spec 1.0.0 section 5, "Success": plugins "must output a JSON object". Text
 * that is not JSON is error 6, "Failed to decode content". */
static void test_add_plugin_garbage(void **state)
{
	struct fixture *f = fixture(state);
	cnirt_netlist *l = three_plugins(f, "tuning");
	recorder_control(f->rec, "tuning", "ADD", "stdout=not json\n");
	_cleanup_error_ cnirt_error *err = NULL;
	assert_true(cnirt_add(f->ctx, l, &plain_attachment, NULL, &err) < 0);
	assert_add_failed(f, err, "tuning");
	assert_int_equal(cnirt_error_code(err), CNIRT_ERR_DECODE);
	size_t n;
	struct rec_call *c =
	    expect_calls(f, "bridge ADD, tuning ADD, portmap DEL, tuning DEL, bridge DEL", &n);
	rec_calls_free(c, n);
	cnirt_netlist_free(l);
}

/* Output beyond the cap fails the ADD (no unbounded buffering). */
static void test_add_plugin_floods(void **state)
{
	struct fixture *f = fixture(state);
	cnirt_netlist *l = three_plugins(f, "tuning");
	recorder_control(f->rec, "tuning", "ADD", "flood=1000000\n");
	cnirt_ctx_set_output_limit(f->ctx, 4096);
	_cleanup_error_ cnirt_error *err = NULL;
	assert_true(cnirt_add(f->ctx, l, &plain_attachment, NULL, &err) < 0);
	assert_add_failed(f, err, "tuning");
	size_t n;
	struct rec_call *c =
	    expect_calls(f, "bridge ADD, tuning ADD, portmap DEL, tuning DEL, bridge DEL", &n);
	rec_calls_free(c, n);
	cnirt_netlist_free(l);
}

/* ---------------------------------------------------------------- cache */

/*
 * Spec 1.0.0 section 3: "The runtime must store the result returned by the
 * final plugin persistently". docs/architecture.md (cache.c): the reference library's format,
 * <cacheDir>/results/<network>-<containerID>-<ifname>, kind cniCacheV1,
 * `config` the base64 of the list bytes, directory 0700, file 0600.
 */
static void test_cache_after_add(void **state)
{
	struct fixture *f = fixture(state);
	struct appendix s = {0};
	appendix_prepare(f, &s);
	appendix_add(f, &s);

	_cleanup_free_ char *path = cache_file(f, "dbnet", CONTAINER_ID, IFNAME);
	struct stat st;
	if (stat(path, &st) < 0)
		fail_msg("no cache file %s", path);
	assert_int_equal(st.st_mode & 07777, 0600);
	_cleanup_free_ char *results = xasprintf("%s/results", f->rec->cache_dir);
	assert_int_equal(stat(results, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);

	size_t len;
	_cleanup_free_ char *text = read_whole_file(path, &len);
	_cleanup_json_ json *entry = parse_json(text, len, path);
	assert_string_equal(json_str(json_obj_get(entry, "kind")), "cniCacheV1");
	assert_string_equal(json_str(json_obj_get(entry, "containerId")), CONTAINER_ID);
	assert_string_equal(json_str(json_obj_get(entry, "ifName")), IFNAME);
	assert_string_equal(json_str(json_obj_get(entry, "networkName")), "dbnet");
	assert_string_equal(json_str(json_obj_get(entry, "netns")), NETNS);
	const char *b64 = json_str(json_obj_get(entry, "config"));
	assert_non_null(b64);
	_cleanup_free_ char *config = NULL;
	size_t config_len;
	assert_int_equal(base64_decode(b64, strlen(b64), &config, &config_len), 0);
	size_t list_len;
	_cleanup_free_ char *list = load_bytes("spec-1.0.0/netlist.json", &list_len);
	assert_int_equal(config_len, list_len);
	assert_memory_equal(config, list, list_len);
	_cleanup_json_ json *args = text_json("[[\"argA\",\"foo\"]]");
	assert_json_equal(json_obj_get(entry, "cniArgs"), args, "cached cniArgs");
	_cleanup_json_ json *capargs = text_json(s.capargs);
	assert_json_equal(json_obj_get(entry, "capabilityArgs"), capargs, "cached capabilityArgs");
	assert_json_equal(json_obj_get(entry, "result"), s.final, "cached result");

	/* The same through the API. */
	_cleanup_error_ cnirt_error *err = NULL;
	cnirt_cache_entry *e = NULL;
	assert_ok(cnirt_cache_get(f->ctx, "dbnet", CONTAINER_ID, IFNAME, &e, &err), err);
	assert_non_null(e);
	size_t api_len;
	const char *api_config = cnirt_cache_entry_config(e, &api_len);
	assert_int_equal(api_len, list_len);
	assert_memory_equal(api_config, list, list_len);
	assert_string_equal(cnirt_cache_entry_netns(e), NETNS);
	assert_int_equal(cnirt_cache_entry_arg_count(e), 1);
	assert_string_equal(cnirt_cache_entry_arg_key(e, 0), "argA");
	assert_string_equal(cnirt_cache_entry_arg_value(e, 0), "foo");
	_cleanup_json_ json *api_result = text_json(cnirt_cache_entry_result(e));
	assert_json_equal(api_result, s.final, "cnirt_cache_entry_result");
	cnirt_cache_entry_free(e);
	appendix_free(&s);
}

/*
 * Spec 0.4.0, DEL: "When CNI_NETNS and/or prevResult are not provided, the
 * plugin should clean up as many resources as possible"; docs/architecture.md: "a
 * missing or corrupt cache entry ... is never an obstacle". A corrupt entry: DEL runs every
 * plugin without prevResult and removes the entry.
 */
static void test_cache_corrupt_does_not_block_del(void **state)
{
	struct fixture *f = fixture(state);
	struct appendix s = {0};
	appendix_prepare(f, &s);
	appendix_add(f, &s);
	_cleanup_free_ char *path = cache_file(f, "dbnet", CONTAINER_ID, IFNAME);
	static const char corrupt[] = "{\"kind\":\"cniCacheV1\",\"result\":";
	write_whole_file(path, corrupt, strlen(corrupt), 0600);

	_cleanup_error_ cnirt_error *err = NULL;
	assert_ok(cnirt_del(f->ctx, s.l, &s.a, &err), err);
	size_t n;
	struct rec_call *c = expect_calls(f, "portmap DEL, tuning DEL, bridge DEL", &n);
	for (size_t i = 0; i < n; i++) {
		_cleanup_json_ json *got = rec_call_stdin_json(&c[i]);
		if (json_obj_get(got, "prevResult") != NULL)
			fail_msg("%s DEL got a prevResult from a corrupt cache entry", c[i].plugin);
	}
	rec_calls_free(c, n);
	struct stat st;
	if (lstat(path, &st) == 0)
		fail_msg("corrupt cache entry %s left after a successful DEL", path);
	appendix_free(&s);
}

/*
 * Spec 0.4.0, DEL: the runtime "must delete that cached response on a
 * successful DEL" -- and only then: a failed DEL keeps the entry, so that
 * the next DEL still has the config and prevResult (spec 1.0.0 section 3:
 * "delete may be followed by additional deletes").
 */
static void test_cache_kept_after_failed_del(void **state)
{
	struct fixture *f = fixture(state);
	struct appendix s = {0};
	appendix_prepare(f, &s);
	appendix_add(f, &s);
	recorder_answer(f->rec, "tuning", "DEL",
			"{\"cniVersion\":\"1.0.0\",\"code\":11,\"msg\":\"Try again later\"}", 1);

	_cleanup_error_ cnirt_error *err = NULL;
	assert_true(cnirt_del(f->ctx, s.l, &s.a, &err) < 0);
	assert_int_equal(cnirt_error_code(err), CNIRT_ERR_TRY_AGAIN);
	size_t n;
	/* Section 3, "Deleting an attachment", 4: "If the plugin returns an
	 * error, halt execution and return the error to the caller." */
	struct rec_call *c = expect_calls(f, "portmap DEL, tuning DEL", &n);
	rec_calls_free(c, n);
	assert_true(cache_entry_exists(f, "dbnet", CONTAINER_ID, IFNAME));
	appendix_free(&s);
}

/*
 * cnihook(8) and docs/architecture.md: detach in reverse order from the cached
 * config, arguments and result (not from today's files: the config may have
 * changed since);
 * cnirt.h: cnirt_del_cached uses only what the cache holds. After the ADD the
 * plugin directory changes (a plugin the list does not name appears, the
 * control files of the ADD go away): the DEL still carries the appendix's
 * requests, built from the cached list, CNI_ARGS, capability arguments and
 * result.
 */
static void test_del_cached(void **state)
{
	struct fixture *f = fixture(state);
	struct appendix s = {0};
	appendix_prepare(f, &s);
	appendix_add(f, &s);
	recorder_add_plugin(f->rec, "firewall");
	for (size_t i = 0; i < ARRAY_SIZE(appendix_plugins); i++)
		recorder_control_remove(f->rec, appendix_plugins[i], "ADD");

	_cleanup_error_ cnirt_error *err = NULL;
	assert_ok(cnirt_del_cached(f->ctx, "dbnet", CONTAINER_ID, IFNAME, NULL, &err), err);
	size_t n;
	struct rec_call *c = expect_calls(f, "portmap DEL, tuning DEL, bridge DEL", &n);
	for (size_t i = 0; i < n; i++) {
		size_t plugin = n - 1 - i;
		_cleanup_free_ char *file = xasprintf("del-%s.json", appendix_plugins[plugin]);
		_cleanup_json_ json *want = appendix_request(&s, file, plugin);
		assert_example_env(f, &c[i], "DEL");
		assert_stdin(&c[i], want);
	}
	rec_calls_free(c, n);
	assert_false(cache_entry_exists(f, "dbnet", CONTAINER_ID, IFNAME));

	/* No entry left: success, and no plugin runs. */
	recorder_clear(f->rec);
	assert_ok(cnirt_del_cached(f->ctx, "dbnet", CONTAINER_ID, IFNAME, NULL, &err), err);
	c = expect_calls(f, "", &n);
	rec_calls_free(c, n);
	appendix_free(&s);
}

/* ------------------------------------------------- VERSION, STATUS, GC */

/*
 * Spec 1.0.0 section 2, "VERSION": input "a json-serialized object, with the
 * following key: cniVersion: The version of the protocol in use"; the
 * plugin answers its supportedVersions. A plugin that does not support the
 * list's version fails the validation, named.
 */
static void test_validate_version_mismatch(void **state)
{
	struct fixture *f = fixture(state);
	cnirt_netlist *l = two_plugins(f, "1.0.0", "valnet", "");
	recorder_control(f->rec, "tuning", "VERSION", "versions=0.3.1,0.4.0\n");
	_cleanup_error_ cnirt_error *err = NULL;
	assert_true(cnirt_validate(f->ctx, l, &err) < 0);
	assert_non_null(err);
	bool named = (cnirt_error_plugin(err) && strcmp(cnirt_error_plugin(err), "tuning") == 0) ||
		     strstr(cnirt_error_msg(err), "tuning") != NULL;
	if (!named)
		fail_msg("validation error does not name the plugin: %s", cnirt_error_msg(err));

	struct rec_call *c;
	size_t n = recorder_calls(f->rec, &c);
	bool saw_tuning = false;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(c[i].command, "VERSION") != 0)
			fail_msg("validation ran %s %s", c[i].plugin, c[i].command);
		saw_tuning = saw_tuning || strcmp(c[i].plugin, "tuning") == 0;
		_cleanup_json_ json *got = rec_call_stdin_json(&c[i]);
		const char *v = json_str(json_obj_get(got, "cniVersion"));
		if (v == NULL || strcmp(v, "1.0.0") != 0)
			fail_msg("VERSION of %s got cniVersion %s, expected 1.0.0", c[i].plugin,
				 v ? v : "(none)");
		struct rec_env env;
		rec_call_env(&c[i], &env);
		assert_string_equal(rec_env_get(&env, "CNI_COMMAND"), "VERSION");
		rec_env_free(&env);
	}
	rec_calls_free(c, n);
	assert_true(saw_tuning);
	cnirt_netlist_free(l);
}

static void test_validate_ok(void **state)
{
	struct fixture *f = fixture(state);
	cnirt_netlist *l = two_plugins(f, "1.0.0", "valnet", "");
	recorder_control(f->rec, "tuning", "VERSION", "versions=0.4.0,1.0.0\n");
	_cleanup_error_ cnirt_error *err = NULL;
	assert_ok(cnirt_validate(f->ctx, l, &err), err);
	size_t n;
	struct rec_call *c = expect_calls(f, "bridge VERSION, tuning VERSION", &n);
	rec_calls_free(c, n);
	cnirt_netlist_free(l);
}

/* Spec 1.0.0 section 3, "Attachment Parameters": the runtime must be given a
 * list of plugin paths, which "must also be provided to plugins during
 * execution via the CNI_PATH environment variable". STATUS and GC are not
 * about one attachment: no container, netns or interface. */
static void assert_network_env(const struct fixture *f, const struct rec_call *c,
			       const char *command)
{
	struct env_expect e = {command, NULL, NULL, NULL, NULL, f->rec->bin_dir};
	assert_env(c, &e);
}

/*
 * Spec 1.1.0 section 2, "STATUS: Check plugin status": CNI_COMMAND=STATUS,
 * the plugin configuration on stdin. The runtime asks every plugin of the
 * list, in order (as the reference library's GetStatusNetworkList does), and
 * stops at the first that is not ready.
 */
static void test_status_110(void **state)
{
	struct fixture *f = fixture(state);
	cnirt_netlist *l = two_plugins(f, "1.1.0", "statnet", "");
	_cleanup_error_ cnirt_error *err = NULL;
	assert_ok(cnirt_status(f->ctx, l, &err), err);
	size_t n;
	struct rec_call *c = expect_calls(f, "bridge STATUS, tuning STATUS", &n);
	static const char *const types[] = {"bridge", "tuning"};
	for (size_t i = 0; i < n; i++) {
		assert_network_env(f, &c[i], "STATUS");
		_cleanup_free_ char *text = xasprintf(
		    "{\"cniVersion\":\"1.1.0\",\"name\":\"statnet\",\"type\":\"%s\"}", types[i]);
		_cleanup_json_ json *want = text_json(text);
		assert_stdin(&c[i], want);
	}
	rec_calls_free(c, n);
	cnirt_netlist_free(l);
}

/* Spec 1.1.0 section 5, "Error": code 50, the plugin is not available
 * (cannot service ADD requests), is how STATUS reports a plugin that is not
 * ready; the runtime hands the code on intact and asks no further plugin. */
static void test_status_not_available(void **state)
{
	struct fixture *f = fixture(state);
	cnirt_netlist *l = two_plugins(f, "1.1.0", "statnet", "");
	recorder_answer(f->rec, "bridge", "STATUS",
			"{\"cniVersion\":\"1.1.0\",\"code\":50,\"msg\":\"not ready\"}", 1);
	_cleanup_error_ cnirt_error *err = NULL;
	assert_true(cnirt_status(f->ctx, l, &err) < 0);
	assert_int_equal(cnirt_error_code(err), CNIRT_ERR_PLUGIN_NOT_AVAILABLE);
	assert_string_equal(cnirt_error_plugin(err), "bridge");
	size_t n;
	struct rec_call *c = expect_calls(f, "bridge STATUS", &n);
	rec_calls_free(c, n);
	cnirt_netlist_free(l);
}

/* STATUS is a 1.1.0 verb: for an older list the runtime has nothing to ask
 * and reports success (chain.c; the reference library's
 * GetStatusNetworkList returns nil the same way). */
static void test_status_before_110(void **state)
{
	struct fixture *f = fixture(state);
	cnirt_netlist *l = two_plugins(f, "1.0.0", "statnet", "");
	_cleanup_error_ cnirt_error *err = NULL;
	assert_ok(cnirt_status(f->ctx, l, &err), err);
	size_t n;
	struct rec_call *c = expect_calls(f, "", &n);
	rec_calls_free(c, n);
	cnirt_netlist_free(l);
}

/* ADD container `id` on eth0. */
static void add_container(struct fixture *f, const cnirt_netlist *l, const char *id)
{
	cnirt_attachment a = plain_attachment;
	a.container_id = id;
	_cleanup_error_ cnirt_error *err = NULL;
	assert_ok(cnirt_add(f->ctx, l, &a, NULL, &err), err);
}

static void assert_container_env(const struct rec_call *c, const char *id)
{
	struct rec_env env;
	rec_call_env(c, &env);
	const char *got = rec_env_get(&env, "CNI_CONTAINERID");
	if (got == NULL || strcmp(got, id) != 0)
		fail_msg("%s %s ran for container %s, expected %s", c->plugin, c->command,
			 got ? got : "(none)", id);
	rec_env_free(&env);
}

/*
 * Spec 1.1.0 section 2, "GC: Clean up any stale resources": the plugin
 * configuration gets the key `cni.dev/valid-attachments`, "the list of
 * still valid attachments to this network", objects with `containerID` and
 * `ifname`; section 3, "Garbage-collecting a network": GC for every plugin
 * of the list. The cached attachments of the network that are not valid are
 * DELeted first from what the cache holds (cnirt.h; the reference library
 * does the same), and their entries removed.
 */
static void test_gc_110(void **state)
{
	struct fixture *f = fixture(state);
	cnirt_netlist *l = two_plugins(f, "1.1.0", "gcnet", "");
	add_container(f, l, "c1");
	add_container(f, l, "c3");
	recorder_clear(f->rec);

	const cnirt_attachment_id valid[] = {{"c1", "eth0"}, {"c2", "net1"}};
	_cleanup_error_ cnirt_error *err = NULL;
	assert_ok(cnirt_gc(f->ctx, l, valid, ARRAY_SIZE(valid), &err), err);

	size_t n;
	struct rec_call *c = expect_calls(f, "tuning DEL, bridge DEL, bridge GC, tuning GC", &n);
	assert_container_env(&c[0], "c3");
	assert_container_env(&c[1], "c3");
	_cleanup_json_ json *want = text_json("[{\"containerID\":\"c1\",\"ifname\":\"eth0\"},"
					      "{\"containerID\":\"c2\",\"ifname\":\"net1\"}]");
	for (size_t i = 2; i < n; i++) {
		assert_network_env(f, &c[i], "GC");
		_cleanup_json_ json *got = rec_call_stdin_json(&c[i]);
		assert_json_equal(json_obj_get(got, "cni.dev/valid-attachments"), want,
				  "cni.dev/valid-attachments");
		assert_string_equal(json_str(json_obj_get(got, "cniVersion")), "1.1.0");
		assert_string_equal(json_str(json_obj_get(got, "name")), "gcnet");
		assert_string_equal(json_str(json_obj_get(got, "type")), c[i].plugin);
	}
	rec_calls_free(c, n);
	assert_true(cache_entry_exists(f, "gcnet", "c1", "eth0"));
	assert_false(cache_entry_exists(f, "gcnet", "c3", "eth0"));
	cnirt_netlist_free(l);
}

/*
 * Spec 1.1.0 section 3, "Garbage-collecting a network", 4: "If the plugin
 * returns an error, continue with execution, returning all errors to the
 * caller." A failing GC of the first plugin does not skip the second.
 */
static void test_gc_continues_after_error(void **state)
{
	struct fixture *f = fixture(state);
	cnirt_netlist *l = two_plugins(f, "1.1.0", "gcnet", "");
	recorder_answer(f->rec, "bridge", "GC",
			"{\"cniVersion\":\"1.1.0\",\"code\":5,\"msg\":\"I/O failure\"}", 1);
	const cnirt_attachment_id valid[] = {{"c1", "eth0"}};
	_cleanup_error_ cnirt_error *err = NULL;
	assert_true(cnirt_gc(f->ctx, l, valid, ARRAY_SIZE(valid), &err) < 0);
	assert_non_null(err);
	size_t n;
	struct rec_call *c = expect_calls(f, "bridge GC, tuning GC", &n);
	rec_calls_free(c, n);
	cnirt_netlist_free(l);
}

/*
 * Same rule for the DEL of a stale cached attachment: its failure is
 * reported, and the GC verb still runs (the reference library's
 * GCNetworkList collects the DEL errors and goes on to the GC).
 */
static void test_gc_continues_after_stale_del_error(void **state)
{
	struct fixture *f = fixture(state);
	cnirt_netlist *l = two_plugins(f, "1.1.0", "gcnet", "");
	add_container(f, l, "c3");
	recorder_clear(f->rec);
	recorder_answer(f->rec, "tuning", "DEL",
			"{\"cniVersion\":\"1.1.0\",\"code\":11,\"msg\":\"Try again later\"}", 1);

	const cnirt_attachment_id valid[] = {{"c1", "eth0"}};
	_cleanup_error_ cnirt_error *err = NULL;
	assert_true(cnirt_gc(f->ctx, l, valid, ARRAY_SIZE(valid), &err) < 0);
	assert_non_null(err);
	size_t n;
	struct rec_call *c = expect_calls(f, "tuning DEL, bridge GC, tuning GC", &n);
	rec_calls_free(c, n);
	/* The failed DEL keeps the entry, for the next attempt. */
	assert_true(cache_entry_exists(f, "gcnet", "c3", "eth0"));
	cnirt_netlist_free(l);
}

/*
 * Spec 1.1.0 section 1: "disableGC (boolean): ... If disableGC is true,
 * runtimes must not call GC for this network configuration list." The reference library
 * returns at once ("If DisableGC is set, then don't bother GCing at all"),
 * also skipping the DEL of stale cached attachments: a network shared by
 * several runtimes (the reason for the flag) shares their cache too.
 */
static void test_gc_disabled(void **state)
{
	struct fixture *f = fixture(state);
	cnirt_netlist *l = two_plugins(f, "1.1.0", "gcnet", "\"disableGC\":true,");
	assert_true(cnirt_netlist_disable_gc(l));
	add_container(f, l, "c3");
	recorder_clear(f->rec);

	const cnirt_attachment_id valid[] = {{"c1", "eth0"}};
	_cleanup_error_ cnirt_error *err = NULL;
	assert_ok(cnirt_gc(f->ctx, l, valid, ARRAY_SIZE(valid), &err), err);
	size_t n;
	struct rec_call *c = expect_calls(f, "", &n);
	rec_calls_free(c, n);
	assert_true(cache_entry_exists(f, "gcnet", "c3", "eth0"));
	cnirt_netlist_free(l);
}

/* GC of a list older than 1.1.0: no GC verb (plugins of that version do not
 * know it), but the stale cached attachments are still DELeted (chain.c;
 * the reference library's GCNetworkList does the same). */
static void test_gc_before_110(void **state)
{
	struct fixture *f = fixture(state);
	cnirt_netlist *l = two_plugins(f, "1.0.0", "gcnet", "");
	add_container(f, l, "c1");
	add_container(f, l, "c3");
	recorder_clear(f->rec);

	const cnirt_attachment_id valid[] = {{"c1", "eth0"}};
	_cleanup_error_ cnirt_error *err = NULL;
	assert_ok(cnirt_gc(f->ctx, l, valid, ARRAY_SIZE(valid), &err), err);
	size_t n;
	struct rec_call *c = expect_calls(f, "tuning DEL, bridge DEL", &n);
	assert_container_env(&c[0], "c3");
	assert_container_env(&c[1], "c3");
	rec_calls_free(c, n);
	assert_true(cache_entry_exists(f, "gcnet", "c1", "eth0"));
	assert_false(cache_entry_exists(f, "gcnet", "c3", "eth0"));
	cnirt_netlist_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	    T(test_appendix_add),
	    T(test_appendix_check),
	    T(test_appendix_del),
	    T(test_del_without_netns),
	    T(test_del_without_add),
	    T(test_check_without_add),
	    T(test_add_needs_netns),
	    T(test_spec040_add),
	    T(test_spec040_check),
	    T(test_spec040_del),
	    T(test_spec040_prev_result_converted),
	    T(test_v031_add_del),
	    T(test_v031_check_refused),
	    T(test_v020_add_del),
	    T(test_v020_check_refused),
	    T(test_v020_prev_result_converted),
	    T(test_v010_add_del),
	    T(test_v010_check_refused),
	    T(test_disable_check),
	    T(test_cni_versions_highest),
	    T(test_capability_intersection),
	    T(test_pass_through_fidelity),
	    T(test_add_error_propagation),
	    T(test_add_plugin_missing),
	    T(test_add_plugin_hangs),
	    T(test_add_plugin_leaves_child),
	    T(test_add_plugin_crashes),
	    T(test_add_plugin_garbage),
	    T(test_add_plugin_floods),
	    T(test_cache_after_add),
	    T(test_cache_corrupt_does_not_block_del),
	    T(test_cache_kept_after_failed_del),
	    T(test_del_cached),
	    T(test_validate_version_mismatch),
	    T(test_validate_ok),
	    T(test_status_110),
	    T(test_status_not_available),
	    T(test_status_before_110),
	    T(test_gc_110),
	    T(test_gc_continues_after_error),
	    T(test_gc_continues_after_stale_del_error),
	    T(test_gc_disabled),
	    T(test_gc_before_110),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
