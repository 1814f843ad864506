/* SPDX-License-Identifier: Apache-2.0 */
/* What Kubernetes engines write in a pod's annotations (kube-pod.h). */
#include "config.h"

#include <string.h>

#include "request/annotation-value.h"
#include "request/cni-args.h"
#include "request/kube-pod.h"

struct engine {
	const char *name, *ns, *uid, *sandbox;
};

static const struct engine engines[] = {
    {ANN_CRIO_POD_NAME, ANN_CRIO_POD_NAMESPACE, ANN_CRIO_POD_UID, ANN_CRIO_SANDBOX_ID},
    {ANN_CRI_POD_NAME, ANN_CRI_POD_NAMESPACE, ANN_CRI_POD_UID, ANN_CRI_SANDBOX_ID},
};

/* The pairs of engine e, whose name and namespace are set, appended to v. */
static int engine_pairs(const struct kvlist *ann, const struct engine *e, const char *container_id,
			struct kvlist *v, char **err)
{
	const struct {
		const char *key, *pair, *value;
	} pairs[] = {
	    {e->name, "K8S_POD_NAME", kvlist_get(ann, e->name)},
	    {e->ns, "K8S_POD_NAMESPACE", kvlist_get(ann, e->ns)},
	    {e->uid, "K8S_POD_UID", kvlist_get(ann, e->uid)},
	    {e->sandbox, "K8S_POD_INFRA_CONTAINER_ID", kvlist_get(ann, e->sandbox)},
	};
	for (size_t i = 0; i < ARRAY_SIZE(pairs); i++) {
		char *problem = NULL;
		if (pairs[i].value == NULL) {
			/* No sandbox id annotation: the sandbox is this container. */
			if (pairs[i].key == e->sandbox && container_id)
				kvlist_append(v, pairs[i].pair, container_id);
			continue;
		}
		if (*pairs[i].value == '\0')
			return annotation_value_fail(err, pairs[i].key, xstrdup("is empty"));
		if (cni_args_check_value(pairs[i].value, &problem) < 0)
			return annotation_value_fail(err, pairs[i].key, problem);
		kvlist_append(v, pairs[i].pair, pairs[i].value);
	}
	return 0;
}

int kube_pod_parse(const struct kvlist *ann, const char *container_id, struct kvlist *pod,
		   char **err)
{
	struct kvlist v = {0};
	for (size_t e = 0; e < ARRAY_SIZE(engines); e++) {
		if (kvlist_get(ann, engines[e].name) == NULL ||
		    kvlist_get(ann, engines[e].ns) == NULL)
			continue;
		if (engine_pairs(ann, &engines[e], container_id, &v, err) < 0) {
			kvlist_free(&v);
			return -1;
		}
		break;
	}
	*pod = v;
	return 0;
}

int kube_pod_container_type(const struct kvlist *ann, const char **skip, char **err)
{
	static const struct {
		const char *key, *reason;
	} types[] = {
	    {ANN_CRIO_TYPE, "not a pod sandbox (" ANN_CRIO_TYPE "=container)"},
	    {ANN_CRI_TYPE, "not a pod sandbox (" ANN_CRI_TYPE "=container)"},
	};
	*skip = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(types); i++) {
		const char *v = kvlist_get(ann, types[i].key);
		if (v == NULL || strcmp(v, "sandbox") == 0)
			continue;
		if (strcmp(v, "container") == 0) {
			*skip = types[i].reason;
			return 0;
		}
		_cleanup_free_ char *text = error_shown(v);
		return annotation_value_fail(
		    err, types[i].key,
		    xasprintf("\"%s\" is neither \"sandbox\" nor \"container\"", text));
	}
	return 0;
}

static bool is_podman_id(const char *id)
{
	return strlen(id) == 64 && strspn(id, "0123456789abcdef") == 64;
}

const char *kube_pod_member_sandbox(const struct kvlist *ann)
{
	const char *type = kvlist_get(ann, ANN_CRIO_TYPE);
	const char *id = kvlist_get(ann, ANN_CRIO_SANDBOX_ID);
	return type && strcmp(type, "container") == 0 && id && is_podman_id(id) ? id : NULL;
}

int kube_pod_libpod_pod(const struct kvlist *ann, const char **pod_id, char **err)
{
	*pod_id = NULL;
	const char *manager = kvlist_get(ann, ANN_CONTAINER_MANAGER);
	const char *type = kvlist_get(ann, ANN_CRIO_TYPE);
	if (manager == NULL || strcmp(manager, "libpod") != 0 || type == NULL ||
	    strcmp(type, "container") != 0)
		return 0;
	const char *id = kvlist_get(ann, ANN_CRIO_SANDBOX_ID);
	if (id == NULL)
		return 0;
	if (!is_podman_id(id)) {
		_cleanup_free_ char *text = error_shown(id);
		return annotation_value_fail(
		    err, ANN_CRIO_SANDBOX_ID,
		    xasprintf("\"%s\" is no podman container id (64 hexadecimal digits)", text));
	}
	*pod_id = id;
	return 0;
}
