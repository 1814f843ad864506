/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Suggestions for misspelt names (annotation keys, cnihook.json fields, port
 * protocols): the known name nearest to an unknown one, for messages that
 * end in `did you mean "NAME"?` and list the names that exist.
 */
#ifndef CNIHOOK_BASE_SUGGEST_H
#define CNIHOOK_BASE_SUGGEST_H

#include <stddef.h>

/* The edit distance between a and b, ASCII letters compared without case:
 * the fewest insertions, deletions, substitutions and swaps of two adjacent
 * characters (optimal string alignment) that turn one into the other.
 * Counting stops above `max`: then the result is max + 1. */
size_t suggest_distance(const char *a, const char *b, size_t max);

/* The name of known[0..n) nearest to word, or NULL when none is near
 * enough: at most one edit for a word of up to 5 bytes, two for up to 8,
 * three beyond (a name differing only in case is always near). The first
 * of equally near names. */
const char *suggest_nearest(const char *word, const char *const *known, size_t n);

/* A new message saying that `word` is unknown (`what`, "unknown key" say),
 * the names shown with `prefix` (may be "") in front:
 *     WHAT; did you mean "<prefix>NEAREST"? (known: <prefix>A, <prefix>B, ...)
 * or, when no name is near,
 *     WHAT (known: <prefix>A, <prefix>B, ...)
 * word is compared without the prefix. */
char *suggest_unknown(const char *what, const char *word, const char *prefix,
		      const char *const *known, size_t n);

#endif
