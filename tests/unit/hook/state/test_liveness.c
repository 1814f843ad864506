/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/state/liveness.c: gc's proof that a container is gone, on a
 * fake host (liveness_world_read_at()): the runtimes' state directories
 * (runc's and containerd's runc's state.json, crun's status) and a /proc
 * with the init processes' start times. Never "gone" on a doubt. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"
#include "state/liveness.h"
#include "tmpdir.h"

/* Write `text` to <dir>/<rel>, making the directories on the way. */
static void put(const char *rel, const char *text)
{
	_cleanup_free_ char *path = xasprintf("%s/%s", dir, rel);
	_cleanup_free_ char *parent = xstrdup(path);
	*strrchr(parent, '/') = '\0';
	_cleanup_free_ char *err = NULL;
	if (dir_mkdir_p(parent, 0700, &err) < 0)
		fail_msg("%s", err);
	assert_int_equal(file_write_atomic(path, text, strlen(text), 0600, false), 0);
}

/* A fake /proc/<pid>/stat whose field 22 (the start time) is `start`, the
 * command holding a ')' as a hostile one may. */
static void proc_stat(long pid, unsigned long long start)
{
	_cleanup_free_ char *rel = xasprintf("proc/%ld/stat", pid);
	_cleanup_free_ char *text =
	    xasprintf("%ld (in)it) S 1 1 1 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 %llu 1000 10\n",
		      pid, start);
	put(rel, text);
}

/* The verdict on container `id` (no record of the hook, no cache entry
 * unless `own`), and its evidence, which must hold `want`. */
static bool verdict(const char *id, bool own, const char *want)
{
	_cleanup_free_ char *state = xasprintf("%s/state", dir);
	struct liveness_world *w = liveness_world_read_at(dir);
	struct liveness_candidate c = {.id = id, .own = own};
	_cleanup_free_ char *evidence = NULL;
	bool gone = liveness_gone(state, false, w, &c, &evidence);
	liveness_world_free(w);
	if (evidence == NULL || strstr(evidence, want) == NULL)
		fail_msg("%s: evidence \"%s\", expected \"%s\" in it", id,
			 evidence ? evidence : "(none)", want);
	return gone;
}

/* No runtime keeps a state for it, and nothing of it is left: gone. */
static void test_no_runtime_state(void **state)
{
	(void)state;
	assert_true(verdict("nothing", false,
			    "no state of runc, crun or containerd; nothing of it but its lock "
			    "file or name link"));
}

/* runc's state.json names an init process that lives (its start time
 * matches): kept. The same pid started later (another process): the
 * container is stopped, and gone. */
static void test_runc(void **state)
{
	(void)state;
	put("run/runc/r1/state.json", "{\"init_process_pid\":4242,\"init_process_start\":777}");
	proc_stat(4242, 777);
	assert_false(verdict("r1", false, "and its init process 4242 lives"));
	proc_stat(4242, 778);
	assert_true(verdict("r1", false, "is stopped: its init process 4242 is gone"));
}

/* crun's status file (pid, process-start-time); no such process at all:
 * stopped. */
static void test_crun(void **state)
{
	(void)state;
	put("run/crun/c1/status", "{\"pid\":5151,\"process-start-time\":9}");
	assert_true(verdict("c1", false, "/run/crun/c1) is stopped: its init process 5151"));
	proc_stat(5151, 9);
	assert_false(verdict("c1", false, "its init process 5151 lives"));
}

/* containerd's runc keeps <root>/<namespace>/<id>: found by the id and by
 * "<namespace>-<id>" (the hook's key); a state that cannot be read keeps
 * the container (a doubt). */
static void test_containerd_and_doubts(void **state)
{
	(void)state;
	put("run/containerd/runc/k8s.io/k1/state.json", "not json");
	assert_false(verdict("k1", false, "its runtime has state for it ("));
	assert_false(verdict("k8s.io-k1", false, "/run/containerd/runc/k8s.io/k1)"));
	/* No pid, or pid 0: no proof it stopped. */
	put("run/runc/r0/state.json", "{\"init_process_pid\":0,\"init_process_start\":1}");
	assert_false(verdict("r0", false, "its runtime has state for it"));
}

/* The hook's own container without a pinned namespace: its pin is no
 * network namespace, nothing else names one: gone. */
static void test_own_without_pin(void **state)
{
	(void)state;
	assert_true(verdict("own1", true, "is no network namespace"));
}

/* The host's /proc is read when no root is given (liveness_world_read()):
 * this process's own runc-like state keeps it alive. */
static void test_real_proc(void **state)
{
	(void)state;
	unsigned long long start = 0;
	_cleanup_free_ char *stat_path = xasprintf("/proc/%ld/stat", (long)getpid());
	char *buf = NULL, *err = NULL;
	size_t len;
	assert_int_equal(read_file(stat_path, 4096, &buf, &len, NULL, &err), 0);
	const char *p = strrchr(buf, ')');
	assert_int_equal(sscanf(p + 1,
				" %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d "
				"%*d %*d %*d %llu",
				&start),
			 1);
	free(buf);
	_cleanup_free_ char *text = xasprintf(
	    "{\"init_process_pid\":%ld,\"init_process_start\":%llu}", (long)getpid(), start);
	put("run/runc/self/state.json", text);
	_cleanup_free_ char *proc = xasprintf("%s/proc", dir);
	_cleanup_free_ char *cmd = xasprintf("rm -rf '%s'", proc);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(symlink("/proc", proc), 0);
	assert_false(verdict("self", false, "lives"));
	unlink(proc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_no_runtime_state),
	    cmocka_unit_test(test_runc),
	    cmocka_unit_test(test_crun),
	    cmocka_unit_test(test_containerd_and_doubts),
	    cmocka_unit_test(test_own_without_pin),
	    cmocka_unit_test(test_real_proc),
	};
	return cmocka_run_group_tests(tests, tmpdir_make, tmpdir_remove);
}
