/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Operations on an attachment (spec section 3, "Execution of Network
 * Configurations"): ADD, CHECK and DEL over a network configuration list,
 * the 1.1.0 verbs STATUS and GC, VERSION probing and validation.
 */
#include "config.h"

#include <string.h>

#include "internal.h"

/* One plugin invocation of an operation. */
struct call {
	cnirt_ctx *ctx;
	const cnirt_netlist *list;
	const char *command;
	const cnirt_attachment *att; /* NULL for STATUS and GC */
	json *cap_args;		     /* owned, like the next two (call_done()) */
	char *args;		     /* CNI_ARGS */
	json *config_args;	     /* args.cni */
	long long deadline;	     /* the operation's (clock_monotonic_ms() clock; 0: none) */
	bool rollback;		     /* the DEL after a failed ADD */
	char **paths;		     /* owned: the plugins add_preflight() found, or NULL */
};

static void call_done(struct call *c)
{
	if (c->paths)
		for (size_t i = 0; i < c->list->n_plugins; i++)
			free(c->paths[i]);
	free(c->paths);
	json_free(c->cap_args);
	json_free(c->config_args);
	free(c->args);
}
#define _cleanup_call_ __attribute__((cleanup(call_done)))

/* The operation's deadline, or 0 (cnirt_ctx_set_deadline_ms()). */
static long long op_deadline(const cnirt_ctx *ctx)
{
	return ctx->deadline_ms ? clock_monotonic_ms() + ctx->deadline_ms : 0;
}

/* Tell the observer about one execution. */
static void observe(const cnirt_ctx *ctx, const char *network, const char *plugin,
		    const char *command, const cnirt_attachment *att, long long usec,
		    const cnirt_error *err, bool rollback)
{
	if (ctx->event_observer) {
		cnirt_event ev = {.network = network,
				  .plugin = plugin,
				  .command = command,
				  .container_id = att ? att->container_id : NULL,
				  .ifname = att ? att->ifname : NULL,
				  .usec = usec,
				  .err = err,
				  .rollback = rollback};
		ctx->event_observer(ctx->event_data, &ev);
	}
}

/* NULL arguments are answered with an error (cnirt.h). */
static int need(const void *p, const char *what, cnirt_error **err)
{
	if (p)
		return 0;
	error_set(err, CNIRT_ERR_NONE, "%s: NULL given", what);
	return error_kind(err, CNIRT_KIND_INVALID_ARGUMENT);
}

static void tag(cnirt_error *e, const cnirt_netlist *l, const char *plugin)
{
	error_set_network(e, l->name);
	error_set_plugin(e, plugin);
}

/* Run plugin i with the given stdin. On success *out is its stdout. */
static int run_stdin(const struct call *c, size_t i, const char *stdin_data, size_t stdin_len,
		     char **out, size_t *out_len, cnirt_error **err)
{
	const char *type = c->list->plugins[i].type;
	_cleanup_free_ char *found = NULL, *args = NULL;
	/* The pairs for this plugin's type alone (cnirt_ctx_set_plugin_args()). */
	const char *own = c->att ? ctx_plugin_args(c->ctx, type) : NULL;
	if (own)
		args = c->args && *c->args ? xasprintf("%s;%s", c->args, own) : xstrdup(own);
	struct exec_request req = {
	    .command = c->command,
	    .container_id = c->att ? c->att->container_id : NULL,
	    .netns = c->att ? c->att->netns : NULL,
	    .ifname = c->att ? c->att->ifname : NULL,
	    .args = own ? args : c->args,
	    .plugin = type,
	    .stdin_data = stdin_data,
	    .stdin_len = stdin_len,
	    .deadline = c->deadline,
	};
	long long start = clock_monotonic_usec();
	const char *path = c->paths ? c->paths[i] : NULL;
	int r = 0;
	if (path == NULL && (r = exec_find_plugin(c->ctx, type, &found, err)) == 0)
		path = found;
	if (r == 0)
		r = exec_plugin(c->ctx, path, &req, out, out_len, err);
	if (r < 0)
		tag(*err, c->list, type);
	observe(c->ctx, c->list->name, type, c->command, c->att, clock_monotonic_usec() - start,
		r < 0 ? *err : NULL, c->rollback);
	return r;
}

/* Derive plugin i's execution configuration and run it. */
static int run(const struct call *c, size_t i, const json *prev, char **out, size_t *out_len,
	       cnirt_error **err)
{
	size_t len;
	_cleanup_free_ char *conf =
	    derive_exec_config(c->list, i, c->cap_args, c->config_args, prev, &len);
	return run_stdin(c, i, conf, len, out, out_len, err);
}

/* A success result in any version, converted to the list's version. */
static int parse_result(const struct call *c, size_t i, const char *buf, size_t len, json **out,
			cnirt_error **err)
{
	_cleanup_json_ json *raw = NULL;
	const char *type = c->list->plugins[i].type;
	if (len == 0) {
		error_set(err, CNIRT_ERR_DECODE, "%s returned no result", c->command);
		tag(*err, c->list, type);
		return error_kind(err, CNIRT_KIND_INVALID_RESULT);
	}
	if (json_read_parse(buf, len, "plugin result", &raw, err) < 0 ||
	    result_validate(raw, err) < 0 ||
	    result_convert(raw, c->list->effective_version, out, err) < 0) {
		error_prefix(err, "%s result", c->command);
		tag(*err, c->list, type);
		return error_kind(err, CNIRT_KIND_INVALID_RESULT);
	}
	return 0;
}

/* Hand the running result after plugin i's ADD to the engine
 * (cnirt_ctx_set_add_step()), before the next plugin starts. */
static int add_step(const struct call *c, size_t i, const json *result, cnirt_error **err)
{
	if (c->ctx->add_step == NULL)
		return 0;
	size_t len;
	_cleanup_free_ char *text = json_gen(result, false, &len);
	const char *type = c->list->plugins[i].type;
	cnirt_add_step step = {
	    .network = c->list->name,
	    .container_id = c->att->container_id,
	    .ifname = c->att->ifname,
	    .plugin = type,
	    .index = i,
	    .result = text,
	    .result_len = len,
	};
	int e = c->ctx->add_step(c->ctx->add_step_data, &step);
	if (e == 0)
		return 0;
	error_set_errno(err, CNIRT_ERR_IO, e, "ADD: the engine could not keep the result of %s",
			type);
	tag(*err, c->list, type);
	return error_kind(err, CNIRT_KIND_IO);
}

static bool uses_prev_result_on_del(const cnirt_netlist *l)
{
	return version_ge(l->effective_version, "0.4.0");
}

/* DEL every plugin in reverse order with prev as prevResult. A DEL stops at
 * the first failure (spec section 3, "Deleting an attachment"): its error
 * goes to *err. The rollback after a failed ADD (c->rollback) goes on past
 * failures, since it must reach "all plugins in the list" (spec 0.4.0),
 * and hands every error to `add_err` (cnirt_error_rollback()). */
static int del_chain(const struct call *c, const json *prev, cnirt_error *add_err,
		     cnirt_error **err)
{
	if (!uses_prev_result_on_del(c->list))
		prev = NULL;
	for (size_t i = c->list->n_plugins; i-- > 0;) {
		_cleanup_free_ char *out = NULL;
		cnirt_error *e = NULL;
		size_t len;
		if (run(c, i, prev, &out, &len, &e) == 0)
			continue;
		if (!c->rollback) {
			*err = e;
			return -1;
		}
		error_add_rollback(add_err, e);
	}
	return 0;
}

static int check_attachment(const cnirt_attachment *a, bool need_netns, cnirt_error **err)
{
	if (a == NULL)
		return error_set(err, CNIRT_ERR_INVALID_ENV, "no attachment given");
	if (cnirt_check_container_id(a->container_id, err) < 0 ||
	    cnirt_check_ifname(a->ifname, err) < 0)
		return -1;
	if (need_netns && (a->netns == NULL || a->netns[0] == '\0'))
		return error_set(err, CNIRT_ERR_INVALID_ENV, "network namespace path is empty");
	for (size_t i = 0; i < a->n_args; i++) {
		const char *k = a->args[i].key, *v = a->args[i].value;
		if (k == NULL || *k == '\0' || strpbrk(k, "=;") || v == NULL || strchr(v, ';'))
			return error_set(err, CNIRT_ERR_INVALID_ENV,
					 "CNI_ARGS pair %zu (\"%s\"): keys must be non-empty "
					 "without '=' or ';', values without ';'",
					 i + 1, k ? k : "");
	}
	return 0;
}

/* Set up a call for an operation on an attachment; what it parses is the
 * call's own until call_done(). */
static int call_init(struct call *c, cnirt_ctx *ctx, const cnirt_netlist *l, const char *command,
		     const cnirt_attachment *a, bool need_netns, cnirt_error **err)
{
	*c = (struct call){.ctx = ctx, .list = l, .command = command, .att = a};
	if (l == NULL)
		return error_set(err, CNIRT_ERR_INVALID_CONFIG, "no network configuration given");
	if (check_attachment(a, need_netns, err) < 0)
		return error_set_network(*err, l->name);
	if (a->capability_args && a->capability_args[0]) {
		if (json_read_parse(a->capability_args, strlen(a->capability_args),
				    "capability arguments", &c->cap_args, err) < 0)
			return error_set_network(*err, l->name);
		if (c->cap_args->type != JSON_OBJECT) {
			error_set(err, CNIRT_ERR_INVALID_CONFIG,
				  "capability arguments: must be a JSON object");
			return error_set_network(*err, l->name);
		}
	}
	if (derive_parse_config_args(a->config_args, &c->config_args, err) < 0)
		return error_set_network(*err, l->name);
	c->args = cache_args_join(a->args, a->n_args);
	return 0;
}

/* What an ADD can check before the first plugin runs, so that a failure
 * there costs no plugin execution and no roll-back: the cache entry (name
 * length, directory, another attachment under the same file name) and that
 * every plugin of the list is found. The paths found are kept for the
 * executions, which then need not look again. */
static int add_preflight(struct call *c, cnirt_error **err)
{
	const cnirt_netlist *l = c->list;
	if (cache_prepare(c->ctx, l->name, c->att->container_id, c->att->ifname, err) < 0)
		return error_set_network(*err, l->name);
	c->paths = xcalloc(l->n_plugins ? l->n_plugins : 1, sizeof(*c->paths));
	for (size_t i = 0; i < l->n_plugins; i++) {
		long long start = clock_monotonic_usec();
		if (exec_find_plugin(c->ctx, l->plugins[i].type, &c->paths[i], err) == 0)
			continue;
		tag(*err, l, l->plugins[i].type);
		observe(c->ctx, l->name, l->plugins[i].type, c->command, c->att,
			clock_monotonic_usec() - start, *err, false);
		return -1;
	}
	return 0;
}

CNIRT_EXPORT int cnirt_add(cnirt_ctx *ctx, const cnirt_netlist *l, const cnirt_attachment *a,
			   char **result_json, cnirt_error **err)
{
	ERR_OUT_INIT(err);
	return cnirt_add_with_flags(ctx, l, a, 0, result_json, err);
}

CNIRT_EXPORT int cnirt_add_with_flags(cnirt_ctx *ctx, const cnirt_netlist *l,
				      const cnirt_attachment *a, unsigned flags, char **result_json,
				      cnirt_error **err)
{
	ERR_OUT_INIT(err);
	_cleanup_json_ json *prev = NULL;
	_cleanup_call_ struct call c = {0};
	/* "" is no capability arguments, for the cache too. */
	cnirt_attachment att = a ? *a : (cnirt_attachment){0};
	if (att.capability_args && att.capability_args[0] == '\0')
		att.capability_args = NULL;
	if (need(ctx, "ctx", err) < 0 ||
	    call_init(&c, ctx, l, "ADD", a ? &att : NULL, true, err) < 0)
		return -1;
	if (flags & ~(unsigned)CNIRT_ADD_NO_ROLLBACK)
		return error_set(err, CNIRT_ERR_INVALID_ENV, "ADD: unknown flags 0x%x",
				 flags & ~(unsigned)CNIRT_ADD_NO_ROLLBACK);
	if (add_preflight(&c, err) < 0)
		return -1;
	/* The ADDs get three quarters of the operation's budget, the rollback
	 * the rest (cnirt_ctx_set_deadline_ms()). */
	long long deadline = op_deadline(ctx);
	if (deadline)
		c.deadline = deadline - ctx->deadline_ms / 4;

	int r = 0;
	for (size_t i = 0; i < l->n_plugins && r == 0; i++) {
		_cleanup_free_ char *out = NULL;
		size_t len;
		json *res = NULL;
		r = run(&c, i, prev, &out, &len, err);
		if (r == 0)
			r = parse_result(&c, i, out, len, &res, err);
		if (r == 0) {
			json_free(prev);
			prev = res;
			r = add_step(&c, i, prev, err);
		}
	}
	if (r == 0 && cache_write(ctx, l, &att, prev, err) < 0) {
		error_set_network(*err, l->name);
		r = -1;
	}
	if (r < 0 && (flags & CNIRT_ADD_NO_ROLLBACK))
		return -1;
	if (r < 0) {
		/* Undo what the plugins that ran may have done; the caller gets
		 * the error of the ADD, with those of this clean-up attached. */
		struct call undo = c;
		undo.command = "DEL";
		undo.rollback = true;
		undo.deadline = deadline;
		del_chain(&undo, prev, *err, NULL);
		return -1;
	}
	if (result_json)
		*result_json = json_gen(prev, true, NULL);
	return 0;
}

/* A result in the list's version, or NULL when it is not a usable one. */
static json *usable_result(const cnirt_netlist *l, const json *raw)
{
	json *out = NULL;
	_cleanup_error_ cnirt_error *conv_err = NULL;
	if (raw == NULL || result_validate(raw, &conv_err) < 0 ||
	    result_convert(raw, l->effective_version, &out, &conv_err) < 0)
		return NULL;
	return out;
}

/* The cached result of an attachment, in the list's version, or NULL. */
static int cached_result(cnirt_ctx *ctx, const cnirt_netlist *l, const cnirt_attachment *a,
			 json **out, struct cache_seen *seen, cnirt_error **err)
{
	_cleanup_json_ json *raw = NULL;
	*out = NULL;
	if (cache_read_result(ctx, l->name, a->container_id, a->ifname, &raw, seen, err) < 0)
		return -1;
	/* an unusable cached result is treated as none */
	*out = usable_result(l, raw);
	return 0;
}

CNIRT_EXPORT int cnirt_check(cnirt_ctx *ctx, const cnirt_netlist *l, const cnirt_attachment *a,
			     cnirt_error **err)
{
	ERR_OUT_INIT(err);
	_cleanup_json_ json *prev = NULL;
	_cleanup_call_ struct call c = {0};
	if (need(ctx, "ctx", err) < 0 || call_init(&c, ctx, l, "CHECK", a, true, err) < 0)
		return -1;
	c.deadline = op_deadline(ctx);
	if (!version_ge(l->effective_version, "0.4.0")) {
		error_set(err, CNIRT_ERR_INCOMPATIBLE_VERSION,
			  "CHECK needs a network of version 0.4.0 or later; \"%s\" is %s", l->name,
			  l->effective_version);
		return error_set_network(*err, l->name);
	}
	if (l->disable_check)
		return 0;
	if (cached_result(ctx, l, a, &prev, NULL, err) < 0)
		return error_set_network(*err, l->name);
	if (prev == NULL) {
		error_set(err, CNIRT_ERR_NONE,
			  "no cached result for container \"%s\" interface \"%s\": CHECK needs "
			  "the result of the ADD",
			  a->container_id, a->ifname);
		error_kind(err, CNIRT_KIND_CACHE);
		return error_set_network(*err, l->name);
	}
	for (size_t i = 0; i < l->n_plugins; i++) {
		_cleanup_free_ char *out = NULL;
		size_t len;
		if (run(&c, i, prev, &out, &len, err) < 0)
			return -1;
	}
	return 0;
}

/* DEL within the operation deadline `deadline` (0: none): the caller's own,
 * or that of the GC it is part of. `given` (JSON text, or NULL) is the
 * prevResult when the cache has none (cnirt_del_with_result()). */
static int del_until(cnirt_ctx *ctx, const cnirt_netlist *l, const cnirt_attachment *a,
		     const char *given, long long deadline, cnirt_error **err)
{
	_cleanup_json_ json *prev = NULL;
	_cleanup_call_ struct call c = {0};
	if (need(ctx, "ctx", err) < 0 || call_init(&c, ctx, l, "DEL", a, false, err) < 0)
		return -1;
	c.deadline = deadline;
	struct cache_seen seen = {0};
	if (uses_prev_result_on_del(l) && cached_result(ctx, l, a, &prev, &seen, err) < 0)
		return error_set_network(*err, l->name);
	if (uses_prev_result_on_del(l) && prev == NULL && given) {
		_cleanup_json_ json *raw = NULL;
		_cleanup_error_ cnirt_error *parse_err = NULL;
		if (json_read_parse(given, strlen(given), "given prevResult", &raw, &parse_err) ==
		    0)
			prev = usable_result(l, raw);
	}
	if (del_chain(&c, prev, NULL, err) < 0)
		return -1;
	if (cache_remove(ctx, l->name, a->container_id, a->ifname, &seen, err) < 0)
		return error_set_network(*err, l->name);
	return 0;
}

CNIRT_EXPORT int cnirt_del(cnirt_ctx *ctx, const cnirt_netlist *l, const cnirt_attachment *a,
			   cnirt_error **err)
{
	ERR_OUT_INIT(err);
	return del_until(ctx, l, a, NULL, ctx ? op_deadline(ctx) : 0, err);
}

CNIRT_EXPORT int cnirt_del_with_result(cnirt_ctx *ctx, const cnirt_netlist *l,
				       const cnirt_attachment *a, const char *prev_result,
				       cnirt_error **err)
{
	ERR_OUT_INIT(err);
	return del_until(ctx, l, a, prev_result, ctx ? op_deadline(ctx) : 0, err);
}

static int del_cached_until(cnirt_ctx *ctx, const char *network, const char *container_id,
			    const char *ifname, const char *netns, long long deadline,
			    cnirt_error **err)
{
	cnirt_cache_entry *e = NULL;
	cnirt_netlist *l = NULL;
	if (need(ctx, "ctx", err) < 0 || need(network, "network", err) < 0 ||
	    need(container_id, "container id", err) < 0 || need(ifname, "ifname", err) < 0)
		return -1;
	if (cnirt_cache_get(ctx, network, container_id, ifname, &e, err) < 0)
		return -1;
	if (e == NULL)
		return 0;
	_cleanup_free_ char *origin =
	    xasprintf("cached configuration of %s/%s/%s", network, container_id, ifname);
	int r = cnirt_netlist_parse(e->config ? e->config : "", e->config_len, origin, &l, err);
	if (r == 0 && strcmp(l->name, network) != 0)
		r = error_set(err, CNIRT_ERR_INVALID_CONFIG, "%s: names network \"%s\"", origin,
			      l->name);
	if (r == 0) {
		_cleanup_free_ cnirt_kv *kv = xcalloc(e->n_args, sizeof(cnirt_kv));
		for (size_t i = 0; i < e->n_args; i++)
			kv[i] = (cnirt_kv){e->arg_keys[i], e->arg_values[i]};
		cnirt_attachment a = {
		    .container_id = container_id,
		    .netns = netns ? netns : e->netns,
		    .ifname = ifname,
		    .args = kv,
		    .n_args = e->n_args,
		    .capability_args = e->capability_args,
		};
		r = del_until(ctx, l, &a, NULL, deadline, err);
	}
	if (r < 0)
		error_set_network(*err, network);
	cnirt_netlist_free(l);
	cnirt_cache_entry_free(e);
	return r;
}

CNIRT_EXPORT int cnirt_del_cached(cnirt_ctx *ctx, const char *network, const char *container_id,
				  const char *ifname, const char *netns, cnirt_error **err)
{
	ERR_OUT_INIT(err);
	return del_cached_until(ctx, network, container_id, ifname, netns,
				ctx ? op_deadline(ctx) : 0, err);
}

CNIRT_EXPORT int cnirt_status(cnirt_ctx *ctx, const cnirt_netlist *l, cnirt_error **err)
{
	ERR_OUT_INIT(err);
	if (need(ctx, "ctx", err) < 0 || need(l, "network configuration", err) < 0)
		return -1;
	if (!version_ge(l->effective_version, "1.1.0"))
		return 0; /* STATUS is a 1.1.0 verb: older lists have nothing to ask */
	struct call c = {.ctx = ctx, .list = l, .command = "STATUS", .deadline = op_deadline(ctx)};
	for (size_t i = 0; i < l->n_plugins; i++) {
		_cleanup_free_ char *out = NULL;
		size_t len;
		if (run(&c, i, NULL, &out, &len, err) < 0)
			return -1;
	}
	return 0;
}

static int attachment_id_cmp(const void *a, const void *b)
{
	const cnirt_attachment_id *x = a, *y = b;
	int c = strcmp(x->container_id, y->container_id);
	return c ? c : strcmp(x->ifname, y->ifname);
}

/* Is (id, ifname) in `sorted` (a copy of the valid list, sorted)? */
static bool attachment_valid(const cnirt_attachment_id *sorted, size_t n, const char *id,
			     const char *ifname)
{
	cnirt_attachment_id key = {id, ifname};
	return n > 0 && bsearch(&key, sorted, n, sizeof(*sorted), attachment_id_cmp) != NULL;
}

/* The stdin of a GC: the derived configuration plus cni.dev/valid-attachments. */
static char *gc_config(const cnirt_netlist *l, size_t i, const cnirt_attachment_id *valid, size_t n,
		       size_t *len)
{
	_cleanup_free_ char *base = derive_exec_config(l, i, NULL, NULL, NULL, NULL);
	_cleanup_json_ json *conf = NULL;
	_cleanup_error_ cnirt_error *e = NULL;
	if (json_read_parse(base, strlen(base), "derived configuration", &conf, &e) < 0)
		abort(); /* we generated it */
	json *arr = json_new(JSON_ARRAY);
	for (size_t k = 0; k < n; k++) {
		json *o = json_new(JSON_OBJECT);
		json_obj_set(o, "containerID", json_new_string(valid[k].container_id));
		json_obj_set(o, "ifname", json_new_string(valid[k].ifname));
		json_arr_append(arr, o);
	}
	/* Both names, as the reference library sends them: plugins written
	 * against an earlier draft of spec 1.1.0 read cni.dev/attachments. */
	json_obj_set(conf, "cni.dev/valid-attachments", json_dup(arr));
	json_obj_set(conf, "cni.dev/attachments", arr);
	return json_gen(conf, false, len);
}

/* Keep the first error of a series in *err. */
static void keep_first(cnirt_error **err, cnirt_error **e, int *r)
{
	if (*r == 0) {
		*err = TAKE_PTR(*e);
		*r = -1;
	}
}

static int gc_entries(cnirt_ctx *ctx, const cnirt_netlist *l, const cnirt_attachment_id *valid,
		      size_t n, cnirt_cache_entry *const *given, size_t n_given, cnirt_error **err);

CNIRT_EXPORT int cnirt_gc(cnirt_ctx *ctx, const cnirt_netlist *l, const cnirt_attachment_id *valid,
			  size_t n, cnirt_error **err)
{
	ERR_OUT_INIT(err);
	return gc_entries(ctx, l, valid, n, NULL, 0, err);
}

CNIRT_EXPORT int cnirt_gc_cached(cnirt_ctx *ctx, const cnirt_netlist *l,
				 const cnirt_attachment_id *valid, size_t n,
				 cnirt_cache_entry *const *cache, size_t n_cache, cnirt_error **err)
{
	ERR_OUT_INIT(err);
	if (cache == NULL && n_cache > 0)
		return error_set(err, CNIRT_ERR_INVALID_CONFIG, "cnirt_gc_cached: no cache given");
	return gc_entries(ctx, l, valid, n, cache ? cache : (cnirt_cache_entry *const[]){NULL},
			  n_cache, err);
}

/* cnirt_gc(), from the cache `given` (n_given entries) when not NULL, else
 * from a reading of the cache. */
static int gc_entries(cnirt_ctx *ctx, const cnirt_netlist *l, const cnirt_attachment_id *valid,
		      size_t n, cnirt_cache_entry *const *given, size_t n_given, cnirt_error **err)
{
	cnirt_cache_entry **entries = NULL;
	size_t n_entries = 0;
	int r = 0;
	long long deadline = 0;
	if (need(ctx, "ctx", err) < 0 || need(l, "network configuration", err) < 0 ||
	    (n > 0 && need(valid, "valid attachments", err) < 0))
		return -1;
	deadline = op_deadline(ctx);
	for (size_t i = 0; i < n; i++)
		if (cnirt_check_container_id(valid[i].container_id, err) < 0 ||
		    cnirt_check_ifname(valid[i].ifname, err) < 0)
			return error_prefix(err, "cni.dev/valid-attachments[%zu]", i);
	/* A network shared with other runtimes says so with disableGC: then
	 * nothing of it is collected, not even what the cache holds. */
	if (l->disable_gc)
		return 0;

	/* First tear down the cached attachments of this network that are not
	 * valid any more, from what the cache holds. */
	if (given == NULL && cnirt_cache_list(ctx, &entries, &n_entries, err) < 0)
		return -1;
	_cleanup_free_ cnirt_attachment_id *sorted = xreallocarray(NULL, n + 1, sizeof(*sorted));
	if (n > 0)
		memcpy(sorted, valid, n * sizeof(*sorted));
	if (n > 1)
		qsort(sorted, n, sizeof(*sorted), attachment_id_cmp);
	for (size_t i = 0; i < (given ? n_given : n_entries); i++) {
		const cnirt_cache_entry *e = given ? given[i] : entries[i];
		_cleanup_error_ cnirt_error *del_err = NULL;
		if (strcmp(e->network, l->name) != 0 ||
		    attachment_valid(sorted, n, e->container_id, e->ifname))
			continue;
		/* Within the GC's deadline: one budget for the whole operation. */
		if (del_cached_until(ctx, e->network, e->container_id, e->ifname, NULL, deadline,
				     &del_err) < 0)
			keep_first(err, &del_err, &r);
	}
	cnirt_cache_entries_free(entries, n_entries);

	/* Then the GC verb, for lists that speak 1.1.0: every plugin, going on
	 * past failures and returning the first. */
	if (!version_ge(l->effective_version, "1.1.0"))
		return r;
	struct call c = {.ctx = ctx, .list = l, .command = "GC", .deadline = deadline};
	for (size_t i = 0; i < l->n_plugins; i++) {
		size_t len, out_len;
		_cleanup_free_ char *conf = gc_config(l, i, valid, n, &len);
		_cleanup_free_ char *out = NULL;
		_cleanup_error_ cnirt_error *e = NULL;
		if (run_stdin(&c, i, conf, len, &out, &out_len, &e) < 0)
			keep_first(err, &e, &r);
	}
	return r;
}

/* VERSION of plugin `type`; *versions gets the supportedVersions array. */
static int probe_versions(cnirt_ctx *ctx, const char *network, const char *type,
			  const char *cni_version, long long deadline, json **version_result,
			  cnirt_error **err)
{
	_cleanup_free_ char *path = NULL;
	_cleanup_json_ json *conf = json_new(JSON_OBJECT);
	json_obj_set(conf, "cniVersion", json_new_string(cni_version));
	size_t in_len;
	_cleanup_free_ char *in = json_gen(conf, false, &in_len);
	_cleanup_free_ char *out = NULL;
	size_t len;
	struct exec_request req = {
	    .command = "VERSION", .stdin_data = in, .stdin_len = in_len, .plugin = type};
	long long start = clock_monotonic_usec();
	req.deadline = deadline;
	int r = exec_find_plugin(ctx, type, &path, err);
	if (r == 0)
		r = exec_plugin(ctx, path, &req, &out, &len, err);
	observe(ctx, network, type, "VERSION", NULL, clock_monotonic_usec() - start,
		r < 0 ? *err : NULL, false);
	if (r < 0 && !(*err)->from_plugin)
		return error_set_plugin(*err, type);
	if (r < 0) {
		/* Plugins of spec 0.1.0 did not know VERSION. */
		if ((*err)->from_plugin &&
		    strcmp(cnirt_error_msg(*err), "unknown CNI_COMMAND: VERSION") == 0) {
			cnirt_error_free(TAKE_PTR(*err));
			const char *legacy = "{\"cniVersion\":\"0.1.0\",\"supportedVersions\":"
					     "[\"0.1.0\"]}";
			return json_read_parse(legacy, strlen(legacy), "version", version_result,
					       err);
		}
		return error_set_plugin(*err, type);
	}
	_cleanup_json_ json *v = NULL;
	if (json_read_parse(out, len, "VERSION result", &v, err) < 0)
		return error_set_plugin(*err, type);
	const json *sv = json_obj_get(v, "supportedVersions");
	if (sv == NULL || sv->type != JSON_ARRAY) {
		error_set(err, CNIRT_ERR_DECODE,
			  "VERSION result: field \"supportedVersions\": must be an array");
		return error_set_plugin(*err, type);
	}
	for (size_t i = 0; i < sv->u.array.n; i++)
		if (json_str(sv->u.array.v[i]) == NULL) {
			error_set(err, CNIRT_ERR_DECODE,
				  "VERSION result: field \"supportedVersions[%zu]\": must be a "
				  "string",
				  i);
			return error_set_plugin(*err, type);
		}
	*version_result = TAKE_PTR(v);
	return 0;
}

CNIRT_EXPORT int cnirt_plugin_version(cnirt_ctx *ctx, const char *type, const char *cni_version,
				      char **version_json, cnirt_error **err)
{
	ERR_OUT_INIT(err);
	_cleanup_json_ json *v = NULL;
	if (need(ctx, "ctx", err) < 0 || need(version_json, "version_json", err) < 0)
		return -1;
	unsigned major, minor, patch;
	if (cni_version && version_parse(cni_version, &major, &minor, &patch) < 0) {
		_cleanup_free_ char *shown = text_shown(cni_version, strlen(cni_version), 80, true);
		error_set(err, CNIRT_ERR_INVALID_CONFIG, "cniVersion \"%s\": not a version (X.Y.Z)",
			  shown);
		error_set_plugin(*err, type);
		return -1;
	}
	if (probe_versions(ctx, NULL, type, cni_version ? cni_version : "1.1.0", op_deadline(ctx),
			   &v, err) < 0)
		return -1;
	*version_json = json_gen(v, true, NULL);
	return 0;
}

CNIRT_EXPORT int cnirt_validate(cnirt_ctx *ctx, const cnirt_netlist *l, cnirt_error **err)
{
	ERR_OUT_INIT(err);
	if (need(ctx, "ctx", err) < 0 || need(l, "network configuration", err) < 0)
		return -1;
	long long deadline = op_deadline(ctx);
	for (size_t i = 0; i < l->n_plugins; i++) {
		const char *type = l->plugins[i].type;
		_cleanup_json_ json *v = NULL;
		if (probe_versions(ctx, l->name, type, l->effective_version, deadline, &v, err) < 0)
			return error_set_network(*err, l->name);
		const json *sv = json_obj_get(v, "supportedVersions");
		bool ok = false;
		struct buf list = {0};
		for (size_t k = 0; k < sv->u.array.n; k++) {
			const char *s = json_str(sv->u.array.v[k]);
			ok = ok || strcmp(s, l->effective_version) == 0;
			buf_printf(&list, "%s%s", k ? ", " : "", s);
		}
		if (!ok) {
			error_set(err, CNIRT_ERR_INCOMPATIBLE_VERSION,
				  "does not support version %s (supports: %s)",
				  l->effective_version, list.data ? list.data : "none");
			tag(*err, l, type);
		}
		buf_free(&list);
		if (!ok)
			return -1;
	}
	return 0;
}
