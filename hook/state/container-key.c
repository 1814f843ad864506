/* SPDX-License-Identifier: Apache-2.0 */
/* A container's key and the names the operator gives it (container-key.h). */
#include "config.h"

#include <string.h>

#include <cnirt.h>

#include "base/util.h"
#include "state/container-key.h"
#include "state/layout.h"
#include "state/record.h"

/* A container named "<namespace>/<id>" (containerd's, as `status` and
 * `list` show it) is "<namespace>-<id>" in the state directory and the
 * cache; any other name is its id. Checked as a container id. */
int container_key_parse(const char *arg, char **out, char **err)
{
	const char *slash = strchr(arg, '/');
	_cleanup_free_ char *key = NULL;
	if (slash == NULL || slash == arg || slash[1] == '\0' || strchr(slash + 1, '/'))
		key = xstrdup(arg);
	else
		key = xasprintf("%.*s-%s", (int)(slash - arg), arg, slash + 1);
	cnirt_error *e = NULL;
	if (cnirt_check_container_id(key, &e) < 0) {
		error_set(err, "%s", cnirt_error_msg(e));
		cnirt_error_free(e);
		return -1;
	}
	*out = TAKE_PTR(key);
	return 0;
}

/* The container that `key` names: itself, or the one container of the
 * state directory whose id starts with it. */
int container_key_resolve(const struct snapshot *sd, const char *key, const char **out, char **err)
{
	const char *found = NULL;
	size_t matches = 0, len = strlen(key);
	struct buf list = {0};
	for (size_t i = 0; i < sd->n; i++) {
		const char *id = sd->v[i].name;
		if (strncmp(id, key, len) != 0 || !snapshot_is_container(sd, &sd->v[i]))
			continue;
		if (id[len] == '\0') {
			found = id;
			matches = 1;
			break;
		}
		buf_printf(&list, "%s%s", matches ? ", " : "", id);
		if (matches++ == 0)
			found = id;
	}
	_cleanup_free_ char *ids = buf_steal(&list, NULL);
	if (matches == 1) {
		*out = found;
		return 0;
	}
	/* A containerd container's id without its namespace: the one
	 * "<namespace>-<id>" of the state directory. */
	size_t in_ns = 0;
	for (size_t i = 0; matches == 0 && i < sd->n; i++) {
		const char *id = sd->v[i].name;
		size_t n = strlen(id);
		if (n > len + 1 && id[n - len - 1] == '-' && strcmp(id + n - len, key) == 0 &&
		    snapshot_is_container(sd, &sd->v[i]) && in_ns++ == 0)
			found = id;
	}
	if (in_ns == 1) {
		*out = found;
		return 0;
	}
	if (in_ns > 1)
		return error_set(err,
				 "container \"%s\" is in %zu containerd namespaces: give "
				 "NAMESPACE/%s",
				 key, in_ns, key);
	if (matches == 0)
		return error_set(
		    err,
		    "container \"%s\": no network status (not attached by cnihook; name "
		    "a container by its id or a prefix of it, podman's by podman inspect "
		    "-f '{{.Id}}' NAME, a containerd one as NAMESPACE/ID)",
		    key);
	return error_set(err, "\"%s\" is the start of %zu container ids: %s; give more of it", key,
			 matches, ids);
}

char *container_key_name(const struct snapshot *sd, const char *key)
{
	_cleanup_free_ char *link = layout_name_link(NULL, key);
	if (sd->listed && snapshot_find(sd, link) == NULL)
		return NULL;
	return record_name_read(sd->fd, key);
}
