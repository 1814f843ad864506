/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cnihook-runtime: an OCI runtime in front of the real one, for engines
 * that write no hooks into config.json (Docker's --add-runtime and
 * daemon.json "runtimes", containerd's runc BinaryName). It takes runc's
 * command line; for create and run it adds cnihook's hooks, and the
 * annotations of the io.cnihook.* environment entries, to the config.json
 * of a container that asks for a network (request/runtime-spec.h); then it
 * runs the real runtime (cnihook.json "runtime", runc by default) with the
 * command line as given. See cnihook(8), ENGINES.
 */
#ifndef CNIHOOK_CMD_RUNTIME_H
#define CNIHOOK_CMD_RUNTIME_H

#include <stdbool.h>

/* The name cnihook is run by as the runtime (a link to it). */
#define RUNTIME_NAME "cnihook-runtime"

/* Is argv0 (a path) cnihook-runtime? */
bool runtime_called_as(const char *argv0);
/* argv[1..argc): the OCI runtime's command line. Returns only on failure,
 * the exit status, having said why in one line (on stderr and, with
 * --log, in the runtime's log as the engine reads it). */
int runtime_main(int argc, char **argv);

#endif
