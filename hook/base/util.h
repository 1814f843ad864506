/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What every file of the hook reads with: the limits of the JSON it reads
 * (below), its error convention and messages (error.h), key-value lists
 * (kvlist.h), string vectors (strv.h) and sets (strset.h), and common/'s
 * allocation, buffers, reading and writing of files (common.h).
 */
#ifndef CNIHOOK_BASE_UTIL_H
#define CNIHOOK_BASE_UTIL_H

#include "base/error.h"
#include "base/kvlist.h"
#include "base/strset.h"
#include "base/strv.h"
#include "common.h"
#include "json.h"

/* The JSON the hook reads from container authors and engines (OCI state,
 * config.json, annotations, its own records): nesting to UTIL_JSON_DEPTH,
 * no comments, no NUL in strings; UTF-8 is checked where a value is read
 * (annotations.c names the annotation; a path need not be UTF-8).
 * cnihook.json adds comments (hookconf.c). */
#define UTIL_JSON_DEPTH 64
extern const struct json_limits util_json;

/* Files of the state directory are written with file_write_atomic()
 * (common.h) without fsync: the directory is on /run, whose content means
 * nothing after a crash (the pins are gone; gc cleans up from the cache,
 * which libcnirt does sync). */

#endif
