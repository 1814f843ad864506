/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The hook's log: standard error, and, when asked, a log that exists on the
 * host. glibc's syslog(3) drops lines without a word when nothing listens
 * on /dev/log, so the hook speaks to the sockets itself and knows when a
 * line was not taken: then the journal's native socket, then a file in the
 * state directory. The sinks are tried at the first line logged, never on a
 * quiet run; each line is one send() or one write().
 *
 * The sinks' own steps return 0 or -1 without a message: the log has
 * nowhere to report its own failure but the next sink (stderr takes every
 * line), which is what -1 makes it try. socket_connect() follows the
 * hook's convention (its caller drops the message) and tells a socket of
 * the other type (EPROTOTYPE) explicitly.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"

#define SYSLOG_SOCKET  "/dev/log"
#define JOURNAL_SOCKET "/run/systemd/journal/socket"

/* Where the lines go besides standard error; the next one is tried when
 * one fails. */
enum sink { SINK_UNTRIED, SINK_SYSLOG, SINK_JOURNAL, SINK_FILE, SINK_NONE };

static enum log_level max_level = LOG_LEVEL_WARN;
static bool use_syslog;
static char *file_dir;
static enum sink sink = SINK_UNTRIED;
static int sink_fd = -1;
static int sink_type; /* SOCK_DGRAM, or SOCK_STREAM for a stream /dev/log */

static const char *const level_names[] = {"error", "warn", "info", "debug"};

static void sink_close(void)
{
	if (sink_fd >= 0)
		close(sink_fd);
	sink_fd = -1;
}

void log_init(enum log_level level, bool to_syslog, const char *state_dir)
{
	max_level = level;
	use_syslog = to_syslog;
	free(file_dir);
	file_dir = state_dir ? xstrdup(state_dir) : NULL;
	sink_close();
	sink = SINK_UNTRIED;
}

int log_parse_level(const char *s, enum log_level *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(level_names); i++) {
		if (strcmp(s, level_names[i]) == 0) {
			*out = (enum log_level)i;
			return 0;
		}
	}
	return -1;
}

bool log_is_own_file(const char *name)
{
	return strcmp(name, LOG_FILE_NAME) == 0 || strcmp(name, LOG_FILE_ROTATED) == 0;
}

/* A socket of `type` connected to `path` in *fd_out. *wrong_type: the
 * socket there is of another type (EPROTOTYPE). */
static int socket_connect(const char *path, int type, int *fd_out, bool *wrong_type, char **err)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	strcpy(sa.sun_path, path); /* both paths are short constants */
	*wrong_type = false;
	_cleanup_close_ int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return error_set(err, "socket: %m");
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		*wrong_type = errno == EPROTOTYPE;
		return error_set(err, "%s: %m", path);
	}
	*fd_out = TAKE_FD(fd);
	return 0;
}

/* Open the sink `s`: 0, or -1 when it is not there. */
static int sink_open_socket(enum sink s)
{
	const char *path = s == SINK_SYSLOG ? SYSLOG_SOCKET : JOURNAL_SOCKET;
	sink_type = SOCK_DGRAM;
	_cleanup_free_ char *err = NULL;
	bool wrong_type;
	int fd;
	int r = socket_connect(path, SOCK_DGRAM, &fd, &wrong_type, &err);
	if (r < 0 && wrong_type && s == SINK_SYSLOG) {
		/* A syslog daemon listening on a stream socket, as glibc
		 * allows: messages end with a NUL byte. */
		sink_type = SOCK_STREAM;
		free(err);
		err = NULL;
		r = socket_connect(path, SOCK_STREAM, &fd, &wrong_type, &err);
	}
	if (r < 0)
		return -1;
	sink_fd = fd;
	return 0;
}

static int sink_send(const char *buf, size_t len)
{
	ssize_t n;
	do
		n = send(sink_fd, buf, len, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)len ? 0 : -1;
}

/* RFC 3164, as glibc's syslog(3) writes it: "<PRI>Mmm dd hh:mm:ss
 * cnihook[PID]: TEXT". */
static int send_syslog(enum log_level level, const char *line)
{
	static const int prio[] = {LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG};
	time_t now = time(NULL);
	struct tm tm;
	char stamp[32] = "";
	if (localtime_r(&now, &tm))
		strftime(stamp, sizeof(stamp), "%b %e %T", &tm);
	_cleanup_free_ char *msg = xasprintf("<%d>%s cnihook[%ld]: %s", LOG_DAEMON | prio[level],
					     stamp, (long)getpid(), line);
	/* A stream needs the terminating NUL as the end of a message. */
	return sink_send(msg, strlen(msg) + (sink_type == SOCK_STREAM));
}

/* The journal's native protocol: one datagram of FIELD=value lines (the
 * line has no newline in it). */
static int send_journal(enum log_level level, const char *line)
{
	static const int prio[] = {LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG};
	_cleanup_free_ char *msg =
	    xasprintf("PRIORITY=%d\nSYSLOG_FACILITY=%d\nSYSLOG_IDENTIFIER=cnihook\n"
		      "SYSLOG_PID=%ld\nMESSAGE=%s\n",
		      prio[level], LOG_DAEMON >> 3, (long)getpid(), line);
	return sink_send(msg, strlen(msg));
}

static int file_open(void)
{
	_cleanup_free_ char *err = NULL;
	if (file_dir == NULL || dir_mkdir_p(file_dir, 0700, &err) < 0)
		return -1;
	_cleanup_free_ char *path = xasprintf("%s/" LOG_FILE_NAME, file_dir);
	int fd;
	do
		fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY,
			  0600);
	while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return -1;
	sink_fd = fd;
	return 0;
}

/*
 * The open file is past the cap: move it to LOG_FILE_ROTATED, unless
 * another hook did so already. The lock on the file itself orders the
 * hooks that find it full; whoever takes it second sees that the name
 * leads to another file now, and only reopens. A hook still writing to the
 * moved file adds its line there: nothing is lost. 0: reopen and retry.
 */
static int file_rotate(const struct stat *st)
{
	_cleanup_free_ char *path = xasprintf("%s/" LOG_FILE_NAME, file_dir);
	_cleanup_free_ char *old = xasprintf("%s/" LOG_FILE_ROTATED, file_dir);
	int r;
	do
		r = flock(sink_fd, LOCK_EX);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -1;
	struct stat now;
	if (stat(path, &now) == 0 && now.st_dev == st->st_dev && now.st_ino == st->st_ino &&
	    rename(path, old) < 0)
		r = -1;
	sink_close(); /* the lock goes with it */
	return r;
}

/* "2026-01-02T03:04:05.123456Z cnihook[PID]: LEVEL: TEXT\n" */
static int write_file(enum log_level level, const char *line)
{
	struct timespec ts;
	struct tm tm;
	char stamp[40] = "";
	clock_gettime(CLOCK_REALTIME, &ts);
	if (gmtime_r(&ts.tv_sec, &tm))
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	_cleanup_free_ char *msg =
	    xasprintf("%s.%06ldZ cnihook[%ld]: %s: %s\n", stamp, ts.tv_nsec / 1000, (long)getpid(),
		      level_names[level], line);
	size_t len = strlen(msg);
	/* Rotated at most twice (by this hook, then by another one that
	 * filled the new file at once): then the line is written anyway. */
	for (int tries = 0; tries < 3; tries++) {
		if (sink_fd < 0 && file_open() < 0)
			return -1;
		struct stat st;
		if (fstat(sink_fd, &st) < 0)
			return -1;
		if (tries == 2 || st.st_size == 0 ||
		    (unsigned long long)st.st_size + len <= LOG_FILE_MAX_BYTES)
			break;
		if (file_rotate(&st) < 0)
			return -1;
	}
	/* One write of the whole line: O_APPEND keeps the lines of hooks
	 * running at the same time whole and apart. */
	ssize_t n;
	do
		n = write(sink_fd, msg, len);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)len ? 0 : -1;
}

/* Send `line` to the socket sink `s`, opening it first if need be. A
 * socket open already is opened again once: its daemon may have been
 * restarted. */
static int socket_send(enum sink s, enum log_level level, const char *line)
{
	int (*send_line)(enum log_level, const char *) =
	    s == SINK_SYSLOG ? send_syslog : send_journal;
	if (sink_fd >= 0 && send_line(level, line) == 0)
		return 0;
	sink_close();
	if (sink_open_socket(s) < 0)
		return -1;
	return send_line(level, line);
}

/* Send `line` to the first sink that takes it; those that failed are not
 * tried again. */
static void log_to_sinks(enum log_level level, const char *line)
{
	if (sink == SINK_UNTRIED)
		sink = SINK_SYSLOG;
	while (sink != SINK_NONE) {
		int r =
		    sink == SINK_FILE ? write_file(level, line) : socket_send(sink, level, line);
		if (r == 0)
			return;
		sink_close();
		sink = (enum sink)(sink + 1);
	}
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	if (level > max_level)
		return;
	int saved_errno = errno;
	va_list ap;
	va_start(ap, fmt);
	char *msg;
	if (vasprintf(&msg, fmt, ap) < 0)
		abort();
	va_end(ap);
	/* One event, one line, whatever a plugin put in its error message. */
	_cleanup_free_ char *line = error_one_line(msg);
	free(msg);
	fprintf(stderr, "cnihook: %s\n", line);
	if (use_syslog)
		log_to_sinks(level, line);
	errno = saved_errno;
}
