/* SPDX-License-Identifier: Apache-2.0 */
/* The container's request, built once (request.h). */
#include "config.h"

#include "request/kube-pod.h"
#include "request/request.h"

/* The selection sel, parsed from ann, checked against the policy and
 * completed; on failure freed. */
static int request_finish(const struct policy *p, const struct kvlist *ann, struct selection *sel,
			  struct request *out, char **err)
{
	if (sel->n > 0 && !sel->skip_reason && policy_check_selection_ann(p, sel, ann, err) < 0) {
		annotations_selection_free(sel);
		return -1;
	}
	*out = (struct request){
	    .sel = *sel,
	    .by = annotations_selected_by(ann),
	    .digest = sel->pod_id ? annotations_request_digest(ann) : NULL,
	};
	return 0;
}

int request_build(const struct policy *p, const struct kvlist *ann,
		  const struct container_defaults *d, struct request *out, char **err)
{
	struct selection sel = {0};
	*out = (struct request){0};
	if (policy_check_annotations(p, ann, err) < 0 || annotations_parse(ann, d, &sel, err) < 0) {
		annotations_selection_free(&sel);
		return -1;
	}
	return request_finish(p, ann, &sel, out, err);
}

int request_build_pod(const struct policy *p, const struct kvlist *ann, const struct kvlist *pod,
		      struct request *out, char **err)
{
	struct selection sel = {0};
	*out = (struct request){0};
	if (policy_check_annotations(p, ann, err) < 0 ||
	    annotations_parse_pod(ann, pod, &sel, err) < 0) {
		annotations_selection_free(&sel);
		return -1;
	}
	return request_finish(p, ann, &sel, out, err);
}

bool request_asked(const struct kvlist *ann)
{
	return annotations_select(ann);
}

const char *request_joined_pod(const struct kvlist *ann)
{
	const char *pod = kube_pod_member_sandbox(ann);
	return pod && annotations_select(ann) ? pod : NULL;
}

void request_free(struct request *r)
{
	if (r == NULL)
		return;
	annotations_selection_free(&r->sel);
	free(r->digest);
	*r = (struct request){0};
}
