/* SPDX-License-Identifier: Apache-2.0 */
/* cnihook as a chained CNI plugin for Kubernetes pods (cnihook(8), PLUGIN MODE). */
#ifndef CNIHOOK_CMD_CNI_PLUGIN_H
#define CNIHOOK_CMD_CNI_PLUGIN_H

/* Answer CNI command `command` (CNI_COMMAND) with the network configuration
 * read from fd and the CNI_* environment. Returns the exit status. */
int cni_plugin_run(const char *command, int fd);

#endif
