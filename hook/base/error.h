/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The hook's error convention (docs/architecture.md, "Errors and logging
 * in the hook"): a failing function returns -1 and sets *err to a new
 * message (free it) that names the field and the problem; out parameters
 * are written only on success. The files below cmd/ never log: their
 * callers report the message once. And how a foreign value is shown in a
 * message.
 */
#ifndef CNIHOOK_BASE_ERROR_H
#define CNIHOOK_BASE_ERROR_H

#include <stddef.h>

#include "common.h"

/* A foreign value as it may appear in a message (one printable ASCII line,
 * text_shown()): bytes outside printable ASCII, '"' and '\\' as \xNN, cut
 * after 80 bytes with "...". */
char *error_shown(const char *s);
char *error_shown_n(const char *s, size_t len);
/* The same escaping, never cut: for paths the reader must be able to use. */
char *error_shown_whole(const char *s);
/* s with only its control bytes as \xNN (text_one_line()). */
#define error_one_line(s) text_one_line(s)

/* Set *err to a new message and return -1. */
int error_set(char **err, const char *fmt, ...) PRINTF_LIKE(2, 3);

struct cnirt_error;
/* `network "N": plugin "P": CNI error C: message (details)`, leaving out
 * what the error does not name; network is used when the error names none. */
char *error_cni_text(const char *network, const struct cnirt_error *e);

#endif
