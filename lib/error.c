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

void error_set_network(cnirt_error *e, const char *network)
{
	if (e && !e->network && network)
		e->network = xstrdup(network);
}

void error_set_plugin(cnirt_error *e, const char *plugin)
{
	if (e && !e->plugin && plugin)
		e->plugin = xstrdup(plugin);
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

CNIRT_EXPORT void cnirt_error_free(cnirt_error *e)
{
	if (e == NULL)
		return;
	free(e->msg);
	free(e->details);
	free(e->network);
	free(e->plugin);
	free(e);
}

char *error_text_shown(const char *s, size_t len, size_t max, bool quotes)
{
	struct buf b = {0};
	for (size_t n = 0; n < len; n++) {
		unsigned char c = (unsigned char)s[n];
		if (n == max) {
			buf_appends(&b, "...");
			break;
		}
		if (c < 0x20 || c >= 0x7f || (quotes && (c == '"' || c == '\\')))
			buf_printf(&b, "\\x%02x", c);
		else
			buf_append(&b, &c, 1);
	}
	return buf_steal(&b, NULL);
}
