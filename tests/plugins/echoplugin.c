/* SPDX-License-Identifier: Apache-2.0 */
/*
 * echoplugin: the most trivial CNI plugin, for the benchmark (tests/bench/).
 *
 * Plain C and libc only, so that its own cost is as small as a plugin's can
 * be and the benchmark measures the runtime, not the plugin.
 *
 *  ADD      prints the "prevResult" object of its configuration as it is, or,
 *           when there is none, a minimal result (one IPv4 address) in the
 *           configuration's cniVersion.
 *  DEL, CHECK, GC, STATUS
 *           print nothing.
 *  VERSION  prints the versions it supports.
 *
 * The configuration is not parsed into a tree: the top-level object is
 * scanned member by member (aware of strings and escapes) and only the
 * "cniVersion" and "prevResult" values are picked out.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define VERSION_RESULT                                                                             \
	"{\"cniVersion\":\"1.0.0\",\"supportedVersions\":[\"0.3.0\",\"0.3.1\",\"0.4.0\","          \
	"\"1.0.0\",\"1.1.0\"]}\n"

/* A slice of the input. */
struct span {
	const char *p;
	size_t len;
};

static int fail(int code, const char *msg)
{
	printf("{\"cniVersion\":\"1.0.0\",\"code\":%d,\"msg\":\"%s\"}\n", code, msg);
	return 1;
}

static char *read_all(int fd, size_t *lenp)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);

	if (!buf)
		return NULL;
	for (;;) {
		ssize_t n;

		if (len == cap) {
			char *nbuf = realloc(buf, cap * 2);

			if (!nbuf) {
				free(buf);
				return NULL;
			}
			buf = nbuf;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			return NULL;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	*lenp = len;
	return buf;
}

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* p is at the opening quote of a string; returns the position just after the
 * closing quote, or NULL if the string is not terminated. */
static const char *skip_string(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return NULL;
}

/* p is at the first byte of a value; returns the position just after it, or
 * NULL if it is truncated. Objects and arrays are matched by depth, strings
 * (and the brackets inside them) skipped whole; scalars run to the next
 * delimiter. */
static const char *skip_value(const char *p, const char *end)
{
	int depth = 0;

	if (p >= end)
		return NULL;
	if (*p != '{' && *p != '[' && *p != '"') {
		while (p < end && !strchr(",}] \t\r\n", *p))
			p++;
		return p;
	}
	while (p < end) {
		switch (*p) {
		case '"':
			p = skip_string(p, end);
			if (!p)
				return NULL;
			break;
		case '{':
		case '[':
			depth++;
			p++;
			break;
		case '}':
		case ']':
			depth--;
			p++;
			break;
		default:
			p++;
		}
		if (depth == 0)
			return p;
	}
	return NULL;
}

static int key_is(const char *key, size_t len, const char *name)
{
	return len == strlen(name) && memcmp(key, name, len) == 0;
}

/* Scan the top-level object of buf for the "cniVersion" string (its contents,
 * without the quotes) and the "prevResult" object (its whole text). Members
 * that are absent leave the span empty. Returns -1 if buf is not an object. */
static int scan_config(const char *buf, size_t len, struct span *version, struct span *prev)
{
	const char *p = buf, *end = buf + len;

	p = skip_ws(p, end);
	if (p >= end || *p != '{')
		return -1;
	p = skip_ws(p + 1, end);
	if (p < end && *p == '}')
		return 0;
	for (;;) {
		const char *key, *value, *after;
		size_t key_len;

		if (p >= end || *p != '"')
			return -1;
		key = p + 1;
		p = skip_string(p, end);
		if (!p)
			return -1;
		key_len = (size_t)(p - 1 - key);
		p = skip_ws(p, end);
		if (p >= end || *p != ':')
			return -1;
		value = skip_ws(p + 1, end);
		after = skip_value(value, end);
		if (!after || after == value)
			return -1;
		if (key_is(key, key_len, "cniVersion") && *value == '"') {
			version->p = value + 1;
			version->len = (size_t)(after - value - 2);
		} else if (key_is(key, key_len, "prevResult") && *value == '{') {
			prev->p = value;
			prev->len = (size_t)(after - value);
		}
		p = skip_ws(after, end);
		if (p < end && *p == ',') {
			p = skip_ws(p + 1, end);
			continue;
		}
		if (p < end && *p == '}')
			return 0;
		return -1;
	}
}

/* The members, after cniVersion, of the result made up when there is no
 * prevResult: the 1.0.0 shape, with "version" in each IP for 0.3.x and
 * 0.4.0, and the ip4 shape for 0.1.0 and 0.2.0. */
static const char *result_body(struct span version)
{
	if (version.len >= 3 &&
	    (memcmp(version.p, "0.1", 3) == 0 || memcmp(version.p, "0.2", 3) == 0))
		return "\"ip4\":{\"ip\":\"10.123.0.2/24\"}}";
	if (version.len >= 3 &&
	    (memcmp(version.p, "0.3", 3) == 0 || memcmp(version.p, "0.4", 3) == 0))
		return "\"ips\":[{\"version\":\"4\",\"address\":\"10.123.0.2/24\"}]}";
	return "\"ips\":[{\"address\":\"10.123.0.2/24\"}]}";
}

static int cmd_add(void)
{
	struct span version = {"1.0.0", 5}, prev = {NULL, 0};
	size_t len;
	char *buf = read_all(STDIN_FILENO, &len);
	int r;

	if (!buf)
		return fail(5, "cannot read the configuration on stdin");
	if (scan_config(buf, len, &version, &prev) < 0) {
		free(buf);
		return fail(6, "the configuration on stdin is not a JSON object");
	}
	if (prev.p)
		r = printf("%.*s\n", (int)prev.len, prev.p);
	else
		r = printf("{\"cniVersion\":\"%.*s\",%s\n", (int)version.len, version.p,
			   result_body(version));
	free(buf);
	return r < 0 || fflush(stdout) != 0;
}

int main(void)
{
	const char *cmd = getenv("CNI_COMMAND");

	if (!cmd)
		return fail(4, "CNI_COMMAND is not set");
	if (strcmp(cmd, "ADD") == 0)
		return cmd_add();
	if (strcmp(cmd, "VERSION") == 0) {
		fputs(VERSION_RESULT, stdout);
		return fflush(stdout) != 0;
	}
	if (strcmp(cmd, "DEL") == 0 || strcmp(cmd, "CHECK") == 0 || strcmp(cmd, "GC") == 0 ||
	    strcmp(cmd, "STATUS") == 0) {
		/* Drain stdin so that a runtime writing a large config does not
		 * get EPIPE. */
		size_t len;

		free(read_all(STDIN_FILENO, &len));
		return 0;
	}
	return fail(4, "unknown CNI_COMMAND");
}
