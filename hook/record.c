/* SPDX-License-Identifier: Apache-2.0 */
/* The attachment record. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "jsonutil.h"
#include "record.h"

#define RECORD_MAX_SIZE (64u << 20)

char *record_path(const char *state_dir, const char *id)
{
	return xasprintf("%s/%s/record.json", state_dir, id);
}

int record_write(const char *path, const struct record *r, char **err)
{
	yajl_gen g = jt_gen_new();
	yajl_gen_map_open(g);
	jt_gen_str(g, "version");
	yajl_gen_integer(g, 1);
	jt_gen_str(g, "id");
	jt_gen_str(g, r->id);
	jt_gen_str(g, "netns");
	jt_gen_str(g, r->netns ? r->netns : "");
	if (r->cluster) {
		jt_gen_str(g, "clusterNetwork");
		jt_gen_str(g, r->cluster);
	}
	if (r->bundle) {
		jt_gen_str(g, "bundle");
		jt_gen_str(g, r->bundle);
	}
	if (r->pid > 0) {
		jt_gen_str(g, "pid");
		yajl_gen_integer(g, r->pid);
	}
	if (r->name) {
		jt_gen_str(g, "name");
		jt_gen_str(g, r->name);
	}
	jt_gen_str(g, "attachments");
	yajl_gen_array_open(g);
	for (size_t i = 0; i < r->n; i++) {
		const struct record_att *a = &r->v[i];
		yajl_gen_map_open(g);
		jt_gen_str(g, "network");
		jt_gen_str(g, a->network);
		if (a->ns) {
			jt_gen_str(g, "namespace");
			jt_gen_str(g, a->ns);
		}
		jt_gen_str(g, "ifname");
		jt_gen_str(g, a->ifname);
		jt_gen_str(g, "default");
		yajl_gen_bool(g, a->is_default);
		jt_gen_str(g, "config");
		jt_gen_str(g, a->config);
		if (a->cap_args) {
			yajl_val v = NULL;
			_cleanup_free_ char *e = NULL;
			if (jt_parse(a->cap_args, strlen(a->cap_args), "capability arguments", &v,
				     &e) == 0) {
				jt_gen_str(g, "capabilityArgs");
				jt_gen_value(g, v);
				yajl_tree_free(v);
			}
		}
		jt_gen_str(g, "cniArgs");
		yajl_gen_array_open(g);
		for (size_t k = 0; k < a->n_args; k++) {
			yajl_gen_array_open(g);
			jt_gen_str(g, a->args[k].key);
			jt_gen_str(g, a->args[k].value);
			yajl_gen_array_close(g);
		}
		yajl_gen_array_close(g);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
	yajl_gen_map_close(g);
	_cleanup_free_ char *text = jt_gen_finish(g);
	int e = write_file_atomic(path, text, strlen(text), 0600);
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

static int parse_att(yajl_val o, struct record_att *a)
{
	const char *network = jt_str(jt_get(o, "network"));
	const char *ifname = jt_str(jt_get(o, "ifname"));
	const char *config = jt_str(jt_get(o, "config"));
	if (network == NULL || ifname == NULL || config == NULL)
		return -1;
	a->network = xstrdup(network);
	a->ifname = xstrdup(ifname);
	a->config = xstrdup(config);
	a->ns = xstrdup(jt_str(jt_get(o, "namespace")));
	a->is_default = YAJL_IS_TRUE(jt_get(o, "default"));
	yajl_val caps = jt_get(o, "capabilityArgs");
	if (YAJL_IS_OBJECT(caps))
		a->cap_args = jt_dump(caps);
	yajl_val args = jt_get(o, "cniArgs");
	for (size_t i = 0; YAJL_IS_ARRAY(args) && i < args->u.array.len; i++) {
		yajl_val p = args->u.array.values[i];
		if (!YAJL_IS_ARRAY(p) || p->u.array.len != 2 || !jt_str(p->u.array.values[0]) ||
		    !jt_str(p->u.array.values[1]))
			return -1;
		kv_append(&a->args, &a->n_args, jt_str(p->u.array.values[0]),
			  jt_str(p->u.array.values[1]));
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
	yajl_val root = NULL;
	_cleanup_free_ char *what = xasprintf("attachment record %s", path);
	if (jt_parse(buf, len, what, &root, err) < 0)
		return -1;
	struct record *r = xzalloc(sizeof(*r));
	yajl_val atts = jt_get(root, "attachments");
	int bad = !jt_str(jt_get(root, "id")) || !YAJL_IS_ARRAY(atts);
	if (!bad) {
		r->id = xstrdup(jt_str(jt_get(root, "id")));
		r->netns = xstrdup(jt_str(jt_get(root, "netns")));
		r->cluster = xstrdup(jt_str(jt_get(root, "clusterNetwork")));
		/* Absent in records written before issue 10. */
		r->bundle = xstrdup(jt_str(jt_get(root, "bundle")));
		r->name = xstrdup(jt_str(jt_get(root, "name")));
		yajl_val pid = jt_get(root, "pid");
		if (YAJL_IS_INTEGER(pid) && pid->u.number.i > 0 && pid->u.number.i <= INT_MAX)
			r->pid = (int)pid->u.number.i;
		r->v = xreallocarray(NULL, atts->u.array.len, sizeof(*r->v));
		memset(r->v, 0, atts->u.array.len * sizeof(*r->v));
		for (size_t i = 0; i < atts->u.array.len && !bad; i++, r->n++)
			bad = parse_att(atts->u.array.values[i], &r->v[i]) < 0;
	}
	yajl_tree_free(root);
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
