/* SPDX-License-Identifier: Apache-2.0 */
/* Key-value lists (annotations, CNI_ARGS pairs). */
#ifndef CNIHOOK_BASE_KVLIST_H
#define CNIHOOK_BASE_KVLIST_H

#include <stddef.h>

/* A key and a value (annotations, CNI_ARGS pairs). */
struct kv {
	char *key;
	char *value;
};
/* Key-value pairs in order: v[0..n). Zero-initialised: empty. */
struct kvlist {
	struct kv *v;
	size_t n;
};
/* Append copies of key and value. */
void kvlist_append(struct kvlist *l, const char *key, const char *value);
/* Append copies of the pairs of from. */
void kvlist_append_all(struct kvlist *l, const struct kvlist *from);
/* Free the pairs and leave l empty. */
void kvlist_free(struct kvlist *l);
/* The value of the first pair whose key is key ("" for a NULL value), or
 * NULL; pairs with a NULL key are skipped. */
const char *kvlist_get(const struct kvlist *l, const char *key);

struct cnirt_kv;
/* The pairs as libcnirt takes them (cnirt_kv; the strings stay the
 * list's; free() the array). */
struct cnirt_kv *kvlist_to_cnirt(const struct kvlist *l);

#endif
