/* SPDX-License-Identifier: Apache-2.0 */
/* Spec versions: parsing, comparison, the set this library implements. */
#include "config.h"

#include <limits.h>
#include <string.h>

#include "internal.h"

static const char *const supported[] = {
    "0.1.0", "0.2.0", "0.3.0", "0.3.1", "0.4.0", "1.0.0", "1.1.0", NULL,
};

CNIRT_EXPORT const char *const *cnirt_supported_versions(void)
{
	return supported;
}

CNIRT_EXPORT const char *cnirt_version(void)
{
	return PACKAGE_VERSION;
}

static int parse_part(const char **p, unsigned *out)
{
	const char *s = *p;
	unsigned long v = 0;
	if (*s < '0' || *s > '9')
		return -1;
	while (*s >= '0' && *s <= '9') {
		v = v * 10 + (unsigned long)(*s - '0');
		if (v > UINT_MAX)
			return -1;
		s++;
	}
	*out = (unsigned)v;
	*p = s;
	return 0;
}

int version_parse(const char *v, unsigned *major, unsigned *minor, unsigned *patch)
{
	if (v == NULL)
		return -1;
	const char *p = v;
	unsigned a, b, c;
	if (parse_part(&p, &a) < 0 || *p++ != '.' || parse_part(&p, &b) < 0 || *p++ != '.' ||
	    parse_part(&p, &c) < 0 || *p != '\0')
		return -1;
	*major = a;
	*minor = b;
	*patch = c;
	return 0;
}

bool version_is_supported(const char *v)
{
	for (size_t i = 0; supported[i]; i++)
		if (v && strcmp(v, supported[i]) == 0)
			return true;
	return false;
}

CNIRT_EXPORT int cnirt_version_compare(const char *a, const char *b)
{
	unsigned x[3], y[3];
	bool va = version_parse(a, &x[0], &x[1], &x[2]) == 0;
	bool vb = version_parse(b, &y[0], &y[1], &y[2]) == 0;
	if (!va || !vb)
		return (int)va - (int)vb;
	for (int i = 0; i < 3; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

bool version_ge(const char *a, const char *b)
{
	return cnirt_version_compare(a, b) >= 0;
}
