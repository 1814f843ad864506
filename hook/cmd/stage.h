/* SPDX-License-Identifier: Apache-2.0 */
/* The OCI hook's stages: attach at createRuntime/prestart, detach at poststop. */
#ifndef CNIHOOK_STAGE_H
#define CNIHOOK_STAGE_H

#include "base/hookconf.h"

enum stage {
	STAGE_NONE, /* infer from the state's status */
	STAGE_ATTACH,
	STAGE_DETACH,
};

/* Run a stage on the OCI state read from fd; returns the exit status. */
int stage_run(const struct hook_config *cfg, enum stage stage, const char *stage_name, int fd);

#endif
