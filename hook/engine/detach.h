/* SPDX-License-Identifier: Apache-2.0 */
/* What attach.c asks of detach.c: an old attachment taken down before a
 * new one, a failed attach rolled back. */
#ifndef CNIHOOK_ENGINE_DETACH_H
#define CNIHOOK_ENGINE_DETACH_H

#include <stdbool.h>

#include "engine/run.h"

/* Detach r->id, whose lock the caller holds. */
int detach_run_locked(struct engine_run *r);
/* Detach what the record names, in reverse order. 0 when all went. */
int detach_record(struct engine_run *r, const struct record *rec);
/* Remove what the state directory holds for the container (and its pin
 * `pin`, when given). */
void detach_remove_state(const struct engine_run *r, const char *pin);
/* Is the record another container's (the same id in another engine scope
 * that the state does not show, such as another runc --root)? Only when
 * both bundles are known and differ. */
bool detach_other_bundle(const struct engine_run *r, const struct record *rec);

#endif
