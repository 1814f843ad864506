/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A scope of its own under the user's systemd manager (systemd-scope.h).
 * The D-Bus specification's wire format, as far as this one call needs
 * it: the authentication lines, then one METHOD_CALL written in little
 * endian (header fields a(yv), the body aligned to 8, each value aligned
 * to its size, strings with a uint32 length and a NUL, signatures with a
 * byte length, arrays with their byte length before the elements'
 * alignment) and its reply read in either byte order.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/util.h"
#include "host/systemd-scope.h"

/* The whole exchange, and each read or write on the socket. */
#define SCOPE_CALL_MS 2000
#define SCOPE_IO_MS   1000
/* An authentication line, a message read, messages read before the
 * reply (the manager sends signals only to a client that subscribed). */
#define SCOPE_LINE_MAX	   512
#define SCOPE_MESSAGE_MAX  65536
#define SCOPE_MESSAGES_MAX 16
/* How long /proc/self/cgroup may take to name the scope, polled. */
#define SCOPE_WAIT_MS 1000
#define SCOPE_POLL_MS 10

#define SCOPE_SIGNATURE "ssa(sv)a(sa(sv))"
#define SCOPE_SERIAL	1

enum { MSG_METHOD_CALL = 1, MSG_METHOD_RETURN = 2, MSG_ERROR = 3 };
enum {
	FIELD_PATH = 1,
	FIELD_INTERFACE = 2,
	FIELD_MEMBER = 3,
	FIELD_ERROR_NAME = 4,
	FIELD_REPLY_SERIAL = 5,
	FIELD_DESTINATION = 6,
	FIELD_SIGNATURE = 8,
};

char *systemd_scope_socket(const char *run_dir)
{
	return xasprintf("%s/systemd/private", run_dir);
}

/* Writing, little endian, each value aligned from the message's start
 * (the body starts on 8, so its own alignment is the same). */

static void put_pad(struct buf *b, size_t align)
{
	static const char zero[8];
	buf_append(b, zero, (align - b->len % align) % align);
}

static void put_byte(struct buf *b, uint8_t v)
{
	buf_append(b, &v, 1);
}

static void put_u32(struct buf *b, uint32_t v)
{
	put_pad(b, 4);
	uint8_t le[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
	buf_append(b, le, 4);
}

static void put_string(struct buf *b, const char *s)
{
	put_u32(b, (uint32_t)strlen(s));
	buf_append(b, s, strlen(s) + 1);
}

static void put_signature(struct buf *b, const char *s)
{
	put_byte(b, (uint8_t)strlen(s));
	buf_append(b, s, strlen(s) + 1);
}

/* An array's length (written by put_array_end()) and its first element
 * aligned to `align`: *start is where the elements begin. */
static size_t put_array_begin(struct buf *b, size_t align, size_t *start)
{
	put_u32(b, 0);
	size_t at = b->len - 4;
	put_pad(b, align);
	*start = b->len;
	return at;
}

static void put_array_end(struct buf *b, size_t at, size_t start)
{
	uint32_t n = (uint32_t)(b->len - start);
	uint8_t le[4] = {(uint8_t)n, (uint8_t)(n >> 8), (uint8_t)(n >> 16), (uint8_t)(n >> 24)};
	memcpy(b->data + at, le, 4);
}

/* A property (sv) whose value is a string. */
static void put_property_string(struct buf *b, const char *name, const char *value)
{
	put_pad(b, 8);
	put_string(b, name);
	put_signature(b, "s");
	put_string(b, value);
}

static void put_body(struct buf *b, const char *name, const char *description, pid_t pid)
{
	size_t at, start, pids_at, pids_start;
	put_string(b, name);
	put_string(b, "fail");
	at = put_array_begin(b, 8, &start);
	put_pad(b, 8);
	put_string(b, "PIDs");
	put_signature(b, "au");
	pids_at = put_array_begin(b, 4, &pids_start);
	put_u32(b, (uint32_t)pid);
	put_array_end(b, pids_at, pids_start);
	put_property_string(b, "CollectMode", "inactive-or-failed");
	put_property_string(b, "Description", description);
	put_array_end(b, at, start);
	/* The auxiliary units: none. */
	at = put_array_begin(b, 8, &start);
	put_array_end(b, at, start);
}

/* A header field (yv) whose value is a string, an object path or a
 * signature. */
static void put_field(struct buf *b, uint8_t code, const char *type, const char *value)
{
	put_pad(b, 8);
	put_byte(b, code);
	put_signature(b, type);
	if (type[0] == 'g')
		put_signature(b, value);
	else
		put_string(b, value);
}

/* The METHOD_CALL of StartTransientUnit (allocated, *len bytes). */
static char *call_message(const char *name, const char *description, pid_t pid, size_t *len)
{
	struct buf body = {0}, m = {0};
	size_t at, start;
	put_body(&body, name, description, pid);
	put_byte(&m, 'l');
	put_byte(&m, MSG_METHOD_CALL);
	put_byte(&m, 0); /* flags: a reply is wanted */
	put_byte(&m, 1); /* the protocol's major version */
	put_u32(&m, (uint32_t)body.len);
	put_u32(&m, SCOPE_SERIAL);
	at = put_array_begin(&m, 8, &start);
	put_field(&m, FIELD_PATH, "o", "/org/freedesktop/systemd1");
	put_field(&m, FIELD_DESTINATION, "s", "org.freedesktop.systemd1");
	put_field(&m, FIELD_INTERFACE, "s", "org.freedesktop.systemd1.Manager");
	put_field(&m, FIELD_MEMBER, "s", "StartTransientUnit");
	put_field(&m, FIELD_SIGNATURE, "g", SCOPE_SIGNATURE);
	put_array_end(&m, at, start);
	put_pad(&m, 8);
	buf_append(&m, body.data, body.len);
	buf_free(&body);
	return buf_steal(&m, len);
}

/* The socket, with the time left for the whole exchange. */
struct conn {
	int fd;
	long long deadline; /* clock_monotonic_ms() */
};

static int conn_write(struct conn *c, const void *p, size_t n, char **err)
{
	const char *s = p;
	while (n > 0) {
		if (clock_monotonic_ms() > c->deadline)
			return error_set(err, "no answer within %d ms", SCOPE_CALL_MS);
		ssize_t w = send(c->fd, s, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return error_set(err, "write: %m");
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

static int conn_read(struct conn *c, void *p, size_t n, char **err)
{
	char *s = p;
	while (n > 0) {
		if (clock_monotonic_ms() > c->deadline)
			return error_set(err, "no answer within %d ms", SCOPE_CALL_MS);
		ssize_t r = recv(c->fd, s, n, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return error_set(err, "no answer within %d ms", SCOPE_IO_MS);
		if (r < 0)
			return error_set(err, "read: %m");
		if (r == 0)
			return error_set(err, "the manager closed the connection");
		s += r;
		n -= (size_t)r;
	}
	return 0;
}

/* One authentication line, without its "\r\n" (read a byte at a time:
 * what follows it is the manager's). */
static int conn_line(struct conn *c, char *line, char **err)
{
	size_t n = 0;
	for (;;) {
		if (conn_read(c, line + n, 1, err) < 0)
			return -1;
		if (line[n] == '\n' && n > 0 && line[n - 1] == '\r') {
			line[n - 1] = 0;
			return 0;
		}
		if (line[n] == 0 || ++n == SCOPE_LINE_MAX - 1)
			return error_set(err, "authentication: not a line of text");
	}
}

/* AUTH EXTERNAL with no identity: the manager takes the socket's peer
 * credentials. It may ask for the (empty) data first. */
static int authenticate(struct conn *c, char **err)
{
	static const char auth[] = "\0AUTH EXTERNAL\r\n";
	char line[SCOPE_LINE_MAX];
	if (conn_write(c, auth, sizeof(auth) - 1, err) < 0 || conn_line(c, line, err) < 0)
		return -1;
	if (strcmp(line, "DATA") == 0 &&
	    (conn_write(c, "DATA\r\n", 6, err) < 0 || conn_line(c, line, err) < 0))
		return -1;
	if (strncmp(line, "OK ", 3) != 0) {
		_cleanup_free_ char *l = error_shown(line);
		return error_set(err, "authentication: the manager answered \"%s\"", l);
	}
	return conn_write(c, "BEGIN\r\n", 7, err);
}

/* Reading a message in its own byte order, each value checked against
 * the message's length. */
struct cursor {
	const uint8_t *p;
	size_t len, at;
	bool big;
};

static bool get_align(struct cursor *c, size_t align)
{
	size_t at = (c->at + align - 1) / align * align;
	if (at > c->len)
		return false;
	c->at = at;
	return true;
}

static bool get_byte(struct cursor *c, uint8_t *v)
{
	if (c->at >= c->len)
		return false;
	*v = c->p[c->at++];
	return true;
}

static uint32_t u32_at(const uint8_t *p, bool big)
{
	if (big)
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static bool get_u32(struct cursor *c, uint32_t *v)
{
	if (!get_align(c, 4) || c->len - c->at < 4)
		return false;
	*v = u32_at(c->p + c->at, c->big);
	c->at += 4;
	return true;
}

/* A string (uint32 length) or, with `sig`, a signature (byte length):
 * *s points into the message, whose NUL ends it. */
static bool get_string(struct cursor *c, bool sig, const char **s)
{
	uint32_t n;
	uint8_t b;
	if (sig ? !get_byte(c, &b) : !get_u32(c, &n))
		return false;
	if (sig)
		n = b;
	if (c->len - c->at <= n || c->p[c->at + n] != 0 || memchr(c->p + c->at, 0, n))
		return false;
	*s = (const char *)c->p + c->at;
	c->at += n + 1;
	return true;
}

/* What the reply says. */
struct reply {
	uint8_t type;
	uint32_t reply_serial;
	const char *error_name, *signature;
};

/* One header field (yv) of the types a header holds. */
static bool get_field(struct cursor *c, struct reply *r)
{
	uint8_t code;
	const char *type, *s;
	uint32_t u;
	if (!get_align(c, 8) || !get_byte(c, &code) || !get_string(c, true, &type) ||
	    strlen(type) != 1)
		return false;
	switch (type[0]) {
	case 's':
	case 'o':
	case 'g':
		if (!get_string(c, type[0] == 'g', &s))
			return false;
		if (code == FIELD_ERROR_NAME)
			r->error_name = s;
		else if (code == FIELD_SIGNATURE)
			r->signature = s;
		return true;
	case 'u':
		if (!get_u32(c, &u))
			return false;
		if (code == FIELD_REPLY_SERIAL)
			r->reply_serial = u;
		return true;
	case 'y':
		return get_byte(c, &code);
	default:
		return false;
	}
}

/* One message read whole (*data, allocated), its header fields in *r and
 * a cursor on its body in *body. */
static int read_message(struct conn *c, char **data, struct reply *r, struct cursor *body,
			char **err)
{
	uint8_t fixed[16];
	if (conn_read(c, fixed, sizeof(fixed), err) < 0)
		return -1;
	bool big = fixed[0] == 'B';
	if ((!big && fixed[0] != 'l') || fixed[3] != 1)
		return error_set(err, "the manager's answer is not a D-Bus message");
	uint32_t body_len = u32_at(fixed + 4, big), fields_len = u32_at(fixed + 12, big);
	if (body_len > SCOPE_MESSAGE_MAX || fields_len > SCOPE_MESSAGE_MAX)
		return error_set(err, "the manager's answer is over %d bytes", SCOPE_MESSAGE_MAX);
	size_t header = 16 + ((size_t)fields_len + 7) / 8 * 8, len = header + body_len;
	uint8_t *p = xmalloc(len);
	memcpy(p, fixed, sizeof(fixed));
	if (conn_read(c, p + sizeof(fixed), len - sizeof(fixed), err) < 0) {
		free(p);
		return -1;
	}
	*r = (struct reply){.type = fixed[1]};
	struct cursor f = {.p = p, .len = 16 + fields_len, .at = 16, .big = big};
	while (f.at < f.len)
		if (!get_field(&f, r)) {
			free(p);
			return error_set(err, "the manager's answer has a header field not "
					      "understood");
		}
	*body = (struct cursor){.p = p, .len = len, .at = header, .big = big};
	*data = (char *)p;
	return 0;
}

/* The reply to the call: 0 for METHOD_RETURN, -1 with the error's name
 * and message for ERROR. */
static int read_reply(struct conn *c, char **err)
{
	for (int i = 0; i < SCOPE_MESSAGES_MAX; i++) {
		_cleanup_free_ char *data = NULL;
		struct reply r = {0};
		struct cursor body;
		if (read_message(c, &data, &r, &body, err) < 0)
			return -1;
		if ((r.type != MSG_METHOD_RETURN && r.type != MSG_ERROR) ||
		    r.reply_serial != SCOPE_SERIAL)
			continue;
		if (r.type == MSG_METHOD_RETURN)
			return 0;
		const char *text = NULL;
		if (!r.signature || r.signature[0] != 's' || !get_string(&body, false, &text))
			text = "(no message)";
		_cleanup_free_ char *name =
		    error_one_line(r.error_name ? r.error_name : "(no name)");
		_cleanup_free_ char *t = error_one_line(text);
		return error_set(err, "%s: %s", name, t);
	}
	return error_set(err, "no reply among the manager's first %d messages", SCOPE_MESSAGES_MAX);
}

/* Connected to path, with the time limits on each read and write. */
static int connect_to(const char *path, char **err)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof(sa.sun_path))
		return error_set(err, "the path is too long for a socket");
	memcpy(sa.sun_path, path, strlen(path) + 1);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return error_set(err, "socket: %m");
	struct timeval tv = {.tv_sec = SCOPE_IO_MS / 1000, .tv_usec = SCOPE_IO_MS % 1000 * 1000};
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		error_set(err, "connect: %m");
		close(fd);
		return -1;
	}
	return fd;
}

int systemd_scope_start(const char *path, const char *name, const char *description, pid_t pid,
			char **err)
{
	_cleanup_free_ char *e = NULL;
	struct conn c = {.fd = connect_to(path, &e),
			 .deadline = clock_monotonic_ms() + SCOPE_CALL_MS};
	if (c.fd < 0)
		return error_set(err, "%s: %s", path, e);
	size_t len;
	_cleanup_free_ char *m = call_message(name, description, pid, &len);
	int ret = authenticate(&c, &e);
	if (ret == 0)
		ret = conn_write(&c, m, len, &e);
	if (ret == 0)
		ret = read_reply(&c, &e);
	close(c.fd);
	if (ret < 0)
		return error_set(err, "%s: StartTransientUnit %s: %s", path, name, e);
	return 0;
}

/* Does /proc/self/cgroup name the cgroup `name` (a line's path ending in
 * it, or passing through it)? */
static bool in_cgroup(const char *name)
{
	_cleanup_free_ char *buf = NULL, *e = NULL;
	size_t len, n = strlen(name);
	if (read_file("/proc/self/cgroup", 65536, &buf, &len, NULL, &e) < 0)
		return false;
	for (const char *p = buf; (p = strstr(p, name)); p += n)
		if (p > buf && p[-1] == '/' && (p[n] == '\n' || p[n] == '/' || p[n] == 0))
			return true;
	return false;
}

int systemd_scope_enter(const char *path, const char *name, const char *description, char **err)
{
	if (systemd_scope_start(path, name, description, getpid(), err) < 0)
		return -1;
	long long end = clock_monotonic_ms() + SCOPE_WAIT_MS;
	while (!in_cgroup(name)) {
		if (clock_monotonic_ms() >= end)
			return error_set(err,
					 "%s: the manager started %s, but the process was not in "
					 "it within %d ms",
					 path, name, SCOPE_WAIT_MS);
		usleep(SCOPE_POLL_MS * 1000);
	}
	return 0;
}
