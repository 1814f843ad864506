/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The container's names files (names.h): what to write (the settings and
 * the results), where (config.json's mounts), and the outcome of each file
 * for the engine to log.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "names/hosts-file.h"
#include "names/names.h"
#include "names/resolv-conf.h"
#include "names/rootfs-file.h"
#include "state/layout.h"

#define HOST_RESOLV_MAX (64 * 1024)

static const char *const file_dest[] = {"/etc/resolv.conf", "/etc/hosts"};
static const char *const file_name[] = {LAYOUT_RESOLV_CONF, LAYOUT_HOSTS};

/* ------------------------------------------------------------ config.json */

/* A mount destination without repeated or trailing slashes. */
static char *clean_dest(const char *d)
{
	struct buf b = {0};
	if (d[0] != '/')
		buf_appends(&b, "/");
	for (const char *p = d; *p; p++)
		if (!(*p == '/' && b.len > 0 && b.data[b.len - 1] == '/'))
			buf_append(&b, p, 1);
	if (b.len > 1 && b.data[b.len - 1] == '/')
		b.len--;
	return buf_steal(&b, NULL);
}

static bool has_option(const json *m, const char *a, const char *b)
{
	const json *opts = json_obj_get(m, "options");
	for (size_t i = 0; json_is_array(opts) && i < opts->u.array.n; i++) {
		const char *o = json_str(opts->u.array.v[i]);
		if (o && (strcmp(o, a) == 0 || (b && strcmp(o, b) == 0)))
			return true;
	}
	return false;
}

static bool is_bind(const json *m)
{
	const char *type = json_str(json_obj_get(m, "type"));
	return (type && strcmp(type, "bind") == 0) || has_option(m, "bind", "rbind");
}

static void parse_mounts(const json *config, struct names_bundle *b)
{
	const json *mounts = json_obj_get(config, "mounts");
	for (size_t i = 0; json_is_array(mounts) && i < mounts->u.array.n; i++) {
		const json *m = mounts->u.array.v[i];
		const char *dest = json_str(json_obj_get(m, "destination"));
		if (!json_is_object(m) || dest == NULL)
			continue;
		_cleanup_free_ char *d = clean_dest(dest);
		for (int f = 0; f < 2; f++) {
			if (strcmp(d, file_dest[f]) != 0)
				continue;
			const char *src = json_str(json_obj_get(m, "source"));
			free(b->mounted[f]);
			b->mounted[f] = NULL;
			b->other[f] = !(is_bind(m) && src && src[0] == '/');
			b->ro[f] = has_option(m, "ro", NULL);
			if (!b->other[f])
				b->mounted[f] = xstrdup(src);
		}
	}
}

int names_bundle_parse(const json *config, const char *bundle, struct names_bundle *out, char **err)
{
	const json *root = json_obj_get(config, "root");
	const char *path = json_str(json_obj_get(root, "path"));
	if (path == NULL || path[0] == '\0')
		return error_set(err, "config.json: field \"root.path\": missing");
	struct names_bundle b = {0};
	b.root = path[0] == '/' ? xstrdup(path) : xasprintf("%s/%s", bundle, path);
	const char *hostname = json_str(json_obj_get(config, "hostname"));
	b.hostname = hostname && *hostname ? xstrdup(hostname) : NULL;
	parse_mounts(config, &b);
	*out = b;
	return 0;
}

void names_bundle_free(struct names_bundle *b)
{
	free(b->root);
	free(b->hostname);
	free(b->mounted[0]);
	free(b->mounted[1]);
	*b = (struct names_bundle){0};
}

/* ------------------------------------------------------------ settings */

enum names_mode names_mode_for(enum names_mode conf, const struct names_request *req)
{
	enum names_mode m = NAMES_AUTO;
	if (conf == NAMES_OFF || req->mode == NULL || hookconf_names_mode(req->mode, &m) < 0)
		return conf;
	return m == NAMES_AUTO ? conf : m;
}

static json *parse_result(const char *text)
{
	json *v = NULL;
	_cleanup_free_ char *e = NULL;
	if (text == NULL || json_parse_with(text, strlen(text), "result", &util_json, &v, &e) < 0)
		return NULL;
	return v;
}

static bool has_dns(const json *result)
{
	const json *dns = json_obj_get(result, "dns");
	if (!json_is_object(dns))
		return false;
	static const char *const lists[] = {"nameservers", "search", "options"};
	for (size_t i = 0; i < ARRAY_SIZE(lists); i++) {
		const json *l = json_obj_get(dns, lists[i]);
		if (json_is_array(l) && l->u.array.n > 0)
			return true;
	}
	const char *domain = json_str(json_obj_get(dns, "domain"));
	return domain && *domain;
}

bool names_results_have_dns(char *const *results, size_t n)
{
	bool any = false;
	for (size_t i = 0; i < n && !any; i++) {
		json *r = parse_result(results[i]);
		any = has_dns(r);
		json_free(r);
	}
	return any;
}

/* ------------------------------------------------------------ composing */

/* The results parsed, the default-route attachment's first. */
static json **ordered_results(const struct names_input *in)
{
	json **v = xreallocarray(NULL, in->n + 1, sizeof(*v));
	size_t k = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < in->n; i++)
			if ((in->is_default && in->is_default[i]) == (pass == 0))
				v[k++] = parse_result(in->results[i]);
	v[k] = NULL;
	return v;
}

static void free_results(json **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		json_free(v[i]);
	free(v);
}

/* The host's resolv.conf: systemd-resolved's own list when /etc/resolv.conf
 * names its stub, whose address is the host's loopback. */
static void host_resolv(struct resolv *out)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_free_ char *e = NULL;
	size_t len;
	if (read_file("/etc/resolv.conf", HOST_RESOLV_MAX, &text, &len, NULL, &e) == 0)
		resolv_conf_parse(text, out);
	if (!resolv_conf_names_stub(out))
		return;
	_cleanup_free_ char *real = NULL;
	free(TAKE_PTR(e));
	if (read_file("/run/systemd/resolve/resolv.conf", HOST_RESOLV_MAX, &real, &len, NULL, &e) ==
	    0) {
		resolv_conf_free(out);
		resolv_conf_parse(real, out);
	}
}

/* The servers, search domains and options: the request's where it gives
 * them (they replace the rest, as podman's --dns does), else the results'
 * then the base's (the engine's file, else the host's). */
char *names_compose_resolv(const struct names_request *req, json *const *results, size_t n,
			   const struct resolv *base)
{
	struct resolv acc = {0}, fin = {0};
	for (size_t i = 0; i < n; i++)
		resolv_conf_add_dns(&acc, json_obj_get(results[i], "dns"));
	struct resolv v;
	v = req->n_servers ? (struct resolv){.servers = req->servers, .n_servers = req->n_servers}
			   : (struct resolv){.servers = acc.servers, .n_servers = acc.n_servers};
	resolv_conf_merge(&fin, &v, false);
	if (!req->n_servers)
		resolv_conf_merge(
		    &fin, &(struct resolv){.servers = base->servers, .n_servers = base->n_servers},
		    true);
	v = req->n_search ? (struct resolv){.search = req->search, .n_search = req->n_search}
			  : (struct resolv){.search = acc.search, .n_search = acc.n_search};
	resolv_conf_merge(&fin, &v, false);
	if (!req->n_search)
		resolv_conf_merge(
		    &fin, &(struct resolv){.search = base->search, .n_search = base->n_search},
		    false);
	v = req->n_options ? (struct resolv){.options = req->options, .n_options = req->n_options}
			   : (struct resolv){.options = acc.options, .n_options = acc.n_options};
	resolv_conf_merge(&fin, &v, false);
	if (!req->n_options)
		resolv_conf_merge(
		    &fin, &(struct resolv){.options = base->options, .n_options = base->n_options},
		    false);
	char *text = resolv_conf_compose(&fin);
	resolv_conf_free(&acc);
	resolv_conf_free(&fin);
	return text;
}

/* The container's names in its hosts file: its host name, its name
 * (io.cnihook.name), and its id when that is a host name too (runc, crun, ctr ids chosen by
 * people); then those the engine's own file gives with the host name (podman's name). */
static void hosts_names(const struct names_input *in, const struct names_bundle *b, char ***v,
			size_t *n)
{
	if (b->hostname && hosts_file_name_ok(b->hostname))
		strv_append(v, n, b->hostname);
	const char *more[] = {in->name, in->oci_id};
	for (size_t k = 0; k < ARRAY_SIZE(more); k++) {
		bool dup = more[k] == NULL || strlen(more[k]) > 63 || !hosts_file_name_ok(more[k]);
		for (size_t i = 0; i < *n && !dup; i++)
			dup = strcmp((*v)[i], more[k]) == 0;
		if (!dup)
			strv_append(v, n, more[k]);
	}
}

static char *compose(const struct names_input *in, const struct names_bundle *b, enum names_file f,
		     json *const *results, size_t n, const char *engine)
{
	if (f == NAMES_RESOLV_CONF) {
		struct resolv base = {0};
		if (engine)
			resolv_conf_parse(engine, &base);
		else
			host_resolv(&base);
		char *text = names_compose_resolv(in->req, results, n, &base);
		resolv_conf_free(&base);
		return text;
	}
	char **addrs = NULL, **names = NULL;
	size_t n_addrs = 0, n_names = 0;
	for (size_t i = 0; i < n; i++)
		hosts_file_add_result(results[i], &addrs, &n_addrs);
	hosts_names(in, b, &names, &n_names);
	if (engine)
		hosts_file_engine_names(engine, b->hostname, &names, &n_names);
	char *text = hosts_file_compose(engine, addrs, n_addrs, names, n_names);
	strv_free(addrs, n_addrs);
	strv_free(names, n_names);
	return text;
}

/* ------------------------------------------------------------ in place */

/* The host id that the container's root has in `map` (uid_map or gid_map
 * of its process): 0 without a user namespace. */
static unsigned map_root(pid_t pid, const char *map)
{
	_cleanup_free_ char *path = xasprintf("/proc/%d/%s", (int)pid, map);
	_cleanup_free_ char *text = NULL;
	_cleanup_free_ char *e = NULL;
	size_t len;
	if (read_file(path, 64 * 1024, &text, &len, NULL, &e) < 0)
		return 0;
	for (char *line = text; line && *line;) {
		unsigned long inside, outside, count;
		if (sscanf(line, "%lu %lu %lu", &inside, &outside, &count) == 3 && inside == 0 &&
		    count > 0)
			return (unsigned)outside;
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	return 0;
}

static void rewrite_engine_file(const struct names_input *in, const struct names_bundle *b,
				enum names_file f, json *const *results, size_t n,
				struct names_outcome *o)
{
	int fd = -1;
	_cleanup_free_ char *old = NULL;
	o->status =
	    rootfs_file_engine_open(b->mounted[f], in->oci_id, file_name[f], &fd, &old, &o->why);
	if (o->status != 0)
		return;
	_cleanup_free_ char *text = compose(in, b, f, results, n, old);
	if (strcmp(text, old) == 0 || rootfs_file_engine_write(fd, text, &o->why) == 0)
		o->where = xasprintf("rewrote the engine's %s in place", b->mounted[f]);
	else
		o->status = -1;
	close(fd);
}

static void bind_own_file(const struct names_input *in, const struct names_bundle *b,
			  enum names_file f, json *const *results, size_t n,
			  struct names_outcome *o)
{
	_cleanup_free_ char *text = compose(in, b, f, results, n, NULL);
	_cleanup_close_ int tree = rootfs_file_private(text, map_root(in->pid, "uid_map"),
						       map_root(in->pid, "gid_map"), &o->why);
	if (tree < 0) {
		o->status = -1;
		return;
	}
	const struct rootfs_target t = {
	    .pid = in->pid,
	    .root = b->root,
	    .dir = "etc",
	    .name = file_name[f],
	};
	o->status = rootfs_file_bind(&t, tree, &o->why);
	if (o->status == 0)
		o->where =
		    xstrdup("bind-mounted read-only (a file of cnihook's on a tmpfs of its own)");
}

static int read_bundle(const char *bundle, struct names_bundle *b, char **err)
{
	_cleanup_free_ char *path = xasprintf("%s/config.json", bundle);
	_cleanup_free_ char *text = NULL;
	size_t len;
	if (read_file(path, 16 * 1024 * 1024, &text, &len, NULL, err) < 0)
		return -1;
	_cleanup_json_ json *config = NULL;
	if (json_parse_with(text, len, path, &util_json, &config, err) < 0)
		return -1;
	return names_bundle_parse(config, bundle, b, err);
}

void names_apply(const struct names_input *in, struct names_outcome out[2])
{
	enum names_mode m[2];
	for (int f = 0; f < 2; f++) {
		out[f] = (struct names_outcome){.status = 2};
		m[f] = names_mode_for(in->mode[f], in->req);
	}
	if (m[0] == NAMES_OFF && m[1] == NAMES_OFF)
		return;
	/* The results parsed once, for the question and for both files. */
	json **results = ordered_results(in);
	bool dns = false;
	for (size_t i = 0; i < in->n && !dns; i++)
		dns = has_dns(results[i]);
	const char *key;
	bool overrides = names_request_any(in->req, &key) && strcmp(key, ANN_DNS) != 0;
	struct names_bundle b = {0};
	_cleanup_free_ char *err = NULL;
	int bundle = 0; /* 0 not read yet, 1 read, -1 unreadable */
	for (int f = 0; f < 2; f++) {
		struct names_outcome *o = &out[f];
		bool asked = f == NAMES_RESOLV_CONF ? dns || overrides : dns;
		if (m[f] == NAMES_OFF || (m[f] == NAMES_AUTO && !asked))
			continue;
		if (bundle == 0)
			bundle = read_bundle(in->bundle, &b, &err) < 0 ? -1 : 1;
		if (bundle < 0) {
			o->status = -1;
			o->why = xstrdup(err);
		} else if (b.other[f]) {
			o->status = 1;
			o->why = xasprintf("config.json mounts something other than a file at %s",
					   file_dest[f]);
		} else if (b.mounted[f] && b.ro[f]) {
			o->status = 1;
			o->why = xasprintf("config.json mounts %s read-only at %s: not a file to "
					   "rewrite",
					   b.mounted[f], file_dest[f]);
		} else if (b.mounted[f]) {
			rewrite_engine_file(in, &b, f, results, in->n, o);
		} else {
			bind_own_file(in, &b, f, results, in->n, o);
		}
	}
	free_results(results, in->n);
	names_bundle_free(&b);
}

void names_outcome_free(struct names_outcome out[2])
{
	for (int f = 0; f < 2; f++) {
		free(out[f].where);
		free(out[f].why);
		out[f] = (struct names_outcome){0};
	}
}

void names_remove(const char *state_dir, const char *id)
{
	for (int f = 0; f < 2; f++) {
		_cleanup_free_ char *path = layout_names_file(state_dir, id, file_name[f]);
		unlink(path);
	}
}
