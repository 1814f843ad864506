/* SPDX-License-Identifier: Apache-2.0 */
/* The OCI hook's stages: attach at createRuntime/prestart, detach at poststop. */
#ifndef CNIHOOK_CMD_STAGE_H
#define CNIHOOK_CMD_STAGE_H

#include "conf/hookconf.h"
#include "host/rootless-netns.h"

enum stage {
	STAGE_NONE, /* infer from the state's status */
	STAGE_ATTACH,
	STAGE_DETACH,
};

/* Run a stage on the OCI state read from fd; returns the exit status. In a
 * user namespace other than the host's (rootless podman), rl is the user
 * whose directories cfg names (rootless_configure()), or NULL and
 * rl_why says why the user has none. */
int stage_run(const struct hook_config *cfg, struct rootless_user *rl, const char *rl_why,
	      enum stage stage, const char *stage_name, int fd);

#endif
