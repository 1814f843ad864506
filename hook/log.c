/* SPDX-License-Identifier: Apache-2.0 */
/* The hook's log: stderr, and syslog with ident "cnihook" when asked. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include <cnirt.h>

#include "log.h"

static enum log_level max_level = LOG_LEVEL_WARN;
static int use_syslog;

void log_init(enum log_level level, int to_syslog)
{
	max_level = level;
	use_syslog = to_syslog;
	if (use_syslog)
		openlog("cnihook", LOG_PID, LOG_DAEMON);
}

int log_parse_level(const char *s, enum log_level *out)
{
	static const char *const names[] = {"error", "warn", "info", "debug"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(s, names[i]) == 0) {
			*out = (enum log_level)i;
			return 0;
		}
	}
	return -1;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	static const int prio[] = {LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG};
	if (level > max_level)
		return;
	va_list ap;
	va_start(ap, fmt);
	char *msg;
	if (vasprintf(&msg, fmt, ap) < 0)
		abort();
	va_end(ap);
	/* One event, one line, whatever a plugin put in its error message. */
	_cleanup_free_ char *line = one_line(msg);
	free(msg);
	fprintf(stderr, "cnihook: %s\n", line);
	if (use_syslog)
		syslog(prio[level], "%s", line);
}

char *log_format_error(const char *network, const cnirt_error *e)
{
	const char *net = cnirt_error_network(e) ? cnirt_error_network(e) : network;
	const char *plugin = cnirt_error_plugin(e);
	const char *details = cnirt_error_details(e);
	bool has_code = cnirt_error_code(e) || cnirt_error_from_plugin(e);
	_cleanup_free_ char *net_shown = net ? shown(net) : NULL;
	_cleanup_free_ char *plugin_shown = plugin ? shown(plugin) : NULL;
	_cleanup_free_ char *n = net ? xasprintf("network \"%s\": ", net_shown) : xstrdup("");
	_cleanup_free_ char *p = plugin ? xasprintf("plugin \"%s\": ", plugin_shown) : xstrdup("");
	_cleanup_free_ char *c =
	    has_code ? xasprintf("CNI error %d: ", cnirt_error_code(e)) : xstrdup("");
	_cleanup_free_ char *d = details && *details ? xasprintf(" (%s)", details) : xstrdup("");
	return xasprintf("%s%s%s%s%s", n, p, c, cnirt_error_msg(e), d);
}
