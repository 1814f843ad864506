/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CNIHOOK_LOG_H
#define CNIHOOK_LOG_H

#include "util.h"

enum log_level { LOG_LEVEL_ERROR, LOG_LEVEL_WARN, LOG_LEVEL_INFO, LOG_LEVEL_DEBUG };

/* to_syslog: also send every line to syslog (ident "cnihook"). */
void log_init(enum log_level level, int to_syslog);
int log_parse_level(const char *s, enum log_level *out);
void log_msg(enum log_level level, const char *fmt, ...) PRINTF_LIKE(2, 3);

struct cnirt_error;
/* `network "N": plugin "P": CNI error C: message (details)`, leaving out
 * what the error does not name; network is used when the error names none. */
char *log_format_error(const char *network, const struct cnirt_error *e);

#define log_error(...) log_msg(LOG_LEVEL_ERROR, __VA_ARGS__)
#define log_warn(...)  log_msg(LOG_LEVEL_WARN, __VA_ARGS__)
#define log_info(...)  log_msg(LOG_LEVEL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LEVEL_DEBUG, __VA_ARGS__)

#endif
