/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of hook/state/port-reservations.c: a host port reserved, refused to a second
 * container with the holder named, and allowed where protocol, port or host
 * address differ ("*", 0.0.0.0 and :: overlap every address); a port asked
 * twice; reservations released by the container's list, by a cache entry
 * and by gc's prune; a holder gone replaced; nothing left by a refusal; and
 * the port mappings of other runtimes (cache entries without a state
 * directory) through the two indexes beside the cache: refused while their
 * file is there, seen when added, forgotten when removed, rebuilt when an
 * index is damaged, and the full index left as it is when only the hook's
 * own files came and went.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hooktest.h"
#include "request/port-mappings.h"
#include "state/port-reservations.h"
#include "tmpdir.h"
#include "base/util.h"

/* A port mapping as the selection normalises it. */
#define MAP(port, proto) "{\"hostPort\":" #port ",\"containerPort\":80,\"protocol\":\"" proto "\"}"
#define MAP_ON(ip, port, proto)                                                                    \
	"{\"hostPort\":" #port ",\"containerPort\":80,\"protocol\":\"" proto "\",\"hostIP\":\"" ip \
	"\"}"

#define HELD(port, holder)                                                                         \
	"host port " port " is held by container \"" holder "\": refusing the port mapping"
#define HELD_ON(port, ip, holder)                                                                  \
	"host port " port " on " ip " is held by container \"" holder                              \
	"\": refusing the port mapping"
#define HELD_BY_CACHE(port, holder)                                                                \
	"host port " port " is held by container \"" holder "\" (network \"net1\"): refusing "     \
	"the port mapping"

/* One test's state and cache directories, under the group's directory,
 * with the state directories of the hook's containers a, b, c and d. */
struct fx {
	char *state;
	char *cache;
	char *results;
	cnirt_ctx *ctx;
};

static int fx_setup(void **state)
{
	static unsigned seq;
	struct fx *f = xzalloc(sizeof(*f));
	f->state = xasprintf("%s/%u/state", dir, ++seq);
	f->cache = xasprintf("%s/%u/cache", dir, seq);
	f->results = xasprintf("%s/results", f->cache);
	_cleanup_free_ char *err = NULL;
	if (dir_mkdir_p(f->state, 0700, &err) < 0 || dir_mkdir_p(f->results, 0700, &err) < 0)
		return -1;
	for (char id = 'a'; id <= 'd'; id++) {
		_cleanup_free_ char *d = xasprintf("%s/%c", f->state, id);
		if (mkdir(d, 0700) < 0)
			return -1;
	}
	f->ctx = cnirt_ctx_new();
	cnirt_ctx_set_cache_dir(f->ctx, f->cache);
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;
	cnirt_ctx_free(f->ctx);
	free(f->state);
	free(f->cache);
	free(f->results);
	free(f);
	return 0;
}

/* A container whose state directory was wiped (its list with it). */
static void wiped(struct fx *f, const char *id)
{
	_cleanup_free_ char *list = xasprintf("%s/%s/ports", f->state, id);
	_cleanup_free_ char *d = xasprintf("%s/%s", f->state, id);
	unlink(list);
	assert_int_equal(rmdir(d), 0);
}

/* The typed port mappings of a JSON array (NULL: none), as annotations.c
 * parses them. */
static struct port_mappings mappings(const char *text)
{
	struct port_mappings m = {0};
	_cleanup_json_ json *a = NULL;
	_cleanup_free_ char *problem = NULL;
	if (text && (json_parse_with(text, strlen(text), "test", &util_json, &a, &problem) < 0 ||
		     port_mappings_from_json(a, &m, &problem) < 0))
		fail_msg("port mappings %s: %s", text, problem);
	return m;
}

/* Reserve the port mappings of one attachment (a JSON array), or of two. */
static int reserve2(struct fx *f, const char *id, const char *pm1, const char *pm2, char **err)
{
	struct attach_req v[2] = {{.network = "net1", .ifname = "eth0", .ports = mappings(pm1)},
				  {.network = "net2", .ifname = "net1", .ports = mappings(pm2)}};
	struct selection sel = {.v = v, .n = pm2 ? 2 : 1};
	int ret = port_reservations_reserve(f->state, f->ctx, id, &sel, NULL, err);
	port_mappings_free(&v[0].ports);
	port_mappings_free(&v[1].ports);
	return ret;
}

static int reserve(struct fx *f, const char *id, const char *pm, char **err)
{
	return reserve2(f, id, pm, NULL, err);
}

/* Reserved without an error. */
static void reserved(struct fx *f, const char *id, const char *pm)
{
	_cleanup_free_ char *err = NULL;
	if (reserve(f, id, pm, &err) < 0)
		fail_msg("container %s, port mappings %s: %s", id, pm, err);
}

/* The whole of a file, or NULL when it is not there. */
static char *slurp(const char *path)
{
	char *buf = NULL;
	size_t len;
	_cleanup_free_ char *err = NULL;
	return read_file(path, 1 << 20, &buf, &len, NULL, &err) < 0 ? NULL : buf;
}

/* The file `path` (`what`, for messages) holds exactly `want` (NULL: there
 * is none). */
static void file_is(const char *path, const char *what, const char *want)
{
	_cleanup_free_ char *got = slurp(path);
	if (want == NULL && got != NULL)
		fail_msg("%s: expected none, got \"%s\"", what, got);
	if (want != NULL && (got == NULL || strcmp(got, want) != 0))
		fail_msg("%s: expected \"%s\", got \"%s\"", what, want, got ? got : "(none)");
}

/* The reservation file <stateDir>/ports/<name>. */
static void holders_are(struct fx *f, const char *name, const char *want)
{
	_cleanup_free_ char *path = xasprintf("%s/ports/%s", f->state, name);
	file_is(path, name, want);
}

/* The container's list <stateDir>/<id>/ports. */
static void list_is(struct fx *f, const char *id, const char *want)
{
	_cleanup_free_ char *path = xasprintf("%s/%s/ports", f->state, id);
	_cleanup_free_ char *what = xasprintf("list of %s", id);
	file_is(path, what, want);
}

static char *entry_path(struct fx *f, const char *id)
{
	return xasprintf("%s/net1-%s-eth0", f->results, id);
}

/* The cache entry <cacheDir>/results/net1-<id>-eth0 in libcni's format,
 * with the port mappings `pm` (a JSON array, or NULL for none). */
static void cache_entry(struct fx *f, const char *id, const char *pm)
{
	_cleanup_free_ char *caps =
	    pm ? xasprintf(",\"capabilityArgs\":{\"portMappings\":%s}", pm) : xstrdup("");
	_cleanup_free_ char *text = xasprintf(
	    "{\"kind\":\"cniCacheV1\",\"containerId\":\"%s\",\"config\":"
	    "\"eyJjbmlWZXJzaW9uIjoiMS4wLjAiLCJuYW1lIjoibmV0MSIsInBsdWdpbnMiOlt7InR5cGUiOiJicmlkZ2Ui"
	    "LCJicmlkZ2UiOiJjbmkwIn1dfQ==\",\"ifName\":\"eth0\",\"networkName\":\"net1\"%s,"
	    "\"result\":{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.1.2.3/24\"}]}}",
	    id, caps);
	_cleanup_free_ char *path = entry_path(f, id);
	assert_int_equal(file_write_atomic(path, text, strlen(text), 0600, false), 0);
}

static void cache_entry_remove(struct fx *f, const char *id)
{
	_cleanup_free_ char *path = entry_path(f, id);
	assert_int_equal(unlink(path), 0);
}

/* <cacheDir>/<name>: cnihook-ports.index or cnihook-ports.held. */
static char *index_path(struct fx *f, const char *name)
{
	return xasprintf("%s/%s", f->cache, name);
}

/* Does the index `name` have a line of the container `id`? */
static bool index_names(struct fx *f, const char *name, const char *id)
{
	_cleanup_free_ char *path = index_path(f, name);
	_cleanup_free_ char *text = slurp(path);
	assert_non_null(text);
	_cleanup_free_ char *field = xasprintf("\t%s\t", id);
	return strstr(text, field) != NULL;
}

static ino_t inode(const char *path)
{
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	return st.st_ino;
}

/* Set the results directory's mtime `sec` seconds from now: in the past,
 * a stamp of it is stored; in the future (younger than 0.1 s), it is not. */
static void results_mtime(struct fx *f, time_t sec, struct timespec *set)
{
	struct timespec ts[2] = {{.tv_nsec = UTIME_OMIT}, {.tv_sec = time(NULL) + sec}};
	if (set)
		*set = ts[1];
	assert_int_equal(utimensat(AT_FDCWD, f->results, ts, 0), 0);
}

/* A reserved port, its file and the container's list; a second container
 * asking for it is refused with the holder named, and leaves nothing. */
static void test_refused_to_second(void **state)
{
	struct fx *f = *state;
	char *problem;
	reserved(f, "a", "[" MAP(8080, "tcp") "]");
	holders_are(f, "tcp-8080", "a *\n");
	list_is(f, "a", "tcp-8080\n");
	REFUSED(reserve(f, "b", "[" MAP(8080, "tcp") "]", &problem), HELD("8080/tcp", "a"));
	holders_are(f, "tcp-8080", "a *\n");
	list_is(f, "b", NULL);
}

/* Another port, another protocol, or another host address of one family:
 * no overlap, all reserved. */
static void test_no_overlap(void **state)
{
	struct fx *f = *state;
	reserved(f, "a", "[" MAP_ON("10.0.0.1", 8080, "tcp") "]");
	reserved(f, "b", "[" MAP_ON("10.0.0.2", 8080, "tcp") "]");
	reserved(f, "c", "[" MAP(8080, "udp") "]");
	reserved(f, "d", "[" MAP(8081, "tcp") "]");
	holders_are(f, "tcp-8080", "a 10.0.0.1\nb 10.0.0.2\n");
	holders_are(f, "udp-8080", "c *\n");
	holders_are(f, "tcp-8081", "d *\n");
}

/* No hostIP, "", 0.0.0.0 and :: are any address: each overlaps every
 * address, of either family, held or asked for. */
static void test_any_address(void **state)
{
	struct fx *f = *state;
	char *problem;
	reserved(f, "b", "[" MAP(8080, "tcp") "]");
	REFUSED(reserve(f, "a", "[" MAP_ON("10.0.0.1", 8080, "tcp") "]", &problem),
		HELD_ON("8080/tcp", "10.0.0.1", "b"));
	REFUSED(reserve(f, "a", "[" MAP_ON("2001:db8::1", 8080, "tcp") "]", &problem),
		HELD_ON("8080/tcp", "2001:db8::1", "b"));

	reserved(f, "c", "[" MAP_ON("10.0.0.1", 9090, "tcp") "]");
	holders_are(f, "tcp-9090", "c 10.0.0.1\n");
	const char *any[] = {"[" MAP(9090, "tcp") "]", "[" MAP_ON("0.0.0.0", 9090, "tcp") "]",
			     "[" MAP_ON("::", 9090, "tcp") "]"};
	for (size_t i = 0; i < ARRAY_SIZE(any); i++)
		REFUSED(reserve(f, "a", any[i], &problem), HELD("9090/tcp", "c"));
	holders_are(f, "tcp-9090", "c 10.0.0.1\n");
}

/* Addresses are compared in canonical form, protocols in lower case, and
 * a mapping without a protocol is TCP. */
static void test_canonical(void **state)
{
	struct fx *f = *state;
	char *problem;
	reserved(f, "a", "[" MAP_ON("2001:DB8:0:0::1", 8080, "TCP") "]");
	holders_are(f, "tcp-8080", "a 2001:db8::1\n");
	REFUSED(reserve(f, "b", "[" MAP_ON("2001:db8::1", 8080, "tcp") "]", &problem),
		HELD_ON("8080/tcp", "2001:db8::1", "a"));
	REFUSED(reserve(f, "b", "[{\"hostPort\":8080,\"containerPort\":80}]", &problem),
		HELD("8080/tcp", "a"));
}

/* One (protocol, port) asked twice, by one attachment or two, on
 * overlapping addresses: refused before anything is written. */
static void test_asked_twice(void **state)
{
	struct fx *f = *state;
	char *problem;
	REFUSED(reserve2(f, "a", "[" MAP(8080, "tcp") "]", "[" MAP(8080, "tcp") "]", &problem),
		"host port 8080/tcp is asked for twice");
	REFUSED(
	    reserve(f, "a", "[" MAP(8080, "tcp") "," MAP_ON("10.0.0.1", 8080, "tcp") "]", &problem),
	    "host port 8080/tcp is asked for twice");
	list_is(f, "a", NULL);
	holders_are(f, "tcp-8080", NULL);
	/* Two addresses, or two protocols: not twice. */
	const char *apart = "[" MAP_ON("10.0.0.1", 8080, "tcp") "," MAP_ON(
	    "10.0.0.2", 8080, "tcp") "," MAP(8080, "udp") "]";
	reserved(f, "a", apart);
	holders_are(f, "tcp-8080", "a 10.0.0.1\na 10.0.0.2\n");
	holders_are(f, "udp-8080", "a *\n");
}

/* Without port mappings nothing is reserved and nothing written. */
static void test_no_mappings(void **state)
{
	struct fx *f = *state;
	reserved(f, "a", NULL);
	reserved(f, "a", "[]");
	list_is(f, "a", NULL);
	_cleanup_free_ char *ports = xasprintf("%s/ports", f->state);
	assert_int_equal(access(ports, F_OK), -1);
}

/* port_reservations_release drops the container's lines from the files its list
 * names (a file left empty goes), keeps the others', and removes the
 * list; a second release does nothing. */
static void test_release(void **state)
{
	struct fx *f = *state;
	reserved(f, "a", "[" MAP_ON("10.0.0.1", 8080, "tcp") "," MAP(53, "udp") "]");
	reserved(f, "b", "[" MAP_ON("10.0.0.2", 8080, "tcp") "]");
	list_is(f, "a", "tcp-8080\nudp-53\n");
	port_reservations_release(f->state, "a");
	holders_are(f, "tcp-8080", "b 10.0.0.2\n");
	holders_are(f, "udp-53", NULL);
	list_is(f, "a", NULL);
	list_is(f, "b", "tcp-8080\n");
	port_reservations_release(f->state, "a");
	holders_are(f, "tcp-8080", "b 10.0.0.2\n");
	reserved(f, "a", "[" MAP(53, "udp") "]");
}

/* A holder with neither a state directory nor a cache entry is gone: its
 * line is replaced by the new holder's. */
static void test_stale_holder(void **state)
{
	struct fx *f = *state;
	reserved(f, "a", "[" MAP(8080, "tcp") "]");
	wiped(f, "a");
	reserved(f, "b", "[" MAP(8080, "tcp") "]");
	holders_are(f, "tcp-8080", "b *\n");
}

/* A holder whose state directory was wiped but whose cache entry is
 * there (poststop has not run) still holds its port. */
static void test_holder_with_cache_entry(void **state)
{
	struct fx *f = *state;
	char *problem;
	reserved(f, "a", "[" MAP(8080, "tcp") "]");
	wiped(f, "a");
	cache_entry(f, "a", NULL);
	REFUSED(reserve(f, "b", "[" MAP(8080, "tcp") "]", &problem), HELD("8080/tcp", "a"));
	holders_are(f, "tcp-8080", "a *\n");
}

/* port_reservations_release_entry drops the container's lines from the files of its
 * cache entry's port mappings only, whatever their host address. */
static void test_release_entry(void **state)
{
	struct fx *f = *state;
	reserved(f, "a", "[" MAP_ON("10.0.0.1", 8080, "tcp") "," MAP(53, "udp") "]");
	reserved(f, "b", "[" MAP_ON("10.0.0.2", 8080, "tcp") "]");
	wiped(f, "a");
	cache_entry(f, "a", "[" MAP_ON("10.0.0.1", 8080, "tcp") "]");
	cnirt_cache_entry *e = NULL;
	cnirt_error *err = NULL;
	assert_int_equal(cnirt_cache_get(f->ctx, "net1", "a", "eth0", &e, &err), 0);
	assert_non_null(e);
	port_reservations_release_entry(f->state, "a", e);
	cnirt_cache_entry_free(e);
	holders_are(f, "tcp-8080", "b 10.0.0.2\n");
	holders_are(f, "udp-53", "a *\n");
}

static bool alive_a(void *data, const char *id)
{
	(*(unsigned *)data)++;
	return strcmp(id, "a") == 0;
}

/* port_reservations_prune drops the holders alive() says are gone, in every file,
 * and the files left empty; alive() is asked once a line, with the
 * caller's data. */
static void test_prune(void **state)
{
	struct fx *f = *state;
	reserved(f, "a", "[" MAP(8080, "tcp") "," MAP_ON("10.0.0.1", 8082, "tcp") "]");
	reserved(f, "b", "[" MAP(8081, "tcp") "," MAP_ON("10.0.0.2", 8082, "tcp") "]");
	unsigned calls = 0;
	port_reservations_prune(f->state, alive_a, &calls);
	assert_int_equal(calls, 4);
	holders_are(f, "tcp-8080", "a *\n");
	holders_are(f, "tcp-8081", NULL);
	holders_are(f, "tcp-8082", "a 10.0.0.1\n");
}

/* A cache entry of another runtime (no state directory for its container)
 * mapping the port refuses it, naming the container and the network. */
static void test_foreign_refuses(void **state)
{
	struct fx *f = *state;
	char *problem;
	cache_entry(f, "other", "[" MAP(8080, "tcp") "," MAP(53, "udp") "]");
	REFUSED(reserve(f, "b", "[" MAP(8080, "tcp") "]", &problem),
		HELD_BY_CACHE("8080/tcp", "other"));
	REFUSED(reserve(f, "b", "[" MAP_ON("10.0.0.1", 53, "udp") "]", &problem),
		HELD_BY_CACHE("53/udp", "other"));
	holders_are(f, "tcp-8080", NULL);
	list_is(f, "b", NULL);
	reserved(f, "b", "[" MAP(8080, "udp") "," MAP(8081, "tcp") "]");
}

/* Another runtime's entry with a host address that is none, or a protocol
 * with the index's separators in it: the address counts as every address,
 * the mapping without a protocol one can map is dropped, and the index
 * keeps its lines (an entry after it still refuses). */
static void test_foreign_odd_text(void **state)
{
	struct fx *f = *state;
	char *problem;
	cache_entry(f, "odd",
		    "[{\"hostPort\":8080,\"protocol\":\"tcp\",\"hostIP\":\"a\\tb\\nc,/d\"},"
		    "{\"hostPort\":8081,\"protocol\":\"t\\tc\\np/,\"}]");
	cache_entry(f, "zz", "[" MAP(9090, "tcp") "]");
	REFUSED(reserve(f, "b", "[" MAP_ON("10.0.0.1", 8080, "tcp") "]", &problem),
		HELD_BY_CACHE("8080/tcp", "odd"));
	reserved(f, "b", "[" MAP(8081, "tcp") "]");
	REFUSED(reserve(f, "c", "[" MAP(9090, "tcp") "]", &problem),
		HELD_BY_CACHE("9090/tcp", "zz"));
	_cleanup_free_ char *path = index_path(f, "cnihook-ports.index");
	_cleanup_free_ char *text = slurp(path);
	size_t lines = 0;
	for (const char *c = text; *c; c++)
		lines += *c == '\n';
	assert_int_equal(lines, 4); /* header, odd, zz, end */
}

/* The cache entry of a container of the hook (it has a state directory)
 * does not refuse: its reservation files speak for it. */
static void test_own_entry_not_foreign(void **state)
{
	struct fx *f = *state;
	cache_entry(f, "a", "[" MAP(8080, "tcp") "]");
	reserved(f, "b", "[" MAP(8080, "tcp") "]");
	holders_are(f, "tcp-8080", "b *\n");
}

/* Once the other runtime's file is removed, its port is free and neither
 * index names it. */
static void test_foreign_removed(void **state)
{
	struct fx *f = *state;
	char *problem;
	cache_entry(f, "other", "[" MAP(8080, "tcp") "]");
	REFUSED(reserve(f, "b", "[" MAP(8080, "tcp") "]", &problem),
		HELD_BY_CACHE("8080/tcp", "other"));
	assert_true(index_names(f, "cnihook-ports.index", "other"));
	assert_true(index_names(f, "cnihook-ports.held", "other"));
	cache_entry_remove(f, "other");
	reserved(f, "b", "[" MAP(8080, "tcp") "]");
	assert_false(index_names(f, "cnihook-ports.index", "other"));
	assert_false(index_names(f, "cnihook-ports.held", "other"));
}

/* An entry added after the indexes were stamped (a new file) is seen. */
static void test_foreign_added_later(void **state)
{
	struct fx *f = *state;
	char *problem;
	cache_entry(f, "other", "[" MAP(9000, "tcp") "]");
	results_mtime(f, -10, NULL);
	reserved(f, "a", "[" MAP(8000, "tcp") "]");
	cache_entry(f, "late", "[" MAP(8080, "tcp") "]");
	REFUSED(reserve(f, "b", "[" MAP(8080, "tcp") "]", &problem),
		HELD_BY_CACHE("8080/tcp", "late"));
	assert_true(index_names(f, "cnihook-ports.held", "late"));
	REFUSED(reserve(f, "b", "[" MAP(9000, "tcp") "]", &problem),
		HELD_BY_CACHE("9000/tcp", "other"));
}

/* A directory younger than 0.1 s is not stamped: a file added within the
 * clock's granularity (the mtime kept) is still seen. */
static void test_racy_stamp(void **state)
{
	struct fx *f = *state;
	char *problem;
	struct timespec t;
	results_mtime(f, 5, &t);
	reserved(f, "a", "[" MAP(8000, "tcp") "]");
	_cleanup_free_ char *held_path = index_path(f, "cnihook-ports.held");
	_cleanup_free_ char *held = slurp(held_path);
	assert_non_null(held);
	assert_memory_equal(held, "cnihook-ports-held 2 racy ", 26);
	cache_entry(f, "late", "[" MAP(8080, "tcp") "]");
	struct timespec ts[2] = {{.tv_nsec = UTIME_OMIT}, t};
	assert_int_equal(utimensat(AT_FDCWD, f->results, ts, 0), 0);
	REFUSED(reserve(f, "b", "[" MAP(8080, "tcp") "]", &problem),
		HELD_BY_CACHE("8080/tcp", "late"));
}

/* The hook's own file coming and going leaves the set of files as it was:
 * the held index serves, the full one is not written again. */
static void test_own_files_come_and_go(void **state)
{
	struct fx *f = *state;
	char *problem;
	cache_entry(f, "other", "[" MAP(9000, "tcp") "]");
	results_mtime(f, -10, NULL);
	reserved(f, "a", "[" MAP(8000, "tcp") "]");
	_cleanup_free_ char *full_path = index_path(f, "cnihook-ports.index");
	ino_t full = inode(full_path);
	_cleanup_free_ char *before = slurp(full_path);

	/* b starts (its reservation, then its cache entry) and stops. */
	reserved(f, "b", "[" MAP(8001, "tcp") "]");
	cache_entry(f, "b", "[" MAP(8001, "tcp") "]");
	cache_entry_remove(f, "b");
	port_reservations_release(f->state, "b");
	REFUSED(reserve(f, "c", "[" MAP(9000, "tcp") "]", &problem),
		HELD_BY_CACHE("9000/tcp", "other"));
	assert_int_equal(inode(full_path), full);
	_cleanup_free_ char *after = slurp(full_path);
	assert_string_equal(after, before);
}

/* A way an index is damaged, as a crash of the host after a write that
 * was not synced leaves it: the bytes [cut, resume) of the index as
 * written replaced by `zeros` zero bytes. */
struct damage {
	const char *what;
	size_t cut, zeros, resume;
};

/* The damages of the index `text` around other's line. */
static void damages(const char *text, struct damage *d)
{
	size_t len = strlen(text);
	const char *nl = strchr(text, '\n');
	const char *other = strstr(text, "\tnet1-other-eth0\t");
	assert_non_null(nl);
	assert_non_null(other);
	while (other > text && other[-1] != '\n')
		other--;
	size_t header = (size_t)(nl - text) + 1, line = (size_t)(other - text);
	d[0] = (struct damage){"empty", 0, 0, len};
	d[1] = (struct damage){"its header cut", header / 2, 0, len};
	d[2] = (struct damage){"cut in other's line", line + 10, 0, len};
	d[3] = (struct damage){"cut before other's line", line, 0, len};
	d[4] = (struct damage){"zeros in other's line", line, 12, line + 12};
}

static void damage(const char *path, const char *text, const struct damage *d)
{
	size_t len = strlen(text);
	_cleanup_free_ char *b = xzalloc(len + 1);
	memcpy(b, text, d->cut);
	memcpy(b + d->cut + d->zeros, text + d->resume, len - d->resume);
	size_t n = d->cut + d->zeros + len - d->resume;
	assert_int_equal(file_write_atomic(path, b, n, 0600, false), 0);
}

/* Both indexes built beside entries of another runtime, "other" mapping
 * 8080/tcp, with a stamp that holds; the index `name` as written, and the
 * ways to damage it. */
#define N_DAMAGES 5
static char *foreign_indexed(struct fx *f, const char *name, struct damage d[N_DAMAGES])
{
	cache_entry(f, "other", "[" MAP(7000, "udp") "," MAP(8080, "tcp") "]");
	cache_entry(f, "third", "[" MAP(7001, "udp") "]");
	results_mtime(f, -10, NULL);
	reserved(f, "a", "[" MAP(8000, "tcp") "]");
	_cleanup_free_ char *path = index_path(f, name);
	char *good = slurp(path);
	assert_non_null(good);
	damages(good, d);
	return good;
}

/* 8080/tcp is refused to b, naming other, after the damage `what`. */
static void other_refuses(struct fx *f, const char *what)
{
	_cleanup_free_ char *problem = NULL;
	if (reserve(f, "b", "[" MAP(8080, "tcp") "]", &problem) == 0)
		fail_msg("%s: 8080/tcp not refused", what);
	assert_string_equal(problem, HELD_BY_CACHE("8080/tcp", "other"));
}

/* A damaged held index is not trusted, even with a stamp that holds: it
 * is rebuilt, and the refusal still made. */
static void test_damaged_held(void **state)
{
	struct fx *f = *state;
	struct damage d[N_DAMAGES];
	_cleanup_free_ char *good = foreign_indexed(f, "cnihook-ports.held", d);
	_cleanup_free_ char *path = index_path(f, "cnihook-ports.held");
	for (size_t i = 0; i < N_DAMAGES; i++) {
		damage(path, good, &d[i]);
		other_refuses(f, d[i].what);
		_cleanup_free_ char *again = slurp(path);
		if (again == NULL || strcmp(again, good) != 0)
			fail_msg("held index %s: not rebuilt:\n%s", d[i].what,
				 again ? again : "(none)");
	}
}

/* A damaged full index, read because a file came: rebuilt, and the
 * refusal still made. */
static void test_damaged_index(void **state)
{
	struct fx *f = *state;
	struct damage d[N_DAMAGES];
	_cleanup_free_ char *good = foreign_indexed(f, "cnihook-ports.index", d);
	_cleanup_free_ char *path = index_path(f, "cnihook-ports.index");
	for (size_t i = 0; i < N_DAMAGES; i++) {
		damage(path, good, &d[i]);
		/* A new name each time: a file of the same name and inode
		 * is the same file. */
		_cleanup_free_ char *late = xasprintf("late%zu", i);
		cache_entry(f, late, "[" MAP(9000, "tcp") "]");
		other_refuses(f, d[i].what);
		assert_true(index_names(f, "cnihook-ports.index", "other"));
		assert_true(index_names(f, "cnihook-ports.index", "third"));
		assert_true(index_names(f, "cnihook-ports.index", late));
		cache_entry_remove(f, late);
	}
}

/* A refusal of the second port leaves the first unreserved, whichever
 * holds the second: a container of the hook or another runtime. */
static void test_failed_reserve_leaves_nothing(void **state)
{
	struct fx *f = *state;
	char *problem;
	reserved(f, "a", "[" MAP(8081, "tcp") "]");
	cache_entry(f, "other", "[" MAP(9090, "tcp") "]");
	REFUSED(reserve2(f, "b", "[" MAP(8080, "tcp") "]", "[" MAP(8081, "tcp") "]", &problem),
		HELD("8081/tcp", "a"));
	holders_are(f, "tcp-8080", NULL);
	holders_are(f, "tcp-8081", "a *\n");
	list_is(f, "b", NULL);
	REFUSED(reserve(f, "b", "[" MAP(8080, "tcp") "," MAP(9090, "tcp") "]", &problem),
		HELD_BY_CACHE("9090/tcp", "other"));
	holders_are(f, "tcp-8080", NULL);
	holders_are(f, "tcp-9090", NULL);
	list_is(f, "b", NULL);
}

#define T(name) cmocka_unit_test_setup_teardown(name, fx_setup, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
	    T(test_refused_to_second),
	    T(test_no_overlap),
	    T(test_any_address),
	    T(test_canonical),
	    T(test_asked_twice),
	    T(test_no_mappings),
	    T(test_release),
	    T(test_stale_holder),
	    T(test_holder_with_cache_entry),
	    T(test_release_entry),
	    T(test_prune),
	    T(test_foreign_refuses),
	    T(test_foreign_odd_text),
	    T(test_own_entry_not_foreign),
	    T(test_foreign_removed),
	    T(test_foreign_added_later),
	    T(test_racy_stamp),
	    T(test_own_files_come_and_go),
	    T(test_damaged_held),
	    T(test_damaged_index),
	    T(test_failed_reserve_leaves_nothing),
	};
	return cmocka_run_group_tests(tests, tmpdir_make, tmpdir_remove);
}
