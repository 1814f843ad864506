/* SPDX-License-Identifier: Apache-2.0 */
/* The limits of the JSON the hook reads (util.h). */
#include "config.h"

#include "base/util.h"

const struct json_limits util_json = {
    .max_depth = UTIL_JSON_DEPTH, .no_nul = true, .utf8_unchecked = true};
