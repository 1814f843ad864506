/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A minimal engine, built by tests/engine/pkgconfig.sh against the
 * installed libcnirt with nothing but `pkg-config libcnirt`, linked
 * dynamically and fully statically. It attaches and detaches one network
 * of one plugin and prints what it did.
 *
 *   mini-engine BIN_DIR CACHE_DIR PLUGIN_TYPE
 */
#include <cnirt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what, cnirt_error *err)
{
	fprintf(stderr, "mini-engine: %s: %s\n", what, err ? cnirt_error_msg(err) : "failed");
	cnirt_error_free(err);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: mini-engine BIN_DIR CACHE_DIR PLUGIN_TYPE\n");
		return 2;
	}
	char conf[256];
	snprintf(conf, sizeof(conf),
		 "{\"cniVersion\":\"1.0.0\",\"name\":\"mini\",\"plugins\":[{\"type\":\"%s\"}]}",
		 argv[3]);
	cnirt_error *err = NULL;
	cnirt_netlist *l = NULL;
	if (cnirt_netlist_parse(conf, strlen(conf), "mini", &l, &err) < 0)
		return fail("parse", err);
	cnirt_ctx *ctx = cnirt_ctx_new();
	cnirt_ctx_set_bin_path(ctx, argv[1]);
	cnirt_ctx_set_cache_dir(ctx, argv[2]);
	cnirt_attachment a = {
	    .container_id = "mini1", .netns = "/run/netns/mini-engine", .ifname = "eth0"};
	char *result = NULL;
	if (cnirt_add(ctx, l, &a, &result, &err) < 0)
		return fail("add", err);
	cnirt_cache_entry **v = NULL;
	size_t n = 0;
	if (cnirt_cache_attachments(ctx, "mini1", &v, &n, &err) < 0)
		return fail("cached attachments", err);
	if (cnirt_del(ctx, l, &a, &err) < 0)
		return fail("del", err);
	printf("libcnirt %s: added and deleted, %zu cached attachment(s), result %s\n",
	       cnirt_version(), n, result && strchr(result, '{') ? "received" : "missing");
	cnirt_cache_entries_free(v, n);
	free(result);
	cnirt_ctx_free(ctx);
	cnirt_netlist_free(l);
	return n == 1 ? 0 : 1;
}
