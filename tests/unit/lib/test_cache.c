/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of lib/cache.c: the result cache shared with the reference library. */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <cmocka.h>

#include "internal.h"

/* ------------------------------------------------------------- fixtures */

struct fx {
	char *top;   /* temp dir, removed at teardown */
	char *cache; /* <top>/cache, not created by the fixture */
	char *mnt;   /* a tmpfs mounted at <top>/mnt, or NULL */
	cnirt_ctx *ctx;
};

static void rm_rf(const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		if (d) {
			struct dirent *de;
			while ((de = readdir(d)) != NULL) {
				if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
					continue;
				_cleanup_free_ char *sub = xasprintf("%s/%s", path, de->d_name);
				rm_rf(sub);
			}
			closedir(d);
		}
		rmdir(path);
	} else {
		unlink(path);
	}
}

static int setup(void **state)
{
	struct fx *f = xzalloc(sizeof(*f));
	f->top = xstrdup("/tmp/cnirt-cache-test-XXXXXX");
	if (mkdtemp(f->top) == NULL)
		return -1;
	f->cache = xasprintf("%s/cache", f->top);
	f->ctx = cnirt_ctx_new();
	cnirt_ctx_set_cache_dir(f->ctx, f->cache);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	if (f->mnt) {
		umount2(f->mnt, MNT_DETACH);
		free(f->mnt);
	}
	rm_rf(f->top);
	cnirt_ctx_free(f->ctx);
	free(f->top);
	free(f->cache);
	free(f);
	return 0;
}

/*
 * Mount a tmpfs of `size` at <top>/mnt and point the cache there. The
 * mount is made in a private mount namespace of this test process, so it
 * cannot outlive the process even if teardown never runs. Returns false
 * (and the test is skipped) when that is not possible here.
 */
static bool mount_tmpfs(struct fx *f, const char *size)
{
	static int unshared; /* 0: not tried, 1: done, -1: failed */
	if (unshared == 0) {
		unshared = -1;
		if (unshare(CLONE_NEWNS) == 0 &&
		    mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) == 0)
			unshared = 1;
	}
	if (unshared < 0) {
		print_message("skipped: cannot make a private mount namespace: %s\n",
			      strerror(errno));
		return false;
	}
	_cleanup_free_ char *mnt = xasprintf("%s/mnt", f->top);
	_cleanup_free_ char *opts = xasprintf("size=%s,mode=0755", size);
	if (mkdir(mnt, 0755) < 0 || mount("tmpfs", mnt, "tmpfs", 0, opts) < 0) {
		print_message("skipped: cannot mount a tmpfs on %s: %s\n", mnt, strerror(errno));
		return false;
	}
	f->mnt = TAKE_PTR(mnt);
	free(f->cache);
	f->cache = xasprintf("%s/cache", f->mnt);
	cnirt_ctx_set_cache_dir(f->ctx, f->cache);
	return true;
}

static bool remount_ro(struct fx *f)
{
	if (mount("tmpfs", f->mnt, "tmpfs", MS_REMOUNT | MS_RDONLY, NULL) < 0) {
		print_message("skipped: cannot remount %s read-only: %s\n", f->mnt,
			      strerror(errno));
		return false;
	}
	return true;
}

/* ------------------------------------------------------------- helpers */

/* A list as conf.c would load it; only the fields the cache uses. */
static cnirt_netlist *make_list(const char *name, const char *bytes)
{
	cnirt_netlist *l = xzalloc(sizeof(*l));
	l->name = xstrdup(name);
	l->bytes = xstrdup(bytes);
	l->len = strlen(bytes);
	return l;
}

static void free_list(cnirt_netlist *l)
{
	free(l->name);
	free(l->bytes);
	free(l);
}

static json *parse(const char *text)
{
	json *j = NULL;
	cnirt_error *err = NULL;
	if (json_read_parse(text, strlen(text), "test JSON", &j, &err) < 0)
		fail_msg("test JSON does not parse: %s", cnirt_error_msg(err));
	return j;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "re");
	if (fp == NULL)
		return NULL;
	struct buf b = {0};
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0)
		buf_append(&b, chunk, n);
	fclose(fp);
	return buf_steal(&b, len);
}

static void put_file(const char *path, const char *content)
{
	FILE *fp = fopen(path, "we");
	assert_non_null(fp);
	assert_int_equal(fwrite(content, 1, strlen(content), fp), strlen(content));
	assert_int_equal(fclose(fp), 0);
}

static void make_results_dir(struct fx *f)
{
	_cleanup_free_ char *r = xasprintf("%s/results", f->cache);
	mkdir(f->cache, 0700);
	assert_int_equal(mkdir(r, 0700), 0);
}

/* Names in `dir`, sorted and joined with ' ' ("" when empty). */
static char *dir_listing(const char *dir)
{
	struct dirent **names = NULL;
	int n = scandir(dir, &names, NULL, alphasort);
	if (n < 0)
		return xstrdup("<missing>");
	struct buf b = {0};
	buf_append(&b, "", 0); /* NUL terminated even when nothing follows */
	for (int i = 0; i < n; i++) {
		if (strcmp(names[i]->d_name, ".") != 0 && strcmp(names[i]->d_name, "..") != 0) {
			if (b.len)
				buf_appends(&b, " ");
			buf_appends(&b, names[i]->d_name);
		}
		free(names[i]);
	}
	free(names);
	return buf_steal(&b, NULL);
}

static char *results_listing(struct fx *f)
{
	_cleanup_free_ char *r = xasprintf("%s/results", f->cache);
	return dir_listing(r);
}

static const char LIST1[] =
    "{\"cniVersion\":\"1.0.0\",\"name\":\"net1\",\"plugins\":[{\"type\":\"bridge\","
    "\"bridge\":\"cni0\"}]}";
/* base64 of LIST1 */
static const char LIST1_B64[] = "eyJjbmlWZXJzaW9uIjoiMS4wLjAiLCJuYW1lIjoibmV0MSIsInBsdWdpbnMiOlt7"
				"InR5cGUiOiJicmlkZ2UiLCJicmlkZ2UiOiJjbmkwIn1dfQ==";
static const char RESULT1[] =
    "{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"eth0\",\"mac\":\"aa:bb:cc:dd:ee:"
    "ff\",\"sandbox\":\"/var/run/netns/x\"}],\"ips\":[{\"interface\":0,\"address\":\"10.1."
    "2.3/24\",\"gateway\":\"10.1.2.1\"}],\"routes\":[{\"dst\":\"0.0.0.0/0\"}],\"dns\":{"
    "\"nameservers\":[\"10.1.2.1\"]}}";
static const char CAPS1[] =
    "{\"portMappings\":[{\"hostPort\":8080,\"containerPort\":80,\"protocol\":\"tcp\"}]}";
static const cnirt_kv ARGS1[] = {{"IgnoreUnknown", "1"}, {"K8S_POD_NAME", "p"}};

static const cnirt_attachment ATT1 = {
    .container_id = "ctr1",
    .netns = "/var/run/netns/x",
    .ifname = "eth0",
    .args = ARGS1,
    .n_args = 2,
    .capability_args = CAPS1,
};

/* Write LIST1 / ATT1 (with the given ifname and result) to the cache. */
static void write_entry(struct fx *f, const char *network, const char *ifname, const char *result)
{
	cnirt_netlist *l = make_list(network, LIST1);
	cnirt_attachment a = ATT1;
	a.ifname = ifname;
	_cleanup_json_ json *r = parse(result);
	cnirt_error *err = NULL;
	int rc = cache_write(f->ctx, l, &a, r, &err);
	if (rc < 0)
		fail_msg("cache_write: %s", cnirt_error_msg(err));
	free_list(l);
}

/* -------------------------------------------------------------- tests */

/* One container's entries found by file name: only the files
 * named -<id>- are read, and a file so named whose fields say otherwise is
 * no entry of it. */
static void test_list_container(void **state)
{
	struct fx *f = *state;
	write_entry(f, "net1", "eth0", RESULT1);
	write_entry(f, "net2", "eth1", RESULT1);
	cnirt_netlist *l = make_list("net1", LIST1);
	cnirt_attachment other = ATT1;
	other.container_id = "ctr10";
	_cleanup_json_ json *r = parse(RESULT1);
	cnirt_error *err = NULL;
	assert_int_equal(cache_write(f->ctx, l, &other, r, &err), 0);
	free_list(l);
	_cleanup_free_ char *decoy = xasprintf("%s/results/net1-ctr10-eth0", f->cache);
	_cleanup_free_ char *fake = xasprintf("%s/results/x-ctr1-eth9", f->cache);
	size_t len;
	_cleanup_free_ char *text = slurp(decoy, &len);
	put_file(fake, text);

	cnirt_cache_entry **v = NULL;
	size_t n = 0;
	assert_int_equal(cnirt_cache_list_container(f->ctx, "ctr1", &v, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(cnirt_cache_entry_network(v[0]), "net1");
	assert_string_equal(cnirt_cache_entry_network(v[1]), "net2");
	cnirt_cache_entries_free(v, n);
	assert_int_equal(cnirt_cache_list_container(f->ctx, "nobody", &v, &n, &err), 0);
	assert_int_equal(n, 0);
	cnirt_cache_entries_free(v, n);

	cnirt_cache_entry *e = NULL;
	assert_int_equal(cnirt_cache_get_file(f->ctx, "net1-ctr10-eth0", &e, &err), 0);
	assert_non_null(e);
	assert_string_equal(cnirt_cache_entry_container_id(e), "ctr10");
	cnirt_cache_entry_free(e);
	e = NULL;
	assert_int_equal(cnirt_cache_get_file(f->ctx, "net9-ctr1-eth0", &e, &err), 0);
	assert_null(e);
	assert_int_equal(cnirt_cache_get_file(f->ctx, "x-ctr1-eth9", &e, &err), -1);
	assert_null(e);
	assert_non_null(strstr(cnirt_error_msg(err), "x-ctr1-eth9"));
	cnirt_error_free(TAKE_PTR(err));
	assert_int_equal(cnirt_cache_get_file(f->ctx, "../x", &e, &err), -1);
	cnirt_error_free(TAKE_PTR(err));
}

static void test_args_join(void **state)
{
	(void)state;
	assert_null(cache_args_join(NULL, 0));
	_cleanup_free_ char *one = cache_args_join(ARGS1, 1);
	assert_string_equal(one, "IgnoreUnknown=1");
	_cleanup_free_ char *two = cache_args_join(ARGS1, 2);
	assert_string_equal(two, "IgnoreUnknown=1;K8S_POD_NAME=p");
	const cnirt_kv empty[] = {{"K", ""}};
	_cleanup_free_ char *e = cache_args_join(empty, 1);
	assert_string_equal(e, "K=");
}

static void test_path(void **state)
{
	struct fx *f = *state;
	cnirt_error *err = NULL;
	_cleanup_free_ char *path = NULL;
	assert_int_equal(cache_path(f->ctx, "my-net", "ctr1", "eth0", &path, &err), 0);
	_cleanup_free_ char *want = xasprintf("%s/results/my-net-ctr1-eth0", f->cache);
	assert_string_equal(path, want);
}

static void test_round_trip(void **state)
{
	struct fx *f = *state;
	time_t before = time(NULL);
	write_entry(f, "net1", "eth0", RESULT1);

	cnirt_error *err = NULL;
	cnirt_cache_entry *e = NULL;
	assert_int_equal(cnirt_cache_get(f->ctx, "net1", "ctr1", "eth0", &e, &err), 0);
	assert_non_null(e);
	assert_string_equal(cnirt_cache_entry_network(e), "net1");
	assert_string_equal(cnirt_cache_entry_container_id(e), "ctr1");
	assert_string_equal(cnirt_cache_entry_ifname(e), "eth0");
	assert_string_equal(cnirt_cache_entry_netns(e), "/var/run/netns/x");
	size_t len = 0;
	const char *config = cnirt_cache_entry_config(e, &len);
	assert_non_null(config);
	assert_int_equal(len, strlen(LIST1));
	assert_memory_equal(config, LIST1, len);
	assert_int_equal(cnirt_cache_entry_arg_count(e), 2);
	assert_string_equal(cnirt_cache_entry_arg_key(e, 0), "IgnoreUnknown");
	assert_string_equal(cnirt_cache_entry_arg_value(e, 0), "1");
	assert_string_equal(cnirt_cache_entry_arg_key(e, 1), "K8S_POD_NAME");
	assert_string_equal(cnirt_cache_entry_arg_value(e, 1), "p");
	assert_null(cnirt_cache_entry_arg_key(e, 2));
	_cleanup_json_ json *caps = parse(cnirt_cache_entry_capability_args(e));
	_cleanup_json_ json *caps_want = parse(CAPS1);
	assert_true(json_equal(caps, caps_want));
	_cleanup_json_ json *res = parse(cnirt_cache_entry_result(e));
	_cleanup_json_ json *res_want = parse(RESULT1);
	assert_true(json_equal(res, res_want));
	assert_true(cnirt_cache_entry_mtime(e) >= (long long)before - 1);
	assert_true(cnirt_cache_entry_mtime(e) <= (long long)time(NULL) + 1);
	cnirt_cache_entry_free(e);

	_cleanup_json_ json *prev = NULL;
	assert_int_equal(cache_read_result(f->ctx, "net1", "ctr1", "eth0", &prev, NULL, &err), 0);
	assert_non_null(prev);
	assert_true(json_equal(prev, res_want));
}

/* The reference library's cachedInfo: kind, containerId, config, ifName,
 * networkName, netns (omitempty), cniArgs (omitempty), capabilityArgs
 * (omitempty), result (omitempty), in that order. */
static void test_reference_format(void **state)
{
	struct fx *f = *state;
	write_entry(f, "net1", "eth0", RESULT1);

	_cleanup_free_ char *path = xasprintf("%s/results/net1-ctr1-eth0", f->cache);
	size_t len;
	_cleanup_free_ char *text = slurp(path, &len);
	assert_non_null(text);
	_cleanup_json_ json *got = parse(text);
	_cleanup_json_ json *want = parse(
	    "{\"kind\":\"cniCacheV1\",\"containerId\":\"ctr1\","
	    "\"config\":\"eyJjbmlWZXJzaW9uIjoiMS4wLjAiLCJuYW1lIjoibmV0MSIsInBsdWdpbnMiOlt7InR5cG"
	    "UiOiJicmlkZ2UiLCJicmlkZ2UiOiJjbmkwIn1dfQ==\","
	    "\"ifName\":\"eth0\",\"networkName\":\"net1\",\"netns\":\"/var/run/netns/x\","
	    "\"cniArgs\":[[\"IgnoreUnknown\",\"1\"],[\"K8S_POD_NAME\",\"p\"]],"
	    "\"capabilityArgs\":{\"portMappings\":[{\"containerPort\":80,\"hostPort\":8080,"
	    "\"protocol\":\"tcp\"}]},"
	    "\"result\":{\"cniVersion\":\"1.0.0\",\"dns\":{\"nameservers\":[\"10.1.2.1\"]},"
	    "\"interfaces\":[{\"mac\":\"aa:bb:cc:dd:ee:ff\",\"name\":\"eth0\",\"sandbox\":\"/"
	    "var/run/netns/x\"}],\"ips\":[{\"address\":\"10.1.2.3/24\",\"gateway\":\"10.1.2.1\","
	    "\"interface\":0}],\"routes\":[{\"dst\":\"0.0.0.0/0\"}]}}");
	if (!json_equal(got, want))
		fail_msg("cache file differs from the reference format: %s", text);

	static const char *const order[] = {"kind",    "containerId",	 "config",
					    "ifName",  "networkName",	 "netns",
					    "cniArgs", "capabilityArgs", "result"};
	assert_int_equal(got->u.object.n, ARRAY_SIZE(order));
	for (size_t i = 0; i < ARRAY_SIZE(order); i++)
		assert_string_equal(got->u.object.k[i], order[i]);
	/* Compact, as Go's json.Marshal writes it. */
	assert_null(strchr(text, '\n'));
	assert_string_equal(json_str(json_obj_get(got, "config")), LIST1_B64);
}

static void test_reference_format_omitempty(void **state)
{
	struct fx *f = *state;
	cnirt_netlist *l = make_list("net1", LIST1);
	cnirt_attachment a = {.container_id = "ctr1", .netns = "", .ifname = "eth0"};
	_cleanup_json_ json *r = parse(RESULT1);
	cnirt_error *err = NULL;
	assert_int_equal(cache_write(f->ctx, l, &a, r, &err), 0);
	a.capability_args = "{}";
	a.ifname = "eth1";
	assert_int_equal(cache_write(f->ctx, l, &a, r, &err), 0);
	free_list(l);

	static const char *const ifnames[] = {"eth0", "eth1"};
	for (size_t k = 0; k < ARRAY_SIZE(ifnames); k++) {
		_cleanup_free_ char *path =
		    xasprintf("%s/results/net1-ctr1-%s", f->cache, ifnames[k]);
		_cleanup_free_ char *text = slurp(path, NULL);
		assert_non_null(text);
		_cleanup_json_ json *got = parse(text);
		static const char *const order[] = {"kind",   "containerId", "config",
						    "ifName", "networkName", "result"};
		if (got->u.object.n != ARRAY_SIZE(order))
			fail_msg("empty netns/cniArgs/capabilityArgs not omitted: %s", text);
		for (size_t i = 0; i < ARRAY_SIZE(order); i++)
			assert_string_equal(got->u.object.k[i], order[i]);
	}
}

/* A file written by the reference library (libcni 1.1, no netns field). */
static const char REFERENCE_WRITTEN[] =
    "{\"kind\":\"cniCacheV1\",\"containerId\":\"ctr1\",\"config\":"
    "\"eyJjbmlWZXJzaW9uIjoiMS4wLjAiLCJuYW1lIjoibmV0MSIsInBsdWdpbnMiOlt7InR5cGUiOiJicmlkZ2Ui"
    "LCJicmlkZ2UiOiJjbmkwIn1dfQ==\",\"ifName\":\"eth0\",\"networkName\":\"net1\","
    "\"cniArgs\":[[\"IgnoreUnknown\",\"1\"],[\"K8S_POD_NAME\",\"p\"]],\"capabilityArgs\":{"
    "\"portMappings\":[{\"containerPort\":80,\"hostPort\":8080,\"protocol\":\"tcp\"}]},"
    "\"result\":{\"cniVersion\":\"1.0.0\",\"dns\":{\"nameservers\":[\"10.1.2.1\"]},"
    "\"interfaces\":[{\"mac\":\"aa:bb:cc:dd:ee:ff\",\"name\":\"eth0\",\"sandbox\":\"/var/"
    "run/netns/x\"}],\"ips\":[{\"address\":\"10.1.2.3/24\",\"gateway\":\"10.1.2.1\","
    "\"interface\":0}],\"routes\":[{\"dst\":\"0.0.0.0/0\"}]}}";

static void test_read_reference_written(void **state)
{
	struct fx *f = *state;
	make_results_dir(f);
	_cleanup_free_ char *path = xasprintf("%s/results/net1-ctr1-eth0", f->cache);
	put_file(path, REFERENCE_WRITTEN);

	cnirt_error *err = NULL;
	cnirt_cache_entry *e = NULL;
	assert_int_equal(cnirt_cache_get(f->ctx, "net1", "ctr1", "eth0", &e, &err), 0);
	assert_non_null(e);
	assert_null(cnirt_cache_entry_netns(e));
	size_t len;
	const char *config = cnirt_cache_entry_config(e, &len);
	assert_int_equal(len, strlen(LIST1));
	assert_memory_equal(config, LIST1, len);
	assert_int_equal(cnirt_cache_entry_arg_count(e), 2);
	_cleanup_json_ json *res = parse(cnirt_cache_entry_result(e));
	_cleanup_json_ json *res_want = parse(RESULT1);
	assert_true(json_equal(res, res_want));
	cnirt_cache_entry_free(e);
}

static void test_modes(void **state)
{
	struct fx *f = *state;
	mode_t old = umask(022);
	write_entry(f, "net1", "eth0", RESULT1);
	umask(old);

	struct stat st;
	assert_int_equal(stat(f->cache, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	_cleanup_free_ char *results = xasprintf("%s/results", f->cache);
	assert_int_equal(stat(results, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	_cleanup_free_ char *path = xasprintf("%s/net1-ctr1-eth0", results);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
}

/* A cache directory that exists keeps its mode; only the results
 * directory is created, 0700. */
static void test_existing_cache_dir_kept(void **state)
{
	struct fx *f = *state;
	struct stat st;
	_cleanup_free_ char *results = xasprintf("%s/results", f->cache);

	assert_int_equal(mkdir(f->cache, 0755), 0);
	assert_int_equal(chmod(f->cache, 0755), 0);
	write_entry(f, "net1", "eth0", RESULT1);
	assert_int_equal(stat(f->cache, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
	assert_int_equal(stat(results, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	_cleanup_free_ char *names = results_listing(f);
	assert_string_equal(names, "net1-ctr1-eth0");
}

/* A cache directory that is a file: an error naming it, nothing written. */
static void test_cache_dir_not_a_directory(void **state)
{
	struct fx *f = *state;
	cnirt_netlist *l = make_list("net1", LIST1);
	_cleanup_json_ json *r = parse(RESULT1);
	cnirt_error *err = NULL;

	put_file(f->cache, "not a directory\n");
	int rc = cache_write(f->ctx, l, &ATT1, r, &err);
	free_list(l);
	assert_int_equal(rc, -1);
	assert_int_equal(cnirt_error_errno(err), ENOTDIR);
	assert_non_null(strstr(cnirt_error_msg(err), f->cache));
	cnirt_error_free(err);
	size_t len;
	_cleanup_free_ char *text = slurp(f->cache, &len);
	assert_non_null(text);
	assert_int_equal(len, strlen("not a directory\n"));
	assert_memory_equal(text, "not a directory\n", len);
}

static void test_no_temp_left(void **state)
{
	struct fx *f = *state;
	write_entry(f, "net1", "eth0", RESULT1);
	_cleanup_free_ char *names = results_listing(f);
	assert_string_equal(names, "net1-ctr1-eth0");
}

static void test_rewrite_replaces(void **state)
{
	struct fx *f = *state;
	write_entry(f, "net1", "eth0", RESULT1);
	static const char second[] = "{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":"
				     "\"10.9.9.9/24\"}]}";
	write_entry(f, "net1", "eth0", second);

	cnirt_error *err = NULL;
	_cleanup_json_ json *got = NULL;
	assert_int_equal(cache_read_result(f->ctx, "net1", "ctr1", "eth0", &got, NULL, &err), 0);
	_cleanup_json_ json *want = parse(second);
	assert_non_null(got);
	assert_true(json_equal(got, want));
	_cleanup_free_ char *names = results_listing(f);
	assert_string_equal(names, "net1-ctr1-eth0");
}

static void test_bad_names(void **state)
{
	struct fx *f = *state;
	char long_if[17];
	memset(long_if, 'a', 16);
	long_if[16] = '\0';
	char long_net[201];
	memset(long_net, 'n', 200);
	long_net[200] = '\0';
	char long_id[61];
	memset(long_id, 'c', 60);
	long_id[60] = '\0';
	const struct {
		const char *net, *id, *ifname;
	} bad[] = {
	    {"../x", "ctr1", "eth0"},
	    {"net1", "../../etc", "eth0"},
	    {"net1", "ctr1", "../x"},
	    {"a/b", "ctr1", "eth0"},
	    {"net1", "a/b", "eth0"},
	    {"net1", "ctr1", "a/b"},
	    {"", "ctr1", "eth0"},
	    {"net1", "", "eth0"},
	    {"net1", "ctr1", ""},
	    {NULL, "ctr1", "eth0"},
	    {"net1", NULL, "eth0"},
	    {"net1", "ctr1", NULL},
	    {"net1", "ctr1", long_if},
	    {".", "ctr1", "eth0"},
	    {"..", "ctr1", "eth0"},
	    {"net1", ".", "eth0"},
	    {"net1", "..", "eth0"},
	    {"net1", "ctr1", "."},
	    {"net1", "ctr1", ".."},
	    /* each name valid, the file name longer than NAME_MAX */
	    {long_net, long_id, "eth0"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		cnirt_error *err = NULL;
		char *path = NULL;
		if (cache_path(f->ctx, bad[i].net, bad[i].id, bad[i].ifname, &path, &err) == 0)
			fail_msg("case %zu: cache_path accepted %s", i, path);
		assert_non_null(err);
		cnirt_error_free(err);
		err = NULL;

		cnirt_netlist *l = make_list(bad[i].net ? bad[i].net : "", LIST1);
		if (bad[i].net == NULL) {
			free(l->name);
			l->name = NULL;
		}
		cnirt_attachment a = ATT1;
		a.container_id = bad[i].id;
		a.ifname = bad[i].ifname;
		json *r = parse(RESULT1);
		if (cache_write(f->ctx, l, &a, r, &err) == 0)
			fail_msg("case %zu: cache_write accepted the names", i);
		cnirt_error_free(err);
		err = NULL;
		json_free(r);
		free_list(l);

		r = NULL;
		if (cache_read_result(f->ctx, bad[i].net, bad[i].id, bad[i].ifname, &r, NULL,
				      &err) == 0)
			fail_msg("case %zu: cache_read_result accepted the names", i);
		cnirt_error_free(err);
		err = NULL;
		if (cache_remove(f->ctx, bad[i].net, bad[i].id, bad[i].ifname, NULL, &err) == 0)
			fail_msg("case %zu: cache_remove accepted the names", i);
		cnirt_error_free(err);
		err = NULL;
		cnirt_cache_entry *e = NULL;
		if (cnirt_cache_get(f->ctx, bad[i].net, bad[i].id, bad[i].ifname, &e, &err) == 0)
			fail_msg("case %zu: cnirt_cache_get accepted the names", i);
		cnirt_error_free(err);
	}
	/* Nothing was created, in the cache directory or beside it. */
	_cleanup_free_ char *names = dir_listing(f->top);
	assert_string_equal(names, "");
}

static void test_long_name_within_limit(void **state)
{
	struct fx *f = *state;
	/* 255 bytes exactly: "<net>-<id>-eth0" */
	char net[200], id[51];
	memset(net, 'n', sizeof(net) - 1);
	net[sizeof(net) - 1] = '\0';
	memset(id, 'c', sizeof(id) - 1);
	id[sizeof(id) - 1] = '\0';
	assert_int_equal(strlen(net) + strlen(id) + strlen("eth0") + 2, NAME_MAX);
	cnirt_netlist *l = make_list(net, LIST1);
	cnirt_attachment a = ATT1;
	a.container_id = id;
	_cleanup_json_ json *r = parse(RESULT1);
	cnirt_error *err = NULL;
	int rc = cache_write(f->ctx, l, &a, r, &err);
	if (rc < 0)
		fail_msg("cache_write: %s", cnirt_error_msg(err));
	free_list(l);
	cnirt_cache_entry *e = NULL;
	assert_int_equal(cnirt_cache_get(f->ctx, net, id, "eth0", &e, &err), 0);
	assert_non_null(e);
	cnirt_cache_entry_free(e);
}

static void test_corrupt(void **state)
{
	struct fx *f = *state;
	make_results_dir(f);
	_cleanup_free_ char *path = xasprintf("%s/results/net1-ctr1-eth0", f->cache);
	static const struct {
		const char *content, *problem;
		bool result_usable; /* the result itself is intact */
	} cases[] = {
	    {"{\"kind\":\"cniCacheV1\",", "invalid JSON", false},
	    {"", "empty", false},
	    {"not json", "invalid JSON", false},
	    {"[1,2]", "not a JSON object", false},
	    {"{\"kind\":\"cniCacheV2\",\"containerId\":\"ctr1\",\"ifName\":\"eth0\","
	     "\"networkName\":\"net1\",\"result\":{\"cniVersion\":\"1.0.0\"}}",
	     "\"kind\"", false},
	    {"{\"containerId\":\"ctr1\",\"ifName\":\"eth0\",\"networkName\":\"net1\"}", "\"kind\"",
	     false},
	    /* the config is broken but the result is intact: still a prevResult */
	    {"{\"kind\":\"cniCacheV1\",\"containerId\":\"ctr1\",\"ifName\":\"eth0\","
	     "\"networkName\":\"net1\",\"config\":\"!!!\",\"result\":{\"cniVersion\":"
	     "\"1.0.0\"}}",
	     "\"config\"", true},
	    {"{\"kind\":\"cniCacheV1\",\"containerId\":\"ctr1\",\"ifName\":\"eth0\","
	     "\"networkName\":\"net1\",\"cniArgs\":[[\"K\"]]}",
	     "\"cniArgs\"", false},
	    {"{\"kind\":\"cniCacheV1\",\"ifName\":\"eth0\",\"networkName\":\"net1\"}",
	     "\"containerId\"", false},
	    {"{\"kind\":\"cniCacheV1\",\"containerId\":\"ctr1\",\"ifName\":\"eth0\","
	     "\"networkName\":\"net1\",\"result\":[1]}",
	     "\"result\"", false},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		put_file(path, cases[i].content);

		cnirt_error *err = NULL;
		json *r = NULL;
		if (cache_read_result(f->ctx, "net1", "ctr1", "eth0", &r, NULL, &err) != 0)
			fail_msg("case %zu: cache_read_result failed: %s", i, cnirt_error_msg(err));
		if (r != NULL && !cases[i].result_usable)
			fail_msg("case %zu: cache_read_result gave a result", i);
		if (r == NULL && cases[i].result_usable)
			fail_msg("case %zu: cache_read_result lost an intact result", i);
		json_free(r);

		cnirt_cache_entry *e = NULL;
		if (cnirt_cache_get(f->ctx, "net1", "ctr1", "eth0", &e, &err) == 0)
			fail_msg("case %zu: cnirt_cache_get accepted a corrupt entry", i);
		assert_int_equal(cnirt_error_code(err), CNIRT_ERR_DECODE);
		const char *msg = cnirt_error_msg(err);
		if (strstr(msg, path) == NULL || strstr(msg, cases[i].problem) == NULL)
			fail_msg("case %zu: message should name %s and %s: %s", i, path,
				 cases[i].problem, msg);
		cnirt_error_free(err);
	}
}

static void test_no_result(void **state)
{
	struct fx *f = *state;
	make_results_dir(f);
	_cleanup_free_ char *path = xasprintf("%s/results/net1-ctr1-eth0", f->cache);
	put_file(path, "{\"kind\":\"cniCacheV1\",\"containerId\":\"ctr1\",\"ifName\":\"eth0\","
		       "\"networkName\":\"net1\",\"config\":\"e30=\"}");
	cnirt_error *err = NULL;
	json *r = NULL;
	assert_int_equal(cache_read_result(f->ctx, "net1", "ctr1", "eth0", &r, NULL, &err), 0);
	assert_null(r);
	cnirt_cache_entry *e = NULL;
	assert_int_equal(cnirt_cache_get(f->ctx, "net1", "ctr1", "eth0", &e, &err), 0);
	assert_non_null(e);
	assert_null(cnirt_cache_entry_result(e));
	assert_null(cnirt_cache_entry_capability_args(e));
	assert_int_equal(cnirt_cache_entry_arg_count(e), 0);
	size_t len;
	assert_string_equal(cnirt_cache_entry_config(e, &len), "{}");
	assert_int_equal(len, 2);
	cnirt_cache_entry_free(e);
}

/* Old libcni versions cached the bare result. */
static void test_legacy(void **state)
{
	struct fx *f = *state;
	make_results_dir(f);
	_cleanup_free_ char *path = xasprintf("%s/results/net1-ctr1-eth0", f->cache);
	static const char legacy[] = "{\"cniVersion\":\"0.3.1\",\"ips\":[{\"version\":\"4\","
				     "\"address\":\"10.1.2.3/24\"}]}";
	put_file(path, legacy);

	cnirt_error *err = NULL;
	_cleanup_json_ json *r = NULL;
	assert_int_equal(cache_read_result(f->ctx, "net1", "ctr1", "eth0", &r, NULL, &err), 0);
	_cleanup_json_ json *want = parse(legacy);
	assert_non_null(r);
	assert_true(json_equal(r, want));

	cnirt_cache_entry *e = NULL;
	assert_int_equal(cnirt_cache_get(f->ctx, "net1", "ctr1", "eth0", &e, &err), 0);
	assert_non_null(e);
	assert_string_equal(cnirt_cache_entry_network(e), "net1");
	assert_string_equal(cnirt_cache_entry_container_id(e), "ctr1");
	assert_string_equal(cnirt_cache_entry_ifname(e), "eth0");
	assert_null(cnirt_cache_entry_config(e, NULL));
	_cleanup_json_ json *got = parse(cnirt_cache_entry_result(e));
	assert_true(json_equal(got, want));
	cnirt_cache_entry_free(e);
}

static void test_missing(void **state)
{
	struct fx *f = *state;
	cnirt_error *err = NULL;
	json *r = (json *)&r;
	assert_int_equal(cache_read_result(f->ctx, "net1", "ctr1", "eth0", &r, NULL, &err), 0);
	assert_null(r);
	cnirt_cache_entry *e = (cnirt_cache_entry *)&e;
	assert_int_equal(cnirt_cache_get(f->ctx, "net1", "ctr1", "eth0", &e, &err), 0);
	assert_null(e);
	assert_null(err);
}

static void test_symlink_not_followed(void **state)
{
	struct fx *f = *state;
	make_results_dir(f);
	_cleanup_free_ char *target = xasprintf("%s/elsewhere", f->top);
	put_file(target, REFERENCE_WRITTEN);
	_cleanup_free_ char *path = xasprintf("%s/results/net1-ctr1-eth0", f->cache);
	assert_int_equal(symlink(target, path), 0);

	cnirt_error *err = NULL;
	json *r = NULL;
	assert_int_equal(cache_read_result(f->ctx, "net1", "ctr1", "eth0", &r, NULL, &err), 0);
	assert_null(r);
	cnirt_cache_entry *e = NULL;
	assert_int_equal(cnirt_cache_get(f->ctx, "net1", "ctr1", "eth0", &e, &err), -1);
	assert_non_null(strstr(cnirt_error_msg(err), path));
	cnirt_error_free(err);
	err = NULL;
	cnirt_cache_entry **v = NULL;
	size_t n = 99;
	assert_int_equal(cnirt_cache_list(f->ctx, &v, &n, &err), 0);
	assert_int_equal(n, 0);
	cnirt_cache_entries_free(v, n);
}

static void test_too_big(void **state)
{
	struct fx *f = *state;
	make_results_dir(f);
	_cleanup_free_ char *path = xasprintf("%s/results/net1-ctr1-eth0", f->cache);
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)(65 << 20)), 0); /* sparse */
	close(fd);

	cnirt_error *err = NULL;
	cnirt_cache_entry *e = NULL;
	assert_int_equal(cnirt_cache_get(f->ctx, "net1", "ctr1", "eth0", &e, &err), -1);
	if (strstr(cnirt_error_msg(err), "64 MiB") == NULL)
		fail_msg("message should give the size cap: %s", cnirt_error_msg(err));
	cnirt_error_free(err);
	err = NULL;
	json *r = NULL;
	assert_int_equal(cache_read_result(f->ctx, "net1", "ctr1", "eth0", &r, NULL, &err), 0);
	assert_null(r);
}

static void test_list(void **state)
{
	struct fx *f = *state;
	write_entry(f, "net1", "eth1", RESULT1);
	write_entry(f, "my-net", "eth0", RESULT1);
	/* one written by the reference library (network "net1", no netns) */
	_cleanup_free_ char *ref = xasprintf("%s/results/net1-ctr1-eth0", f->cache);
	put_file(ref, REFERENCE_WRITTEN);
	/* a corrupt entry, a temp file with valid content, a directory */
	_cleanup_free_ char *bad = xasprintf("%s/results/a-ctr1-eth0", f->cache);
	put_file(bad, "{\"kind\":");
	_cleanup_free_ char *tmp = xasprintf("%s/results/.net1-ctr1-eth2.tmpAbCdEf", f->cache);
	put_file(tmp, REFERENCE_WRITTEN);
	_cleanup_free_ char *sub = xasprintf("%s/results/dir-ctr1-eth0", f->cache);
	assert_int_equal(mkdir(sub, 0700), 0);

	cnirt_error *err = NULL;
	cnirt_cache_entry **v = NULL;
	size_t n = 0;
	assert_int_equal(cnirt_cache_list(f->ctx, &v, &n, &err), 0);
	/* sorted by file name: my-net-ctr1-eth0, net1-ctr1-eth0, net1-ctr1-eth1 */
	static const struct {
		const char *net, *ifname;
	} want[] = {{"my-net", "eth0"}, {"net1", "eth0"}, {"net1", "eth1"}};
	assert_int_equal(n, ARRAY_SIZE(want));
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(cnirt_cache_entry_network(v[i]), want[i].net);
		assert_string_equal(cnirt_cache_entry_container_id(v[i]), "ctr1");
		assert_string_equal(cnirt_cache_entry_ifname(v[i]), want[i].ifname);
		assert_non_null(cnirt_cache_entry_result(v[i]));
	}
	assert_null(cnirt_cache_entry_netns(v[1]));
	assert_string_equal(cnirt_cache_entry_netns(v[0]), "/var/run/netns/x");
	cnirt_cache_entries_free(v, n);
}

static void test_list_no_dir(void **state)
{
	struct fx *f = *state;
	cnirt_error *err = NULL;
	cnirt_cache_entry **v = (cnirt_cache_entry **)&v;
	size_t n = 99;
	assert_int_equal(cnirt_cache_list(f->ctx, &v, &n, &err), 0);
	assert_int_equal(n, 0);
	cnirt_cache_entries_free(v, n);
}

/* ------------------------------------------------------ damaged entries */

/* The damaged files of the cache as "name: problem" lines. */
static char *damage_lines(struct fx *f)
{
	cnirt_error *err = NULL;
	cnirt_cache_damage *d = NULL;
	size_t n = 0;
	if (cnirt_cache_list_damaged(f->ctx, &d, &n, &err) < 0)
		fail_msg("cnirt_cache_list_damaged: %s", cnirt_error_msg(err));
	struct buf b = {0};
	buf_append(&b, "", 0);
	for (size_t i = 0; i < n; i++)
		buf_printf(&b, "%s: %s\n", d[i].name, d[i].problem);
	cnirt_cache_damage_free(d, n);
	return buf_steal(&b, NULL);
}

static void put_result_file(struct fx *f, const char *name, const char *content)
{
	_cleanup_free_ char *path = xasprintf("%s/results/%s", f->cache, name);
	put_file(path, content);
}

/* Each kind of damage is reported, with its problem, sorted by name; good
 * entries and temp files are not. */
static void test_damaged(void **state)
{
	struct fx *f = *state;
	write_entry(f, "net1", "eth0", RESULT1);
	write_entry(f, "net1", "eth1", RESULT1);
	put_result_file(f, "a-ctr1-eth0", "{\"kind\":");
	put_result_file(f, "b-ctr1-eth0", "");
	put_result_file(f, "c-ctr1-eth0",
			"{\"kind\":\"cniCacheV2\",\"containerId\":\"ctr1\",\"ifName\":\"eth0\","
			"\"networkName\":\"c\"}");
	put_result_file(f, "d-ctr1-eth0", "{\"containerId\":\"ctr1\"}");
	put_result_file(f, "e-ctr1-eth0", "[1,2]");
	/* old libcni: the bare result, which names no attachment */
	put_result_file(f, "f-ctr1-eth0", "{\"cniVersion\":\"0.3.1\",\"ips\":[]}");
	/* a good entry under another name */
	put_result_file(f, "g-ctr1-eth0", REFERENCE_WRITTEN);
	/* names no operation can use */
	put_result_file(f, "h-ctr1-eth0",
			"{\"kind\":\"cniCacheV1\",\"containerId\":\"../x\",\"ifName\":\"eth0\","
			"\"networkName\":\"h\"}");
	put_result_file(f, "i-ctr1-eth0",
			"{\"kind\":\"cniCacheV1\",\"containerId\":\"ctr1\",\"ifName\":\"eth0\","
			"\"networkName\":\"i\",\"cniArgs\":[[\"K\"]]}");
	/* a control character from the content stays out of the line */
	put_result_file(f, "j-ctr1-eth0", "{\"a\\n\":1,\"a\\n\":2}");
	_cleanup_free_ char *big = xasprintf("%s/results/k-ctr1-eth0", f->cache);
	int fd = open(big, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)(65 << 20)), 0); /* sparse */
	close(fd);
	_cleanup_free_ char *dir = xasprintf("%s/results/l-ctr1-eth0", f->cache);
	assert_int_equal(mkdir(dir, 0700), 0);
	_cleanup_free_ char *link = xasprintf("%s/results/m-ctr1-eth0", f->cache);
	_cleanup_free_ char *target = xasprintf("%s/results/net1-ctr1-eth0", f->cache);
	assert_int_equal(symlink(target, link), 0);
	_cleanup_free_ char *fifo = xasprintf("%s/results/n-ctr1-eth0", f->cache);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	/* temp files are not entries, whatever they hold */
	put_result_file(f, ".net1-ctr1-eth2.tmpAbCdEf", "{");
	put_result_file(f, ".x", "");

	_cleanup_free_ char *got = damage_lines(f);
	const char *want =
	    "a-ctr1-eth0: invalid JSON near byte 8: parse error: premature EOF\n"
	    "b-ctr1-eth0: empty file\n"
	    "c-ctr1-eth0: field \"kind\": \"cniCacheV2\" is not \"cniCacheV1\"\n"
	    "d-ctr1-eth0: field \"kind\": missing, expected \"cniCacheV1\"\n"
	    "e-ctr1-eth0: not a JSON object\n"
	    "f-ctr1-eth0: a bare result in the old libcni format (no \"kind\"), which does not "
	    "say what it belongs to\n"
	    "g-ctr1-eth0: the name its fields give is \"net1-ctr1-eth0\"\n"
	    "h-ctr1-eth0: container id \"../x\": must start with a letter or a digit\n"
	    "i-ctr1-eth0: field \"cniArgs\": element 0 is not a [key, value] pair of strings\n"
	    "j-ctr1-eth0: invalid JSON near byte 9: duplicate key \"a\\x0a\"\n"
	    "k-ctr1-eth0: larger than 64 MiB\n"
	    "l-ctr1-eth0: not a regular file (a directory)\n"
	    "m-ctr1-eth0: not a regular file (a symbolic link)\n"
	    "n-ctr1-eth0: not a regular file (a FIFO)\n";
	if (strcmp(got, want) != 0)
		fail_msg("damaged entries:\n%s\nwant:\n%s", got, want);

	/* The listing has the good entries only; the scan gives both lists. */
	cnirt_error *err = NULL;
	cnirt_cache_entry **v = NULL;
	size_t n = 0;
	assert_int_equal(cnirt_cache_list(f->ctx, &v, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(cnirt_cache_entry_ifname(v[0]), "eth0");
	assert_string_equal(cnirt_cache_entry_ifname(v[1]), "eth1");
	cnirt_cache_entries_free(v, n);
	cnirt_cache_damage *d = NULL;
	size_t n_d = 0;
	assert_int_equal(cnirt_cache_scan(f->ctx, &v, &n, &d, &n_d, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(n_d, 14);
	assert_string_equal(d[0].name, "a-ctr1-eth0");
	assert_string_equal(d[13].name, "n-ctr1-eth0");
	assert_true(cnirt_cache_entry_mtime(v[0]) > 0);
	cnirt_cache_entries_free(v, n);
	cnirt_cache_damage_free(d, n_d);
}

/* A problem is one line of printable ASCII, however long the content. */
static void test_damaged_long_problem(void **state)
{
	struct fx *f = *state;
	make_results_dir(f);
	struct buf b = {0};
	buf_appends(&b, "{\"kind\":\"");
	for (int i = 0; i < 5000; i++)
		buf_appends(&b, "\xc3\xa9");
	buf_appends(&b, "\"}");
	put_result_file(f, "net1-ctr1-eth0", b.data);
	buf_free(&b);
	_cleanup_free_ char *got = damage_lines(f);
	assert_true(strlen(got) < 1500);
	static const char start[] = "net1-ctr1-eth0: field \"kind\": \"\\xc3\\xa9";
	static const char end[] = "... is not \"cniCacheV1\"\n";
	if (strncmp(got, start, strlen(start)) != 0 ||
	    strcmp(got + strlen(got) - strlen(end), end) != 0)
		fail_msg("unexpected problem: %s", got);
	for (const char *p = got; *p; p++)
		if ((*p < 0x20 && *p != '\n') || (unsigned char)*p >= 0x7f)
			fail_msg("byte 0x%02x in the problem: %s", (unsigned char)*p, got);
	assert_int_equal(strchr(got, '\n') - got, (long)strlen(got) - 1);
}

/* The damaged list with the privileges of `uid` (which must not be root
 * for a permission to matter), in a child process: "name: problem" lines,
 * or "error: ..." */
static char *damage_lines_as(struct fx *f, uid_t uid)
{
	int p[2];
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		if (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 ||
		    setresuid(uid, uid, uid) < 0)
			_exit(3);
		cnirt_error *err = NULL;
		cnirt_cache_damage *d = NULL;
		size_t n = 0;
		struct buf b = {0};
		buf_append(&b, "", 0);
		if (cnirt_cache_list_damaged(f->ctx, &d, &n, &err) < 0)
			buf_printf(&b, "error: %s\n", cnirt_error_msg(err));
		for (size_t i = 0; i < n; i++)
			buf_printf(&b, "%s: %s\n", d[i].name, d[i].problem);
		_exit(write(p[1], b.data, b.len) == (ssize_t)b.len ? 0 : 4);
	}
	close(p[1]);
	struct buf b = {0};
	buf_append(&b, "", 0);
	char chunk[4096];
	ssize_t r;
	while ((r = TEMP_FAILURE_RETRY(read(p[0], chunk, sizeof(chunk)))) > 0)
		buf_append(&b, chunk, (size_t)r);
	close(p[0]);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("child failed (status 0x%x)", status);
	return buf_steal(&b, NULL);
}

static void test_damaged_unreadable(void **state)
{
	struct fx *f = *state;
	write_entry(f, "net1", "eth0", RESULT1);
	write_entry(f, "net1", "eth1", RESULT1);
	_cleanup_free_ char *results = xasprintf("%s/results", f->cache);
	_cleanup_free_ char *path = xasprintf("%s/net1-ctr1-eth1", results);
	assert_int_equal(chmod(path, 0), 0);
	_cleanup_free_ char *got = NULL;
	if (geteuid() == 0) {
		/* as nobody, who may enter the directories and read the rest */
		uid_t nobody = 65534;
		assert_int_equal(chmod(f->top, 0755), 0);
		assert_int_equal(chmod(f->cache, 0755), 0);
		assert_int_equal(chmod(results, 0755), 0);
		_cleanup_free_ char *good = xasprintf("%s/net1-ctr1-eth0", results);
		assert_int_equal(chmod(good, 0644), 0);
		got = damage_lines_as(f, nobody);
	} else {
		got = damage_lines(f);
	}
	assert_string_equal(got, "net1-ctr1-eth1: open: Permission denied\n");
}

static void test_damaged_no_dir(void **state)
{
	struct fx *f = *state;
	cnirt_error *err = NULL;
	cnirt_cache_damage *d = (cnirt_cache_damage *)&d;
	size_t n = 99;
	/* no cache directory at all */
	assert_int_equal(cnirt_cache_list_damaged(f->ctx, &d, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_null(d);
	/* an empty results directory */
	make_results_dir(f);
	d = (cnirt_cache_damage *)&d;
	n = 99;
	assert_int_equal(cnirt_cache_list_damaged(f->ctx, &d, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_null(d);
	cnirt_cache_damage_free(d, n);
	/* good entries only */
	write_entry(f, "net1", "eth0", RESULT1);
	_cleanup_free_ char *got = damage_lines(f);
	assert_string_equal(got, "");
	/* the results "directory" is a file: an error naming it */
	_cleanup_free_ char *results = xasprintf("%s/results", f->cache);
	rm_rf(results);
	put_file(results, "");
	assert_int_equal(cnirt_cache_list_damaged(f->ctx, &d, &n, &err), -1);
	if (strstr(cnirt_error_msg(err), results) == NULL)
		fail_msg("message should name %s: %s", results, cnirt_error_msg(err));
	cnirt_error_free(err);
}

static void test_remove(void **state)
{
	struct fx *f = *state;
	cnirt_error *err = NULL;
	/* neither the entry nor the directory exists */
	assert_int_equal(cache_remove(f->ctx, "net1", "ctr1", "eth0", NULL, &err), 0);
	write_entry(f, "net1", "eth0", RESULT1);
	write_entry(f, "net1", "eth1", RESULT1);
	assert_int_equal(cache_remove(f->ctx, "net1", "ctr1", "eth0", NULL, &err), 0);
	_cleanup_free_ char *names = results_listing(f);
	assert_string_equal(names, "net1-ctr1-eth1");
	assert_int_equal(cache_remove(f->ctx, "net1", "ctr1", "eth0", NULL, &err), 0);
	cnirt_cache_entry *e = NULL;
	assert_int_equal(cnirt_cache_get(f->ctx, "net1", "ctr1", "eth0", &e, &err), 0);
	assert_null(e);
	assert_null(err);
}

/*
 * DEL reads the entry for prevResult, runs the plugins, then removes it:
 * the file read as this attachment's and unchanged since is removed
 * without a second reading; one replaced meanwhile by another attachment's
 * entry under the same file name is read again, and kept.
 */
static void test_remove_seen(void **state)
{
	struct fx *f = *state;
	cnirt_error *err = NULL;
	struct cache_seen seen = {0};
	_cleanup_json_ json *r = NULL;
	_cleanup_free_ char *path = xasprintf("%s/results/net1-ctr1-eth0", f->cache);

	write_entry(f, "net1", "eth0", RESULT1);
	assert_int_equal(cache_read_result(f->ctx, "net1", "ctr1", "eth0", &r, &seen, &err), 0);
	assert_non_null(r);
	assert_true(seen.ours);
	assert_int_equal(cache_remove(f->ctx, "net1", "ctr1", "eth0", &seen, &err), 0);
	assert_int_equal(access(path, F_OK), -1);

	/* replaced by another attachment's entry (renamed over it) */
	write_entry(f, "net1", "eth0", RESULT1);
	json_free(TAKE_PTR(r));
	assert_int_equal(cache_read_result(f->ctx, "net1", "ctr1", "eth0", &r, &seen, &err), 0);
	assert_true(seen.ours);
	write_entry(f, "net1", "eth9", RESULT1);
	_cleanup_free_ char *other = xasprintf("%s/results/net1-ctr1-eth9", f->cache);
	assert_int_equal(rename(other, path), 0);
	assert_int_equal(cache_remove(f->ctx, "net1", "ctr1", "eth0", &seen, &err), 0);
	assert_int_equal(access(path, F_OK), 0);

	/* rewritten in place (as libcni writes) with another attachment's
	 * entry: a size of its own, or the clock tick after */
	_cleanup_free_ char *text = NULL;
	_cleanup_free_ char *longer = xasprintf("%s/results/net1-ctr1-eth10", f->cache);
	size_t tlen;
	json_free(TAKE_PTR(r));
	assert_int_equal(unlink(path), 0);
	write_entry(f, "net1", "eth0", RESULT1);
	assert_int_equal(cache_read_result(f->ctx, "net1", "ctr1", "eth0", &r, &seen, &err), 0);
	assert_true(seen.ours);
	write_entry(f, "net1", "eth10", RESULT1);
	text = slurp(longer, &tlen);
	FILE *fp = fopen(path, "r+e");
	assert_non_null(fp);
	assert_int_equal(fwrite(text, 1, strlen(text), fp), strlen(text));
	assert_int_equal(ftruncate(fileno(fp), (off_t)strlen(text)), 0);
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(cache_remove(f->ctx, "net1", "ctr1", "eth0", &seen, &err), 0);
	assert_int_equal(access(path, F_OK), 0);

	/* nothing read: nothing is taken as ours */
	json_free(TAKE_PTR(r));
	assert_int_equal(cache_read_result(f->ctx, "net1", "ctr1", "eth7", &r, &seen, &err), 0);
	assert_null(r);
	assert_false(seen.ours);
	assert_null(err);
}

static void test_bad_capability_args(void **state)
{
	struct fx *f = *state;
	cnirt_netlist *l = make_list("net1", LIST1);
	cnirt_attachment a = ATT1;
	_cleanup_json_ json *r = parse(RESULT1);
	static const char *const bad[] = {"{\"portMappings\":", "[1]", "\"x\""};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		a.capability_args = bad[i];
		cnirt_error *err = NULL;
		if (cache_write(f->ctx, l, &a, r, &err) == 0)
			fail_msg("case %zu: capabilityArgs %s accepted", i, bad[i]);
		if (strstr(cnirt_error_msg(err), "capabilityArgs") == NULL)
			fail_msg("case %zu: message should name capabilityArgs: %s", i,
				 cnirt_error_msg(err));
		cnirt_error_free(err);
	}
	free_list(l);
	_cleanup_free_ char *names = dir_listing(f->top);
	assert_string_equal(names, "");
}

/* A write that runs out of space leaves the old entry and no temp file. */
static void test_enospc(void **state)
{
	struct fx *f = *state;
	if (!mount_tmpfs(f, "16k")) {
		skip();
		return;
	}
	write_entry(f, "net1", "eth0", RESULT1);
	_cleanup_free_ char *path = xasprintf("%s/results/net1-ctr1-eth0", f->cache);
	size_t old_len;
	_cleanup_free_ char *old = slurp(path, &old_len);
	assert_non_null(old);

	/* a list of 64 KiB cannot fit in 16 KiB */
	struct buf big = {0};
	buf_appends(&big, "{\"cniVersion\":\"1.0.0\",\"name\":\"net1\",\"x\":\"");
	for (int i = 0; i < 64 * 1024; i++)
		buf_appends(&big, "a");
	buf_appends(&big, "\",\"plugins\":[{\"type\":\"bridge\"}]}");
	cnirt_netlist *l = make_list("net1", big.data);
	buf_free(&big);
	_cleanup_json_ json *r = parse(RESULT1);
	cnirt_error *err = NULL;
	assert_int_equal(cache_write(f->ctx, l, &ATT1, r, &err), -1);
	free_list(l);
	if (cnirt_error_errno(err) != ENOSPC)
		fail_msg("expected ENOSPC: %s", cnirt_error_msg(err));
	cnirt_error_free(err);

	_cleanup_free_ char *names = results_listing(f);
	assert_string_equal(names, "net1-ctr1-eth0");
	size_t now_len;
	_cleanup_free_ char *now = slurp(path, &now_len);
	assert_int_equal(now_len, old_len);
	assert_memory_equal(now, old, old_len);
}

static void test_read_only(void **state)
{
	struct fx *f = *state;
	if (!mount_tmpfs(f, "1m")) {
		skip();
		return;
	}
	write_entry(f, "net1", "eth0", RESULT1);
	if (!remount_ro(f)) {
		skip();
		return;
	}

	cnirt_netlist *l = make_list("net1", LIST1);
	_cleanup_json_ json *r = parse(RESULT1);
	cnirt_error *err = NULL;
	/* rewrite in an existing directory */
	assert_int_equal(cache_write(f->ctx, l, &ATT1, r, &err), -1);
	assert_int_equal(cnirt_error_errno(err), EROFS);
	cnirt_error_free(err);
	err = NULL;
	/* a directory that would have to be created */
	cnirt_ctx_set_cache_dir(f->ctx, f->mnt);
	free(f->cache);
	f->cache = xstrdup(f->mnt);
	assert_int_equal(cache_write(f->ctx, l, &ATT1, r, &err), -1);
	assert_int_equal(cnirt_error_errno(err), EROFS);
	cnirt_error_free(err);
	err = NULL;
	free_list(l);

	free(f->cache);
	f->cache = xasprintf("%s/cache", f->mnt);
	cnirt_ctx_set_cache_dir(f->ctx, f->cache);
	/* reads still work; removal fails with an error */
	cnirt_cache_entry *e = NULL;
	assert_int_equal(cnirt_cache_get(f->ctx, "net1", "ctr1", "eth0", &e, &err), 0);
	assert_non_null(e);
	cnirt_cache_entry_free(e);
	assert_int_equal(cache_remove(f->ctx, "net1", "ctr1", "eth0", NULL, &err), -1);
	assert_int_equal(cnirt_error_errno(err), EROFS);
	cnirt_error_free(err);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
	    T(test_args_join),
	    T(test_path),
	    T(test_round_trip),
	    T(test_reference_format),
	    T(test_reference_format_omitempty),
	    T(test_read_reference_written),
	    T(test_modes),
	    T(test_existing_cache_dir_kept),
	    T(test_cache_dir_not_a_directory),
	    T(test_no_temp_left),
	    T(test_rewrite_replaces),
	    T(test_bad_names),
	    T(test_long_name_within_limit),
	    T(test_corrupt),
	    T(test_no_result),
	    T(test_legacy),
	    T(test_missing),
	    T(test_symlink_not_followed),
	    T(test_too_big),
	    T(test_list),
	    T(test_list_container),
	    T(test_list_no_dir),
	    T(test_damaged),
	    T(test_damaged_long_problem),
	    T(test_damaged_unreadable),
	    T(test_damaged_no_dir),
	    T(test_remove),
	    T(test_remove_seen),
	    T(test_bad_capability_args),
	    T(test_enospc),
	    T(test_read_only),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
