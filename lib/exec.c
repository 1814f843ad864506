/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Executing a plugin (spec section 2, "Execution Protocol").
 *
 * The plugin runs in a child process of its own process group, with exactly
 * the six CNI_* variables and PATH as its environment, the configuration on
 * a pipe as stdin and two pipes for stdout and stderr; every other
 * descriptor is closed. The parent feeds stdin and reads both outputs in one
 * poll() loop, so that neither a big configuration nor a big result can
 * deadlock, and watches the child through a pidfd (or a short tick where
 * there is none): the library installs no signal handler.
 *
 * Once the plugin has exited, its outputs are drained for a short grace
 * period only: a grandchild that still holds the pipes must not keep us
 * waiting. Then the whole process group is killed, on success too, so
 * nothing the plugin left behind in it outlives the execution. A timeout or
 * an output over the cap kills the group at once.
 *
 * Failures of the child before the plugin runs (the preexec function,
 * execve) travel back as an errno through a close-on-exec status pipe; a
 * binary that is being replaced (ETXTBSY) gets a fresh fork and exec a few
 * times with a short backoff.
 */
#include "config.h"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "internal.h"

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
 * must give EPIPE, not kill the caller. The signal is blocked in this thread
 * while the plugin runs and a SIGPIPE raised meanwhile is consumed, unless
 * one was already pending before.
 */
struct sigpipe_guard {
	sigset_t old;
	bool was_pending;
};

static void sigpipe_block(struct sigpipe_guard *g)
{
	sigset_t set, pending;

	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	sigemptyset(&pending);
	sigpending(&pending);
	g->was_pending = sigismember(&pending, SIGPIPE) == 1;
	pthread_sigmask(SIG_BLOCK, &set, &g->old);
}

static void sigpipe_restore(struct sigpipe_guard *g)
{
	sigset_t set, pending;

	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	sigemptyset(&pending);
	if (!g->was_pending && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1) {
		struct timespec zero = {0, 0};

		TEMP_FAILURE_RETRY(sigtimedwait(&set, NULL, &zero));
	}
	pthread_sigmask(SIG_SETMASK, &g->old, NULL);
}

/* ------------------------------------------------------------ the child */

enum child_stage {
	STAGE_SETUP = 1,
	STAGE_PREEXEC,
	STAGE_EXEC,
};

/* What a child that failed before the plugin ran writes on the status pipe. */
struct child_report {
	int stage;
	int err;
};

/* Only async-signal-safe calls from here on to the execve(). */
static _Noreturn void child_fail(int fd, int stage, int errnum)
{
	struct child_report rep = {.stage = stage, .err = errnum};
	ssize_t n;

	do
		n = write(fd, &rep, sizeof(rep));
	while (n < 0 && errno == EINTR);
	_exit(CHILD_FAILED_STATUS);
}

static void close_from(int first, int max_fd)
{
#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)first, ~0U, 0U) == 0)
		return;
#endif
	for (int fd = first; fd < max_fd; fd++)
		close(fd);
}

static _Noreturn void child_run(const cnirt_ctx *ctx, const char *path, char *const argv[],
				char *const envp[], int in_r, int out_w, int err_w, int st_w,
				int max_fd)
{
	int fds[4] = {in_r, out_w, err_w, st_w};
	sigset_t none;

	if (setpgid(0, 0) < 0)
		child_fail(st_w, STAGE_SETUP, errno);

	/* Lift the four descriptors above 3 first, so that none of them can be
	 * clobbered by the dup2()s below whatever numbers they had. */
	for (size_t i = 0; i < ARRAY_SIZE(fds); i++) {
		int fd = fcntl(fds[i], F_DUPFD_CLOEXEC, 4);

		if (fd < 0)
			child_fail(fds[3], STAGE_SETUP, errno);
		fds[i] = fd;
	}
	if (dup2(fds[0], STDIN_FILENO) < 0 || dup2(fds[1], STDOUT_FILENO) < 0 ||
	    dup2(fds[2], STDERR_FILENO) < 0 || dup3(fds[3], 3, O_CLOEXEC) < 0)
		child_fail(fds[3], STAGE_SETUP, errno);
	close_from(4, max_fd);

	/* A clean signal state: default dispositions (a SIGPIPE ignored by the
	 * caller stays ignored across execve otherwise), nothing blocked. */
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction sa = {.sa_handler = SIG_DFL};

		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &sa, NULL);
	}
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	if (ctx->preexec) {
		int r = ctx->preexec(ctx->preexec_data);

		if (r != 0)
			child_fail(3, STAGE_PREEXEC, r < 0 ? -r : r);
	}

	execve(path, argv, envp);
	child_fail(3, STAGE_EXEC, errno);
}

/* ------------------------------------------------------------ the parent */

struct run {
	pid_t pid;
	int pidfd;
	int in_fd, out_fd, err_fd, st_fd; /* the parent's ends */
	size_t in_off;
	struct buf out, errb, st;
	int status; /* wait status, once reaped */
	bool timed_out;
	bool overflow;
};

static void run_init(struct run *r)
{
	*r = (struct run){
	    .pid = -1, .pidfd = -1, .in_fd = -1, .out_fd = -1, .err_fd = -1, .st_fd = -1};
}

static void run_free(struct run *r)
{
	close_fd(&r->pidfd);
	close_fd(&r->in_fd);
	close_fd(&r->out_fd);
	close_fd(&r->err_fd);
	close_fd(&r->st_fd);
	buf_free(&r->out);
	buf_free(&r->errb);
	buf_free(&r->st);
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -1;
	return 0;
}

static int max_fd_number(void)
{
	long n = sysconf(_SC_OPEN_MAX);

	if (n < 0 || n > (1 << 20))
		n = 1 << 20;
	return (int)n;
}

/* Start the child. On success the parent's pipe ends are in r. */
static int spawn(const cnirt_ctx *ctx, const char *path, char *const argv[], char *const envp[],
		 struct run *r, cnirt_error **err)
{
	int in[2] = {-1, -1}, out[2] = {-1, -1}, errp[2] = {-1, -1}, st[2] = {-1, -1};
	int max_fd = max_fd_number();
	sigset_t all, old;
	int saved;

	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0 ||
	    pipe2(st, O_CLOEXEC) < 0) {
		saved = errno;
		goto fail_pipes;
	}

	/* No handler of the caller may run in the child before it has reset
	 * the dispositions. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r->pid = fork();
	if (r->pid == 0)
		child_run(ctx, path, argv, envp, in[0], out[1], errp[1], st[1], max_fd);
	saved = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r->pid < 0)
		goto fail_pipes;

	/* Also from here, so that the group exists whatever the child's
	 * progress when we signal it. */
	setpgid(r->pid, r->pid);

	close(in[0]);
	close(out[1]);
	close(errp[1]);
	close(st[1]);
	r->in_fd = in[1];
	r->out_fd = out[0];
	r->err_fd = errp[0];
	r->st_fd = st[0];
	/* Only our ends: the plugin's stdin stays blocking. */
	set_nonblock(r->in_fd);
	set_nonblock(r->out_fd);
	set_nonblock(r->err_fd);
	set_nonblock(r->st_fd);
#ifdef SYS_pidfd_open
	r->pidfd = (int)syscall(SYS_pidfd_open, r->pid, 0);
	if (r->pidfd < 0)
		r->pidfd = -1;
#endif
	return 0;

fail_pipes:
	for (int i = 0; i < 2; i++) {
		close_fd(&in[i]);
		close_fd(&out[i]);
		close_fd(&errp[i]);
		close_fd(&st[i]);
	}
	return error_set_errno(err, CNIRT_ERR_NONE, saved, "cannot start plugin \"%s\"",
			       base_name(path));
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

static void read_some(int *fd, struct buf *b, size_t limit, bool *overflow)
{
	/* At most one byte over the cap: enough to tell it was exceeded. */
	size_t want = READ_CHUNK;
	if (limit == 0)
		limit = SIZE_MAX; /* no cap */
	if (limit < SIZE_MAX && limit + 1 - b->len < want)
		want = limit + 1 - b->len;
	if (b->cap < b->len + want + 1) {
		size_t cap = b->cap ? b->cap : 4096;

		while (cap < b->len + want + 1)
			cap *= 2;
		b->data = xrealloc(b->data, cap);
		b->cap = cap;
	}

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

static void write_some(struct run *r, const struct exec_request *req)
{
	ssize_t n = write(r->in_fd, req->stdin_data + r->in_off, req->stdin_len - r->in_off);

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
 * Feed stdin, read the outputs, until the plugin has exited and the outputs
 * are at EOF (or the grace period after its exit is over), the deadline
 * (0: none) passed, or an output went over the cap.
 */
static int pump(const cnirt_ctx *ctx, const struct exec_request *req, struct run *r,
		long long deadline, cnirt_error **err)
{
	long long exited_at = -1;

	if (req->stdin_len == 0)
		close_fd(&r->in_fd);

	for (;;) {
		struct pollfd p[5];
		int np = 0, timeout = -1;
		long long now;

		if (exited_at < 0 && child_exited(r->pid)) {
			exited_at = now_ms();
			close_fd(&r->in_fd);
		}
		if (exited_at >= 0 && r->out_fd < 0 && r->err_fd < 0 && r->st_fd < 0)
			return 0;

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
		if (r->st_fd >= 0)
			p[np++] = (struct pollfd){.fd = r->st_fd, .events = POLLIN};
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
				write_some(r, req);
			else if (p[i].fd == r->out_fd)
				read_some(&r->out_fd, &r->out, ctx->output_limit, &r->overflow);
			else if (p[i].fd == r->err_fd)
				read_some(&r->err_fd, &r->errb, ctx->output_limit, &r->overflow);
			else if (p[i].fd == r->st_fd)
				read_some(&r->st_fd, &r->st, SIZE_MAX, &r->overflow);
		}
		if (r->overflow)
			return 0;
	}
}

/* One fork and exec, up to the reaped child. */
static int run_once(const cnirt_ctx *ctx, const char *path, char *const argv[], char *const envp[],
		    const struct exec_request *req, long long deadline, struct run *r,
		    cnirt_error **err)
{
	int ret;

	if (spawn(ctx, path, argv, envp, r, err) < 0)
		return -1;

	ret = pump(ctx, req, r, deadline, err);

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
	close_fd(&r->st_fd);
	close_fd(&r->pidfd);

	if (TEMP_FAILURE_RETRY(waitpid(r->pid, &r->status, 0)) < 0) {
		if (ret == 0 && !r->timed_out && !r->overflow)
			ret = error_set_errno(err, CNIRT_ERR_NONE, errno,
					      "cannot get the exit status of plugin \"%s\"",
					      base_name(path));
	}
	return ret;
}

static const struct child_report *child_report(const struct run *r)
{
	if (r->st.len < sizeof(struct child_report))
		return NULL;
	return (const struct child_report *)(const void *)r->st.data;
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
	const struct child_report *rep = child_report(r);

	if (r->timed_out)
		return error_set(err, CNIRT_ERR_NONE, "plugin \"%s\" %s timed out after %u ms",
				 base_name(path), req->command ? req->command : "",
				 ctx->timeout_ms);
	if (r->overflow)
		return error_set(err, CNIRT_ERR_NONE, "plugin output exceeds %zu bytes",
				 ctx->output_limit);
	if (rep) {
		switch (rep->stage) {
		case STAGE_PREEXEC:
			return error_set_errno(err, CNIRT_ERR_NONE, rep->err,
					       "preexec for plugin \"%s\" failed", base_name(path));
		case STAGE_EXEC:
			return error_set_errno(err, CNIRT_ERR_NONE, rep->err, "cannot execute %s",
					       path);
		default:
			return error_set_errno(err, CNIRT_ERR_NONE, rep->err,
					       "cannot set up the process of plugin \"%s\"",
					       base_name(path));
		}
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
	struct sigpipe_guard guard;
	struct run r;
	int ret;

	sigpipe_block(&guard);
	for (int attempt = 1;; attempt++) {
		const struct child_report *rep;
		long long backoff = (long long)ETXTBSY_BACKOFF_MS << (attempt - 1);

		run_init(&r);
		ret = run_once(ctx, path, argv, envp, req, deadline, &r, err);
		if (ret < 0)
			break;
		/* The binary is being written (replaced): try a fresh exec. */
		rep = child_report(&r);
		if (rep == NULL || rep->stage != STAGE_EXEC || rep->err != ETXTBSY ||
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
