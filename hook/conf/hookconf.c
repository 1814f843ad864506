/* SPDX-License-Identifier: Apache-2.0 */
/* The hook configuration file, cnihook.json(5). */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <cnirt.h>

#include "conf/hookconf.h"
#include "base/suggest.h"

#define CONFIG_MAX_SIZE	     (1u << 20)
#define TIMEOUT_MAX_S	     3600
#define MAX_DEFAULT_NETWORKS 32 /* a container's attachments, at most */

struct hook_config *hookconf_defaults(void)
{
	static const char *const bins[] = {"/opt/cni/bin", "/usr/libexec/cni", "/usr/lib/cni"};
	struct hook_config *c = xzalloc(sizeof(*c));
	c->conf_dir = xstrdup(CNIHOOK_CONF_DIR);
	for (size_t i = 0; i < ARRAY_SIZE(bins); i++)
		strv_append(&c->bin_dirs, &c->n_bin_dirs, bins[i]);
	c->cache_dir = xstrdup("/var/lib/cni");
	c->state_dir = xstrdup(CNIHOOK_STATE_DIR);
	c->plugin_timeout_ms = 60 * 1000;
	c->log_level = LOG_LEVEL_WARN;
	c->log_syslog = true;
	c->runtime = xstrdup("runc");
	policy_defaults(&c->policy);
	sandbox_defaults(&c->sandbox);
	return c;
}

void hookconf_free(struct hook_config *c)
{
	if (c == NULL)
		return;
	free(c->conf_dir);
	strv_free(c->bin_dirs, c->n_bin_dirs);
	free(c->cache_dir);
	free(c->state_dir);
	free(c->plugin_runtime_dir);
	free(c->runtime);
	strv_free(c->default_networks, c->n_default_networks);
	policy_free(&c->policy);
	sandbox_config_free(&c->sandbox);
	sandbox_free(c->sb);
	free(c);
}

static int bad(char **err, const char *path, const char *field, const char *problem)
{
	*err = xasprintf("%s: field \"%s\": %s", path, field, problem);
	return -1;
}

/* Field `prefix``k` is none of known[0..n): say which is nearest. */
static int unknown(char **err, const char *path, const char *prefix, const char *k,
		   const char *const *known, size_t n)
{
	_cleanup_free_ char *field = xasprintf("%s%s", prefix, k);
	_cleanup_free_ char *problem = suggest_unknown("unknown field", k, prefix, known, n);
	return bad(err, path, field, problem);
}

/* An absolute path without "..", replacing *dst. */
static int get_dir(json *v, const char *path, const char *field, char **dst, char **err)
{
	const char *s = json_str(v);
	if (s == NULL)
		return bad(err, path, field, "must be a string");
	if (s[0] != '/' || strstr(s, "/../") ||
	    (strlen(s) >= 3 && !strcmp(s + strlen(s) - 3, "/..")))
		return bad(err, path, field, "must be an absolute path without \"..\"");
	free(*dst);
	*dst = xstrdup(s);
	return 0;
}

/* "runtime": a program name (looked up in PATH) or an absolute path
 * without "..". */
static int get_runtime(json *v, const char *path, struct hook_config *c, char **err)
{
	const char *s = json_str(v);
	if (s == NULL || *s == '\0')
		return bad(err, path, "runtime", "must be a program name or an absolute path");
	if (strchr(s, '/'))
		return get_dir(v, path, "runtime", &c->runtime, err);
	free(c->runtime);
	c->runtime = xstrdup(s);
	return 0;
}

static int get_dirs(json *v, const char *path, struct hook_config *c, char **err)
{
	if (!json_is_array(v))
		return bad(err, path, "binDirs", "must be an array of paths");
	char **dirs = NULL;
	size_t n = 0;
	for (size_t i = 0; i < v->u.array.n; i++) {
		_cleanup_free_ char *field = xasprintf("binDirs[%zu]", i);
		_cleanup_free_ char *d = NULL;
		if (get_dir(v->u.array.v[i], path, field, &d, err) < 0) {
			strv_free(dirs, n);
			return -1;
		}
		strv_append(&dirs, &n, d);
	}
	strv_free(c->bin_dirs, c->n_bin_dirs);
	c->bin_dirs = dirs;
	c->n_bin_dirs = n;
	return 0;
}

static int get_networks(json *v, const char *path, struct hook_config *c, char **err)
{
	if (!json_is_array(v))
		return bad(err, path, "defaultNetworks", "must be an array of network names");
	if (v->u.array.n > MAX_DEFAULT_NETWORKS) {
		_cleanup_free_ char *p =
		    xasprintf("%zu networks, at most %d", v->u.array.n, MAX_DEFAULT_NETWORKS);
		return bad(err, path, "defaultNetworks", p);
	}
	for (size_t i = 0; i < v->u.array.n; i++) {
		_cleanup_free_ char *field = xasprintf("defaultNetworks[%zu]", i);
		const char *name = json_str(v->u.array.v[i]);
		cnirt_error *e = NULL;
		if (name == NULL)
			return bad(err, path, field, "must be a string");
		if (cnirt_check_network_name(name, &e) < 0) {
			int r = bad(err, path, field, cnirt_error_msg(e));
			cnirt_error_free(e);
			return r;
		}
		strv_append(&c->default_networks, &c->n_default_networks, name);
	}
	return 0;
}

static int get_log(json *v, const char *path, struct hook_config *c, char **err)
{
	if (!json_is_object(v))
		return bad(err, path, "log", "must be an object");
	for (size_t i = 0; i < v->u.object.n; i++) {
		const char *k = v->u.object.k[i];
		json *x = v->u.object.v[i];
		if (strcmp(k, "level") == 0) {
			if (json_str(x) == NULL || log_parse_level(json_str(x), &c->log_level) < 0)
				return bad(
				    err, path, "log.level",
				    "must be one of \"error\", \"warn\", \"info\", \"debug\"");
		} else if (strcmp(k, "syslog") == 0) {
			if (!json_is_true(x) && !json_is_false(x))
				return bad(err, path, "log.syslog", "must be true or false");
			c->log_syslog = json_is_true(x);
		} else {
			/* Those of the branches above. */
			static const char *const fields[] = {"level", "syslog"};
			return unknown(err, path, "log.", k, fields, ARRAY_SIZE(fields));
		}
	}
	return 0;
}

int hookconf_names_mode(const char *s, enum names_mode *out)
{
	static const struct {
		const char *name;
		enum names_mode mode;
	} modes[] = {{"auto", NAMES_AUTO}, {"off", NAMES_OFF}, {"always", NAMES_ALWAYS}};
	for (size_t i = 0; s && i < ARRAY_SIZE(modes); i++)
		if (strcmp(s, modes[i].name) == 0) {
			*out = modes[i].mode;
			return 0;
		}
	return -1;
}

/* "dns": one mode for both files, or {"resolvConf": M, "hosts": M}. */
static int get_dns(json *v, const char *path, struct hook_config *c, char **err)
{
	static const char modes[] = "must be \"auto\", \"off\" or \"always\"";
	if (json_is_string(v)) {
		enum names_mode m;
		if (hookconf_names_mode(json_str(v), &m) < 0)
			return bad(err, path, "dns", modes);
		c->dns_resolv_conf = c->dns_hosts = m;
		return 0;
	}
	if (!json_is_object(v))
		return bad(err, path, "dns",
			   "must be a mode (\"auto\", \"off\", \"always\") or an "
			   "object of \"resolvConf\" and \"hosts\"");
	for (size_t i = 0; i < v->u.object.n; i++) {
		const char *k = v->u.object.k[i];
		enum names_mode *dst = strcmp(k, "resolvConf") == 0 ? &c->dns_resolv_conf
				       : strcmp(k, "hosts") == 0    ? &c->dns_hosts
								    : NULL;
		if (dst == NULL) {
			static const char *const fields[] = {"resolvConf", "hosts"};
			return unknown(err, path, "dns.", k, fields, ARRAY_SIZE(fields));
		}
		if (hookconf_names_mode(json_str(v->u.object.v[i]), dst) < 0) {
			_cleanup_free_ char *f = xasprintf("dns.%s", k);
			return bad(err, path, f, modes);
		}
	}
	return 0;
}

static int apply(json *root, const char *path, struct hook_config *c, char **err)
{
	if (!json_is_object(root)) {
		*err = xasprintf("%s: must hold a JSON object, not %s", path, json_type_name(root));
		return -1;
	}
	for (size_t i = 0; i < root->u.object.n; i++) {
		const char *k = root->u.object.k[i];
		json *v = root->u.object.v[i];
		int r;
		if (strcmp(k, "confDir") == 0)
			r = get_dir(v, path, k, &c->conf_dir, err);
		else if (strcmp(k, "cacheDir") == 0)
			r = get_dir(v, path, k, &c->cache_dir, err);
		else if (strcmp(k, "stateDir") == 0)
			r = get_dir(v, path, k, &c->state_dir, err);
		else if (strcmp(k, "binDirs") == 0)
			r = get_dirs(v, path, c, err);
		else if (strcmp(k, "defaultNetworks") == 0)
			r = get_networks(v, path, c, err);
		else if (strcmp(k, "log") == 0)
			r = get_log(v, path, c, err);
		else if (strcmp(k, "dns") == 0)
			r = get_dns(v, path, c, err);
		else if (strcmp(k, "runtime") == 0)
			r = get_runtime(v, path, c, err);
		else if (strcmp(k, "pluginTimeout") == 0) {
			if (!json_is_int(v) || json_int_value(v) < 1 ||
			    json_int_value(v) > TIMEOUT_MAX_S)
				return bad(err, path, k,
					   "must be a whole number of seconds, 1-3600");
			c->plugin_timeout_ms = (unsigned)json_int_value(v) * 1000;
			r = 0;
		} else if (strcmp(k, "policy") == 0) {
			struct policy p;
			r = policy_parse(v, path, &p, err);
			if (r == 0) {
				policy_free(&c->policy);
				c->policy = p;
			}
		} else if (strcmp(k, "sandbox") == 0) {
			struct sandbox_config sc;
			r = sandbox_parse(v, path, &sc, err);
			if (r == 0) {
				sandbox_config_free(&c->sandbox);
				c->sandbox = sc;
			}
		} else {
			/* Those of the branches above. */
			static const char *const fields[] = {
			    "confDir",	       "binDirs",	"cacheDir", "stateDir",
			    "defaultNetworks", "pluginTimeout", "log",	    "policy",
			    "sandbox",	       "dns",		"runtime"};
			r = unknown(err, path, "", k, fields, ARRAY_SIZE(fields));
		}
		if (r < 0)
			return -1;
	}
	return 0;
}

/* The sandbox is prepared once, in the hook's process, when enabled. */
static int finish(struct hook_config *c, char **err)
{
	if (c->sandbox.enabled && sandbox_prepare(&c->sandbox, &c->sb, err) < 0)
		return -1;
	return 0;
}

/* "FILE: field "NAME": PROBLEM" made "FILE:LINE:COLUMN: field ...", the
 * place of the field in the text, when it can be found there. */
static void place_field_error(const char *buf, size_t len, const char *path, char **err)
{
	_cleanup_free_ char *prefix = xasprintf("%s: field \"", path);
	if (strncmp(*err, prefix, strlen(prefix)) != 0)
		return;
	const char *name = *err + strlen(prefix);
	const char *end = strstr(name, "\": ");
	if (end == NULL)
		return;
	_cleanup_free_ char *field = xstrndup(name, (size_t)(end - name));
	_cleanup_free_ char *where = json_field_place(buf, len, path, field);
	if (where == NULL)
		return;
	char *located = xasprintf("%s: %s", where, *err + strlen(path) + 2);
	free(*err);
	*err = located;
}

int hookconf_load(const char *path, struct hook_config **out, char **err)
{
	const char *p = path ? path : CNIHOOK_CONFIG_PATH;
	_cleanup_free_ char *buf = NULL;
	size_t len;
	_cleanup_free_ char *e = NULL;
	int errnum = 0;
	int r = read_file(p, CONFIG_MAX_SIZE, &buf, &len, &errnum, &e);
	if (r < 0 && errnum == ENOENT && path == NULL) {
		struct hook_config *c = hookconf_defaults();
		if (finish(c, err) < 0) {
			hookconf_free(c);
			return -1;
		}
		*out = c;
		return 0;
	}
	if (r < 0) {
		*err = TAKE_PTR(e);
		return -1;
	}
	json *root = NULL;
	/* cnihook.json(5): comments allowed, places as FILE:LINE:COLUMN. */
	static const struct json_limits conf_json = {.max_depth = UTIL_JSON_DEPTH,
						     .no_nul = true,
						     .utf8_unchecked = true,
						     .comments = true,
						     .file = true};
	if (json_parse_with(buf, len, p, &conf_json, &root, err) < 0)
		return -1;
	struct hook_config *c = hookconf_defaults();
	r = apply(root, p, c, err);
	json_free(root);
	if (r < 0)
		place_field_error(buf, len, p, err);
	if (r == 0)
		r = finish(c, err);
	if (r < 0) {
		hookconf_free(c);
		return -1;
	}
	*out = c;
	return 0;
}

void hookconf_pass_path(cnirt_ctx *ctx)
{
	/* Engines often run hooks with an empty environment: then the
	 * library's system default stays. */
	const char *path = getenv("PATH");
	if (path && *path)
		cnirt_ctx_set_path_env(ctx, path);
	/* The caller's W3C trace context reaches the plugins, as libcni's do. */
	static const char *const trace[] = CNIRT_TRACE_ENV_NAMES;
	for (size_t i = 0; i < sizeof(trace) / sizeof(trace[0]); i++) {
		const char *v = getenv(trace[i]);
		cnirt_error *e = NULL;
		if (v && cnirt_ctx_set_env(ctx, trace[i], v, &e) < 0)
			cnirt_error_free(e);
	}
}

cnirt_ctx *hookconf_ctx(const struct hook_config *c)
{
	cnirt_ctx *ctx = cnirt_ctx_new();
	cnirt_ctx_set_bin_dirs(ctx, (const char *const *)c->bin_dirs, c->n_bin_dirs);
	cnirt_ctx_set_cache_dir(ctx, c->cache_dir);
	cnirt_ctx_set_timeout_ms(ctx, c->plugin_timeout_ms);
	/* One thread, and it reaps no child it did not start. */
	cnirt_ctx_set_spawn_direct(ctx, true);
	hookconf_pass_path(ctx);
	cnirt_error *e = NULL;
	if (c->plugin_runtime_dir &&
	    cnirt_ctx_set_env(ctx, "XDG_RUNTIME_DIR", c->plugin_runtime_dir, &e) < 0)
		cnirt_error_free(e);
	if (c->sb)
		cnirt_ctx_set_plugin_preexec(ctx, sandbox_apply, c->sb);
	return ctx;
}
