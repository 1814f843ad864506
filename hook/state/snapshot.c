/* SPDX-License-Identifier: Apache-2.0 */
/* The hook's state directory read once (snapshot.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cnirt.h>

#include "base/util.h"
#include "state/layout.h"
#include "state/snapshot.h"

void snapshot_close(struct snapshot *sd)
{
	dir_entries_free(sd->v, sd->n);
	if (sd->fd >= 0)
		close(sd->fd);
	*sd = (struct snapshot){.fd = -1};
}

int snapshot_open(const char *path, struct snapshot *sd, int *errnum)
{
	*sd = (struct snapshot){.fd = -1};
	int fd = TEMP_FAILURE_RETRY(open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	if (fd < 0 && errno == ENOENT) {
		sd->listed = true;
		return 0;
	}
	if (fd < 0) {
		*errnum = errno;
	} else {
		int r = dir_list_sorted(fd, NULL, NULL, &sd->v, &sd->n);
		if (r == 0) {
			sd->fd = fd;
			sd->listed = true;
			return 0;
		}
		close(fd);
		*errnum = -r;
	}
	snapshot_close(sd);
	sd->fd = TEMP_FAILURE_RETRY(open(path, O_PATH | O_DIRECTORY | O_CLOEXEC));
	return -1;
}

const struct dir_entry *snapshot_find(const struct snapshot *sd, const char *name)
{
	struct dir_entry key = {.name = (char *)name};
	return sd->listed && sd->n ? bsearch(&key, sd->v, sd->n, sizeof(*sd->v), dir_entry_cmp)
				   : NULL;
}

bool snapshot_is_dir(const struct snapshot *sd, const char *name)
{
	const struct dir_entry *f = snapshot_find(sd, name);
	if (sd->listed && (f == NULL || (f->type != DT_LNK && f->type != DT_UNKNOWN)))
		return f && f->type == DT_DIR;
	struct stat st;
	return sd->fd >= 0 && fstatat(sd->fd, name, &st, 0) == 0 && S_ISDIR(st.st_mode);
}

bool snapshot_is_container(const struct snapshot *sd, const struct dir_entry *f)
{
	struct stat st;
	bool dir = f->type == DT_DIR ||
		   (f->type == DT_UNKNOWN && sd->fd >= 0 &&
		    fstatat(sd->fd, f->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode));
	return dir && layout_is_container_name(f->name);
}

/* A container named "<namespace>/<id>" (containerd's, as `status` and
 * `list` show it) is "<namespace>-<id>" in the state directory and the
 * cache; any other name is its id. Checked as a container id. */
int snapshot_key(const char *arg, char **out, char **err)
{
	const char *slash = strchr(arg, '/');
	_cleanup_free_ char *key = NULL;
	if (slash == NULL || slash == arg || slash[1] == '\0' || strchr(slash + 1, '/'))
		key = xstrdup(arg);
	else
		key = xasprintf("%.*s-%s", (int)(slash - arg), arg, slash + 1);
	cnirt_error *e = NULL;
	if (cnirt_check_container_id(key, &e) < 0) {
		set_error(err, "%s", cnirt_error_msg(e));
		cnirt_error_free(e);
		return -1;
	}
	*out = TAKE_PTR(key);
	return 0;
}

/* The container that `key` names: itself, or the one container of the
 * state directory whose id starts with it. */
int snapshot_resolve(const struct snapshot *sd, const char *key, const char **out, char **err)
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
		return set_error(err,
				 "container \"%s\" is in %zu containerd namespaces: give "
				 "NAMESPACE/%s",
				 key, in_ns, key);
	if (matches == 0)
		return set_error(
		    err,
		    "container \"%s\": no network status (not attached by cnihook; name "
		    "a container by its id or a prefix of it, podman's by podman inspect "
		    "-f '{{.Id}}' NAME, a containerd one as NAMESPACE/ID)",
		    key);
	return set_error(err, "\"%s\" is the start of %zu container ids: %s; give more of it", key,
			 matches, ids);
}
