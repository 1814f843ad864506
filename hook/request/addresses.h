/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The names and addresses an attachment asks for in annotations: network
 * names, Kubernetes namespaces, interface names, IP addresses and CIDRs, MAC
 * addresses and InfiniBand GUIDs. Each check reports a problem without the
 * annotation (annotation-value.h).
 */
#ifndef CNIHOOK_REQUEST_ADDRESSES_H
#define CNIHOOK_REQUEST_ADDRESSES_H

#include "base/util.h"

/* A DNS-1123 label (a Kubernetes namespace): [a-z0-9]([-a-z0-9]*[a-z0-9])?,
 * at most 63 bytes. */
int addresses_check_k8s_namespace(const char *s, char **err);
/* A CNI network name and an interface name, as libcnirt checks them. */
int addresses_check_network(const char *s, char **err);
int addresses_check_ifname(const char *s, char **err);

enum ip_form {
	IP_ONLY,    /* 10.1.2.3 */
	IP_CIDR,    /* 10.1.2.3/24 */
	IP_OR_CIDR, /* either */
};
/* Address family of an IP address (no prefix): AF_INET, AF_INET6, or 0. */
int addresses_ip_family(const char *s);
/* An IP address or CIDR of `form`; no IPv6 zone id. */
int addresses_check_ip(const char *s, enum ip_form form, char **err);
/* A JSON array of strings, each checked as an IP of `form`, into a new
 * vector; problems name `field`. */
int addresses_ip_list_from_json(const json *a, const char *field, enum ip_form form, char ***out,
				size_t *n, char **err);

/* A unicast Ethernet MAC address, normalised ("aa:bb:cc:dd:ee:ff"). */
int addresses_parse_mac(const char *s, char **out, char **err);
/* An InfiniBand GUID (CONVENTIONS.md: 8 hex octets), normalised. */
int addresses_parse_guid(const char *s, char **out, char **err);

#endif
