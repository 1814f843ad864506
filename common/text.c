/* SPDX-License-Identifier: Apache-2.0 */
/* Foreign text made safe for a message or a log line (common.h). */
#include "config.h"

#include <string.h>

#include "common.h"

char *text_shown(const char *s, size_t len, size_t max, bool quotes)
{
	struct buf b = {0};
	for (size_t n = 0; n < len; n++) {
		unsigned char c = (unsigned char)s[n];
		if (max && n == max) {
			buf_appends(&b, "...");
			break;
		}
		if (c < 0x20 || c >= 0x7f || (quotes && (c == '"' || c == '\\')))
			buf_printf(&b, "\\x%02x", c);
		else
			buf_append(&b, &c, 1);
	}
	return buf_steal(&b, NULL);
}

char *text_one_line(const char *s)
{
	struct buf b = {0};
	for (size_t n = 0; s[n]; n++) {
		unsigned char c = (unsigned char)s[n];
		if (c < 0x20 || c == 0x7f)
			buf_printf(&b, "\\x%02x", c);
		else
			buf_append(&b, &c, 1);
	}
	return buf_steal(&b, NULL);
}

long text_utf8_invalid_at(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
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
			return (long)i;
		}
		if (i + n >= len || s[i + 1] < lo || s[i + 1] > hi)
			return (long)i;
		for (size_t k = 2; k <= n; k++)
			if (s[i + k] < 0x80 || s[i + k] > 0xbf)
				return (long)i;
		i += n + 1;
	}
	return -1;
}
