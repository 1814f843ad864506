/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The sandbox around the plugins: capability bounding set, inheritable and
 * ambient sets reduced to a configured list, no_new_privs, and a seccomp
 * filter that fails with EPERM the system calls no CNI plugin needs. The
 * filter is compiled by libseccomp when cnihook is built (seccomp-gen.c has
 * its rules) and linked in as hook/seccomp-filter.c.
 *
 * Everything that allocates or can fail for a reason other than the kernel
 * (capability names) happens in sandbox_prepare(), in the hook's own
 * process. sandbox_apply() runs in the plugin's child process before its
 * execve() (libcnirt's preexec function; the child shares the hook's
 * memory, see lib/exec.c) and makes only system calls (prctl, capset and
 * seccomp; libcap only names the capabilities); what the hook has already
 * applied to itself (sandbox_enter(), sandbox_confine()) it inherits and
 * skips, so that a plugin's own step is a few system calls.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/suggest.h"
#include "base/util.h"
#include "host/sandbox.h"

/*
 * The default capabilities: the smallest set with which Debian's plugins
 * (containernetworking-plugins 1.1.1: bridge, ptp, macvlan, ipvlan,
 * host-local, static, portmap, firewall, tuning, bandwidth, loopback) all
 * ADD, CHECK and DEL, found by removing one capability at a time from a
 * working set (docs/architecture.md, "The default capabilities"). host-local's
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

/*
 * Plugins that need capabilities beyond the default ones, by type
 * (sandbox.plugins of cnihook.json(5)): a plugin of such a type gets its
 * profile's set instead of the default one, and no other plugin gets more.
 */
static const char *const dnsname_caps[] = {
    /* dnsname inserts an iptables rule (udp 53 from the bridge) through
     * the iptables program: CAP_NET_ADMIN, and CAP_NET_RAW for
     * iptables-legacy, as for portmap. */
    "CAP_NET_ADMIN",
    "CAP_NET_RAW",
    /* The dnsmasq it starts binds port 53 on the bridge's address:
     * "failed to create listening socket for ...: Permission denied". */
    "CAP_NET_BIND_SERVICE",
    /* and then changes its group to "dip" (Debian's dnsmasq): "failed to
     * change group-id to dip: Operation not permitted". */
    "CAP_SETGID",
};

static const struct {
	const char *plugin;
	const char *const *caps;
	size_t n;
} default_profiles[] = {
    {"dnsname", dnsname_caps, ARRAY_SIZE(dnsname_caps)},
};

struct sandbox_mask {
	char *plugin;
	uint64_t keep;
};

struct sandbox {
	bool enabled;
	/* bit n: keep capability n (a plugin without a profile) */
	uint64_t keep;
	/* keep, and every profile's: the hook's bounding set */
	uint64_t all;
	/* what keep and every profile's share: the hook's inheritable set */
	uint64_t common;
	struct sandbox_mask *profiles;
	size_t n_profiles;
	int last_cap; /* the kernel's highest capability number */
	bool seccomp;
	struct sock_fprog prog; /* the compiled filter, when seccomp */
	pid_t hook;		/* the hook's pid, for the parent-death check */
	bool entered;		/* the hook's own sets are reduced already */
	bool confined;		/* the hook runs under no_new_privs and the filter */
};

void sandbox_defaults(struct sandbox_config *s)
{
	memset(s, 0, sizeof(*s));
	s->enabled = true;
	for (size_t i = 0; i < ARRAY_SIZE(default_caps); i++)
		strv_append(&s->capabilities, &s->n_capabilities, default_caps[i]);
	s->seccomp = true;
	s->n_profiles = ARRAY_SIZE(default_profiles);
	s->profiles = xcalloc(s->n_profiles, sizeof(*s->profiles));
	for (size_t i = 0; i < s->n_profiles; i++) {
		struct sandbox_profile *p = &s->profiles[i];
		p->plugin = xstrdup(default_profiles[i].plugin);
		for (size_t k = 0; k < default_profiles[i].n; k++)
			strv_append(&p->capabilities, &p->n_capabilities,
				    default_profiles[i].caps[k]);
	}
}

static void profiles_free(struct sandbox_profile *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(p[i].plugin);
		strv_free(p[i].capabilities, p[i].n_capabilities);
	}
	free(p);
}

void sandbox_config_free(struct sandbox_config *s)
{
	if (s == NULL)
		return;
	strv_free(s->capabilities, s->n_capabilities);
	s->capabilities = NULL;
	s->n_capabilities = 0;
	profiles_free(s->profiles, s->n_profiles);
	s->profiles = NULL;
	s->n_profiles = 0;
}

static int bad(char **err, const char *path, const char *field, const char *problem)
{
	return error_set(err, "%s: field \"sandbox.%s\": %s", path, field, problem);
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

/* The array of capability names at field `name` ("capabilities",
 * "plugins.dnsname.capabilities"). */
static int get_caps(json *v, const char *path, const char *name, char ***out, size_t *n_out,
		    char **err)
{
	if (!json_is_array(v))
		return bad(err, path, name,
			   "must be an array of capability names (\"CAP_NET_ADMIN\")");
	char **caps = NULL;
	size_t n = 0;
	for (size_t i = 0; i < v->u.array.n; i++) {
		_cleanup_free_ char *field = xasprintf("%s[%zu]", name, i);
		const char *s = json_str(v->u.array.v[i]);
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

/* One profile of sandbox.plugins: {"capabilities": [...]}. */
static int get_profile(const char *plugin, json *v, const char *path, struct sandbox_profile *out,
		       char **err)
{
	_cleanup_free_ char *where = xasprintf("plugins.%s", plugin);
	if (*plugin == '\0' || strchr(plugin, '/'))
		return bad(err, path, where, "is not a plugin type (a file name in binDirs)");
	if (!json_is_object(v))
		return bad(err, path, where, "must be an object: {\"capabilities\": [...]}");
	struct sandbox_profile p = {0};
	bool have_caps = false;
	for (size_t i = 0; i < v->u.object.n; i++) {
		const char *k = v->u.object.k[i];
		_cleanup_free_ char *field = xasprintf("%s.%s", where, k);
		int r;
		if (strcmp(k, "capabilities") == 0) {
			strv_free(p.capabilities, p.n_capabilities);
			p.capabilities = NULL;
			p.n_capabilities = 0;
			r = get_caps(v->u.object.v[i], path, field, &p.capabilities,
				     &p.n_capabilities, err);
			have_caps = true;
		} else {
			static const char *const fields[] = {"capabilities"};
			_cleanup_free_ char *prefix = xasprintf("sandbox.%s.", where);
			_cleanup_free_ char *problem =
			    suggest_unknown("unknown field", k, prefix, fields, ARRAY_SIZE(fields));
			r = bad(err, path, field, problem);
		}
		if (r < 0) {
			strv_free(p.capabilities, p.n_capabilities);
			return -1;
		}
	}
	if (!have_caps)
		return bad(err, path, where, "field \"capabilities\" is missing");
	p.plugin = xstrdup(plugin);
	*out = p;
	return 0;
}

/* sandbox.plugins: an object of plugin types. */
static int get_profiles(json *v, const char *path, struct sandbox_profile **out, size_t *n_out,
			char **err)
{
	if (!json_is_object(v))
		return bad(err, path, "plugins",
			   "must be an object: {\"TYPE\": {\"capabilities\": [...]}}");
	size_t n = v->u.object.n;
	struct sandbox_profile *p = xcalloc(n ? n : 1, sizeof(*p));
	for (size_t i = 0; i < n; i++)
		if (get_profile(v->u.object.k[i], v->u.object.v[i], path, &p[i], err) < 0) {
			profiles_free(p, i);
			return -1;
		}
	*out = p;
	*n_out = n;
	return 0;
}

int sandbox_parse(const json *v, const char *path, struct sandbox_config *out, char **err)
{
	struct sandbox_config c;
	sandbox_defaults(&c);
	if (v == NULL) {
		*out = c;
		return 0;
	}
	if (!json_is_object(v)) {
		sandbox_config_free(&c);
		return error_set(err, "%s: field \"sandbox\": must be an object", path);
	}
	for (size_t i = 0; i < v->u.object.n; i++) {
		const char *k = v->u.object.k[i];
		json *x = v->u.object.v[i];
		int r = 0;
		if (strcmp(k, "enabled") == 0) {
			if (!json_is_true(x) && !json_is_false(x))
				r = bad(err, path, k, "must be true or false");
			else
				c.enabled = json_is_true(x);
		} else if (strcmp(k, "capabilities") == 0) {
			char **caps = NULL;
			size_t n = 0;
			r = get_caps(x, path, k, &caps, &n, err);
			if (r == 0) {
				strv_free(c.capabilities, c.n_capabilities);
				c.capabilities = caps;
				c.n_capabilities = n;
			}
		} else if (strcmp(k, "plugins") == 0) {
			struct sandbox_profile *p = NULL;
			size_t n = 0;
			r = get_profiles(x, path, &p, &n, err);
			if (r == 0) {
				profiles_free(c.profiles, c.n_profiles);
				c.profiles = p;
				c.n_profiles = n;
			}
		} else if (strcmp(k, "seccomp") == 0) {
			const char *s = json_str(x);
			if (s && strcmp(s, "default") == 0)
				c.seccomp = true;
			else if (s && strcmp(s, "off") == 0)
				c.seccomp = false;
			else
				r = bad(err, path, k, "must be \"default\" or \"off\"");
		} else {
			/* Those of the branches above. */
			static const char *const fields[] = {"enabled", "capabilities", "seccomp",
							     "plugins"};
			_cleanup_free_ char *problem = suggest_unknown(
			    "unknown field", k, "sandbox.", fields, ARRAY_SIZE(fields));
			r = bad(err, path, k, problem);
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
	for (size_t i = 0; i < s->n_profiles; i++)
		free(s->profiles[i].plugin);
	free(s->profiles);
	free(s);
}

/* The bits of the capabilities `names` of field `field` (checked by
 * sandbox_parse() already, unless the caller built the configuration). */
static int caps_mask(char *const *names, size_t n, const char *field, uint64_t *out, char **err)
{
	uint64_t m = 0;
	for (size_t i = 0; i < n; i++) {
		cap_value_t v;
		if (cap_number(names[i], &v) < 0)
			return error_set(err,
					 "field \"sandbox.%s\": \"%s\" is not a capability name",
					 field, names[i]);
		m |= UINT64_C(1) << v;
	}
	*out = m;
	return 0;
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
	if (caps_mask(c->capabilities, c->n_capabilities, "capabilities", &s->keep, err) < 0) {
		sandbox_free(s);
		return -1;
	}
	s->all = s->keep;
	s->common = s->keep;
	s->profiles = xcalloc(c->n_profiles ? c->n_profiles : 1, sizeof(*s->profiles));
	for (size_t i = 0; i < c->n_profiles; i++) {
		const struct sandbox_profile *p = &c->profiles[i];
		struct sandbox_mask *m = &s->profiles[s->n_profiles++];
		m->plugin = xstrdup(p->plugin);
		_cleanup_free_ char *field = xasprintf("plugins.%s.capabilities", p->plugin);
		if (caps_mask(p->capabilities, p->n_capabilities, field, &m->keep, err) < 0) {
			sandbox_free(s);
			return -1;
		}
		s->all |= m->keep;
		s->common &= m->keep;
	}
	/* The kernel's highest capability (/proc/sys/kernel/cap_last_cap),
	 * which may be above or below what libcap was built with. */
	s->last_cap = (int)cap_max_bits() - 1;
	if (s->last_cap > 63)
		s->last_cap = 63;
	/* The program seccomp-gen compiled when cnihook was built. The kernel
	 * only reads it. */
	s->prog.len = sandbox_filter_len;
	s->prog.filter = (struct sock_filter *)sandbox_filter;
	*out = s;
	return 0;
}

/*
 * The sandbox's one exception to hook/'s error convention (-1 and *err):
 * what runs in the plugin's process between clone() and execve()
 * (sandbox_apply() and the reduce_bounding(), reduce_inheritable() and
 * restrict_process() it calls)
 * must be async-signal-safe and cannot allocate a message, so it returns 0
 * or an errno value, as cnirt_preexec_fn asks; libcnirt turns that into
 * the plugin's error. sandbox_confine() and sandbox_enter(), in the hook's
 * own process, are the edge.
 */

/* The bounding set reduced to `keep`, in the calling process, which holds
 * no capability of it outside `have`: 0 or an errno value. No allocation. */
static int reduce_bounding(const struct sandbox *s, uint64_t keep, uint64_t have)
{
	/* Needs CAP_SETPCAP, which it may drop. Dropped straight away: a
	 * capability is read first only when the drop is refused, since
	 * dropping one already gone is no error. One system call per
	 * capability: `have` spares those already gone (in a plugin's
	 * process, all but the few the hook kept for other profiles). */
	uint64_t drop = have & ~keep;
	for (int c = 0; c <= s->last_cap && drop >> c; c++) {
		if (!(drop & (UINT64_C(1) << c)))
			continue;
		if (prctl(PR_CAPBSET_DROP, (unsigned long)c, 0, 0, 0) == 0)
			continue;
		if (errno == EINVAL)
			break; /* beyond the kernel's last capability */
		int e = errno;
		if (e == EPERM && prctl(PR_CAPBSET_READ, (unsigned long)c, 0, 0, 0) == 0)
			continue; /* not ours to drop, and not there anyway */
		return e;
	}
	return 0;
}

/* The inheritable set reduced to `keep`, in the calling process: after
 * execve, a root process's permitted set is its inheritable set plus the
 * bounding set. capget/capset directly: libcap's cap_set_proc()
 * allocates. 0 or an errno value. */
static int reduce_inheritable(uint64_t keep)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &hdr, d) < 0)
		return errno;
	d[0].inheritable &= (uint32_t)keep;
	d[1].inheritable &= (uint32_t)(keep >> 32);
	if (syscall(SYS_capset, &hdr, d) < 0)
		return errno;
	return 0;
}

void sandbox_enter(struct sandbox *s)
{
	/* What the hook executes inherits its bounding and inheritable sets;
	 * its own effective capabilities stay. The bounding set keeps what
	 * any plugin may keep, the inheritable set only what every plugin
	 * keeps: then a plugin's own step drops from the bounding set the
	 * few capabilities of other profiles, and nothing else (without
	 * CAP_SETPCAP, as a non-root user, each plugin's step does it all
	 * instead). */
	if (s && s->enabled && reduce_bounding(s, s->all, ~UINT64_C(0)) == 0 &&
	    reduce_inheritable(s->common) == 0)
		s->entered = true;
}

/* The part of the sandbox that is inherited by every process a process
 * starts: no ambient capabilities, no_new_privs, the seccomp filter. */
static int restrict_process(const struct sandbox *s)
{
	/* The ambient set (EINVAL: a kernel without ambient capabilities). */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return errno;
	/* No privileges from set-user-ID programs or file capabilities, and
	 * what allows an unprivileged process to load the filter. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return errno;
	if (s->seccomp && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &s->prog, 0, 0) < 0)
		return errno;
	return 0;
}

int sandbox_confine(struct sandbox *s, char **err)
{
	if (s == NULL || !s->enabled)
		return 0;
	sandbox_enter(s);
	/* The filter is loaded into the kernel once, here, instead of once
	 * per plugin (each load copies, checks and JIT-compiles it). The
	 * errno of restrict_process(), shared with the plugin's process,
	 * becomes the hook's error here. */
	int e = restrict_process(s);
	if (e)
		return error_set(err, "%s", strerror(e));
	s->confined = true;
	return 0;
}

/* The capabilities of a plugin of type `plugin`: its profile's, else the
 * default ones. No allocation. */
static uint64_t plugin_keep(const struct sandbox *s, const char *plugin)
{
	for (size_t i = 0; plugin && i < s->n_profiles; i++)
		if (strcmp(s->profiles[i].plugin, plugin) == 0)
			return s->profiles[i].keep;
	return s->keep;
}

int sandbox_apply(void *data, const char *plugin)
{
	const struct sandbox *s = data;
	if (s == NULL || !s->enabled)
		return 0;

	/* A plugin must not outlive the hook: a hook killed in the middle of
	 * an ADD leaves a record that poststop or gc tear down, and a plugin
	 * that went on would add after that DEL. (Kept across the execve of a
	 * plugin without set-user-ID bits.)
	 * The plugin's parent is libcnirt's helper (lib/exec.c), which dies
	 * with the hook; the hook itself in a build that forks plugins. */
	pid_t parent = getppid();
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		return errno;
	if (getppid() != parent || (parent != s->hook && kill(s->hook, 0) < 0 && errno == ESRCH))
		return ESRCH; /* the parent or the hook died before the line above */

	/* What the hook kept for every plugin, reduced to this one's: its
	 * inheritable set is within every plugin's already, its bounding set
	 * within s->all. */
	uint64_t keep = plugin_keep(s, plugin);
	int e = reduce_bounding(s, keep, s->entered ? s->all : ~UINT64_C(0));
	if (e == 0 && !s->entered)
		e = reduce_inheritable(keep);
	if (e)
		return e;

	/* One thread after fork(): the filter needs no thread
	 * synchronisation. */
	return s->confined ? 0 : restrict_process(s);
}
