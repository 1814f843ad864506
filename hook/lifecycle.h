/* SPDX-License-Identifier: Apache-2.0 */
/* The hook's stages: attach at createRuntime/prestart, detach at poststop. */
#ifndef CNIHOOK_LIFECYCLE_H
#define CNIHOOK_LIFECYCLE_H

#include "hookconf.h"

enum stage {
	STAGE_NONE, /* infer from the state's status */
	STAGE_ATTACH,
	STAGE_DETACH,
};

/* createRuntime, prestart -> attach; poststop -> detach. -1 otherwise. */
int stage_parse(const char *s, enum stage *out);
/* Run a stage on the OCI state read from fd; returns the exit status. */
int lifecycle_run(const struct hook_config *cfg, enum stage stage, const char *stage_name, int fd);
/* cnihook status ID: print the container's network status. */
int lifecycle_status(const struct hook_config *cfg, const char *id);

#endif
