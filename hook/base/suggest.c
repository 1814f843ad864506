/* SPDX-License-Identifier: Apache-2.0 */
/* Suggestions for misspelt names (see suggest.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/suggest.h"
#include "base/util.h"

static unsigned char fold(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c;
}

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;
	return m < c ? m : c;
}

size_t suggest_distance(const char *a, const char *b, size_t max)
{
	const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
	size_t n = strlen(a), m = strlen(b);
	/* Each edit changes the length by one at most. */
	if ((n > m ? n - m : m - n) > max)
		return max + 1;
	/* Three rows of the table: i-2, i-1 and i. */
	size_t *prev2 = xreallocarray(NULL, m + 1, sizeof(size_t));
	size_t *prev = xreallocarray(NULL, m + 1, sizeof(size_t));
	size_t *cur = xreallocarray(NULL, m + 1, sizeof(size_t));
	for (size_t j = 0; j <= m; j++)
		prev[j] = j;
	size_t d = n == 0 ? m : 0;
	for (size_t i = 1; i <= n; i++) {
		size_t row_min = cur[0] = i;
		for (size_t j = 1; j <= m; j++) {
			size_t cost = fold(x[i - 1]) != fold(y[j - 1]);
			cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
			if (i > 1 && j > 1 && fold(x[i - 1]) == fold(y[j - 2]) &&
			    fold(x[i - 2]) == fold(y[j - 1]) && prev2[j - 2] + 1 < cur[j])
				cur[j] = prev2[j - 2] + 1;
			if (cur[j] < row_min)
				row_min = cur[j];
		}
		if (row_min > max) {
			d = max + 1;
			break;
		}
		size_t *t = prev2;
		prev2 = prev, prev = cur, cur = t;
		d = prev[m];
	}
	free(prev2);
	free(prev);
	free(cur);
	return d > max ? max + 1 : d;
}

const char *suggest_nearest(const char *word, const char *const *known, size_t n)
{
	size_t len = strlen(word);
	size_t max = len <= 5 ? 1 : len <= 8 ? 2 : 3;
	const char *best = NULL;
	size_t best_d = max + 1;
	for (size_t i = 0; i < n; i++) {
		size_t d = suggest_distance(word, known[i], max);
		if (d < best_d)
			best = known[i], best_d = d;
	}
	return best;
}

char *suggest_unknown(const char *what, const char *word, const char *prefix,
		      const char *const *known, size_t n)
{
	size_t plen = strlen(prefix);
	if (strncasecmp(word, prefix, plen) == 0)
		word += plen;
	const char *near = suggest_nearest(word, known, n);
	size_t size = 64 + strlen(what) + strlen(prefix) + (near ? strlen(near) : 0);
	for (size_t i = 0; i < n; i++)
		size += strlen(prefix) + strlen(known[i]) + 2;
	char *s = xmalloc(size), *p = s;
	p += sprintf(p, "%s", what);
	if (near)
		p += sprintf(p, "; did you mean \"%s%s\"?", prefix, near);
	p += sprintf(p, " (known: ");
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "%s%s%s", i ? ", " : "", prefix, known[i]);
	strcpy(p, ")");
	return s;
}
