/* SPDX-License-Identifier: Apache-2.0 */
/* String vectors: NULL-terminated arrays of strings with their count. */
#ifndef CNIHOOK_BASE_STRV_H
#define CNIHOOK_BASE_STRV_H

#include <stddef.h>

/* Append a copy of s to the NULL-terminated vector *v of *n strings. */
void strv_append(char ***v, size_t *n, const char *s);
/* Free the n strings of v and v. */
void strv_free(char **v, size_t n);
/* The n strings of v joined by sep ("" for none). */
char *strv_join(char *const *v, size_t n, const char *sep);

#endif
