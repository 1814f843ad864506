/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The title `ps` and `pgrep -f` show for the hook's long-lived children
 * (the port forwarders, the rootless watch): they are forks of the hook,
 * without an execve, and would show the hook's command line. The title
 * is written over the memory of the hook's arguments and environment (no
 * privilege needed, unlike prctl(PR_SET_MM)), and the command name (comm)
 * is set to its first word.
 */
#ifndef CNIHOOK_BASE_PROCTITLE_H
#define CNIHOOK_BASE_PROCTITLE_H

#include "base/util.h"

/* Remember where main()'s arguments and environment lie. */
void proctitle_init(int argc, char **argv);
/* In a child that will not read its arguments or environment again: the
 * title (cut to the room there is), the environment emptied. */
void proctitle_set(const char *fmt, ...) PRINTF_LIKE(1, 2);

#endif
