/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/request/kube-pod.c: the Kubernetes engines' pod annotations. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "hooktest.h"
#include "request/kube-pod.h"

#define KV(k, v)                                                                                   \
	{                                                                                          \
		(char *)(k), (char *)(v)                                                           \
	}

/* The pairs of ann are want ("KEY=VALUE", NULL-terminated). */
static void pairs_are(const struct kvlist *ann, const char *cid, const char *const *want)
{
	struct kvlist v = {0};
	char *err = NULL;
	if (kube_pod_parse(ann, cid, &v, &err) < 0)
		fail_msg("refused: %s", err);
	args_are(&v, want);
	kvlist_free(&v);
}

static void refused(const struct kvlist *ann, const char *want)
{
	struct kvlist v = {(struct kv *)"untouched", 4242};
	char *err = NULL;
	assert_int_equal(kube_pod_parse(ann, "cid", &v, &err), -1);
	assert_string_equal(err, want);
	assert_ptr_equal(v.v, "untouched");
	assert_int_equal(v.n, 4242);
	free(err);
}

static void test_crio(void **state)
{
	(void)state;
	struct kv ann[] = {
	    KV(ANN_CRIO_SANDBOX_ID, "sb"),	KV(ANN_CRIO_POD_NAME, "web"),
	    KV(ANN_CRIO_POD_NAMESPACE, "prod"), KV(ANN_CRIO_POD_UID, "u-1"),
	    KV(ANN_CRI_POD_NAME, "other"),	KV(ANN_CRI_POD_NAMESPACE, "other"),
	};
	const char *want[] = {"K8S_POD_NAME=web", "K8S_POD_NAMESPACE=prod", "K8S_POD_UID=u-1",
			      "K8S_POD_INFRA_CONTAINER_ID=sb", NULL};
	pairs_are(KVLIST(ann), "cid", want);
}

/* Without a sandbox id the sandbox is this container; without an id, no
 * such pair. A name without a namespace is no pod. */
static void test_containerd_edges(void **state)
{
	(void)state;
	struct kv ann[] = {KV(ANN_CRI_POD_NAME, "web"), KV(ANN_CRI_POD_NAMESPACE, "prod")};
	const char *with_id[] = {"K8S_POD_NAME=web", "K8S_POD_NAMESPACE=prod",
				 "K8S_POD_INFRA_CONTAINER_ID=cid", NULL};
	pairs_are(KVLIST(ann), "cid", with_id);
	const char *without[] = {"K8S_POD_NAME=web", "K8S_POD_NAMESPACE=prod", NULL};
	pairs_are(KVLIST(ann), NULL, without);
	const char *none[] = {NULL};
	pairs_are(KVLIST_N(ann, 1), "cid", none);
	pairs_are(KVLIST_N(NULL, 0), "cid", none);
}

static void test_refusals(void **state)
{
	(void)state;
	struct kv empty[] = {KV(ANN_CRI_POD_NAME, "web"), KV(ANN_CRI_POD_NAMESPACE, "")};
	refused(KVLIST(empty), "annotation \"" ANN_CRI_POD_NAMESPACE "\": is empty");
	struct kv semi[] = {KV(ANN_CRI_POD_NAME, "web"), KV(ANN_CRI_POD_NAMESPACE, "p"),
			    KV(ANN_CRI_POD_UID, "a;b")};
	refused(KVLIST(semi), "annotation \"" ANN_CRI_POD_UID
			      "\": value \"a;b\" must not contain ';', '=' or control characters");
}

static void test_container_type(void **state)
{
	(void)state;
	const char *skip = "untouched";
	char *err = NULL;
	struct kv sandbox[] = {KV(ANN_CRIO_TYPE, "sandbox")};
	assert_int_equal(kube_pod_container_type(KVLIST(sandbox), &skip, &err), 0);
	assert_null(skip);
	struct kv container[] = {KV(ANN_CRI_TYPE, "container")};
	assert_int_equal(kube_pod_container_type(KVLIST(container), &skip, &err), 0);
	assert_string_equal(skip, "not a pod sandbox (" ANN_CRI_TYPE "=container)");
	struct kv odd[] = {KV(ANN_CRIO_TYPE, "Sandbox")};
	assert_int_equal(kube_pod_container_type(KVLIST(odd), &skip, &err), -1);
	assert_string_equal(err, "annotation \"" ANN_CRIO_TYPE
				 "\": \"Sandbox\" is neither \"sandbox\" nor \"container\"");
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_crio),
	    cmocka_unit_test(test_containerd_edges),
	    cmocka_unit_test(test_refusals),
	    cmocka_unit_test(test_container_type),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
