/* SPDX-License-Identifier: Apache-2.0 */
/* The hook configuration file, cnihook.json(5). */
#ifndef CNIHOOK_CONF_HOOKCONF_H
#define CNIHOOK_CONF_HOOKCONF_H

#include <stdbool.h>
#include <stddef.h>

#include "base/log.h"
#include "host/sandbox.h"
#include "request/policy.h"

#define CNIHOOK_CONFIG_PATH SYSCONFDIR "/cnihook/cnihook.json"
/* The default stateDir: runtime state belongs on the tmpfs /run whatever
 * the prefix. Also where the log file goes when cnihook.json fails. */
#define CNIHOOK_STATE_DIR "/run/cnihook"
/* confDir's default: a directory of cnihook's own, not another engine's. */
#define CNIHOOK_CONF_DIR SYSCONFDIR "/cnihook/net.d"

/* When a names file (resolv.conf, /etc/hosts) is written for a container
 * (cnihook(8), NAMES): when some result carries `dns`, always, or never. */
enum names_mode { NAMES_AUTO, NAMES_OFF, NAMES_ALWAYS };
/* "auto", "off", "always" into *out; -1 for anything else. */
int hookconf_names_mode(const char *s, enum names_mode *out);

struct hook_config {
	char *conf_dir;	 /* confDir: CNIHOOK_CONF_DIR */
	char **bin_dirs; /* binDirs: /opt/cni/bin, /usr/libexec/cni, /usr/lib/cni */
	size_t n_bin_dirs;
	char *cache_dir;	 /* cacheDir: /var/lib/cni */
	char *state_dir;	 /* stateDir: /run/cnihook */
	char **default_networks; /* defaultNetworks: [] */
	size_t n_default_networks;
	unsigned plugin_timeout_ms;	 /* pluginTimeout (seconds in the file): 60 */
	enum log_level log_level;	 /* log.level: "warn" */
	bool log_syslog;		 /* log.syslog: true */
	struct policy policy;		 /* policy: what annotations may ask */
	enum names_mode dns_resolv_conf; /* dns.resolvConf (or dns): "auto" */
	enum names_mode dns_hosts;	 /* dns.hosts (or dns): "auto" */
	struct sandbox_config sandbox;	 /* sandbox: around the plugins */
	struct sandbox *sb;		 /* the sandbox prepared, when enabled */
	/* Rootless (engine/rootless.h): the plugins' XDG_RUNTIME_DIR, the user's
	 * own (dnsname keeps its dnsmasq files there); NULL: none given. */
	char *plugin_runtime_dir;
	/* runtime: the OCI runtime cnihook-runtime runs (cmd/runtime.h): a
	 * name looked up in PATH or an absolute path; "runc". */
	char *runtime;
};

/* Load `path`; NULL means CNIHOOK_CONFIG_PATH, which may be absent (then the
 * built-in defaults apply). An explicit path must exist. Unknown fields and
 * wrong types are errors naming the field. */
int hookconf_load(const char *path, struct hook_config **out, char **err);
/* The built-in defaults. */
struct hook_config *hookconf_defaults(void);
void hookconf_free(struct hook_config *c);
/* The process set-up is the sandbox's (host/sandbox.h): sandbox_enter(c->sb)
 * before the first plugin, sandbox_confine(c->sb) for a process that mounts
 * nothing. */
/* A libcnirt runtime set up from the configuration (plugin directories,
 * cache directory, plugin timeout, the sandbox). */
struct cnirt_ctx;
struct cnirt_ctx *hookconf_ctx(const struct hook_config *c);
/* The plugins of ctx get the caller's PATH (cnihook's own), unless it has
 * none or an empty one. */
void hookconf_pass_path(struct cnirt_ctx *ctx);

#endif
