/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The sandbox the hook puts around the plugins it runs (the `sandbox` object
 * of cnihook.json(5)): a reduced capability bounding set and no_new_privs
 * (set with prctl and capset; libcap only names the capabilities), and a
 * seccomp filter (compiled by libseccomp at build time) that fails with
 * EPERM the system calls no CNI plugin needs. Applied in the plugin's child
 * process before its execve (libcnirt's preexec function), and inherited by everything the
 * plugin runs; or once in the hook's own process when the hook needs none of
 * it (sandbox_confine()).
 */
#ifndef CNIHOOK_HOST_SANDBOX_H
#define CNIHOOK_HOST_SANDBOX_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include "json.h"

/* sandbox.plugins: the capabilities of the plugins of one type, instead of
 * sandbox.capabilities. */
struct sandbox_profile {
	char *plugin; /* the plugin's type, as in its configuration */
	char **capabilities;
	size_t n_capabilities;
};

struct sandbox_config {
	bool enabled;	     /* sandbox.enabled; default true */
	char **capabilities; /* sandbox.capabilities: names ("CAP_NET_ADMIN"); default: the
			      * smallest set Debian's plugins need */
	size_t n_capabilities;
	bool seccomp;			  /* sandbox.seccomp: "default" (true) or "off" (false) */
	struct sandbox_profile *profiles; /* sandbox.plugins; default: dnsname's */
	size_t n_profiles;
};

void sandbox_defaults(struct sandbox_config *s);
/* Parse cnihook.json's "sandbox" object (v may be NULL: defaults). */
int sandbox_parse(const json *v, const char *path, struct sandbox_config *out, char **err);
void sandbox_config_free(struct sandbox_config *s);

/* Everything computed in the hook's own process (capability numbers, the
 * compiled seccomp program), so that the child only makes system calls. */
struct sandbox;
int sandbox_prepare(const struct sandbox_config *c, struct sandbox **out, char **err);
void sandbox_free(struct sandbox *s);
/* Reduce the calling (hook) process's own bounding set to every profile's
 * capabilities with the default ones, and its inheritable set to those
 * that all of them share, once, so that each plugin inherits them;
 * sandbox_apply then only drops from the bounding set what its plugin's
 * type does not keep. */
void sandbox_enter(struct sandbox *s);
/* The whole sandbox applied to the calling (hook) process itself: the sets
 * as sandbox_enter() does, no ambient capabilities, no_new_privs and the
 * filter, all inherited by the plugins, whose sandbox_apply() then only
 * ties them to the hook's life. For a hook that will make none of the
 * denied system calls (no mount or umount: the CLI's add, check, del and
 * validate). On failure -1 and *err (the system's reason); each plugin's
 * sandbox_apply() still applies what is missing. */
int sandbox_confine(struct sandbox *s, char **err);
/* The cnirt_plugin_preexec_fn: apply the sandbox in the process of a
 * plugin of type `plugin` (its profile's capabilities, else the default
 * ones). Returns 0
 * or an errno value: it runs between clone() and execve(), async-signal-safe,
 * with no allocation, so it cannot build hook/'s *err message (the one
 * exception to that convention; libcnirt reports the errno). */
int sandbox_apply(void *sandbox, const char *plugin);

/* The filter's BPF program, hook/seccomp-filter.c, generated at build time
 * by hook/seccomp-gen. */
extern const struct sock_filter sandbox_filter[];
extern const unsigned short sandbox_filter_len;

#endif
