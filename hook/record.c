/* SPDX-License-Identifier: Apache-2.0 */
/* The attachment record. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "record.h"

#define RECORD_MAX_SIZE (64u << 20)

char *record_path(const char *state_dir, const char *id)
{
	return xasprintf("%s/%s/record.json", state_dir, id);
}

/* Member `key` with the JSON object `text` as its value (none for NULL). */
static void gen_object_text(yajl_gen g, const char *key, const char *text)
{
	_cleanup_json_ json *v = NULL;
	_cleanup_free_ char *e = NULL;
	if (text == NULL || json_parse_with(text, strlen(text), key, &hook_json, &v, &e) < 0)
		return;
	gen_str(g, key);
	gen_json(g, v);
}

int record_write(const char *path, const struct record *r, char **err)
{
	yajl_gen g = gen_new();
	yajl_gen_map_open(g);
	gen_str(g, "version");
	yajl_gen_integer(g, 1);
	gen_str(g, "id");
	gen_str(g, r->id);
	gen_str(g, "netns");
	gen_str(g, r->netns ? r->netns : "");
	if (r->cluster) {
		gen_str(g, "clusterNetwork");
		gen_str(g, r->cluster);
	}
	if (r->bundle) {
		gen_str(g, "bundle");
		gen_str(g, r->bundle);
	}
	if (r->pid > 0) {
		gen_str(g, "pid");
		yajl_gen_integer(g, r->pid);
	}
	if (r->name) {
		gen_str(g, "name");
		gen_str(g, r->name);
	}
	gen_str(g, "attachments");
	yajl_gen_array_open(g);
	for (size_t i = 0; i < r->n; i++) {
		const struct record_att *a = &r->v[i];
		yajl_gen_map_open(g);
		gen_str(g, "network");
		gen_str(g, a->network);
		if (a->ns) {
			gen_str(g, "namespace");
			gen_str(g, a->ns);
		}
		gen_str(g, "ifname");
		gen_str(g, a->ifname);
		gen_str(g, "default");
		yajl_gen_bool(g, a->is_default);
		gen_str(g, "config");
		gen_str(g, a->config);
		gen_object_text(g, "capabilityArgs", a->cap_args);
		gen_object_text(g, "configArgs", a->config_args);
		gen_str(g, "cniArgs");
		yajl_gen_array_open(g);
		for (size_t k = 0; k < a->n_args; k++) {
			yajl_gen_array_open(g);
			gen_str(g, a->args[k].key);
			gen_str(g, a->args[k].value);
			yajl_gen_array_close(g);
		}
		yajl_gen_array_close(g);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
	yajl_gen_map_close(g);
	_cleanup_free_ char *text = gen_finish(g);
	int e = write_file_atomic(path, text, strlen(text), 0600, false);
	if (e < 0) {
		*err = xasprintf("attachment record %s: %s", path, strerror(-e));
		return -1;
	}
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
		kv_free(a->args, a->n_args);
	}
	free(r->v);
	free(r->id);
	free(r->netns);
	free(r->cluster);
	free(r->bundle);
	free(r->name);
	free(r);
}

static int parse_att(json *o, struct record_att *a)
{
	const char *network = json_str(json_obj_get(o, "network"));
	const char *ifname = json_str(json_obj_get(o, "ifname"));
	const char *config = json_str(json_obj_get(o, "config"));
	if (network == NULL || ifname == NULL || config == NULL)
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
	for (size_t i = 0; json_is_array(args) && i < args->u.array.n; i++) {
		json *p = args->u.array.v[i];
		if (!json_is_array(p) || p->u.array.n != 2 || !json_str(p->u.array.v[0]) ||
		    !json_str(p->u.array.v[1]))
			return -1;
		kv_append(&a->args, &a->n_args, json_str(p->u.array.v[0]),
			  json_str(p->u.array.v[1]));
	}
	return 0;
}

int record_read(const char *path, struct record **out, char **err)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int e = read_file(path, RECORD_MAX_SIZE, &buf, &len);
	if (e == -ENOENT) {
		*out = NULL;
		return 0;
	}
	if (e < 0) {
		*err = xasprintf("attachment record %s: %s", path, strerror(-e));
		return -1;
	}
	json *root = NULL;
	_cleanup_free_ char *what = xasprintf("attachment record %s", path);
	if (json_parse_with(buf, len, what, &hook_json, &root, err) < 0)
		return -1;
	struct record *r = xzalloc(sizeof(*r));
	json *atts = json_obj_get(root, "attachments");
	int bad = !json_str(json_obj_get(root, "id")) || !json_is_array(atts);
	if (!bad) {
		r->id = xstrdup(json_str(json_obj_get(root, "id")));
		r->netns = xstrdup(json_str(json_obj_get(root, "netns")));
		r->cluster = xstrdup(json_str(json_obj_get(root, "clusterNetwork")));
		/* Absent in records written before issue 10. */
		r->bundle = xstrdup(json_str(json_obj_get(root, "bundle")));
		r->name = xstrdup(json_str(json_obj_get(root, "name")));
		long long pid;
		if (json_int(json_obj_get(root, "pid"), &pid) && pid > 0 && pid <= INT_MAX)
			r->pid = (int)pid;
		r->v = xreallocarray(NULL, atts->u.array.n, sizeof(*r->v));
		memset(r->v, 0, atts->u.array.n * sizeof(*r->v));
		for (size_t i = 0; i < atts->u.array.n && !bad; i++, r->n++)
			bad = parse_att(atts->u.array.v[i], &r->v[i]) < 0;
	}
	json_free(root);
	if (bad) {
		record_free(r);
		*err = xasprintf("attachment record %s: not a record of this version", path);
		return -1;
	}
	*out = r;
	return 0;
}

char *record_name_path(const char *state_dir, const char *id)
{
	return xasprintf("%s/%s/name", state_dir, id);
}

int record_name_write(const char *state_dir, const char *id, const char *name, char **err)
{
	_cleanup_free_ char *path = record_name_path(state_dir, id);
	if (unlink(path) < 0 && errno != ENOENT)
		return set_error(err, "%s: %s", path, strerror(errno));
	if (symlink(name, path) < 0)
		return set_error(err, "%s: %s", path, strerror(errno));
	return 0;
}

char *record_name_read(const char *state_dir, const char *id)
{
	_cleanup_free_ char *path = record_name_path(state_dir, id);
	char buf[PATH_MAX];
	ssize_t n = readlink(path, buf, sizeof(buf) - 1);
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
