/* SPDX-License-Identifier: Apache-2.0 */
/* The attachment record. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "state/layout.h"
#include "state/record.h"

#define RECORD_MAX_SIZE (64u << 20)

/* Member `key` with the JSON object `text` as its value (none for NULL). */
static void set_object_text(json *o, const char *key, const char *text)
{
	json *v = NULL;
	_cleanup_free_ char *e = NULL;
	if (text == NULL || json_parse_with(text, strlen(text), key, &util_json, &v, &e) < 0)
		return;
	json_obj_set(o, key, v);
}

/* One attachment of the record. */
static json *att_tree(const struct record_att *a)
{
	json *o = json_new(JSON_OBJECT);
	json_obj_set(o, "network", json_new_string(a->network));
	if (a->ns)
		json_obj_set(o, "namespace", json_new_string(a->ns));
	json_obj_set(o, "ifname", json_new_string(a->ifname));
	json_obj_set(o, "default", json_new_bool(a->is_default));
	json_obj_set(o, "config", json_new_string(a->config));
	set_object_text(o, "capabilityArgs", a->cap_args);
	set_object_text(o, "configArgs", a->config_args);
	json *args = json_new(JSON_ARRAY);
	for (size_t k = 0; k < a->args.n; k++) {
		json *pair = json_new(JSON_ARRAY);
		json_arr_append(pair, json_new_string(a->args.v[k].key));
		json_arr_append(pair, json_new_string(a->args.v[k].value));
		json_arr_append(args, pair);
	}
	json_obj_set(o, "cniArgs", args);
	return o;
}

/* The record as written: members in this order, optional ones only when set. */
static json *record_tree(const struct record *r)
{
	json *o = json_new(JSON_OBJECT);
	json_obj_set(o, "version", json_new_int(1));
	json_obj_set(o, "id", json_new_string(r->id));
	json_obj_set(o, "netns", json_new_string(r->netns ? r->netns : ""));
	if (r->cluster)
		json_obj_set(o, "clusterNetwork", json_new_string(r->cluster));
	if (r->bundle)
		json_obj_set(o, "bundle", json_new_string(r->bundle));
	if (r->pid > 0)
		json_obj_set(o, "pid", json_new_int(r->pid));
	if (r->name)
		json_obj_set(o, "name", json_new_string(r->name));
	if (r->hostname)
		json_obj_set(o, "hostname", json_new_string(r->hostname));
	json *atts = json_new(JSON_ARRAY);
	for (size_t i = 0; i < r->n; i++)
		json_arr_append(atts, att_tree(&r->v[i]));
	json_obj_set(o, "attachments", atts);
	return o;
}

int record_write(const char *path, const struct record *r, char **err)
{
	_cleanup_json_ json *tree = record_tree(r);
	size_t len;
	_cleanup_free_ char *text = json_gen(tree, false, &len);
	int e = file_write_atomic(path, text, len, 0600, false);
	if (e < 0)
		return error_set(err, "attachment record %s: %s", path, strerror(-e));
	return 0;
}

void record_free(struct record *r)
{
	if (r == NULL)
		return;
	for (size_t i = 0; i < r->n; i++) {
		struct record_att *a = &r->v[i];
		free(a->network);
		free(a->ns);
		free(a->ifname);
		free(a->config);
		free(a->cap_args);
		free(a->config_args);
		kvlist_free(&a->args);
	}
	free(r->v);
	free(r->id);
	free(r->netns);
	free(r->cluster);
	free(r->bundle);
	free(r->name);
	free(r->hostname);
	free(r);
}

/* A string member of o that must be there: its text, or -1 and *err
 * naming it ("attachments[1].ifname"). */
static int need_str(const json *o, const char *prefix, const char *key, const char **out,
		    char **err)
{
	*out = json_str(json_obj_get(o, key));
	if (*out == NULL)
		return error_set(err, "field \"%s%s\": missing or not a string", prefix, key);
	return 0;
}

static int parse_att(json *o, size_t i, struct record_att *a, char **err)
{
	_cleanup_free_ char *at = xasprintf("attachments[%zu].", i);
	const char *network, *ifname, *config;
	if (!json_is_object(o))
		return error_set(err, "field \"attachments[%zu]\": not an object", i);
	if (need_str(o, at, "network", &network, err) < 0 ||
	    need_str(o, at, "ifname", &ifname, err) < 0 ||
	    need_str(o, at, "config", &config, err) < 0)
		return -1;
	a->network = xstrdup(network);
	a->ifname = xstrdup(ifname);
	a->config = xstrdup(config);
	a->ns = xstrdup(json_str(json_obj_get(o, "namespace")));
	a->is_default = json_is_true(json_obj_get(o, "default"));
	json *caps = json_obj_get(o, "capabilityArgs");
	if (json_is_object(caps))
		a->cap_args = json_gen(caps, false, NULL);
	json *config_args = json_obj_get(o, "configArgs");
	if (json_is_object(config_args))
		a->config_args = json_gen(config_args, false, NULL);
	json *args = json_obj_get(o, "cniArgs");
	for (size_t k = 0; json_is_array(args) && k < args->u.array.n; k++) {
		json *p = args->u.array.v[k];
		if (!json_is_array(p) || p->u.array.n != 2 || !json_str(p->u.array.v[0]) ||
		    !json_str(p->u.array.v[1]))
			return error_set(err, "field \"%scniArgs[%zu]\": not a pair of strings", at,
					 k);
		kvlist_append(&a->args, json_str(p->u.array.v[0]), json_str(p->u.array.v[1]));
	}
	return 0;
}

/* The record in root, or -1 and *err naming the field at fault. */
static int parse_record(const json *root, struct record **out, char **err)
{
	const char *id;
	if (!json_is_object(root))
		return error_set(err, "not an object");
	if (need_str(root, "", "id", &id, err) < 0)
		return -1;
	json *atts = json_obj_get(root, "attachments");
	if (!json_is_array(atts))
		return error_set(err, "field \"attachments\": missing or not an array");
	struct record *r = xzalloc(sizeof(*r));
	r->id = xstrdup(id);
	r->netns = xstrdup(json_str(json_obj_get(root, "netns")));
	r->cluster = xstrdup(json_str(json_obj_get(root, "clusterNetwork")));
	/* Absent in records of cnihook 0.1 before engine scopes (no bundle, pid or name). */
	r->bundle = xstrdup(json_str(json_obj_get(root, "bundle")));
	r->name = xstrdup(json_str(json_obj_get(root, "name")));
	r->hostname = xstrdup(json_str(json_obj_get(root, "hostname")));
	long long pid;
	if (json_int(json_obj_get(root, "pid"), &pid) && pid > 0 && pid <= INT_MAX)
		r->pid = (int)pid;
	r->v = xreallocarray(NULL, atts->u.array.n, sizeof(*r->v));
	memset(r->v, 0, atts->u.array.n * sizeof(*r->v));
	for (size_t i = 0; i < atts->u.array.n; i++, r->n++)
		if (parse_att(atts->u.array.v[i], i, &r->v[i], err) < 0) {
			r->n++;
			record_free(r);
			return -1;
		}
	*out = r;
	return 0;
}

int record_read(const char *path, struct record **out, char **err)
{
	_cleanup_free_ char *buf = NULL, *e = NULL;
	size_t len;
	int errnum;
	if (read_file(path, RECORD_MAX_SIZE, &buf, &len, &errnum, &e) < 0) {
		if (errnum != ENOENT)
			return error_set(err, "attachment record %s", e);
		*out = NULL;
		return 0;
	}
	_cleanup_json_ json *root = NULL;
	_cleanup_free_ char *what = xasprintf("attachment record %s", path);
	if (json_parse_with(buf, len, what, &util_json, &root, err) < 0)
		return -1;
	if (parse_record(root, out, &e) < 0)
		return error_set(err, "%s: %s", what, e);
	return 0;
}

int record_name_write(const char *state_dir, const char *id, const char *name, char **err)
{
	_cleanup_free_ char *path = layout_name_link(state_dir, id);
	if (unlink(path) < 0 && errno != ENOENT)
		return error_set(err, "%s: %s", path, strerror(errno));
	if (symlink(name, path) < 0)
		return error_set(err, "%s: %s", path, strerror(errno));
	return 0;
}

char *record_name_read(int state_fd, const char *id)
{
	/* The name's '/' is a '-' of the id: an id without one has none. */
	if (strchr(id, '-') == NULL)
		return NULL;
	_cleanup_free_ char *path = layout_name_link(NULL, id);
	char buf[PATH_MAX];
	ssize_t n = readlinkat(state_fd, path, buf, sizeof(buf) - 1);
	if (n <= 0 || (size_t)n != strlen(id))
		return NULL;
	buf[n] = '\0';
	char *slash = strchr(buf, '/');
	if (slash == NULL || strchr(slash + 1, '/') ||
	    strncmp(buf, id, (size_t)(slash - buf)) != 0 || id[slash - buf] != '-' ||
	    strcmp(slash + 1, id + (slash - buf) + 1) != 0)
		return NULL;
	return xstrdup(buf);
}
