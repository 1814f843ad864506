/* SPDX-License-Identifier: Apache-2.0 */
/* A table of text, as status and list print it (table.h). */
#include "config.h"

#include <stdarg.h>
#include <string.h>

#include "base/table.h"
#include "base/util.h"

const char *table_keep(struct table *t, char *s)
{
	if (t->n_kept == t->cap_kept) {
		t->cap_kept = t->cap_kept ? 2 * t->cap_kept : 64;
		t->kept = xreallocarray(t->kept, t->cap_kept, sizeof(*t->kept));
	}
	t->kept[t->n_kept++] = s;
	return s;
}

void table_row(struct table *t, ...)
{
	va_list ap;
	va_start(ap, t);
	if (t->n + t->cols > t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64 * t->cols;
		t->cells = xreallocarray(t->cells, t->cap, sizeof(*t->cells));
	}
	for (size_t i = 0; i < t->cols; i++) {
		const char *c = va_arg(ap, const char *);
		t->cells[t->n++] = c && *c ? c : "-";
	}
	va_end(ap);
}

void table_free(struct table *t)
{
	for (size_t i = 0; i < t->n_kept; i++)
		free(t->kept[i]);
	free(t->kept);
	free(t->cells);
	*t = (struct table){.cols = t->cols};
}

static void pad(FILE *out, size_t n)
{
	static const char spaces[] = "                                ";
	for (size_t k; n > 0; n -= k) {
		k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;
		fwrite(spaces, 1, k, out);
	}
}

void table_print(struct table *t, FILE *out)
{
	_cleanup_free_ size_t *w = xcalloc(t->cols, sizeof(*w));
	for (size_t i = 0; i < t->n; i++) {
		size_t len = strlen(t->cells[i]);
		if (len > w[i % t->cols])
			w[i % t->cols] = len;
	}
	for (size_t i = 0; i < t->n; i++) {
		size_t col = i % t->cols;
		fputs(t->cells[i], out);
		if (col + 1 == t->cols) {
			putc('\n', out);
			continue;
		}
		pad(out, w[col] + 2 - strlen(t->cells[i]));
	}
	table_free(t);
}
