/* SPDX-License-Identifier: Apache-2.0 */
/* Host port reservations. */
#include "config.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "state/layout.h"
#include "state/lock.h"
#include "state/port-reservations.h"

#define PORTS_FILE_MAX (1u << 20)

struct port {
	char proto[8];
	unsigned port;
	char ip[64]; /* "*" for any address */
};

/* "", 0.0.0.0 and :: are any address; others in canonical form. */
static void canonical_ip(const char *ip, char out[64])
{
	unsigned char a[16];
	if (ip == NULL || *ip == '\0') {
		strcpy(out, "*");
	} else if (inet_pton(AF_INET, ip, a) == 1) {
		if (memcmp(a, "\0\0\0\0", 4) == 0)
			strcpy(out, "*");
		else
			inet_ntop(AF_INET, a, out, 64);
	} else if (inet_pton(AF_INET6, ip, a) == 1) {
		static const unsigned char zero[16];
		if (memcmp(a, zero, 16) == 0)
			strcpy(out, "*");
		else
			inet_ntop(AF_INET6, a, out, 64);
	} else {
		/* No address (only another runtime's entry can hold one):
		 * counted as every address, the careful reading. */
		strcpy(out, "*");
	}
}

static bool overlap(const char *a, const char *b)
{
	return strcmp(a, "*") == 0 || strcmp(b, "*") == 0 || strcmp(a, b) == 0;
}

static void add_port(struct port **v, size_t *n, const struct port *p)
{
	*v = xreallocarray(*v, *n + 1, sizeof(**v));
	(*v)[(*n)++] = *p;
}

/* The host ports of a selection's port mappings (checked when parsed). */
static void want_ports(const struct port_mappings *m, struct port **v, size_t *n)
{
	for (size_t i = 0; i < m->n; i++) {
		struct port p = {.port = m->v[i].host_port};
		snprintf(p.proto, sizeof(p.proto), "%s", m->v[i].proto);
		canonical_ip(m->v[i].host_ip, p.ip);
		add_port(v, n, &p);
	}
}

/* The port mappings of a cache entry's portMappings JSON array, which
 * another runtime may have written: read leniently, what cannot be a
 * mapping passed over. */
static void entry_ports_of(const json *arr, struct port **v, size_t *n)
{
	for (size_t i = 0; json_is_array(arr) && i < arr->u.array.n; i++) {
		json *m = arr->u.array.v[i];
		json *hp = json_obj_get(m, "hostPort");
		if (!json_is_int(hp) || json_int_value(hp) < 1 || json_int_value(hp) > 65535)
			continue;
		struct port p = {.port = (unsigned)json_int_value(hp)};
		const char *proto = json_str(json_obj_get(m, "protocol"));
		snprintf(p.proto, sizeof(p.proto), "%s", proto && *proto ? proto : "tcp");
		bool word = strlen(proto ? proto : "") < sizeof(p.proto);
		for (char *c = p.proto; *c; c++) {
			*c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
			word &= (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9');
		}
		/* No protocol a port can be mapped for (another runtime's
		 * entry, written by hand): nothing to hold, and it must not
		 * reach the index's lines and fields. */
		if (!word)
			continue;
		canonical_ip(json_str(json_obj_get(m, "hostIP")), p.ip);
		add_port(v, n, &p);
	}
}

static bool has_state(const char *state_dir, const char *id)
{
	_cleanup_free_ char *dir = layout_container_dir(state_dir, id);
	struct stat st;
	return stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Is `holder` still attached: a state directory, else a cache entry (found
 * by file name: only its own entries are read). */
static bool holder_alive(const char *state_dir, cnirt_ctx *ctx, const char *holder)
{
	if (has_state(state_dir, holder))
		return true;
	if (ctx == NULL)
		return true;
	cnirt_cache_entry **v = NULL;
	size_t n = 0;
	cnirt_error *e = NULL;
	if (cnirt_cache_list_container(ctx, holder, &v, &n, &e) < 0) {
		cnirt_error_free(e);
		return true; /* cannot tell: keep it */
	}
	cnirt_cache_entries_free(v, n);
	return n > 0;
}

/* Rewrite the reservation file under its lock: drop the lines of `drop`
 * (and, with ctx, of holders no longer attached), then, when p is given,
 * refuse if a live holder overlaps (naming it in *holder when asked), else
 * add our line. */
static int update_file(const char *state_dir, const char *path, const char *drop, cnirt_ctx *ctx,
		       const struct port *p, const char *id, char **holder_out, char **err)
{
	int fd = -1;
	if (lock_path(path, &fd, err) < 0)
		return -1;
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	_cleanup_free_ char *e = NULL;
	if (read_all_fd(fd, PORTS_FILE_MAX, &buf, &len, &e) < 0) {
		close(fd);
		return error_set(err, "port reservations %s: %s", path, e);
	}
	char *out = xmalloc(len + 512);
	size_t o = 0;
	int ret = 0;
	char *save = NULL;
	for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char holder[256], ip[64];
		if (sscanf(line, "%255s %63s", holder, ip) != 2)
			continue;
		if ((drop && strcmp(holder, drop) == 0) ||
		    (ctx && !holder_alive(state_dir, ctx, holder)))
			continue;
		if (p && ret == 0 && overlap(ip, p->ip)) {
			ret = error_set(err,
					"host port %u/%s%s%s is held by container \"%s\": refusing "
					"the port mapping",
					p->port, p->proto, strcmp(p->ip, "*") ? " on " : "",
					strcmp(p->ip, "*") ? p->ip : "", holder);
			if (holder_out)
				*holder_out = xstrdup(holder);
		}
		o += (size_t)sprintf(out + o, "%s %s\n", holder, ip);
	}
	if (p && ret == 0)
		o += (size_t)snprintf(out + o, 512, "%s %s\n", id, p->ip);
	if (o == 0) {
		unlink(path);
	} else if (ftruncate(fd, 0) < 0 || pwrite(fd, out, o, 0) != (ssize_t)o) {
		ret = error_set(err, "port reservations %s: %s", path, strerror(errno));
	}
	free(out);
	close(fd);
	return ret;
}

/* Drop id's line from the reservation file `name`, when there is one. */
static void release_file(const char *state_dir, const char *name, const char *id)
{
	_cleanup_free_ char *path = layout_port_file(state_dir, name);
	_cleanup_free_ char *err = NULL;
	struct stat st;
	if (stat(path, &st) == 0)
		update_file(state_dir, path, id, NULL, NULL, id, NULL, &err);
}

/* The container's list, layout_own_ports(), holds the names of the
 * reservation files it asked for, one a line, written before any of them
 * is touched. */
/* fn(line, data) for each line of the file at `path`; false when it
 * cannot be read. */
static bool each_line(const char *path, void (*fn)(char *line, void *data), void *data)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	_cleanup_free_ char *read_err = NULL;
	if (read_file(path, PORTS_FILE_MAX, &buf, &len, NULL, &read_err) < 0)
		return false;
	char *save = NULL;
	for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		fn(line, data);
	return true;
}

struct release {
	const char *state_dir, *id;
};

static void release_listed(char *name, void *data)
{
	const struct release *r = data;
	if (name[0] != '.' && !strchr(name, '/'))
		release_file(r->state_dir, name, r->id);
}

void port_reservations_release(const char *state_dir, const char *id)
{
	_cleanup_free_ char *list = layout_own_ports(state_dir, id);
	struct release r = {.state_dir = state_dir, .id = id};
	if (each_line(list, release_listed, &r))
		unlink(list);
}

/* The port mappings of a cache entry's capability arguments. */
static void entry_mappings(const cnirt_cache_entry *e, struct port **held, size_t *n)
{
	const char *caps = cnirt_cache_entry_capability_args(e);
	json *v = NULL;
	_cleanup_free_ char *err = NULL;
	*held = NULL;
	*n = 0;
	if (caps == NULL ||
	    json_parse_with(caps, strlen(caps), "capabilityArgs", &util_json, &v, &err) < 0)
		return;
	entry_ports_of(json_obj_get(v, "portMappings"), held, n);
	json_free(v);
}

void port_reservations_release_entry(const char *state_dir, const char *id,
				     const cnirt_cache_entry *e)
{
	_cleanup_free_ struct port *held = NULL;
	size_t n = 0;
	entry_mappings(e, &held, &n);
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *name = layout_port_name(held[i].proto, held[i].port);
		release_file(state_dir, name, id);
	}
}

struct prune {
	const char *state_dir;
	const char *path; /* the file being read */
	bool (*alive)(void *data, const char *id);
	void *data;
};

static void prune_line(char *line, void *data)
{
	const struct prune *p = data;
	char holder[256];
	if (sscanf(line, "%255s", holder) != 1 || p->alive(p->data, holder))
		return;
	_cleanup_free_ char *err = NULL;
	update_file(p->state_dir, p->path, holder, NULL, NULL, holder, NULL, &err);
}

static void prune_file(int dfd, const char *name, void *data)
{
	struct prune *p = data;
	(void)dfd;
	_cleanup_free_ char *path = layout_port_file(p->state_dir, name);
	p->path = path;
	each_line(path, prune_line, p);
}

void port_reservations_prune(const char *state_dir, bool (*alive)(void *data, const char *id),
			     void *data)
{
	_cleanup_free_ char *dir = layout_ports_dir(state_dir);
	struct prune p = {.state_dir = state_dir, .alive = alive, .data = data};
	dir_each(dir, prune_file, &p);
}

/*
 * Other runtimes' port mappings, from two indexes of the cache beside it
 * (see docs/architecture.md, "Indexes"):
 *
 *   <cacheDir>/cnihook-ports.index   every file of <cacheDir>/results
 *   <cacheDir>/cnihook-ports.held    the files that map host ports
 *
 * each a header line, then one line per file sorted by name:
 *
 *   cnihook-ports-index 2 <stamp> <digest>
 *   <inode> TAB <file name> TAB <container id> TAB <network> TAB <ports>
 *   end
 *
 * (the held file's first word is cnihook-ports-held). <ports> is
 * "proto/port/ip,..." ("-" for none, and for a file that is no entry).
 * <stamp> is "<dev> <ino> <mtime sec> <mtime nsec>" of the results
 * directory as it was before it was read ("racy" when that mtime was
 * younger than STAMP_RACY_NS: a change within the clock's granularity keeps
 * the mtime); <digest> is "<count>/<sum>", a sum of a hash of each file's
 * name and inode, so that it does not depend on the order of the names.
 *
 * A start with port mappings reads the held index only: it serves while
 * the directory keeps its stamp, else while a reading of the directory's
 * names gives its digest (the same files: what the hook's own starts and
 * stops add and remove comes and goes without a parse). Otherwise the full
 * index is read, only the files whose name or inode are new are parsed, and
 * both are written again (the full one first). Each is written by rename: a
 * hook killed while writing leaves the old file or none, a held index
 * older than the full one only makes the next start read the full one, and
 * any hook rebuilds a missing or unreadable one. They are not synced: a
 * crash of the host may leave one cut short or with zeros where its data
 * did not reach the disk, and the held index would then serve without the
 * lines it lost; an index without its last line "end", or with a NUL
 * byte, is unreadable.
 */
#define INDEX_MAX     (64u << 20)
#define INDEX_END     "end\n"
#define FULL_MAGIC    "cnihook-ports-index 2 "
#define HELD_MAGIC    "cnihook-ports-held 2 "
#define STAMP_RACY_NS 100000000LL

/* One line of the index. Its strings point into the index's buffer, or are
 * the entry's own (owned) when the file was parsed by this hook. */
struct ientry {
	const char *name;
	unsigned long long ino;
	const char *holder;
	const char *network;
	const char *ports;
	bool owned;
	bool seen; /* index_update(): its file is still there */
};

struct index {
	char *buf; /* the index as read, split in place */
	struct ientry *v;
	size_t n, cap;
	char stamp[128];
	char digest[64];
};

static void index_free(struct index *x)
{
	for (size_t i = 0; i < x->n; i++)
		if (x->v[i].owned) {
			free((char *)x->v[i].name);
			free((char *)x->v[i].holder);
			free((char *)x->v[i].network);
			free((char *)x->v[i].ports);
		}
	free(x->v);
	free(x->buf);
	*x = (struct index){0};
}

static struct ientry *index_add(struct index *x)
{
	if (x->n == x->cap) {
		x->cap = x->cap ? x->cap * 2 : 64;
		x->v = xreallocarray(x->v, x->cap, sizeof(*x->v));
	}
	return &x->v[x->n++];
}

static int ientry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ientry *)a)->name, ((const struct ientry *)b)->name);
}

/* Split "<stamp, 4 words or racy> <digest>" of a header. */
static bool header_parse(char *rest, struct index *x)
{
	char *sp = strrchr(rest, ' ');
	if (sp == NULL || sp == rest)
		return false;
	*sp = '\0';
	snprintf(x->stamp, sizeof(x->stamp), "%s", rest);
	snprintf(x->digest, sizeof(x->digest), "%s", sp + 1);
	return true;
}

/* The index `path` as stored, sorted by name (it is written sorted); no
 * stamp nor digest when it is missing or unreadable. */
static void index_load(const char *path, const char *magic, struct index *x)
{
	size_t len, mlen = strlen(magic);
	_cleanup_free_ char *read_err = NULL;
	if (read_file(path, INDEX_MAX, &x->buf, &len, NULL, &read_err) < 0)
		return;
	size_t tlen = strlen(INDEX_END);
	if (len <= tlen || memcmp(x->buf + len - tlen, INDEX_END, tlen) != 0 ||
	    x->buf[len - tlen - 1] != '\n' || memchr(x->buf, '\0', len) != NULL)
		return; /* cut short, or zeros a crash left */
	len -= tlen;
	char *line = x->buf, *end = x->buf + len;
	char *nl = memchr(line, '\n', len);
	if (nl == NULL || len <= mlen || strncmp(line, magic, mlen) != 0)
		return;
	*nl = '\0';
	if (!header_parse(line + mlen, x))
		return;
	bool sorted = true;
	for (line = nl + 1; line < end; line = nl + 1) {
		nl = memchr(line, '\n', (size_t)(end - line));
		if (nl == NULL)
			break; /* a line cut short is no line */
		*nl = '\0';
		char *f[5];
		size_t k = 0;
		for (char *t = line; k < 5 && t; k++) {
			f[k] = t;
			t = strchr(t, '\t');
			if (t)
				*t++ = '\0';
		}
		if (k != 5)
			continue;
		if (x->n && strcmp(x->v[x->n - 1].name, f[1]) >= 0)
			sorted = false;
		*index_add(x) =
		    (struct ientry){f[1], strtoull(f[0], NULL, 10), f[2], f[3], f[4], false, false};
	}
	if (!sorted)
		qsort(x->v, x->n, sizeof(*x->v), ientry_cmp);
}

/* "proto/port/ip,..." of the portMappings of an entry's capability args. */
static char *entry_ports(const cnirt_cache_entry *e)
{
	struct port *held = NULL;
	size_t n = 0;
	entry_mappings(e, &held, &n);
	char *out = NULL;
	for (size_t i = 0; i < n; i++) {
		char *joined = xasprintf("%s%s%s/%u/%s", out ? out : "", out ? "," : "",
					 held[i].proto, held[i].port, held[i].ip);
		free(out);
		out = joined;
	}
	free(held);
	return out ? out : xstrdup("-");
}

/* A new index entry for the file `name` (inode ino), parsed. */
static struct ientry index_parse(cnirt_ctx *ctx, const char *name, unsigned long long ino)
{
	struct ientry ie = {xstrdup(name), ino, NULL, NULL, NULL, true, true};
	cnirt_cache_entry *e = NULL;
	cnirt_error *err = NULL;
	if (cnirt_cache_get_file(ctx, name, &e, &err) == 0 && e) {
		ie.holder = xstrdup(cnirt_cache_entry_container_id(e));
		ie.network = xstrdup(cnirt_cache_entry_network(e));
		ie.ports = entry_ports(e);
	}
	cnirt_error_free(err);
	cnirt_cache_entry_free(e);
	if (ie.holder == NULL) {
		ie.holder = xstrdup("-");
		ie.network = xstrdup("-");
		ie.ports = xstrdup("-");
	}
	return ie;
}

static void buf_put(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	while (*len + n + 1 > *cap)
		*buf = xreallocarray(*buf, *cap *= 2, 1);
	memcpy(*buf + *len, s, n);
	*len += n;
}

/* Write the index (only its lines that map ports when held_only). */
static void index_store(const char *path, const char *magic, const struct index *x, bool held_only)
{
	size_t cap = 4096, len = 0;
	char *buf = xmalloc(cap);
	char num[32];
	_cleanup_free_ char *header = xasprintf("%s%s %s\n", magic, x->stamp, x->digest);
	buf_put(&buf, &len, &cap, header, strlen(header));
	for (size_t i = 0; i < x->n; i++) {
		const struct ientry *e = &x->v[i];
		if (held_only && strcmp(e->ports, "-") == 0)
			continue;
		const char *f[] = {e->name, e->holder, e->network, e->ports};
		int l = snprintf(num, sizeof(num), "%llu", e->ino);
		buf_put(&buf, &len, &cap, num, (size_t)l);
		for (size_t k = 0; k < ARRAY_SIZE(f); k++) {
			buf_put(&buf, &len, &cap, "\t", 1);
			buf_put(&buf, &len, &cap, f[k], strlen(f[k]));
		}
		buf_put(&buf, &len, &cap, "\n", 1);
	}
	buf_put(&buf, &len, &cap, INDEX_END, strlen(INDEX_END));
	file_write_atomic(path, buf, len, 0600, false);
	free(buf);
}

/* A file's share of a digest: a hash of its name and inode (FNV-1a, then
 * a 64-bit finaliser), summed over the files so that the order of the
 * names does not matter. */
static unsigned long long file_hash(const char *name, unsigned long long ino)
{
	unsigned long long h = 1469598103934665603ULL;
	for (const unsigned char *c = (const unsigned char *)name; *c; c++)
		h = (h ^ *c) * 1099511628211ULL;
	h ^= ino + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

static bool indexed_name(const char *name)
{
	return name[0] != '.' && strpbrk(name, "\t\n") == NULL;
}

static void digest_format(char out[64], size_t n, unsigned long long sum)
{
	snprintf(out, 64, "%zu/%016llx", n, sum);
}

/* One reading of the results directory's names: the digest of its files,
 * and each indexed name with its inode handed to `each` (when not NULL).
 * false when the directory cannot be read. */
static bool dir_walk(const char *results, void (*each)(void *, const char *, unsigned long long),
		     void *data, char digest[64])
{
	_cleanup_closedir_ DIR *d = opendir(results);
	if (d == NULL)
		return false;
	unsigned long long sum = 0;
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!indexed_name(de->d_name))
			continue;
		unsigned long long ino = (unsigned long long)de->d_ino;
		sum += file_hash(de->d_name, ino);
		n++;
		if (each)
			each(data, de->d_name, ino);
	}
	digest_format(digest, n, sum);
	return true;
}

struct update {
	cnirt_ctx *ctx;
	struct index *old;  /* its lines still there are marked seen */
	struct index fresh; /* the files whose name or inode are new, parsed */
};

static void update_one(void *data, const char *name, unsigned long long ino)
{
	struct update *u = data;
	struct ientry key = {.name = name};
	struct ientry *hit =
	    u->old->n ? bsearch(&key, u->old->v, u->old->n, sizeof(*u->old->v), ientry_cmp) : NULL;
	if (hit && hit->ino == ino)
		hit->seen = true;
	else
		*index_add(&u->fresh) = index_parse(u->ctx, name, ino);
}

/* The full index brought up to date with the directory: its lines whose
 * file is still there (pointing into the old buffer, which it keeps) and,
 * parsed, the files whose name or inode are new; its digest from the same
 * reading. -1 when the directory cannot be read. */
static int index_update(cnirt_ctx *ctx, const char *results, struct index *old, struct index *x)
{
	struct update u = {.ctx = ctx, .old = old};
	char digest[64];
	if (!dir_walk(results, update_one, &u, digest)) {
		index_free(&u.fresh);
		return -1;
	}
	*x = (struct index){.buf = TAKE_PTR(old->buf)};
	for (size_t i = 0; i < old->n; i++)
		if (old->v[i].seen)
			*index_add(x) = old->v[i];
	for (size_t i = 0; i < u.fresh.n; i++)
		*index_add(x) = u.fresh.v[i];
	free(u.fresh.v);
	if (x->n > 1)
		qsort(x->v, x->n, sizeof(*x->v), ientry_cmp);
	snprintf(x->digest, sizeof(x->digest), "%s", digest);
	return 0;
}

/*
 * The other runtimes' port mappings, up to date with the results
 * directory: the held index when the directory keeps its stamp or its
 * digest (a start beside N entries then reads N names and parses none),
 * else both indexes brought up to date and written again.
 */
static void index_get(cnirt_ctx *ctx, struct index *out)
{
	*out = (struct index){0};
	const char *cache_dir = cnirt_ctx_cache_dir(ctx);
	_cleanup_free_ char *results = layout_results_dir(cache_dir);
	_cleanup_free_ char *full_path = layout_ports_index(cache_dir);
	_cleanup_free_ char *held_path = layout_ports_held(cache_dir);
	struct stat st;
	if (stat(results, &st) < 0 || !S_ISDIR(st.st_mode))
		return;
	char stamp[128];
	snprintf(stamp, sizeof(stamp), "%llu %llu %lld %ld", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino, (long long)st.st_mtim.tv_sec,
		 (long)st.st_mtim.tv_nsec);
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	bool racy =
	    (now.tv_sec - st.st_mtim.tv_sec) * 1000000000LL + (now.tv_nsec - st.st_mtim.tv_nsec) <
	    STAMP_RACY_NS;
	struct index held = {0};
	index_load(held_path, HELD_MAGIC, &held);
	if (held.digest[0] && strcmp(held.stamp, stamp) == 0) {
		*out = held;
		return;
	}
	char digest[64];
	if (held.digest[0] && dir_walk(results, NULL, NULL, digest) &&
	    strcmp(held.digest, digest) == 0) {
		/* The same files: stamped again, so that an idle directory
		 * is not read at the next start. */
		if (!racy) {
			snprintf(held.stamp, sizeof(held.stamp), "%s", stamp);
			index_store(held_path, HELD_MAGIC, &held, true);
		}
		*out = held;
		return;
	}
	index_free(&held);
	struct index old = {0};
	index_load(full_path, FULL_MAGIC, &old);
	if (index_update(ctx, results, &old, out) < 0) {
		index_free(&old);
		return;
	}
	free(old.v);
	snprintf(out->stamp, sizeof(out->stamp), "%s", racy ? "racy" : stamp);
	index_store(full_path, FULL_MAGIC, out, false);
	index_store(held_path, HELD_MAGIC, out, true);
}

/* Does the "proto/port/ip,..." list `ports` hold one overlapping p? */
static bool ports_overlap(const char *ports, const struct port *p)
{
	_cleanup_free_ char *copy = xstrdup(ports);
	char *save = NULL;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char proto[8], ip[64];
		unsigned port;
		if (sscanf(t, "%7[^/]/%u/%63s", proto, &port, ip) == 3 && port == p->port &&
		    strcmp(proto, p->proto) == 0 && overlap(ip, p->ip))
			return true;
	}
	return false;
}

/* Whether the index entry's file is still there (a reading of the names
 * may race with a removal). */
static bool entry_present(cnirt_ctx *ctx, const struct ientry *e)
{
	_cleanup_free_ char *path = layout_result(cnirt_ctx_cache_dir(ctx), e->name);
	struct stat st;
	return lstat(path, &st) == 0 && (unsigned long long)st.st_ino == e->ino;
}

/* Port mappings of other runtimes' attachments (cache entries without a
 * cnihook state directory) that overlap p. */
static int check_cache(const char *state_dir, cnirt_ctx *ctx, const struct index *x, const char *id,
		       const struct port *p, char **err)
{
	for (size_t i = 0; i < x->n; i++) {
		const struct ientry *e = &x->v[i];
		if (strcmp(e->ports, "-") == 0 || strcmp(e->holder, id) == 0 ||
		    !ports_overlap(e->ports, p) || has_state(state_dir, e->holder) ||
		    !entry_present(ctx, e))
			continue;
		return error_set(err,
				 "host port %u/%s is held by container \"%s\" (network \"%s\"): "
				 "refusing the port mapping",
				 p->port, p->proto, e->holder, e->network);
	}
	return 0;
}

int port_reservations_reserve(const char *state_dir, cnirt_ctx *ctx, const char *id,
			      const struct selection *sel, char **holder, char **err)
{
	struct port *want = NULL;
	size_t n = 0;
	for (size_t i = 0; i < sel->n; i++)
		want_ports(&sel->v[i].ports, &want, &n);
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < i; k++)
			if (want[i].port == want[k].port &&
			    strcmp(want[i].proto, want[k].proto) == 0 &&
			    overlap(want[i].ip, want[k].ip)) {
				error_set(err, "host port %u/%s is asked for twice", want[i].port,
					  want[i].proto);
				free(want);
				return -1;
			}

	_cleanup_free_ char *dir = layout_ports_dir(state_dir);
	_cleanup_free_ char *e = NULL;
	int r = dir_mkdir_p(dir, 0700, &e);
	if (r < 0)
		error_set(err, "port reservations %s", e);
	/* The names first: a hook killed from here on leaves a list that
	 * poststop and gc release from. */
	struct buf names_buf = {0};
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *name = layout_port_name(want[i].proto, want[i].port);
		buf_printf(&names_buf, "%s\n", name);
	}
	size_t len = 0;
	_cleanup_free_ char *names = buf_steal(&names_buf, &len);
	_cleanup_free_ char *list = layout_own_ports(state_dir, id);
	if (r == 0 && (r = file_write_atomic(list, names, len, 0600, false)) < 0)
		error_set(err, "port reservations %s: %s", list, strerror(-r));
	struct index idx = {0};
	if (r == 0)
		index_get(ctx, &idx);
	for (size_t i = 0; i < n && r == 0; i++) {
		_cleanup_free_ char *name = layout_port_name(want[i].proto, want[i].port);
		_cleanup_free_ char *path = layout_port_file(state_dir, name);
		r = check_cache(state_dir, ctx, &idx, id, &want[i], err);
		if (r == 0)
			r = update_file(state_dir, path, NULL, ctx, &want[i], id, holder, err);
	}
	if (r < 0)
		port_reservations_release(state_dir, id);
	index_free(&idx);
	free(want);
	return r;
}
