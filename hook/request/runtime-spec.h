/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What cnihook-runtime adds to a container's config.json (cnihook(8),
 * ENGINES): for an engine that passes no annotations (Docker before 24),
 * the container's io.cnihook.* environment entries become annotations; for
 * an engine that writes no hooks (Docker, containerd without them in the
 * spec), cnihook's createRuntime and poststop hooks are appended. Only a
 * container that asks for a network is changed: any other's text is left
 * as it is, byte for byte.
 */
#ifndef CNIHOOK_REQUEST_RUNTIME_SPEC_H
#define CNIHOOK_REQUEST_RUNTIME_SPEC_H

#include <stddef.h>

#include "request/annotations.h"

/* The hooks to add: cnihook's binary, and the --config FILE its hooks get
 * (NULL: none, the default cnihook.json). */
struct runtime_spec_hooks {
	const char *path;
	const char *config;
};

/* Edit the config.json text[0..len) (`what` names it in errors) of a
 * container read with d. Returns 1 with *out (its length *out_len) the new
 * text when the container asks for a network; 0 when it asks for none (the
 * text is to be left alone); -1 with *err the one line the hook would log
 * for the same annotations (a malformed io.cnihook.* entry), or what is
 * wrong with the text. */
int runtime_spec_edit(const char *text, size_t len, const char *what,
		      const struct container_defaults *d, const struct runtime_spec_hooks *h,
		      char **out, size_t *out_len, char **err);

#endif
