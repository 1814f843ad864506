/* SPDX-License-Identifier: Apache-2.0 */
/* Standard base64 with padding (RFC 4648), as Go's encoding/json writes []byte. */
#include "config.h"

#include <string.h>

#include "internal.h"

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *base64_encode(const void *data, size_t len)
{
	const unsigned char *p = data;
	char *out = xmalloc((len + 2) / 3 * 4 + 1);
	char *o = out;
	size_t i = 0;
	for (; i + 2 < len; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8 | p[i + 2];
		*o++ = alphabet[v >> 18 & 63];
		*o++ = alphabet[v >> 12 & 63];
		*o++ = alphabet[v >> 6 & 63];
		*o++ = alphabet[v & 63];
	}
	if (i < len) {
		unsigned v = (unsigned)p[i] << 16 | (i + 1 < len ? (unsigned)p[i + 1] << 8 : 0);
		*o++ = alphabet[v >> 18 & 63];
		*o++ = alphabet[v >> 12 & 63];
		*o++ = i + 1 < len ? alphabet[v >> 6 & 63] : '=';
		*o++ = '=';
	}
	*o = '\0';
	return out;
}

/* The value of an alphabet character, -1 for any other byte (a cache
 * listing decodes every entry's configuration: no search per byte). */
static int value_of(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

int base64_decode(const char *s, size_t slen, char **out, size_t *out_len)
{
	if (slen % 4 != 0)
		return -1;
	_cleanup_free_ char *buf = xmalloc(slen / 4 * 3 + 1);
	size_t n = 0;
	for (size_t i = 0; i < slen; i += 4) {
		int v[4];
		int pad = 0;
		for (int k = 0; k < 4; k++) {
			if (s[i + k] == '=' && i + 4 == slen && k >= 2) {
				v[k] = 0;
				pad++;
			} else if (pad || (v[k] = value_of(s[i + k])) < 0) {
				return -1;
			}
		}
		unsigned x = (unsigned)v[0] << 18 | (unsigned)v[1] << 12 | (unsigned)v[2] << 6 |
			     (unsigned)v[3];
		buf[n++] = (char)(x >> 16);
		if (pad < 2)
			buf[n++] = (char)(x >> 8 & 0xff);
		if (pad < 1)
			buf[n++] = (char)(x & 0xff);
	}
	buf[n] = '\0';
	*out = TAKE_PTR(buf);
	*out_len = n;
	return 0;
}
