/* SPDX-License-Identifier: Apache-2.0 */
/* Collecting the attachments of containers that are gone. */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cnirt.h>

#include "base/log.h"
#include "base/util.h"
#include "cmd/gc.h"
#include "engine/engine.h"
#include "host/userns.h"
#include "state/attachment-list.h"
#include "state/layout.h"
#include "state/liveness.h"
#include "state/lock.h"
#include "state/netns-pin.h"
#include "state/port-reservations.h"
#include "state/record.h"

/* What gc's pruning of port reservations knows. */
struct gc_alive {
	const struct hook_config *cfg;
	struct strset cache_ids;
};

struct candidate {
	char *id;
	bool own;		     /* <stateDir>/<id>/ exists: the hook attached it */
	const cnirt_cache_entry **v; /* its cache entries */
	size_t n;
};

/* The candidates, sorted by id: every container id of the cache and of the
 * state directory, with its cache entries (sorted together, then grouped:
 * no search per entry). */
struct seen {
	const char *id;
	const cnirt_cache_entry *entry; /* NULL: a name in the state directory */
	bool own;
};

static int seen_cmp(const void *a, const void *b)
{
	const struct seen *x = a, *y = b;
	int c = strcmp(x->id, y->id);
	if (c)
		return c;
	/* Stable for the entries of one id: the cache's (file name) order. */
	return x->entry && y->entry ? (x->entry < y->entry ? -1 : x->entry > y->entry)
				    : (x->entry != NULL) - (y->entry != NULL);
}

static void collect(const struct hook_config *cfg, cnirt_cache_entry **cache, size_t n_cache,
		    struct candidate **v, size_t *n)
{
	struct seen *all = xreallocarray(NULL, n_cache + 1, sizeof(*all));
	size_t n_all = 0;
	char **names = NULL;
	size_t n_names = 0;
	for (size_t i = 0; i < n_cache; i++)
		all[n_all++] =
		    (struct seen){cnirt_cache_entry_container_id(cache[i]), cache[i], false};
	_cleanup_closedir_ DIR *d = opendir(cfg->state_dir);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		/* A lock or a name link beside the directory stands for its
		 * container. */
		size_t len = 0;
		enum layout_entry kind = layout_entry(de->d_name, &len);
		if (kind == LAYOUT_OTHER)
			continue;
		_cleanup_free_ char *name = xstrndup(de->d_name, len);
		struct stat st;
		bool own = kind == LAYOUT_CONTAINER &&
			   (de->d_type == DT_DIR ||
			    (de->d_type == DT_UNKNOWN &&
			     fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			     S_ISDIR(st.st_mode)));
		strv_append(&names, &n_names, name);
		all = xreallocarray(all, n_all + 1, sizeof(*all));
		all[n_all++] = (struct seen){names[n_names - 1], NULL, own};
	}
	if (n_all > 1)
		qsort(all, n_all, sizeof(*all), seen_cmp);
	for (size_t i = 0; i < n_all; i++) {
		if (i == 0 || strcmp(all[i].id, all[i - 1].id) != 0) {
			*v = xreallocarray(*v, *n + 1, sizeof(**v));
			(*v)[(*n)++] = (struct candidate){.id = xstrdup(all[i].id)};
		}
		struct candidate *c = &(*v)[*n - 1];
		c->own |= all[i].own;
		if (all[i].entry) {
			c->v = xreallocarray(c->v, c->n + 1, sizeof(*c->v));
			c->v[c->n++] = all[i].entry;
		}
	}
	free(all);
	strv_free(names, n_names);
}

/* The file name of a cache entry in <cacheDir>/results, as the reference
 * library names it (the entry's fields were checked against it). */
static char *entry_file_name(const cnirt_cache_entry *c)
{
	return layout_result_name(cnirt_cache_entry_network(c), cnirt_cache_entry_container_id(c),
				  cnirt_cache_entry_ifname(c));
}

/* The cache as the GC verb is told it: the entries of the scan (a dry
 * run leaves out those of the containers it would detach), then, once the
 * result cache's lock is held, those written since. */
struct verb_cache {
	cnirt_cache_entry **v;
	size_t n;
	size_t n_scanned; /* v[n_scanned..n) were read under the lock: ours */
	int lock_fd;
};

/* Take the result cache's lock, so that no attach ADDs while the GC verb
 * goes out (an attach in progress finishes first), and add the entries
 * written since the scan: the files of results/ whose names it did not
 * see. */
static int verb_lock(cnirt_ctx *ctx, struct verb_cache *vc)
{
	_cleanup_free_ char *err = NULL;
	if (lock_results(cnirt_ctx_cache_dir(ctx), true, &vc->lock_fd, &err) < 0) {
		log_error("gc: %s: no GC verb sent", err);
		return -1;
	}
	struct strset seen = {0};
	for (size_t i = 0; i < vc->n; i++) {
		_cleanup_free_ char *name = entry_file_name(vc->v[i]);
		strv_append(&seen.v, &seen.n, name);
	}
	strset_sort(&seen);
	_cleanup_free_ char *dir = layout_results_dir(cnirt_ctx_cache_dir(ctx));
	_cleanup_closedir_ DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		cnirt_cache_entry *c = NULL;
		cnirt_error *e = NULL;
		if (de->d_name[0] == '.' || strset_find(&seen, de->d_name))
			continue;
		if (cnirt_cache_get_file(ctx, de->d_name, &c, &e) < 0)
			cnirt_error_free(e); /* damaged: the scan's report names it */
		if (c) {
			vc->v = xreallocarray(vc->v, vc->n + 1, sizeof(*vc->v));
			vc->v[vc->n++] = c;
		}
	}
	strv_free(seen.v, seen.n);
	return 0;
}

/* The spec 1.1.0 GC verb for every network that speaks it, with the
 * attachments the cache holds as the valid ones. */
static int gc_verb(const struct hook_config *cfg, cnirt_ctx *ctx, bool dry_run,
		   struct verb_cache *vc)
{
	cnirt_confdir *dir = NULL;
	cnirt_error *e = NULL;
	if (cnirt_confdir_scan(cfg->conf_dir, &dir, &e) < 0) {
		log_warn("gc: %s", cnirt_error_msg(e));
		cnirt_error_free(e);
		return 0;
	}
	int ret = 0;
	for (size_t i = 0; i < cnirt_confdir_count(dir); i++) {
		const cnirt_netlist *l = cnirt_confdir_list(dir, i);
		if (l == NULL || cnirt_version_compare(cnirt_netlist_version(l), "1.1.0") < 0 ||
		    cnirt_netlist_disable_gc(l))
			continue;
		if (!dry_run && vc->lock_fd < 0 && verb_lock(ctx, vc) < 0) {
			ret = -1;
			break;
		}
		cnirt_attachment_id *valid = xreallocarray(NULL, vc->n + 1, sizeof(*valid));
		size_t n = 0;
		for (size_t k = 0; k < vc->n; k++)
			if (strcmp(cnirt_cache_entry_network(vc->v[k]), cnirt_netlist_name(l)) == 0)
				valid[n++] =
				    (cnirt_attachment_id){cnirt_cache_entry_container_id(vc->v[k]),
							  cnirt_cache_entry_ifname(vc->v[k])};
		if (dry_run) {
			printf("gc: network \"%s\": would send GC with %zu valid attachment(s)\n",
			       cnirt_netlist_name(l), n);
		} else if (cnirt_gc_cached(ctx, l, valid, n, vc->v, vc->n, &e) < 0) {
			_cleanup_free_ char *m = error_cni_text(cnirt_netlist_name(l), e);
			log_error("gc: %s", m);
			cnirt_error_free(TAKE_PTR(e));
			ret = -1;
		} else {
			printf("gc: network \"%s\": GC sent with %zu valid attachment(s)\n",
			       cnirt_netlist_name(l), n);
		}
		free(valid);
	}
	if (vc->lock_fd >= 0)
		close(vc->lock_fd);
	cnirt_confdir_free(dir);
	return ret;
}

/* The gone container whose attachment record names the cache file `name`
 * (<network>-<id>-<ifname>), or NULL: its teardown removes the file. */
static const char *torn_down_with(const struct hook_config *cfg, char **gone, size_t n_gone,
				  const char *name)
{
	for (size_t i = 0; i < n_gone; i++) {
		size_t len = strlen(gone[i]);
		const char *at = strstr(name, gone[i]);
		if (at == NULL || at == name || at[-1] != '-' || at[len] != '-')
			continue;
		_cleanup_free_ char *path = layout_record(cfg->state_dir, gone[i]);
		_cleanup_free_ char *err = NULL;
		struct record *rec = NULL;
		if (record_read(path, &rec, &err) < 0 || rec == NULL)
			continue;
		bool found = false;
		for (size_t k = 0; k < rec->n && !found; k++) {
			_cleanup_free_ char *want =
			    layout_result_name(rec->v[k].network, gone[i], rec->v[k].ifname);
			found = strcmp(want, name) == 0;
		}
		record_free(rec);
		if (found)
			return gone[i];
	}
	return NULL;
}

/*
 * The files of the cache that are not readable entries: nothing in them
 * says which network configuration and container they belong to, so gc
 * cannot tear them down and leaves them. Run after the teardowns, whose DEL
 * from the container's record removes the damaged files it names; in a dry
 * run, `gone` (the containers that would be torn down) says which those are.
 */
static void report_damaged(const struct hook_config *cfg, cnirt_ctx *ctx, bool dry_run, char **gone,
			   size_t n_gone, const cnirt_cache_damage *d, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *p = layout_result_shown(cnirt_ctx_cache_dir(ctx), d[i].name);
		const char *id = dry_run ? torn_down_with(cfg, gone, n_gone, d[i].name) : NULL;
		if (id)
			log_info("gc: damaged cache entry \"%s\": %s; would be removed by the "
				 "teardown of container \"%s\" (its record names it)",
				 p, d[i].problem, id);
		else
			log_warn("gc: damaged cache entry \"%s\": %s; left in place, as its "
				 "network configuration and container cannot be read from it: "
				 "remove it by hand once its container is gone",
				 p, d[i].problem);
	}
}

/* Is the port reservation holder `id` still attached: its state directory,
 * or an entry in what is left of the cache (data: a struct strset). */
static bool holder_alive(void *data, const char *id)
{
	const struct gc_alive *a = data;
	_cleanup_free_ char *dir = layout_container_dir(a->cfg->state_dir, id);
	struct stat st;
	return strset_find(&a->cache_ids, id) || (stat(dir, &st) == 0 && S_ISDIR(st.st_mode));
}

/* The cache after the teardowns, without reading it again: the entries of
 * the containers torn down (`detached`) are looked up by file name, the
 * others kept as they were read. */
static void cache_after(cnirt_ctx *ctx, const struct strset *detached, cnirt_cache_entry ***cache,
			size_t *n_cache, cnirt_cache_damage **damaged, size_t *n_damaged)
{
	size_t k = 0;
	for (size_t i = 0; i < *n_cache; i++) {
		cnirt_cache_entry *c = (*cache)[i];
		if (strset_find(detached, cnirt_cache_entry_container_id(c))) {
			_cleanup_free_ char *name = entry_file_name(c);
			cnirt_cache_entry *now = NULL;
			cnirt_error *e = NULL;
			if (cnirt_cache_get_file(ctx, name, &now, &e) < 0)
				cnirt_error_free(e);
			cnirt_cache_entry_free(c);
			c = now;
		}
		if (c)
			(*cache)[k++] = c;
	}
	*n_cache = k;
	k = 0;
	for (size_t i = 0; i < *n_damaged; i++) {
		_cleanup_free_ char *path =
		    layout_result(cnirt_ctx_cache_dir(ctx), (*damaged)[i].name);
		struct stat st;
		if (lstat(path, &st) == 0)
			(*damaged)[k++] = (*damaged)[i];
		else {
			free((*damaged)[i].name);
			free((*damaged)[i].problem);
		}
	}
	*n_damaged = k;
}

/* One container candidate: kept, gone (a dry run says what it would do),
 * or detached; the ids of those detached (or tried) are added to
 * `detached`. -1 when a teardown failed. */
static int sweep_one(const struct hook_config *cfg, const struct gc_options *o,
		     struct liveness_world *w, const struct candidate *c, struct strset *gone,
		     struct strset *detached)
{
	_cleanup_free_ char *why = NULL;
	const struct liveness_candidate lc = {c->id, c->own, c->v, c->n};
	if (!liveness_gone(cfg->state_dir, o->netns_from_result, w, &lc, &why)) {
		printf("gc: container \"%s\": kept: %s\n", c->id, why);
		return 0;
	}
	if (o->dry_run) {
		strv_append(&gone->v, &gone->n, c->id);
		printf("gc: container \"%s\": gone: would detach %zu attachment(s) and remove its "
		       "state (%s)\n",
		       c->id, c->n, why);
		return 0;
	}
	size_t done = 0;
	int r = engine_detach(cfg, c->id, "gc", &done);
	strv_append(&detached->v, &detached->n, c->id);
	if (r == 1)
		printf("gc: container \"%s\": kept: busy (a stage holds its lock), left for "
		       "later\n",
		       c->id);
	else if (r == 0)
		printf("gc: container \"%s\": gone: detached %zu attachment(s)%s, state removed "
		       "(%s)\n",
		       c->id, done,
		       done < c->n ? " (the others name a live namespace by now: left alone)" : "",
		       why);
	else
		printf("gc: container \"%s\": gone: teardown failed (the log says why), left "
		       "for the next run (%s)\n",
		       c->id, why);
	return r < 0 ? -1 : 0;
}

/* Every container of the cache and the state directory, judged against
 * one reading of /proc and the runtimes' state directories. */
static int sweep(const struct hook_config *cfg, const struct gc_options *o,
		 cnirt_cache_entry **cache, size_t n_cache, struct strset *gone,
		 struct strset *detached)
{
	struct candidate *v = NULL;
	size_t n = 0;
	collect(cfg, cache, n_cache, &v, &n);
	if (n == 0)
		printf("gc: nothing to collect: no container in %s or in the cache %s\n",
		       cfg->state_dir, cfg->cache_dir);
	struct liveness_world *w = liveness_world_read();
	int failed = 0;
	for (size_t i = 0; i < n; i++) {
		failed |= sweep_one(cfg, o, w, &v[i], gone, detached) < 0;
		free(v[i].id);
		free(v[i].v);
	}
	free(v);
	liveness_world_free(w);
	return failed ? -1 : 0;
}

/* Reservations, pin index entries and attachment lists of containers gone
 * without a teardown (a state directory wiped, a hook killed). */
static void prune_indexes(const struct hook_config *cfg, const cnirt_ctx *ctx,
			  cnirt_cache_entry **cache, size_t n_cache)
{
	struct gc_alive a = {.cfg = cfg};
	for (size_t i = 0; i < n_cache; i++)
		strv_append(&a.cache_ids.v, &a.cache_ids.n,
			    cnirt_cache_entry_container_id(cache[i]));
	strset_sort(&a.cache_ids);
	port_reservations_prune(cfg->state_dir, holder_alive, &a);
	attachment_list_sweep(cnirt_ctx_cache_dir(ctx), holder_alive, &a);
	strv_free(a.cache_ids.v, a.cache_ids.n);
	netns_pin_index_sweep(cfg->state_dir);
}

/* The temp files of writers killed before their rename (docs/architecture.md,
 * "Temp files"), in one directory cnihook writes. */
static void sweep_temps_in(const char *dir)
{
	int n = file_temps_sweep(dir);
	if (n > 0)
		printf("gc: %s: removed %d temp file(s) of writers killed before their rename\n",
		       dir, n);
}

static void sweep_container_temps(int dfd, const char *name, void *data)
{
	const char *state_dir = data;
	(void)dfd;
	if (layout_entry(name, NULL) != LAYOUT_CONTAINER)
		return;
	_cleanup_free_ char *dir = layout_container_dir(state_dir, name);
	_cleanup_free_ char *journal = layout_journal_dir(state_dir, name);
	sweep_temps_in(dir);
	sweep_temps_in(journal);
}

/* Every directory cnihook writes by rename: the cache's (results/, shared
 * with other programs: only cnihook's own temp files, whose writer is
 * provably gone, are ever taken), the attachment lists, the port indexes
 * beside them, and the state directory with every container's. */
static void sweep_temps(const struct hook_config *cfg, const cnirt_ctx *ctx)
{
	const char *cache = cnirt_ctx_cache_dir(ctx);
	_cleanup_free_ char *results = layout_results_dir(cache);
	_cleanup_free_ char *lists = layout_attachment_list_dir(cache);
	sweep_temps_in(results);
	sweep_temps_in(lists);
	sweep_temps_in(cache);
	sweep_temps_in(cfg->state_dir);
	dir_each(cfg->state_dir, sweep_container_temps, (void *)cfg->state_dir);
}

/* The cache entries the GC verb is told are valid. A dry run tears
 * nothing down, so it leaves out those of the containers it would detach,
 * as a real run sends them. The entries stay the cache's. */
static cnirt_cache_entry **verb_valid(const struct gc_options *o, struct strset *gone,
				      cnirt_cache_entry **cache, size_t *n)
{
	cnirt_cache_entry **v = xreallocarray(NULL, *n + 1, sizeof(*v));
	strset_sort(gone);
	size_t k = 0;
	for (size_t i = 0; i < *n; i++)
		if (!o->dry_run || !strset_find(gone, cnirt_cache_entry_container_id(cache[i])))
			v[k++] = cache[i];
	*n = k;
	return v;
}

int gc_run(const struct hook_config *cfg, const struct gc_options *o)
{
	_cleanup_free_ char *why = o->rootless ? NULL : userns_not_host_root();
	if (why) {
		log_error("gc needs root in the host's user namespace (it reads the state "
			  "directory and the cache, and runs the plugins); %s",
			  why);
		return 1;
	}
	cnirt_ctx *ctx = hookconf_ctx(cfg);
	cnirt_cache_entry **cache = NULL;
	size_t n_cache = 0;
	cnirt_cache_damage *damaged = NULL;
	size_t n_damaged = 0;
	cnirt_error *e = NULL;
	if (cnirt_cache_scan(ctx, &cache, &n_cache, &damaged, &n_damaged, &e) < 0) {
		log_error("gc: %s", cnirt_error_msg(e));
		cnirt_error_free(e);
		cnirt_ctx_free(ctx);
		return 1;
	}
	struct strset gone = {0}; /* in a dry run, what would be gone */
	struct strset detached = {0};
	int failed = sweep(cfg, o, cache, n_cache, &gone, &detached) < 0;
	if (gone.n == 0 && detached.n == 0)
		printf("gc: nothing to collect%s\n", o->dry_run ? " (dry run)" : "");
	/* The teardowns changed the cache: what is left of it now. */
	if (detached.n) {
		strset_sort(&detached);
		cache_after(ctx, &detached, &cache, &n_cache, &damaged, &n_damaged);
	}
	strv_free(detached.v, detached.n);
	if (!o->dry_run) {
		sweep_temps(cfg, ctx);
		prune_indexes(cfg, ctx, cache, n_cache);
	}
	fflush(stdout);
	report_damaged(cfg, ctx, o->dry_run, gone.v, gone.n, damaged, n_damaged);
	struct verb_cache vc = {.n = n_cache, .lock_fd = -1};
	vc.v = verb_valid(o, &gone, cache, &vc.n);
	vc.n_scanned = vc.n;
	if (gc_verb(cfg, ctx, o->dry_run, &vc) < 0)
		failed = 1;
	for (size_t i = vc.n_scanned; i < vc.n; i++)
		cnirt_cache_entry_free(vc.v[i]);
	free(vc.v);
	cnirt_cache_entries_free(cache, n_cache);
	cnirt_cache_damage_free(damaged, n_damaged);
	strv_free(gone.v, gone.n);
	cnirt_ctx_free(ctx);
	return failed ? 1 : 0;
}

int gc_collect_gone(const struct hook_config *cfg, const char *id, const char *stage)
{
	_cleanup_closedir_ DIR *d = opendir(cfg->state_dir);
	if (!d)
		return 0;
	cnirt_ctx *ctx = hookconf_ctx(cfg);
	struct liveness_world *w = liveness_world_read();
	int collected = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		struct stat st;
		if (layout_entry(de->d_name, NULL) != LAYOUT_CONTAINER ||
		    strcmp(de->d_name, id) == 0 ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISDIR(st.st_mode))
			continue;
		cnirt_cache_entry **v = NULL;
		size_t n = 0;
		cnirt_error *e = NULL;
		if (cnirt_cache_list_container(ctx, de->d_name, &v, &n, &e) < 0) {
			cnirt_error_free(e);
			continue;
		}
		_cleanup_free_ char *why = NULL;
		const struct liveness_candidate lc = {de->d_name, true,
						      (const cnirt_cache_entry *const *)v, n};
		size_t done = 0;
		if (liveness_gone(cfg->state_dir, false, w, &lc, &why) &&
		    engine_detach(cfg, de->d_name, stage, &done) == 0) {
			log_warn("%s %s: collected container \"%s\" first: gone without its "
				 "poststop, as gc would find it (%s); detached %zu attachment(s)",
				 id, stage, de->d_name, why, done);
			collected++;
		}
		cnirt_cache_entries_free(v, n);
	}
	liveness_world_free(w);
	cnirt_ctx_free(ctx);
	return collected;
}
