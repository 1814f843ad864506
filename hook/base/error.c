/* SPDX-License-Identifier: Apache-2.0 */
/* The hook's error messages (error.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <cnirt.h>

#include "base/error.h"

char *error_shown_n(const char *s, size_t len)
{
	return text_shown(s, len, 80, true);
}

char *error_shown_whole(const char *s)
{
	return text_shown(s, strlen(s), 0, true);
}

char *error_shown(const char *s)
{
	return error_shown_n(s, strlen(s));
}

int error_set(char **err, const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	va_end(ap);
	*err = s;
	return -1;
}

char *error_cni_text(const char *network, const cnirt_error *e)
{
	const char *net = cnirt_error_network(e) ? cnirt_error_network(e) : network;
	const char *plugin = cnirt_error_plugin(e);
	const char *details = cnirt_error_details(e);
	bool has_code = cnirt_error_code(e) || cnirt_error_from_plugin(e);
	_cleanup_free_ char *net_shown = net ? error_shown(net) : NULL;
	_cleanup_free_ char *plugin_shown = plugin ? error_shown(plugin) : NULL;
	_cleanup_free_ char *n = net ? xasprintf("network \"%s\": ", net_shown) : xstrdup("");
	_cleanup_free_ char *p = plugin ? xasprintf("plugin \"%s\": ", plugin_shown) : xstrdup("");
	_cleanup_free_ char *c =
	    has_code ? xasprintf("CNI error %d: ", cnirt_error_code(e)) : xstrdup("");
	_cleanup_free_ char *d = details && *details ? xasprintf(" (%s)", details) : xstrdup("");
	return xasprintf("%s%s%s%s%s", n, p, c, cnirt_error_msg(e), d);
}
