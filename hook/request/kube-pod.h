/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What Kubernetes engines write in a pod's containers' annotations (CRI-O in
 * every container's OCI config, containerd's CRI plugin likewise): whether a
 * container is the pod's sandbox, and the pod's name, namespace, uid and
 * sandbox id, which plugins get as CNI_ARGS K8S_POD_* pairs.
 */
#ifndef CNIHOOK_REQUEST_KUBE_POD_H
#define CNIHOOK_REQUEST_KUBE_POD_H

#include "base/util.h"

/* CRI-O. */
#define ANN_CRIO_TYPE	       "io.kubernetes.cri-o.ContainerType"
#define ANN_CRIO_SANDBOX_ID    "io.kubernetes.cri-o.SandboxID"
#define ANN_CRIO_POD_NAME      "io.kubernetes.pod.name"
#define ANN_CRIO_POD_NAMESPACE "io.kubernetes.pod.namespace"
#define ANN_CRIO_POD_UID       "io.kubernetes.pod.uid"
/* containerd's CRI plugin. */
#define ANN_CRI_TYPE	      "io.kubernetes.cri.container-type"
#define ANN_CRI_SANDBOX_ID    "io.kubernetes.cri.sandbox-id"
#define ANN_CRI_POD_NAME      "io.kubernetes.cri.sandbox-name"
#define ANN_CRI_POD_NAMESPACE "io.kubernetes.cri.sandbox-namespace"
#define ANN_CRI_POD_UID	      "io.kubernetes.cri.sandbox-uid"

/* The K8S_POD_NAME, K8S_POD_NAMESPACE, K8S_POD_UID and
 * K8S_POD_INFRA_CONTAINER_ID pairs of the first engine whose pod name and
 * namespace are both set (none: no pairs); without a sandbox id the sandbox
 * is this container (container_id, if given). An empty value, or one
 * CNI_ARGS cannot carry, is refused naming its annotation. */
int kube_pod_parse(const struct kvlist *ann, const char *container_id, struct kvlist *pod,
		   char **err);
/* podman (io.container.manager=libpod) marks its pods' members as CRI-O
 * does, ContainerType "container" with the pod's infra container as
 * SandboxID. */
#define ANN_CONTAINER_MANAGER "io.container.manager"
/* A member of a podman pod: *pod_id is its pod's infra container id (the
 * owner of the namespace the members share), else NULL. A SandboxID that
 * is no podman container id (64 hexadecimal digits) is refused. */
int kube_pod_libpod_pod(const struct kvlist *ann, const char **pod_id, char **err);
/* The SandboxID of a pod's member as podman gives it at poststop (where
 * its state no longer says io.container.manager): 64 hexadecimal digits,
 * else NULL. */
const char *kube_pod_member_sandbox(const struct kvlist *ann);
/* *skip: NULL, or why to leave this container alone: a container of a pod
 * that is not its sandbox (it joins the sandbox's network namespace). A
 * type that is neither "sandbox" nor "container" is refused. */
int kube_pod_container_type(const struct kvlist *ann, const char **skip, char **err);

#endif
