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

CNIRT_EXPORT int cnirt_check_container_id(const char *id, cnirt_error **err)
{
	const char *p = identifier_problem(id);
	if (p)
		return error_set(err, CNIRT_ERR_INVALID_ENV, "container id \"%s\": %s", id ? id : "",
				 p);
	return 0;
}

CNIRT_EXPORT int cnirt_check_network_name(const char *name, cnirt_error **err)
{
	const char *p = identifier_problem(name);
	if (p)
		return error_set(err, CNIRT_ERR_INVALID_CONFIG, "network name \"%s\": %s",
				 name ? name : "", p);
	return 0;
}

CNIRT_EXPORT int cnirt_check_ifname(const char *ifname, cnirt_error **err)
{
	const char *p = NULL;
	if (ifname == NULL || *ifname == '\0')
		p = "is empty";
	else if (strlen(ifname) > 15)
		p = "is longer than 15 bytes";
	else if (strcmp(ifname, ".") == 0 || strcmp(ifname, "..") == 0)
		p = "must not be \".\" or \"..\"";
	else
		for (const char *c = ifname; *c && !p; c++)
			if (*c == '/' || *c == ':' || isspace((unsigned char)*c))
				p = "must not contain '/', ':' or white space";
	if (p)
		return error_set(err, CNIRT_ERR_INVALID_ENV, "interface name \"%s\": %s",
				 ifname ? ifname : "", p);
	return 0;
}
