/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Executing a plugin (spec section 2, "Execution Protocol").
 *
 * The plugin runs in a child process of its own process group, with exactly
 * the six CNI_* variables and PATH as its environment, the configuration on
 * a pipe as stdin and two pipes for stdout and stderr; every other
 * descriptor is closed, no signal is blocked and every signal has its
 * default disposition.
 *
 * The child is started with clone(CLONE_VM | CLONE_VFORK): it runs in our
 * memory, on the unused part of our stack, until it calls execve(), so there is no copy
 * of our page tables as with fork() and no copy-on-write faults after it,
 * and yet there is a place for the caller's preexec function (the plugin
 * sandbox), which posix_spawn() would not give. Failures before the plugin
 * runs (the setup, the preexec function, execve) come back as an errno
 * through a close-on-exec status pipe.
 *
 * That child is not ours but a helper's: the library first starts a helper
 * process, a fork-like copy of the caller made with clone() and no exit
 * signal, which never calls execve() (execve would give it SIGCHLD as exit
 * signal again). The helper starts the plugin as above, waits for it and
 * sends its wait status back through a pipe. A child without exit signal
 * is a "clone" child to the kernel: the caller's waitpid(-1) does not see
 * it (only __WALL or __WCLONE would), SIGCHLD set to SIG_IGN or
 * SA_NOCLDWAIT does not reap it, and no SIGCHLD reaches the caller's
 * handler; the plugin, a child of the helper, is beyond the caller's
 * reach altogether. So an engine that reaps its own children never takes
 * the plugin's exit status from us. The helper keeps the exited plugin
 * unreaped (waitid WNOWAIT) until we release it, so that its process group
 * id names nobody else while we kill the group. With --enable-tsan-spawn
 * the helper and the plugin are started with fork() instead (what
 * ThreadSanitizer can follow). An engine may also run plugins itself
 * (cnirt_ctx_set_exec()).
 *
 * The configuration is written into the stdin pipe before the child starts
 * as far as the pipe takes it (all of it, in practice); the rest, the
 * outputs, the helper's report of the plugin's exit and a cancellation of
 * the ctx are handled in one poll() loop, so that neither a big
 * configuration nor a big result can deadlock. The library installs no
 * signal handler.
 *
 * Once the plugin has exited, its outputs are drained for a short grace
 * period only: a grandchild that still holds the pipes must not keep us
 * waiting. Then the whole process group is killed, on success too, so
 * nothing the plugin left behind in it outlives the execution. A timeout or
 * an output over the cap kills the group at once.
 *
 * A binary that is being replaced (ETXTBSY) gets a fresh start a few times
 * with a short backoff.
 */
#include "config.h"

#include <alloca.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "internal.h"

#if defined(__SANITIZE_ADDRESS__)
#define EXEC_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EXEC_ASAN 1
#endif
#endif
#ifdef EXEC_ASAN
#include <sanitizer/asan_interface.h>
#endif
#ifdef HAVE_VALGRIND_VALGRIND_H
#include <valgrind/valgrind.h>
#endif

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
/* How much is read from one output per wake-up. */
#define READ_CHUNK 65536
/* How long the outputs are still read once the plugin has exited. */
#define EXIT_GRACE_MS 100
/* Executions tried when the binary is busy (ETXTBSY); the backoff doubles
 * from ETXTBSY_BACKOFF_MS. */
#define ETXTBSY_TRIES	   6
#define ETXTBSY_BACKOFF_MS 10
/* The exit status of a child that failed before the plugin ran. */
#define CHILD_FAILED_STATUS 127
/* How far below our stack pointer the child's stack starts: room for the
 * clone() call's own frame and the red zone. */
#define CHILD_STACK_GAP 4096
/* The part of our stack below it that ASan's shadow is cleaned of after
 * the child: the child's frames (the setup, the preexec function) fit in
 * it many times. */
#define CHILD_STACK_SIZE (256 * 1024)

/* ------------------------------------------------------------ finding */

int exec_find_plugin(const cnirt_ctx *ctx, const char *type, char **path, cnirt_error **err)
{
	if (type == NULL || type[0] == '\0')
		return error_set(err, CNIRT_ERR_INVALID_CONFIG,
				 "field \"type\": must not be empty");
	if (strchr(type, '/')) {
		error_set(err, CNIRT_ERR_INVALID_CONFIG,
			  "field \"type\": \"%s\" must not contain '/'", type);
		error_set_plugin(*err, type);
		return -1;
	}

	/* The first executable file wins; a regular file without an execute
	 * bit is reported as such, not as "not found". */
	_cleanup_free_ char *unexecutable = NULL;
	for (size_t i = 0; i < ctx->n_bin_dirs; i++) {
		const char *dir = ctx->bin_dirs[i];
		size_t dlen = strlen(dir);
		bool slash = dlen > 0 && dir[dlen - 1] == '/';
		_cleanup_free_ char *p = xasprintf("%s%s%s", dir, slash ? "" : "/", type);
		struct stat st;

		if (stat(p, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (st.st_mode & 0111) {
			*path = TAKE_PTR(p);
			return 0;
		}
		if (unexecutable == NULL)
			unexecutable = TAKE_PTR(p);
	}
	if (unexecutable) {
		error_set(err, CNIRT_ERR_INVALID_CONFIG,
			  "plugin \"%s\" found as %s, but it is not executable", type,
			  unexecutable);
		error_set_plugin(*err, type);
		return error_kind(err, CNIRT_KIND_NOT_EXECUTABLE);
	}
	if (ctx->n_bin_dirs == 0)
		error_set(err, CNIRT_ERR_INVALID_CONFIG,
			  "plugin \"%s\" not found: no plugin directory is configured", type);
	else
		error_set(err, CNIRT_ERR_INVALID_CONFIG, "plugin \"%s\" not found in %s", type,
			  ctx->cni_path ? ctx->cni_path : "");
	error_set_plugin(*err, type);
	return error_kind(err, CNIRT_KIND_NOT_FOUND);
}

/* ------------------------------------------------------------ helpers */

static void sleep_ms(long long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void close_fd(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

static const char *signal_name(int sig)
{
	static const struct {
		int sig;
		const char *name;
	} names[] = {
	    {SIGHUP, "SIGHUP"},	  {SIGINT, "SIGINT"},	    {SIGQUIT, "SIGQUIT"},
	    {SIGILL, "SIGILL"},	  {SIGTRAP, "SIGTRAP"},	    {SIGABRT, "SIGABRT"},
	    {SIGBUS, "SIGBUS"},	  {SIGFPE, "SIGFPE"},	    {SIGKILL, "SIGKILL"},
	    {SIGUSR1, "SIGUSR1"}, {SIGSEGV, "SIGSEGV"},	    {SIGUSR2, "SIGUSR2"},
	    {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"},	    {SIGTERM, "SIGTERM"},
	    {SIGCHLD, "SIGCHLD"}, {SIGCONT, "SIGCONT"},	    {SIGSTOP, "SIGSTOP"},
	    {SIGTSTP, "SIGTSTP"}, {SIGTTIN, "SIGTTIN"},	    {SIGTTOU, "SIGTTOU"},
	    {SIGURG, "SIGURG"},	  {SIGXCPU, "SIGXCPU"},	    {SIGXFSZ, "SIGXFSZ"},
	    {SIGPROF, "SIGPROF"}, {SIGVTALRM, "SIGVTALRM"}, {SIGWINCH, "SIGWINCH"},
	    {SIGIO, "SIGIO"},	  {SIGSYS, "SIGSYS"},
	};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].sig == sig)
			return names[i].name;
	return "unknown";
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The plugin's whole environment: nothing of ours leaks into it but what
 * the engine asked for. */
static char **build_env(const cnirt_ctx *ctx, const struct exec_request *req)
{
#define V(s) ((s) ? (s) : "")
	char **env = xcalloc(8 + ctx->n_env, sizeof(char *));
	size_t n = 0;

	env[n++] = xasprintf("CNI_COMMAND=%s", V(req->command));
	env[n++] = xasprintf("CNI_CONTAINERID=%s", V(req->container_id));
	env[n++] = xasprintf("CNI_NETNS=%s", V(req->netns));
	env[n++] = xasprintf("CNI_IFNAME=%s", V(req->ifname));
	env[n++] = xasprintf("CNI_ARGS=%s", V(req->args));
	env[n++] = xasprintf("CNI_PATH=%s", V(ctx->cni_path));
	env[n++] = xasprintf("PATH=%s", ctx->path_env ? ctx->path_env : DEFAULT_PATH);
	/* What the engine adds (cnirt_ctx_set_env()): never CNI_* nor PATH. */
	for (size_t i = 0; i < ctx->n_env; i++)
		env[n++] = xstrdup(ctx->env[i]);
	env[n] = NULL;
	return env;
#undef V
}

static void free_env(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}

/*
 * SIGPIPE: writing to the stdin of a plugin that exited without reading it
 * must give EPIPE, not kill the caller. While the configuration is written
 * before the child starts we hold the pipe's read end, so no SIGPIPE can
 * arise; only for what did not fit in the pipe (a configuration larger than
 * the pipe's buffer) is the signal blocked in this thread while the plugin
 * runs, and a SIGPIPE raised meanwhile consumed, unless one was already
 * pending before.
 */
struct sigpipe_guard {
	sigset_t old;
	bool active;
	bool was_pending;
};

static void sigpipe_block(struct sigpipe_guard *g)
{
	sigset_t set, pending;

	if (g->active)
		return;
	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	sigemptyset(&pending);
	sigpending(&pending);
	g->was_pending = sigismember(&pending, SIGPIPE) == 1;
	pthread_sigmask(SIG_BLOCK, &set, &g->old);
	g->active = true;
}

static void sigpipe_restore(struct sigpipe_guard *g)
{
	sigset_t set, pending;

	if (!g->active)
		return;
	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	sigemptyset(&pending);
	if (!g->was_pending && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1) {
		struct timespec zero = {0, 0};

		TEMP_FAILURE_RETRY(sigtimedwait(&set, NULL, &zero));
	}
	pthread_sigmask(SIG_SETMASK, &g->old, NULL);
	g->active = false;
}

/* ------------------------------------------------------------ the child */

enum child_stage {
	STAGE_NONE = 0,
	STAGE_SETUP,
	STAGE_PREEXEC,
	STAGE_EXEC,
};

/* What a child that failed before the plugin ran reports: into our
 * memory, which it shares, or on the status pipe. */
struct child_report {
	int stage;
	int err;
};

/* What the child needs, on the parent's stack (the child shares it). */
struct child_args {
	const cnirt_ctx *ctx;
	const char *path;
	const char *plugin; /* the plugin's type, for cnirt_ctx_set_plugin_preexec() */
	char *const *argv;
	char *const *envp;
	int in_r, out_w, err_w;
	int st_w;			      /* the status pipe, or -1: report into `shared` */
	volatile struct child_report *shared; /* the parent's, when it shares our memory */
};

/*
 * The child runs in our memory, on a stack of its own, while this thread
 * waits (CLONE_VM | CLONE_VFORK): from here to the execve() only system
 * calls, no allocation, no lock, nothing that writes our memory but its
 * own stack and errno.
 */
static _Noreturn void child_fail(const struct child_args *a, int fd, int stage, int errnum)
{
	struct child_report rep = {.stage = stage, .err = errnum};
	ssize_t n;

	if (fd < 0) {
		/* Our parent sleeps until we exit (CLONE_VFORK) and then reads
		 * this. */
		a->shared->err = errnum;
		a->shared->stage = stage;
		_exit(CHILD_FAILED_STATUS);
	}
	do
		n = write(fd, &rep, sizeof(rep));
	while (n < 0 && errno == EINTR);
	_exit(CHILD_FAILED_STATUS);
}

static void close_from(int first)
{
	struct rlimit rl;

#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)first, ~0U, 0U) == 0)
		return;
#endif
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur > (1 << 20))
		rl.rlim_cur = 1 << 20;
	for (int fd = first; fd < (int)rl.rlim_cur; fd++)
		close(fd);
}

static int child_main(void *arg)
{
	const struct child_args *a = arg;
	bool piped = a->st_w >= 0;
	int fds[4] = {a->in_r, a->out_w, a->err_w, a->st_w};
	size_t n = piped ? 4 : 3;
	sigset_t none;

	if (setpgid(0, 0) < 0)
		child_fail(a, a->st_w, STAGE_SETUP, errno);

	/* The descriptors below 4 are lifted above 3 first, so that none can
	 * be clobbered by the dup2()s below (a caller with 0, 1 or 2 closed
	 * gets those from pipe2()). */
	for (size_t i = 0; i < n; i++) {
		if (fds[i] >= 4)
			continue;
		int fd = fcntl(fds[i], F_DUPFD_CLOEXEC, 4);

		if (fd < 0)
			child_fail(a, a->st_w, STAGE_SETUP, errno);
		fds[i] = fd;
	}
	if (dup2(fds[0], STDIN_FILENO) < 0 || dup2(fds[1], STDOUT_FILENO) < 0 ||
	    dup2(fds[2], STDERR_FILENO) < 0 || (piped && dup3(fds[3], 3, O_CLOEXEC) < 0))
		child_fail(a, piped ? fds[3] : -1, STAGE_SETUP, errno);
	close_from(piped ? 4 : 3);
	int st = piped ? 3 : -1;

	/* A clean signal state: default dispositions, nothing blocked. Every
	 * disposition, not only the ignored ones that would survive execve:
	 * a handler of the caller must not run here, in its memory, once the
	 * signals are unblocked. */
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction sa = {.sa_handler = SIG_DFL};

		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &sa, NULL);
	}
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	if (a->ctx->plugin_preexec || a->ctx->preexec) {
		int r = a->ctx->plugin_preexec
			    ? a->ctx->plugin_preexec(a->ctx->preexec_data, a->plugin)
			    : a->ctx->preexec(a->ctx->preexec_data);

		if (r != 0)
			child_fail(a, st, STAGE_PREEXEC, r < 0 ? -r : r);
	}

	execve(a->path, a->argv, a->envp);
	child_fail(a, st, STAGE_EXEC, errno);
}

/* The wait status of the exited child `pid`, which stays unreaped. */
static int wait_exited(pid_t pid, int *status)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (TEMP_FAILURE_RETRY(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT)) < 0)
		return -1;
	*status = si.si_code == CLD_EXITED ? (si.si_status & 0xff) << 8 : (si.si_status & 0x7f);
	return 0;
}

/* ------------------------------------------------------------ the helper */

/* What the helper tells the parent, on the report pipe. */
enum helper_msg_type {
	MSG_STARTED = 1, /* a: the plugin's pid */
	MSG_FAILED,	 /* a: the stage, b: the errno: the plugin could not be executed */
	MSG_EXITED,	 /* a: the plugin's wait status */
};
struct helper_msg {
	int type;
	int a, b;
};

/* What the helper needs (in its copy of our memory). */
struct helper_args {
	const cnirt_ctx *ctx;
	const char *path;
	const char *plugin;
	char *const *argv;
	char *const *envp;
	int in_r, out_w, err_w; /* the plugin's ends of its pipes */
	int rep_w;		/* the report pipe */
	int rel_r;		/* EOF on it: the parent releases the exited plugin */
	pid_t caller;		/* the process that started the helper */
};

/* The helper's descriptors, once it has closed everything else. */
enum { H_IN = 3, H_OUT, H_ERR, H_REP, H_REL, H_FIRST_FREE };

static void helper_send(int fd, int type, int a, int b)
{
	struct helper_msg m = {.type = type, .a = a, .b = b};
	ssize_t n;

	do
		n = write(fd, &m, sizeof(m));
	while (n < 0 && errno == EINTR);
}

#ifndef CNIRT_SPAWN_FORK
/* Whether we run under valgrind, which runs clone(CLONE_VM | CLONE_VFORK)
 * as a fork and takes the clone() call's writes below the stack pointer
 * for errors. Always false in a build without valgrind's header. */
static bool under_valgrind(void)
{
#ifdef HAVE_VALGRIND_VALGRIND_H
	return RUNNING_ON_VALGRIND;
#else
	return false;
#endif
}

/* clone() on an mmap()ed stack with a guard page, unmapped after: under
 * valgrind. */
static pid_t clone_mapped(int (*fn)(void *), int flags, void *arg)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t size = CHILD_STACK_SIZE + page;
	void *stack = mmap(NULL, size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);

	if (stack == MAP_FAILED)
		return -1;
	if (mprotect(stack, page, PROT_NONE) < 0) {
		int e = errno;
		munmap(stack, size);
		errno = e;
		return -1;
	}
	pid_t pid = clone(fn, (char *)stack + size, flags, arg);
	int e = errno;
	munmap(stack, size);
	errno = e;
	return pid;
}

/*
 * clone() with the child's stack in the unused part of ours, below this
 * function's frame: the child runs while we wait (CLONE_VFORK), or in a
 * copy of our memory (no CLONE_VM), so nothing of ours lives there, and
 * the stack's own guard stops a child that would run past its end. An
 * mmap()ed stack with a guard page, set up and torn down for every child,
 * cost three system calls and about 8 us; valgrind keeps it. (PA-RISC's
 * stack grows up: there the child's starts above our stack pointer.)
 */
static __attribute__((noinline)) pid_t clone_below(int (*fn)(void *), int flags, void *arg)
{
	if (under_valgrind())
		return clone_mapped(fn, flags, arg);
	/* alloca() moves the stack pointer: its block is the lowest thing
	 * of this frame (a local's address might be ASan's fake stack). */
	char *sp = alloca(16);
	__asm__ volatile("" : : "r"(sp) : "memory");
#if defined(__hppa__)
	char *top = (char *)(((uintptr_t)sp + 16 + CHILD_STACK_GAP + 63) & ~(uintptr_t)63);
#else
	char *top = (char *)(((uintptr_t)sp - CHILD_STACK_GAP) & ~(uintptr_t)63);
#endif
	pid_t pid = clone(fn, top, flags, arg);
#ifdef EXEC_ASAN
	/* The child's frames poisoned the shadow of stack we will use again. */
	__asan_unpoison_memory_region(top - CHILD_STACK_SIZE, CHILD_STACK_SIZE);
#endif
	return pid;
}
#endif

/*
 * Whether a child that fails before the plugin runs can report into our
 * memory: it shares it (CLONE_VM) and we sleep until it has called
 * execve() or exited (CLONE_VFORK), so its report is there when we wake.
 * A status pipe cost a pipe and three system calls more per plugin. Not
 * with fork() (ThreadSanitizer's build), nor under valgrind, which runs
 * such a clone as a fork; nor in a build without valgrind's header, which
 * could not tell.
 */
static bool report_in_memory(void)
{
#if defined(CNIRT_SPAWN_FORK) || !defined(HAVE_VALGRIND_VALGRIND_H)
	return false;
#else
	return !under_valgrind();
#endif
}

/*
 * Start the plugin (from the helper, or as our own child):
 * clone(CLONE_VM | CLONE_VFORK) (unlike fork() no copy of the page tables,
 * unlike posix_spawn() room for the preexec function), or fork() for
 * ThreadSanitizer. We sleep until the child has called execve() or
 * exited; then its report of a failure is in our memory
 * (report_in_memory()), or the status pipe holds it, or is at EOF (its
 * close-on-exec write end went with the exec). Under valgrind, which runs
 * such a clone as a fork, the read of the pipe waits for the same two
 * events.
 *
 * Returns the plugin's pid, or -1 with *stage and *errnum saying why it
 * could not be executed (the child, if any, reaped). `a` names the child's
 * ends of its pipes; the report's place is made here.
 */
static pid_t start_child(struct child_args a, int *stage, int *errnum)
{
	volatile struct child_report shared = {.stage = STAGE_NONE};
	struct child_report rep;
	int st[2] = {-1, -1};
	pid_t pid;

	*stage = STAGE_SETUP;
	a.shared = &shared;
	if (!report_in_memory() && pipe2(st, O_CLOEXEC) < 0) {
		*errnum = errno;
		return -1;
	}
	a.st_w = st[1];
#ifdef CNIRT_SPAWN_FORK
	pid = fork();
	if (pid == 0)
		child_main(&a);
	*errnum = errno;
#else
	pid = clone_below(child_main, CLONE_VM | CLONE_VFORK | SIGCHLD, &a);
	*errnum = errno;
#endif
	if (st[1] >= 0)
		close(st[1]);
	if (pid < 0) {
		if (st[0] >= 0)
			close(st[0]);
		return -1;
	}
	if (st[0] >= 0) {
		ssize_t n = TEMP_FAILURE_RETRY(read(st[0], &rep, sizeof(rep)));
		close(st[0]);
		if (n != (ssize_t)sizeof(rep))
			return pid;
	} else {
		if (shared.stage == STAGE_NONE)
			return pid;
		rep.stage = shared.stage;
		rep.err = shared.err;
	}
	TEMP_FAILURE_RETRY(waitpid(pid, NULL, 0));
	*stage = rep.stage;
	*errnum = rep.err;
	return -1;
}

/*
 * The helper, in a copy of the caller's memory, with every signal blocked
 * (as the parent had them when it started it): only system calls. It
 * keeps its five descriptors and closes every other one first (our pipes
 * and any of the caller's must not be held open by it), starts the plugin,
 * reports, waits for the plugin's exit without reaping it, reports its
 * status, and reaps it once the parent closes the release pipe.
 */
static int helper_main(void *arg)
{
	struct helper_args *h = arg;
	int fds[] = {h->in_r, h->out_w, h->err_w, h->rep_w, h->rel_r};
	int stage = STAGE_NONE, errnum = 0;
	pid_t pid;

	/* The helper dies with its caller: nobody would read its report, and
	 * a plugin that asked to die with its parent (PR_SET_PDEATHSIG, as
	 * cnihook's sandbox does) then dies with the caller too. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != h->caller)
		_exit(CHILD_FAILED_STATUS);
	for (size_t i = 0; i < ARRAY_SIZE(fds); i++) {
		int fd = fcntl(fds[i], F_DUPFD_CLOEXEC, H_FIRST_FREE + 16);

		if (fd < 0)
			_exit(CHILD_FAILED_STATUS);
		fds[i] = fd;
	}
	for (size_t i = 0; i < ARRAY_SIZE(fds); i++)
		if (dup3(fds[i], H_IN + (int)i, O_CLOEXEC) < 0)
			_exit(CHILD_FAILED_STATUS);
	close(STDIN_FILENO);
	close(STDOUT_FILENO);
	close(STDERR_FILENO);
	close_from(H_FIRST_FREE);

	/* The caller's dispositions do not apply here: a SIGCHLD ignored
	 * would reap the plugin behind our back. */
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction sa = {.sa_handler = SIG_DFL};

		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &sa, NULL);
	}

	pid = start_child((struct child_args){.ctx = h->ctx,
					      .path = h->path,
					      .plugin = h->plugin,
					      .argv = h->argv,
					      .envp = h->envp,
					      .in_r = H_IN,
					      .out_w = H_OUT,
					      .err_w = H_ERR},
			  &stage, &errnum);
	close(H_IN);
	close(H_OUT);
	close(H_ERR);
	if (pid < 0) {
		helper_send(H_REP, MSG_FAILED, stage, errnum);
		_exit(0);
	}
	helper_send(H_REP, MSG_STARTED, (int)pid, 0);

	int status;
	if (wait_exited(pid, &status) == 0)
		helper_send(H_REP, MSG_EXITED, status, 0);
	close(H_REP);

	char c;
	while (TEMP_FAILURE_RETRY(read(H_REL, &c, 1)) > 0)
		;
	TEMP_FAILURE_RETRY(waitpid(pid, NULL, 0));
	_exit(0);
}

/* ------------------------------------------------------------ the parent */

struct run {
	pid_t pid;		   /* the plugin, until released; -1: none */
	pid_t helper;		   /* the helper, until reaped; -1: none */
	bool direct;		   /* no helper: the plugin is our child */
	int rep_fd;		   /* the helper's reports; direct: the plugin's pidfd */
	int rel_fd;		   /* closed: the helper may reap the plugin */
	int in_fd, out_fd, err_fd; /* the parent's ends */
	size_t in_off;
	struct buf out, errb;
	int status;	  /* wait status, once known */
	bool have_status; /* the helper reported it (or the exec function did) */
	bool exited;	  /* direct: the pidfd said the plugin exited; release() reaps it
			     with its status */
	int fail_stage;	  /* STAGE_NONE, or where the child failed before the plugin ran */
	int fail_errno;	  /* and why */
	bool timed_out;	  /* the deadline passed */
	bool deadline_op; /* and it was the operation's, not the plugin timeout */
	bool cancelled;	  /* cnirt_ctx_cancel() */
	bool overflow;
};

static void run_init(struct run *r)
{
	*r = (struct run){.pid = -1,
			  .helper = -1,
			  .rep_fd = -1,
			  .rel_fd = -1,
			  .in_fd = -1,
			  .out_fd = -1,
			  .err_fd = -1};
}

/* Release the plugin and reap the helper (direct: reap the plugin). */
static void release(struct run *r)
{
	int status;

	close_fd(&r->rel_fd);
	close_fd(&r->rep_fd);
	if (r->direct && r->pid > 0 && TEMP_FAILURE_RETRY(waitpid(r->pid, &status, 0)) == r->pid &&
	    r->exited) {
		/* It had exited before the kill of its group: the status is its
		 * own. */
		r->status = status;
		r->have_status = true;
	}
	if (r->helper > 0) {
#ifdef CNIRT_SPAWN_FORK
		TEMP_FAILURE_RETRY(waitpid(r->helper, NULL, 0));
#else
		TEMP_FAILURE_RETRY(waitpid(r->helper, NULL, __WCLONE));
#endif
	}
	r->helper = -1;
	r->pid = -1;
}

static void run_free(struct run *r)
{
	close_fd(&r->in_fd);
	close_fd(&r->out_fd);
	close_fd(&r->err_fd);
	release(r);
	buf_free(&r->out);
	buf_free(&r->errb);
}

/*
 * Write as much of the configuration into the fresh stdin pipe `fd` as it
 * takes, before the child starts. Up to PIPE_BUF bytes always fit in an
 * empty pipe, so a blocking write is enough; a larger configuration is
 * written non-blocking, and the rest later by pump().
 */
static int fill_stdin(int fd, const struct exec_request *req, size_t *off)
{
	if (req->stdin_len > PIPE_BUF && fcntl(fd, F_SETFL, O_NONBLOCK) < 0)
		return -1;
	while (*off < req->stdin_len) {
		ssize_t n = write(fd, req->stdin_data + *off, req->stdin_len - *off);

		if (n > 0)
			*off += (size_t)n;
		else if (n < 0 && errno == EAGAIN)
			break;
		else if (n < 0 && errno != EINTR)
			return -1;
	}
	return 0;
}

/* One report of the helper; false at EOF (the helper is gone). */
static bool read_report(int fd, struct helper_msg *m)
{
	return TEMP_FAILURE_RETRY(read(fd, m, sizeof(*m))) == (ssize_t)sizeof(*m);
}

/*
 * Start the helper (clone() with no exit signal and no CLONE_VM: a
 * fork-like copy of us that waitpid(-1) cannot see; fork() for
 * ThreadSanitizer) and read its first report: the plugin runs, or could
 * not be executed. No handler of the caller may run in the copy before the
 * helper has reset the dispositions: every signal is blocked across the
 * start, and stays blocked in the helper.
 */
static int start_helper(struct helper_args *h, struct run *r)
{
	struct helper_msg m;
	sigset_t all, old;
	int saved;
	pid_t pid;

	h->caller = getpid();
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
#ifdef CNIRT_SPAWN_FORK
	pid = fork();
	if (pid == 0)
		_exit(helper_main(h));
	saved = errno;
#else
	/* Flags 0: no CLONE_VM (a copy of our memory, where the helper runs
	 * on its copy of this stack), and no exit signal. */
	pid = clone_below(helper_main, 0, h);
	saved = errno;
#endif
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (pid < 0) {
		errno = saved;
		return -1;
	}
	r->helper = pid;
	close(h->rep_w);
	close(h->rel_r);
	h->rep_w = h->rel_r = -1;

	if (!read_report(r->rep_fd, &m) || (m.type != MSG_STARTED && m.type != MSG_FAILED)) {
		release(r);
		errno = ECHILD;
		return -1;
	}
	if (m.type == MSG_FAILED) {
		release(r);
		r->fail_stage = m.a;
		r->fail_errno = m.b;
		return 0;
	}
	r->pid = m.a;
	return 0;
}

/* Whether pidfd_open(2) works here (Linux 5.3; not under valgrind 3.19 nor
 * some seccomp profiles): probed once, 1 yes, -1 no, 0 not yet known. The
 * probe passes flags no kernel knows: a kernel that has the call refuses
 * them with EINVAL before it makes a descriptor (one less to make and
 * close); a missing or filtered call fails otherwise. */
static int pidfd_works;

static bool have_pidfd(void)
{
	int known = __atomic_load_n(&pidfd_works, __ATOMIC_RELAXED);

	if (known == 0) {
		int fd = (int)syscall(SYS_pidfd_open, getpid(), ~0U);

		if (fd >= 0)
			close(fd);
		known = fd < 0 && errno == EINVAL ? 1 : -1;
		__atomic_store_n(&pidfd_works, known, __ATOMIC_RELAXED);
	}
	return known > 0;
}

/*
 * Whether the plugin may be our own child (cnirt_ctx_set_spawn_direct()):
 * the caller promised that nothing of it waits for children it did not
 * start; a SIGCHLD that is ignored, or has SA_NOCLDWAIT, would reap the
 * plugin before we take its status, and without pidfds we could not poll
 * for its exit: either keeps the helper.
 */
static bool may_spawn_direct(const cnirt_ctx *ctx)
{
	struct sigaction sa;

	if (!ctx->spawn_direct || sigaction(SIGCHLD, NULL, &sa) < 0)
		return false;
	return sa.sa_handler != SIG_IGN && !(sa.sa_flags & SA_NOCLDWAIT) && have_pidfd();
}

/*
 * Start the plugin as our own child, without the helper: the same child
 * (start_child()), with every signal blocked across the clone as for the
 * helper, and a pidfd that poll() sees readable when the plugin exits.
 * The plugin stays unreaped until release(), for its process group id.
 */
static int start_direct(struct child_args a, struct run *r)
{
	sigset_t all, old;
	int stage, errnum;
	pid_t pid;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid = start_child(a, &stage, &errnum);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	r->direct = true;
	if (pid < 0) {
		r->fail_stage = stage;
		r->fail_errno = errnum;
		return 0;
	}
	r->pid = pid;
	r->rep_fd = (int)syscall(SYS_pidfd_open, pid, 0U);
	if (r->rep_fd < 0) {
		int saved = errno;

		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		release(r);
		errno = saved;
		return -1;
	}
	return 0;
}

/*
 * Start the plugin: the pipes, the configuration written into stdin, the
 * helper and through it the plugin. On success either the plugin runs
 * (r->pid) with the parent's pipe ends in r, or it could not be executed
 * and r->fail_stage and r->fail_errno say why. -1 when we could not even
 * try.
 */
static int spawn(const cnirt_ctx *ctx, const char *path, char *const argv[], char *const envp[],
		 const struct exec_request *req, struct run *r, cnirt_error **err)
{
	int in[2] = {-1, -1}, out[2] = {-1, -1}, errp[2] = {-1, -1}, rep[2] = {-1, -1},
	    rel[2] = {-1, -1};
	int saved = 0;

	bool direct = may_spawn_direct(ctx);

	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0 ||
	    (!direct && (pipe2(rep, O_CLOEXEC) < 0 || pipe2(rel, O_CLOEXEC) < 0)) ||
	    fill_stdin(in[1], req, &r->in_off) < 0) {
		saved = errno;
		goto out;
	}
	if (r->in_off == req->stdin_len)
		close_fd(&in[1]); /* all of it is in the pipe: EOF after it */

	if (direct) {
		if (start_direct(
			(struct child_args){.ctx = ctx,
					    .path = path,
					    .plugin = req->plugin ? req->plugin : base_name(path),
					    .argv = argv,
					    .envp = envp,
					    .in_r = in[0],
					    .out_w = out[1],
					    .err_w = errp[1]},
			r) < 0) {
			saved = errno;
			goto out;
		}
	} else {
		struct helper_args h = {.ctx = ctx,
					.path = path,
					.plugin = req->plugin ? req->plugin : base_name(path),
					.argv = argv,
					.envp = envp,
					.in_r = in[0],
					.out_w = out[1],
					.err_w = errp[1],
					.rep_w = rep[1],
					.rel_r = rel[0]};
		r->rep_fd = TAKE_FD(rep[0]);
		r->rel_fd = TAKE_FD(rel[1]);
		if (start_helper(&h, r) < 0) {
			saved = errno;
			goto out;
		}
		rep[1] = h.rep_w; /* -1 once the helper runs */
		rel[0] = h.rel_r;
	}
	if (r->pid < 0)
		goto out; /* it could not be executed */

	r->in_fd = in[1];
	r->out_fd = out[0];
	r->err_fd = errp[0];
	in[1] = out[0] = errp[0] = -1;

out:
	for (int i = 0; i < 2; i++) {
		close_fd(&in[i]);
		close_fd(&out[i]);
		close_fd(&errp[i]);
		close_fd(&rep[i]);
		close_fd(&rel[i]);
	}
	if (saved != 0) {
		error_set_errno(err, CNIRT_ERR_NONE, saved, "cannot start plugin \"%s\"",
				base_name(path));
		return error_kind(err, CNIRT_KIND_SPAWN);
	}
	return 0;
}

/*
 * Read what poll() said is there (our ends are blocking: one read). The
 * buffer grows by doubling from 4 KiB, so that the usual small output costs
 * a small allocation, not a READ_CHUNK one.
 */
static void read_some(int *fd, struct buf *b, size_t limit, bool *overflow)
{
	if (limit == 0)
		limit = SIZE_MAX; /* no cap */
	if (b->cap - b->len < 2) {
		size_t cap = b->cap ? b->cap * 2 : 4096;

		b->data = xrealloc(b->data, cap);
		b->cap = cap;
	}
	/* Room for the NUL; at most one byte over the cap: enough to tell it
	 * was exceeded. */
	size_t want = b->cap - b->len - 1;
	if (want > READ_CHUNK)
		want = READ_CHUNK;
	if (limit < SIZE_MAX && limit + 1 - b->len < want)
		want = limit + 1 - b->len;

	ssize_t n = read(*fd, b->data + b->len, want);
	if (n > 0) {
		b->len += (size_t)n;
		b->data[b->len] = '\0';
		if (b->len > limit)
			*overflow = true;
	} else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
		close_fd(fd);
	}
}

/* The rest of the configuration (non-blocking: it is larger than PIPE_BUF). */
static void write_some(struct run *r, const struct exec_request *req, struct sigpipe_guard *guard)
{
	ssize_t n;

	sigpipe_block(guard);
	n = write(r->in_fd, req->stdin_data + r->in_off, req->stdin_len - r->in_off);
	if (n > 0)
		r->in_off += (size_t)n;
	else if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	else /* EPIPE: the plugin does not read (all of) its stdin; its exit
	      * status tells whether that is a failure. */
		r->in_off = req->stdin_len;
	if (r->in_off == req->stdin_len)
		close_fd(&r->in_fd);
}

/*
 * Feed the rest of stdin, read the outputs, until the plugin has exited and
 * the outputs are at EOF (or the grace period after its exit is over), the
 * deadline (0: none) passed, the ctx was cancelled, or an output went over
 * the cap.
 */
static int pump(const cnirt_ctx *ctx, const struct exec_request *req, struct run *r,
		long long deadline, struct sigpipe_guard *guard, cnirt_error **err)
{
	long long exited_at = -1;

	for (;;) {
		struct pollfd p[5];
		int np = 0, timeout = -1;
		long long now;

		if (exited_at >= 0) {
			close_fd(&r->in_fd);
			if (r->out_fd < 0 && r->err_fd < 0)
				return 0;
		}
		if (ctx_cancelled(ctx)) {
			r->cancelled = true;
			return 0;
		}

		now = clock_monotonic_ms();
		if (exited_at >= 0) {
			if (now >= exited_at + EXIT_GRACE_MS)
				return 0;
			timeout = (int)(exited_at + EXIT_GRACE_MS - now);
		} else {
			if (deadline > 0 && now >= deadline) {
				r->timed_out = true;
				return 0;
			}
			if (deadline > 0)
				timeout =
				    deadline - now > INT_MAX ? INT_MAX : (int)(deadline - now);
		}

		if (r->in_fd >= 0)
			p[np++] = (struct pollfd){.fd = r->in_fd, .events = POLLOUT};
		if (r->out_fd >= 0)
			p[np++] = (struct pollfd){.fd = r->out_fd, .events = POLLIN};
		if (r->err_fd >= 0)
			p[np++] = (struct pollfd){.fd = r->err_fd, .events = POLLIN};
		if (exited_at < 0 && r->rep_fd >= 0)
			p[np++] = (struct pollfd){.fd = r->rep_fd, .events = POLLIN};
		if (ctx->cancel_fd >= 0)
			p[np++] = (struct pollfd){.fd = ctx->cancel_fd, .events = POLLIN};

		if (poll(p, (nfds_t)np, timeout) < 0) {
			if (errno == EINTR)
				continue;
			error_set_errno(err, CNIRT_ERR_NONE, errno, "poll");
			return error_kind(err, CNIRT_KIND_IO);
		}

		for (int i = 0; i < np; i++) {
			if (p[i].revents == 0)
				continue;
			if (p[i].fd == r->in_fd) {
				write_some(r, req, guard);
			} else if (p[i].fd == r->out_fd) {
				read_some(&r->out_fd, &r->out, ctx->output_limit, &r->overflow);
			} else if (p[i].fd == r->err_fd) {
				read_some(&r->err_fd, &r->errb, ctx->output_limit, &r->overflow);
			} else if (p[i].fd == r->rep_fd) {
				struct helper_msg m;

				/* The plugin exited (or, at EOF, the helper
				 * died: the status is lost). Our own child's
				 * status is taken when release() reaps it. */
				if (r->direct)
					r->exited = true;
				else if (read_report(r->rep_fd, &m) && m.type == MSG_EXITED) {
					r->status = m.a;
					r->have_status = true;
				}
				close_fd(&r->rep_fd);
				exited_at = clock_monotonic_ms();
			}
		}
		if (r->overflow)
			return 0;
	}
}

/* One start of the plugin, up to the released plugin. */
static int run_once(const cnirt_ctx *ctx, const char *path, char *const argv[], char *const envp[],
		    const struct exec_request *req, long long deadline, struct run *r,
		    struct sigpipe_guard *guard, cnirt_error **err)
{
	int ret;

	if (spawn(ctx, path, argv, envp, req, r, err) < 0)
		return -1;
	if (r->pid < 0)
		return 0; /* it could not be executed: r->fail_* say why */

	ret = pump(ctx, req, r, deadline, guard, err);

	/* The plugin's process group does not outlive the execution: after a
	 * timeout, a cancellation or an overflow the plugin is killed, and
	 * whatever it left behind is killed in any case. The helper keeps the
	 * plugin unreaped until release(), so the group id cannot name anyone
	 * else. */
	kill(-r->pid, SIGKILL);
	if (r->timed_out || r->cancelled || r->overflow || ret < 0)
		kill(r->pid, SIGKILL);
	close_fd(&r->in_fd);
	close_fd(&r->out_fd);
	close_fd(&r->err_fd);
	release(r);
	return ret;
}

/* The plugin's whole stderr (as far as it was read) goes with its error. */
static void keep_stderr(const struct run *r, cnirt_error *e)
{
	if (e == NULL || r->errb.len == 0 || e->stderr_data)
		return;
	e->stderr_data = xmemdup(r->errb.data, r->errb.len + 1);
	e->stderr_len = r->errb.len;
}

/* The error of a plugin that exited with a non-zero status. */
static int plugin_failed(const struct run *r, int exit_status, cnirt_error **err)
{
	int code = 0;
	char *msg = NULL, *details = NULL;

	if (result_parse_error(r->out.data ? r->out.data : "", r->out.len, &code, &msg, &details) ==
		0 ||
	    result_parse_error(r->errb.data ? r->errb.data : "", r->errb.len, &code, &msg,
			       &details) == 0) {
		if (msg && msg[0])
			error_set(err, code, "%s", msg);
		else
			error_set(err, code, "exit status %d", exit_status);
		free(msg);
		(*err)->details = details;
	} else if (r->errb.len > 0) {
		size_t n = strcspn(r->errb.data, "\r\n");

		error_set(err, CNIRT_ERR_NONE, "exit status %d: %.*s", exit_status, (int)n,
			  r->errb.data);
	} else {
		error_set(err, CNIRT_ERR_NONE, "exit status %d", exit_status);
	}
	(*err)->from_plugin = true;
	return error_kind(err, CNIRT_KIND_PLUGIN);
}

static int interpret(const cnirt_ctx *ctx, const char *path, const struct exec_request *req,
		     struct run *r, char **out, size_t *out_len, cnirt_error **err)
{
	if (r->cancelled) {
		error_set(err, CNIRT_ERR_NONE, "plugin \"%s\" %s cancelled", base_name(path),
			  req->command ? req->command : "");
		return error_kind(err, CNIRT_KIND_CANCELLED);
	}
	if (r->timed_out && r->deadline_op) {
		error_set(err, CNIRT_ERR_NONE,
			  "plugin \"%s\" %s stopped at the operation's deadline (%u ms)",
			  base_name(path), req->command ? req->command : "", ctx->deadline_ms);
		return error_kind(err, CNIRT_KIND_TIMEOUT);
	}
	if (r->timed_out) {
		error_set(err, CNIRT_ERR_NONE, "plugin \"%s\" %s timed out after %u ms",
			  base_name(path), req->command ? req->command : "", ctx->timeout_ms);
		return error_kind(err, CNIRT_KIND_TIMEOUT);
	}
	if (r->overflow) {
		error_set(err, CNIRT_ERR_NONE, "plugin output exceeds %zu bytes",
			  ctx->output_limit);
		return error_kind(err, CNIRT_KIND_OUTPUT_LIMIT);
	}
	switch (r->fail_stage) {
	case STAGE_NONE:
		break;
	case STAGE_PREEXEC:
		error_set_errno(err, CNIRT_ERR_NONE, r->fail_errno,
				"preexec for plugin \"%s\" failed", base_name(path));
		return error_kind(err, CNIRT_KIND_SPAWN);
	case STAGE_EXEC:
		error_set_errno(err, CNIRT_ERR_NONE, r->fail_errno, "cannot execute %s", path);
		return error_kind(err, r->fail_errno == ENOENT ? CNIRT_KIND_NOT_FOUND
				       : r->fail_errno == EACCES || r->fail_errno == ENOEXEC ||
					       r->fail_errno == EPERM
					   ? CNIRT_KIND_NOT_EXECUTABLE
					   : CNIRT_KIND_SPAWN);
	default:
		error_set_errno(err, CNIRT_ERR_NONE, r->fail_errno,
				"cannot set up the process of plugin \"%s\"", base_name(path));
		return error_kind(err, CNIRT_KIND_SPAWN);
	}
	if (!r->have_status) {
		error_set(err, CNIRT_ERR_NONE, "cannot get the exit status of plugin \"%s\"",
			  base_name(path));
		return error_kind(err, CNIRT_KIND_LOST_STATUS);
	}
	if (WIFSIGNALED(r->status)) {
		error_set(err, CNIRT_ERR_NONE, "killed by signal %d (%s)", WTERMSIG(r->status),
			  signal_name(WTERMSIG(r->status)));
		(*err)->signal = WTERMSIG(r->status);
		return error_kind(err, CNIRT_KIND_SIGNAL);
	}
	if (!WIFEXITED(r->status)) {
		error_set(err, CNIRT_ERR_NONE, "unexpected wait status %d", r->status);
		return error_kind(err, CNIRT_KIND_LOST_STATUS);
	}
	if (WEXITSTATUS(r->status) != 0)
		return plugin_failed(r, WEXITSTATUS(r->status), err);

	*out_len = r->out.len;
	*out = xmemdup(r->out.data ? r->out.data : "", r->out.len);
	return 0;
}

/*
 * The engine runs the plugin (cnirt_ctx_set_exec()): what it hands back is
 * put into r as if we had run it ourselves.
 */
static int run_external(const cnirt_ctx *ctx, const char *path, char *const argv[],
			char *const envp[], const struct exec_request *req, long long deadline,
			struct run *r, cnirt_error **err)
{
	long long left = deadline > 0 ? deadline - clock_monotonic_ms() : 0;
	cnirt_exec_call call = {
	    .path = path,
	    .argv = argv,
	    .envp = envp,
	    .stdin_data = req->stdin_data ? req->stdin_data : "",
	    .stdin_len = req->stdin_len,
	    .timeout_ms = deadline > 0 ? (left > 0 ? left : 1) : 0,
	    .output_limit = ctx->output_limit,
	    .cancel_fd = ctx->cancel_fd,
	};
	cnirt_exec_outcome o = {0};
	int e;

	if (deadline > 0 && left <= 0) {
		r->timed_out = true;
		return 0;
	}
	e = ctx->exec_fn(ctx->exec_data, &call, &o);
	if (o.out) {
		buf_append(&r->out, o.out, o.out_len);
		free(o.out);
	}
	if (o.err) {
		buf_append(&r->errb, o.err, o.err_len);
		free(o.err);
	}
	if (e != 0) {
		error_set_errno(err, CNIRT_ERR_NONE, e < 0 ? -e : e,
				"the engine's exec function could not run plugin \"%s\"",
				base_name(path));
		return error_kind(err, CNIRT_KIND_SPAWN);
	}
	if (o.exec_errno) {
		r->fail_stage = STAGE_EXEC;
		r->fail_errno = o.exec_errno;
	}
	r->timed_out = o.timed_out;
	r->cancelled = o.cancelled || ctx_cancelled(ctx);
	r->overflow = o.over_limit || (ctx->output_limit > 0 && (r->out.len > ctx->output_limit ||
								 r->errb.len > ctx->output_limit));
	r->status = o.wait_status;
	r->have_status = !o.status_lost;
	return 0;
}

int exec_plugin(const cnirt_ctx *ctx, const char *path, const struct exec_request *req, char **out,
		size_t *out_len, cnirt_error **err)
{
	char **envp = build_env(ctx, req);
	char *argv[] = {(char *)path, NULL};
	long long plugin_deadline = ctx->timeout_ms ? clock_monotonic_ms() + ctx->timeout_ms : 0;
	long long deadline = plugin_deadline;
	struct sigpipe_guard guard = {.active = false};
	struct run r;
	int ret;

	/* The operation's deadline, when it comes first. */
	if (req->deadline > 0 && (deadline == 0 || req->deadline < deadline))
		deadline = req->deadline;

	for (int attempt = 1;; attempt++) {
		long long backoff = (long long)ETXTBSY_BACKOFF_MS << (attempt - 1);

		run_init(&r);
		if (ctx_cancelled(ctx)) {
			r.cancelled = true;
			ret = 0;
			break;
		}
		if (ctx->exec_fn)
			ret = run_external(ctx, path, argv, envp, req, deadline, &r, err);
		else
			ret = run_once(ctx, path, argv, envp, req, deadline, &r, &guard, err);
		if (ret < 0)
			break;
		/* The binary is being written (replaced): try a fresh exec. */
		if (r.fail_stage != STAGE_EXEC || r.fail_errno != ETXTBSY ||
		    attempt == ETXTBSY_TRIES ||
		    (deadline > 0 && clock_monotonic_ms() + backoff >= deadline))
			break;
		run_free(&r);
		sleep_ms(backoff);
	}
	sigpipe_restore(&guard);

	r.deadline_op = r.timed_out && deadline != plugin_deadline;
	if (ret == 0)
		ret = interpret(ctx, path, req, &r, out, out_len, err);
	if (ret < 0)
		keep_stderr(&r, *err);
	run_free(&r);
	free_env(envp);
	if (ret < 0)
		error_set_plugin(*err, base_name(path));
	return ret;
}
