/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a container's annotations ask of its names files
 * (cnihook-annotations(7), NAMES): io.cnihook.dns (off, auto, always) and
 * the overrides io.cnihook.dns-servers, io.cnihook.dns-search and
 * io.cnihook.dns-options (what podman's --dns, --dns-search and
 * --dns-option give). names/names.c applies them.
 */
#ifndef CNIHOOK_REQUEST_NAMES_REQUEST_H
#define CNIHOOK_REQUEST_NAMES_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

#define ANN_DNS		"io.cnihook.dns"
#define ANN_DNS_SERVERS "io.cnihook.dns-servers"
#define ANN_DNS_SEARCH	"io.cnihook.dns-search"
#define ANN_DNS_OPTIONS "io.cnihook.dns-options"

struct names_request {
	char *mode;	/* io.cnihook.dns: "off", "auto", "always", or NULL */
	char **servers; /* IP addresses, in order */
	size_t n_servers;
	char **search; /* domains */
	size_t n_search;
	char **options; /* resolv.conf options (`ndots:2`, `edns0`) */
	size_t n_options;
};

/* Read the four annotations (absent: nothing asked). Values are
 * comma-separated; refusals read `annotation "KEY": problem`. */
int names_request_parse(const struct kvlist *ann, struct names_request *out, char **err);
/* A domain: letters, digits, '-', '_', '.'; 1-253 bytes, not starting with
 * '.' or '-'. */
bool names_request_domain_ok(const char *s);
/* An option: `name` or `name:value`; letters, digits, '-', '_', ':', '.';
 * 1-64 bytes. */
bool names_request_option_ok(const char *s);
/* Does it set anything (for policy.allowedFields "dns")? The annotation
 * that does into *key. */
bool names_request_any(const struct names_request *r, const char **key);
void names_request_free(struct names_request *r);

#endif
