/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fuzz target: result cache entries (lib/cache.c). The entry parser has no
 * entry point without a file, so each input is written as the entry
 * <dir>/results/net1-ctr1-eth0 of a per-process cache directory under
 * $TMPDIR (removed at exit), then read back with cnirt_cache_get (which
 * also accepts the legacy format), cache_read_result (the prevResult of a
 * DEL) and cnirt_cache_scan. A decoded entry whose cached list loads is
 * written again with cache_write and must read back the same.
 *
 * Input: the content of the cache file.
 */
#include "config.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NET   "net1"
#define CID   "ctr1"
#define IFACE "eth0"

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "fuzz_cache: invariant broken: %s\n", #cond);              \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

static char *dir, *results, *entry_path;
static cnirt_ctx *ctx;

static void cleanup(void)
{
	if (dir == NULL)
		return;
	_cleanup_free_ char *cmd = xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz_cache: could not remove %s\n", dir);
	cnirt_ctx_free(ctx);
	free(entry_path);
	free(results);
	free(dir);
}

static void setup(void)
{
	const char *tmp = getenv("TMPDIR");
	dir = xasprintf("%s/fuzz_cache.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL) {
		perror(dir);
		abort();
	}
	results = xasprintf("%s/results", dir);
	if (mkdir(results, 0700) < 0) {
		perror(results);
		abort();
	}
	entry_path = xasprintf("%s/" NET "-" CID "-" IFACE, results);
	ctx = cnirt_ctx_new();
	cnirt_ctx_set_cache_dir(ctx, dir);
	atexit(cleanup);
}

static void put_file(const uint8_t *data, size_t size)
{
	int fd = open(entry_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		perror(entry_path);
		abort();
	}
	for (size_t off = 0; off < size;) {
		ssize_t w = write(fd, data + off, size - off);
		if (w <= 0)
			abort();
		off += (size_t)w;
	}
	close(fd);
}

static bool streq(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a && b && strcmp(a, b) == 0);
}

/* JSON text the library handed out: parses, and is an object. */
static json *parse_object(const char *text)
{
	json *j = NULL;
	_cleanup_error_ cnirt_error *e = NULL;
	if (json_read_parse(text, strlen(text), "handed out", &j, &e) < 0) {
		fprintf(stderr, "fuzz_cache: JSON handed out does not parse: %s\n%s\n",
			cnirt_error_msg(e), text);
		abort();
	}
	CHECK(j->type == JSON_OBJECT);
	return j;
}

static void check_entry(const cnirt_cache_entry *e)
{
	CHECK(cnirt_cache_entry_network(e) && cnirt_cache_entry_network(e)[0]);
	CHECK(cnirt_cache_entry_container_id(e) && cnirt_cache_entry_container_id(e)[0]);
	CHECK(cnirt_cache_entry_ifname(e) && cnirt_cache_entry_ifname(e)[0]);
	size_t n = cnirt_cache_entry_arg_count(e);
	for (size_t i = 0; i < n; i++)
		CHECK(cnirt_cache_entry_arg_key(e, i) && cnirt_cache_entry_arg_value(e, i));
	CHECK(cnirt_cache_entry_arg_key(e, n) == NULL && cnirt_cache_entry_arg_value(e, n) == NULL);
	size_t len = 1;
	const char *config = cnirt_cache_entry_config(e, &len);
	CHECK(config != NULL || len == 0);
	if (cnirt_cache_entry_result(e))
		json_free(parse_object(cnirt_cache_entry_result(e)));
	if (cnirt_cache_entry_capability_args(e))
		json_free(parse_object(cnirt_cache_entry_capability_args(e)));
	(void)cnirt_cache_entry_netns(e);
	(void)cnirt_cache_entry_mtime(e);
}

static bool same_entry(const cnirt_cache_entry *a, const cnirt_cache_entry *b)
{
	size_t la, lb;
	const char *ca = cnirt_cache_entry_config(a, &la), *cb = cnirt_cache_entry_config(b, &lb);
	if (!streq(cnirt_cache_entry_network(a), cnirt_cache_entry_network(b)) ||
	    !streq(cnirt_cache_entry_container_id(a), cnirt_cache_entry_container_id(b)) ||
	    !streq(cnirt_cache_entry_ifname(a), cnirt_cache_entry_ifname(b)) ||
	    !streq(cnirt_cache_entry_netns(a), cnirt_cache_entry_netns(b)) ||
	    !streq(cnirt_cache_entry_result(a), cnirt_cache_entry_result(b)) ||
	    !streq(cnirt_cache_entry_capability_args(a), cnirt_cache_entry_capability_args(b)) ||
	    (ca == NULL) != (cb == NULL) || la != lb || (ca && memcmp(ca, cb, la) != 0) ||
	    cnirt_cache_entry_arg_count(a) != cnirt_cache_entry_arg_count(b))
		return false;
	for (size_t i = 0; i < cnirt_cache_entry_arg_count(a); i++)
		if (!streq(cnirt_cache_entry_arg_key(a, i), cnirt_cache_entry_arg_key(b, i)) ||
		    !streq(cnirt_cache_entry_arg_value(a, i), cnirt_cache_entry_arg_value(b, i)))
			return false;
	return true;
}

/* An object text as the cache writes it: absent when empty. */
static const char *nonempty_object(const char *text)
{
	return text && strcmp(text, "{}") != 0 ? text : NULL;
}

/* Write the entry again (cache_write) and read it back. */
static void check_rewrite(const cnirt_cache_entry *e)
{
	size_t clen;
	const char *config = cnirt_cache_entry_config(e, &clen);
	if (config == NULL)
		return;
	_cleanup_error_ cnirt_error *err = NULL;
	cnirt_netlist *l = NULL;
	if (cnirt_netlist_parse(config, clen, NULL, &l, &err) < 0)
		return;
	size_t n = cnirt_cache_entry_arg_count(e);
	cnirt_kv *args = xcalloc(n, sizeof(*args));
	for (size_t i = 0; i < n; i++) {
		args[i].key = cnirt_cache_entry_arg_key(e, i);
		args[i].value = cnirt_cache_entry_arg_value(e, i);
	}
	cnirt_attachment a = {
	    .container_id = cnirt_cache_entry_container_id(e),
	    .netns = cnirt_cache_entry_netns(e),
	    .ifname = cnirt_cache_entry_ifname(e),
	    .args = args,
	    .n_args = n,
	    .capability_args = cnirt_cache_entry_capability_args(e),
	};
	_cleanup_json_ json *result = NULL;
	if (cnirt_cache_entry_result(e))
		result = parse_object(cnirt_cache_entry_result(e));
	bool names_ok = cnirt_check_network_name(cnirt_netlist_name(l), &err) == 0 &&
			cnirt_check_container_id(a.container_id, &err) == 0 &&
			cnirt_check_ifname(a.ifname, &err) == 0;
	_cleanup_free_ char *path = NULL;
	if (!names_ok ||
	    cache_path(ctx, cnirt_netlist_name(l), a.container_id, a.ifname, &path, &err) < 0) {
		CHECK(cache_write(ctx, l, &a, result, &err) < 0);
		goto out;
	}
	if (cache_write(ctx, l, &a, result, &err) < 0) {
		fprintf(stderr, "fuzz_cache: cannot write the entry back: %s\n",
			cnirt_error_msg(err));
		abort();
	}
	cnirt_cache_entry *back = NULL;
	if (cnirt_cache_get(ctx, cnirt_netlist_name(l), a.container_id, a.ifname, &back, &err) <
		0 ||
	    back == NULL) {
		fprintf(stderr, "fuzz_cache: the entry written back does not read: %s\n",
			back  ? ""
			: err ? cnirt_error_msg(err)
			      : "missing");
		abort();
	}
	size_t blen;
	const char *bconfig = cnirt_cache_entry_config(back, &blen);
	size_t llen;
	const char *lbytes = cnirt_netlist_bytes(l, &llen);
	CHECK(streq(cnirt_cache_entry_network(back), cnirt_netlist_name(l)));
	CHECK(streq(cnirt_cache_entry_container_id(back), a.container_id));
	CHECK(streq(cnirt_cache_entry_ifname(back), a.ifname));
	CHECK(streq(cnirt_cache_entry_netns(back), a.netns && a.netns[0] ? a.netns : NULL));
	CHECK(bconfig && blen == llen && memcmp(bconfig, lbytes, llen) == 0);
	CHECK(cnirt_cache_entry_arg_count(back) == n);
	for (size_t i = 0; i < n; i++)
		CHECK(streq(cnirt_cache_entry_arg_key(back, i), args[i].key) &&
		      streq(cnirt_cache_entry_arg_value(back, i), args[i].value));
	const char *caps = nonempty_object(a.capability_args);
	if (caps) {
		_cleanup_json_ json *x = parse_object(caps);
		_cleanup_json_ json *y = parse_object(cnirt_cache_entry_capability_args(back));
		CHECK(json_equal(x, y));
	} else {
		CHECK(cnirt_cache_entry_capability_args(back) == NULL);
	}
	const char *res = nonempty_object(cnirt_cache_entry_result(e));
	if (res) {
		CHECK(cnirt_cache_entry_result(back));
		_cleanup_json_ json *y = parse_object(cnirt_cache_entry_result(back));
		CHECK(json_equal(result, y));
	} else {
		CHECK(cnirt_cache_entry_result(back) == NULL);
	}
	cnirt_cache_entry_free(back);
	CHECK(cache_remove(ctx, cnirt_netlist_name(l), a.container_id, a.ifname, NULL, &err) == 0);
out:
	free(args);
	cnirt_netlist_free(l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (dir == NULL)
		setup();
	put_file(data, size);

	/* Is it the legacy format (a bare result, no "kind")? */
	bool legacy = false;
	{
		_cleanup_json_ json *j = NULL;
		_cleanup_error_ cnirt_error *e = NULL;
		if (json_read_parse((const char *)data, size, "input", &j, &e) == 0)
			legacy = j->type == JSON_OBJECT && json_obj_get(j, "kind") == NULL &&
				 json_obj_get(j, "cniVersion") != NULL;
	}

	cnirt_cache_entry *e = NULL;
	cnirt_error *err = NULL;
	bool got = cnirt_cache_get(ctx, NET, CID, IFACE, &e, &err) == 0;
	/* A file holding another attachment's entry (its own names differ from
	 * the file name's) reads as no entry. */
	if (got && e == NULL)
		CHECK(err == NULL && !legacy);
	else if (got) {
		CHECK(err == NULL);
		check_entry(e);
		if (legacy) {
			CHECK(streq(cnirt_cache_entry_network(e), NET));
			CHECK(streq(cnirt_cache_entry_container_id(e), CID));
			CHECK(streq(cnirt_cache_entry_ifname(e), IFACE));
			CHECK(cnirt_cache_entry_result(e) != NULL);
		}
	} else {
		CHECK(e == NULL && err != NULL && cnirt_error_msg(err)[0]);
		cnirt_error_free(err);
		err = NULL;
	}

	/* The prevResult of a DEL: never an error. */
	json *prev = NULL;
	struct cache_seen seen;
	CHECK(cache_read_result(ctx, NET, CID, IFACE, &prev, &seen, &err) == 0);
	/* what DEL may remove unread is what it took as this attachment's */
	CHECK(seen.ours == (prev != NULL));
	if (got && e && cnirt_cache_entry_result(e)) {
		CHECK(prev != NULL);
		_cleanup_json_ json *r = parse_object(cnirt_cache_entry_result(e));
		CHECK(json_equal(prev, r));
	}
	json_free(prev);

	/* The scan puts the one file in exactly one list: the entries when
	 * it decodes as cnirt_cache_get() does and its fields name this
	 * very file (the legacy format names nothing), else the damaged,
	 * with a one-line printable problem. */
	cnirt_cache_entry **v = NULL;
	size_t n = 0;
	cnirt_cache_damage *d = NULL;
	size_t n_d = 0;
	CHECK(cnirt_cache_scan(ctx, &v, &n, &d, &n_d, &err) == 0);
	CHECK(n + n_d == 1);
	bool named = got && e && !legacy && streq(cnirt_cache_entry_network(e), NET) &&
		     streq(cnirt_cache_entry_container_id(e), CID) &&
		     streq(cnirt_cache_entry_ifname(e), IFACE);
	CHECK(n == (named ? 1 : 0));
	if (n == 1)
		CHECK(same_entry(e, v[0]));
	for (size_t i = 0; i < n_d; i++) {
		CHECK(d[i].problem[0] != '\0');
		for (const char *c = d[i].problem; *c; c++)
			CHECK(*c >= 0x20 && *c < 0x7f);
	}
	cnirt_cache_damage_free(d, n_d);
	cnirt_cache_entries_free(v, n);

	if (got && e && !legacy)
		check_rewrite(e);
	cnirt_cache_entry_free(e);
	return 0;
}
