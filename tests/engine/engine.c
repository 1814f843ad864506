/* SPDX-License-Identifier: Apache-2.0 */
/*
 * An engine as engine authors write them, against the public header only:
 * several threads running cnirt_add() at once while the program does its
 * own child reaping, in each of the process models engines use:
 *   handler   a SIGCHLD handler calling waitpid(-1, WNOHANG) in a loop;
 *   ignore    SIGCHLD set to SIG_IGN (the kernel reaps every child);
 *   nocldwait a SIGCHLD handler with SA_NOCLDWAIT;
 *   reaper    a thread blocked in waitpid(-1) the whole time.
 * In each, 20 ADDs that succeed must succeed (the plugin's exit status 0
 * must reach the library) and 20 ADDs of a plugin exiting with its own
 * error code 7 must come back with code 7. Then: an
 * engine-supplied exec function, an operation deadline with a plugin that
 * hangs in ADD and DEL, cancellation from another thread, and the error
 * kinds, rollback errors and rollback events.
 *
 *     engine [MODEL|exec|errors|deadline|gc-deadline|cancel...]   (default: all)
 *
 * ENGINE_RUNS=N sets the runs per thread (default 20), ENGINE_SLACK_MS the
 * time allowed over a deadline (default 300).
 *
 * Prints TAP (a plan, then "ok ..." lines); exits 1 at the first failure.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cnirt.h"

/* ENGINE_RUNS in the environment lowers it (tests/tools/tsan.sh). */
static int RUNS = 20;
/* What starting and killing processes may add to a deadline (ENGINE_SLACK_MS:
 * a sanitizer's fork is slow). */
static long long slack_ms = 300;
#define THREADS 2

static char dir[] = "/tmp/cnirt-engine.XXXXXX";
static char bin[256], cache[256];
static cnirt_netlist *list;

#define FAIL(...)                                                                                  \
	do {                                                                                       \
		fprintf(stderr, "engine: FAIL: " __VA_ARGS__);                                     \
		fputc('\n', stderr);                                                               \
		exit(1);                                                                           \
	} while (0)

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The plugin: ADD succeeds, unless the container id starts with "fail"
 * (error code 7, exit 7) or "hang" (sleeps, in ADD and DEL); DEL of an id
 * starting with "slowdel" sleeps. */
static const char plugin[] =
    "#!/bin/sh\n"
    "cat >/dev/null\n"
    "case \"$CNI_CONTAINERID\" in\n"
    "hang*) exec sleep 30 ;;\n"
    "slowdel*) [ \"$CNI_COMMAND\" != DEL ] || exec sleep 30 ;;\n"
    "esac\n"
    "[ \"$CNI_COMMAND\" = ADD ] || exit 0\n"
    "case \"$CNI_CONTAINERID\" in\n"
    "fail*) echo '{\"cniVersion\":\"1.0.0\",\"code\":7,\"msg\":\"own error\"}'\n"
    "       echo 'line one' >&2; echo 'line two' >&2; exit 7 ;;\n"
    "esac\n"
    "echo '{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.213.7.2/24\"}]}'\n";

static void setup(void)
{
	char path[300];
	FILE *f;
	cnirt_error *err;
	const char *conf = "{\"cniVersion\":\"1.0.0\",\"name\":\"enginenet\",\"plugins\":"
			   "[{\"type\":\"engplugin\"}]}";

	if (mkdtemp(dir) == NULL)
		FAIL("mkdtemp: %s", strerror(errno));
	snprintf(bin, sizeof(bin), "%s/bin", dir);
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	mkdir(bin, 0755);
	snprintf(path, sizeof(path), "%s/engplugin", bin);
	f = fopen(path, "w");
	if (f == NULL || fputs(plugin, f) < 0 || fclose(f) != 0 || chmod(path, 0755) < 0)
		FAIL("writing %s", path);
	if (cnirt_netlist_parse(conf, strlen(conf), "engine test", &list, &err) < 0)
		FAIL("parse: %s", cnirt_error_msg(err));
}

static cnirt_ctx *new_ctx(void)
{
	cnirt_ctx *ctx = cnirt_ctx_new();
	cnirt_ctx_set_bin_path(ctx, bin);
	cnirt_ctx_set_cache_dir(ctx, cache);
	cnirt_ctx_set_timeout_ms(ctx, 20000);
	return ctx;
}

static int add(cnirt_ctx *ctx, const char *id, cnirt_error **err)
{
	cnirt_attachment a = {.container_id = id, .netns = "/proc/self/ns/net", .ifname = "eth0"};
	char *result = NULL;
	int r = cnirt_add(ctx, list, &a, &result, err);
	free(result);
	return r;
}

static int del(cnirt_ctx *ctx, const char *id, cnirt_error **err)
{
	cnirt_attachment a = {.container_id = id, .netns = "/proc/self/ns/net", .ifname = "eth0"};
	return cnirt_del(ctx, list, &a, err);
}

/* ------------------------------------------------------- process models */

static void on_sigchld(int sig)
{
	int saved = errno;
	(void)sig;
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	errno = saved;
}

static int reaper_stop;
static void *reaper(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&reaper_stop, __ATOMIC_SEQ_CST))
		if (waitpid(-1, NULL, 0) < 0 && errno == ECHILD)
			usleep(1000);
	return NULL;
}

static cnirt_ctx *shared;

/* One worker: RUNS ADDs that succeed, then RUNS that fail with code 7. */
static void *worker(void *arg)
{
	long t = (long)arg;
	for (int i = 0; i < RUNS; i++) {
		char id[64];
		cnirt_error *err = (cnirt_error *)0x1; /* never read: cnirt.h */
		snprintf(id, sizeof(id), "ok-%ld-%d", t, i);
		if (add(shared, id, &err) < 0)
			FAIL("ADD %s: %s", id, cnirt_error_msg(err));
		if (del(shared, id, &err) < 0)
			FAIL("DEL %s: %s", id, cnirt_error_msg(err));
		snprintf(id, sizeof(id), "fail-%ld-%d", t, i);
		if (add(shared, id, &err) == 0)
			FAIL("ADD %s succeeded", id);
		if (cnirt_error_code(err) != 7 || !cnirt_error_from_plugin(err) ||
		    cnirt_error_kind(err) != CNIRT_KIND_PLUGIN)
			FAIL("ADD %s: code %d kind %s: %s (want the plugin's code 7)", id,
			     cnirt_error_code(err), cnirt_error_kind_name(cnirt_error_kind(err)),
			     cnirt_error_msg(err));
		cnirt_error_free(err);
	}
	return NULL;
}

static void run_workers(const char *model)
{
	pthread_t th[THREADS];
	long long start = now_ms();
	shared = new_ctx();
	for (long t = 0; t < THREADS; t++)
		pthread_create(&th[t], NULL, worker, (void *)t);
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	cnirt_ctx_free(shared);
	printf("ok %s: %d threads x %d successful ADDs and %d ADDs with code 7 (%lld ms)\n", model,
	       THREADS, RUNS, RUNS, now_ms() - start);
}

static void model(const char *name)
{
	struct sigaction sa = {0}, old;
	pthread_t th;

	if (strcmp(name, "handler") == 0) {
		sa.sa_handler = on_sigchld;
		sa.sa_flags = SA_RESTART;
	} else if (strcmp(name, "ignore") == 0) {
		sa.sa_handler = SIG_IGN;
	} else if (strcmp(name, "nocldwait") == 0) {
		sa.sa_handler = on_sigchld;
		sa.sa_flags = SA_RESTART | SA_NOCLDWAIT;
	} else if (strcmp(name, "reaper") == 0) {
		sa.sa_handler = SIG_DFL;
		__atomic_store_n(&reaper_stop, 0, __ATOMIC_SEQ_CST);
		pthread_create(&th, NULL, reaper, NULL);
	} else {
		FAIL("unknown model %s", name);
	}
	sigaction(SIGCHLD, &sa, &old);
	run_workers(name);
	if (strcmp(name, "reaper") == 0) {
		__atomic_store_n(&reaper_stop, 1, __ATOMIC_SEQ_CST);
		pthread_join(th, NULL);
	}
	sigaction(SIGCHLD, &old, NULL);
}

/* ------------------------------------------------ engine-supplied exec */

static int exec_calls;
static int engine_exec(void *data, const cnirt_exec_call *call, cnirt_exec_outcome *out)
{
	int in[2], o[2], e[2];
	(void)data;
	__atomic_add_fetch(&exec_calls, 1, __ATOMIC_SEQ_CST);
	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(o, O_CLOEXEC) < 0 || pipe2(e, O_CLOEXEC) < 0)
		return errno;
	pid_t pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(o[1], 1);
		dup2(e[1], 2);
		execve(call->path, call->argv, call->envp);
		_exit(127);
	}
	close(in[0]);
	close(o[1]);
	close(e[1]);
	if (write(in[1], call->stdin_data, call->stdin_len) < 0) {
		/* the plugin's exit status tells */
	}
	close(in[1]);
	char buf[65536];
	ssize_t n;
	size_t len = 0;
	out->out = malloc(sizeof(buf));
	while ((n = read(o[0], buf, sizeof(buf))) > 0 && len + (size_t)n <= sizeof(buf)) {
		memcpy(out->out + len, buf, (size_t)n);
		len += (size_t)n;
	}
	out->out_len = len;
	len = 0;
	out->err = malloc(sizeof(buf));
	while ((n = read(e[0], buf, sizeof(buf))) > 0 && len + (size_t)n <= sizeof(buf)) {
		memcpy(out->err + len, buf, (size_t)n);
		len += (size_t)n;
	}
	out->err_len = len;
	close(o[0]);
	close(e[0]);
	if (waitpid(pid, &out->wait_status, 0) < 0)
		out->status_lost = true;
	return 0;
}

static void check_exec_fn(void)
{
	cnirt_ctx *ctx = new_ctx();
	cnirt_error *err;
	cnirt_ctx_set_exec(ctx, engine_exec, NULL);
	if (add(ctx, "ok-exec", &err) < 0)
		FAIL("ADD through the engine's exec: %s", cnirt_error_msg(err));
	if (add(ctx, "fail-exec", &err) == 0 || cnirt_error_code(err) != 7)
		FAIL("failing ADD through the engine's exec: want code 7");
	cnirt_error_free(err);
	if (exec_calls < 3) /* ADD, ADD, rollback DEL */
		FAIL("the engine's exec function ran %d times", exec_calls);
	cnirt_ctx_free(ctx);
	printf("ok exec: the engine's exec function ran the plugins (%d calls)\n", exec_calls);
}

/* ------------------------------------------- errors, deadline, cancel */

static int rollback_events;
static void on_event(void *data, const cnirt_event *ev)
{
	(void)data;
	if (ev->rollback && strcmp(ev->command, "DEL") == 0)
		__atomic_add_fetch(&rollback_events, 1, __ATOMIC_SEQ_CST);
}

static void check_errors(void)
{
	cnirt_ctx *ctx = new_ctx();
	cnirt_error *err;
	size_t n;
	cnirt_ctx_set_event_observer(ctx, on_event, NULL);
	if (add(ctx, "fail-errors", &err) == 0)
		FAIL("ADD fail-errors succeeded");
	const char *text = cnirt_error_stderr(err, &n);
	if (text == NULL || n != strlen("line one\nline two\n") ||
	    memcmp(text, "line one\nline two\n", n) != 0)
		FAIL("the plugin's whole stderr is not in the error");
	cnirt_error_free(err);
	if (rollback_events != 1)
		FAIL("%d rollback DEL events, want 1", rollback_events);
	/* NULL arguments: an error, not a crash. */
	if (cnirt_status(ctx, NULL, &err) == 0 ||
	    cnirt_error_kind(err) != CNIRT_KIND_INVALID_ARGUMENT)
		FAIL("cnirt_status(NULL list)");
	cnirt_error_free(err);
	if (cnirt_gc(ctx, NULL, NULL, 0, &err) == 0)
		FAIL("cnirt_gc(NULL list)");
	cnirt_error_free(err);
	if (cnirt_validate(ctx, NULL, &err) == 0)
		FAIL("cnirt_validate(NULL list)");
	cnirt_error_free(err);
	cnirt_ctx_free(ctx);
	printf("ok errors: whole stderr, rollback events, NULL lists\n");
}

static void check_deadline(void)
{
	cnirt_ctx *ctx = new_ctx();
	cnirt_error *err;
	cnirt_ctx_set_timeout_ms(ctx, 500);
	cnirt_ctx_set_deadline_ms(ctx, 600);
	long long start = now_ms();
	if (add(ctx, "hang-deadline", &err) == 0)
		FAIL("ADD of a hanging plugin succeeded");
	long long took = now_ms() - start;
	/* Twice the per-plugin timeout (1000 ms) is what it cost before. */
	if (took > 600 + slack_ms)
		FAIL("a 600 ms operation deadline took %lld ms", took);
	if (cnirt_error_kind(err) != CNIRT_KIND_TIMEOUT)
		FAIL("kind %s, want timeout", cnirt_error_kind_name(cnirt_error_kind(err)));
	if (cnirt_error_rollback_count(err) != 1 ||
	    cnirt_error_kind(cnirt_error_rollback(err, 0)) != CNIRT_KIND_TIMEOUT)
		FAIL("the rollback's timeout is not in the error");
	cnirt_error_free(err);
	cnirt_ctx_free(ctx);
	printf("ok deadline: hung ADD and DEL within the 600 ms budget (%lld ms)\n", took);
}

/* GC of two cached attachments whose DEL hangs: one budget for the whole
 * operation, where each DEL had its own before. */
static void check_gc_deadline(void)
{
	cnirt_ctx *ctx = new_ctx();
	cnirt_error *err;
	if (add(ctx, "slowdel-1", &err) < 0 || add(ctx, "slowdel-2", &err) < 0)
		FAIL("ADD slowdel: %s", cnirt_error_msg(err));
	cnirt_ctx_set_timeout_ms(ctx, 500);
	cnirt_ctx_set_deadline_ms(ctx, 600);
	long long start = now_ms();
	if (cnirt_gc(ctx, list, NULL, 0, &err) == 0)
		FAIL("GC with hanging DELs succeeded");
	long long took = now_ms() - start;
	/* Each DEL's own timeout, one after the other: 1000 ms before. */
	if (took > 600 + slack_ms)
		FAIL("GC with a 600 ms deadline took %lld ms", took);
	if (cnirt_error_kind(err) != CNIRT_KIND_TIMEOUT)
		FAIL("GC: kind %s, want timeout", cnirt_error_kind_name(cnirt_error_kind(err)));
	cnirt_error_free(err);
	cnirt_ctx_free(ctx);
	printf("ok gc-deadline: two hung cached DELs within the GC's 600 ms budget (%lld ms)\n",
	       took);
}

static void *cancel_later(void *arg)
{
	usleep(300 * 1000);
	cnirt_ctx_cancel(arg);
	return NULL;
}

static void check_cancel(void)
{
	cnirt_ctx *ctx = new_ctx();
	cnirt_error *err;
	pthread_t th;
	long long start = now_ms();
	pthread_create(&th, NULL, cancel_later, ctx);
	if (add(ctx, "hang-cancel", &err) == 0)
		FAIL("cancelled ADD succeeded");
	long long took = now_ms() - start;
	pthread_join(th, NULL);
	if (cnirt_error_kind(err) != CNIRT_KIND_CANCELLED || took > 2000)
		FAIL("cancel: kind %s after %lld ms", cnirt_error_kind_name(cnirt_error_kind(err)),
		     took);
	cnirt_error_free(err);
	cnirt_ctx_reset_cancel(ctx);
	if (add(ctx, "ok-after-cancel", &err) < 0)
		FAIL("ADD after reset: %s", cnirt_error_msg(err));
	cnirt_ctx_free(ctx);
	printf("ok cancel: from another thread after %lld ms\n", took);
}

int main(int argc, char **argv)
{
	const char *all[] = {"handler", "ignore",   "nocldwait",   "reaper", "exec",
			     "errors",	"deadline", "gc-deadline", "cancel"};
	size_t n = argc > 1 ? (size_t)argc - 1 : sizeof(all) / sizeof(all[0]);
	const char **which = argc > 1 ? (const char **)argv + 1 : all;

	if (getenv("ENGINE_RUNS"))
		RUNS = atoi(getenv("ENGINE_RUNS"));
	if (getenv("ENGINE_SLACK_MS"))
		slack_ms = atoll(getenv("ENGINE_SLACK_MS"));
	setup();
	printf("1..%zu\n", n); /* TAP: make check counts each check */
	fflush(stdout);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(which[i], "exec") == 0)
			check_exec_fn();
		else if (strcmp(which[i], "errors") == 0)
			check_errors();
		else if (strcmp(which[i], "deadline") == 0)
			check_deadline();
		else if (strcmp(which[i], "gc-deadline") == 0)
			check_gc_deadline();
		else if (strcmp(which[i], "cancel") == 0)
			check_cancel();
		else
			model(which[i]);
	}
	cnirt_netlist_free(list);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		FAIL("removing %s", dir);
	return 0;
}
