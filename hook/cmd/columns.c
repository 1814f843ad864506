/* SPDX-License-Identifier: Apache-2.0 */
/* The columns `status` and `list` share (columns.h). */
#include "config.h"

#include <string.h>

#include "base/util.h"
#include "cmd/columns.h"

/* Ids in tables are cut to this length, as podman and runc users see them,
 * unless --no-trunc. */
#define SHORT_ID_LEN 12

static char *id_shown(const char *id, bool no_trunc)
{
	return no_trunc ? xstrdup(id) : xstrndup(id, SHORT_ID_LEN);
}

/* Container `id` (a CNI_CONTAINERID) as users name it, from its name
 * (container_key_name(), or NULL): a containerd container as
 * "<namespace>/<id>" (its id cut, not its namespace), others by their id. */
char *columns_container(const char *id, const char *name, bool no_trunc)
{
	const char *slash = name ? strchr(name, '/') : NULL;
	if (slash == NULL)
		return id_shown(id, no_trunc);
	_cleanup_free_ char *short_id = id_shown(slash + 1, no_trunc);
	return xasprintf("%.*s/%s", (int)(slash - name), name, short_id);
}

/* "cache,status", or "-" for nothing. */
char *columns_missing_text(unsigned m)
{
	struct buf b = {0};
	const char *w;
	for (size_t i = 0; (w = unfinished_missing_word(i)) != NULL; i++)
		if (m & (1u << i))
			buf_printf(&b, "%s%s", b.len ? "," : "", w);
	if (b.len == 0)
		buf_appends(&b, "-");
	return buf_steal(&b, NULL);
}

json *columns_missing_json(unsigned m)
{
	json *a = json_new(JSON_ARRAY);
	const char *w;
	for (size_t i = 0; (w = unfinished_missing_word(i)) != NULL; i++)
		if (m & (1u << i))
			json_arr_append(a, json_new_string(w));
	return a;
}

/* gc's verdict as the GC column shows it. */
const char *columns_gc(const struct unfinished *u)
{
	return u->gone ? "would-detach" : "kept:live";
}
