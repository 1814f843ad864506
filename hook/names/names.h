/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The container's names files (cnihook(8), NAMES): at createRuntime, after
 * every ADD, its /etc/resolv.conf and /etc/hosts from the results' `dns`
 * and addresses (resolv-conf.h, hosts-file.h), put in place per engine
 * (rootfs-file.h): the engine's per-container file that config.json
 * bind-mounts rewritten in place, else a file of cnihook's, alone on a
 * tmpfs of its own, bind-mounted read-only onto the rootfs. Nothing is
 * left on the host: the mount goes with the container's mount namespace.
 */
#ifndef CNIHOOK_NAMES_NAMES_H
#define CNIHOOK_NAMES_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "conf/hookconf.h"
#include "names/resolv-conf.h"
#include "request/names-request.h"

/* What config.json says of the container's files (runtime-spec config.md,
 * "Root", "Hostname", "Mounts"). */
struct names_bundle {
	char *root;	  /* root.path, absolute (relative ones under the bundle) */
	char *hostname;	  /* hostname, or NULL */
	char *mounted[2]; /* the bind mount's source at /etc/resolv.conf and /etc/hosts
			   * (names_file order), or NULL */
	bool other[2];	  /* another kind of mount is there: left alone */
	bool ro[2];	  /* that bind mount is read-only ("ro"): left alone */
};
enum names_file { NAMES_RESOLV_CONF, NAMES_HOSTS };

/* Read them from config.json's tree (bundle: the bundle's directory). */
int names_bundle_parse(const json *config, const char *bundle, struct names_bundle *out,
		       char **err);
void names_bundle_free(struct names_bundle *b);

/* The container, its results and the settings. */
struct names_input {
	const char *state_dir;
	const char *id;	    /* its key: <stateDir>/<id>/ */
	const char *oci_id; /* as the engine names it (in its files' paths) */
	const char *name;   /* io.cnihook.name, else the host name, or NULL */
	const char *bundle;
	pid_t pid;
	enum names_mode mode[2]; /* cnihook.json's dns, per names_file */
	const struct names_request *req;
	char *const *results; /* each attachment's result (JSON), n of them */
	const bool *is_default;
	size_t n;
};

/* What became of one file, for the log. */
struct names_outcome {
	int status;  /* 0 written, 1 left alone, -1 failed, 2 not asked for */
	char *where; /* written: how ("bind-mounted from ...", "rewrote ...") */
	char *why;   /* left alone or failed: the problem */
};

/* The effective mode of each file: cnihook.json's, unless it is "off",
 * lowered or raised by io.cnihook.dns. */
enum names_mode names_mode_for(enum names_mode conf, const struct names_request *req);
/* Does some result carry `dns`, or does the request override any of it? */
bool names_results_have_dns(char *const *results, size_t n);
/* resolv.conf's text: the request's servers, search domains and options
 * where it gives them (they replace the rest, as podman's --dns does),
 * else the results' `dns` (in the order given) and then base's (the
 * engine's file, else the host's), loopback servers of base dropped. */
char *names_compose_resolv(const struct names_request *req, json *const *results, size_t n,
			   const struct resolv *base);
/* Write both files; out[names_file] says what became of each. */
void names_apply(const struct names_input *in, struct names_outcome out[2]);
void names_outcome_free(struct names_outcome out[2]);
/* Remove what an earlier cnihook kept of container id's names files in
 * the state directory (<stateDir>/<id>/resolv.conf, hosts), so that a
 * container started before an upgrade leaves nothing at poststop. */
void names_remove(const char *state_dir, const char *id);

#endif
