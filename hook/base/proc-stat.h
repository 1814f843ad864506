/* SPDX-License-Identifier: Apache-2.0 */
/* What /proc says of a process: its start time, which tells a process from
 * a later one of the same pid (state/liveness.c, host/rootless-netns.c). */
#ifndef CNIHOOK_BASE_PROC_STAT_H
#define CNIHOOK_BASE_PROC_STAT_H

/* The start time of process `pid` (field 22 of /proc/<pid>/stat, in clock
 * ticks since boot), or -1 when there is no such process. */
int proc_stat_start_time(long pid, unsigned long long *start);
/* The same read in `proc` (a /proc, or a copy of its files for a test). */
int proc_stat_start_time_in(const char *proc, long pid, unsigned long long *start);

#endif
