/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A strict JSON syntax check (RFC 8259 grammar, one value, white space
 * around it and nothing else) for the fuzz targets: whatever a parser of
 * the project accepts must pass it. It checks syntax only (not UTF-8, not
 * duplicate keys): the parsers may refuse more. `comments` also allows
 * C comments where white space may be (as cnihook.json(5) does).
 */
#ifndef FUZZ_JSONCHECK_H
#define FUZZ_JSONCHECK_H

#include <stdbool.h>
#include <stddef.h>

struct jc {
	const char *p, *end;
	bool comments;
	int depth;
};

static bool jc_value(struct jc *c);

static bool jc_space(struct jc *c)
{
	while (c->p < c->end) {
		char ch = *c->p;
		if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {
			c->p++;
		} else if (c->comments && ch == '/' && c->p + 1 < c->end && c->p[1] == '*') {
			const char *q = c->p + 2;
			while (q + 1 < c->end && !(q[0] == '*' && q[1] == '/'))
				q++;
			if (q + 1 >= c->end)
				return false;
			c->p = q + 2;
		} else if (c->comments && ch == '/' && c->p + 1 < c->end && c->p[1] == '/') {
			while (c->p < c->end && *c->p != '\n')
				c->p++;
		} else {
			break;
		}
	}
	return true;
}

static bool jc_lit(struct jc *c, const char *lit)
{
	for (; *lit; lit++, c->p++)
		if (c->p >= c->end || *c->p != *lit)
			return false;
	return true;
}

static bool jc_hex(char ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
}

static bool jc_string(struct jc *c)
{
	if (c->p >= c->end || *c->p != '"')
		return false;
	c->p++;
	while (c->p < c->end) {
		unsigned char ch = (unsigned char)*c->p++;
		if (ch == '"')
			return true;
		if (ch < 0x20)
			return false;
		if (ch != '\\')
			continue;
		if (c->p >= c->end)
			return false;
		ch = (unsigned char)*c->p++;
		if (ch == 'u') {
			for (int i = 0; i < 4; i++, c->p++)
				if (c->p >= c->end || !jc_hex(*c->p))
					return false;
		} else if (!(ch == '"' || ch == '\\' || ch == '/' || ch == 'b' || ch == 'f' ||
			     ch == 'n' || ch == 'r' || ch == 't')) {
			return false;
		}
	}
	return false;
}

static bool jc_digits(struct jc *c)
{
	const char *start = c->p;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
		c->p++;
	return c->p > start;
}

static bool jc_number(struct jc *c)
{
	if (c->p < c->end && *c->p == '-')
		c->p++;
	if (c->p < c->end && *c->p == '0')
		c->p++;
	else if (!jc_digits(c))
		return false;
	if (c->p < c->end && *c->p == '.') {
		c->p++;
		if (!jc_digits(c))
			return false;
	}
	if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
		c->p++;
		if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
			c->p++;
		if (!jc_digits(c))
			return false;
	}
	return true;
}

static bool jc_container(struct jc *c, char close, bool object)
{
	c->p++;
	if (++c->depth > 10000)
		return false;
	if (!jc_space(c))
		return false;
	if (c->p < c->end && *c->p == close) {
		c->p++;
		c->depth--;
		return true;
	}
	for (;;) {
		if (object) {
			if (!jc_string(c) || !jc_space(c) || c->p >= c->end || *c->p != ':')
				return false;
			c->p++;
			if (!jc_space(c))
				return false;
		}
		if (!jc_value(c) || !jc_space(c) || c->p >= c->end)
			return false;
		if (*c->p == close) {
			c->p++;
			c->depth--;
			return true;
		}
		if (*c->p != ',')
			return false;
		c->p++;
		if (!jc_space(c))
			return false;
	}
}

static bool jc_value(struct jc *c)
{
	if (c->p >= c->end)
		return false;
	switch (*c->p) {
	case '{':
		return jc_container(c, '}', true);
	case '[':
		return jc_container(c, ']', false);
	case '"':
		return jc_string(c);
	case 't':
		return jc_lit(c, "true");
	case 'f':
		return jc_lit(c, "false");
	case 'n':
		return jc_lit(c, "null");
	default:
		return jc_number(c);
	}
}

/* Is buf[0..len) exactly one JSON value, with white space around it? */
static inline bool json_syntax_ok(const char *buf, size_t len, bool comments)
{
	struct jc c = {buf, buf + len, comments, 0};
	return jc_space(&c) && jc_value(&c) && jc_space(&c) && c.p == c.end;
}

#endif
