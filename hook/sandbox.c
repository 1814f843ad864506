/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The sandbox around the plugins: capability bounding set, inheritable and
 * ambient sets reduced to a configured list, no_new_privs, and a seccomp
 * filter that fails with EPERM the system calls no CNI plugin needs.
 *
 * Everything that allocates or can fail for a reason other than the kernel
 * (capability names, compiling the filter) happens in sandbox_prepare(), in
 * the hook's own process. sandbox_apply() runs between fork() and execve()
 * and makes only system calls.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <sys/capability.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "jsonutil.h"
#include "sandbox.h"
#include "util.h"

/* The largest program the kernel accepts (BPF_MAXINSNS). */
#define FILTER_MAX_INSNS 4096

/*
 * The default capabilities: the smallest set with which Debian's plugins
 * (containernetworking-plugins 1.1.1: bridge, ptp, macvlan, ipvlan,
 * host-local, static, portmap, firewall, tuning, bandwidth, loopback) all
 * ADD, CHECK and DEL, found by removing one capability at a time from a
 * working set (the report of issue 5 has the experiment). host-local's
 * leases, iptables' lock and the sysctls plugins write are root's files
 * with the usual modes: root's ownership is enough for them.
 */
static const char *const default_caps[] = {
    /* setns(CLONE_NEWNET) into the container's namespace: without it
     * bridge, ptp, macvlan, ipvlan, loopback, tuning and bandwidth fail
     * with "error switching to ns ...: operation not permitted". */
    "CAP_SYS_ADMIN",
    /* Every netlink change: links (bridge "could not add", ptp "failed to
     * make veth pair", macvlan "failed to create macvlan"), addresses,
     * routes, qdiscs and ifb devices (bandwidth), nf_tables rules
     * (portmap, firewall; iptables-nft), net.* sysctls (tuning). */
    "CAP_NET_ADMIN",
    /* iptables-legacy (Debian's other iptables alternative) talks to the
     * kernel through a raw socket: without it portmap and firewall fail
     * with "can't initialize iptables table `nat': Permission denied". */
    "CAP_NET_RAW",
    /* tuning keeps what it changes (mac, mtu, promisc, allmulti) in
     * /run/cni/tuning, directories it creates with mode 0600 (no search
     * permission even for root's own files): without it ADD fails with
     * "failed to save file eth0.json: ... permission denied", and so does
     * every container given a MAC through tuning's mac capability. */
    "CAP_DAC_OVERRIDE",
};

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

struct sandbox {
	bool enabled;
	uint64_t keep; /* bit n: keep capability n */
	int last_cap;  /* the kernel's highest capability number */
	bool seccomp;
	struct sock_fprog prog; /* the compiled filter, when seccomp */
	pid_t hook;		/* the hook's pid, for the parent-death check */
	bool entered;		/* the hook's own sets are reduced already */
};

void sandbox_defaults(struct sandbox_config *s)
{
	memset(s, 0, sizeof(*s));
	s->enabled = true;
	for (size_t i = 0; i < ARRAY_SIZE(default_caps); i++)
		strv_append(&s->capabilities, &s->n_capabilities, default_caps[i]);
	s->seccomp = true;
}

void sandbox_config_free(struct sandbox_config *s)
{
	if (s == NULL)
		return;
	strv_free(s->capabilities, s->n_capabilities);
	s->capabilities = NULL;
	s->n_capabilities = 0;
}

static int bad(char **err, const char *path, const char *field, const char *problem)
{
	return set_error(err, "%s: field \"sandbox.%s\": %s", path, field, problem);
}

/* A capability name as libcap knows it, "CAP_NET_ADMIN" (any case). */
static int cap_number(const char *name, cap_value_t *out)
{
	cap_value_t c;
	if (strncasecmp(name, "CAP_", 4) != 0 || cap_from_name(name, &c) < 0 || c < 0 || c > 63)
		return -1;
	*out = c;
	return 0;
}

static int get_caps(yajl_val v, const char *path, char ***out, size_t *n_out, char **err)
{
	if (!YAJL_IS_ARRAY(v))
		return bad(err, path, "capabilities",
			   "must be an array of capability names (\"CAP_NET_ADMIN\")");
	char **caps = NULL;
	size_t n = 0;
	for (size_t i = 0; i < v->u.array.len; i++) {
		_cleanup_free_ char *field = xasprintf("capabilities[%zu]", i);
		const char *s = jt_str(v->u.array.values[i]);
		cap_value_t c;
		int r = 0;
		if (s == NULL)
			r = bad(err, path, field, "must be a string");
		else if (cap_number(s, &c) < 0) {
			_cleanup_free_ char *p =
			    xasprintf("\"%s\" is not a capability name (like \"CAP_NET_ADMIN\", "
				      "see capabilities(7))",
				      s);
			r = bad(err, path, field, p);
		}
		if (r < 0) {
			strv_free(caps, n);
			return -1;
		}
		strv_append(&caps, &n, s);
	}
	*out = caps;
	*n_out = n;
	return 0;
}

int sandbox_parse(yajl_val v, const char *path, struct sandbox_config *out, char **err)
{
	struct sandbox_config c;
	sandbox_defaults(&c);
	if (v == NULL) {
		*out = c;
		return 0;
	}
	if (!YAJL_IS_OBJECT(v)) {
		sandbox_config_free(&c);
		return set_error(err, "%s: field \"sandbox\": must be an object", path);
	}
	for (size_t i = 0; i < v->u.object.len; i++) {
		const char *k = v->u.object.keys[i];
		yajl_val x = v->u.object.values[i];
		int r = 0;
		if (strcmp(k, "enabled") == 0) {
			if (!YAJL_IS_TRUE(x) && !YAJL_IS_FALSE(x))
				r = bad(err, path, k, "must be true or false");
			else
				c.enabled = YAJL_IS_TRUE(x);
		} else if (strcmp(k, "capabilities") == 0) {
			char **caps = NULL;
			size_t n = 0;
			r = get_caps(x, path, &caps, &n, err);
			if (r == 0) {
				strv_free(c.capabilities, c.n_capabilities);
				c.capabilities = caps;
				c.n_capabilities = n;
			}
		} else if (strcmp(k, "seccomp") == 0) {
			const char *s = jt_str(x);
			if (s && strcmp(s, "default") == 0)
				c.seccomp = true;
			else if (s && strcmp(s, "off") == 0)
				c.seccomp = false;
			else
				r = bad(err, path, k, "must be \"default\" or \"off\"");
		} else {
			r = bad(err, path, k, "unknown field");
		}
		if (r < 0) {
			sandbox_config_free(&c);
			return -1;
		}
	}
	*out = c;
	return 0;
}

void sandbox_free(struct sandbox *s)
{
	if (s == NULL)
		return;
	free(s->prog.filter);
	free(s);
}

static int add_rules(scmp_filter_ctx f, char **err)
{
	for (size_t i = 0; i < ARRAY_SIZE(denied_syscalls); i++) {
		int nr = seccomp_syscall_resolve_name(denied_syscalls[i]);
		if (nr == __NR_SCMP_ERROR)
			continue; /* unknown to this libseccomp */
		int r = seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), nr, 0);
		if (r < 0)
			return set_error(err, "seccomp filter: system call %s: %s",
					 denied_syscalls[i], strerror(-r));
	}
	/* personality(persona): the default (PER_LINUX, 0) only. Any other
	 * value fails, flags such as ADDR_NO_RANDOMIZE or READ_IMPLIES_EXEC,
	 * PER_LINUX32, and also the query 0xffffffff, which no plugin makes.
	 * persona is an unsigned int: its low 32 bits are compared. */
	int r = seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(personality), 1,
				 SCMP_A0_32(SCMP_CMP_NE, 0));
	if (r < 0)
		return set_error(err, "seccomp filter: system call personality: %s", strerror(-r));
	return 0;
}

/* Compile the filter and keep its BPF program. libseccomp exports the
 * program only to a file descriptor: a memfd, read back. */
static int compile_filter(struct sock_fprog *prog, char **err)
{
	scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
	if (f == NULL)
		return set_error(err, "seccomp filter: cannot initialise libseccomp");
	int ret = -1, fd = -1, r;
	/* no_new_privs is set by sandbox_apply() itself, before loading. */
	if ((r = seccomp_attr_set(f, SCMP_FLTATR_CTL_NNP, 0)) < 0) {
		set_error(err, "seccomp filter: %s", strerror(-r));
		goto out;
	}
	/* Only the native system call table is filtered (one architecture
	 * compiles in a quarter of the time of three): a system call through
	 * another one (int $0x80 of an x86-64 process) kills the process,
	 * which no plugin does. A kernel without SECCOMP_RET_KILL_PROCESS
	 * kills the thread (libseccomp's default). */
	seccomp_attr_set(f, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (add_rules(f, err) < 0)
		goto out;
	fd = memfd_create("cnihook-seccomp", MFD_CLOEXEC);
	if (fd < 0) {
		set_error(err, "seccomp filter: memfd_create: %s", strerror(errno));
		goto out;
	}
	if ((r = seccomp_export_bpf(f, fd)) < 0) {
		set_error(err, "seccomp filter: export: %s", strerror(-r));
		goto out;
	}
	if (lseek(fd, 0, SEEK_SET) < 0) {
		set_error(err, "seccomp filter: lseek: %s", strerror(errno));
		goto out;
	}
	char *buf = NULL;
	size_t len = 0;
	r = read_all_fd(fd, FILTER_MAX_INSNS * sizeof(struct sock_filter), &buf, &len);
	if (r < 0) {
		set_error(err, "seccomp filter: reading the program back: %s",
			  r == -EFBIG ? "more than 4096 instructions" : strerror(-r));
		goto out;
	}
	if (len == 0 || len % sizeof(struct sock_filter) != 0) {
		free(buf);
		set_error(err,
			  "seccomp filter: the exported program has %zu bytes, not a whole "
			  "number of instructions",
			  len);
		goto out;
	}
	prog->len = (unsigned short)(len / sizeof(struct sock_filter));
	prog->filter = (struct sock_filter *)(void *)buf;
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	seccomp_release(f);
	return ret;
}

int sandbox_prepare(const struct sandbox_config *c, struct sandbox **out, char **err)
{
	struct sandbox *s = xzalloc(sizeof(*s));
	s->hook = getpid();
	s->enabled = c->enabled;
	s->seccomp = c->seccomp;
	if (!c->enabled) {
		*out = s;
		return 0;
	}
	for (size_t i = 0; i < c->n_capabilities; i++) {
		cap_value_t v;
		if (cap_number(c->capabilities[i], &v) < 0) {
			sandbox_free(s);
			return set_error(
			    err,
			    "field \"sandbox.capabilities\": \"%s\" is not a capability "
			    "name",
			    c->capabilities[i]);
		}
		s->keep |= UINT64_C(1) << v;
	}
	/* The kernel's highest capability (/proc/sys/kernel/cap_last_cap),
	 * which may be above or below what libcap was built with. */
	s->last_cap = (int)cap_max_bits() - 1;
	if (s->last_cap > 63)
		s->last_cap = 63;
	if (c->seccomp && compile_filter(&s->prog, err) < 0) {
		sandbox_free(s);
		return -1;
	}
	*out = s;
	return 0;
}

/* In the child: system calls only. */
/* The bounding and inheritable sets reduced to what the sandbox keeps, in
 * the calling process: 0 or an errno value. No allocation. */
static int reduce_sets(const struct sandbox *s)
{
	/* The bounding set first (needs CAP_SETPCAP, which it may drop). */
	for (int c = 0; c <= s->last_cap; c++) {
		if (s->keep & (UINT64_C(1) << c))
			continue;
		int in = prctl(PR_CAPBSET_READ, (unsigned long)c, 0, 0, 0);
		if (in < 0) {
			if (errno == EINVAL)
				break; /* beyond the kernel's last capability */
			return errno;
		}
		if (in == 1 && prctl(PR_CAPBSET_DROP, (unsigned long)c, 0, 0, 0) < 0)
			return errno;
	}

	/* The inheritable set: after execve, a root process's permitted set
	 * is its inheritable set plus the bounding set. capget/capset
	 * directly: libcap's cap_set_proc() allocates. */
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &hdr, d) < 0)
		return errno;
	d[0].inheritable &= (uint32_t)s->keep;
	d[1].inheritable &= (uint32_t)(s->keep >> 32);
	if (syscall(SYS_capset, &hdr, d) < 0)
		return errno;

	/* The ambient set (EINVAL: a kernel without ambient capabilities). */
	return 0;
}

void sandbox_enter(struct sandbox *s)
{
	/* What the hook executes inherits its bounding and inheritable sets;
	 * its own effective capabilities stay. Reduced once here, the plugin's
	 * own step has only a few calls left (without CAP_SETPCAP, as a
	 * non-root user, each plugin's step does it instead). */
	if (s && s->enabled && reduce_sets(s) == 0)
		s->entered = true;
}

int sandbox_apply(void *data)
{
	const struct sandbox *s = data;
	if (s == NULL || !s->enabled)
		return 0;

	/* A plugin must not outlive the hook: a hook killed in the middle of
	 * an ADD leaves a record that poststop or gc tear down, and a plugin
	 * that went on would add after that DEL. (Kept across the execve of a
	 * plugin without set-user-ID bits.) */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		return errno;
	if (getppid() != s->hook)
		return ESRCH; /* the hook died before the line above */

	if (!s->entered) {
		int e = reduce_sets(s);
		if (e)
			return e;
	}

	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return errno;

	/* No privileges from set-user-ID programs or file capabilities, and
	 * what allows an unprivileged process to load the filter. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return errno;

	/* One thread after fork(): no need to synchronise threads. */
	if (s->seccomp && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &s->prog, 0, 0) < 0)
		return errno;
	return 0;
}
