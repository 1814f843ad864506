/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A table of text as `cnihook status` and `cnihook list` print it: columns
 * as wide as their widest cell, two spaces between them, the last one not
 * padded, an empty cell shown as "-".
 */
#ifndef CNIHOOK_BASE_TABLE_H
#define CNIHOOK_BASE_TABLE_H

#include <stddef.h>
#include <stdio.h>

/* Cells point to strings that outlive the table, or that it keeps
 * (table_keep()). Start with {.cols = N}. */
struct table {
	size_t cols;
	const char **cells; /* rows * cols */
	size_t n, cap;
	char **kept;
	size_t n_kept, cap_kept;
};

/* Keep s (freed with the table) and return it. */
const char *table_keep(struct table *t, char *s);
/* A row of t->cols cells (const char *); NULL or empty shows as "-". */
void table_row(struct table *t, ...);
/* Print the table to out, and free it. */
void table_print(struct table *t, FILE *out);
void table_free(struct table *t);

#endif
