/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/state/record.c: the attachment record written and read back, the
 * bytes written, records of older versions, and damaged records. */
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
#include <unistd.h>

#include "state/record.h"
#include "tmpdir.h"
#include "base/util.h"

static char *put(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	assert_int_equal(file_write_atomic(path, text, strlen(text), 0600, false), 0);
	return path;
}

static struct record_att sample_att(void)
{
	struct record_att a = {
	    .network = "net1",
	    .ns = "default",
	    .ifname = "eth0",
	    .is_default = true,
	    .config = "{\"cniVersion\":\"1.0.0\",\"name\":\"net1\",\"plugins\":[]}",
	    .cap_args = "{\"portMappings\":[{\"hostPort\":8080}]}",
	    .config_args = "{\"x\":1.50}",
	};
	return a;
}

/* The bytes written: compact, members in this order, what poststop of this
 * and earlier versions reads. */
static const char sample_text[] =
    "{\"version\":1,\"id\":\"c1\",\"netns\":\"/run/cnihook/c1/netns\","
    "\"bundle\":\"/b\",\"pid\":42,\"name\":\"k8s.io/c1\",\"hostname\":\"web-1\","
    "\"attachments\":[{"
    "\"network\":\"net1\",\"namespace\":\"default\",\"ifname\":\"eth0\",\"default\":true,"
    "\"config\":\"{\\\"cniVersion\\\":\\\"1.0.0\\\",\\\"name\\\":\\\"net1\\\",\\\"plugins\\\":[]}"
    "\","
    "\"capabilityArgs\":{\"portMappings\":[{\"hostPort\":8080}]},\"configArgs\":{\"x\":1.50},"
    "\"cniArgs\":[[\"K8S_POD_NAME\",\"p\\\"q\"]]}]}";

static void test_round_trip(void **state)
{
	(void)state;
	struct kv args[] = {{.key = "K8S_POD_NAME", .value = "p\"q"}};
	struct record_att a = sample_att();
	a.args = (struct kvlist){args, 1};
	struct record r = {.id = "c1",
			   .netns = "/run/cnihook/c1/netns",
			   .bundle = "/b",
			   .pid = 42,
			   .name = "k8s.io/c1",
			   .hostname = "web-1",
			   .v = &a,
			   .n = 1};
	_cleanup_free_ char *path = xasprintf("%s/rt.json", dir);
	_cleanup_free_ char *err = NULL;
	assert_int_equal(record_write(path, &r, &err), 0);

	_cleanup_free_ char *bytes = NULL;
	size_t len;
	assert_int_equal(read_file(path, 1 << 20, &bytes, &len, NULL, &err), 0);
	assert_string_equal(bytes, sample_text);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);

	struct record *back = NULL;
	assert_int_equal(record_read(path, &back, &err), 0);
	assert_non_null(back);
	assert_string_equal(back->id, "c1");
	assert_string_equal(back->netns, "/run/cnihook/c1/netns");
	assert_string_equal(back->bundle, "/b");
	assert_int_equal(back->pid, 42);
	assert_string_equal(back->name, "k8s.io/c1");
	assert_string_equal(back->hostname, "web-1");
	assert_null(back->cluster);
	assert_int_equal(back->n, 1);
	assert_string_equal(back->v[0].network, "net1");
	assert_string_equal(back->v[0].ns, "default");
	assert_string_equal(back->v[0].ifname, "eth0");
	assert_true(back->v[0].is_default);
	assert_string_equal(back->v[0].config, a.config);
	assert_string_equal(back->v[0].cap_args, a.cap_args);
	assert_string_equal(back->v[0].config_args, "{\"x\":1.50}");
	assert_int_equal(back->v[0].args.n, 1);
	assert_string_equal(back->v[0].args.v[0].value, "p\"q");
	record_free(back);
}

/* A record of the CNI plugin (clusterNetwork, no bundle) and one written
 * before engine scopes (no bundle, pid or name) still read. */
static void test_old_records(void **state)
{
	(void)state;
	_cleanup_free_ char *old =
	    put("old.json", "{\"version\":1,\"id\":\"c2\",\"netns\":\"/p\",\"attachments\":[{"
			    "\"network\":\"n\",\"ifname\":\"eth0\",\"default\":false,"
			    "\"config\":\"{}\",\"cniArgs\":[]}]}");
	_cleanup_free_ char *err = NULL;
	struct record *r = NULL;
	assert_int_equal(record_read(old, &r, &err), 0);
	assert_string_equal(r->id, "c2");
	assert_null(r->bundle);
	assert_null(r->name);
	assert_int_equal(r->pid, 0);
	assert_int_equal(r->n, 1);
	assert_null(r->v[0].ns);
	assert_null(r->v[0].cap_args);
	assert_false(r->v[0].is_default);
	record_free(r);

	_cleanup_free_ char *plugin =
	    put("plugin.json", "{\"version\":1,\"id\":\"c3\",\"netns\":\"/proc/1/ns/net\","
			       "\"clusterNetwork\":\"cluster\",\"attachments\":[]}");
	assert_int_equal(record_read(plugin, &r, &err), 0);
	assert_string_equal(r->cluster, "cluster");
	assert_int_equal(r->n, 0);
	record_free(r);
}

/* No record: 0 and NULL. */
static void test_missing(void **state)
{
	(void)state;
	_cleanup_free_ char *path = xasprintf("%s/none.json", dir);
	_cleanup_free_ char *err = NULL;
	struct record *r = (struct record *)1;
	assert_int_equal(record_read(path, &r, &err), 0);
	assert_null(r);
	assert_null(err);
}

/* A damaged record: -1 and a message naming the file and the field. */
static void test_damaged(void **state)
{
	(void)state;
	static const struct {
		const char *text, *problem;
	} cases[] = {
	    {"[]", "not an object"},
	    {"{\"attachments\":[]}", "field \"id\": missing or not a string"},
	    {"{\"id\":\"c\"}", "field \"attachments\": missing or not an array"},
	    {"{\"id\":\"c\",\"attachments\":[{\"network\":\"n\",\"ifname\":\"eth0\","
	     "\"config\":\"{}\"},{\"network\":\"m\",\"config\":\"{}\"}]}",
	     "field \"attachments[1].ifname\": missing or not a string"},
	    {"{\"id\":\"c\",\"attachments\":[7]}", "field \"attachments[0]\": not an object"},
	    {"{\"id\":\"c\",\"attachments\":[{\"network\":\"n\",\"ifname\":\"e\",\"config\":"
	     "\"{}\",\"cniArgs\":[[\"a\"]]}]}",
	     "field \"attachments[0].cniArgs[0]\": not a pair of strings"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		_cleanup_free_ char *path = put("bad.json", cases[i].text);
		_cleanup_free_ char *err = NULL;
		struct record *r = NULL;
		assert_int_equal(record_read(path, &r, &err), -1);
		assert_null(r);
		_cleanup_free_ char *want =
		    xasprintf("attachment record %s: %s", path, cases[i].problem);
		assert_string_equal(err, want);
	}
	/* Not JSON: the parser's message, naming the record. */
	_cleanup_free_ char *path = put("bad.json", "{\"id\":");
	_cleanup_free_ char *err = NULL;
	struct record *r = NULL;
	assert_int_equal(record_read(path, &r, &err), -1);
	_cleanup_free_ char *prefix = xasprintf("attachment record %s: ", path);
	assert_memory_equal(err, prefix, strlen(prefix));
	/* Unreadable: a directory. */
	_cleanup_free_ char *err2 = NULL;
	assert_int_equal(record_read(dir, &r, &err2), -1);
	_cleanup_free_ char *want = xasprintf("attachment record %s: %s", dir, strerror(EISDIR));
	assert_string_equal(err2, want);
}

/* A record that cannot be written: the path and the reason. */
static void test_write_error(void **state)
{
	(void)state;
	struct record r = {.id = "c", .v = NULL, .n = 0};
	_cleanup_free_ char *path = xasprintf("%s/none/record.json", dir);
	_cleanup_free_ char *err = NULL;
	assert_int_equal(record_write(path, &r, &err), -1);
	_cleanup_free_ char *want = xasprintf("attachment record %s: %s", path, strerror(ENOENT));
	assert_string_equal(err, want);
}

/* The name link: written, read back, and refused when it does not name
 * the id. */
static void test_name(void **state)
{
	(void)state;
	_cleanup_free_ char *cdir = xasprintf("%s/k8s.io-c1", dir);
	assert_int_equal(mkdir(cdir, 0700), 0);
	_cleanup_free_ char *err = NULL;
	assert_int_equal(record_name_write(dir, "k8s.io-c1", "k8s.io/c1", &err), 0);
	_cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	_cleanup_free_ char *name = record_name_read(fd, "k8s.io-c1");
	assert_string_equal(name, "k8s.io/c1");
	assert_int_equal(record_name_write(dir, "k8s.io-c1", "other/c1", &err), 0);
	assert_null(record_name_read(fd, "k8s.io-c1"));
	assert_null(record_name_read(fd, "absent"));
	assert_null(record_name_read(fd, "absent-1"));
	/* Beside the container's directory, not in it. */
	_cleanup_free_ char *link = xasprintf("%s/k8s.io-c1.name", dir);
	struct stat st;
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	_cleanup_free_ char *err2 = NULL;
	_cleanup_free_ char *gone = xasprintf("%s/no-such-dir", dir);
	assert_int_equal(record_name_write(gone, "absent", "a/b", &err2), -1);
	assert_non_null(strstr(err2, strerror(ENOENT)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),	cmocka_unit_test(test_old_records),
	    cmocka_unit_test(test_missing),	cmocka_unit_test(test_damaged),
	    cmocka_unit_test(test_write_error), cmocka_unit_test(test_name),
	};
	return cmocka_run_group_tests(tests, tmpdir_make, tmpdir_remove);
}
