/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CNIHOOK_CMD_CLI_H
#define CNIHOOK_CMD_CLI_H

#include <cnirt.h>

/* The operator verbs of the reference CLI, argv[0] the verb. config:
 * --config FILE, or NULL (then $CNIHOOK_CONFIG, else the default file):
 * its sandbox applies to the plugins, and its confDir, binDirs, cacheDir
 * and pluginTimeout where NETCONFPATH, CNI_PATH, CNI_CACHE_DIR and
 * CNIHOOK_PLUGIN_TIMEOUT are not set. Each returns the exit status (2 for
 * a wrong command line). */
/* add, check, del NETWORK NETNS */
int cli_attachment(int argc, char **argv, const char *config);
/* validate [NETWORK]: every network of the configuration directory, or one. */
int cli_validate(int argc, char **argv, const char *config);
/* version: cnihook's version and the CNI spec versions, on stdout. */
int cli_version(int argc, char **argv);
/* Log one line naming the operation, network, plugin, CNI code and message. */
void cli_report(const char *op, const char *network, const cnirt_error *e);

#endif
