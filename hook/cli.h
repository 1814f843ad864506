/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CNIHOOK_CLI_H
#define CNIHOOK_CLI_H

/* The operator verbs of the reference CLI: add, check, del, validate, version. */
int cli_main(int argc, char **argv);

#endif
