/* SPDX-License-Identifier: Apache-2.0 */
/* The runtime context: where plugins and the cache live, and limits. */
#include "config.h"

#include <string.h>

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

CNIRT_EXPORT void cnirt_ctx_set_observer(cnirt_ctx *ctx, cnirt_observer_fn fn, void *data)
{
	ctx->observer = fn;
	ctx->observer_data = data;
}
