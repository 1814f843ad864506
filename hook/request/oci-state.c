/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The OCI state a runtime writes on a hook's stdin (runtime-spec 1.0 to 1.2,
 * "State"), and the parts of the bundle's config.json the hook needs: the
 * annotations and the network namespace.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cnirt.h"
#include "request/oci-state.h"

#define STATE_MAX  (1024 * 1024)
#define CONFIG_MAX (16 * 1024 * 1024)

/* s quoted for a message. */
static char *quoted(const char *s)
{
	_cleanup_free_ char *v = error_shown(s);
	return xasprintf("\"%s\"", v);
}

static int parse_json(const char *buf, size_t len, const char *what, json **out, char **err)
{
	json *v;
	if (json_parse_with(buf, len, what, &util_json, &v, err) < 0)
		return -1;
	if (!json_is_object(v)) {
		error_set(err, "%s: must be a JSON object, not %s", what, json_type_name(v));
		json_free(v);
		return -1;
	}
	*out = v;
	return 0;
}

/* A string member; NULL when absent (or null) and not required. */
static int get_string(json *o, const char *what, const char *key, bool required, const char **out,
		      char **err)
{
	json *v = json_obj_get(o, key);
	if (v == NULL || (json_is_null(v) && !required)) {
		if (required)
			return error_set(err, "%s: field \"%s\": missing", what, key);
		*out = NULL;
		return 0;
	}
	if (!json_is_string(v))
		return error_set(err, "%s: field \"%s\": must be a string, not %s", what, key,
				 json_type_name(v));
	if (required && v->u.string.s[0] == '\0')
		return error_set(err, "%s: field \"%s\": must not be empty", what, key);
	*out = v->u.string.s;
	return 0;
}

static int check_absolute(const char *what, const char *field, const char *path, char **err)
{
	if (path[0] == '/')
		return 0;
	_cleanup_free_ char *p = quoted(path);
	return error_set(err, "%s: field \"%s\": %s is not an absolute path", what, field, p);
}

/* "annotations": an object of strings (null or absent: none). */
static int parse_annotations(json *o, const char *what, struct kvlist *out, char **err)
{
	json *v = json_obj_get(o, "annotations");
	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_object(v))
		return error_set(err, "%s: field \"annotations\": must be an object, not %s", what,
				 json_type_name(v));
	struct kvlist a = {0};
	for (size_t i = 0; i < v->u.object.n; i++) {
		const char *value = json_str(v->u.object.v[i]);
		if (value == NULL) {
			_cleanup_free_ char *k = quoted(v->u.object.k[i]);
			error_set(err, "%s: annotation %s: must be a string, not %s", what, k,
				  json_type_name(v->u.object.v[i]));
			kvlist_free(&a);
			return -1;
		}
		kvlist_append(&a, v->u.object.k[i], value);
	}
	*out = a;
	return 0;
}

static int parse_pid(json *o, pid_t *out, char **err)
{
	json *v = json_obj_get(o, "pid");
	/* runtime-spec "State": pid is REQUIRED only when status is created or
	 * running; runc leaves it out at poststop, crun passes 0. */
	if (v == NULL || json_is_null(v)) {
		*out = 0;
		return 0;
	}
	if (json_is_int(v) && json_int_value(v) >= 0 && json_int_value(v) <= INT_MAX) {
		*out = (pid_t)json_int_value(v);
		return 0;
	}
	if (json_is_number(v))
		return error_set(
		    err, "OCI state: field \"pid\": must be a non-negative integer, not %.32s%s",
		    v->u.number, strlen(v->u.number) > 32 ? "..." : "");
	return error_set(err, "OCI state: field \"pid\": must be a non-negative integer, not %s",
			 json_type_name(v));
}

/* The status is a string the runtime chose: runtime-spec "State" lists
 * creating, created, running and stopped, and "Additional values MAY be
 * defined by the runtime". It ends up in log lines: printable ASCII only. */
static int check_status(const char *status, char **err)
{
	for (const char *c = status; *c; c++)
		if (*c <= ' ' || *c >= 0x7f) {
			_cleanup_free_ char *p = quoted(status);
			return error_set(
			    err,
			    "OCI state: field \"status\": %s must be printable ASCII without "
			    "white space",
			    p);
		}
	return 0;
}

/* Read <bundle>/config.json: a regular file of at most CONFIG_MAX bytes.
 * 0 with *out NULL when it does not exist and is not needed. */
static int read_config(const char *path, bool need_config, json **out, char **err)
{
	int fd = TEMP_FAILURE_RETRY(open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
	if (fd < 0) {
		if ((errno == ENOENT || errno == ENOTDIR) && !need_config) {
			*out = NULL;
			return 0;
		}
		return error_set(err, "%s: %m", path);
	}
	struct stat st;
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		return error_set(err, "%s: %s", path, strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return error_set(err, "%s: not a regular file", path);
	}
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	_cleanup_free_ char *e = NULL;
	int r = read_all_fd(fd, CONFIG_MAX, &buf, &len, &e);
	close(fd);
	if (r < 0)
		return error_set(err, "%s: %s", path, e);
	return parse_json(buf, len, path, out, err);
}

/* The "network" entry of linux.namespaces (runtime-spec config-linux.md,
 * "Namespaces"): present or not, and its path. */
static int parse_namespaces(json *config, const char *what, struct oci_state *s, char **err)
{
	json *lnx = json_obj_get(config, "linux");
	if (lnx == NULL || json_is_null(lnx))
		return 0;
	if (!json_is_object(lnx))
		return error_set(err, "%s: field \"linux\": must be an object, not %s", what,
				 json_type_name(lnx));
	json *ns = json_obj_get(lnx, "namespaces");
	if (ns == NULL || json_is_null(ns))
		return 0;
	if (!json_is_array(ns))
		return error_set(err, "%s: field \"linux.namespaces\": must be an array, not %s",
				 what, json_type_name(ns));
	bool found = false;
	const char *path = NULL;
	for (size_t i = 0; i < ns->u.array.n; i++) {
		json *e = ns->u.array.v[i];
		if (!json_is_object(e))
			return error_set(
			    err, "%s: field \"linux.namespaces[%zu]\": must be an object, not %s",
			    what, i, json_type_name(e));
		json *type = json_obj_get(e, "type");
		if (!json_is_string(type))
			return error_set(
			    err,
			    "%s: field \"linux.namespaces[%zu].type\": must be a string, not %s",
			    what, i, json_type_name(type));
		if (strcmp(type->u.string.s, "network") != 0)
			continue;
		if (found)
			return error_set(
			    err, "%s: field \"linux.namespaces\": more than one \"network\" entry",
			    what);
		found = true;
		json *p = json_obj_get(e, "path");
		if (p == NULL || json_is_null(p))
			continue;
		if (!json_is_string(p))
			return error_set(
			    err,
			    "%s: field \"linux.namespaces[%zu].path\": must be a string, not %s",
			    what, i, json_type_name(p));
		/* An empty path is no path: runc and crun create a new
		 * namespace for it. */
		if (p->u.string.s[0] == '\0')
			continue;
		if (p->u.string.s[0] != '/') {
			_cleanup_free_ char *q = quoted(p->u.string.s);
			return error_set(
			    err,
			    "%s: field \"linux.namespaces[%zu].path\": %s is not an absolute "
			    "path",
			    what, i, q);
		}
		path = p->u.string.s;
	}
	s->netns_in_config = found;
	s->netns_path = xstrdup(path);
	return 0;
}

int oci_state_load_config(struct oci_state *s, bool need_config, char **err)
{
	if (s->bundle == NULL) {
		if (need_config)
			return error_set(err,
					 "OCI state: field \"bundle\": missing, config.json cannot "
					 "be read");
		return 0;
	}
	_cleanup_free_ char *path = xasprintf("%s%sconfig.json", s->bundle,
					      s->bundle[strlen(s->bundle) - 1] == '/' ? "" : "/");
	_cleanup_json_ json *config = NULL;
	if (read_config(path, need_config, &config, err) < 0)
		return -1;
	if (config == NULL)
		return 0;
	if (parse_namespaces(config, path, s, err) < 0)
		return -1;
	json *h = json_obj_get(config, "hostname");
	if (h && !json_is_null(h) && json_str(h) == NULL)
		return error_set(err, "%s: field \"hostname\": must be a string, not %s", path,
				 json_type_name(h));
	free(s->hostname);
	s->hostname = json_str(h) && *json_str(h) ? xstrdup(json_str(h)) : NULL;
	if (s->annotations.n == 0 && parse_annotations(config, path, &s->annotations, err) < 0)
		return -1;
	s->has_config = true;
	return 0;
}

char *oci_state_containerd_namespace(const char *bundle, const char *id)
{
	_cleanup_free_ char *b = xstrdup(bundle);
	size_t len = strlen(b);
	while (len > 1 && b[len - 1] == '/')
		b[--len] = '\0';
	/* The last three components: io.containerd.runtime.<v>, <ns>, <id>. */
	char *last = strrchr(b, '/');
	if (last == NULL || strcmp(last + 1, id) != 0)
		return NULL;
	*last = '\0';
	char *ns = strrchr(b, '/');
	if (ns == NULL || ns[1] == '\0')
		return NULL;
	*ns = '\0';
	const char *rt = strrchr(b, '/');
	if (rt == NULL || strncmp(rt + 1, "io.containerd.runtime.", 22) != 0)
		return NULL;
	return xstrdup(ns + 1);
}

/* The container's scope, its CNI_CONTAINERID and its name (oci-state.h). */
static int derive_identity(struct oci_state *s, char **err)
{
	s->scope = s->bundle ? oci_state_containerd_namespace(s->bundle, s->id) : NULL;
	if (s->scope == NULL) {
		s->key = xstrdup(s->id);
		s->name = xstrdup(s->id);
		return 0;
	}
	s->key = xasprintf("%s-%s", s->scope, s->id);
	s->name = xasprintf("%s/%s", s->scope, s->id);
	cnirt_error *e = NULL;
	if (cnirt_check_container_id(s->key, &e) < 0) {
		_cleanup_free_ char *b = quoted(s->bundle);
		error_set(err,
			  "OCI state: field \"bundle\": %s is a task of a containerd namespace; "
			  "as its CNI container id, namespace-id: %s",
			  b, cnirt_error_msg(e));
		cnirt_error_free(e);
		return -1;
	}
	return 0;
}

static void state_freep(struct oci_state **s)
{
	oci_state_free(*s);
}

int oci_state_parse_state(const char *buf, size_t len, struct oci_state **out, char **err)
{
	if (len > STATE_MAX)
		return error_set(err, "OCI state: larger than %d MiB", STATE_MAX / (1024 * 1024));
	_cleanup_json_ json *root = NULL;
	if (parse_json(buf, len, "OCI state", &root, err) < 0)
		return -1;

	const char *version, *id, *status, *bundle;
	if (get_string(root, "OCI state", "ociVersion", true, &version, err) < 0 ||
	    get_string(root, "OCI state", "id", true, &id, err) < 0 ||
	    get_string(root, "OCI state", "status", true, &status, err) < 0 ||
	    get_string(root, "OCI state", "bundle", false, &bundle, err) < 0)
		return -1;
	cnirt_error *e = NULL;
	if (cnirt_check_container_id(id, &e) < 0) {
		/* The library's message names the field ("container id ..."). */
		error_set(err, "OCI state: %s", cnirt_error_msg(e));
		cnirt_error_free(e);
		return -1;
	}
	if (check_status(status, err) < 0)
		return -1;
	/* runtime-spec "State": bundle "is the absolute path to the
	 * container's bundle directory". */
	if (bundle && check_absolute("OCI state", "bundle", bundle, err) < 0)
		return -1;

	__attribute__((cleanup(state_freep))) struct oci_state *s = xzalloc(sizeof(*s));
	if (parse_pid(root, &s->pid, err) < 0 ||
	    parse_annotations(root, "OCI state", &s->annotations, err) < 0)
		return -1;
	s->oci_version = xstrdup(version);
	s->id = xstrdup(id);
	s->status = xstrdup(status);
	s->bundle = xstrdup(bundle);
	if (derive_identity(s, err) < 0)
		return -1;
	*out = TAKE_PTR(s);
	return 0;
}

int oci_state_parse(const char *buf, size_t len, bool need_config, struct oci_state **out,
		    char **err)
{
	struct oci_state *s = NULL;
	if (oci_state_parse_state(buf, len, &s, err) < 0)
		return -1;
	if (oci_state_load_config(s, need_config, err) < 0) {
		oci_state_free(s);
		return -1;
	}
	*out = s;
	return 0;
}

void oci_state_free(struct oci_state *s)
{
	if (s == NULL)
		return;
	free(s->oci_version);
	free(s->id);
	free(s->status);
	free(s->bundle);
	kvlist_free(&s->annotations);
	free(s->hostname);
	free(s->netns_path);
	free(s->scope);
	free(s->key);
	free(s->name);
	free(s);
}
