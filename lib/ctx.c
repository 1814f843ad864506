/* SPDX-License-Identifier: Apache-2.0 */
/* The runtime context: where plugins and the cache live, and limits. */
#include "config.h"

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>

#include "internal.h"

#define DEFAULT_CACHE_DIR    "/var/lib/cni"
#define DEFAULT_TIMEOUT_MS   60000
#define DEFAULT_OUTPUT_LIMIT (16u << 20)

CNIRT_EXPORT cnirt_ctx *cnirt_ctx_new(void)
{
	cnirt_ctx *ctx = xzalloc(sizeof(*ctx));
	ctx->cache_dir = xstrdup(DEFAULT_CACHE_DIR);
	ctx->cni_path = xstrdup("");
	ctx->timeout_ms = DEFAULT_TIMEOUT_MS;
	ctx->output_limit = DEFAULT_OUTPUT_LIMIT;
	/* One descriptor, where a pipe took two and its buffers: a counter
	 * that poll() sees readable once it is not zero. */
	ctx->cancel_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	/* -1: cancel then acts between plugins */
	return ctx;
}

static void clear_bin_dirs(cnirt_ctx *ctx)
{
	for (size_t i = 0; i < ctx->n_bin_dirs; i++)
		free(ctx->bin_dirs[i]);
	free(ctx->bin_dirs);
	ctx->bin_dirs = NULL;
	ctx->n_bin_dirs = 0;
	free(ctx->cni_path);
	ctx->cni_path = NULL;
}

CNIRT_EXPORT void cnirt_ctx_free(cnirt_ctx *ctx)
{
	if (ctx == NULL)
		return;
	clear_bin_dirs(ctx);
	free(ctx->cache_dir);
	free(ctx->path_env);
	for (size_t i = 0; i < ctx->n_env; i++)
		free(ctx->env[i]);
	free(ctx->env);
	for (size_t i = 0; i < ctx->n_plugin_args; i++) {
		free(ctx->plugin_args[i].plugin);
		free(ctx->plugin_args[i].args);
	}
	free(ctx->plugin_args);
	if (ctx->cancel_fd >= 0)
		close(ctx->cancel_fd);
	free(ctx);
}

CNIRT_EXPORT void cnirt_ctx_set_bin_dirs(cnirt_ctx *ctx, const char *const *dirs, size_t n)
{
	struct buf joined = {0};
	clear_bin_dirs(ctx);
	ctx->bin_dirs = xcalloc(n, sizeof(char *));
	for (size_t i = 0; i < n; i++) {
		if (dirs[i] == NULL || dirs[i][0] == '\0')
			continue;
		ctx->bin_dirs[ctx->n_bin_dirs++] = xstrdup(dirs[i]);
		if (joined.len)
			buf_appends(&joined, ":");
		buf_appends(&joined, dirs[i]);
	}
	ctx->cni_path = buf_steal(&joined, NULL);
}

CNIRT_EXPORT void cnirt_ctx_set_bin_path(cnirt_ctx *ctx, const char *colon_list)
{
	_cleanup_free_ char *copy = xstrdup(colon_list ? colon_list : "");
	_cleanup_free_ const char **dirs = xcalloc(strlen(copy) + 1, sizeof(char *));
	size_t n = 0;
	char *save = NULL;
	for (char *tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save))
		dirs[n++] = tok;
	cnirt_ctx_set_bin_dirs(ctx, dirs, n);
}

CNIRT_EXPORT void cnirt_ctx_set_cache_dir(cnirt_ctx *ctx, const char *dir)
{
	free(ctx->cache_dir);
	ctx->cache_dir = xstrdup(dir && *dir ? dir : DEFAULT_CACHE_DIR);
}

CNIRT_EXPORT const char *cnirt_ctx_cache_dir(const cnirt_ctx *ctx)
{
	return ctx->cache_dir;
}

CNIRT_EXPORT void cnirt_ctx_set_timeout_ms(cnirt_ctx *ctx, unsigned ms)
{
	ctx->timeout_ms = ms;
}

CNIRT_EXPORT void cnirt_ctx_set_output_limit(cnirt_ctx *ctx, size_t bytes)
{
	ctx->output_limit = bytes;
}

CNIRT_EXPORT void cnirt_ctx_set_path_env(cnirt_ctx *ctx, const char *path)
{
	free(ctx->path_env);
	ctx->path_env = xstrdup(path);
}

CNIRT_EXPORT void cnirt_ctx_set_preexec(cnirt_ctx *ctx, cnirt_preexec_fn fn, void *data)
{
	ctx->preexec = fn;
	ctx->preexec_data = data;
}

CNIRT_EXPORT void cnirt_ctx_set_plugin_preexec(cnirt_ctx *ctx, cnirt_plugin_preexec_fn fn,
					       void *data)
{
	ctx->plugin_preexec = fn;
	ctx->preexec_data = data;
}

CNIRT_EXPORT void cnirt_ctx_set_event_observer(cnirt_ctx *ctx, cnirt_event_fn fn, void *data)
{
	if (ctx == NULL)
		return;
	ctx->event_observer = fn;
	ctx->event_data = data;
}

CNIRT_EXPORT void cnirt_ctx_set_add_step(cnirt_ctx *ctx, cnirt_add_step_fn fn, void *data)
{
	if (ctx == NULL)
		return;
	ctx->add_step = fn;
	ctx->add_step_data = data;
}

/* ----------------------------------------- for engines: process control */

bool ctx_cancelled(const cnirt_ctx *ctx)
{
	return __atomic_load_n(&ctx->cancelled, __ATOMIC_ACQUIRE) != 0;
}

CNIRT_EXPORT void cnirt_ctx_set_deadline_ms(cnirt_ctx *ctx, unsigned ms)
{
	if (ctx)
		ctx->deadline_ms = ms;
}

CNIRT_EXPORT void cnirt_ctx_cancel(cnirt_ctx *ctx)
{
	int saved = errno;

	if (ctx == NULL)
		return;
	__atomic_store_n(&ctx->cancelled, 1, __ATOMIC_RELEASE);
	/* Wake whoever polls; a counter that would overflow is readable
	 * already. */
	uint64_t one = 1;
	if (ctx->cancel_fd >= 0 && write(ctx->cancel_fd, &one, sizeof(one)) < 0) {
		/* EAGAIN: it is readable. */
	}
	errno = saved;
}

CNIRT_EXPORT void cnirt_ctx_reset_cancel(cnirt_ctx *ctx)
{
	uint64_t count;

	if (ctx == NULL)
		return;
	__atomic_store_n(&ctx->cancelled, 0, __ATOMIC_RELEASE);
	/* One read takes the counter back to zero. */
	if (ctx->cancel_fd >= 0 && read(ctx->cancel_fd, &count, sizeof(count)) < 0) {
		/* EAGAIN: it was zero. */
	}
}

CNIRT_EXPORT int cnirt_ctx_set_env(cnirt_ctx *ctx, const char *name, const char *value,
				   cnirt_error **err)
{
	ERR_OUT_INIT(err);
	if (ctx == NULL || name == NULL) {
		error_set(err, CNIRT_ERR_NONE, "cnirt_ctx_set_env: %s is NULL",
			  ctx == NULL ? "ctx" : "name");
		return error_kind(err, CNIRT_KIND_INVALID_ARGUMENT);
	}
	size_t len = strlen(name);
	if (len == 0 || strchr(name, '=') || strncmp(name, "CNI_", 4) == 0 ||
	    strcmp(name, "PATH") == 0) {
		error_set(err, CNIRT_ERR_INVALID_CONFIG,
			  "plugin environment: \"%s\": not a name the engine may set (empty, "
			  "with '=', CNI_* or PATH)",
			  name);
		return error_kind(err, CNIRT_KIND_CONFIG);
	}
	for (size_t i = 0; i < ctx->n_env; i++) {
		if (strncmp(ctx->env[i], name, len) != 0 || ctx->env[i][len] != '=')
			continue;
		free(ctx->env[i]);
		if (value) {
			ctx->env[i] = xasprintf("%s=%s", name, value);
		} else {
			memmove(&ctx->env[i], &ctx->env[i + 1],
				(ctx->n_env - i - 1) * sizeof(char *));
			ctx->n_env--;
		}
		return 0;
	}
	if (value) {
		ctx->env = xreallocarray(ctx->env, ctx->n_env + 1, sizeof(char *));
		ctx->env[ctx->n_env++] = xasprintf("%s=%s", name, value);
	}
	return 0;
}

CNIRT_EXPORT int cnirt_ctx_set_plugin_args(cnirt_ctx *ctx, const char *plugin, const cnirt_kv *args,
					   size_t n, cnirt_error **err)
{
	if (ctx == NULL || plugin == NULL || (args == NULL && n)) {
		error_set(err, CNIRT_ERR_NONE, "%s: NULL given",
			  ctx == NULL	   ? "ctx"
			  : plugin == NULL ? "plugin"
					   : "args");
		return error_kind(err, CNIRT_KIND_INVALID_ARGUMENT);
	}
	for (size_t i = 0; i < n; i++) {
		const char *k = args[i].key, *v = args[i].value;
		if (k == NULL || *k == '\0' || strpbrk(k, "=;") || v == NULL || strchr(v, ';')) {
			error_set(err, CNIRT_ERR_INVALID_CONFIG,
				  "CNI_ARGS of plugin \"%s\", pair %zu (\"%s\"): keys must be "
				  "non-empty without '=' or ';', values without ';'",
				  plugin, i + 1, k ? k : "");
			return error_kind(err, CNIRT_KIND_CONFIG);
		}
	}
	size_t i = 0;
	while (i < ctx->n_plugin_args && strcmp(ctx->plugin_args[i].plugin, plugin) != 0)
		i++;
	if (i == ctx->n_plugin_args) {
		if (n == 0)
			return 0;
		ctx->plugin_args = xreallocarray(ctx->plugin_args, ctx->n_plugin_args + 1,
						 sizeof(*ctx->plugin_args));
		ctx->plugin_args[ctx->n_plugin_args++] =
		    (struct ctx_plugin_args){.plugin = xstrdup(plugin)};
	}
	free(ctx->plugin_args[i].args);
	ctx->plugin_args[i].args = NULL;
	if (n) {
		ctx->plugin_args[i].args = cache_args_join(args, n);
		return 0;
	}
	free(ctx->plugin_args[i].plugin);
	memmove(&ctx->plugin_args[i], &ctx->plugin_args[i + 1],
		(ctx->n_plugin_args - i - 1) * sizeof(*ctx->plugin_args));
	ctx->n_plugin_args--;
	return 0;
}

const char *ctx_plugin_args(const cnirt_ctx *ctx, const char *plugin)
{
	for (size_t i = 0; i < ctx->n_plugin_args; i++)
		if (strcmp(ctx->plugin_args[i].plugin, plugin) == 0)
			return ctx->plugin_args[i].args;
	return NULL;
}

CNIRT_EXPORT void cnirt_ctx_set_spawn_direct(cnirt_ctx *ctx, bool direct)
{
	if (ctx == NULL)
		return;
	ctx->spawn_direct = direct;
}

CNIRT_EXPORT void cnirt_ctx_set_exec(cnirt_ctx *ctx, cnirt_exec_fn fn, void *data)
{
	if (ctx == NULL)
		return;
	ctx->exec_fn = fn;
	ctx->exec_data = data;
}
