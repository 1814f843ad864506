/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the readers of annotations (annotations.c, port-mappings.c, addresses.c,
 * bandwidth.c, cni-args.c, kube-pod.c) share: a value's text (white space,
 * comma-separated items), its JSON, and the messages.
 *
 * A helper that checks part of a value reports a problem without the
 * annotation (char **problem, error_set()); the function that knows the
 * annotation puts it in front with annotation_value_fail(): `annotation "KEY": problem`.
 */
#ifndef CNIHOOK_REQUEST_ANNOTATION_VALUE_H
#define CNIHOOK_REQUEST_ANNOTATION_VALUE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

/* An annotation's value is kvlist_get(ann, key) (base/util.h): NULL when
 * absent, "" for a NULL value. Repetition, size and encoding of every
 * annotation cnihook reads are checked before (annotations.c). */

/* `annotation "key": problem` into *err; takes problem. Returns -1. */
int annotation_value_fail(char **err, const char *key, char *problem);
/* Put "prefix: " in front of *problem. Returns -1. */
int annotation_value_prefix(char **problem, const char *prefix);
/* `unknown field "k"` and the nearest of known[0..n) into *problem.
 * Returns -1. */
int annotation_value_unknown_field(char **problem, const char *k, const char *const *known,
				   size_t n);

/* A control byte (below 0x20, or DEL). */
bool annotation_value_is_control(unsigned char c);
/* s past its leading white space (space, tab, CR, LF). */
const char *annotation_value_skip_space(const char *s);
/* s[0..len) without white space around it, as a new string. */
char *annotation_value_trimmed(const char *s, size_t len);
/* Split `value` at `sep` into trimmed items (caller frees with strv_free).
 * An empty value or item is a problem ("is empty", "item N is empty"). */
int annotation_value_split(const char *value, char sep, char ***items, size_t *n, char **problem);

/* A value's JSON, with the hook's limits (util_json); the problem without
 * a place prefix. */
int annotation_value_json(const char *value, json **out, char **problem);
/* An integer of JSON text (digits, optional '-', no fraction or exponent)
 * in [min, max] into *out, else -1 (no message: the caller says what it
 * expected). */
int annotation_value_json_int(const json *v, long long min, long long max, long long *out);
/* The string of member `field`, or the problem
 * `field "F": is TYPE, expected a string`. */
int annotation_value_json_string(const json *v, const char *field, const char **out,
				 char **problem);

#endif
