/* SPDX-License-Identifier: Apache-2.0 */
/* The error object every failing function of libcnirt hands back. */
#include "config.h"

#include <string.h>

#include "internal.h"

static cnirt_error *error_new(int code, char *msg)
{
	cnirt_error *e = xzalloc(sizeof(*e));
	e->code = code;
	e->msg = msg;
	return e;
}

int error_set(cnirt_error **err, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	cnirt_error_free(*err);
	*err = error_new(code, msg);
	return -1;
}

int error_set_errno(cnirt_error **err, int code, int errnum, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	_cleanup_free_ char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	cnirt_error_free(*err);
	*err = error_new(code, xasprintf("%s: %s", msg, strerror(errnum)));
	(*err)->sys_errno = errnum;
	return -1;
}

int error_prefix(cnirt_error **err, const char *fmt, ...)
{
	if (*err == NULL)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	_cleanup_free_ char *ctx = xvasprintf(fmt, ap);
	va_end(ap);
	char *msg = xasprintf("%s: %s", ctx, (*err)->msg);
	free((*err)->msg);
	(*err)->msg = msg;
	return -1;
}

int error_set_network(cnirt_error *e, const char *network)
{
	if (e && !e->network && network)
		e->network = xstrdup(network);
	return -1;
}

int error_set_plugin(cnirt_error *e, const char *plugin)
{
	if (e && !e->plugin && plugin)
		e->plugin = xstrdup(plugin);
	return -1;
}

CNIRT_EXPORT int cnirt_error_code(const cnirt_error *e)
{
	return e ? e->code : 0;
}

CNIRT_EXPORT const char *cnirt_error_msg(const cnirt_error *e)
{
	return e && e->msg ? e->msg : "unknown error";
}

CNIRT_EXPORT const char *cnirt_error_details(const cnirt_error *e)
{
	return e ? e->details : NULL;
}

CNIRT_EXPORT const char *cnirt_error_network(const cnirt_error *e)
{
	return e ? e->network : NULL;
}

CNIRT_EXPORT const char *cnirt_error_plugin(const cnirt_error *e)
{
	return e ? e->plugin : NULL;
}

CNIRT_EXPORT bool cnirt_error_from_plugin(const cnirt_error *e)
{
	return e && e->from_plugin;
}

CNIRT_EXPORT int cnirt_error_errno(const cnirt_error *e)
{
	return e ? e->sys_errno : 0;
}

int error_kind(cnirt_error **err, enum cnirt_error_kind kind)
{
	if (*err)
		(*err)->kind = (int)kind;
	return -1;
}

void error_add_rollback(cnirt_error *e, cnirt_error *rollback)
{
	if (e == NULL || rollback == NULL) {
		cnirt_error_free(rollback);
		return;
	}
	e->rollback = xreallocarray(e->rollback, e->n_rollback + 1, sizeof(*e->rollback));
	e->rollback[e->n_rollback++] = rollback;
}

CNIRT_EXPORT enum cnirt_error_kind cnirt_error_kind(const cnirt_error *e)
{
	if (e == NULL)
		return CNIRT_KIND_OTHER;
	if (e->kind)
		return (enum cnirt_error_kind)e->kind;
	/* Not recorded where it was made: what its code and errno say. */
	if (e->from_plugin)
		return CNIRT_KIND_PLUGIN;
	switch (e->code) {
	case CNIRT_ERR_INCOMPATIBLE_VERSION:
	case CNIRT_ERR_UNSUPPORTED_FIELD:
	case CNIRT_ERR_INVALID_ENV:
	case CNIRT_ERR_DECODE:
	case CNIRT_ERR_INVALID_CONFIG:
		return CNIRT_KIND_CONFIG;
	case CNIRT_ERR_IO:
		return CNIRT_KIND_IO;
	default:
		return e->sys_errno ? CNIRT_KIND_IO : CNIRT_KIND_OTHER;
	}
}

CNIRT_EXPORT const char *cnirt_error_kind_name(enum cnirt_error_kind kind)
{
	static const char *const names[] = {
	    [CNIRT_KIND_OTHER] = "other",
	    [CNIRT_KIND_INVALID_ARGUMENT] = "invalid argument",
	    [CNIRT_KIND_CONFIG] = "configuration",
	    [CNIRT_KIND_NOT_FOUND] = "not found",
	    [CNIRT_KIND_NOT_EXECUTABLE] = "not executable",
	    [CNIRT_KIND_SPAWN] = "spawn",
	    [CNIRT_KIND_TIMEOUT] = "timeout",
	    [CNIRT_KIND_CANCELLED] = "cancelled",
	    [CNIRT_KIND_SIGNAL] = "signal",
	    [CNIRT_KIND_OUTPUT_LIMIT] = "output limit",
	    [CNIRT_KIND_LOST_STATUS] = "lost status",
	    [CNIRT_KIND_INVALID_RESULT] = "invalid result",
	    [CNIRT_KIND_PLUGIN] = "plugin error",
	    [CNIRT_KIND_IO] = "I/O",
	    [CNIRT_KIND_CACHE] = "cache",
	};
	if ((unsigned)kind >= ARRAY_SIZE(names) || names[kind] == NULL)
		return "other";
	return names[kind];
}

CNIRT_EXPORT int cnirt_error_signal(const cnirt_error *e)
{
	return e ? e->signal : 0;
}

CNIRT_EXPORT const char *cnirt_error_stderr(const cnirt_error *e, size_t *len)
{
	if (len)
		*len = e ? e->stderr_len : 0;
	return e ? e->stderr_data : NULL;
}

CNIRT_EXPORT size_t cnirt_error_rollback_count(const cnirt_error *e)
{
	return e ? e->n_rollback : 0;
}

CNIRT_EXPORT const cnirt_error *cnirt_error_rollback(const cnirt_error *e, size_t i)
{
	return e && i < e->n_rollback ? e->rollback[i] : NULL;
}

CNIRT_EXPORT void cnirt_error_free(cnirt_error *e)
{
	if (e == NULL)
		return;
	for (size_t i = 0; i < e->n_rollback; i++)
		cnirt_error_free(e->rollback[i]);
	free(e->rollback);
	free(e->stderr_data);
	free(e->msg);
	free(e->details);
	free(e->network);
	free(e->plugin);
	free(e);
}
