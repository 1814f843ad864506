/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CNIHOOK_CLI_H
#define CNIHOOK_CLI_H

#include <stdio.h>

#include <cnirt.h>

/* The operator verbs of the reference CLI: add, check, del, validate,
 * version. argv[0] is the verb. config: --config FILE, or NULL (then
 * $CNIHOOK_CONFIG, else the default file): its sandbox applies to the
 * plugins. Returns the exit status. */
int cli_main(int argc, char **argv, const char *config);
/* Log one line naming the operation, network, plugin, CNI code and message. */
void cli_report(const char *op, const char *network, const cnirt_error *e);
void cli_usage(FILE *f);

#endif
