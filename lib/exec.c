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
 * memory on a stack of its own until it calls execve(), so there is no copy
 * of our page tables as with fork() and no copy-on-write faults after it,
 * and yet there is a place for the caller's preexec function (the plugin
 * sandbox), which posix_spawn() would not give. Failures before the plugin
 * runs (the setup, the preexec function, execve) come back as an errno
 * through a close-on-exec status pipe.
 *
 * The configuration is written into the stdin pipe before the child starts
 * as far as the pipe takes it (all of it, in practice); the rest, the
 * outputs and the child's exit are handled in one poll() loop, so that
 * neither a big configuration nor a big result can deadlock. The child is
 * watched through a pidfd (or a short tick where there is none): the
 * library installs no signal handler.
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

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
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

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
/* How much is read from one output per wake-up. */
#define READ_CHUNK 65536
/* How long the outputs are still read once the plugin has exited. */
#define EXIT_GRACE_MS 100
/* Without a pidfd: how often to look whether the plugin has exited. */
#define POLL_TICK_MS 10
/* Executions tried when the binary is busy (ETXTBSY); the backoff doubles
 * from ETXTBSY_BACKOFF_MS. */
#define ETXTBSY_TRIES	   6
#define ETXTBSY_BACKOFF_MS 10
/* The exit status of a child that failed before the plugin ran. */
#define CHILD_FAILED_STATUS 127
/* The child's stack, until it calls execve(): the setup, the preexec
 * function. */
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

	for (size_t i = 0; i < ctx->n_bin_dirs; i++) {
		const char *dir = ctx->bin_dirs[i];
		size_t dlen = strlen(dir);
		bool slash = dlen > 0 && dir[dlen - 1] == '/';
		_cleanup_free_ char *p = xasprintf("%s%s%s", dir, slash ? "" : "/", type);
		struct stat st;

		if (stat(p, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111)) {
			*path = TAKE_PTR(p);
			return 0;
		}
	}

	if (ctx->n_bin_dirs == 0)
		error_set(err, CNIRT_ERR_INVALID_CONFIG,
			  "plugin \"%s\" not found: no plugin directory is configured", type);
	else
		error_set(err, CNIRT_ERR_INVALID_CONFIG, "plugin \"%s\" not found in %s", type,
			  ctx->cni_path ? ctx->cni_path : "");
	error_set_plugin(*err, type);
	return -1;
}

/* ------------------------------------------------------------ helpers */

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

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

/* The plugin's whole environment: nothing of ours leaks into it. */
static char **build_env(const cnirt_ctx *ctx, const struct exec_request *req)
{
#define V(s) ((s) ? (s) : "")
	char **env = xcalloc(8, sizeof(char *));
	size_t n = 0;

	env[n++] = xasprintf("CNI_COMMAND=%s", V(req->command));
	env[n++] = xasprintf("CNI_CONTAINERID=%s", V(req->container_id));
	env[n++] = xasprintf("CNI_NETNS=%s", V(req->netns));
	env[n++] = xasprintf("CNI_IFNAME=%s", V(req->ifname));
	env[n++] = xasprintf("CNI_ARGS=%s", V(req->args));
	env[n++] = xasprintf("CNI_PATH=%s", V(ctx->cni_path));
	env[n++] = xasprintf("PATH=%s", ctx->path_env ? ctx->path_env : DEFAULT_PATH);
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

/* What a child that failed before the plugin ran writes on the status
 * pipe. */
struct child_report {
	int stage;
	int err;
};

/* What the child needs, on the parent's stack (the child shares it). */
struct child_args {
	const cnirt_ctx *ctx;
	const char *path;
	char *const *argv;
	char *const *envp;
	int in_r, out_w, err_w, st_w;
};

/*
 * The child runs in our memory, on a stack of its own, while this thread
 * waits (CLONE_VM | CLONE_VFORK): from here to the execve() only system
 * calls, no allocation, no lock, nothing that writes our memory but its
 * own stack and errno.
 */
static _Noreturn void child_fail(int fd, int stage, int errnum)
{
	struct child_report rep = {.stage = stage, .err = errnum};
	ssize_t n;

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
	int fds[4] = {a->in_r, a->out_w, a->err_w, a->st_w};
	sigset_t none;

	if (setpgid(0, 0) < 0)
		child_fail(a->st_w, STAGE_SETUP, errno);

	/* Lift the four descriptors above 3 first, so that none of them can be
	 * clobbered by the dup2()s below whatever numbers they had (a caller
	 * with 0, 1 or 2 closed gets those from pipe2()). */
	for (size_t i = 0; i < ARRAY_SIZE(fds); i++) {
		int fd = fcntl(fds[i], F_DUPFD_CLOEXEC, 4);

		if (fd < 0)
			child_fail(a->st_w, STAGE_SETUP, errno);
		fds[i] = fd;
	}
	if (dup2(fds[0], STDIN_FILENO) < 0 || dup2(fds[1], STDOUT_FILENO) < 0 ||
	    dup2(fds[2], STDERR_FILENO) < 0 || dup3(fds[3], 3, O_CLOEXEC) < 0)
		child_fail(fds[3], STAGE_SETUP, errno);
	close_from(4);

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

	if (a->ctx->preexec) {
		int r = a->ctx->preexec(a->ctx->preexec_data);

		if (r != 0)
			child_fail(3, STAGE_PREEXEC, r < 0 ? -r : r);
	}

	execve(a->path, a->argv, a->envp);
	child_fail(3, STAGE_EXEC, errno);
}

/* ------------------------------------------------------------ the parent */

struct run {
	pid_t pid; /* the child, until reaped; -1: none */
	int pidfd;
	int in_fd, out_fd, err_fd; /* the parent's ends */
	size_t in_off;
	struct buf out, errb;
	int status;	/* wait status, once reaped */
	int fail_stage; /* STAGE_NONE, or where the child failed before the plugin ran */
	int fail_errno; /* and why */
	bool timed_out;
	bool overflow;
};

static void run_init(struct run *r)
{
	*r = (struct run){.pid = -1, .pidfd = -1, .in_fd = -1, .out_fd = -1, .err_fd = -1};
}

static void run_free(struct run *r)
{
	close_fd(&r->pidfd);
	close_fd(&r->in_fd);
	close_fd(&r->out_fd);
	close_fd(&r->err_fd);
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

/*
 * Start the child with clone(CLONE_VM | CLONE_VFORK): unlike fork() no copy
 * of our page tables and no copy-on-write faults afterwards, and unlike
 * posix_spawn() room for the preexec function. This thread sleeps until
 * the child has called execve() or exited; by then the status pipe holds
 * the child's report, or is at EOF (its close-on-exec write end went with
 * the exec). Under valgrind, which runs such a clone as a fork, the read
 * waits for the same two events.
 *
 * On success either the plugin runs (r->pid), or it could not be executed
 * and r->fail_stage and r->fail_errno say why (the child is reaped). -1
 * with errno when no child could be started.
 */
static int start_child(const cnirt_ctx *ctx, const char *path, char *const argv[],
		       char *const envp[], int in_r, int out_w, int err_w, struct run *r)
{
	struct child_args a = {.ctx = ctx,
			       .path = path,
			       .argv = argv,
			       .envp = envp,
			       .in_r = in_r,
			       .out_w = out_w,
			       .err_w = err_w};
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t size = CHILD_STACK_SIZE + page;
	struct child_report rep;
	sigset_t all, old;
	int st[2], saved;
	void *stack;
	ssize_t n;
	pid_t pid;

	if (pipe2(st, O_CLOEXEC) < 0)
		return -1;
	stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
		     -1, 0);
	if (stack == MAP_FAILED) {
		saved = errno;
		goto fail;
	}
	/* A guard page below the stack. */
	if (mprotect(stack, page, PROT_NONE) < 0) {
		saved = errno;
		munmap(stack, size);
		goto fail;
	}
	a.st_w = st[1];

	/* No handler of the caller may run in the child (in our memory)
	 * before it has reset the dispositions. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid = clone(child_main, (char *)stack + size, CLONE_VM | CLONE_VFORK | SIGCHLD, &a);
	saved = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
#ifdef EXEC_ASAN
	/* The child's frames poisoned the shadow of a stack ASan never knew. */
	__asan_unpoison_memory_region(stack, size);
#endif
	munmap(stack, size);
	close(st[1]);
	if (pid < 0) {
		close(st[0]);
		errno = saved;
		return -1;
	}

	n = TEMP_FAILURE_RETRY(read(st[0], &rep, sizeof(rep)));
	close(st[0]);
	if (n == (ssize_t)sizeof(rep)) {
		TEMP_FAILURE_RETRY(waitpid(pid, NULL, 0));
		r->fail_stage = rep.stage;
		r->fail_errno = rep.err;
		return 0;
	}
	r->pid = pid;
	return 0;

fail:
	close(st[0]);
	close(st[1]);
	errno = saved;
	return -1;
}

/*
 * Start the plugin: the pipes, the configuration written into stdin, the
 * child. On success either the plugin runs (r->pid) with the parent's pipe
 * ends in r, or it could not be executed and r->fail_stage and
 * r->fail_errno say why. -1 when we could not even try.
 */
static int spawn(const cnirt_ctx *ctx, const char *path, char *const argv[], char *const envp[],
		 const struct exec_request *req, struct run *r, cnirt_error **err)
{
	int in[2] = {-1, -1}, out[2] = {-1, -1}, errp[2] = {-1, -1};
	int saved = 0;

	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0 ||
	    fill_stdin(in[1], req, &r->in_off) < 0) {
		saved = errno;
		goto out;
	}
	if (r->in_off == req->stdin_len)
		close_fd(&in[1]); /* all of it is in the pipe: EOF after it */

	if (start_child(ctx, path, argv, envp, in[0], out[1], errp[1], r) < 0) {
		saved = errno;
		goto out;
	}
	if (r->pid < 0)
		goto out; /* it could not be executed */

	r->in_fd = in[1];
	r->out_fd = out[0];
	r->err_fd = errp[0];
	in[1] = out[0] = errp[0] = -1;
#ifdef SYS_pidfd_open
	r->pidfd = (int)syscall(SYS_pidfd_open, r->pid, 0);
	if (r->pidfd < 0)
		r->pidfd = -1;
#endif

out:
	for (int i = 0; i < 2; i++) {
		close_fd(&in[i]);
		close_fd(&out[i]);
		close_fd(&errp[i]);
	}
	if (saved != 0)
		return error_set_errno(err, CNIRT_ERR_NONE, saved, "cannot start plugin \"%s\"",
				       base_name(path));
	return 0;
}

/* Whether the child has exited; it stays a zombie (WNOWAIT) so that its pid,
 * and so its process group id, cannot be reused before we kill the group. */
static bool child_exited(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (TEMP_FAILURE_RETRY(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT)) < 0)
		return errno == ECHILD; /* reaped behind our back (SIGCHLD ignored) */
	return si.si_pid == pid;
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
 * deadline (0: none) passed, or an output went over the cap.
 */
static int pump(const cnirt_ctx *ctx, const struct exec_request *req, struct run *r,
		long long deadline, struct sigpipe_guard *guard, cnirt_error **err)
{
	long long exited_at = -1;

	for (;;) {
		struct pollfd p[4];
		int np = 0, timeout = -1;
		long long now;

		/* Without a pidfd, look. */
		if (exited_at < 0 && r->pidfd < 0 && child_exited(r->pid))
			exited_at = now_ms();
		if (exited_at >= 0) {
			close_fd(&r->in_fd);
			if (r->out_fd < 0 && r->err_fd < 0)
				return 0;
		}

		now = now_ms();
		if (exited_at >= 0) {
			if (now >= exited_at + EXIT_GRACE_MS)
				return 0;
			timeout = (int)(exited_at + EXIT_GRACE_MS - now);
		} else {
			if (deadline > 0 && now >= deadline) {
				r->timed_out = true;
				return 0;
			}
			if (r->pidfd < 0)
				timeout = POLL_TICK_MS;
			if (deadline > 0 && (timeout < 0 || deadline - now < timeout))
				timeout =
				    deadline - now > INT_MAX ? INT_MAX : (int)(deadline - now);
		}

		if (r->in_fd >= 0)
			p[np++] = (struct pollfd){.fd = r->in_fd, .events = POLLOUT};
		if (r->out_fd >= 0)
			p[np++] = (struct pollfd){.fd = r->out_fd, .events = POLLIN};
		if (r->err_fd >= 0)
			p[np++] = (struct pollfd){.fd = r->err_fd, .events = POLLIN};
		if (exited_at < 0 && r->pidfd >= 0)
			p[np++] = (struct pollfd){.fd = r->pidfd, .events = POLLIN};

		if (poll(p, (nfds_t)np, timeout) < 0) {
			if (errno == EINTR)
				continue;
			return error_set_errno(err, CNIRT_ERR_NONE, errno, "poll");
		}

		for (int i = 0; i < np; i++) {
			if (p[i].revents == 0)
				continue;
			if (p[i].fd == r->in_fd)
				write_some(r, req, guard);
			else if (p[i].fd == r->out_fd)
				read_some(&r->out_fd, &r->out, ctx->output_limit, &r->overflow);
			else if (p[i].fd == r->err_fd)
				read_some(&r->err_fd, &r->errb, ctx->output_limit, &r->overflow);
			else if (p[i].fd == r->pidfd)
				exited_at =
				    now_ms(); /* a pidfd is readable once the process exited */
		}
		if (r->overflow)
			return 0;
	}
}

/* One start of the plugin, up to the reaped child. */
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
	 * timeout or an overflow the plugin is killed, and whatever it left
	 * behind is killed in any case. The leader is still unreaped here, so
	 * the group id cannot name anyone else. */
	kill(-r->pid, SIGKILL);
	if (r->timed_out || r->overflow || ret < 0)
		kill(r->pid, SIGKILL);
	close_fd(&r->in_fd);
	close_fd(&r->out_fd);
	close_fd(&r->err_fd);
	close_fd(&r->pidfd);

	if (TEMP_FAILURE_RETRY(waitpid(r->pid, &r->status, 0)) < 0) {
		if (ret == 0 && !r->timed_out && !r->overflow)
			ret = error_set_errno(err, CNIRT_ERR_NONE, errno,
					      "cannot get the exit status of plugin \"%s\"",
					      base_name(path));
	}
	r->pid = -1;
	return ret;
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
	return -1;
}

static int interpret(const cnirt_ctx *ctx, const char *path, const struct exec_request *req,
		     struct run *r, char **out, size_t *out_len, cnirt_error **err)
{
	if (r->timed_out)
		return error_set(err, CNIRT_ERR_NONE, "plugin \"%s\" %s timed out after %u ms",
				 base_name(path), req->command ? req->command : "",
				 ctx->timeout_ms);
	if (r->overflow)
		return error_set(err, CNIRT_ERR_NONE, "plugin output exceeds %zu bytes",
				 ctx->output_limit);
	switch (r->fail_stage) {
	case STAGE_NONE:
		break;
	case STAGE_PREEXEC:
		return error_set_errno(err, CNIRT_ERR_NONE, r->fail_errno,
				       "preexec for plugin \"%s\" failed", base_name(path));
	case STAGE_EXEC:
		return error_set_errno(err, CNIRT_ERR_NONE, r->fail_errno, "cannot execute %s",
				       path);
	default:
		return error_set_errno(err, CNIRT_ERR_NONE, r->fail_errno,
				       "cannot set up the process of plugin \"%s\"",
				       base_name(path));
	}
	if (WIFSIGNALED(r->status))
		return error_set(err, CNIRT_ERR_NONE, "killed by signal %d (%s)",
				 WTERMSIG(r->status), signal_name(WTERMSIG(r->status)));
	if (!WIFEXITED(r->status))
		return error_set(err, CNIRT_ERR_NONE, "unexpected wait status %d", r->status);
	if (WEXITSTATUS(r->status) != 0)
		return plugin_failed(r, WEXITSTATUS(r->status), err);

	*out_len = r->out.len;
	*out = xmemdup(r->out.data ? r->out.data : "", r->out.len);
	return 0;
}

int exec_plugin(const cnirt_ctx *ctx, const char *path, const struct exec_request *req, char **out,
		size_t *out_len, cnirt_error **err)
{
	char **envp = build_env(ctx, req);
	char *argv[] = {(char *)path, NULL};
	long long deadline = ctx->timeout_ms ? now_ms() + ctx->timeout_ms : 0;
	struct sigpipe_guard guard = {.active = false};
	struct run r;
	int ret;

	for (int attempt = 1;; attempt++) {
		long long backoff = (long long)ETXTBSY_BACKOFF_MS << (attempt - 1);

		run_init(&r);
		ret = run_once(ctx, path, argv, envp, req, deadline, &r, &guard, err);
		if (ret < 0)
			break;
		/* The binary is being written (replaced): try a fresh exec. */
		if (r.fail_stage != STAGE_EXEC || r.fail_errno != ETXTBSY ||
		    attempt == ETXTBSY_TRIES || (deadline > 0 && now_ms() + backoff >= deadline))
			break;
		run_free(&r);
		sleep_ms(backoff);
	}
	sigpipe_restore(&guard);

	if (ret == 0)
		ret = interpret(ctx, path, req, &r, out, out_len, err);
	run_free(&r);
	free_env(envp);
	if (ret < 0)
		error_set_plugin(*err, base_name(path));
	return ret;
}
