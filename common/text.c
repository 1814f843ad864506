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
