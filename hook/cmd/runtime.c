/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cnihook-runtime (runtime.h). runc's command line: global options, the
 * command, its options, the container id (runc(8); crun takes the same).
 * Only create and run are looked into; every other command, and every
 * option, reaches the real runtime as given.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/runtime.h"

#include "conf/hookconf.h"
#include "base/util.h"
#include "request/runtime-spec.h"

/* The largest config.json read (as the hook reads it). */
#define SPEC_MAX (16 * 1024 * 1024)
/* PATH when the engine gives none. */
#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* What the command line says. */
struct oci_call {
	const char *log;	/* --log FILE: where the engine reads errors */
	const char *log_format; /* --log-format: "json" or text */
	const char *command;	/* create, run, state, ...; NULL: none */
	const char *bundle;	/* create and run: --bundle (default ".") */
	const char *id;		/* create and run: the container id */
};

bool runtime_called_as(const char *argv0)
{
	const char *base = strrchr(argv0, '/');
	return strcmp(base ? base + 1 : argv0, RUNTIME_NAME) == 0;
}

/* The engine's log line: runc's --log-format json as containerd's shim
 * reads the last error, else logrus's text. */
static void log_line(const struct oci_call *c, const char *msg)
{
	if (c->log == NULL)
		return;
	int fd = TEMP_FAILURE_RETRY(
	    open(c->log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0600));
	if (fd < 0)
		return;
	char when[64];
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&ts.tv_sec, &tm));
	json *m = json_new_string(msg);
	_cleanup_free_ char *quoted = json_gen(m, false, NULL);
	json_free(m);
	struct buf b = {0};
	if (c->log_format && strcmp(c->log_format, "json") == 0)
		buf_printf(&b, "{\"level\":\"error\",\"msg\":%s,\"time\":\"%s\"}\n", quoted, when);
	else
		buf_printf(&b, "time=\"%s\" level=error msg=%s\n", when, quoted);
	_cleanup_free_ char *line = buf_steal(&b, NULL);
	(void)!write(fd, line, strlen(line));
	close(fd);
}

static int fail(const struct oci_call *c, const char *fmt, ...) PRINTF_LIKE(2, 3);
static int fail(const struct oci_call *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	_cleanup_free_ char *m = xvasprintf(fmt, ap);
	va_end(ap);
	_cleanup_free_ char *msg = xasprintf(RUNTIME_NAME ": %s", m);
	fprintf(stderr, "%s\n", msg);
	log_line(c, msg);
	return 1;
}

/* Does option `arg` (its dashes, one or two, taken off: name) take the
 * next argument, being one of names[]? */
static bool takes_value(const char *name, const char *const *names)
{
	for (; *names; names++)
		if (strcmp(name, *names) == 0)
			return true;
	return false;
}

/* The option's name without its dashes, and its "=VALUE" cut off (*value
 * then the value). */
static const char *option_name(const char *arg, char *buf, size_t size, const char **value)
{
	const char *n = arg + (arg[1] == '-' ? 2 : 1);
	const char *eq = strchr(n, '=');
	*value = NULL;
	if (eq == NULL || (size_t)(eq - n) >= size)
		return n;
	memcpy(buf, n, (size_t)(eq - n));
	buf[eq - n] = '\0';
	*value = eq + 1;
	return buf;
}

/* The global options (runc's and crun's that take a value), the command,
 * and for create and run its --bundle and the id. */
static void parse_call(int argc, char **argv, struct oci_call *c)
{
	static const char *const global[] = {
	    "root", "log", "log-format", "criu", "rootless", "cgroup-manager", "log-level", NULL};
	static const char *const create[] = {
	    "bundle", "b", "console-socket", "pid-file", "preserve-fds", "pidfd-socket", NULL};
	char buf[64];
	const char *value;
	int i = 1;
	*c = (struct oci_call){.bundle = "."};
	for (; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i++) {
		const char *n = option_name(argv[i], buf, sizeof(buf), &value);
		if (value == NULL && takes_value(n, global) && i + 1 < argc)
			value = argv[++i];
		if (strcmp(n, "log") == 0)
			c->log = value;
		else if (strcmp(n, "log-format") == 0)
			c->log_format = value;
	}
	if (i >= argc)
		return;
	c->command = argv[i++];
	if (strcmp(c->command, "create") != 0 && strcmp(c->command, "run") != 0)
		return;
	for (; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		}
		const char *n = option_name(argv[i], buf, sizeof(buf), &value);
		if (value == NULL && takes_value(n, create) && i + 1 < argc)
			value = argv[++i];
		if (strcmp(n, "bundle") == 0 || strcmp(n, "b") == 0)
			c->bundle = value;
	}
	c->id = i < argc ? argv[i] : NULL;
}

/* The path of the real runtime: cnihook.json's, looked up in PATH when a
 * name, never cnihook itself (self: its stat). */
static char *find_runtime(const char *name, const struct stat *self)
{
	struct stat st;
	if (strchr(name, '/'))
		return stat(name, &st) == 0 && st.st_dev == self->st_dev &&
			       st.st_ino == self->st_ino
			   ? NULL
			   : xstrdup(name);
	const char *path = getenv("PATH");
	if (path == NULL || *path == '\0')
		path = DEFAULT_PATH;
	_cleanup_free_ char *dirs = xstrdup(path);
	char *save = NULL;
	for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		char *p = xasprintf("%s/%s", *d ? d : ".", name);
		if (stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0 &&
		    !(st.st_dev == self->st_dev && st.st_ino == self->st_ino))
			return p;
		free(p);
	}
	return NULL;
}

/* The hooks' --config: CNIHOOK_CONFIG as an absolute path, or NULL. */
static char *hooks_config(void)
{
	const char *env = getenv("CNIHOOK_CONFIG");
	if (env == NULL || *env == '\0')
		return NULL;
	char *abs = realpath(env, NULL);
	return abs ? abs : xstrdup(env);
}

/* config.json of a create or run: the hooks and annotations added when
 * the container asks for a network; written atomically (a temp file
 * renamed over it), else left as it is. Returns 0 or fail()'s status. */
static int edit_spec(const struct oci_call *c, const struct hook_config *cfg, const char *self)
{
	if (c->bundle == NULL || c->id == NULL)
		return 0; /* the runtime says what is missing */
	_cleanup_free_ char *path = xasprintf("%s/config.json", c->bundle);
	_cleanup_free_ char *text = NULL, *out = NULL, *err = NULL, *config = hooks_config();
	size_t len, out_len;
	struct stat st;
	int fd = TEMP_FAILURE_RETRY(open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
	if (fd < 0)
		return fail(c, "%s %s: cannot open %s: %m", c->id, c->command, path);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return fail(c, "%s %s: %s: not a regular file", c->id, c->command, path);
	}
	int r = read_all_fd(fd, SPEC_MAX, &text, &len, &err);
	close(fd);
	if (r < 0)
		return fail(c, "%s %s: cannot read %s: %s", c->id, c->command, path, err);
	const struct container_defaults d = {
	    .networks = cfg->default_networks,
	    .n_networks = cfg->n_default_networks,
	    .container_id = c->id,
	};
	const struct runtime_spec_hooks h = {.path = self, .config = config};
	r = runtime_spec_edit(text, len, path, &d, &h, &out, &out_len, &err);
	if (r < 0)
		return fail(c, "%s %s: %s", c->id, c->command, err);
	if (r == 0)
		return 0;
	r = file_write_atomic(path, out, out_len, (int)(st.st_mode & 07777), false);
	if (r < 0)
		return fail(c, "%s %s: cannot write %s: %s", c->id, c->command, path, strerror(-r));
	return 0;
}

int runtime_main(int argc, char **argv)
{
	struct oci_call c;
	struct hook_config *cfg = NULL;
	_cleanup_free_ char *err = NULL, *runtime = NULL;
	char self[PATH_MAX];
	struct stat self_st;
	parse_call(argc, argv, &c);
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0 || stat("/proc/self/exe", &self_st) < 0)
		return fail(&c, "cannot find cnihook's own binary (/proc/self/exe): %m");
	self[n] = '\0';
	const char *conf = getenv("CNIHOOK_CONFIG");
	if (hookconf_load(conf && *conf ? conf : NULL, &cfg, &err) < 0)
		return fail(&c, "%s", err);
	runtime = find_runtime(cfg->runtime, &self_st);
	if (runtime == NULL) {
		int ret =
		    fail(&c, "the OCI runtime \"%s\" (cnihook.json \"runtime\") is not in PATH",
			 cfg->runtime);
		hookconf_free(cfg);
		return ret;
	}
	int ret = 0;
	if (c.command && (strcmp(c.command, "create") == 0 || strcmp(c.command, "run") == 0))
		ret = edit_spec(&c, cfg, self);
	hookconf_free(cfg);
	if (ret)
		return ret;
	argv[0] = runtime;
	execv(runtime, argv);
	return fail(&c, "cannot run the OCI runtime %s: %m", runtime);
}
