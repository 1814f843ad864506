/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The "real runtime" of tests/bench/docker.sh: it appends to the file
 * $CNIHOOK_BENCH_LOG the command (create, start, delete, ...) and the CPU
 * time its process has used so far, in microseconds, then execs runc with
 * its command line. Run by cnihook-runtime (cnihook.json "runtime"), that
 * time is cnihook-runtime's own: execve keeps the process and its CPU
 * clock. Run by Docker directly, it is what the exec of this program costs
 * alone, the floor to subtract.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *command(int argc, char **argv)
{
	static const char *const known[] = {"create", "start",	"state",    "kill",   "delete",
					    "run",    "exec",	"pause",    "resume", "update",
					    "ps",     "events", "features", NULL};
	for (int i = 1; i < argc; i++)
		for (const char *const *k = known; *k; k++)
			if (strcmp(argv[i], *k) == 0)
				return *k;
	return "other";
}

int main(int argc, char **argv)
{
	struct timespec ts;
	const char *log = getenv("CNIHOOK_BENCH_LOG");
	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0 && log) {
		FILE *f = fopen(log, "ae");
		if (f) {
			fprintf(f, "%s %lld\n", command(argc, argv),
				(long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
			fclose(f);
		}
	}
	const char *runc = getenv("CNIHOOK_BENCH_RUNC");
	argv[0] = (char *)(runc && *runc ? runc : "runc");
	execvp(argv[0], argv);
	perror(argv[0]);
	return 127;
}
