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
/* Detach container `id` as poststop does (record, else cache), for gc:
 * without waiting for its lock. 0 done, 1 busy (its lock is held), -1
 * failed (logged). */
int lifecycle_detach(const struct hook_config *cfg, const char *id, const char *stage);

#endif
