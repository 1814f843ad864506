/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fakeplugin: a CNI plugin for the tests that records every call and does
 * what a control file tells it.
 *
 * A test copies (or hard-links) this binary into a temp bin dir DIR under the
 * plugin type names it needs (DIR/bridge, DIR/tuning, ...). The plugin takes
 * its NAME from basename(argv[0]) and DIR from dirname(argv[0]); the runtime
 * executes it by its full path.
 *
 * Recording. First of all, every call takes the next sequence number from
 * DIR/.seq: a decimal counter, incremented under flock(). A missing file is
 * created holding 1, the number of that first call; afterwards the file
 * always holds the number of the latest call. Then it reads all of stdin and
 * writes, in DIR/rec/ (created if missing), where NNNN is the number
 * zero-padded to four digits and COMMAND is CNI_COMMAND (NONE when unset or
 * empty):
 *   NNNN-NAME-COMMAND.env    its whole environment, one KEY=VALUE a line, in
 *                            the order of environ;
 *   NNNN-NAME-COMMAND.stdin  the bytes read from stdin, exactly;
 *   NNNN-NAME-COMMAND.argv   argv, one element a line.
 * So the .stdin files of DIR/rec in name order are the calls, across all
 * plugins, in the order they were made.
 *
 * Behaviour. The control file is DIR/NAME.COMMAND if it exists, else
 * DIR/NAME.default, else there is none. One key=value a line; blank lines
 * and lines starting with '#' are ignored. Keys:
 *   exit=N            exit status (default 0)
 *   stdout-file=P     write the bytes of file P to stdout
 *   stderr-file=P     write the bytes of file P to stderr
 *   stdout=TEXT       write TEXT (the rest of the line, no newline) to stdout
 *   stderr=TEXT       write TEXT to stderr
 *   sleep-ms=N        sleep N ms before answering (for timeouts)
 *   child-sleep-ms=N  fork a child that keeps stdout and stderr open and
 *                     sleeps N ms, while the plugin answers and exits (a
 *                     grandchild of the runtime holding the pipes)
 *   signal=N          raise signal N (after recording, before answering)
 *   flood=N           write N bytes 'x' to stdout
 *   versions=a,b,c    supportedVersions for VERSION (default: 0.1.0 0.2.0
 *                     0.3.0 0.3.1 0.4.0 1.0.0 1.1.0)
 *   pid-file=P        write the plugin's pid and, with child-sleep-ms, the
 *                     child's pid on a second line to P (atomically)
 * stdout, stdout-file and flood (stderr, stderr-file) may be repeated; their
 * outputs follow each other in the order of the lines. The order of events:
 * record, fork the child, write the pid file, sleep, raise the signal, write
 * stdout then stderr, exit.
 *
 * If any of stdout, stdout-file or flood is given, that is the whole of
 * stdout. Otherwise the default answer, compact JSON without a newline:
 *   VERSION  {"cniVersion":V,"supportedVersions":[...]}, V being the stdin's
 *            cniVersion, or 1.1.0.
 *   ADD      the stdin's prevResult if it has one, with its cniVersion set to
 *            the stdin's cniVersion; else a result for the stdin's cniVersion
 *            (1.1.0 when there is none):
 *            0.1.0, 0.2.0: {"cniVersion":V,"ip4":{"ip":"10.99.0.2/24",
 *                          "gateway":"10.99.0.1"}}
 *            later:        {"cniVersion":V,"interfaces":[{"name":CNI_IFNAME,
 *                          "sandbox":CNI_NETNS}],"ips":[{"address":
 *                          "10.99.0.2/24","gateway":"10.99.0.1","interface":0}]}
 *                          and for 0.3.0, 0.3.1 and 0.4.0 the ips entry
 *                          starts with "version":"4".
 *   others (DEL, CHECK, STATUS, GC, ...): no output.
 *
 * A broken control file (unknown key, bad number, unreadable file) is a bug
 * of the test: the plugin says so on stderr and exits with status 99.
 */
#include "config.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>

#include "internal.h"

#define BROKEN_EXIT 99

extern char **environ;

static const char *const default_versions[] = {"0.1.0", "0.2.0", "0.3.0", "0.3.1",
					       "0.4.0", "1.0.0", "1.1.0"};

struct control {
	int exit_status;
	bool has_stdout;
	struct buf out;
	struct buf err;
	long sleep_ms;
	long child_sleep_ms;
	int sig;
	char *versions;
	char *pid_file;
};

static _Noreturn PRINTF_LIKE(1, 2) void die(const char *fmt, ...)
{
	va_list ap;

	fputs("fakeplugin: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(BROKEN_EXIT);
}

static void write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("write: %s", strerror(errno));
		p += n;
		len -= (size_t)n;
	}
}

static void read_all(int fd, struct buf *b)
{
	char chunk[65536];

	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("read: %s", strerror(errno));
		if (n == 0)
			return;
		buf_append(b, chunk, (size_t)n);
	}
}

static void append_file(const char *path, struct buf *b)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		die("open %s: %s", path, strerror(errno));
	read_all(fd, b);
}

static void write_file(const char *path, const char *data, size_t len)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		die("create %s: %s", path, strerror(errno));
	write_all(fd, data, len);
}

static void sleep_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static long parse_number(const char *key, const char *value)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(value, &end, 10);
	if (errno || end == value || *end != '\0' || v < 0)
		die("%s=%s: not a number", key, value);
	return v;
}

/* ------------------------------------------------------------ recording */

static unsigned next_seq(const char *dir)
{
	_cleanup_free_ char *path = xasprintf("%s/.seq", dir);
	_cleanup_close_ int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	struct buf text = {0};
	unsigned long n;
	char num[32];
	int len;

	if (fd < 0)
		die("open %s: %s", path, strerror(errno));
	if (TEMP_FAILURE_RETRY(flock(fd, LOCK_EX)) < 0)
		die("flock %s: %s", path, strerror(errno));
	read_all(fd, &text);
	n = text.len ? strtoul(text.data, NULL, 10) : 0;
	buf_free(&text);
	n++;
	len = snprintf(num, sizeof(num), "%lu\n", n);
	if (ftruncate(fd, 0) < 0 || lseek(fd, 0, SEEK_SET) < 0)
		die("rewrite %s: %s", path, strerror(errno));
	write_all(fd, num, (size_t)len);
	return (unsigned)n; /* the lock goes with the descriptor */
}

static void record(const char *prefix, char **argv, const struct buf *in)
{
	struct buf b = {0};
	_cleanup_free_ char *env_path = xasprintf("%s.env", prefix);
	_cleanup_free_ char *stdin_path = xasprintf("%s.stdin", prefix);
	_cleanup_free_ char *argv_path = xasprintf("%s.argv", prefix);

	for (char **e = environ; *e; e++)
		buf_printf(&b, "%s\n", *e);
	write_file(env_path, b.data ? b.data : "", b.len);
	buf_free(&b);

	write_file(stdin_path, in->data ? in->data : "", in->len);

	for (char **a = argv; *a; a++)
		buf_printf(&b, "%s\n", *a);
	write_file(argv_path, b.data ? b.data : "", b.len);
	buf_free(&b);
}

/* ------------------------------------------------------------ control */

static void control_line(struct control *c, char *line)
{
	char *eq = strchr(line, '=');
	const char *key = line, *value;

	if (eq == NULL)
		die("control line without '=': %s", line);
	*eq = '\0';
	value = eq + 1;

	if (strcmp(key, "exit") == 0) {
		c->exit_status = (int)parse_number(key, value);
	} else if (strcmp(key, "stdout") == 0) {
		buf_appends(&c->out, value);
		c->has_stdout = true;
	} else if (strcmp(key, "stdout-file") == 0) {
		append_file(value, &c->out);
		c->has_stdout = true;
	} else if (strcmp(key, "flood") == 0) {
		long n = parse_number(key, value);
		char chunk[4096];

		memset(chunk, 'x', sizeof(chunk));
		for (; n > 0; n -= (long)sizeof(chunk))
			buf_append(&c->out, chunk,
				   n < (long)sizeof(chunk) ? (size_t)n : sizeof(chunk));
		c->has_stdout = true;
	} else if (strcmp(key, "stderr") == 0) {
		buf_appends(&c->err, value);
	} else if (strcmp(key, "stderr-file") == 0) {
		append_file(value, &c->err);
	} else if (strcmp(key, "sleep-ms") == 0) {
		c->sleep_ms = parse_number(key, value);
	} else if (strcmp(key, "child-sleep-ms") == 0) {
		c->child_sleep_ms = parse_number(key, value);
	} else if (strcmp(key, "signal") == 0) {
		c->sig = (int)parse_number(key, value);
	} else if (strcmp(key, "versions") == 0) {
		free(c->versions);
		c->versions = xstrdup(value);
	} else if (strcmp(key, "pid-file") == 0) {
		free(c->pid_file);
		c->pid_file = xstrdup(value);
	} else {
		die("unknown control key \"%s\"", key);
	}
}

static void control_load(struct control *c, const char *dir, const char *name, const char *command)
{
	_cleanup_free_ char *path = xasprintf("%s/%s.%s", dir, name, command);
	struct buf text = {0};
	char *save = NULL;

	if (access(path, F_OK) < 0) {
		free(path);
		path = xasprintf("%s/%s.default", dir, name);
		if (access(path, F_OK) < 0)
			return;
	}
	append_file(path, &text);
	if (text.data == NULL)
		return;
	for (char *line = strtok_r(text.data, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		size_t len = strlen(line);
		char *p = line;

		if (len > 0 && line[len - 1] == '\r')
			line[len - 1] = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0' || *p == '#')
			continue;
		control_line(c, p);
	}
	buf_free(&text);
}

/* ------------------------------------------------------------ answers */

static json *versions_json(const char *list)
{
	json *a = json_new(JSON_ARRAY);

	if (list == NULL) {
		for (size_t i = 0; i < ARRAY_SIZE(default_versions); i++)
			json_arr_append(a, json_new_string(default_versions[i]));
		return a;
	}
	_cleanup_free_ char *copy = xstrdup(list);
	char *save = NULL;
	for (char *v = strtok_r(copy, ",", &save); v; v = strtok_r(NULL, ",", &save))
		json_arr_append(a, json_new_string(v));
	return a;
}

static bool version_is(const char *v, const char *const *set)
{
	for (; *set; set++)
		if (strcmp(v, *set) == 0)
			return true;
	return false;
}

static json *add_result(const char *version)
{
	static const char *const v02[] = {"0.1.0", "0.2.0", NULL};
	static const char *const v04[] = {"0.3.0", "0.3.1", "0.4.0", NULL};
	const char *ifname = getenv("CNI_IFNAME"), *netns = getenv("CNI_NETNS");
	json *r = json_new(JSON_OBJECT);

	json_obj_set(r, "cniVersion", json_new_string(version));
	if (version_is(version, v02)) {
		json *ip4 = json_new(JSON_OBJECT);
		json_obj_set(ip4, "ip", json_new_string("10.99.0.2/24"));
		json_obj_set(ip4, "gateway", json_new_string("10.99.0.1"));
		json_obj_set(r, "ip4", ip4);
		return r;
	}

	json *ifaces = json_new(JSON_ARRAY), *iface = json_new(JSON_OBJECT);
	json_obj_set(iface, "name", json_new_string(ifname ? ifname : ""));
	json_obj_set(iface, "sandbox", json_new_string(netns ? netns : ""));
	json_arr_append(ifaces, iface);
	json_obj_set(r, "interfaces", ifaces);

	json *ips = json_new(JSON_ARRAY), *ip = json_new(JSON_OBJECT);
	if (version_is(version, v04))
		json_obj_set(ip, "version", json_new_string("4"));
	json_obj_set(ip, "address", json_new_string("10.99.0.2/24"));
	json_obj_set(ip, "gateway", json_new_string("10.99.0.1"));
	json_obj_set(ip, "interface", json_new_int(0));
	json_arr_append(ips, ip);
	json_obj_set(r, "ips", ips);
	return r;
}

/* The default answer to `command`, or NULL for no output. */
static char *default_answer(const char *command, const struct buf *in, const char *versions,
			    size_t *len)
{
	_cleanup_json_ json *conf = NULL;
	_cleanup_json_ json *answer = NULL;
	cnirt_error *e = NULL;
	const char *version = NULL;

	if (json_read_parse(in->data ? in->data : "", in->len, "stdin", &conf, &e) < 0) {
		cnirt_error_free(e);
		conf = NULL;
	}
	if (conf && conf->type == JSON_OBJECT)
		version = json_str(json_obj_get(conf, "cniVersion"));

	if (strcmp(command, "VERSION") == 0) {
		answer = json_new(JSON_OBJECT);
		json_obj_set(answer, "cniVersion", json_new_string(version ? version : "1.1.0"));
		json_obj_set(answer, "supportedVersions", versions_json(versions));
	} else if (strcmp(command, "ADD") == 0) {
		const json *prev =
		    conf && conf->type == JSON_OBJECT ? json_obj_get(conf, "prevResult") : NULL;
		if (prev) {
			answer = json_dup(prev);
			if (answer->type == JSON_OBJECT && version)
				json_obj_set(answer, "cniVersion", json_new_string(version));
		} else {
			answer = add_result(version ? version : "1.1.0");
		}
	} else {
		return NULL;
	}
	return json_gen(answer, false, len);
}

/* ------------------------------------------------------------ main */

static void write_pid_file(const char *path, pid_t child)
{
	_cleanup_free_ char *tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
	_cleanup_free_ char *text = child > 0 ? xasprintf("%d\n%d\n", (int)getpid(), (int)child)
					      : xasprintf("%d\n", (int)getpid());

	write_file(tmp, text, strlen(text));
	if (rename(tmp, path) < 0)
		die("rename %s: %s", path, strerror(errno));
}

int main(int argc, char **argv)
{
	struct control c = {0};
	struct buf in = {0};
	const char *command = getenv("CNI_COMMAND");
	_cleanup_free_ char *dir = NULL;
	_cleanup_free_ char *name = NULL;
	_cleanup_free_ char *prefix = NULL;
	_cleanup_free_ char *rec = NULL;
	const char *slash;
	pid_t child = 0;

	if (argc < 1)
		die("no argv[0]");
	slash = strrchr(argv[0], '/');
	dir = slash ? xstrndup(argv[0], slash == argv[0] ? 1 : (size_t)(slash - argv[0]))
		    : xstrdup(".");
	name = xstrdup(slash ? slash + 1 : argv[0]);
	if (command == NULL || command[0] == '\0')
		command = "NONE";

	unsigned seq = next_seq(dir);
	rec = xasprintf("%s/rec", dir);
	if (mkdir(rec, 0755) < 0 && errno != EEXIST)
		die("mkdir %s: %s", rec, strerror(errno));
	prefix = xasprintf("%s/%04u-%s-%s", rec, seq, name, command);
	read_all(STDIN_FILENO, &in);
	record(prefix, argv, &in);

	control_load(&c, dir, name, command);

	if (c.child_sleep_ms > 0) {
		child = fork();
		if (child < 0)
			die("fork: %s", strerror(errno));
		if (child == 0) {
			sleep_ms(c.child_sleep_ms);
			_exit(0);
		}
	}
	if (c.pid_file)
		write_pid_file(c.pid_file, child);
	if (c.sleep_ms > 0)
		sleep_ms(c.sleep_ms);
	if (c.sig > 0)
		raise(c.sig);

	if (c.has_stdout) {
		write_all(STDOUT_FILENO, c.out.data ? c.out.data : "", c.out.len);
	} else {
		size_t len = 0;
		_cleanup_free_ char *answer = default_answer(command, &in, c.versions, &len);
		if (answer)
			write_all(STDOUT_FILENO, answer, len);
	}
	if (c.err.len)
		write_all(STDERR_FILENO, c.err.data, c.err.len);

	buf_free(&in);
	buf_free(&c.out);
	buf_free(&c.err);
	free(c.versions);
	free(c.pid_file);
	return c.exit_status;
}
