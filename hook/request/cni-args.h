/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CNI_ARGS pairs that annotations ask for (io.cnihook.args, the Kubernetes
 * pod keys): what the reference library's LoadArgs and the plugins can read
 * back. Plugins split CNI_ARGS at every ';' and '='.
 */
#ifndef CNIHOOK_REQUEST_CNI_ARGS_H
#define CNIHOOK_REQUEST_CNI_ARGS_H

#include "base/util.h"

/* A CNI_ARGS value: no ';', '=' or control characters. */
int cni_args_check_value(const char *v, char **problem);
/* `KEY=VALUE;KEY=VALUE...` (io.cnihook.args): keys of letters, digits,
 * '_', '-' and '.', each once, none that cnihook sets itself (IgnoreUnknown,
 * IP, MAC, K8S_POD_*, any case), into new pairs in order. */
int cni_args_parse(const char *value, struct kvlist *args, char **problem);

#endif
