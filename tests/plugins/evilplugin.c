/* SPDX-License-Identifier: Apache-2.0 */
/*
 * evilplugin: a test plugin that tries system calls the sandbox must refuse
 * (tests/unit/test_sandbox.c). Plain C and libc only.
 *
 *  ADD      calls reboot(2), init_module(2) and finit_module(2), with
 *           arguments that make them fail harmlessly even without any
 *           sandbox (a wrong reboot magic: EINVAL; an empty module: ENOEXEC;
 *           no file: EBADF), then fails with an error result (code 100)
 *           whose message reports what happened:
 *             "reboot:EPERM init_module:EPERM finit_module:EPERM
 *              capeff:0000000000003000 capbnd:0000000000003000 nonewprivs:1
 *              seccomp:2"
 *           (EPERM from the seccomp filter, or from a missing capability;
 *           seccomp: the Seccomp field of /proc/self/status, 2 = filter).
 *  VERSION  prints the versions it supports.
 *  other    prints nothing and succeeds.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define VERSION_RESULT                                                                             \
	"{\"cniVersion\":\"1.0.0\",\"supportedVersions\":[\"0.3.0\",\"0.3.1\",\"0.4.0\","          \
	"\"1.0.0\",\"1.1.0\"]}\n"

static const char *errno_name(int e)
{
	static char other[32];

	switch (e) {
	case 0:
		return "OK";
	case EPERM:
		return "EPERM";
	case EINVAL:
		return "EINVAL";
	case EFAULT:
		return "EFAULT";
	case ENOEXEC:
		return "ENOEXEC";
	case EBADF:
		return "EBADF";
	case ENOSYS:
		return "ENOSYS";
	case EACCES:
		return "EACCES";
	default:
		snprintf(other, sizeof(other), "errno%d", e);
		return other;
	}
}

/* errno of a system call that must fail; 0 if it succeeded. */
static int try(long r)
{
	return r < 0 ? errno : 0;
}

/* The value of "Field:" in /proc/self/status, or "?". */
static void status_field(const char *field, char *out, size_t size)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	size_t n = strlen(field);

	snprintf(out, size, "?");
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, field, n) == 0 && line[n] == ':') {
			char *v = line + n + 1;

			v += strspn(v, " \t");
			v[strcspn(v, "\n")] = '\0';
			snprintf(out, size, "%s", v);
			break;
		}
	}
	fclose(f);
}

int main(void)
{
	const char *cmd = getenv("CNI_COMMAND");
	char capeff[64], capbnd[64], nnp[16], seccomp[16];
	int e_reboot, e_init, e_finit;

	if (cmd == NULL)
		cmd = "";
	if (strcmp(cmd, "VERSION") == 0) {
		fputs(VERSION_RESULT, stdout);
		return 0;
	}
	if (strcmp(cmd, "ADD") != 0)
		return 0;

	/* A wrong magic: the kernel refuses it (EINVAL) after checking
	 * CAP_SYS_BOOT (EPERM), so this can never reboot anything. */
	e_reboot = try(syscall(SYS_reboot, 0, 0, 0, NULL));
	/* An empty image: ENOEXEC after checking CAP_SYS_MODULE. */
	e_init = try(syscall(SYS_init_module, NULL, 0UL, ""));
	/* No file: EBADF after checking CAP_SYS_MODULE. */
	e_finit = try(syscall(SYS_finit_module, -1, "", 0));

	status_field("CapEff", capeff, sizeof(capeff));
	status_field("CapBnd", capbnd, sizeof(capbnd));
	status_field("NoNewPrivs", nnp, sizeof(nnp));
	status_field("Seccomp", seccomp, sizeof(seccomp));

	printf("{\"cniVersion\":\"1.0.0\",\"code\":100,\"msg\":\"reboot:%s init_module:%s "
	       "finit_module:%s capeff:%s capbnd:%s nonewprivs:%s seccomp:%s\"}\n",
	       errno_name(e_reboot), errno_name(e_init), errno_name(e_finit), capeff, capbnd, nnp,
	       seccomp);
	return 1;
}
