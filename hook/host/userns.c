/* SPDX-License-Identifier: Apache-2.0 */
/* The user namespace cnihook runs in (userns.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "host/userns.h"

/* The first line of /proc/self/uid_map: inside, outside, count. */
static bool first_mapping(unsigned long *in, unsigned long *out, unsigned long *count)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_free_ char *err = NULL;
	size_t len;
	if (read_file("/proc/self/uid_map", 65536, &buf, &len, NULL, &err) < 0)
		return false;
	return sscanf(buf, "%lu %lu %lu", in, out, count) == 3;
}

bool userns_is_host(void)
{
	unsigned long in, out, count;
	if (!first_mapping(&in, &out, &count))
		return true;
	return in == 0 && out == 0 && count == 4294967295UL;
}

char *userns_describe(void)
{
	unsigned long in, out, count;
	if (userns_is_host() || !first_mapping(&in, &out, &count))
		return xstrdup("the host's user namespace");
	if (in == 0)
		return xasprintf("a user namespace (its uid 0 is host uid %lu)", out);
	return xasprintf("a user namespace (its uid %lu is host uid %lu)", in, out);
}

char *userns_not_host_root(void)
{
	if (geteuid() != 0)
		return xasprintf("it runs as uid %u", (unsigned)geteuid());
	if (userns_is_host())
		return NULL;
	_cleanup_free_ char *where = userns_describe();
	return xasprintf("it runs as uid 0 of %s, as in podman unshare or rootless podman", where);
}
