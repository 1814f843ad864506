/* SPDX-License-Identifier: Apache-2.0 */
/* Collecting the attachments of containers that are gone. */
#include "config.h"

#include <dirent.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <cnirt.h>

#include "gc.h"
#include "inventory.h"
#include "lifecycle.h"
#include "log.h"
#include "netns.h"
#include "record.h"
#include "util.h"

/* Where runtimes keep a container's state while it exists: the directory
 * <prefix><id> (glob patterns; a container id has no glob characters). */
static const char *const runtime_state[] = {
    "/run/runc/",
    "/run/crun/",
    "/run/containerd/runc/*/",
};

static bool runtime_has_state(const char *id)
{
	for (size_t i = 0; i < ARRAY_SIZE(runtime_state); i++) {
		_cleanup_free_ char *pattern = xasprintf("%s%s", runtime_state[i], id);
		glob_t g;
		int r = glob(pattern, GLOB_NOSORT, NULL, &g);
		bool found = r == 0 && g.gl_pathc > 0;
		if (r == 0)
			globfree(&g);
		if (found)
			return true;
	}
	return false;
}

/* Does any process live in the network namespace at `path`? */
static bool netns_has_process(const char *path)
{
	struct stat ns;
	if (stat(path, &ns) < 0)
		return false;
	DIR *d = opendir("/proc");
	if (d == NULL)
		return true; /* cannot tell: keep it */
	bool found = false;
	struct dirent *de;
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		_cleanup_free_ char *p = xasprintf("/proc/%s/ns/net", de->d_name);
		struct stat st;
		found = stat(p, &st) == 0 && st.st_dev == ns.st_dev && st.st_ino == ns.st_ino;
	}
	closedir(d);
	return found;
}

struct candidate {
	char *id;
	size_t n_attachments;
	char **netns; /* the cached netns paths */
	size_t n_netns;
};

static struct candidate *find(struct candidate **v, size_t *n, const char *id)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*v)[i].id, id) == 0)
			return &(*v)[i];
	*v = xreallocarray(*v, *n + 1, sizeof(**v));
	struct candidate *c = &(*v)[(*n)++];
	*c = (struct candidate){.id = xstrdup(id)};
	return c;
}

/* Why the container is still there, or NULL when it is gone. */
static const char *alive(const struct hook_config *cfg, const struct candidate *c)
{
	if (runtime_has_state(c->id))
		return "its runtime has state for it";
	_cleanup_free_ char *pin = xasprintf("%s/%s/netns", cfg->state_dir, c->id);
	if (netns_is_netns(pin) && netns_has_process(pin))
		return "a process lives in its network namespace";
	for (size_t i = 0; i < c->n_netns; i++) {
		const char *p = c->netns[i];
		if (*p && strcmp(p, pin) != 0 && netns_is_netns(p))
			return "its network namespace exists";
	}
	return NULL;
}

static void collect(const struct hook_config *cfg, cnirt_cache_entry **cache, size_t n_cache,
		    struct candidate **v, size_t *n)
{
	for (size_t i = 0; i < n_cache; i++) {
		struct candidate *c = find(v, n, cnirt_cache_entry_container_id(cache[i]));
		c->n_attachments++;
		const char *netns = cnirt_cache_entry_netns(cache[i]);
		strv_append(&c->netns, &c->n_netns, netns ? netns : "");
	}
	DIR *d = opendir(cfg->state_dir);
	if (d == NULL)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		cnirt_error *e = NULL;
		_cleanup_free_ char *name = xstrdup(de->d_name);
		size_t len = strlen(name);
		if (len > 5 && strcmp(name + len - 5, ".lock") == 0)
			name[len - 5] = '\0';
		if (name[0] == '.' || strcmp(name, "ports") == 0 || log_is_own_file(name) ||
		    cnirt_check_container_id(name, &e) < 0) {
			cnirt_error_free(e);
			continue;
		}
		find(v, n, name);
	}
	closedir(d);
}

/* The spec 1.1.0 GC verb for every network that speaks it, with the
 * attachments the cache still holds as the valid ones. */
static int gc_verb(const struct hook_config *cfg, cnirt_ctx *ctx, bool dry_run,
		   cnirt_cache_entry **cache, size_t n_cache)
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
		cnirt_attachment_id *valid = xreallocarray(NULL, n_cache + 1, sizeof(*valid));
		size_t n = 0;
		for (size_t k = 0; k < n_cache; k++)
			if (strcmp(cnirt_cache_entry_network(cache[k]), cnirt_netlist_name(l)) == 0)
				valid[n++] =
				    (cnirt_attachment_id){cnirt_cache_entry_container_id(cache[k]),
							  cnirt_cache_entry_ifname(cache[k])};
		if (dry_run) {
			printf("gc: network \"%s\": would send GC with %zu valid attachment(s)\n",
			       cnirt_netlist_name(l), n);
		} else if (cnirt_gc(ctx, l, valid, n, &e) < 0) {
			_cleanup_free_ char *m = log_format_error(cnirt_netlist_name(l), e);
			log_error("gc: %s", m);
			cnirt_error_free(TAKE_PTR(e));
			ret = -1;
		} else {
			printf("gc: network \"%s\": GC sent with %zu valid attachment(s)\n",
			       cnirt_netlist_name(l), n);
		}
		free(valid);
	}
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
		_cleanup_free_ char *path = record_path(cfg->state_dir, gone[i]);
		_cleanup_free_ char *err = NULL;
		struct record *rec = NULL;
		if (record_read(path, &rec, &err) < 0 || rec == NULL)
			continue;
		bool found = false;
		for (size_t k = 0; k < rec->n && !found; k++) {
			_cleanup_free_ char *want =
			    xasprintf("%s-%s-%s", rec->v[k].network, gone[i], rec->v[k].ifname);
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
		_cleanup_free_ char *p = inventory_cache_file_shown(ctx, d[i].name);
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

int gc_run(const struct hook_config *cfg, bool dry_run)
{
	cnirt_ctx *ctx = config_ctx(cfg);
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
	struct candidate *v = NULL;
	size_t n = 0;
	collect(cfg, cache, n_cache, &v, &n);

	int failed = 0;
	char **gone = NULL; /* in a dry run, what would be gone */
	size_t n_gone = 0;
	bool detached = false;
	for (size_t i = 0; i < n; i++) {
		const char *why = alive(cfg, &v[i]);
		if (why) {
			log_info("gc: container \"%s\": kept: %s", v[i].id, why);
		} else if (dry_run) {
			strv_append(&gone, &n_gone, v[i].id);
			printf("gc: container \"%s\": gone: would detach %zu attachment(s) and "
			       "remove its state\n",
			       v[i].id, v[i].n_attachments);
		} else {
			int r = lifecycle_detach(cfg, v[i].id, "gc");
			detached = true;
			if (r == 1)
				log_info("gc: container \"%s\": busy (a stage holds its lock), "
					 "left for later",
					 v[i].id);
			else if (r < 0)
				failed = 1;
			else
				printf("gc: container \"%s\": gone: detached %zu attachment(s), "
				       "state removed\n",
				       v[i].id, v[i].n_attachments);
		}
		free(v[i].id);
		strv_free(v[i].netns, v[i].n_netns);
	}
	free(v);

	/* The teardowns changed the cache: what is left of it now. */
	if (detached) {
		cnirt_cache_entries_free(cache, n_cache);
		cnirt_cache_damage_free(damaged, n_damaged);
		cache = NULL, damaged = NULL, n_cache = n_damaged = 0;
		if (cnirt_cache_scan(ctx, &cache, &n_cache, &damaged, &n_damaged, &e) < 0) {
			log_error("gc: %s", cnirt_error_msg(e));
			cnirt_error_free(e);
			strv_free(gone, n_gone);
			cnirt_ctx_free(ctx);
			return 1;
		}
	}
	fflush(stdout);
	report_damaged(cfg, ctx, dry_run, gone, n_gone, damaged, n_damaged);
	if (gc_verb(cfg, ctx, dry_run, cache, n_cache) < 0)
		failed = 1;
	cnirt_cache_entries_free(cache, n_cache);
	cnirt_cache_damage_free(damaged, n_damaged);
	strv_free(gone, n_gone);
	cnirt_ctx_free(ctx);
	return failed ? 1 : 0;
}
