/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The annotated members of a podman pod (<stateDir>/<pod>/pod-members, as
 * layout.h names it): the pod's networks are attached once, under the id
 * of its infra container, when its first annotated member starts, and
 * detached when its last one stops. The file holds the digest of what the
 * members ask (annotations_request_digest()), which every member that
 * joins must ask too, and the members' ids:
 *
 *   request <hex digest>
 *   member <id>
 *   ...
 *
 * Written whole by rename, under the pod's lock.
 */
#ifndef CNIHOOK_STATE_POD_MEMBERS_H
#define CNIHOOK_STATE_POD_MEMBERS_H

#include <stdbool.h>
#include <stddef.h>

struct pod_members {
	char *request;
	char **ids;
	size_t n;
};

/* 1 and *out when the pod has the file, 0 (out empty) when it has none,
 * -1 and *err when it cannot be read or is damaged. */
int pod_members_read(const char *state_dir, const char *pod, struct pod_members *out, char **err);
/* Write the file (none left: remove it). */
int pod_members_write(const char *state_dir, const char *pod, const struct pod_members *m,
		      char **err);
void pod_members_free(struct pod_members *m);
bool pod_members_has(const struct pod_members *m, const char *id);
void pod_members_add(struct pod_members *m, const char *id);
/* Remove `id`; false when it was no member. */
bool pod_members_remove(struct pod_members *m, const char *id);

#endif
