/* SPDX-License-Identifier: Apache-2.0 */
/*
 * seccomp-gen: compiles the plugin sandbox's seccomp filter with libseccomp
 * when cnihook is built, and prints it as C source (hook/seccomp-filter.c)
 * that the hook loads as it is.
 *
 * Compiling the filter at run time cost the hook about 0.18 ms and a
 * shared library on every start (docs/benchmarks.md), for a program that
 * is the same every time: the rules below and the architecture cnihook is
 * built for.
 *
 *   seccomp-gen [ARCH] > hook/seccomp-filter.c
 *
 * ARCH is libseccomp's name of the architecture cnihook runs on (x86_64,
 * aarch64, arm, ppc64le, s390x, riscv64, ...; configure's SECCOMP_ARCH),
 * default the one seccomp-gen runs on. When cross-compiling, seccomp-gen
 * runs on the build machine and ARCH is the host's: the filter then checks
 * ARCH's audit architecture and names ARCH's system call numbers
 * (libseccomp translates every rule by the system call's name).
 */
#include "config.h"

#include <errno.h>
#include <linux/filter.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The system calls no CNI plugin needs, failed with EPERM. */
static const char *const denied_syscalls[] = {
    /* kernel modules and kexec: loading code into the kernel */
    "init_module",
    "finit_module",
    "delete_module",
    "create_module",
    "query_module",
    "get_kernel_syms",
    "kexec_load",
    "kexec_file_load",
    /* the machine as a whole */
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "quotactl",
    "quotactl_fd",
    "sethostname",
    "setdomainname",
    "vhangup",
    /* the clock */
    "settimeofday",
    "stime",
    "clock_settime",
    "clock_settime64",
    "clock_adjtime",
    "clock_adjtime64",
    "adjtimex",
    /* hardware and obsolete interfaces */
    "iopl",
    "ioperm",
    "vm86",
    "vm86old",
    "uselib",
    "nfsservctl",
    "sysfs",
    "_sysctl",
    "lookup_dcookie",
    /* the kernel log, tracing and eBPF */
    "syslog",
    "perf_event_open",
    "bpf",
    "userfaultfd",
    /* other processes */
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kcmp",
    /* the kernel keyrings (not namespaced) */
    "keyctl",
    "add_key",
    "request_key",
    /* file handles: open_by_handle_at bypasses the mount tree */
    "open_by_handle_at",
    "name_to_handle_at",
    /* mounts: plugins are given a namespace path and setns into it */
    "mount",
    "umount",
    "umount2",
    "pivot_root",
    "open_tree",
    "move_mount",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    /* io_uring: a large kernel surface no plugin uses */
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static void die(const char *what, int e)
{
	fprintf(stderr, "seccomp-gen: %s: %s\n", what, strerror(e));
	exit(1);
}

static void add_rules(scmp_filter_ctx f)
{
	for (size_t i = 0; i < ARRAY_SIZE(denied_syscalls); i++) {
		int nr = seccomp_syscall_resolve_name(denied_syscalls[i]);
		if (nr == __NR_SCMP_ERROR)
			continue; /* not a system call of this architecture */
		int r = seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), nr, 0);
		if (r < 0)
			die(denied_syscalls[i], -r);
	}
	/* personality(persona): the default (PER_LINUX, 0) only. Any other
	 * value fails, flags such as ADDR_NO_RANDOMIZE or READ_IMPLIES_EXEC,
	 * PER_LINUX32, and also the query 0xffffffff, which no plugin makes.
	 * persona is an unsigned int: its low 32 bits are compared. */
	int r = seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(personality), 1,
				 SCMP_A0_32(SCMP_CMP_NE, 0));
	if (r < 0)
		die("personality", -r);
}

/* The filter for `arch`, its attributes set and its rules added. */
static scmp_filter_ctx make_filter(uint32_t arch)
{
	scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
	if (f == NULL)
		die("seccomp_init", ENOMEM);
	/* A filter for another architecture than this machine's: that one
	 * only (added first: a filter has at least one). */
	if (arch != seccomp_arch_native()) {
		int e = seccomp_arch_add(f, arch);
		if (e < 0)
			die("adding the architecture", -e);
		if ((e = seccomp_arch_remove(f, SCMP_ARCH_NATIVE)) < 0)
			die("removing the native architecture", -e);
	}
	/* no_new_privs is the hook's business (sandbox_apply()), not part of
	 * the program. */
	int r = seccomp_attr_set(f, SCMP_FLTATR_CTL_NNP, 0);
	if (r < 0)
		die("no_new_privs attribute", -r);
	/* Only ARCH's system call table is filtered: a system call
	 * through another one (int $0x80 of an x86-64 process) kills the
	 * process, which no plugin does. A kernel without
	 * SECCOMP_RET_KILL_PROCESS kills the thread. */
	r = seccomp_attr_set(f, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (r < 0)
		die("bad architecture action", -r);
	/* The rules as a binary tree of system call numbers rather than a
	 * list: when the filter is loaded the kernel runs it once for every
	 * system call number to find those it always allows (its action
	 * cache), and on a list each of them walks past every rule. That
	 * walk cost more than anything else the hook does per command. */
	r = seccomp_attr_set(f, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	if (r < 0)
		die("binary tree optimisation", -r);
	add_rules(f);
	return f;
}

/* The filter's BPF program (*n instructions); libseccomp exports it only
 * to a file descriptor. */
static struct sock_filter *export_program(scmp_filter_ctx f, size_t *n)
{
	int fd = memfd_create("seccomp-gen", MFD_CLOEXEC);
	if (fd < 0)
		die("memfd_create", errno);
	int r = seccomp_export_bpf(f, fd);
	if (r < 0)
		die("export", -r);
	off_t size = lseek(fd, 0, SEEK_END);
	if (size <= 0 || size % (off_t)sizeof(struct sock_filter) != 0 ||
	    size / (off_t)sizeof(struct sock_filter) > BPF_MAXINSNS)
		die("export: not a whole program of at most 4096 instructions", EINVAL);
	struct sock_filter *prog = malloc((size_t)size);
	if (prog == NULL || pread(fd, prog, (size_t)size, 0) != size)
		die("reading the program back", errno ? errno : EIO);
	close(fd);
	*n = (size_t)size / sizeof(struct sock_filter);
	return prog;
}

int main(int argc, char **argv)
{
	uint32_t arch = seccomp_arch_native();
	if (argc > 2) {
		fprintf(stderr, "usage: seccomp-gen [ARCH]\n");
		return 2;
	}
	if (argc == 2 && (arch = seccomp_arch_resolve_name(argv[1])) == 0) {
		fprintf(stderr, "seccomp-gen: \"%s\" is not an architecture libseccomp knows\n",
			argv[1]);
		return 1;
	}
	scmp_filter_ctx f = make_filter(arch);
	size_t n;
	struct sock_filter *prog = export_program(f, &n);
	const struct scmp_version *v = seccomp_version();
	printf("/* Generated by hook/seccomp-gen with libseccomp %u.%u.%u: do not edit.\n"
	       " * The plugin sandbox's seccomp filter (hook/host/seccomp-gen.c has its rules),\n"
	       " * for audit architecture 0x%08x. */\n"
	       "#include \"config.h\"\n\n"
	       "#include <linux/filter.h>\n\n"
	       "#include \"host/sandbox.h\"\n\n"
	       "const struct sock_filter sandbox_filter[] = {\n",
	       v->major, v->minor, v->micro, arch);
	for (size_t i = 0; i < n; i++)
		printf("    {0x%04x, %u, %u, 0x%08x},\n", prog[i].code, prog[i].jt, prog[i].jf,
		       prog[i].k);
	printf("};\n\nconst unsigned short sandbox_filter_len = %zu;\n", n);
	free(prog);
	seccomp_release(f);
	if (fflush(stdout) != 0 || ferror(stdout))
		die("standard output", errno ? errno : EIO);
	return 0;
}
