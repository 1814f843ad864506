/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The names that become parts of paths: container id, interface name,
 * network name. Checked on every operation, DEL included, so that no input
 * can build a path outside the cache directory.
 */
#include "config.h"

#include <ctype.h>
#include <string.h>

#include "internal.h"

#define NAME_LIMIT 255

/* The value as it may be shown in a message: bytes outside printable ASCII
 * (and quotes, backslashes) as \xNN, cut after 80 bytes. */
static char *shown(const char *s)
{
	s = s ? s : "";
	return text_shown(s, strlen(s), 80, true);
}

/* ^[a-zA-Z0-9][a-zA-Z0-9_.-]*$ */
static const char *identifier_problem(const char *s)
{
	if (s == NULL || *s == '\0')
		return "is empty";
	if (strlen(s) > NAME_LIMIT)
		return "is longer than 255 bytes";
	if (!isascii((unsigned char)s[0]) || !isalnum((unsigned char)s[0]))
		return "must start with a letter or a digit";
	for (const char *p = s; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (!(isascii(c) && isalnum(c)) && c != '_' && c != '.' && c != '-')
			return "may only contain letters, digits, '_', '.' and '-'";
	}
	return NULL;
}

/* An identifier's problem as an error of `code`, naming it as `what`. */
static int check_identifier(const char *s, const char *what, int code, cnirt_error **err)
{
	const char *p = identifier_problem(s);
	if (p == NULL)
		return 0;
	_cleanup_free_ char *v = shown(s);
	return error_set(err, code, "%s \"%s\": %s", what, v, p);
}

CNIRT_EXPORT int cnirt_check_container_id(const char *id, cnirt_error **err)
{
	ERR_OUT_INIT(err);
	return check_identifier(id, "container id", CNIRT_ERR_INVALID_ENV, err);
}

CNIRT_EXPORT int cnirt_check_network_name(const char *name, cnirt_error **err)
{
	ERR_OUT_INIT(err);
	return check_identifier(name, "network name", CNIRT_ERR_INVALID_CONFIG, err);
}

CNIRT_EXPORT int cnirt_check_ifname(const char *ifname, cnirt_error **err)
{
	ERR_OUT_INIT(err);
	const char *p = NULL;
	if (ifname == NULL || *ifname == '\0')
		p = "is empty";
	else if (strlen(ifname) > 15)
		p = "is longer than 15 bytes";
	else if (strcmp(ifname, ".") == 0 || strcmp(ifname, "..") == 0)
		p = "must not be \".\" or \"..\"";
	else
		for (const unsigned char *c = (const unsigned char *)ifname; *c && !p; c++)
			if (*c == '/' || *c == ':' || *c <= ' ' || *c >= 0x7f)
				p = "must be printable ASCII without '/', ':' or white space";
	if (p == NULL)
		return 0;
	_cleanup_free_ char *v = shown(ifname);
	return error_set(err, CNIRT_ERR_INVALID_ENV, "interface name \"%s\": %s", v, p);
}
