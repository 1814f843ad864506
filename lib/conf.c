/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Network configuration (spec section 1, "Network configuration format"):
 * configuration lists, single-plugin configurations wrapped into a list of
 * one, and the configuration directory.
 */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "internal.h"

/* Larger configuration files are refused rather than read into memory. */
#define CONF_MAX_SIZE ((size_t)16 << 20)

static const char *const conf_extensions[] = {".conflist", ".conf", ".json"};

struct confdir_entry {
	char *path;
	cnirt_netlist *list; /* NULL when the file failed to load */
	cnirt_error *err;
};

struct cnirt_confdir {
	char *dir; /* as given to cnirt_confdir_scan(), for messages */
	struct confdir_entry *entries;
	size_t n;
};

/* What the caller expects the bytes to hold. */
enum conf_kind {
	CONF_ANY,	  /* decided by content: `plugins` present -> list */
	CONF_LIST,	  /* a `.conflist`: must be a list */
	CONF_LIST_FOLDER, /* a `.conflist` file: `plugins` may come from its folder */
	CONF_SINGLE,	  /* a single plugin configuration only */
};

static int field_error(cnirt_error **err, int code, const char *prefix, const char *field,
		       const char *fmt, ...) PRINTF_LIKE(5, 6);

/* `field "<prefix><field>": <problem>` */
static int field_error(cnirt_error **err, int code, const char *prefix, const char *field,
		       const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	_cleanup_free_ char *problem = xvasprintf(fmt, ap);
	va_end(ap);
	return error_set(err, code, "field \"%s%s\": %s", prefix, field, problem);
}

/* A string field. Absent: 0 with *out NULL, or an error when required. */
static int get_string(const json *o, const char *prefix, const char *key, bool required,
		      const char **out, cnirt_error **err)
{
	const json *v = json_obj_get(o, key);
	if (v == NULL) {
		if (required)
			return field_error(err, CNIRT_ERR_INVALID_CONFIG, prefix, key, "missing");
		*out = NULL;
		return 0;
	}
	if (!json_is_string(v))
		return field_error(err, CNIRT_ERR_INVALID_CONFIG, prefix, key,
				   "must be a string, not %s", json_type_name(v));
	if (json_str(v) == NULL)
		return field_error(err, CNIRT_ERR_INVALID_CONFIG, prefix, key,
				   "contains a NUL byte");
	*out = json_str(v);
	return 0;
}

/*
 * disableCheck / disableGC: a boolean. Like the reference library, the
 * strings "true" and "false" (in any case) are accepted too.
 */
static int get_flag(const json *o, const char *key, bool *out, cnirt_error **err)
{
	const json *v = json_obj_get(o, key);
	if (v == NULL) {
		*out = false;
		return 0;
	}
	if (v->type == JSON_TRUE || v->type == JSON_FALSE) {
		*out = v->type == JSON_TRUE;
		return 0;
	}
	const char *s = json_str(v);
	if (s && strcasecmp(s, "true") == 0) {
		*out = true;
		return 0;
	}
	if (s && strcasecmp(s, "false") == 0) {
		*out = false;
		return 0;
	}
	return field_error(err, CNIRT_ERR_INVALID_CONFIG, "", key, "must be true or false");
}

static char *supported_list(void)
{
	struct buf b = {0};
	const char *const *v = cnirt_supported_versions();
	for (size_t i = 0; v[i]; i++)
		buf_printf(&b, "%s%s", i ? ", " : "", v[i]);
	return buf_steal(&b, NULL);
}

static int check_version_text(const char *v, const char *field, cnirt_error **err)
{
	unsigned a, b, c;
	if (version_parse(v, &a, &b, &c) < 0)
		return field_error(err, CNIRT_ERR_INVALID_CONFIG, "", field,
				   "\"%s\" is not a version (expected X.Y.Z)", v);
	return 0;
}

/*
 * cniVersion and cniVersions. The effective version is the highest version
 * this library supports among the entries of `cniVersions` and `cniVersion`
 * (the reference library also counts `cniVersion` as a candidate); without
 * `cniVersions` it is `cniVersion`, which must then be supported.
 */
static int parse_versions(const json *root, char **cni_version, char **effective, cnirt_error **err)
{
	const char *cv;
	if (get_string(root, "", "cniVersion", false, &cv, err) < 0)
		return -1;
	if (cv && check_version_text(cv, "cniVersion", err) < 0)
		return -1;

	const json *vs = json_obj_get(root, "cniVersions");
	const char *best = NULL;
	if (vs == NULL) {
		if (cv == NULL)
			return field_error(err, CNIRT_ERR_INVALID_CONFIG, "", "cniVersion",
					   "missing");
		if (!version_is_supported(cv)) {
			_cleanup_free_ char *sup = supported_list();
			return field_error(err, CNIRT_ERR_INCOMPATIBLE_VERSION, "", "cniVersion",
					   "version \"%s\" is not supported (supported: %s)", cv,
					   sup);
		}
		best = cv;
	} else {
		if (vs->type != JSON_ARRAY)
			return field_error(err, CNIRT_ERR_INVALID_CONFIG, "", "cniVersions",
					   "must be an array of version strings, not %s",
					   json_type_name(vs));
		_cleanup_(buf_free) struct buf seen = {0};
		for (size_t i = 0; i < vs->u.array.n; i++) {
			const char *v = json_str(vs->u.array.v[i]);
			_cleanup_free_ char *field = xasprintf("cniVersions[%zu]", i);
			if (v == NULL)
				return field_error(err, CNIRT_ERR_INVALID_CONFIG, "", field,
						   "must be a string");
			if (check_version_text(v, field, err) < 0)
				return -1;
			buf_printf(&seen, "%s\"%s\"", i ? ", " : "", v);
			if (version_is_supported(v) &&
			    (!best || cnirt_version_compare(v, best) > 0))
				best = v;
		}
		if (cv && version_is_supported(cv) &&
		    (!best || cnirt_version_compare(cv, best) > 0))
			best = cv;
		if (best == NULL) {
			_cleanup_free_ char *sup = supported_list();
			if (cv)
				buf_printf(&seen, "%s\"%s\" (cniVersion)", seen.len ? ", " : "",
					   cv);
			return field_error(err, CNIRT_ERR_INCOMPATIBLE_VERSION, "", "cniVersions",
					   "none of [%s] is supported (supported: %s)",
					   seen.data ? seen.data : "", sup);
		}
	}
	*cni_version = cv ? xstrdup(cv) : NULL;
	*effective = xstrdup(best);
	return 0;
}

/* One plugin configuration object: `type` and `capabilities`. */
static int check_plugin(const json *p, const char *prefix, const char **type, cnirt_error **err)
{
	const char *t;
	if (get_string(p, prefix, "type", true, &t, err) < 0)
		return -1;
	if (*t == '\0')
		return field_error(err, CNIRT_ERR_INVALID_CONFIG, prefix, "type", "is empty");
	if (strchr(t, '/'))
		return field_error(err, CNIRT_ERR_INVALID_CONFIG, prefix, "type",
				   "must not contain '/'");
	if (strcmp(t, ".") == 0 || strcmp(t, "..") == 0)
		return field_error(err, CNIRT_ERR_INVALID_CONFIG, prefix, "type",
				   "must not be \".\" or \"..\"");

	const json *caps = json_obj_get(p, "capabilities");
	if (caps) {
		if (caps->type != JSON_OBJECT)
			return field_error(err, CNIRT_ERR_INVALID_CONFIG, prefix, "capabilities",
					   "must be an object, not %s", json_type_name(caps));
		for (size_t i = 0; i < caps->u.object.n; i++) {
			const json *v = caps->u.object.v[i];
			if (v->type == JSON_TRUE || v->type == JSON_FALSE)
				continue;
			_cleanup_free_ char *field =
			    xasprintf("capabilities.%s", caps->u.object.k[i]);
			return field_error(err, CNIRT_ERR_INVALID_CONFIG, prefix, field,
					   "must be true or false, not %s", json_type_name(v));
		}
	}
	*type = t;
	return 0;
}

static void add_plugin(cnirt_netlist *l, const json *conf, const char *type)
{
	struct netlist_plugin *p = &l->plugins[l->n_plugins++];
	p->type = xstrdup(type);
	p->conf = json_dup(conf);
}

static int parse_tree(const json *root, enum conf_kind kind, cnirt_netlist *l, cnirt_error **err)
{
	if (root->type != JSON_OBJECT)
		return error_set(err, CNIRT_ERR_INVALID_CONFIG,
				 "network configuration must be a JSON object, not %s",
				 json_type_name(root));

	const char *name;
	if (get_string(root, "", "name", true, &name, err) < 0)
		return -1;
	if (cnirt_check_network_name(name, err) < 0)
		return error_prefix(err, "field \"name\"");
	l->name = xstrdup(name);
	if (parse_versions(root, &l->cni_version, &l->effective_version, err) < 0)
		return -1;

	const json *plugins = json_obj_get(root, "plugins");
	if (plugins && kind == CONF_SINGLE)
		return field_error(err, CNIRT_ERR_INVALID_CONFIG, "", "plugins",
				   "present: this is a configuration list, not a single plugin "
				   "configuration");
	if (plugins == NULL) {
		if (kind == CONF_LIST_FOLDER) {
			/* libcni 1.3: a list whose plugins all come from its
			 * plugin folder (checked by the caller once loaded) */
			if (get_flag(root, "disableCheck", &l->disable_check, err) < 0 ||
			    get_flag(root, "disableGC", &l->disable_gc, err) < 0 ||
			    get_flag(root, "loadOnlyInlinedPlugins", &l->load_only_inlined, err) <
				0)
				return -1;
			if (l->load_only_inlined)
				return field_error(err, CNIRT_ERR_INVALID_CONFIG, "", "plugins",
						   "missing while loadOnlyInlinedPlugins is true");
			return 0;
		}
		if (kind == CONF_LIST)
			return field_error(err, CNIRT_ERR_INVALID_CONFIG, "", "plugins",
					   "missing (a .conflist file holds a configuration list)");
		/*
		 * A single plugin configuration: a list of one with the same
		 * name and version. Like the reference's ConfListFromConf, the
		 * list-level flags keep their defaults.
		 */
		const char *type;
		if (check_plugin(root, "", &type, err) < 0)
			return -1;
		l->plugins = xcalloc(1, sizeof(*l->plugins));
		add_plugin(l, root, type);
		return 0;
	}

	if (get_flag(root, "disableCheck", &l->disable_check, err) < 0 ||
	    get_flag(root, "disableGC", &l->disable_gc, err) < 0 ||
	    get_flag(root, "loadOnlyInlinedPlugins", &l->load_only_inlined, err) < 0)
		return -1;
	if (plugins->type != JSON_ARRAY)
		return field_error(err, CNIRT_ERR_INVALID_CONFIG, "", "plugins",
				   "must be an array, not %s", json_type_name(plugins));
	if (plugins->u.array.n == 0)
		return field_error(err, CNIRT_ERR_INVALID_CONFIG, "", "plugins",
				   "must hold at least one plugin");
	l->plugins = xcalloc(plugins->u.array.n, sizeof(*l->plugins));
	for (size_t i = 0; i < plugins->u.array.n; i++) {
		const json *p = plugins->u.array.v[i];
		_cleanup_free_ char *prefix = xasprintf("plugins[%zu].", i);
		if (p->type != JSON_OBJECT)
			return error_set(err, CNIRT_ERR_INVALID_CONFIG,
					 "field \"plugins[%zu]\": must be an object, not %s", i,
					 json_type_name(p));
		const char *type;
		if (check_plugin(p, prefix, &type, err) < 0)
			return -1;
		add_plugin(l, p, type);
	}
	return 0;
}

static int netlist_parse(const char *bytes, size_t len, const char *origin, enum conf_kind kind,
			 cnirt_netlist **out, cnirt_error **err)
{
	_cleanup_json_ json *root = NULL;
	cnirt_netlist *l = xzalloc(sizeof(*l));
	int r = json_read_parse(bytes, len, "network configuration", &root, err);
	if (r == 0)
		r = parse_tree(root, kind, l, err);
	if (r < 0) {
		cnirt_netlist_free(l);
		if (origin)
			error_prefix(err, "%s", origin);
		return -1;
	}
	if (json_obj_get(root, "plugins") == NULL && kind != CONF_LIST_FOLDER) {
		/* A single plugin configuration is kept as the list it stands
		 * for, as the reference's ConfListFromConf does, so that every
		 * runtime reading the cache finds a list. The plugin's own bytes
		 * are kept as they are; name and version are validated text. */
		struct buf b = {0};
		buf_printf(&b, "{\"cniVersion\":\"%s\",\"name\":\"%s\",\"plugins\":[",
			   l->effective_version, l->name);
		buf_append(&b, bytes, len);
		buf_appends(&b, "]}");
		l->bytes = buf_steal(&b, &l->len);
	} else {
		l->bytes = xmemdup(bytes, len);
		l->len = len;
	}
	l->path = origin ? xstrdup(origin) : NULL;
	*out = l;
	return 0;
}

CNIRT_EXPORT int cnirt_netlist_parse(const char *bytes, size_t len, const char *origin,
				     cnirt_netlist **out, cnirt_error **err)
{
	ERR_OUT_INIT(err);
	return netlist_parse(bytes ? bytes : "", bytes ? len : 0, origin, CONF_ANY, out, err);
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Read a whole regular file of at most CONF_MAX_SIZE bytes. */
static int read_conf_file(int dirfd, const char *name, const char *path, char **out, size_t *len,
			  cnirt_error **err)
{
	_cleanup_close_ int fd = TEMP_FAILURE_RETRY(openat(dirfd, name, O_RDONLY | O_CLOEXEC));
	if (fd < 0)
		return error_set_errno(err, CNIRT_ERR_IO, errno, "%s: open", path);
	struct stat st;
	if (fstat(fd, &st) < 0)
		return error_set_errno(err, CNIRT_ERR_IO, errno, "%s: stat", path);
	if (!S_ISREG(st.st_mode))
		return error_set(err, CNIRT_ERR_IO, "%s: not a regular file", path);
	if ((unsigned long long)st.st_size > CONF_MAX_SIZE)
		return error_set(err, CNIRT_ERR_IO, "%s: larger than %zu MiB", path,
				 CONF_MAX_SIZE >> 20);

	/* The size may change while reading: the cap is checked again. */
	_cleanup_(buf_free) struct buf b = {0};
	char chunk[8192];
	for (;;) {
		ssize_t n = TEMP_FAILURE_RETRY(read(fd, chunk, sizeof(chunk)));
		if (n < 0)
			return error_set_errno(err, CNIRT_ERR_IO, errno, "%s: read", path);
		if (n == 0)
			break;
		if (b.len + (size_t)n > CONF_MAX_SIZE)
			return error_set(err, CNIRT_ERR_IO, "%s: larger than %zu MiB", path,
					 CONF_MAX_SIZE >> 20);
		buf_append(&b, chunk, (size_t)n);
	}
	*out = buf_steal(&b, len);
	return 0;
}

/* The names of a listed configuration directory's entries, in name
 * order: a list's plugin folder is looked for only when an entry of its
 * name is there (and then is opened, so that a file of that name fails the
 * list as before). */
struct folders {
	char **names;
	size_t n;
};
static int list_conf_names(int dirfd, const char *dir, const char *only_ext, char ***out,
			   size_t *n_out, struct folders *folders, cnirt_error **err);
static void free_names(char **names, size_t n);
static int cmp_names(const void *a, const void *b);

/* Replace l->bytes by its text with `plugins` extended by `extra`. */
static void bytes_append_plugins(cnirt_netlist *l, json *const *extra, size_t n)
{
	_cleanup_json_ json *root = NULL;
	_cleanup_error_ cnirt_error *e = NULL;
	if (json_read_parse(l->bytes, l->len, "network configuration", &root, &e) < 0)
		abort(); /* parsed before */
	json *plugins = json_obj_get(root, "plugins");
	if (plugins == NULL) {
		plugins = json_new(JSON_ARRAY);
		json_obj_set(root, "plugins", plugins);
	}
	for (size_t i = 0; i < n; i++)
		json_arr_append(plugins, json_dup(extra[i]));
	free(l->bytes);
	l->bytes = json_gen(root, false, &l->len);
}

/*
 * libcni 1.3's plugin folder: the plugin configurations of
 * <directory of the list file>/<network name>/ ending in .conf, in file name order,
 * appended to the list's chain (and to its bytes, so that the cache holds
 * the whole chain). No folder: nothing. Each file is one plugin
 * configuration object with a `type`; its name and version are not read.
 */
static int load_plugin_folder(int dirfd, const char *name, const char *path, cnirt_netlist *l,
			      cnirt_error **err)
{
	const char *slash = strrchr(name, '/');
	_cleanup_free_ char *rel =
	    slash ? xasprintf("%.*s/%s", (int)(slash - name), name, l->name) : xstrdup(l->name);
	const char *pslash = strrchr(path, '/');
	_cleanup_free_ char *shown =
	    pslash ? xasprintf("%.*s/%s", (int)(pslash - path), path, l->name) : xstrdup(l->name);
	_cleanup_close_ int fd =
	    TEMP_FAILURE_RETRY(openat(dirfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		return error_set_errno(err, CNIRT_ERR_IO, errno, "plugin folder %s", shown);
	}
	char **names = NULL;
	size_t n = 0;
	if (list_conf_names(fd, shown, ".conf", &names, &n, NULL, err) < 0)
		return -1;
	json **confs = xcalloc(n ? n : 1, sizeof(*confs));
	int r = 0;
	for (size_t i = 0; i < n && r == 0; i++) {
		_cleanup_free_ char *file = xasprintf("%s/%s", shown, names[i]);
		_cleanup_free_ char *bytes = NULL;
		size_t len;
		const char *type;
		r = read_conf_file(fd, names[i], file, &bytes, &len, err);
		if (r == 0 &&
		    json_read_parse(bytes, len, "plugin configuration", &confs[i], err) < 0)
			r = error_prefix(err, "%s", file);
		if (r == 0 && confs[i]->type != JSON_OBJECT)
			r = error_set(err, CNIRT_ERR_INVALID_CONFIG,
				      "%s: a plugin configuration must be a JSON object, not %s",
				      file, json_type_name(confs[i]));
		if (r == 0 && check_plugin(confs[i], "", &type, err) < 0)
			r = error_prefix(err, "%s", file);
		if (r == 0) {
			l->plugins =
			    xreallocarray(l->plugins, l->n_plugins + 1, sizeof(*l->plugins));
			add_plugin(l, confs[i], type);
		}
	}
	if (r == 0 && n > 0)
		bytes_append_plugins(l, confs, n);
	for (size_t i = 0; i < n; i++)
		json_free(confs[i]);
	free(confs);
	free_names(names, n);
	return r;
}

/* Whether the list file `name` may have a plugin folder for the network
 * `network`: not when its directory was listed (`folders`) without it. */
static bool may_have_folder(const struct folders *folders, const char *name, const char *network)
{
	if (folders == NULL || strchr(name, '/'))
		return true;
	return folders->n > 0 &&
	       bsearch(&network, folders->names, folders->n, sizeof(char *), cmp_names) != NULL;
}

/* Load the file `name` under dirfd; `folders`: its directory's listing, or
 * NULL. */
static int load_at(int dirfd, const char *name, const char *path, const struct folders *folders,
		   cnirt_netlist **out, cnirt_error **err)
{
	_cleanup_free_ char *bytes = NULL;
	size_t len;
	if (read_conf_file(dirfd, name, path, &bytes, &len, err) < 0)
		return -1;
	/*
	 * The reference decides by extension: `.conflist` is a list,
	 * `.conf`/`.json` a single plugin. A `.conflist` must be a list here
	 * too; other files are taken for what their content is.
	 */
	if (!has_suffix(path, ".conflist"))
		return netlist_parse(bytes, len, path, CONF_ANY, out, err);
	cnirt_netlist *l = NULL;
	if (netlist_parse(bytes, len, path, CONF_LIST_FOLDER, &l, err) < 0)
		return -1;
	if (!l->load_only_inlined && may_have_folder(folders, name, l->name) &&
	    load_plugin_folder(dirfd, name, path, l, err) < 0) {
		cnirt_netlist_free(l);
		return -1;
	}
	if (l->n_plugins == 0) {
		int r = error_set(err, CNIRT_ERR_INVALID_CONFIG,
				  "%s: field \"plugins\": missing (a .conflist file holds a "
				  "configuration list) and its plugin folder %s/ has no plugin",
				  path, l->name);
		cnirt_netlist_free(l);
		return r;
	}
	*out = l;
	return 0;
}

CNIRT_EXPORT int cnirt_netlist_load_file(const char *path, cnirt_netlist **out, cnirt_error **err)
{
	ERR_OUT_INIT(err);
	if (path == NULL || *path == '\0')
		return error_set(err, CNIRT_ERR_IO, "network configuration file: empty path");
	return load_at(AT_FDCWD, path, path, NULL, out, err);
}

CNIRT_EXPORT void cnirt_netlist_free(cnirt_netlist *l)
{
	if (l == NULL)
		return;
	for (size_t i = 0; i < l->n_plugins; i++) {
		free(l->plugins[i].type);
		json_free(l->plugins[i].conf);
	}
	free(l->plugins);
	free(l->name);
	free(l->cni_version);
	free(l->effective_version);
	free(l->bytes);
	free(l->path);
	free(l);
}

CNIRT_EXPORT const char *cnirt_netlist_name(const cnirt_netlist *l)
{
	return l->name;
}

CNIRT_EXPORT const char *cnirt_netlist_version(const cnirt_netlist *l)
{
	return l->effective_version;
}

CNIRT_EXPORT bool cnirt_netlist_disable_check(const cnirt_netlist *l)
{
	return l->disable_check;
}

CNIRT_EXPORT bool cnirt_netlist_disable_gc(const cnirt_netlist *l)
{
	return l->disable_gc;
}

CNIRT_EXPORT size_t cnirt_netlist_plugin_count(const cnirt_netlist *l)
{
	return l->n_plugins;
}

CNIRT_EXPORT const char *cnirt_netlist_plugin_type(const cnirt_netlist *l, size_t i)
{
	return i < l->n_plugins ? l->plugins[i].type : NULL;
}

CNIRT_EXPORT bool cnirt_netlist_plugin_has_capability(const cnirt_netlist *l, size_t i,
						      const char *cap)
{
	if (i >= l->n_plugins || cap == NULL)
		return false;
	const json *v = json_obj_get(json_obj_get(l->plugins[i].conf, "capabilities"), cap);
	return v && v->type == JSON_TRUE;
}

CNIRT_EXPORT bool cnirt_netlist_has_capability(const cnirt_netlist *l, const char *cap)
{
	for (size_t i = 0; i < l->n_plugins; i++)
		if (cnirt_netlist_plugin_has_capability(l, i, cap))
			return true;
	return false;
}

CNIRT_EXPORT const char *cnirt_netlist_bytes(const cnirt_netlist *l, size_t *len)
{
	if (len)
		*len = l->len;
	return l->bytes;
}

CNIRT_EXPORT const char *cnirt_netlist_path(const cnirt_netlist *l)
{
	return l->path;
}

/* ------------------------------------------------------------ directory */

static bool is_conf_name(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(conf_extensions); i++)
		if (has_suffix(name, conf_extensions[i]))
			return true;
	return false;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Whether the directory entry may name a plugin folder. */
static bool folder_name(const char *name)
{
	return strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

/* Whether the entry is a configuration: regular files and symbolic links
 * to them; a dangling link is kept, so that it is reported as broken.
 * The type the listing gave spares the stat but for links and the
 * unknown. */
static bool conf_type(int dirfd, const char *name, unsigned char type)
{
	struct stat st;
	if (type == DT_REG)
		return true;
	if (type != DT_LNK && type != DT_UNKNOWN)
		return false;
	return fstatat(dirfd, name, &st, 0) < 0 || S_ISREG(st.st_mode);
}

/* The configuration file names of the directory (those ending in
 * `only_ext` when not NULL), sorted; and when `folders` is not NULL, the
 * names of all its entries. The entries are read with
 * getdents64() from dirfd itself (from its start): opendir() on a copy
 * of it cost four system calls and a 32 KiB buffer more. */
static int list_conf_names(int dirfd, const char *dir, const char *only_ext, char ***out,
			   size_t *n_out, struct folders *folders, cnirt_error **err)
{
	char buf[8192] __attribute__((aligned(8)));
	char **names = NULL;
	size_t n = 0;
	ssize_t got = lseek(dirfd, 0, SEEK_SET) < 0 ? -1 : 1;
	while (got > 0) {
		got = getdents64(dirfd, buf, sizeof(buf));
		if (got < 0 && errno == EINTR) {
			got = 1;
			continue;
		}
		for (ssize_t off = 0; off < got;) {
			const struct dirent64 *de = (const struct dirent64 *)(void *)(buf + off);
			off += de->d_reclen;
			if (folders && folder_name(de->d_name)) {
				folders->names =
				    xreallocarray(folders->names, folders->n + 1, sizeof(char *));
				folders->names[folders->n++] = xstrdup(de->d_name);
			}
			if (only_ext ? !has_suffix(de->d_name, only_ext)
				     : !is_conf_name(de->d_name))
				continue;
			if (!conf_type(dirfd, de->d_name, de->d_type))
				continue;
			names = xreallocarray(names, n + 1, sizeof(*names));
			names[n++] = xstrdup(de->d_name);
		}
	}
	if (got < 0) {
		int e = errno;
		free_names(names, n);
		if (folders) {
			free_names(folders->names, folders->n);
			*folders = (struct folders){0};
		}
		return error_set_errno(err, CNIRT_ERR_IO, e, "%s: read", dir);
	}
	if (n > 1)
		qsort(names, n, sizeof(*names), cmp_names);
	if (folders && folders->n > 1)
		qsort(folders->names, folders->n, sizeof(char *), cmp_names);
	*out = names;
	*n_out = n;
	return 0;
}

CNIRT_EXPORT int cnirt_confdir_scan(const char *dir, cnirt_confdir **out, cnirt_error **err)
{
	ERR_OUT_INIT(err);
	if (dir == NULL || *dir == '\0')
		return error_set(err, CNIRT_ERR_IO, "configuration directory: empty path");
	_cleanup_close_ int dirfd =
	    TEMP_FAILURE_RETRY(open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	if (dirfd < 0)
		return error_set_errno(err, CNIRT_ERR_IO, errno, "configuration directory %s", dir);
	char **names = NULL;
	size_t n = 0;
	struct folders folders = {0};
	if (list_conf_names(dirfd, dir, NULL, &names, &n, &folders, err) < 0)
		return -1;

	cnirt_confdir *d = xzalloc(sizeof(*d));
	d->dir = xstrdup(dir);
	d->entries = xcalloc(n ? n : 1, sizeof(*d->entries));
	bool slash = dir[strlen(dir) - 1] == '/';
	for (size_t i = 0; i < n; i++) {
		struct confdir_entry *e = &d->entries[d->n++];
		e->path = xasprintf("%s%s%s", dir, slash ? "" : "/", names[i]);
		if (load_at(dirfd, names[i], e->path, &folders, &e->list, &e->err) < 0)
			e->list = NULL;
	}
	free_names(names, n);
	free_names(folders.names, folders.n);
	*out = d;
	return 0;
}

CNIRT_EXPORT size_t cnirt_confdir_count(const cnirt_confdir *d)
{
	return d->n;
}

CNIRT_EXPORT const char *cnirt_confdir_path(const cnirt_confdir *d, size_t i)
{
	return i < d->n ? d->entries[i].path : NULL;
}

CNIRT_EXPORT const cnirt_netlist *cnirt_confdir_list(const cnirt_confdir *d, size_t i)
{
	return i < d->n ? d->entries[i].list : NULL;
}

CNIRT_EXPORT const cnirt_error *cnirt_confdir_error(const cnirt_confdir *d, size_t i)
{
	return i < d->n ? d->entries[i].err : NULL;
}

CNIRT_EXPORT void cnirt_confdir_free(cnirt_confdir *d)
{
	if (d == NULL)
		return;
	for (size_t i = 0; i < d->n; i++) {
		free(d->entries[i].path);
		cnirt_netlist_free(d->entries[i].list);
		cnirt_error_free(d->entries[i].err);
	}
	free(d->entries);
	free(d->dir);
	free(d);
}

static void confdir_freep(cnirt_confdir **d)
{
	cnirt_confdir_free(*d);
}

/* A deep copy of a list. */
static cnirt_netlist *netlist_dup(const cnirt_netlist *l)
{
	cnirt_netlist *c = xzalloc(sizeof(*c));
	c->name = xstrdup(l->name);
	c->cni_version = xstrdup(l->cni_version);
	c->effective_version = xstrdup(l->effective_version);
	c->disable_check = l->disable_check;
	c->disable_gc = l->disable_gc;
	c->load_only_inlined = l->load_only_inlined;
	c->plugins = xcalloc(l->n_plugins ? l->n_plugins : 1, sizeof(*c->plugins));
	for (size_t i = 0; i < l->n_plugins; i++) {
		c->plugins[i].type = xstrdup(l->plugins[i].type);
		c->plugins[i].conf = json_dup(l->plugins[i].conf);
	}
	c->n_plugins = l->n_plugins;
	c->bytes = xmalloc(l->len + 1);
	memcpy(c->bytes, l->bytes, l->len);
	c->bytes[l->len] = '\0';
	c->len = l->len;
	c->path = xstrdup(l->path);
	return c;
}

static bool is_conflist(const char *path)
{
	size_t n = strlen(path);
	return n >= 9 && strcmp(path + n - 9, ".conflist") == 0;
}

/* The entry holding the network `name` (a .conflist before a .conf or
 * .json, then the first file in name order), or
 * -1 with the not-found error naming the broken files. */
static long confdir_lookup(const cnirt_confdir *d, const char *name, cnirt_error **err)
{
	if (cnirt_check_network_name(name, err) < 0)
		return -1;
	/* As the reference library looks a network up: the .conflist files
	 * first, then the single-plugin .conf and .json files, each in file
	 * name order. */
	for (int lists = 1; lists >= 0; lists--)
		for (size_t i = 0; i < d->n; i++)
			if (d->entries[i].list && is_conflist(d->entries[i].path) == lists &&
			    strcmp(d->entries[i].list->name, name) == 0)
				return (long)i;

	struct buf broken = {0};
	for (size_t i = 0; i < d->n; i++)
		if (d->entries[i].err)
			buf_printf(&broken, "%s%s", broken.len ? "; " : "",
				   cnirt_error_msg(d->entries[i].err));
	if (broken.len)
		error_set(err, CNIRT_ERR_INVALID_CONFIG,
			  "network \"%s\" not found in %s (broken files: %s)", name, d->dir,
			  broken.data);
	else
		error_set(err, CNIRT_ERR_INVALID_CONFIG, "network \"%s\" not found in %s", name,
			  d->dir);
	buf_free(&broken);
	return -1;
}

CNIRT_EXPORT int cnirt_confdir_get(const cnirt_confdir *d, const char *name, cnirt_netlist **out,
				   cnirt_error **err)
{
	ERR_OUT_INIT(err);
	long i = confdir_lookup(d, name, err);
	if (i < 0)
		return -1;
	*out = netlist_dup(d->entries[i].list);
	return 0;
}

CNIRT_EXPORT int cnirt_confdir_find(const char *dir, const char *name, cnirt_netlist **out,
				    cnirt_error **err)
{
	ERR_OUT_INIT(err);
	if (cnirt_check_network_name(name, err) < 0)
		return -1;
	_cleanup_(confdir_freep) cnirt_confdir *d = NULL;
	if (cnirt_confdir_scan(dir, &d, err) < 0)
		return -1;
	long i = confdir_lookup(d, name, err);
	if (i < 0)
		return -1;
	/* The entry is dropped with the directory: hand it out, no copy. */
	*out = TAKE_PTR(d->entries[i].list);
	return 0;
}

/* ------------------------------------------- capabilities, building, editing */

/* The capability `k` of plugin i's `capabilities` if declared true. */
static const char *capability_at(const cnirt_netlist *l, size_t i, size_t k)
{
	const json *caps = json_obj_get(l->plugins[i].conf, "capabilities");
	if (caps == NULL || caps->type != JSON_OBJECT || k >= caps->u.object.n ||
	    caps->u.object.v[k]->type != JSON_TRUE)
		return NULL;
	return caps->u.object.k[k];
}

/* The `want`-th distinct capability declared true by a plugin of the list,
 * in order of first declaration, or NULL. */
static const char *capabilities_walk(const cnirt_netlist *l, size_t want)
{
	size_t seen = 0;
	for (size_t i = 0; i < l->n_plugins; i++) {
		const json *caps = json_obj_get(l->plugins[i].conf, "capabilities");
		size_t n = caps && caps->type == JSON_OBJECT ? caps->u.object.n : 0;
		for (size_t k = 0; k < n; k++) {
			const char *cap = capability_at(l, i, k);
			bool dup = false;
			for (size_t j = 0; cap && j < i && !dup; j++)
				dup = cnirt_netlist_plugin_has_capability(l, j, cap);
			if (cap == NULL || dup)
				continue;
			if (seen++ == want)
				return cap;
		}
	}
	return NULL;
}

CNIRT_EXPORT size_t cnirt_netlist_capability_count(const cnirt_netlist *l)
{
	size_t n = 0;
	while (capabilities_walk(l, n))
		n++;
	return n;
}

CNIRT_EXPORT const char *cnirt_netlist_capability(const cnirt_netlist *l, size_t i)
{
	return capabilities_walk(l, i);
}

CNIRT_EXPORT int cnirt_netlist_from_conf(const char *bytes, size_t len, const char *origin,
					 cnirt_netlist **out, cnirt_error **err)
{
	ERR_OUT_INIT(err);
	return netlist_parse(bytes ? bytes : "", bytes ? len : 0, origin, CONF_SINGLE, out, err);
}

CNIRT_EXPORT int cnirt_netlist_inject(const cnirt_netlist *l, size_t plugin, const char *key,
				      const char *value_json, cnirt_netlist **out,
				      cnirt_error **err)
{
	ERR_OUT_INIT(err);
	if (l == NULL)
		return error_set(err, CNIRT_ERR_INVALID_CONFIG, "no network configuration given");
	if (plugin >= l->n_plugins)
		return error_set(err, CNIRT_ERR_INVALID_CONFIG,
				 "network \"%s\" has no plugin %zu (it has %zu)", l->name, plugin,
				 l->n_plugins);
	if (key == NULL || key[0] == '\0')
		return error_set(err, CNIRT_ERR_INVALID_CONFIG, "inject: empty key");
	_cleanup_json_ json *value = NULL;
	_cleanup_free_ char *what = xasprintf("value of \"%s\"", key);
	if (json_read_parse(value_json ? value_json : "", value_json ? strlen(value_json) : 0, what,
			    &value, err) < 0)
		return -1;
	if (value->type == JSON_NULL)
		return error_set(err, CNIRT_ERR_INVALID_CONFIG, "inject: \"%s\": value is null",
				 key);

	_cleanup_json_ json *root = NULL;
	if (json_read_parse(l->bytes, l->len, "network configuration", &root, err) < 0)
		return -1;
	json *plugins = json_obj_get(root, "plugins");
	if (plugins == NULL || plugins->type != JSON_ARRAY || plugin >= plugins->u.array.n) {
		/* a list with plugins from its folder keeps them in its bytes */
		return error_set(err, CNIRT_ERR_INVALID_CONFIG,
				 "network \"%s\": its bytes hold no plugin %zu", l->name, plugin);
	}
	json_obj_set(plugins->u.array.v[plugin], key, TAKE_PTR(value));
	size_t len;
	_cleanup_free_ char *text = json_gen(root, false, &len);
	cnirt_netlist *n = NULL;
	if (netlist_parse(text, len, l->path, CONF_LIST, &n, err) < 0)
		return error_prefix(err, "inject \"%s\" into plugin %zu", key, plugin);
	*out = n;
	return 0;
}
