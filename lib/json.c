/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A JSON tree on top of yajl's event parser; the tree is written back as
 * text by this file's own generator (json_gen and the functions under
 * "generate"), not yajl's. It keeps what the spec (section 3, "Deriving
 * execution configuration") asks a runtime to pass through unaltered: key
 * order, the text of numbers and the bytes of strings.
 */
#include "config.h"

#include <string.h>
#include <yajl/yajl_parse.h>

#include "internal.h"

json *json_new(enum json_type t)
{
	json *j = xzalloc(sizeof(*j));
	j->type = t;
	return j;
}

json *json_new_bool(bool b)
{
	return json_new(b ? JSON_TRUE : JSON_FALSE);
}

json *json_new_stringn(const char *s, size_t len)
{
	json *j = json_new(JSON_STRING);
	j->u.string.s = xmemdup(s, len);
	j->u.string.len = len;
	return j;
}

json *json_new_string(const char *s)
{
	return json_new_stringn(s, strlen(s));
}

json *json_new_number(const char *raw)
{
	json *j = json_new(JSON_NUMBER);
	j->u.number = xstrdup(raw);
	return j;
}

json *json_new_int(long long v)
{
	json *j = json_new(JSON_NUMBER);
	j->u.number = xasprintf("%lld", v);
	return j;
}

void json_free(json *j)
{
	if (j == NULL)
		return;
	switch (j->type) {
	case JSON_NUMBER:
		free(j->u.number);
		break;
	case JSON_STRING:
		free(j->u.string.s);
		break;
	case JSON_ARRAY:
		for (size_t i = 0; i < j->u.array.n; i++)
			json_free(j->u.array.v[i]);
		free(j->u.array.v);
		break;
	case JSON_OBJECT:
		for (size_t i = 0; i < j->u.object.n; i++) {
			free(j->u.object.k[i]);
			json_free(j->u.object.v[i]);
		}
		free(j->u.object.k);
		free(j->u.object.v);
		break;
	default:
		break;
	}
	free(j);
}

json *json_dup(const json *j)
{
	if (j == NULL)
		return NULL;
	json *r = json_new(j->type);
	switch (j->type) {
	case JSON_NUMBER:
		r->u.number = xstrdup(j->u.number);
		break;
	case JSON_STRING:
		r->u.string.s = xmemdup(j->u.string.s, j->u.string.len);
		r->u.string.len = j->u.string.len;
		break;
	case JSON_ARRAY:
		for (size_t i = 0; i < j->u.array.n; i++)
			json_arr_append(r, json_dup(j->u.array.v[i]));
		break;
	case JSON_OBJECT:
		for (size_t i = 0; i < j->u.object.n; i++)
			json_obj_set(r, j->u.object.k[i], json_dup(j->u.object.v[i]));
		break;
	default:
		break;
	}
	return r;
}

static bool number_equal(const char *a, const char *b)
{
	if (strcmp(a, b) == 0)
		return true;
	return strtod(a, NULL) == strtod(b, NULL);
}

bool json_equal(const json *a, const json *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	if (a->type != b->type)
		return false;
	switch (a->type) {
	case JSON_NUMBER:
		return number_equal(a->u.number, b->u.number);
	case JSON_STRING:
		return a->u.string.len == b->u.string.len &&
		       memcmp(a->u.string.s, b->u.string.s, a->u.string.len) == 0;
	case JSON_ARRAY:
		if (a->u.array.n != b->u.array.n)
			return false;
		for (size_t i = 0; i < a->u.array.n; i++)
			if (!json_equal(a->u.array.v[i], b->u.array.v[i]))
				return false;
		return true;
	case JSON_OBJECT:
		if (a->u.object.n != b->u.object.n)
			return false;
		for (size_t i = 0; i < a->u.object.n; i++) {
			const json *bv = json_obj_get(b, a->u.object.k[i]);
			if (bv == NULL || !json_equal(a->u.object.v[i], bv))
				return false;
		}
		return true;
	default:
		return true;
	}
}

json *json_obj_get(const json *o, const char *key)
{
	if (o == NULL || o->type != JSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < o->u.object.n; i++)
		if (strcmp(o->u.object.k[i], key) == 0)
			return o->u.object.v[i];
	return NULL;
}

void json_obj_set(json *o, const char *key, json *v)
{
	for (size_t i = 0; i < o->u.object.n; i++) {
		if (strcmp(o->u.object.k[i], key) == 0) {
			json_free(o->u.object.v[i]);
			o->u.object.v[i] = v;
			return;
		}
	}
	if (o->u.object.n == o->u.object.cap) {
		o->u.object.cap = o->u.object.cap ? o->u.object.cap * 2 : 8;
		o->u.object.k = xreallocarray(o->u.object.k, o->u.object.cap, sizeof(char *));
		o->u.object.v = xreallocarray(o->u.object.v, o->u.object.cap, sizeof(json *));
	}
	o->u.object.k[o->u.object.n] = xstrdup(key);
	o->u.object.v[o->u.object.n] = v;
	o->u.object.n++;
}

bool json_obj_del(json *o, const char *key)
{
	if (o == NULL || o->type != JSON_OBJECT)
		return false;
	for (size_t i = 0; i < o->u.object.n; i++) {
		if (strcmp(o->u.object.k[i], key) != 0)
			continue;
		free(o->u.object.k[i]);
		json_free(o->u.object.v[i]);
		size_t rest = o->u.object.n - i - 1;
		memmove(&o->u.object.k[i], &o->u.object.k[i + 1], rest * sizeof(char *));
		memmove(&o->u.object.v[i], &o->u.object.v[i + 1], rest * sizeof(json *));
		o->u.object.n--;
		return true;
	}
	return false;
}

void json_arr_append(json *a, json *v)
{
	if (a->u.array.n == a->u.array.cap) {
		a->u.array.cap = a->u.array.cap ? a->u.array.cap * 2 : 8;
		a->u.array.v = xreallocarray(a->u.array.v, a->u.array.cap, sizeof(json *));
	}
	a->u.array.v[a->u.array.n++] = v;
}

bool json_is_string(const json *j)
{
	return j && j->type == JSON_STRING;
}

const char *json_str(const json *j)
{
	if (!json_is_string(j) || strlen(j->u.string.s) != j->u.string.len)
		return NULL;
	return j->u.string.s;
}

int json_get_string(const json *o, const char *key, const char **out, cnirt_error **err)
{
	const json *v = json_obj_get(o, key);
	if (v == NULL) {
		*out = NULL;
		return 0;
	}
	if (!json_is_string(v))
		return error_set(err, CNIRT_ERR_DECODE, "field \"%s\": must be a string", key);
	if (json_str(v) == NULL)
		return error_set(err, CNIRT_ERR_DECODE, "field \"%s\": contains a NUL byte", key);
	*out = v->u.string.s;
	return 0;
}

int json_get_bool(const json *o, const char *key, bool *out, cnirt_error **err)
{
	const json *v = json_obj_get(o, key);
	if (v == NULL)
		return 0;
	if (v->type != JSON_TRUE && v->type != JSON_FALSE)
		return error_set(err, CNIRT_ERR_DECODE, "field \"%s\": must be true or false", key);
	*out = v->type == JSON_TRUE;
	return 0;
}

/* ---------------------------------------------------------------- parse */

struct parse_state {
	json *stack[JSON_MAX_DEPTH + 1];
	char *keys[JSON_MAX_DEPTH + 1]; /* pending key of each open object */
	size_t depth;
	json *root;
	char *problem; /* why the parse was cancelled */
	yajl_handle h;
	size_t end;	/* bytes consumed when the top-level value was complete */
	size_t len;	/* of the input */
	bool finishing; /* in yajl_complete_parse (a number ends at EOF) */
};

static int add_value(struct parse_state *st, json *v)
{
	if (st->depth == 0) {
		/* yajl runs with multiple values allowed, so that what follows
		 * the value is parsed too (yajl alone lets an unterminated
		 * string through as "more to come"): a second value is an error. */
		if (st->root) {
			json_free(v);
			st->problem = xstrdup("more than one JSON value");
			return 0;
		}
		st->root = v;
		st->end = st->finishing ? st->len : yajl_get_bytes_consumed(st->h);
		return 1;
	}
	json *top = st->stack[st->depth - 1];
	if (top->type == JSON_ARRAY) {
		json_arr_append(top, v);
		return 1;
	}
	char *key = st->keys[st->depth - 1];
	st->keys[st->depth - 1] = NULL;
	json_obj_set(top, key, v);
	free(key);
	return 1;
}

static int push(struct parse_state *st, json *v)
{
	if (st->depth >= JSON_MAX_DEPTH) {
		json_free(v);
		st->problem = xasprintf("nesting deeper than %d levels", JSON_MAX_DEPTH);
		return 0;
	}
	if (!add_value(st, v))
		return 0;
	st->stack[st->depth++] = v;
	return 1;
}

static int cb_null(void *ctx)
{
	return add_value(ctx, json_new(JSON_NULL));
}

static int cb_boolean(void *ctx, int b)
{
	return add_value(ctx, json_new_bool(b));
}

static int cb_number(void *ctx, const char *s, size_t len)
{
	json *j = json_new(JSON_NUMBER);
	j->u.number = xmemdup(s, len);
	return add_value(ctx, j);
}

/* Well-formed UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing
 * above U+10FFFF. yajl checks only the shape of the byte sequences. */
static bool utf8_valid(const unsigned char *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		unsigned char c = s[i];
		size_t n;
		unsigned lo = 0x80, hi = 0xbf;
		if (c < 0x80) {
			i++;
			continue;
		} else if (c >= 0xc2 && c <= 0xdf) {
			n = 1;
		} else if (c >= 0xe0 && c <= 0xef) {
			n = 2;
			if (c == 0xe0)
				lo = 0xa0;
			else if (c == 0xed)
				hi = 0x9f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			n = 3;
			if (c == 0xf0)
				lo = 0x90;
			else if (c == 0xf4)
				hi = 0x8f;
		} else {
			return false;
		}
		if (i + n >= len)
			return false;
		if (s[i + 1] < lo || s[i + 1] > hi)
			return false;
		for (size_t k = 2; k <= n; k++)
			if (s[i + k] < 0x80 || s[i + k] > 0xbf)
				return false;
		i += n + 1;
	}
	return true;
}

static int cb_string(void *ctx, const unsigned char *s, size_t len)
{
	struct parse_state *st = ctx;
	if (!utf8_valid(s, len)) {
		st->problem = xstrdup("string is not valid UTF-8");
		return 0;
	}
	return add_value(ctx, json_new_stringn((const char *)s, len));
}

static int cb_start_map(void *ctx)
{
	return push(ctx, json_new(JSON_OBJECT));
}

static int cb_map_key(void *ctx, const unsigned char *k, size_t len)
{
	struct parse_state *st = ctx;
	json *top = st->stack[st->depth - 1];
	if (memchr(k, '\0', len)) {
		st->problem = xstrdup("object key contains a NUL byte");
		return 0;
	}
	if (!utf8_valid(k, len)) {
		st->problem = xstrdup("object key is not valid UTF-8");
		return 0;
	}
	_cleanup_free_ char *key = xmemdup(k, len);
	if (json_obj_get(top, key)) {
		st->problem = xasprintf("duplicate key \"%s\"", key);
		return 0;
	}
	st->keys[st->depth - 1] = TAKE_PTR(key);
	return 1;
}

static int cb_end(void *ctx)
{
	struct parse_state *st = ctx;
	if (--st->depth == 0)
		st->end = st->finishing ? st->len : yajl_get_bytes_consumed(st->h);
	return 1;
}

static int cb_start_array(void *ctx)
{
	return push(ctx, json_new(JSON_ARRAY));
}

static const yajl_callbacks callbacks = {
    .yajl_null = cb_null,
    .yajl_boolean = cb_boolean,
    .yajl_number = cb_number,
    .yajl_string = cb_string,
    .yajl_start_map = cb_start_map,
    .yajl_map_key = cb_map_key,
    .yajl_end_map = cb_end,
    .yajl_start_array = cb_start_array,
    .yajl_end_array = cb_end,
};

static char *yajl_message(yajl_handle h, const char *buf, size_t len)
{
	unsigned char *m = yajl_get_error(h, 0, (const unsigned char *)buf, len);
	char *r = xstrdup((char *)m);
	yajl_free_error(h, m);
	size_t n = strlen(r);
	while (n && (r[n - 1] == '\n' || r[n - 1] == ' '))
		r[--n] = '\0';
	return r;
}

static int hex4(const char *p, const char *end, unsigned *v)
{
	if (end - p < 4)
		return -1;
	*v = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
			     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
			     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
						    : 16u;
		if (d > 15)
			return -1;
		*v = *v << 4 | d;
	}
	return 0;
}

/* yajl decodes an unpaired \uD800-\uDFFF escape into a wrong character
 * rather than failing; find such escapes first. Returns the offset of the
 * first one, or -1. */
static long unpaired_surrogate(const char *buf, size_t len)
{
	if (len == 0)
		return -1;
	const char *p = memchr(buf, '\\', len), *end = buf + len;
	while (p && p < end) {
		if (p + 1 < end && p[1] == 'u') {
			unsigned v, w;
			if (hex4(p + 2, end, &v) == 0 && v >= 0xd800 && v <= 0xdfff) {
				if (v >= 0xdc00 || end - p < 12 || p[6] != '\\' || p[7] != 'u' ||
				    hex4(p + 8, end, &w) < 0 || w < 0xdc00 || w > 0xdfff)
					return p - buf;
				p += 6;
			}
			p += 2;
		} else {
			p += 2; /* skip the escaped character, a backslash included */
		}
		if (p >= end)
			break;
		p = memchr(p, '\\', (size_t)(end - p));
	}
	return -1;
}

int json_parse(const char *buf, size_t len, const char *what, json **out, cnirt_error **err)
{
	/* yajl takes vertical tab and form feed for white space; JSON does not
	 * (RFC 8259 section 2), and inside strings they must be escaped. */
	const char *ctl = len ? memchr(buf, '\v', len) : NULL;
	if (ctl == NULL && len)
		ctl = memchr(buf, '\f', len);
	if (ctl)
		return error_set(err, CNIRT_ERR_DECODE,
				 "%s: invalid JSON near byte %zu: control character 0x%02x", what,
				 (size_t)(ctl - buf), (unsigned char)*ctl);
	long bad = unpaired_surrogate(buf, len);
	if (bad >= 0)
		return error_set(err, CNIRT_ERR_DECODE,
				 "%s: invalid JSON near byte %ld: unpaired UTF-16 surrogate escape",
				 what, bad);

	struct parse_state st = {0};
	yajl_handle h = yajl_alloc(&callbacks, NULL, &st);
	if (h == NULL)
		abort();
	yajl_config(h, yajl_allow_multiple_values, 1);
	st.h = h;
	st.len = len;
	yajl_status s = yajl_parse(h, (const unsigned char *)buf, len);
	/* Where the problem is: what yajl consumed, or the end for input
	 * that stops too early (yajl_complete_parse() consumes nothing). */
	size_t at = 0;
	if (s != yajl_status_ok) {
		at = yajl_get_bytes_consumed(h);
	} else {
		st.finishing = true;
		s = yajl_complete_parse(h);
		at = len;
	}
	/* yajl lets the start of an unfinished token after the value through
	 * (an unterminated string, as input still to come): only JSON white
	 * space may follow the value. */
	if (s == yajl_status_ok && st.root) {
		for (size_t i = st.end; i < len && !st.problem; i++)
			if (buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\n' && buf[i] != '\r') {
				st.problem = xasprintf("trailing garbage at byte %zu", i);
				at = i;
			}
		if (st.problem)
			s = yajl_status_error;
	}
	if (s == yajl_status_ok && st.root == NULL)
		st.problem = xstrdup("no JSON value"), s = yajl_status_error;
	int r = 0;
	if (s != yajl_status_ok) {
		_cleanup_free_ char *m =
		    st.problem ? TAKE_PTR(st.problem) : yajl_message(h, buf, len);
		if (len == 0)
			r = error_set(err, CNIRT_ERR_DECODE, "%s: empty input, expected JSON",
				      what);
		else
			r = error_set(err, CNIRT_ERR_DECODE, "%s: invalid JSON near byte %zu: %s",
				      what, at, m);
	}
	yajl_free(h);
	for (size_t i = 0; i < JSON_MAX_DEPTH + 1; i++)
		free(st.keys[i]);
	if (r < 0) {
		json_free(st.root);
		return r;
	}
	*out = st.root;
	return 0;
}

/* ------------------------------------------------------------- generate */

/* Our own writer: no depth limit, and strings written as their bytes with
 * only what JSON requires escaped (UTF-8 passes through). */
static void gen_string(struct buf *b, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	buf_append(b, "\"", 1);
	size_t run = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *esc = NULL;
		char u[7];
		switch (c) {
		case '"':
			esc = "\\\"";
			break;
		case '\\':
			esc = "\\\\";
			break;
		case '\n':
			esc = "\\n";
			break;
		case '\r':
			esc = "\\r";
			break;
		case '\t':
			esc = "\\t";
			break;
		case '\b':
			esc = "\\b";
			break;
		case '\f':
			esc = "\\f";
			break;
		default:
			if (c < 0x20) {
				u[0] = '\\', u[1] = 'u', u[2] = '0', u[3] = '0';
				u[4] = hex[c >> 4], u[5] = hex[c & 15], u[6] = '\0';
				esc = u;
			}
		}
		if (esc == NULL) {
			run++;
			continue;
		}
		buf_append(b, s + i - run, run);
		run = 0;
		buf_appends(b, esc);
	}
	buf_append(b, s + len - run, run);
	buf_append(b, "\"", 1);
}

static void gen_indent(struct buf *b, bool pretty, size_t depth)
{
	if (!pretty)
		return;
	buf_append(b, "\n", 1);
	for (size_t i = 0; i < depth; i++)
		buf_append(b, "  ", 2);
}

static void gen(struct buf *b, const json *j, bool pretty, size_t depth)
{
	switch (j->type) {
	case JSON_NULL:
		buf_appends(b, "null");
		break;
	case JSON_FALSE:
		buf_appends(b, "false");
		break;
	case JSON_TRUE:
		buf_appends(b, "true");
		break;
	case JSON_NUMBER:
		buf_appends(b, j->u.number);
		break;
	case JSON_STRING:
		gen_string(b, j->u.string.s, j->u.string.len);
		break;
	case JSON_ARRAY:
		buf_append(b, "[", 1);
		for (size_t i = 0; i < j->u.array.n; i++) {
			if (i)
				buf_append(b, ",", 1);
			gen_indent(b, pretty, depth + 1);
			gen(b, j->u.array.v[i], pretty, depth + 1);
		}
		if (j->u.array.n)
			gen_indent(b, pretty, depth);
		buf_append(b, "]", 1);
		break;
	case JSON_OBJECT:
		buf_append(b, "{", 1);
		for (size_t i = 0; i < j->u.object.n; i++) {
			const char *k = j->u.object.k[i];
			if (i)
				buf_append(b, ",", 1);
			gen_indent(b, pretty, depth + 1);
			gen_string(b, k, strlen(k));
			buf_append(b, pretty ? ": " : ":", pretty ? 2 : 1);
			gen(b, j->u.object.v[i], pretty, depth + 1);
		}
		if (j->u.object.n)
			gen_indent(b, pretty, depth);
		buf_append(b, "}", 1);
		break;
	}
}

char *json_gen(const json *j, bool pretty, size_t *len)
{
	struct buf b = {0};
	gen(&b, j, pretty, 0);
	return buf_steal(&b, len);
}
