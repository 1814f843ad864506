/* SPDX-License-Identifier: Apache-2.0 */
/* What /proc says of a process (proc-stat.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "base/proc-stat.h"
#include "common.h"

/* The start time of process `pid` (field 22 of /proc/<pid>/stat, in clock
 * ticks since boot, as runc and crun record it), or -1 when there is no
 * such process. */
int proc_stat_start_time(long pid, unsigned long long *start)
{
	return proc_stat_start_time_in("/proc", pid, start);
}

int proc_stat_start_time_in(const char *proc, long pid, unsigned long long *start)
{
	_cleanup_free_ char *path = xasprintf("%s/%ld/stat", proc, pid);
	_cleanup_free_ char *buf = NULL;
	_cleanup_free_ char *err = NULL;
	size_t len = 0;
	if (read_file(path, 4096, &buf, &len, NULL, &err) < 0)
		return -1;
	/* After the command's ")": the state is field 3, the start time 22. */
	const char *p = strrchr(buf, ')');
	if (p == NULL ||
	    sscanf(p + 1,
		   " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d "
		   "%*d %*d %llu",
		   start) != 1)
		return -1;
	return 0;
}
