/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CNIHOOK_BASE_LOG_H
#define CNIHOOK_BASE_LOG_H

#include <stdbool.h>

#include "base/util.h"

enum log_level { LOG_LEVEL_ERROR, LOG_LEVEL_WARN, LOG_LEVEL_INFO, LOG_LEVEL_DEBUG };

/* The fallback log file in the state directory, its one rotated
 * predecessor, and the size at which it is rotated. */
#define LOG_FILE_NAME	   "cnihook.log"
#define LOG_FILE_ROTATED   LOG_FILE_NAME ".1"
#define LOG_FILE_MAX_BYTES (1u << 20)

/*
 * Every line goes to standard error ("cnihook: MESSAGE"). With to_syslog,
 * also to the first of these that takes it: the syslog socket /dev/log
 * (ident "cnihook", facility daemon), the journal's native socket
 * /run/systemd/journal/socket, else the file state_dir/LOG_FILE_NAME
 * (created 0600, with state_dir 0700 if need be; rotated to
 * LOG_FILE_ROTATED past LOG_FILE_MAX_BYTES). state_dir NULL: no file. Nothing
 * is opened before the first line is logged.
 */
void log_init(enum log_level level, bool to_syslog, const char *state_dir);
int log_parse_level(const char *s, enum log_level *out);
void log_msg(enum log_level level, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* Is `name`, an entry of the state directory, one of the log's files? */
bool log_is_own_file(const char *name);

#define log_error(...) log_msg(LOG_LEVEL_ERROR, __VA_ARGS__)
#define log_warn(...)  log_msg(LOG_LEVEL_WARN, __VA_ARGS__)
#define log_info(...)  log_msg(LOG_LEVEL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LEVEL_DEBUG, __VA_ARGS__)

#endif
