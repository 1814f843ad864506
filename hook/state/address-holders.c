/* SPDX-License-Identifier: Apache-2.0 */
/* Who holds an address an attachment asks for (address-holders.h). */
#include "config.h"

#include <arpa/inet.h>
#include <string.h>
#include <strings.h>

#include "base/util.h"
#include "state/address-holders.h"
#include "state/network-status.h"

bool address_holders_asked(const struct attach_req *a)
{
	return a->n_ips > 0 || a->mac != NULL;
}

/* An address (its prefix length, if any, cut) in binary: its family, or 0. */
static int ip_bytes(const char *s, unsigned char out[16])
{
	_cleanup_free_ char *addr = xstrndup(s, strcspn(s, "/"));
	if (inet_pton(AF_INET, addr, out) == 1)
		return AF_INET;
	if (inet_pton(AF_INET6, addr, out) == 1)
		return AF_INET6;
	return 0;
}

/* One address however written (10.1.2.3/24 and 10.1.2.3; fd00::1 and
 * fd00:0::1). */
static bool same_ip(const char *x, const char *y)
{
	unsigned char a[16], b[16];
	int f = ip_bytes(x, a);
	return f != 0 && ip_bytes(y, b) == f && memcmp(a, b, f == AF_INET ? 4 : 16) == 0;
}

/* Which address of a's the result r (1.0.0 form) of the interface `ifname`
 * holds ("IP ..." or "MAC ..."), or NULL. */
static char *held_in(const struct attach_req *a, const json *r, const char *ifname)
{
	const json *ips = json_obj_get(r, "ips");
	for (size_t i = 0; json_is_array(ips) && i < ips->u.array.n; i++) {
		const char *addr = json_str(json_obj_get(ips->u.array.v[i], "address"));
		for (size_t k = 0; addr && k < a->n_ips; k++)
			if (same_ip(addr, a->ips[k]))
				return xasprintf("IP %.*s", (int)strcspn(a->ips[k], "/"),
						 a->ips[k]);
	}
	long ifindex;
	const char *mac = a->mac && ifname ? network_status_result_mac(r, ifname, &ifindex) : NULL;
	if (mac && strcasecmp(mac, a->mac) == 0)
		return xasprintf("MAC %s", a->mac);
	return NULL;
}

int address_holders_find(const struct attach_req *a, const char *self, cnirt_cache_entry *const *v,
			 size_t n, struct holder_hit *hit)
{
	if (!address_holders_asked(a))
		return 0;
	for (size_t i = 0; i < n; i++) {
		const char *id = cnirt_cache_entry_container_id(v[i]);
		const char *net = cnirt_cache_entry_network(v[i]);
		if (id == NULL || strcmp(id, self) == 0 || net == NULL ||
		    strcmp(net, a->network) != 0)
			continue;
		_cleanup_json_ json *r = network_status_result_v1(cnirt_cache_entry_result(v[i]));
		char *what = r ? held_in(a, r, cnirt_cache_entry_ifname(v[i])) : NULL;
		if (what) {
			*hit = (struct holder_hit){.entry = v[i], .what = what};
			return 1;
		}
	}
	return 0;
}

void address_holders_hit_free(struct holder_hit *hit)
{
	free(hit->what);
	hit->what = NULL;
}
