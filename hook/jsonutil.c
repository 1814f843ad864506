/* SPDX-License-Identifier: Apache-2.0 */
/* The hook's JSON: yajl's tree, with limits for input written by strangers. */
#include "config.h"

#include <ctype.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "jsonutil.h"
#include "util.h"

/* What a first pass over the text finds, outside what yajl checks. */
struct scan {
	size_t depth; /* deepest nesting, counting brackets outside strings */
	long nul_at;  /* first \u0000 escape in a string (yajl's tree would
		       * cut such a string short: "a\u0000/../b" reads "a"), or -1 */
	long ctl_at;  /* first vertical tab or form feed (yajl takes them for
		       * white space, JSON does not), or -1 */
	size_t end;   /* just after the top-level container, 0 if none */
};

static void scan(const char *buf, size_t len, struct scan *sc)
{
	size_t depth = 0;
	bool in_string = false;
	*sc = (struct scan){.nul_at = -1, .ctl_at = -1};
	for (size_t i = 0; i < len; i++) {
		char c = buf[i];
		if ((c == '\v' || c == '\f') && sc->ctl_at < 0)
			sc->ctl_at = (long)i;
		if (in_string) {
			if (c == '\\') {
				if (sc->nul_at < 0 && len - i >= 6 &&
				    memcmp(buf + i + 1, "u0000", 5) == 0)
					sc->nul_at = (long)i;
				i++;
			} else if (c == '"')
				in_string = false;
		} else if (c == '"') {
			in_string = true;
		} else if (c == '/' && i + 1 < len && (buf[i + 1] == '/' || buf[i + 1] == '*')) {
			/* A comment (cnihook.json allows them): skip it. */
			bool line = buf[i + 1] == '/';
			for (i += 2; i < len; i++)
				if (line ? buf[i] == '\n'
					 : (buf[i] == '*' && i + 1 < len && buf[i + 1] == '/'))
					break;
			if (!line)
				i++;
		} else if (c == '[' || c == '{') {
			if (++depth > sc->depth)
				sc->depth = depth;
		} else if ((c == ']' || c == '}') && depth > 0) {
			if (--depth == 0 && sc->end == 0)
				sc->end = i + 1;
		}
	}
}

/* Only white space and comments after the value? (yajl lets an unterminated
 * string after it through, as input still to come.) */
static bool only_blank(const char *p, const char *end)
{
	while (p < end) {
		if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
			p++;
		} else if (end - p >= 2 && p[0] == '/' && p[1] == '/') {
			while (p < end && *p != '\n')
				p++;
		} else if (end - p >= 2 && p[0] == '/' && p[1] == '*') {
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

/* The first key that an object of v has twice, or NULL. With a `name` (v's
 * own, as jt_field_place() takes it), *dup_name is set to the duplicate
 * member's. */
static const char *duplicate_key(yajl_val v, const char *name, char **dup_name)
{
	const char *d = NULL;
	if (YAJL_IS_OBJECT(v)) {
		for (size_t i = 0; i < v->u.object.len && d == NULL; i++) {
			const char *key = v->u.object.keys[i];
			_cleanup_free_ char *member =
			    name ? xasprintf("%s%s%s", name, *name ? "." : "", key) : NULL;
			for (size_t k = 0; k < i && d == NULL; k++)
				if (strcmp(key, v->u.object.keys[k]) == 0)
					d = key;
			if (d && name)
				*dup_name = TAKE_PTR(member);
			else if (d == NULL)
				d = duplicate_key(v->u.object.values[i], member, dup_name);
		}
	} else if (YAJL_IS_ARRAY(v)) {
		for (size_t i = 0; i < v->u.array.len && d == NULL; i++) {
			_cleanup_free_ char *element = name ? xasprintf("%s[%zu]", name, i) : NULL;
			d = duplicate_key(v->u.array.values[i], element, dup_name);
		}
	}
	return d;
}

/* Where in buf the syntax error yajl reports is: just after the token it
 * refused (yajl_tree_parse() does not tell). Comments allowed, as there. */
static size_t syntax_error_offset(const char *buf, size_t len)
{
	yajl_handle h = yajl_alloc(NULL, NULL, NULL);
	if (h == NULL)
		abort();
	yajl_config(h, yajl_allow_comments, 1);
	size_t at = len;
	if (yajl_parse(h, (const unsigned char *)buf, len) != yajl_status_ok)
		at = yajl_get_bytes_consumed(h);
	yajl_free(h);
	return at;
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

/* *err for a problem at byte `at` of the text: "WHAT:LINE:COLUMN: PROBLEM"
 * for a file, else "WHAT: PROBLEM at offset N". */
static int fail_at(char **err, const char *buf, size_t at, const char *what, bool file,
		   const char *problem)
{
	if (file) {
		_cleanup_free_ char *where = place(buf, at, what);
		*err = xasprintf("%s: %s", where, problem);
	} else {
		*err = xasprintf("%s: %s at offset %zu", what, problem, at);
	}
	return -1;
}

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
	char *names[JT_MAX_DEPTH + 2];
	long index[JT_MAX_DEPTH + 2];
	char *member; /* the name of the member whose value comes next */
	size_t depth;
};

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

char *jt_field_place(const char *buf, size_t len, const char *path, const char *field)
{
	return field_place(buf, len, path, field, 1);
}

static int parse(const char *buf, size_t len, const char *what, bool file, yajl_val *out,
		 char **err)
{
	if (len == 0) {
		*err = xasprintf("%s: empty, expected JSON", what);
		return -1;
	}
	const char *nul = memchr(buf, '\0', len);
	if (nul)
		return fail_at(err, buf, (size_t)(nul - buf), what, file, "contains a NUL byte");
	struct scan sc;
	scan(buf, len, &sc);
	if (sc.nul_at >= 0)
		return fail_at(err, buf, (size_t)sc.nul_at, what, file,
			       "a string contains an escaped NUL (\\u0000)");
	if (sc.ctl_at >= 0) {
		_cleanup_free_ char *p = xasprintf("invalid JSON: control character 0x%02x",
						   (unsigned char)buf[sc.ctl_at]);
		return fail_at(err, buf, (size_t)sc.ctl_at, what, file, p);
	}
	if (sc.depth > JT_MAX_DEPTH) {
		*err = xasprintf("%s: nested deeper than %d levels", what, JT_MAX_DEPTH);
		return -1;
	}
	if (sc.end && !only_blank(buf + sc.end, buf + len))
		return fail_at(err, buf, sc.end, what, file, "invalid JSON: trailing garbage");
	char *copy = xmalloc(len + 1);
	memcpy(copy, buf, len);
	copy[len] = '\0';
	char msg[256] = "";
	yajl_val v = yajl_tree_parse(copy, msg, sizeof(msg));
	free(copy);
	if (v == NULL) {
		/* yajl's message, then lines quoting the input: keep the first. */
		char *nl = strchr(msg, '\n');
		if (nl)
			*nl = '\0';
		size_t n = strlen(msg);
		while (n && (msg[n - 1] == ' ' || msg[n - 1] == '.'))
			msg[--n] = '\0';
		_cleanup_free_ char *p =
		    xasprintf("invalid JSON: %s", msg[0] ? msg : "parse error");
		if (!file) {
			*err = xasprintf("%s: %s", what, p);
			return -1;
		}
		/* Where yajl stopped: the refused token's last byte (inside
		 * it, for a string), or the text's last at its premature end. */
		size_t at = syntax_error_offset(buf, len);
		_cleanup_free_ char *where = place(buf, at ? at - 1 : 0, what);
		*err = xasprintf("%s: %s", where, p);
		return -1;
	}
	_cleanup_free_ char *name = NULL;
	const char *dup = duplicate_key(v, file ? "" : NULL, &name);
	if (dup) {
		/* In a file, the place of the second one. */
		_cleanup_free_ char *where = name ? field_place(buf, len, what, name, 2) : NULL;
		*err = xasprintf("%s: duplicate key \"%s\"", where ? where : what, dup);
		yajl_tree_free(v);
		return -1;
	}
	*out = v;
	return 0;
}

int jt_parse(const char *buf, size_t len, const char *what, yajl_val *out, char **err)
{
	return parse(buf, len, what, false, out, err);
}

int jt_parse_file(const char *buf, size_t len, const char *path, yajl_val *out, char **err)
{
	return parse(buf, len, path, true, out, err);
}

yajl_val jt_get(yajl_val o, const char *key)
{
	if (!YAJL_IS_OBJECT(o))
		return NULL;
	for (size_t i = 0; i < o->u.object.len; i++)
		if (strcmp(o->u.object.keys[i], key) == 0)
			return o->u.object.values[i];
	return NULL;
}

const char *jt_str(yajl_val v)
{
	return YAJL_IS_STRING(v) ? v->u.string : NULL;
}

const char *jt_type_name(yajl_val v)
{
	if (v == NULL)
		return "nothing";
	switch (v->type) {
	case yajl_t_string:
		return "a string";
	case yajl_t_number:
		return "a number";
	case yajl_t_object:
		return "an object";
	case yajl_t_array:
		return "an array";
	case yajl_t_true:
	case yajl_t_false:
		return "a boolean";
	default:
		return "null";
	}
}

void jt_gen_str(yajl_gen g, const char *s)
{
	yajl_gen_string(g, (const unsigned char *)s, strlen(s));
}

void jt_gen_value(yajl_gen g, yajl_val v)
{
	switch (v->type) {
	case yajl_t_string:
		jt_gen_str(g, v->u.string);
		break;
	case yajl_t_number:
		yajl_gen_number(g, v->u.number.r, strlen(v->u.number.r));
		break;
	case yajl_t_object:
		yajl_gen_map_open(g);
		for (size_t i = 0; i < v->u.object.len; i++) {
			jt_gen_str(g, v->u.object.keys[i]);
			jt_gen_value(g, v->u.object.values[i]);
		}
		yajl_gen_map_close(g);
		break;
	case yajl_t_array:
		yajl_gen_array_open(g);
		for (size_t i = 0; i < v->u.array.len; i++)
			jt_gen_value(g, v->u.array.values[i]);
		yajl_gen_array_close(g);
		break;
	case yajl_t_true:
	case yajl_t_false:
		yajl_gen_bool(g, v->type == yajl_t_true);
		break;
	default:
		yajl_gen_null(g);
		break;
	}
}

yajl_gen jt_gen_new(void)
{
	yajl_gen g = yajl_gen_alloc(NULL);
	if (g == NULL)
		abort();
	return g;
}

char *jt_gen_finish(yajl_gen g)
{
	const unsigned char *buf;
	size_t len;
	yajl_gen_get_buf(g, &buf, &len);
	char *s = xmalloc(len + 1);
	memcpy(s, buf, len);
	s[len] = '\0';
	yajl_gen_free(g);
	return s;
}

char *jt_dump(yajl_val v)
{
	yajl_gen g = jt_gen_new();
	jt_gen_value(g, v);
	return jt_gen_finish(g);
}
