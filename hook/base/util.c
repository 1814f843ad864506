/* SPDX-License-Identifier: Apache-2.0 */
/* The limits of the JSON the hook reads (util.h). */
#include "config.h"

#include "base/util.h"

const struct json_limits hook_json = {
    .max_depth = HOOK_JSON_DEPTH, .no_nul = true, .utf8_unchecked = true};
