/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bandwidth an attachment asks for (CONVENTIONS.md `bandwidth`
 * capability): an object of ingressRate, ingressBurst, egressRate and
 * egressBurst, non-negative integers, at least one of them.
 */
#ifndef CNIHOOK_REQUEST_BANDWIDTH_H
#define CNIHOOK_REQUEST_BANDWIDTH_H

#include "base/util.h"

/* The object o, checked, into its normalised JSON text (the fields in the
 * order above). */
int bandwidth_from_json(const json *o, char **out, char **err);

#endif
