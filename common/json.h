/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one JSON tree of libcnirt and cnihook (common/json.c). It keeps what
 * the CNI spec asks a runtime to pass through unaltered: object key order,
 * the exact text of numbers, and string bytes (including UTF-8). What a
 * parse accepts beyond JSON itself (depth, size, comments) is the caller's
 * to say, for the input it reads.
 */
#ifndef CNI_JSON_H
#define CNI_JSON_H

#include "common.h"

/*
 * A JSON tree that keeps what the CNI spec asks a runtime to pass through
 * unaltered: object key order, the exact text of numbers, and string bytes
 * (including UTF-8). Parsing rejects invalid UTF-8, duplicate object keys,
 * nesting deeper than JSON_MAX_DEPTH and trailing garbage.
 */
#define JSON_MAX_DEPTH 128

enum json_type {
	JSON_NULL,
	JSON_FALSE,
	JSON_TRUE,
	JSON_NUMBER,
	JSON_STRING,
	JSON_ARRAY,
	JSON_OBJECT,
};

typedef struct json json;
struct json {
	enum json_type type;
	union {
		char *number; /* raw text as written */
		struct {
			char *s; /* NUL terminated; may also contain NULs */
			size_t len;
		} string;
		struct {
			json **v;
			size_t n, cap;
		} array;
		struct {
			char **k; /* keys, NUL terminated (keys with NUL are rejected) */
			json **v;
			size_t n, cap;
		} object;
	} u;
};

/* What a parse accepts, set by the caller for the input it reads. */
struct json_limits {
	unsigned max_depth;  /* nesting; 0: JSON_MAX_DEPTH */
	size_t max_size;     /* bytes of text; 0: no limit */
	bool comments;	     /* C comments where white space may be: only for a
			      * file format that says so (cnihook.json) */
	bool no_nul;	     /* refuse strings with NUL (\u0000) in them: values
			      * that become C strings */
	bool file;	     /* `what` is a file: places as "<what>:LINE:COLUMN" */
	bool utf8_unchecked; /* strings as bytes: the caller checks the UTF-8 of
			      * those it reads, naming them (the hook: an
			      * annotation; a path need not be UTF-8) */
};

/* Parse exactly one JSON value. `what` names the input in errors
 * ("network configuration", "plugin result", ...). On failure *err is
 * "<what>: invalid JSON near byte N: <problem>", or for a file
 * "<what>:LINE:COLUMN: <problem>" (where the text is at fault); a limit
 * passed is "<what>: <limit>" without a place. Duplicate keys, trailing
 * garbage and (unless utf8_unchecked) invalid UTF-8 and unpaired surrogate
 * escapes are refused. */
int json_parse_with(const char *buf, size_t len, const char *what, const struct json_limits *lim,
		    json **out, char **err);
void json_free(json *j);
static inline void json_freep(json **j)
{
	json_free(*j);
}
#define _cleanup_json_ _cleanup_(json_freep)

json *json_new(enum json_type t); /* empty array/object, null/true/false */
json *json_new_bool(bool b);
json *json_new_string(const char *s);
json *json_new_stringn(const char *s, size_t len);
json *json_new_number(const char *raw); /* raw must be valid JSON number text */
json *json_new_int(long long v);
json *json_dup(const json *j);
bool json_equal(const json *a, const json *b); /* objects: order-insensitive */

/* Objects. get returns NULL when absent. set replaces in place (order kept)
 * or appends, and takes ownership of v. del returns true if removed. */
json *json_obj_get(const json *o, const char *key);
void json_obj_set(json *o, const char *key, json *v);
/* Appends without looking for the key: for a caller whose keys are unique
 * by construction (building an object of n members costs O(n), not the
 * O(n^2) of n sets). Takes ownership of v. */
void json_obj_append(json *o, const char *key, json *v);
bool json_obj_del(json *o, const char *key);
/* Arrays: takes ownership of v. */
void json_arr_append(json *a, json *v);

bool json_is_string(const json *j);
static inline bool json_is_object(const json *j)
{
	return j && j->type == JSON_OBJECT;
}
static inline bool json_is_array(const json *j)
{
	return j && j->type == JSON_ARRAY;
}
static inline bool json_is_number(const json *j)
{
	return j && j->type == JSON_NUMBER;
}
static inline bool json_is_null(const json *j)
{
	return j && j->type == JSON_NULL;
}
static inline bool json_is_true(const json *j)
{
	return j && j->type == JSON_TRUE;
}
static inline bool json_is_false(const json *j)
{
	return j && j->type == JSON_FALSE;
}
static inline bool json_is_bool(const json *j)
{
	return j && (j->type == JSON_TRUE || j->type == JSON_FALSE);
}
/* An integer number (no fraction, no exponent) that fits: true and *out. */
bool json_int(const json *j, long long *out);
static inline bool json_is_int(const json *j)
{
	long long v;
	return json_int(j, &v);
}
/* The integer of json_is_int() j, else 0. */
static inline long long json_int_value(const json *j)
{
	long long v;
	return json_int(j, &v) ? v : 0;
}
/* "a string", "a number", "an object", "an array", "a boolean", "null";
 * "nothing" for NULL. */
const char *json_type_name(const json *j);
/* The C string of a string value, NULL if not a string or it contains NUL. */
const char *json_str(const json *j);
/* The strings of array a (json_str()) joined by sep, the other elements
 * left out; "" when there are none or a is not an array. */
char *json_join_strings(const json *a, const char *sep);

/* Serialise. pretty: indented with two spaces. Returns a NUL terminated
 * string (caller frees); *len (may be NULL) gets its length. */
char *json_gen(const json *j, bool pretty, size_t *len);

/* "<path>:<line>:<column>" of the member or element `field` of the JSON text
 * buf (one json_parse_with() took, comments allowed), named as
 * cnihook.json(5) names fields ("log.level", "binDirs[1]"): where its key,
 * or the element, starts. NULL when there is none. */
char *json_field_place(const char *buf, size_t len, const char *path, const char *field);

#endif
