/* SPDX-License-Identifier: Apache-2.0 */
/*
 * JSON for the hook's own inputs and outputs (OCI state, config.json,
 * annotations, cnihook.json, the attachment record), on yajl's tree.
 * Parsing is careful with input a container's author wrote: size given,
 * NUL bytes, nesting deeper than JT_MAX_DEPTH and duplicate keys refused.
 */
#ifndef CNIHOOK_JSONUTIL_H
#define CNIHOOK_JSONUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

#define JT_MAX_DEPTH 64

/* Parse buf[0..len). On failure *err is "<what>: <problem>". */
int jt_parse(const char *buf, size_t len, const char *what, yajl_val *out, char **err);
/* The same for the text of the file `path`: where the text is at fault,
 * *err is "<path>:<line>:<column>: <problem>". */
int jt_parse_file(const char *buf, size_t len, const char *path, yajl_val *out, char **err);
/* "<path>:<line>:<column>" of the member or element `field` of the JSON
 * text buf (valid: jt_parse_file() took it), named as cnihook.json(5) names
 * fields ("log.level", "binDirs[1]"): where its key, or the element,
 * starts. NULL when there is none. */
char *jt_field_place(const char *buf, size_t len, const char *path, const char *field);
/* The member `key` of an object, or NULL (also when o is not an object). */
yajl_val jt_get(yajl_val o, const char *key);
/* The string of a string value, or NULL. */
const char *jt_str(yajl_val v);
/* "string", "number", "object", "array", "true", "false", "null". */
const char *jt_type_name(yajl_val v);
/* Write v into g, numbers as their original text. */
void jt_gen_value(yajl_gen g, yajl_val v);
/* v serialised compactly (caller frees). */
char *jt_dump(yajl_val v);
/* A new compact generator, and its buffer handed out (NUL terminated). */
yajl_gen jt_gen_new(void);
char *jt_gen_finish(yajl_gen g);
void jt_gen_str(yajl_gen g, const char *s);
static inline void jt_freep(yajl_val *v)
{
	yajl_tree_free(*v);
}
#define _cleanup_jt_ __attribute__((cleanup(jt_freep)))

#endif
