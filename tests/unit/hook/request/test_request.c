/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/request/request.c: the container's request, built once
 * from its annotations and the policy. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "request/kube-pod.h"
#include "request/request.h"
#include "hooktest.h"

#define KV(k, v)                                                                                   \
	{                                                                                          \
		(char *)(k), (char *)(v)                                                           \
	}
#define CID "0123456789abcdef"
#define POD "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/* Every part of the request in one place: the attachment, its typed port
 * mappings, the annotation that selected it; no digest but a pod
 * member's. */
static void test_container(void **state)
{
	(void)state;
	struct kv ann[] = {KV(ANN_NETWORKS, "net1"), KV(ANN_PORTS, "127.0.0.1:8080:80/UDP,9999:9"),
			   KV(ANN_MAC, "c2:11:22:33:44:55")};
	struct policy p;
	policy_defaults(&p);
	struct request req;
	char *err = NULL;
	assert_int_equal(request_build(&p, KVLIST(ann), DEFAULTS(NULL, 0), &req, &err), 0);
	assert_int_equal(req.sel.n, 1);
	const struct port_mappings *m = &req.sel.v[0].ports;
	assert_int_equal(m->n, 2);
	assert_string_equal(m->v[0].proto, "udp");
	assert_string_equal(m->v[0].host_ip, "127.0.0.1");
	assert_int_equal(m->v[0].host_port, 8080);
	assert_int_equal(m->v[0].container_port, 80);
	assert_string_equal(m->v[1].proto, "tcp");
	assert_null(m->v[1].host_ip);
	assert_string_equal(req.sel.v[0].mac, "c2:11:22:33:44:55");
	assert_string_equal(req.by, ANN_NETWORKS);
	assert_null(req.digest);
	request_free(&req);
	policy_free(&p);
}

/* The policy refuses what the annotations ask, showing the port mappings
 * in the short form; nothing is left in the request. */
static void test_policy_refuses(void **state)
{
	(void)state;
	struct kv ann[] = {KV(ANN_NETWORKS, "net1"), KV(ANN_PORTS, "[fd00::1]:8080:80")};
	struct policy p;
	policy_defaults(&p);
	p.allowed_fields &= ~(unsigned)POLICY_PORT_MAPPINGS;
	struct request req;
	char *err = NULL;
	assert_int_equal(request_build(&p, KVLIST(ann), DEFAULTS(NULL, 0), &req, &err), -1);
	if (strstr(err, "[fd00::1]:8080:80/tcp") == NULL ||
	    strstr(err, "no \"portMappings\"") == NULL)
		fail_msg("%s", err);
	assert_int_equal(req.sel.n, 0);
	assert_null(req.sel.v);
	free(err);
	policy_free(&p);
}

/* The annotations' sizes are checked before anything is parsed: an
 * oversized MAC is refused for its size, not read. */
static void test_sizes_first(void **state)
{
	(void)state;
	char big[200];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	struct kv ann[] = {KV(ANN_NETWORKS, "net1"), KV(ANN_MAC, big)};
	struct policy p;
	policy_defaults(&p);
	p.max_annotation = 100;
	struct request req;
	char *err = NULL;
	assert_int_equal(request_build(&p, KVLIST(ann), DEFAULTS(NULL, 0), &req, &err), -1);
	if (strstr(err, "maxAnnotationSize") == NULL || strstr(err, "MAC"))
		fail_msg("%s", err);
	free(err);
	policy_free(&p);
}

/* A podman pod's annotated member: the pod's id, the digest of what it
 * asks; poststop finds the pod without parsing, and only for an annotated
 * member. */
static void test_pod_member(void **state)
{
	(void)state;
	struct kv ann[] = {KV(ANN_CONTAINER_MANAGER, "libpod"), KV(ANN_CRIO_TYPE, "container"),
			   KV(ANN_CRIO_SANDBOX_ID, POD), KV(ANN_NETWORKS, "net1")};
	struct policy p;
	policy_defaults(&p);
	struct request req;
	char *err = NULL;
	assert_int_equal(request_build(&p, KVLIST(ann), DEFAULTS(NULL, 0), &req, &err), 0);
	assert_string_equal(req.sel.pod_id, POD);
	_cleanup_free_ char *digest = annotations_request_digest(KVLIST(ann));
	assert_string_equal(req.digest, digest);
	request_free(&req);
	assert_string_equal(request_joined_pod(KVLIST(ann)), POD);
	assert_null(request_joined_pod(KVLIST_N(ann, 3)));
	assert_true(request_asked(KVLIST(ann)));
	assert_false(request_asked(KVLIST_N(ann, 3)));
	policy_free(&p);
}

/* A pod's request in plugin mode: its K8S_POD_* pairs given, interfaces
 * net1, net2, ... */
static void test_pod(void **state)
{
	(void)state;
	struct kv ann[] = {KV(ANN_NPWG_NETWORKS, "a,b")};
	struct kv pod[] = {KV("K8S_POD_NAME", "web")};
	struct policy p;
	policy_defaults(&p);
	struct request req;
	char *err = NULL;
	assert_int_equal(request_build_pod(&p, KVLIST(ann), KVLIST(pod), &req, &err), 0);
	assert_int_equal(req.sel.n, 2);
	assert_string_equal(req.sel.v[1].ifname, "net2");
	assert_string_equal(req.by, ANN_NPWG_NETWORKS);
	assert_string_equal(kvlist_get(&req.sel.pod, "K8S_POD_NAME"), "web");
	request_free(&req);
	policy_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_container),	cmocka_unit_test(test_policy_refuses),
	    cmocka_unit_test(test_sizes_first), cmocka_unit_test(test_pod_member),
	    cmocka_unit_test(test_pod),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
