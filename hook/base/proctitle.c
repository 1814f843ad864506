/* SPDX-License-Identifier: Apache-2.0 */
/* The title of the hook's long-lived children (proctitle.h). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "base/proctitle.h"

extern char **environ;

/* The arguments' and the environment's strings, one after the other. */
static char *title_start, *title_end;

void proctitle_init(int argc, char **argv)
{
	if (argc < 1 || !argv[0])
		return;
	title_start = argv[0];
	char *end = argv[0] + strlen(argv[0]) + 1;
	for (int i = 1; i < argc; i++)
		if (argv[i] == end)
			end += strlen(argv[i]) + 1;
	for (char **e = environ; e && *e; e++)
		if (*e == end)
			end += strlen(*e) + 1;
	title_end = end;
}

void proctitle_set(const char *fmt, ...)
{
	char title[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(title, sizeof(title), fmt, ap);
	va_end(ap);
	char comm[16];
	snprintf(comm, sizeof(comm), "%.*s", (int)strcspn(title, " "), title);
	prctl(PR_SET_NAME, comm, 0, 0, 0);
	if (!title_start)
		return;
	clearenv();
	size_t room = (size_t)(title_end - title_start);
	memset(title_start, 0, room);
	snprintf(title_start, room, "%s", title);
}
