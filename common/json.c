/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The JSON tree: yajl's event parser builds it, our own writer writes it.
 * It keeps what the spec (section 3, "Deriving execution configuration")
 * asks a runtime to pass through unaltered: key order, the text of numbers
 * and the bytes of strings.
 */
#include "config.h"

#include <ctype.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "json.h"

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
	json_obj_append(o, key, v);
}

/* json_obj_append() of a key it takes. */
static void obj_append_owned(json *o, char *key, json *v)
{
	if (o->u.object.n == o->u.object.cap) {
		o->u.object.cap = o->u.object.cap ? o->u.object.cap * 2 : 8;
		o->u.object.k = xreallocarray(o->u.object.k, o->u.object.cap, sizeof(char *));
		o->u.object.v = xreallocarray(o->u.object.v, o->u.object.cap, sizeof(json *));
	}
	o->u.object.k[o->u.object.n] = key;
	o->u.object.v[o->u.object.n] = v;
	o->u.object.n++;
}

void json_obj_append(json *o, const char *key, json *v)
{
	obj_append_owned(o, xstrdup(key), v);
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

char *json_join_strings(const json *a, const char *sep)
{
	struct buf b = {0};
	for (size_t i = 0; json_is_array(a) && i < a->u.array.n; i++) {
		const char *s = json_str(a->u.array.v[i]);
		if (s)
			buf_printf(&b, "%s%s", b.len ? sep : "", s);
	}
	return buf_steal(&b, NULL);
}

bool json_int(const json *j, long long *out)
{
	if (j == NULL || j->type != JSON_NUMBER || strpbrk(j->u.number, ".eE"))
		return false;
	errno = 0;
	char *end;
	long long v = strtoll(j->u.number, &end, 10);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

const char *json_type_name(const json *j)
{
	if (j == NULL)
		return "nothing";
	switch (j->type) {
	case JSON_STRING:
		return "a string";
	case JSON_NUMBER:
		return "a number";
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	default:
		return "null";
	}
}

/* ---------------------------------------------------------------- parse */

/* Where the token that ends just before byte `end` starts. */
static long token_start(const char *buf, size_t end)
{
	if (end == 0)
		return 0;
	long i = (long)end - 1;
	if (buf[i] == '"') {
		/* Back to the opening quote, one not escaped. */
		for (i--; i > 0; i--) {
			long bs = 0;
			while (i - 1 - bs >= 0 && buf[i - 1 - bs] == '\\')
				bs++;
			if (buf[i] == '"' && bs % 2 == 0)
				break;
		}
		return i < 0 ? 0 : i;
	}
	while (i > 0 && (isalnum((unsigned char)buf[i - 1]) || strchr("+-.", buf[i - 1])))
		i--;
	return i;
}

/* The first \u0000 escape of the string that starts at `at`. */
static long escaped_nul(const char *buf, long at)
{
	for (long i = at + 1; buf[i] && buf[i] != '"'; i++) {
		if (buf[i] != '\\')
			continue;
		if (strncmp(buf + i + 1, "u0000", 5) == 0)
			return i;
		i++;
	}
	return at;
}

struct parse_state {
	json *stack[JSON_MAX_DEPTH + 1];
	char *keys[JSON_MAX_DEPTH + 1]; /* pending key of each open object */
	size_t depth;
	size_t reached; /* the deepest depth, whose keys are freed at the end */
	json *root;
	char *problem; /* why the parse was cancelled */
	yajl_handle h;
	size_t end;	/* bytes consumed when the top-level value was complete */
	size_t len;	/* of the input */
	bool finishing; /* in yajl_complete_parse (a number ends at EOF) */
	const char *buf;
	unsigned max_depth;
	bool no_nul;
	bool check_utf8;
	long problem_at; /* where the problem is, when not where yajl stopped; -1 */
	bool unplaced;	 /* a limit passed: no place */
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
	/* cb_map_key() found no such key in top */
	obj_append_owned(top, TAKE_PTR(st->keys[st->depth - 1]), v);
	return 1;
}

static int push(struct parse_state *st, json *v)
{
	if (st->depth >= st->max_depth) {
		json_free(v);
		st->problem = xasprintf("nested deeper than %u levels", st->max_depth);
		st->unplaced = true;
		return 0;
	}
	if (!add_value(st, v))
		return 0;
	st->stack[st->depth++] = v;
	if (st->depth > st->reached)
		st->reached = st->depth;
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

/* Well-formed UTF-8 (text_utf8_invalid_at()): yajl checks only the shape
 * of the byte sequences. */
static bool utf8_valid(const unsigned char *s, size_t len)
{
	return text_utf8_invalid_at((const char *)s, len) < 0;
}

static int cb_string(void *ctx, const unsigned char *s, size_t len)
{
	struct parse_state *st = ctx;
	if (st->check_utf8 && !utf8_valid(s, len)) {
		st->problem = xstrdup("string is not valid UTF-8");
		return 0;
	}
	if (st->no_nul && memchr(s, '\0', len)) {
		st->problem = xstrdup("a string contains an escaped NUL (\\u0000)");
		st->problem_at = escaped_nul(
		    st->buf,
		    token_start(st->buf, st->finishing ? st->len : yajl_get_bytes_consumed(st->h)));
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
	if (st->check_utf8 && !utf8_valid(k, len)) {
		st->problem = xstrdup("object key is not valid UTF-8");
		return 0;
	}
	_cleanup_free_ char *key = xmemdup(k, len);
	if (json_obj_get(top, key)) {
		st->problem = xasprintf("duplicate key \"%s\"", key);
		st->problem_at = token_start(st->buf, yajl_get_bytes_consumed(st->h));
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

/* Only white space (and with `comments`, comments) in buf[at..len)? */
static bool only_blank(const char *buf, size_t at, size_t len, bool comments)
{
	const char *p = buf + at, *end = buf + len;
	while (p < end) {
		if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
			p++;
		} else if (comments && end - p >= 2 && p[0] == '/' && p[1] == '/') {
			while (p < end && *p != '\n')
				p++;
		} else if (comments && end - p >= 2 && p[0] == '/' && p[1] == '*') {
			const char *c = p + 2;
			while (c + 1 < end && !(c[0] == '*' && c[1] == '/'))
				c++;
			if (c + 1 >= end)
				return false;
			p = c + 2;
		} else {
			return false;
		}
	}
	return true;
}

/* "WHAT:LINE:COLUMN" of byte `at` (lines and columns from 1, columns in
 * bytes), the place an editor jumps to. */
static char *place(const char *buf, size_t at, const char *what)
{
	size_t line = 1, col = 1;
	for (size_t i = 0; i < at; i++) {
		if (buf[i] == '\n')
			line++, col = 1;
		else
			col++;
	}
	return xasprintf("%s:%zu:%zu", what, line, col);
}

/* *err for `problem` at byte `at`. */
static int fail(char **err, const struct json_limits *lim, const char *buf, size_t at,
		const char *what, const char *problem)
{
	if (lim->file) {
		_cleanup_free_ char *where = place(buf, at, what);
		*err = xasprintf("%s: %s", where, problem);
	} else {
		*err = xasprintf("%s: invalid JSON near byte %zu: %s", what, at, problem);
	}
	return -1;
}

/* Checks of the whole text before yajl sees it. */
static int precheck(const char *buf, size_t len, const char *what, const struct json_limits *lim,
		    char **err)
{
	if (len == 0) {
		*err = xasprintf("%s: empty input, expected JSON", what);
		return -1;
	}
	if (lim->max_size && len > lim->max_size) {
		*err = xasprintf("%s: more than %zu bytes", what, lim->max_size);
		return -1;
	}
	const char *nul = memchr(buf, '\0', len);
	if (nul)
		return fail(err, lim, buf, (size_t)(nul - buf), what, "contains a NUL byte");
	/* yajl takes vertical tab and form feed for white space; JSON does not
	 * (RFC 8259 section 2), and inside strings they must be escaped. */
	const char *ctl = memchr(buf, '\v', len);
	const char *ff = memchr(buf, '\f', len);
	if (ctl == NULL || (ff && ff < ctl))
		ctl = ff;
	if (ctl) {
		_cleanup_free_ char *p =
		    xasprintf("%scontrol character 0x%02x", lim->file ? "invalid JSON: " : "",
			      (unsigned char)*ctl);
		return fail(err, lim, buf, (size_t)(ctl - buf), what, p);
	}
	long bad = lim->utf8_unchecked ? -1 : unpaired_surrogate(buf, len);
	if (bad >= 0)
		return fail(err, lim, buf, (size_t)bad, what, "unpaired UTF-16 surrogate escape");
	return 0;
}

int json_parse_with(const char *buf, size_t len, const char *what, const struct json_limits *lim,
		    json **out, char **err)
{
	if (precheck(buf, len, what, lim, err) < 0)
		return -1;
	unsigned depth = lim->max_depth ? lim->max_depth : JSON_MAX_DEPTH;
	struct parse_state st = {
	    .buf = buf,
	    .len = len,
	    .max_depth = depth < JSON_MAX_DEPTH ? depth : JSON_MAX_DEPTH,
	    .no_nul = lim->no_nul,
	    .check_utf8 = !lim->utf8_unchecked,
	    .problem_at = -1,
	};
	yajl_handle h = yajl_alloc(&callbacks, NULL, &st);
	if (h == NULL)
		abort();
	yajl_config(h, yajl_allow_multiple_values, 1);
	yajl_config(h, yajl_allow_comments, lim->comments ? 1 : 0);
	st.h = h;
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
	 * (an unterminated string, as input still to come), and a second
	 * value: only white space (or comments) may follow the value. */
	if (st.root && (s == yajl_status_ok || st.depth == 0) &&
	    !only_blank(buf, st.end, len, lim->comments)) {
		free(st.problem);
		at = st.end;
		if (!lim->file)
			while (at < len && strchr(" \t\n\r", buf[at]))
				at++;
		st.problem =
		    xstrdup(lim->file ? "invalid JSON: trailing garbage" : "trailing garbage");
		st.problem_at = -1;
		s = yajl_status_error;
	}
	if (s == yajl_status_ok && st.root == NULL)
		st.problem = xstrdup("no JSON value"), s = yajl_status_error;
	int r = 0;
	if (s != yajl_status_ok) {
		bool from_yajl = st.problem == NULL;
		_cleanup_free_ char *m =
		    from_yajl ? yajl_message(h, buf, len) : TAKE_PTR(st.problem);
		if (from_yajl && lim->file) {
			/* yajl's message, then lines quoting the input: keep the first. */
			char *nl = strchr(m, '\n');
			if (nl)
				*nl = '\0';
			size_t n = strlen(m);
			while (n && (m[n - 1] == ' ' || m[n - 1] == '.'))
				m[--n] = '\0';
			char *p = xasprintf("invalid JSON: %s", m);
			free(m);
			m = p;
			/* the refused token's last byte, or the text's last */
			at = at ? at - 1 : 0;
		}
		if (st.problem_at >= 0)
			at = (size_t)st.problem_at;
		if (st.unplaced) {
			*err = xasprintf("%s: %s", what, m);
			r = -1;
		} else {
			r = fail(err, lim, buf, at, what, m);
		}
	}
	yajl_free(h);
	for (size_t i = 0; i < st.reached; i++)
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

/* ------------------------------------------------------ field places */

/* Finding a member or element by the name cnihook.json(5) gives it:
 * "log.level", "binDirs[1]", "policy.hostPortRange[0]". */
struct locate {
	yajl_handle h;
	const char *buf;
	const char *field;
	int nth;    /* which of the members of that name (duplicates) */
	long found; /* where its key, or the element, starts; -1 */
	/* The containers open around the current value: their names, and
	 * for arrays the index of the next element (-1 for objects). */
	char *names[JSON_MAX_DEPTH + 2];
	long index[JSON_MAX_DEPTH + 2];
	char *member; /* the name of the member whose value comes next */
	size_t depth;
};

/* A value starts: an element is named here; returns its name. */
static char *value_name(struct locate *l, bool *stop)
{
	*stop = false;
	if (l->depth == 0)
		return xstrdup("");
	if (l->index[l->depth - 1] < 0)
		return TAKE_PTR(l->member);
	char *name = xasprintf("%s[%ld]", l->names[l->depth - 1], l->index[l->depth - 1]++);
	if (strcmp(name, l->field) == 0) {
		l->found = token_start(l->buf, yajl_get_bytes_consumed(l->h));
		*stop = true;
	}
	return name;
}

static int on_scalar(struct locate *l)
{
	bool stop;
	free(value_name(l, &stop));
	return !stop;
}

static int on_open(struct locate *l, bool array)
{
	bool stop;
	char *name = value_name(l, &stop);
	if (stop || l->depth == ARRAY_SIZE(l->names)) {
		free(name);
		return 0;
	}
	l->names[l->depth] = name;
	l->index[l->depth++] = array ? 0 : -1;
	return 1;
}

static int on_close(void *ctx)
{
	struct locate *l = ctx;
	free(l->names[--l->depth]);
	return 1;
}

static int on_key(void *ctx, const unsigned char *key, size_t len)
{
	struct locate *l = ctx;
	const char *parent = l->names[l->depth - 1];
	free(l->member);
	l->member = xasprintf("%s%s%.*s", parent, *parent ? "." : "", (int)len, key);
	if (strcmp(l->member, l->field) != 0 || --l->nth > 0)
		return 1;
	l->found = token_start(l->buf, yajl_get_bytes_consumed(l->h));
	return 0;
}

static int on_null(void *ctx)
{
	return on_scalar(ctx);
}
static int on_bool(void *ctx, int b)
{
	(void)b;
	return on_scalar(ctx);
}
static int on_number(void *ctx, const char *s, size_t len)
{
	(void)s, (void)len;
	return on_scalar(ctx);
}
static int on_string(void *ctx, const unsigned char *s, size_t len)
{
	(void)s, (void)len;
	return on_scalar(ctx);
}
static int on_map(void *ctx)
{
	return on_open(ctx, false);
}
static int on_array(void *ctx)
{
	return on_open(ctx, true);
}

/* The place of the nth member or element named `field`. */
static char *field_place(const char *buf, size_t len, const char *path, const char *field, int nth)
{
	static const yajl_callbacks cb = {
	    .yajl_null = on_null,
	    .yajl_boolean = on_bool,
	    .yajl_number = on_number,
	    .yajl_string = on_string,
	    .yajl_start_map = on_map,
	    .yajl_map_key = on_key,
	    .yajl_end_map = on_close,
	    .yajl_start_array = on_array,
	    .yajl_end_array = on_close,
	};
	struct locate l = {.buf = buf, .field = field, .nth = nth, .found = -1};
	l.h = yajl_alloc(&cb, NULL, &l);
	if (l.h == NULL)
		abort();
	yajl_config(l.h, yajl_allow_comments, 1);
	yajl_parse(l.h, (const unsigned char *)buf, len);
	yajl_free(l.h);
	while (l.depth)
		free(l.names[--l.depth]);
	free(l.member);
	return l.found < 0 ? NULL : place(buf, (size_t)l.found, path);
}

char *json_field_place(const char *buf, size_t len, const char *path, const char *field)
{
	return field_place(buf, len, path, field, 1);
}
