/* SPDX-License-Identifier: Apache-2.0 */
/* The annotated members of a podman pod (pod-members.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "state/layout.h"
#include "state/pod-members.h"

#define MEMBERS_MAX_SIZE (1u << 20)

int pod_members_read(const char *state_dir, const char *pod, struct pod_members *out, char **err)
{
	*out = (struct pod_members){0};
	_cleanup_free_ char *path = layout_pod_members(state_dir, pod);
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int errnum = 0;
	if (read_file(path, MEMBERS_MAX_SIZE, &buf, &len, &errnum, err) < 0) {
		if (errnum != ENOENT)
			return -1;
		free(TAKE_PTR(*err));
		return 0;
	}
	char *save = NULL;
	for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (strncmp(l, "request ", 8) == 0 && out->request == NULL) {
			out->request = xstrdup(l + 8);
		} else if (strncmp(l, "member ", 7) == 0 && l[7]) {
			pod_members_add(out, l + 7);
		} else {
			pod_members_free(out);
			return error_set(err, "%s: damaged (a line \"%.40s\")", path, l);
		}
	}
	if (out->request == NULL) {
		pod_members_free(out);
		return error_set(err, "%s: damaged (no request line)", path);
	}
	return 1;
}

int pod_members_write(const char *state_dir, const char *pod, const struct pod_members *m,
		      char **err)
{
	_cleanup_free_ char *path = layout_pod_members(state_dir, pod);
	if (m->n == 0) {
		if (unlink(path) < 0 && errno != ENOENT)
			return error_set(err, "%s: %s", path, strerror(errno));
		return 0;
	}
	struct buf b = {0};
	buf_printf(&b, "request %s\n", m->request);
	for (size_t i = 0; i < m->n; i++)
		buf_printf(&b, "member %s\n", m->ids[i]);
	int ret = file_write_atomic(path, b.data, b.len, 0600, false);
	buf_free(&b);
	if (ret < 0)
		return error_set(err, "%s: %s", path, strerror(-ret));
	return 0;
}

void pod_members_free(struct pod_members *m)
{
	free(m->request);
	strv_free(m->ids, m->n);
	*m = (struct pod_members){0};
}

bool pod_members_has(const struct pod_members *m, const char *id)
{
	for (size_t i = 0; i < m->n; i++)
		if (strcmp(m->ids[i], id) == 0)
			return true;
	return false;
}

void pod_members_add(struct pod_members *m, const char *id)
{
	if (!pod_members_has(m, id))
		strv_append(&m->ids, &m->n, id);
}

bool pod_members_remove(struct pod_members *m, const char *id)
{
	for (size_t i = 0; i < m->n; i++)
		if (strcmp(m->ids[i], id) == 0) {
			free(m->ids[i]);
			memmove(&m->ids[i], &m->ids[i + 1], (m->n - i - 1) * sizeof(*m->ids));
			m->n--;
			return true;
		}
	return false;
}
