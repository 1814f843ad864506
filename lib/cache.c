/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The result cache, in the reference library's format so that podman,
 * CRI-O and the reference CLI can tear down what we set up, and the other
 * way round: <cacheDir>/results/<network>-<containerID>-<ifname>, a JSON
 * object of kind "cniCacheV1". Unlike the reference, entries are written
 * atomically, the three names are validated on every operation, a corrupt
 * entry never blocks a DEL, and a file that is not a readable entry is
 * reported (cnirt_cache_list_damaged) rather than skipped in silence.
 */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "internal.h"

#define CACHE_KIND	    "cniCacheV1"
#define CACHE_RESULTS	    "results"
#define CACHE_MAX_SIZE	    ((size_t)64 << 20)
#define CACHE_MAX_SIZE_TEXT "64 MiB"

/* --------------------------------------------------------------- names */

/* The file name of an entry, after validating the three names. */
static int entry_name(const char *network, const char *container_id, const char *ifname, char **out,
		      cnirt_error **err)
{
	if (cnirt_check_network_name(network, err) < 0 ||
	    cnirt_check_container_id(container_id, err) < 0 || cnirt_check_ifname(ifname, err) < 0)
		return error_prefix(err, "cache entry");
	char *name = xasprintf("%s-%s-%s", network, container_id, ifname);
	if (strlen(name) > NAME_MAX) {
		error_set(err, CNIRT_ERR_INVALID_ENV,
			  "cache entry \"%s-%s-%s\": file name is longer than %d bytes", network,
			  container_id, ifname, NAME_MAX);
		free(name);
		return -1;
	}
	*out = name;
	return 0;
}

/* Who the entry file at `path` belongs to, compared with the attachment
 * (network, container_id, ifname). */
enum owner {
	OWNER_NONE,  /* no file, or not a readable cniCacheV1 entry */
	OWNER_SELF,  /* an entry of this attachment, or a legacy bare result */
	OWNER_OTHER, /* an entry of another attachment (its names in *other) */
};
static enum owner entry_owner(const char *path, const char *network, const char *container_id,
			      const char *ifname, char **other);
static bool same_file(const char *path, const struct cache_seen *seen);

static char *results_dir(const cnirt_ctx *ctx)
{
	return xasprintf("%s/" CACHE_RESULTS, ctx->cache_dir);
}

int cache_path(const cnirt_ctx *ctx, const char *network, const char *container_id,
	       const char *ifname, char **path, cnirt_error **err)
{
	_cleanup_free_ char *name = NULL;
	if (entry_name(network, container_id, ifname, &name, err) < 0)
		return -1;
	*path = xasprintf("%s/" CACHE_RESULTS "/%s", ctx->cache_dir, name);
	return 0;
}

char *cache_args_join(const cnirt_kv *args, size_t n)
{
	if (n == 0)
		return NULL;
	struct buf b = {0};
	for (size_t i = 0; i < n; i++) {
		if (i)
			buf_appends(&b, ";");
		buf_appends(&b, args[i].key ? args[i].key : "");
		buf_appends(&b, "=");
		buf_appends(&b, args[i].value ? args[i].value : "");
	}
	return buf_steal(&b, NULL);
}

/* --------------------------------------------------------------- write */

/* mkdir -p with mode 0700 for every directory created. A directory that
 * is there already costs one stat (every ADD asks, and it nearly always
 * is). */
static int mkdir_parents(const char *dir, cnirt_error **err)
{
	struct stat there;
	if (stat(dir, &there) == 0 && S_ISDIR(there.st_mode))
		return 0;
	_cleanup_free_ char *p = xstrdup(dir);
	size_t len = strlen(p);
	for (size_t i = 1; i <= len; i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		if (p[i - 1] == '/')
			continue;
		char saved = p[i];
		p[i] = '\0';
		if (mkdir(p, 0700) == 0) {
			/* whatever the umask */
			if (chmod(p, 0700) < 0)
				return error_set_errno(err, CNIRT_ERR_IO, errno,
						       "cache directory: chmod \"%s\"", p);
		} else {
			int e = errno;
			struct stat st;
			if (e != EEXIST)
				return error_set_errno(err, CNIRT_ERR_IO, e,
						       "cache directory: mkdir \"%s\"", p);
			if (stat(p, &st) < 0 || !S_ISDIR(st.st_mode))
				return error_set_errno(err, CNIRT_ERR_IO, ENOTDIR,
						       "cache directory: \"%s\"", p);
		}
		p[i] = saved;
	}
	return 0;
}

/*
 * Write `data` as <dir>/<name>: a temp file in the same directory, written
 * and flushed to disk (fdatasync), then renamed over the final name. The
 * rename is what makes the entry appear whole or not at all, to readers as
 * after a crash: the data is on disk before the name points at it, so a
 * crash can never leave a half-written entry under the final name.
 *
 * The directory is not synced after the rename: on ext4 that is a second
 * journal commit, 0.07 to 0.2 ms more per ADD (docs/benchmarks.md). What it
 * would buy is that the entry's name survives a crash that follows right
 * after; but after such a crash the container and its network namespace are
 * gone too, the hook's own record of the attachment drives the DEL, and GC
 * removes what is left: durability of the name is not needed, atomicity is.
 *
 * `dir` is created (mode 0700) when it does not exist. On failure the temp
 * file is removed and an existing entry is left untouched. A writer killed
 * before its rename leaves the temp file, named after the writer: the
 * hook's gc removes it once the writer is provably gone (file_temps_sweep).
 */
static int write_atomic(const char *dir, const char *name, const char *data, size_t len,
			cnirt_error **err)
{
	_cleanup_close_ int dfd = TEMP_FAILURE_RETRY(open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	if (dfd < 0 && errno == ENOENT) {
		if (mkdir_parents(dir, err) < 0)
			return -1;
		dfd = TEMP_FAILURE_RETRY(open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	}
	if (dfd < 0)
		return error_set_errno(err, CNIRT_ERR_IO, errno, "cache directory \"%s\"", dir);

	const char *step;
	int r = file_write_atomic_at(dfd, dir, name, data, len, 0600, true, &step);
	if (r < 0)
		return error_set_errno(err, CNIRT_ERR_IO, -r, "cache entry \"%s/%s\": %s", dir,
				       name, step);
	return 0;
}

/* The entry as the reference writes it: the fields of its cachedInfo, in
 * that order, with the same omitempty rules (netns, cniArgs, capabilityArgs
 * and result are left out when empty). */
static int entry_build(const cnirt_netlist *l, const cnirt_attachment *a, const json *result,
		       json **out, cnirt_error **err)
{
	_cleanup_json_ json *caps = NULL;
	if (a->capability_args) {
		if (json_read_parse(a->capability_args, strlen(a->capability_args),
				    "capabilityArgs", &caps, err) < 0)
			return -1;
		if (caps->type != JSON_OBJECT && caps->type != JSON_NULL)
			return error_set(err, CNIRT_ERR_INVALID_CONFIG,
					 "capabilityArgs: not a JSON object");
	}
	if (result && result->type != JSON_OBJECT)
		return error_set(err, CNIRT_ERR_DECODE, "result: not a JSON object");

	_cleanup_json_ json *o = json_new(JSON_OBJECT);
	/* With config args, the list as the plugins saw it: a DEL from the
	 * cache passes them too. */
	_cleanup_json_ json *config_args = NULL;
	if (derive_parse_config_args(a->config_args, &config_args, err) < 0)
		return -1;
	size_t bytes_len = l->len;
	_cleanup_free_ char *with_args =
	    config_args ? derive_list_bytes(l, config_args, &bytes_len) : NULL;
	const char *bytes = with_args ? with_args : l->bytes ? l->bytes : "";
	_cleanup_free_ char *config = base64_encode(bytes, bytes_len);
	json_obj_set(o, "kind", json_new_string(CACHE_KIND));
	json_obj_set(o, "containerId", json_new_string(a->container_id));
	json_obj_set(o, "config", json_new_string(config));
	json_obj_set(o, "ifName", json_new_string(a->ifname));
	json_obj_set(o, "networkName", json_new_string(l->name));
	if (a->netns && a->netns[0])
		json_obj_set(o, "netns", json_new_string(a->netns));
	if (a->n_args > 0) {
		json *args = json_new(JSON_ARRAY);
		for (size_t i = 0; i < a->n_args; i++) {
			json *pair = json_new(JSON_ARRAY);
			const char *k = a->args[i].key, *v = a->args[i].value;
			json_arr_append(pair, json_new_string(k ? k : ""));
			json_arr_append(pair, json_new_string(v ? v : ""));
			json_arr_append(args, pair);
		}
		json_obj_set(o, "cniArgs", args);
	}
	if (caps && caps->type == JSON_OBJECT && caps->u.object.n > 0)
		json_obj_set(o, "capabilityArgs", TAKE_PTR(caps));
	if (result && result->u.object.n > 0)
		json_obj_set(o, "result", json_dup(result));
	*out = TAKE_PTR(o);
	return 0;
}

int cache_write(const cnirt_ctx *ctx, const cnirt_netlist *l, const cnirt_attachment *a,
		const json *result, cnirt_error **err)
{
	_cleanup_free_ char *name = NULL;
	if (entry_name(l->name, a->container_id, a->ifname, &name, err) < 0)
		return -1;
	_cleanup_json_ json *entry = NULL;
	if (entry_build(l, a, result, &entry, err) < 0)
		return error_prefix(err, "cache entry \"%s\"", name);
	size_t len;
	_cleanup_free_ char *text = json_gen(entry, false, &len);
	_cleanup_free_ char *dir = results_dir(ctx);
	return write_atomic(dir, name, text, len, err);
}

int cache_remove(const cnirt_ctx *ctx, const char *network, const char *container_id,
		 const char *ifname, const struct cache_seen *seen, cnirt_error **err)
{
	_cleanup_free_ char *path = NULL;
	if (cache_path(ctx, network, container_id, ifname, &path, err) < 0)
		return -1;
	/* The file may hold another attachment whose names join to the same
	 * file name: that entry is not ours to remove. The file read as ours
	 * before the DEL, and unchanged since, need not be read again. */
	if (!(seen && seen->ours && same_file(path, seen)) &&
	    entry_owner(path, network, container_id, ifname, NULL) == OWNER_OTHER)
		return 0;
	if (unlink(path) < 0 && errno != ENOENT)
		return error_set_errno(err, CNIRT_ERR_IO, errno, "cache entry \"%s\": remove",
				       path);
	return 0;
}

/* ---------------------------------------------------------------- read */

/* What a file that is not a regular one is, for messages. */
static const char *file_type(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR:
		return "a directory";
	case S_IFLNK:
		return "a symbolic link";
	case S_IFIFO:
		return "a FIFO";
	case S_IFSOCK:
		return "a socket";
	case S_IFCHR:
	case S_IFBLK:
		return "a device";
	default:
		return "of an unknown type";
	}
}

/*
 * Read the regular file `name` (relative to dirfd, or a path with
 * AT_FDCWD), at most CACHE_MAX_SIZE bytes, never following a symlink.
 * Missing: 0 with *data NULL. Errors name the problem, not the file
 * ("open: Permission denied", "not a regular file (a directory)", ...).
 */
static int read_entry_file(int dirfd, const char *name, char **data, size_t *len, struct stat *stp,
			   cnirt_error **err)
{
	struct stat st;
	_cleanup_close_ int fd = TEMP_FAILURE_RETRY(
	    openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY));
	if (fd < 0) {
		int e = errno;
		if (e == ENOENT) {
			*data = NULL;
			*len = 0;
			return 0;
		}
		/* O_NOFOLLOW on a symlink: ELOOP, which says it badly */
		if (e == ELOOP && fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISLNK(st.st_mode))
			return error_set(err, CNIRT_ERR_IO, "not a regular file (a symbolic link)");
		return error_set_errno(err, CNIRT_ERR_IO, e, "open");
	}
	if (fstat(fd, &st) < 0)
		return error_set_errno(err, CNIRT_ERR_IO, errno, "stat");
	if (!S_ISREG(st.st_mode))
		return error_set(err, CNIRT_ERR_IO, "not a regular file (%s)",
				 file_type(st.st_mode));
	if ((unsigned long long)st.st_size > CACHE_MAX_SIZE)
		return error_set(err, CNIRT_ERR_IO, "larger than " CACHE_MAX_SIZE_TEXT);

	struct buf b = {0};
	buf_append(&b, "", 0); /* NUL terminated even when the file is empty */
	char chunk[8192];
	for (;;) {
		ssize_t r = TEMP_FAILURE_RETRY(read(fd, chunk, sizeof(chunk)));
		if (r < 0) {
			int e = errno;
			buf_free(&b);
			return error_set_errno(err, CNIRT_ERR_IO, e, "read");
		}
		if (r == 0)
			break;
		if (b.len + (size_t)r > CACHE_MAX_SIZE) {
			buf_free(&b);
			return error_set(err, CNIRT_ERR_IO, "larger than " CACHE_MAX_SIZE_TEXT);
		}
		buf_append(&b, chunk, (size_t)r);
	}
	*data = buf_steal(&b, len);
	if (stp)
		*stp = st;
	return 0;
}

/* A string field that may be absent (NULL) but, when there, is a string
 * without NUL bytes. */
static int get_opt_string(const json *o, const char *key, char **out, cnirt_error **err)
{
	const char *s;
	if (json_read_string(o, key, &s, err) < 0)
		return -1;
	*out = s ? xstrdup(s) : NULL;
	return 0;
}

static int get_name(const json *o, const char *key, char **out, cnirt_error **err)
{
	const json *v = json_obj_get(o, key);
	const char *s = v ? json_str(v) : NULL;
	if (s == NULL || s[0] == '\0')
		return error_set(err, CNIRT_ERR_DECODE, "field \"%s\": %s", key,
				 v == NULL ? "missing" : "not a non-empty string");
	*out = xstrdup(s);
	return 0;
}

static int get_config(const json *o, struct cnirt_cache_entry *e, cnirt_error **err)
{
	const json *v = json_obj_get(o, "config");
	if (v == NULL || v->type == JSON_NULL)
		return 0;
	if (v->type != JSON_STRING ||
	    base64_decode(v->u.string.s, v->u.string.len, &e->config, &e->config_len) < 0)
		return error_set(err, CNIRT_ERR_DECODE, "field \"config\": not base64 text");
	return 0;
}

static int get_args(const json *o, struct cnirt_cache_entry *e, cnirt_error **err)
{
	const json *v = json_obj_get(o, "cniArgs");
	if (v == NULL || v->type == JSON_NULL)
		return 0;
	if (v->type != JSON_ARRAY)
		return error_set(err, CNIRT_ERR_DECODE, "field \"cniArgs\": not an array");
	size_t n = v->u.array.n;
	e->arg_keys = xcalloc(n, sizeof(char *));
	e->arg_values = xcalloc(n, sizeof(char *));
	for (size_t i = 0; i < n; i++) {
		const json *p = v->u.array.v[i];
		const char *k = NULL, *val = NULL;
		if (p->type == JSON_ARRAY && p->u.array.n == 2) {
			k = json_str(p->u.array.v[0]);
			val = json_str(p->u.array.v[1]);
		}
		if (k == NULL || val == NULL)
			return error_set(err, CNIRT_ERR_DECODE,
					 "field \"cniArgs\": element %zu is not a [key, value] "
					 "pair of strings",
					 i);
		e->arg_keys[i] = xstrdup(k);
		e->arg_values[i] = xstrdup(val);
		e->n_args++;
	}
	return 0;
}

/* An optional object field, re-serialised as JSON text. */
static int get_object_text(const json *o, const char *key, char **out, cnirt_error **err)
{
	const json *v = json_obj_get(o, key);
	if (v == NULL || v->type == JSON_NULL)
		return 0;
	if (v->type != JSON_OBJECT)
		return error_set(err, CNIRT_ERR_DECODE, "field \"%s\": not an object", key);
	*out = json_gen(v, false, NULL);
	return 0;
}

/* A file written by old libcni versions: the bare result, no "kind". */
static bool is_legacy_result(const json *j)
{
	return j->type == JSON_OBJECT && json_obj_get(j, "kind") == NULL &&
	       json_obj_get(j, "cniVersion") != NULL;
}

#define KIND_SHOWN_MAX 64

/* Decode a cniCacheV1 entry. Errors name the problem, not the file. */
static int entry_decode(const json *j, struct cnirt_cache_entry *e, cnirt_error **err)
{
	if (j->type != JSON_OBJECT)
		return error_set(err, CNIRT_ERR_DECODE, "not a JSON object");
	const json *kind = json_obj_get(j, "kind");
	const char *k = kind ? json_str(kind) : NULL;
	if (k == NULL || strcmp(k, CACHE_KIND) != 0) {
		if (kind == NULL)
			return error_set(err, CNIRT_ERR_DECODE,
					 "field \"kind\": missing, expected \"" CACHE_KIND "\"");
		size_t len;
		_cleanup_free_ char *text = json_gen(kind, false, &len);
		return error_set(err, CNIRT_ERR_DECODE,
				 "field \"kind\": %.*s%s is not \"" CACHE_KIND "\"", KIND_SHOWN_MAX,
				 text, len > KIND_SHOWN_MAX ? "..." : "");
	}
	if (get_name(j, "networkName", &e->network, err) < 0 ||
	    get_name(j, "containerId", &e->container_id, err) < 0 ||
	    get_name(j, "ifName", &e->ifname, err) < 0 ||
	    get_opt_string(j, "netns", &e->netns, err) < 0 || get_config(j, e, err) < 0 ||
	    get_args(j, e, err) < 0 ||
	    get_object_text(j, "capabilityArgs", &e->capability_args, err) < 0 ||
	    get_object_text(j, "result", &e->result, err) < 0)
		return -1;
	return 0;
}

/*
 * Decode the bytes of an entry file. The legacy format is accepted when
 * `legacy` names the entry (network, container id, ifname), since the file
 * itself does not. Errors name the problem, not the file.
 */
static int entry_parse(const char *data, size_t len, const char *const *legacy,
		       struct cnirt_cache_entry **out, cnirt_error **err)
{
	if (len == 0)
		return error_set(err, CNIRT_ERR_DECODE, "empty file");
	_cleanup_json_ json *j = NULL;
	if (json_read_parse(data, len, "entry", &j, err) < 0) {
		/* "entry: invalid JSON near byte N: ...": the problem is what
		 * follows the name json_read_parse() was given */
		char *m = (*err)->msg;
		if (strncmp(m, "entry: ", 7) == 0)
			memmove(m, m + 7, strlen(m + 7) + 1);
		return -1;
	}

	struct cnirt_cache_entry *e = xzalloc(sizeof(*e));
	if (is_legacy_result(j)) {
		if (legacy == NULL) {
			free(e);
			return error_set(err, CNIRT_ERR_DECODE,
					 "a bare result in the old libcni format (no \"kind\"), "
					 "which does not say what it belongs to");
		}
		e->network = xstrdup(legacy[0]);
		e->container_id = xstrdup(legacy[1]);
		e->ifname = xstrdup(legacy[2]);
		e->result = json_gen(j, false, NULL);
	} else if (entry_decode(j, e, err) < 0) {
		cnirt_cache_entry_free(e);
		return -1;
	}
	*out = e;
	return 0;
}

/*
 * Read and decode the file `name` under dirfd. Missing: 0 with *out NULL.
 * `path` names the file in errors. For `legacy`, see entry_parse().
 */
static int entry_load(int dirfd, const char *name, const char *path, const char *const *legacy,
		      struct cnirt_cache_entry **out, cnirt_error **err)
{
	_cleanup_free_ char *data = NULL;
	size_t len;
	struct stat st;
	struct cnirt_cache_entry *e = NULL;
	if (read_entry_file(dirfd, name, &data, &len, &st, err) < 0 ||
	    (data && entry_parse(data, len, legacy, &e, err) < 0))
		return error_prefix(err, "cache entry \"%s\"", path);
	if (e)
		e->mtime = (long long)st.st_mtim.tv_sec;
	*out = e;
	return 0;
}

/* Whether the decoded cniCacheV1 object `j` names this attachment. Two
 * attachments can share a file name ("a-b"+"c" and "a"+"b-c"): every read
 * checks the entry's own names against the request. */
static bool names_match(const json *j, const char *network, const char *container_id,
			const char *ifname)
{
	const char *n = json_str(json_obj_get(j, "networkName"));
	const char *c = json_str(json_obj_get(j, "containerId"));
	const char *i = json_str(json_obj_get(j, "ifName"));
	return n && c && i && strcmp(n, network) == 0 && strcmp(c, container_id) == 0 &&
	       strcmp(i, ifname) == 0;
}

/* The JSON object the file at `path` holds, or NULL (missing, unreadable,
 * not JSON, not an object). */
static json *read_object(const char *path, struct stat *st)
{
	_cleanup_error_ cnirt_error *ignored = NULL;
	_cleanup_free_ char *data = NULL;
	size_t len;
	json *j = NULL;
	if (read_entry_file(AT_FDCWD, path, &data, &len, st, &ignored) < 0 || data == NULL ||
	    json_read_parse(data, len, "cache entry", &j, &ignored) < 0)
		return NULL;
	if (j->type != JSON_OBJECT) {
		json_free(j);
		return NULL;
	}
	return j;
}

/* Whether the file at `path` is still the one `seen` describes: a file
 * replaced (rename) or rewritten since differs in one of these. Not seen:
 * a rewrite in place to the same size within the clock tick (a few ms) of
 * the last write, as a write between the check and the unlink never was. */
static bool same_file(const char *path, const struct cache_seen *seen)
{
	struct stat st;
	if (fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return false;
	return st.st_dev == seen->st.st_dev && st.st_ino == seen->st.st_ino &&
	       st.st_size == seen->st.st_size && st.st_mtim.tv_sec == seen->st.st_mtim.tv_sec &&
	       st.st_mtim.tv_nsec == seen->st.st_mtim.tv_nsec &&
	       st.st_ctim.tv_sec == seen->st.st_ctim.tv_sec &&
	       st.st_ctim.tv_nsec == seen->st.st_ctim.tv_nsec;
}

int cache_read_result(const cnirt_ctx *ctx, const char *network, const char *container_id,
		      const char *ifname, json **out, struct cache_seen *seen, cnirt_error **err)
{
	_cleanup_free_ char *path = NULL;
	if (cache_path(ctx, network, container_id, ifname, &path, err) < 0)
		return -1;

	/* From here on nothing is an error: a missing, unreadable or corrupt
	 * entry gives no prevResult rather than a DEL that cannot proceed. */
	struct stat st;
	_cleanup_json_ json *j = read_object(path, &st);
	*out = NULL;
	if (seen)
		seen->ours = false;
	if (j == NULL)
		return 0;
	if (is_legacy_result(j)) {
		*out = TAKE_PTR(j);
		if (seen)
			*seen = (struct cache_seen){.ours = true, .st = st};
		return 0;
	}
	const json *kind = json_obj_get(j, "kind");
	const json *r = json_obj_get(j, "result");
	if (kind == NULL || json_str(kind) == NULL || strcmp(json_str(kind), CACHE_KIND) != 0 ||
	    r == NULL || r->type != JSON_OBJECT || !names_match(j, network, container_id, ifname))
		return 0;
	*out = json_dup(r);
	if (seen)
		*seen = (struct cache_seen){.ours = true, .st = st};
	return 0;
}

static enum owner entry_owner(const char *path, const char *network, const char *container_id,
			      const char *ifname, char **other)
{
	_cleanup_json_ json *j = read_object(path, NULL);
	if (j == NULL)
		return OWNER_NONE;
	if (is_legacy_result(j))
		return OWNER_SELF;
	const char *k = json_str(json_obj_get(j, "kind"));
	if (k == NULL || strcmp(k, CACHE_KIND) != 0)
		return OWNER_NONE;
	if (names_match(j, network, container_id, ifname))
		return OWNER_SELF;
	if (other) {
		const char *n = json_str(json_obj_get(j, "networkName"));
		const char *c = json_str(json_obj_get(j, "containerId"));
		const char *i = json_str(json_obj_get(j, "ifName"));
		*other = xasprintf("network \"%s\", container \"%s\", interface \"%s\"",
				   n ? n : "?", c ? c : "?", i ? i : "?");
	}
	return OWNER_OTHER;
}

int cache_prepare(const cnirt_ctx *ctx, const char *network, const char *container_id,
		  const char *ifname, cnirt_error **err)
{
	_cleanup_free_ char *name = NULL;
	if (entry_name(network, container_id, ifname, &name, err) < 0)
		return -1;
	_cleanup_free_ char *dir = results_dir(ctx);
	/* An existing, writable directory costs one access() (of "<dir>/.",
	 * which fails on anything but a directory); anything else is made,
	 * or reported, by the long way. */
	_cleanup_free_ char *dot = xasprintf("%s/.", dir);
	if (access(dot, W_OK | X_OK) < 0) {
		if (mkdir_parents(dir, err) < 0)
			return -1;
		if (access(dir, W_OK | X_OK) < 0)
			return error_set_errno(err, CNIRT_ERR_IO, errno, "cache directory \"%s\"",
					       dir);
	}
	_cleanup_free_ char *path = xasprintf("%s/%s", dir, name);
	_cleanup_free_ char *other = NULL;
	if (entry_owner(path, network, container_id, ifname, &other) == OWNER_OTHER)
		return error_set(err, CNIRT_ERR_INVALID_CONFIG,
				 "cache entry \"%s\" holds the attachment of %s; network \"%s\", "
				 "container \"%s\", interface \"%s\" maps to the same file name "
				 "and would overwrite it",
				 path, other, network, container_id, ifname);
	return 0;
}

/* ------------------------------------------------------- public access */

CNIRT_EXPORT int cnirt_cache_get(const cnirt_ctx *ctx, const char *network,
				 const char *container_id, const char *ifname,
				 cnirt_cache_entry **out, cnirt_error **err)
{
	ERR_OUT_INIT(err);
	_cleanup_free_ char *path = NULL;
	if (cache_path(ctx, network, container_id, ifname, &path, err) < 0)
		return -1;
	const char *const names[] = {network, container_id, ifname};
	cnirt_cache_entry *e = NULL;
	if (entry_load(AT_FDCWD, path, path, names, &e, err) < 0)
		return -1;
	if (e && (strcmp(e->network, network) != 0 || strcmp(e->container_id, container_id) != 0 ||
		  strcmp(e->ifname, ifname) != 0)) {
		/* another attachment's entry under the same file name */
		cnirt_cache_entry_free(e);
		e = NULL;
	}
	*out = e;
	return 0;
}

/* --------------------------------------------------------- the listing */

/* Entry names start with a letter or a digit: this skips ".", ".." and
 * our temp files. */
static bool entry_named(const char *name, void *part)
{
	return name[0] != '.' && (part == NULL || strstr(name, part));
}

/* What a listing gathers: the entries, the damaged files. */
struct scan {
	cnirt_cache_entry **v;
	size_t n;
	cnirt_cache_damage *d;
	size_t n_d;
};

#define PROBLEM_MAX 1024

/* A problem as one line of printable ASCII (bytes outside as \xNN), cut
 * after PROBLEM_MAX bytes: it comes partly from the file's content. Without
 * the final period of some parser messages, as the other problems. */
static void add_damage(struct scan *s, const char *name, const char *problem)
{
	size_t len = strlen(problem);
	if (len > 0 && problem[len - 1] == '.')
		len--;
	s->d = xreallocarray(s->d, s->n_d + 1, sizeof(*s->d));
	s->d[s->n_d++] =
	    (cnirt_cache_damage){xstrdup(name), text_shown(problem, len, PROBLEM_MAX, false)};
}

/* Why the decoded entry `e` cannot be acted on under the file name `name`,
 * or NULL: its three names must be valid and make that file name, since
 * every operation on it reaches it by them. */
static char *name_problem(const struct cnirt_cache_entry *e, const char *name)
{
	_cleanup_error_ cnirt_error *err = NULL;
	if (cnirt_check_network_name(e->network, &err) < 0 ||
	    cnirt_check_container_id(e->container_id, &err) < 0 ||
	    cnirt_check_ifname(e->ifname, &err) < 0)
		return xstrdup(cnirt_error_msg(err));
	_cleanup_free_ char *want = xasprintf("%s-%s-%s", e->network, e->container_id, e->ifname);
	if (strcmp(want, name) != 0)
		return xasprintf("the name its fields give is \"%s\"", want);
	return NULL;
}

/* The file type readdir gave (DT_*) as a mode's S_IFMT bits; 0 unknown. */
static mode_t dirent_mode(unsigned char type)
{
	switch (type) {
	case DT_REG:
		return S_IFREG;
	case DT_DIR:
		return S_IFDIR;
	case DT_LNK:
		return S_IFLNK;
	case DT_FIFO:
		return S_IFIFO;
	case DT_SOCK:
		return S_IFSOCK;
	case DT_CHR:
		return S_IFCHR;
	case DT_BLK:
		return S_IFBLK;
	default:
		return 0;
	}
}

/* Sort the file `f` of the results directory (dirfd) into `s`: an entry
 * or a damaged file; nothing when it was removed meanwhile. */
static void scan_file(int dirfd, const struct dir_entry *f, struct scan *s)
{
	_cleanup_error_ cnirt_error *err = NULL;
	struct stat st;
	mode_t mode = dirent_mode(f->type);
	if (mode == 0) {
		if (fstatat(dirfd, f->name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno != ENOENT) {
				_cleanup_free_ char *p = xasprintf("stat: %s", strerror(errno));
				add_damage(s, f->name, p);
			}
			return;
		}
		mode = st.st_mode & S_IFMT;
	}
	/* Only regular files are opened (opening a device may do things). */
	if (mode != S_IFREG) {
		_cleanup_free_ char *p = xasprintf("not a regular file (%s)", file_type(mode));
		add_damage(s, f->name, p);
		return;
	}

	_cleanup_free_ char *data = NULL;
	size_t len;
	struct stat fst;
	struct cnirt_cache_entry *e = NULL;
	if (read_entry_file(dirfd, f->name, &data, &len, &fst, &err) < 0 ||
	    (data && entry_parse(data, len, NULL, &e, &err) < 0)) {
		add_damage(s, f->name, cnirt_error_msg(err));
		return;
	}
	if (e == NULL) /* removed meanwhile */
		return;
	_cleanup_free_ char *problem = name_problem(e, f->name);
	if (problem) {
		add_damage(s, f->name, problem);
		cnirt_cache_entry_free(e);
		return;
	}
	e->mtime = (long long)fst.st_mtim.tv_sec;
	s->v = xreallocarray(s->v, s->n + 1, sizeof(*s->v));
	s->v[s->n++] = e;
}

/* Every file of the results directory, in name order, sorted into `s`. */
static int scan_dir(const cnirt_ctx *ctx, struct scan *s, cnirt_error **err)
{
	*s = (struct scan){0};
	_cleanup_free_ char *dir = results_dir(ctx);
	_cleanup_close_ int dfd = TEMP_FAILURE_RETRY(open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	if (dfd < 0) {
		if (errno == ENOENT)
			return 0;
		return error_set_errno(err, CNIRT_ERR_IO, errno, "cache directory \"%s\"", dir);
	}
	struct dir_entry *names = NULL;
	size_t n_names = 0;
	int r = dir_list_sorted(dfd, entry_named, NULL, &names, &n_names);
	if (r < 0)
		return error_set_errno(err, CNIRT_ERR_IO, -r, "cache directory \"%s\": read", dir);
	for (size_t i = 0; i < n_names; i++)
		scan_file(dfd, &names[i], s);
	dir_entries_free(names, n_names);
	return 0;
}

CNIRT_EXPORT int cnirt_cache_scan(const cnirt_ctx *ctx, cnirt_cache_entry ***entries,
				  size_t *n_entries, cnirt_cache_damage **damaged,
				  size_t *n_damaged, cnirt_error **err)
{
	ERR_OUT_INIT(err);
	struct scan s;
	if (scan_dir(ctx, &s, err) < 0)
		return -1;
	*entries = s.v;
	*n_entries = s.n;
	*damaged = s.d;
	*n_damaged = s.n_d;
	return 0;
}

CNIRT_EXPORT int cnirt_cache_list(const cnirt_ctx *ctx, cnirt_cache_entry ***out, size_t *n,
				  cnirt_error **err)
{
	ERR_OUT_INIT(err);
	struct scan s;
	if (scan_dir(ctx, &s, err) < 0)
		return -1;
	cnirt_cache_damage_free(s.d, s.n_d);
	*out = s.v;
	*n = s.n;
	return 0;
}

CNIRT_EXPORT int cnirt_cache_get_file(const cnirt_ctx *ctx, const char *name,
				      cnirt_cache_entry **out, cnirt_error **err)
{
	ERR_OUT_INIT(err);
	*out = NULL;
	if (name[0] == '.' || name[0] == '\0' || strchr(name, '/'))
		return error_set(err, CNIRT_ERR_INVALID_ENV,
				 "cache entry name \"%s\": not a file name", name);
	_cleanup_free_ char *dir = results_dir(ctx);
	int dfd = TEMP_FAILURE_RETRY(open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	if (dfd < 0)
		return errno == ENOENT ? 0
				       : error_set_errno(err, CNIRT_ERR_IO, errno,
							 "cache directory \"%s\"", dir);
	struct scan s = {0};
	struct dir_entry f = {(char *)name, DT_UNKNOWN};
	scan_file(dfd, &f, &s);
	close(dfd);
	if (s.n_d > 0) {
		error_set(err, CNIRT_ERR_IO, "cache entry \"%s\": %s", name, s.d[0].problem);
		cnirt_cache_damage_free(s.d, s.n_d);
		return -1;
	}
	if (s.n > 0)
		*out = s.v[0];
	free(s.v);
	return 0;
}

CNIRT_EXPORT int cnirt_cache_list_container(const cnirt_ctx *ctx, const char *container_id,
					    cnirt_cache_entry ***out, size_t *n, cnirt_error **err)
{
	ERR_OUT_INIT(err);
	*out = NULL;
	*n = 0;
	if (cnirt_check_container_id(container_id, err) < 0)
		return -1;
	_cleanup_free_ char *dir = results_dir(ctx);
	_cleanup_free_ char *part = xasprintf("-%s-", container_id);
	_cleanup_close_ int dfd = TEMP_FAILURE_RETRY(open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	struct dir_entry *names = NULL;
	size_t n_names = 0;
	int r = dfd < 0 ? -errno : dir_list_sorted(dfd, entry_named, part, &names, &n_names);
	/* A directory missing, or removed before it was read, holds none. */
	if (r < 0)
		return r == -ENOENT
			   ? 0
			   : error_set_errno(err, CNIRT_ERR_IO, -r, "cache directory \"%s\"", dir);
	struct scan s = {0};
	for (size_t i = 0; i < n_names; i++)
		scan_file(dfd, &names[i], &s);
	dir_entries_free(names, n_names);
	cnirt_cache_damage_free(s.d, s.n_d);
	size_t mine = 0;
	for (size_t i = 0; i < s.n; i++) {
		if (strcmp(s.v[i]->container_id, container_id) == 0)
			s.v[mine++] = s.v[i];
		else
			cnirt_cache_entry_free(s.v[i]);
	}
	*out = s.v;
	*n = mine;
	return 0;
}

CNIRT_EXPORT int cnirt_cache_list_damaged(const cnirt_ctx *ctx, cnirt_cache_damage **out, size_t *n,
					  cnirt_error **err)
{
	ERR_OUT_INIT(err);
	struct scan s;
	if (scan_dir(ctx, &s, err) < 0)
		return -1;
	cnirt_cache_entries_free(s.v, s.n);
	*out = s.d;
	*n = s.n_d;
	return 0;
}

CNIRT_EXPORT void cnirt_cache_damage_free(cnirt_cache_damage *v, size_t n)
{
	if (v == NULL)
		return;
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].problem);
	}
	free(v);
}

CNIRT_EXPORT const char *cnirt_cache_entry_network(const cnirt_cache_entry *e)
{
	return e->network;
}

CNIRT_EXPORT const char *cnirt_cache_entry_container_id(const cnirt_cache_entry *e)
{
	return e->container_id;
}

CNIRT_EXPORT const char *cnirt_cache_entry_ifname(const cnirt_cache_entry *e)
{
	return e->ifname;
}

CNIRT_EXPORT const char *cnirt_cache_entry_netns(const cnirt_cache_entry *e)
{
	return e->netns;
}

CNIRT_EXPORT const char *cnirt_cache_entry_result(const cnirt_cache_entry *e)
{
	return e->result;
}

CNIRT_EXPORT const char *cnirt_cache_entry_config(const cnirt_cache_entry *e, size_t *len)
{
	if (len)
		*len = e->config ? e->config_len : 0;
	return e->config;
}

CNIRT_EXPORT const char *cnirt_cache_entry_capability_args(const cnirt_cache_entry *e)
{
	return e->capability_args;
}

CNIRT_EXPORT size_t cnirt_cache_entry_arg_count(const cnirt_cache_entry *e)
{
	return e->n_args;
}

CNIRT_EXPORT const char *cnirt_cache_entry_arg_key(const cnirt_cache_entry *e, size_t i)
{
	return i < e->n_args ? e->arg_keys[i] : NULL;
}

CNIRT_EXPORT const char *cnirt_cache_entry_arg_value(const cnirt_cache_entry *e, size_t i)
{
	return i < e->n_args ? e->arg_values[i] : NULL;
}

CNIRT_EXPORT long long cnirt_cache_entry_mtime(const cnirt_cache_entry *e)
{
	return e->mtime;
}

CNIRT_EXPORT void cnirt_cache_entry_free(cnirt_cache_entry *e)
{
	if (e == NULL)
		return;
	free(e->network);
	free(e->container_id);
	free(e->ifname);
	free(e->netns);
	free(e->config);
	for (size_t i = 0; i < e->n_args; i++) {
		free(e->arg_keys[i]);
		free(e->arg_values[i]);
	}
	free(e->arg_keys);
	free(e->arg_values);
	free(e->capability_args);
	free(e->result);
	free(e);
}

CNIRT_EXPORT void cnirt_cache_entries_free(cnirt_cache_entry **v, size_t n)
{
	if (v == NULL)
		return;
	for (size_t i = 0; i < n; i++)
		cnirt_cache_entry_free(v[i]);
	free(v);
}

/* ----------------------------------------------- per container, results */

CNIRT_EXPORT int cnirt_cache_attachments(const cnirt_ctx *ctx, const char *container_id,
					 cnirt_cache_entry ***out, size_t *n, cnirt_error **err)
{
	ERR_OUT_INIT(err);
	if (cnirt_check_container_id(container_id, err) < 0)
		return -1;
	struct scan s;
	if (scan_dir(ctx, &s, err) < 0)
		return -1;
	cnirt_cache_damage_free(s.d, s.n_d);
	size_t kept = 0;
	for (size_t i = 0; i < s.n; i++) {
		if (strcmp(s.v[i]->container_id, container_id) == 0)
			s.v[kept++] = s.v[i];
		else
			cnirt_cache_entry_free(s.v[i]);
	}
	*out = s.v;
	*n = kept;
	return 0;
}

CNIRT_EXPORT int cnirt_cache_result(const cnirt_ctx *ctx, const char *network,
				    const char *container_id, const char *ifname,
				    const char *to_version, char **result_json, cnirt_error **err)
{
	ERR_OUT_INIT(err);
	cnirt_cache_entry *e = NULL;
	if (cnirt_cache_get(ctx, network, container_id, ifname, &e, err) < 0)
		return -1;
	if (e == NULL || e->result == NULL) {
		cnirt_cache_entry_free(e);
		*result_json = NULL;
		return 0;
	}
	_cleanup_json_ json *raw = NULL;
	_cleanup_json_ json *conv = NULL;
	int r = json_read_parse(e->result, strlen(e->result), "cached result", &raw, err);
	if (r == 0)
		r = result_validate(raw, err);
	if (r == 0 && to_version)
		r = result_convert(raw, to_version, &conv, err);
	cnirt_cache_entry_free(e);
	if (r < 0)
		return error_prefix(err, "cache entry %s/%s/%s", network, container_id, ifname);
	*result_json = json_gen(conv ? conv : raw, true, NULL);
	return 0;
}
