/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/host/sandbox.c: the `sandbox` object of cnihook.json(5), and the
 * capability sets, no_new_privs and seccomp filter it puts around plugins. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cnirt.h>

#include "base/util.h"
#include "host/sandbox.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define CONF	 "cnihook.json"

/* Capability numbers (linux/capability.h), for the expected masks. */
#define CAP_DAC_OVERRIDE_NR 1
#define CAP_NET_ADMIN_NR    12
#define CAP_NET_RAW_NR	    13
#define CAP_SYS_MODULE_NR   16
#define CAP_SYS_ADMIN_NR    21
#define CAP_SYS_BOOT_NR	    22
#define CAP_SETGID_NR	    6
#define CAP_NET_BIND_NR	    10
#define BIT(n)		    (UINT64_C(1) << (n))
#define DEFAULT_KEEP                                                                               \
	(BIT(CAP_DAC_OVERRIDE_NR) | BIT(CAP_NET_ADMIN_NR) | BIT(CAP_NET_RAW_NR) |                  \
	 BIT(CAP_SYS_ADMIN_NR))
/* dnsname's built-in profile. */
#define DNSNAME_KEEP                                                                               \
	(BIT(CAP_NET_ADMIN_NR) | BIT(CAP_NET_RAW_NR) | BIT(CAP_NET_BIND_NR) | BIT(CAP_SETGID_NR))

/* ------------------------------------------------------------ helpers */

static void load(const char *text, struct sandbox_config *c)
{
	_cleanup_json_ json *v = NULL;
	char *err = NULL;
	if (text && json_parse_with(text, strlen(text), "test", &util_json, &v, &err) < 0)
		fail_msg("bad test JSON: %s", err);
	if (sandbox_parse(v, CONF, c, &err) < 0)
		fail_msg("sandbox_parse failed: %s", err);
}

static void parse_fails(const char *text, const char *msg)
{
	_cleanup_json_ json *v = NULL;
	char *err = NULL;
	if (json_parse_with(text, strlen(text), "test", &util_json, &v, &err) < 0)
		fail_msg("bad test JSON: %s", err);
	struct sandbox_config c, sentinel;
	memset(&c, 0x5a, sizeof(c));
	memcpy(&sentinel, &c, sizeof(c));
	if (sandbox_parse(v, CONF, &c, &err) == 0) {
		sandbox_config_free(&c);
		fail_msg("sandbox %s was accepted, expected: %s", text, msg);
	}
	assert_non_null(err);
	assert_string_equal(err, msg);
	assert_memory_equal(&c, &sentinel, sizeof(c));
	free(err);
}

static struct sandbox *prepare(const char *text)
{
	struct sandbox_config c;
	struct sandbox *sb = NULL;
	char *err = NULL;
	load(text, &c);
	if (sandbox_prepare(&c, &sb, &err) < 0)
		fail_msg("sandbox_prepare failed: %s", err);
	sandbox_config_free(&c);
	return sb;
}

/* A hexadecimal field of /proc/self/status ("CapBnd"), or a decimal one. */
static bool status_field(const char *field, int base, uint64_t *out)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	size_t n = strlen(field);
	bool found = false;
	if (f == NULL)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		if (strncmp(line, field, n) == 0 && line[n] == ':') {
			*out = strtoull(line + n + 1, NULL, base);
			found = true;
		}
	fclose(f);
	return found;
}

/* errno of a system call, 0 when it succeeded. */
static int call_errno(long r)
{
	return r < 0 ? errno : 0;
}

/* What a sandboxed child saw. */
struct seen {
	int status;	  /* the child's exit status; 0: the report is whole */
	int apply;	  /* sandbox_apply's return value */
	int reboot;	  /* errno of reboot with a wrong magic */
	int init_module;  /* errno of init_module(NULL, 0, "") */
	int finit_module; /* errno of finit_module(-1, "", 0) */
	int reboot32;	  /* the i386 reboot: errno, 1000 + signal (-1: not tried) */
	int mount;	  /* errno of making / private in a new mount namespace */
	int unshare_net;  /* errno of unshare(CLONE_NEWNET) */
	int pers_query;	  /* errno of personality(0xffffffff) */
	int pers_linux;	  /* errno of personality(PER_LINUX) */
	int pers_norand;  /* errno of personality(ADDR_NO_RANDOMIZE) */
	uint64_t cap_bnd, cap_inh, cap_amb, cap_eff, no_new_privs, seccomp;
};

#if defined(__x86_64__)
/* In a child that may die of its int $0x80: the default action for the
 * signals cmocka catches, or its handler would go on running the tests in
 * the child (a kernel without IA-32 emulation answers int $0x80 with
 * SIGSEGV). */
static void default_fault_signals(void)
{
	static const int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGSYS, SIGFPE};
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
}

/* reboot through the i386 system call table (int $0x80; number 88), in a
 * child: the errno, or 1000 + the signal that killed the child. */
static int reboot32(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		long r;
		default_fault_signals();
		__asm__ volatile("int $0x80"
				 : "=a"(r)
				 : "a"(88L), "b"(0L), "c"(0L), "d"(0L)
				 : "memory");
		_exit(r < 0 ? (int)-r : 0);
	}
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -2;
	return WIFSIGNALED(st) ? 1000 + WTERMSIG(st) : WEXITSTATUS(st);
}

/* Does the kernel run i386 system calls (IA-32 emulation)? Tried in a
 * child: without it, int $0x80 kills the caller. */
static bool ia32_works(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		long r;
		default_fault_signals();
		__asm__ volatile("int $0x80" : "=a"(r) : "a"(20L) : "memory"); /* getpid */
		_exit(r > 0 ? 0 : 1);
	}
	int st;
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}
#endif

/* The type of the plugin sandboxed_child() stands for. */
static const char *child_plugin = "bridge";

/* In a forked child: apply the sandbox, try things, report. */
static void sandboxed_child(struct sandbox *sb, int out)
{
	struct seen s;
	memset(&s, 0, sizeof(s));
	s.reboot32 = -1;
#if defined(__x86_64__)
	bool ia32 = ia32_works();
#endif
	s.apply = sandbox_apply(sb, child_plugin);
	/* Wrong magic numbers: without the filter, EINVAL (or EPERM when
	 * CAP_SYS_BOOT is missing); it can never reboot anything. */
	s.reboot = call_errno(syscall(SYS_reboot, 0, 0, 0, NULL));
	s.init_module = call_errno(syscall(SYS_init_module, NULL, 0UL, ""));
	s.finit_module = call_errno(syscall(SYS_finit_module, -1, "", 0));
#if defined(__x86_64__)
	if (ia32)
		s.reboot32 = reboot32();
#endif
	s.pers_query = call_errno(personality(0xffffffff));
	s.pers_linux = call_errno(personality(PER_LINUX));
	s.pers_norand = call_errno(personality(PER_LINUX | ADDR_NO_RANDOMIZE));
	personality(PER_LINUX);
	/* A mount in a mount namespace of its own, so that it cannot touch
	 * the host even when it succeeds. */
	if (unshare(CLONE_NEWNS) == 0)
		s.mount = call_errno(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
	else
		s.mount = -errno;
	s.unshare_net = call_errno(unshare(CLONE_NEWNET));
	if (!status_field("CapBnd", 16, &s.cap_bnd) || !status_field("CapInh", 16, &s.cap_inh) ||
	    !status_field("CapAmb", 16, &s.cap_amb) || !status_field("CapEff", 16, &s.cap_eff) ||
	    !status_field("NoNewPrivs", 10, &s.no_new_privs) ||
	    !status_field("Seccomp", 10, &s.seccomp))
		_exit(3);
	if (write(out, &s, sizeof(s)) != (ssize_t)sizeof(s))
		_exit(4);
	_exit(0);
}

static void run_sandboxed(struct sandbox *sb, struct seen *s)
{
	int fds[2];
	assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		sandboxed_child(sb, fds[1]);
	}
	close(fds[1]);
	memset(s, 0, sizeof(*s));
	ssize_t n = read(fds[0], s, sizeof(*s));
	close(fds[0]);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (!WIFEXITED(st))
		fail_msg("the sandboxed child was killed by signal %d", WTERMSIG(st));
	s->status = WEXITSTATUS(st);
	if (s->status != 0 || n != (ssize_t)sizeof(*s))
		fail_msg("the sandboxed child failed (status %d)", s->status);
}

static uint64_t own_bounding_set(void)
{
	uint64_t b = 0;
	assert_true(status_field("CapBnd", 16, &b));
	return b;
}

static void need_root(void)
{
	if (geteuid() != 0) {
		print_message("needs root (capabilities to drop): skipped\n");
		skip();
	}
}

/* ------------------------------------------------------------ parsing */

static void assert_defaults(const struct sandbox_config *c)
{
	assert_true(c->enabled);
	assert_true(c->seccomp);
	assert_int_equal(c->n_capabilities, 4);
	assert_string_equal(c->capabilities[0], "CAP_SYS_ADMIN");
	assert_string_equal(c->capabilities[1], "CAP_NET_ADMIN");
	assert_string_equal(c->capabilities[2], "CAP_NET_RAW");
	assert_string_equal(c->capabilities[3], "CAP_DAC_OVERRIDE");
	assert_int_equal(c->n_profiles, 1);
	assert_string_equal(c->profiles[0].plugin, "dnsname");
	assert_int_equal(c->profiles[0].n_capabilities, 4);
	assert_string_equal(c->profiles[0].capabilities[0], "CAP_NET_ADMIN");
	assert_string_equal(c->profiles[0].capabilities[1], "CAP_NET_RAW");
	assert_string_equal(c->profiles[0].capabilities[2], "CAP_NET_BIND_SERVICE");
	assert_string_equal(c->profiles[0].capabilities[3], "CAP_SETGID");
}

static void test_defaults(void **state)
{
	(void)state;
	struct sandbox_config c;
	sandbox_defaults(&c);
	assert_defaults(&c);
	sandbox_config_free(&c);
	load(NULL, &c);
	assert_defaults(&c);
	sandbox_config_free(&c);
	load("{}", &c);
	assert_defaults(&c);
	sandbox_config_free(&c);
}

static void test_parse(void **state)
{
	(void)state;
	struct sandbox_config c;
	load("{\"enabled\": false, \"capabilities\": [\"cap_net_admin\", \"CAP_SYS_BOOT\"], "
	     "\"seccomp\": \"off\"}",
	     &c);
	assert_false(c.enabled);
	assert_false(c.seccomp);
	assert_int_equal(c.n_capabilities, 2);
	assert_string_equal(c.capabilities[0], "cap_net_admin");
	assert_string_equal(c.capabilities[1], "CAP_SYS_BOOT");
	sandbox_config_free(&c);
	load("{\"enabled\": true, \"capabilities\": [], \"seccomp\": \"default\"}", &c);
	assert_true(c.enabled);
	assert_true(c.seccomp);
	assert_int_equal(c.n_capabilities, 0);
	sandbox_config_free(&c);
}

/* sandbox.plugins replaces the built-in profiles. */
static void test_parse_plugins(void **state)
{
	(void)state;
	struct sandbox_config c;
	load("{\"plugins\": {\"myplugin\": {\"capabilities\": [\"CAP_NET_ADMIN\"]}, "
	     "\"other\": {\"capabilities\": []}}}",
	     &c);
	assert_int_equal(c.n_capabilities, 4);
	assert_int_equal(c.n_profiles, 2);
	assert_string_equal(c.profiles[0].plugin, "myplugin");
	assert_int_equal(c.profiles[0].n_capabilities, 1);
	assert_string_equal(c.profiles[0].capabilities[0], "CAP_NET_ADMIN");
	assert_string_equal(c.profiles[1].plugin, "other");
	assert_int_equal(c.profiles[1].n_capabilities, 0);
	sandbox_config_free(&c);
	load("{\"plugins\": {}}", &c);
	assert_int_equal(c.n_profiles, 0);
	sandbox_config_free(&c);

	parse_fails("{\"plugins\": []}",
		    CONF ": field \"sandbox.plugins\": must be an object: {\"TYPE\": "
			 "{\"capabilities\": [...]}}");
	parse_fails("{\"plugins\": {\"dnsname\": [\"CAP_SETGID\"]}}",
		    CONF ": field \"sandbox.plugins.dnsname\": must be an object: "
			 "{\"capabilities\": [...]}");
	parse_fails("{\"plugins\": {\"dnsname\": {}}}",
		    CONF ": field \"sandbox.plugins.dnsname\": field \"capabilities\" is missing");
	parse_fails("{\"plugins\": {\"a/b\": {\"capabilities\": []}}}",
		    CONF ": field \"sandbox.plugins.a/b\": is not a plugin type (a file name in "
			 "binDirs)");
	parse_fails("{\"plugins\": {\"dnsname\": {\"capabilities\": [\"CAP_SETGIDS\"]}}}",
		    CONF ": field \"sandbox.plugins.dnsname.capabilities[0]\": \"CAP_SETGIDS\" is "
			 "not a capability name (like \"CAP_NET_ADMIN\", see capabilities(7))");
	parse_fails("{\"plugins\": {\"dnsname\": {\"caps\": []}}}",
		    CONF ": field \"sandbox.plugins.dnsname.caps\": unknown field (known: "
			 "sandbox.plugins.dnsname.capabilities)");
}

static void test_parse_errors(void **state)
{
	(void)state;
	parse_fails("[]", CONF ": field \"sandbox\": must be an object");
	parse_fails("{\"capability\": []}",
		    CONF ": field \"sandbox.capability\": unknown field; did you mean "
			 "\"sandbox.capabilities\"? (known: sandbox.enabled, sandbox.capabilities, "
			 "sandbox.seccomp, sandbox.plugins)");
	parse_fails("{\"enabled\": \"yes\"}",
		    CONF ": field \"sandbox.enabled\": must be true or false");
	parse_fails("{\"capabilities\": \"CAP_NET_ADMIN\"}",
		    CONF ": field \"sandbox.capabilities\": must be an array of capability names "
			 "(\"CAP_NET_ADMIN\")");
	parse_fails("{\"capabilities\": [\"CAP_NET_ADMIN\", 12]}",
		    CONF ": field \"sandbox.capabilities[1]\": must be a string");
	parse_fails("{\"capabilities\": [\"CAP_NET_ADMIN\", \"CAP_NET_ADMINS\"]}",
		    CONF ": field \"sandbox.capabilities[1]\": \"CAP_NET_ADMINS\" is not a "
			 "capability name (like \"CAP_NET_ADMIN\", see capabilities(7))");
	/* The CAP_ prefix is part of the name; numbers are not names. */
	parse_fails("{\"capabilities\": [\"NET_ADMIN\"]}",
		    CONF ": field \"sandbox.capabilities[0]\": \"NET_ADMIN\" is not a capability "
			 "name (like \"CAP_NET_ADMIN\", see capabilities(7))");
	parse_fails("{\"capabilities\": [\"12\"]}",
		    CONF ": field \"sandbox.capabilities[0]\": \"12\" is not a capability name "
			 "(like \"CAP_NET_ADMIN\", see capabilities(7))");
	parse_fails("{\"seccomp\": \"on\"}",
		    CONF ": field \"sandbox.seccomp\": must be \"default\" or \"off\"");
	parse_fails("{\"seccomp\": false}",
		    CONF ": field \"sandbox.seccomp\": must be \"default\" or \"off\"");
}

static void test_prepare(void **state)
{
	(void)state;
	struct sandbox *sb = prepare(NULL);
	assert_non_null(sb);
	sandbox_free(sb);
	sb = prepare("{\"seccomp\": \"off\", \"capabilities\": []}");
	assert_non_null(sb);
	sandbox_free(sb);
	sandbox_free(NULL);

	/* A configuration built by hand is checked too. */
	char *caps[] = {(char *)"CAP_NOPE"};
	struct sandbox_config c = {.enabled = true, .capabilities = caps, .n_capabilities = 1};
	char *err = NULL;
	sb = NULL;
	assert_int_equal(sandbox_prepare(&c, &sb, &err), -1);
	assert_null(sb);
	assert_string_equal(
	    err, "field \"sandbox.capabilities\": \"CAP_NOPE\" is not a capability name");
	free(err);
}

/* ------------------------------------------------------------ in a child */

/* What a process in the default sandbox sees, from the report of a child. */
static void assert_default_sandbox(const struct seen *s, uint64_t bnd)
{
	assert_int_equal(s->apply, 0);
	assert_int_equal(s->reboot, EPERM);
	assert_int_equal(s->init_module, EPERM);
	assert_int_equal(s->finit_module, EPERM);
	/* Only the kept capabilities remain anywhere. */
	assert_int_equal(s->cap_bnd, DEFAULT_KEEP & bnd);
	assert_int_equal(s->cap_inh & ~DEFAULT_KEEP, 0);
	assert_int_equal(s->cap_amb, 0);
	assert_int_equal(s->no_new_privs, 1);
	assert_int_equal(s->seccomp, 2); /* SECCOMP_MODE_FILTER */
	/* What plugins need stays allowed: namespaces (setns/unshare). */
	assert_int_equal(s->unshare_net, 0);
	/* Mounts are refused by the filter (CAP_SYS_ADMIN is kept). */
	assert_int_equal(s->mount, EPERM);
	/* personality: the default only. */
	assert_int_equal(s->pers_linux, 0);
	assert_int_equal(s->pers_norand, EPERM);
	assert_int_equal(s->pers_query, EPERM);
}

static void test_apply_defaults(void **state)
{
	(void)state;
	need_root();
	uint64_t bnd = own_bounding_set();
	struct sandbox *sb = prepare(NULL);
	struct seen s;
	run_sandboxed(sb, &s);
	sandbox_free(sb);
	assert_default_sandbox(&s, bnd);
}

/* A plugin of a type with a profile gets the profile's capabilities, and
 * the others the default ones, though the hook kept both (sandbox_enter). */
static void test_apply_profile(void **state)
{
	(void)state;
	need_root();
	uint64_t bnd = own_bounding_set();
	struct seen s;
	for (int entered = 0; entered < 2; entered++) {
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			struct sandbox *sb = prepare(NULL);
			if (entered)
				sandbox_enter(sb);
			child_plugin = "dnsname";
			run_sandboxed(sb, &s);
			if (s.cap_bnd != (DNSNAME_KEEP & bnd) || (s.cap_inh & ~DNSNAME_KEEP) ||
			    s.seccomp != 2 || s.no_new_privs != 1)
				_exit(20);
			child_plugin = "bridge";
			run_sandboxed(sb, &s);
			if (s.cap_bnd != (DEFAULT_KEEP & bnd))
				_exit(21);
			child_plugin = NULL;
			run_sandboxed(sb, &s);
			if (s.cap_bnd != (DEFAULT_KEEP & bnd))
				_exit(22);
			_exit(0);
		}
		int st;
		assert_int_equal(waitpid(pid, &st, 0), pid);
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), 0);
	}
}

/* sandbox_confine(): a process (standing for the CLI) takes the sandbox on
 * itself, and what it starts (a grandchild here, as a plugin would be)
 * inherits every part of it; the grandchild's own step applies nothing
 * more. */
static void test_confine(void **state)
{
	(void)state;
	need_root();
	uint64_t bnd = own_bounding_set();
	int fds[2];
	assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		/* Prepared here: this process is "the hook". */
		struct sandbox *sb = prepare(NULL);
		char *err = NULL;
		if (sandbox_confine(sb, &err) != 0)
			_exit(10);
		/* The confined process itself is in the sandbox too. */
		if (syscall(SYS_reboot, 0, 0, 0, NULL) != -1 || errno != EPERM)
			_exit(11);
		/* The hook kept dnsname's capabilities for it; this plugin
		 * drops them. */
		if (!(own_bounding_set() & BIT(CAP_SETGID_NR)) && (bnd & BIT(CAP_SETGID_NR)))
			_exit(14);
		pid_t g = fork();
		if (g < 0)
			_exit(12);
		if (g == 0)
			sandboxed_child(sb, fds[1]);
		int st;
		if (waitpid(g, &st, 0) != g || !WIFEXITED(st))
			_exit(13);
		_exit(WEXITSTATUS(st));
	}
	close(fds[1]);
	struct seen s;
	memset(&s, 0, sizeof(s));
	ssize_t n = read(fds[0], &s, sizeof(s));
	close(fds[0]);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) != 0 || n != (ssize_t)sizeof(s))
		fail_msg("the confined child failed (status %d)", WEXITSTATUS(st));
	assert_default_sandbox(&s, bnd);
}

/* A disabled sandbox confines nothing: the calling process's no_new_privs
 * and seccomp mode are what they were (0 on a plain host). */
static void test_confine_disabled(void **state)
{
	(void)state;
	uint64_t nnp0, seccomp0, nnp, seccomp;
	assert_true(status_field("NoNewPrivs", 10, &nnp0));
	assert_true(status_field("Seccomp", 10, &seccomp0));
	struct sandbox *sb = prepare("{\"enabled\": false}");
	char *err = NULL;
	assert_int_equal(sandbox_confine(sb, &err), 0);
	assert_int_equal(sandbox_confine(NULL, &err), 0);
	assert_null(err);
	assert_true(status_field("NoNewPrivs", 10, &nnp));
	assert_true(status_field("Seccomp", 10, &seccomp));
	assert_int_equal(nnp, nnp0);
	assert_int_equal(seccomp, seccomp0);
	sandbox_free(sb);
}

/* Root, with CAP_SYS_BOOT in the bounding set (else the test is skipped):
 * returns that bounding set. */
static uint64_t need_cap_sys_boot(void)
{
	need_root();
	uint64_t bnd = own_bounding_set();
	if (!(bnd & BIT(CAP_SYS_BOOT_NR))) {
		print_message("CAP_SYS_BOOT is not in this process's bounding set: skipped\n");
		skip();
	}
	return bnd;
}

/* CAP_SYS_BOOT and CAP_SYS_MODULE kept: EPERM can only be the filter's. */
static void test_filter_alone(void **state)
{
	(void)state;
	uint64_t bnd = need_cap_sys_boot();
	struct sandbox *sb = prepare(
	    "{\"capabilities\": [\"CAP_SYS_ADMIN\", \"CAP_SYS_BOOT\", \"CAP_SYS_MODULE\"]}");
	struct seen s;
	run_sandboxed(sb, &s);
	sandbox_free(sb);
	assert_int_equal(s.apply, 0);
	assert_int_equal(s.cap_bnd,
			 (BIT(CAP_SYS_ADMIN_NR) | BIT(CAP_SYS_BOOT_NR) | BIT(CAP_SYS_MODULE_NR)) &
			     bnd);
	assert_int_equal(s.reboot, EPERM);
	assert_int_equal(s.init_module, EPERM);
	assert_int_equal(s.finit_module, EPERM);
#if defined(__x86_64__)
	/* Through the i386 table: the process is killed (SIGSYS), as for any
	 * system call of another architecture (-1: no IA-32 emulation). */
	assert_true(s.reboot32 == 1000 + SIGSYS || s.reboot32 == -1);
#endif
	assert_int_equal(s.mount, EPERM);
	assert_int_equal(s.pers_norand, EPERM);
}

/* The same with seccomp "off": the kernel's own answers. */
static void test_seccomp_off(void **state)
{
	(void)state;
	uint64_t bnd = need_cap_sys_boot();
	struct sandbox *sb = prepare("{\"seccomp\": \"off\", \"capabilities\": [\"CAP_SYS_ADMIN\", "
				     "\"CAP_SYS_BOOT\", \"CAP_SYS_MODULE\"]}");
	struct seen s;
	run_sandboxed(sb, &s);
	sandbox_free(sb);
	assert_int_equal(s.apply, 0);
	/* The wrong magic, refused by the kernel: the filter was the EPERM. */
	assert_int_equal(s.reboot, EINVAL);
#if defined(__x86_64__)
	assert_true(s.reboot32 == EINVAL || s.reboot32 == -1);
#endif
	assert_int_equal(s.seccomp, 0);
	assert_int_equal(s.no_new_privs, 1);
	assert_int_equal(s.mount, 0);
	assert_int_equal(s.pers_norand, 0);
	assert_int_equal(s.cap_bnd,
			 (BIT(CAP_SYS_ADMIN_NR) | BIT(CAP_SYS_BOOT_NR) | BIT(CAP_SYS_MODULE_NR)) &
			     bnd);
}

/* No capability at all: the bounding and inheritable sets are empty (the
 * plugin gets no capability when it is executed: test_evilplugin), though
 * the child itself keeps its effective set until execve. */
static void test_no_caps(void **state)
{
	(void)state;
	need_root();
	struct sandbox *sb = prepare("{\"seccomp\": \"off\", \"capabilities\": []}");
	struct seen s;
	run_sandboxed(sb, &s);
	sandbox_free(sb);
	assert_int_equal(s.apply, 0);
	assert_int_equal(s.cap_bnd, 0);
	assert_int_equal(s.cap_inh, 0);
	assert_int_equal(s.cap_amb, 0);
	assert_int_equal(s.no_new_privs, 1);
	assert_int_equal(s.seccomp, 0);
}

static void test_disabled(void **state)
{
	(void)state;
	uint64_t bnd = own_bounding_set();
	struct sandbox *sb = prepare("{\"enabled\": false}");
	struct seen s;
	run_sandboxed(sb, &s);
	sandbox_free(sb);
	assert_int_equal(s.apply, 0);
	assert_int_equal(s.cap_bnd, bnd);
	assert_int_equal(s.no_new_privs, 0);
	assert_int_equal(s.seccomp, 0);
}

/* ------------------------------------------------------------ a plugin */

/* The evil test plugin's path: $EVILPLUGIN, or the build tree's. */
static char *evilplugin(void)
{
	const char *p = getenv("EVILPLUGIN");
	const char *top = getenv("abs_top_builddir");
	char *path = p ? xstrdup(p) : top ? xasprintf("%s/tests/plugins/evilplugin", top) : NULL;
	if (path == NULL || access(path, X_OK) < 0) {
		print_message("evilplugin not found (set EVILPLUGIN): skipped\n");
		free(path);
		skip();
	}
	return path;
}

/* ADD of a network of the evil plugin, run by libcnirt with the sandbox as
 * its preexec function; the plugin's error message. */
static char *run_evil(const char *sandbox_json)
{
	char *path = evilplugin();
	char *slash = strrchr(path, '/');
	*slash = '\0';
	char cache[] = "/tmp/test_sandbox.XXXXXX";
	assert_non_null(mkdtemp(cache));
	struct sandbox *sb = prepare(sandbox_json);
	cnirt_ctx *ctx = cnirt_ctx_new();
	const char *dirs[] = {path};
	cnirt_ctx_set_bin_dirs(ctx, dirs, 1);
	cnirt_ctx_set_cache_dir(ctx, cache);
	cnirt_ctx_set_plugin_preexec(ctx, sandbox_apply, sb);
	static const char conf[] = "{\"cniVersion\": \"1.0.0\", \"name\": \"evil\", \"plugins\": "
				   "[{\"type\": \"evilplugin\"}]}";
	cnirt_netlist *l = NULL;
	cnirt_error *e = NULL;
	assert_int_equal(cnirt_netlist_parse(conf, strlen(conf), "test", &l, &e), 0);
	cnirt_attachment a = {
	    .container_id = "evil", .netns = "/proc/self/ns/net", .ifname = "eth0"};
	char *result = NULL;
	int r = cnirt_add(ctx, l, &a, &result, &e);
	if (r == 0)
		fail_msg("the evil plugin's ADD succeeded: %s", result);
	char *msg = NULL;
	if (cnirt_error_code(e) != 100 || !cnirt_error_from_plugin(e))
		fail_msg("not the evil plugin's error (code %d): %s", cnirt_error_code(e),
			 cnirt_error_msg(e));
	msg = xstrdup(cnirt_error_msg(e));
	cnirt_error_free(e);
	cnirt_netlist_free(l);
	cnirt_ctx_free(ctx);
	sandbox_free(sb);
	char *rm = xasprintf("rm -rf -- '%s'", cache);
	assert_int_equal(system(rm), 0);
	free(rm);
	free(path);
	return msg;
}

static void test_evilplugin(void **state)
{
	(void)state;
	need_root();
	uint64_t bnd = own_bounding_set();
	/* The defaults. A root process's capabilities after execve are its
	 * bounding set (its inheritable set being reduced too). */
	char *msg = run_evil(NULL);
	char *want = xasprintf("reboot:EPERM init_module:EPERM finit_module:EPERM capeff:%016llx "
			       "capbnd:%016llx nonewprivs:1 seccomp:2",
			       (unsigned long long)(DEFAULT_KEEP & bnd),
			       (unsigned long long)(DEFAULT_KEEP & bnd));
	assert_string_equal(msg, want);
	free(msg);
	free(want);

	if (!(bnd & BIT(CAP_SYS_BOOT_NR)))
		return;
	/* The capabilities kept: still EPERM, from the filter. */
	uint64_t keep = (BIT(CAP_SYS_BOOT_NR) | BIT(CAP_SYS_MODULE_NR)) & bnd;
	msg = run_evil("{\"capabilities\": [\"CAP_SYS_BOOT\", \"CAP_SYS_MODULE\"]}");
	want = xasprintf("reboot:EPERM init_module:EPERM finit_module:EPERM capeff:%016llx "
			 "capbnd:%016llx nonewprivs:1 seccomp:2",
			 (unsigned long long)keep, (unsigned long long)keep);
	assert_string_equal(msg, want);
	free(msg);
	free(want);

	/* And without the filter, the kernel's EINVAL for the wrong magic. */
	msg = run_evil("{\"seccomp\": \"off\", \"capabilities\": [\"CAP_SYS_BOOT\"]}");
	want = xasprintf("reboot:EINVAL init_module:EPERM finit_module:EPERM capeff:%016llx "
			 "capbnd:%016llx nonewprivs:1 seccomp:0",
			 (unsigned long long)BIT(CAP_SYS_BOOT_NR),
			 (unsigned long long)BIT(CAP_SYS_BOOT_NR));
	/* init_module without CAP_SYS_MODULE: EPERM from the kernel, or
	 * ENOSYS from a kernel without modules. */
	if (strstr(msg, "init_module:ENOSYS")) {
		free(want);
		want = xasprintf("reboot:EINVAL init_module:ENOSYS finit_module:ENOSYS "
				 "capeff:%016llx capbnd:%016llx nonewprivs:1 seccomp:0",
				 (unsigned long long)BIT(CAP_SYS_BOOT_NR),
				 (unsigned long long)BIT(CAP_SYS_BOOT_NR));
	}
	assert_string_equal(msg, want);
	free(msg);
	free(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults),	   cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_parse_plugins),  cmocka_unit_test(test_parse_errors),
	    cmocka_unit_test(test_prepare),	   cmocka_unit_test(test_apply_profile),
	    cmocka_unit_test(test_apply_defaults), cmocka_unit_test(test_filter_alone),
	    cmocka_unit_test(test_seccomp_off),	   cmocka_unit_test(test_no_caps),
	    cmocka_unit_test(test_disabled),	   cmocka_unit_test(test_evilplugin),
	    cmocka_unit_test(test_confine),	   cmocka_unit_test(test_confine_disabled),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
