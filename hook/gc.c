/* SPDX-License-Identifier: Apache-2.0 */
/* Collecting the attachments of containers that are gone. */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* The state directory a runtime keeps for the container (a new string), or
 * NULL when none has. */
static char *runtime_state_of(const char *id)
{
	for (size_t i = 0; i < ARRAY_SIZE(runtime_state); i++) {
		_cleanup_free_ char *pattern = xasprintf("%s%s", runtime_state[i], id);
		glob_t g;
		int r = glob(pattern, GLOB_NOSORT, NULL, &g);
		char *found = r == 0 && g.gl_pathc > 0 ? xstrdup(g.gl_pathv[0]) : NULL;
		if (r == 0)
			globfree(&g);
		if (found)
			return found;
	}
	return NULL;
}

/* A process that lives in the network namespace at `path` (its pid), or 0. */
static long netns_process(const char *path)
{
	struct stat ns;
	if (stat(path, &ns) < 0)
		return 0;
	DIR *d = opendir("/proc");
	if (d == NULL)
		return 1; /* cannot tell: keep it (pid 1 stands for "some") */
	long found = 0;
	struct dirent *de;
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		_cleanup_free_ char *p = xasprintf("/proc/%s/ns/net", de->d_name);
		struct stat st;
		if (stat(p, &st) == 0 && st.st_dev == ns.st_dev && st.st_ino == ns.st_ino)
			found = strtol(de->d_name, NULL, 10);
	}
	closedir(d);
	return found;
}

struct candidate {
	char *id;
	bool own;		     /* <stateDir>/<id>/ exists: the hook attached it */
	const cnirt_cache_entry **v; /* its cache entries */
	size_t n;
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

/* Append "; " and the formatted text to *s. */
static void PRINTF_LIKE(2, 3) add_evidence(char **s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	_cleanup_free_ char *part = NULL;
	if (vasprintf(&part, fmt, ap) < 0)
		abort();
	va_end(ap);
	char *joined = *s ? xasprintf("%s; %s", *s, part) : TAKE_PTR(part);
	free(*s);
	*s = joined;
}

/* The network namespaces the cached result's interfaces name as their
 * sandbox (--netns-from-result), distinct, in order. */
static void result_sandboxes(const cnirt_cache_entry *c, char ***out, size_t *n)
{
	const char *result = cnirt_cache_entry_result(c);
	cnirt_error *e = NULL;
	_cleanup_free_ char *conv = NULL;
	_cleanup_free_ char *err = NULL;
	_cleanup_json_ json *v = NULL;
	if (result == NULL ||
	    cnirt_result_convert(result, strlen(result), "1.0.0", &conv, &e) < 0 ||
	    json_parse_with(conv, strlen(conv), "result", &hook_json, &v, &err) < 0) {
		cnirt_error_free(e);
		return;
	}
	json *ifs = json_obj_get(v, "interfaces");
	for (size_t i = 0; json_is_array(ifs) && i < ifs->u.array.n; i++) {
		const char *sb = json_str(json_obj_get(ifs->u.array.v[i], "sandbox"));
		bool seen = sb == NULL || *sb == '\0';
		for (size_t k = 0; k < *n && !seen; k++)
			seen = strcmp((*out)[k], sb) == 0;
		if (!seen)
			strv_append(out, n, sb);
	}
}

/*
 * An attachment of another program (no record of the hook): gone only when
 * every entry names network namespaces and each provably is none any more.
 * Returns true when gone; *evidence says what was checked or seen.
 */
static bool foreign_gone(const struct gc_options *o, const struct candidate *c, char **evidence)
{
	for (size_t i = 0; i < c->n; i++) {
		const cnirt_cache_entry *e = c->v[i];
		const char *netns = cnirt_cache_entry_netns(e);
		_cleanup_free_ char *net = shown(cnirt_cache_entry_network(e));
		_cleanup_free_ char *ifname = shown(cnirt_cache_entry_ifname(e));
		char **paths = NULL;
		size_t n_paths = 0;
		const char *from = "its cache entry";
		if (netns && *netns) {
			strv_append(&paths, &n_paths, netns);
		} else if (o->netns_from_result) {
			result_sandboxes(e, &paths, &n_paths);
			from = "the sandbox of its cached result";
		}
		if (n_paths == 0) {
			free(*evidence);
			*evidence = xasprintf(
			    "the cache entry of network \"%s\", interface \"%s\" names no network "
			    "namespace%s and cnihook has no record of it: nothing proves it gone",
			    net, ifname,
			    o->netns_from_result ? " (nor does its cached result)" : "");
			strv_free(paths, n_paths);
			return false;
		}
		for (size_t k = 0; k < n_paths; k++) {
			_cleanup_free_ char *seen = NULL;
			int r = netns_probe(paths[k], &seen);
			if (r != 0) {
				free(*evidence);
				*evidence = r > 0 ? xasprintf("%s (named by %s of network \"%s\")",
							      seen, from, net)
						  : TAKE_PTR(seen);
				strv_free(paths, n_paths);
				return false;
			}
			add_evidence(evidence, "%s (named by %s of network \"%s\")", seen, from,
				     net);
		}
		strv_free(paths, n_paths);
	}
	return true;
}

/* The hook's own attachment: gone when no process lives in its pinned
 * namespace and no namespace its cache entries name exists. */
static bool own_gone(const struct hook_config *cfg, const struct candidate *c, char **evidence)
{
	_cleanup_free_ char *pin = xasprintf("%s/%s/netns", cfg->state_dir, c->id);
	_cleanup_free_ char *pin_shown = shown_whole(pin);
	if (netns_is_netns(pin)) {
		long pid = netns_process(pin);
		if (pid) {
			free(*evidence);
			*evidence = xasprintf(
			    "process %ld lives in its pinned network namespace %s", pid, pin_shown);
			return false;
		}
		add_evidence(evidence, "no process lives in its pinned network namespace %s",
			     pin_shown);
	} else {
		add_evidence(evidence, "its pin %s is no network namespace", pin_shown);
	}
	for (size_t i = 0; i < c->n; i++) {
		const char *p = cnirt_cache_entry_netns(c->v[i]);
		if (p == NULL || *p == '\0' || strcmp(p, pin) == 0)
			continue;
		_cleanup_free_ char *seen = NULL;
		if (netns_probe(p, &seen) != 0) {
			free(*evidence);
			*evidence = TAKE_PTR(seen);
			return false;
		}
		add_evidence(evidence, "%s", seen);
	}
	return true;
}

/* Is the container gone? *evidence (a new string) says why or why not. */
static bool container_gone(const struct hook_config *cfg, const struct gc_options *o,
			   const struct candidate *c, char **evidence)
{
	*evidence = NULL;
	_cleanup_free_ char *rt = runtime_state_of(c->id);
	if (rt) {
		_cleanup_free_ char *p = shown_whole(rt);
		*evidence = xasprintf("its runtime has state for it (%s)", p);
		return false;
	}
	add_evidence(evidence, "no state of runc, crun or containerd");
	if (c->own)
		return own_gone(cfg, c, evidence);
	if (c->n == 0) {
		add_evidence(evidence, "nothing of it but its lock file");
		return true;
	}
	return foreign_gone(o, c, evidence);
}

static void collect(const struct hook_config *cfg, cnirt_cache_entry **cache, size_t n_cache,
		    struct candidate **v, size_t *n)
{
	for (size_t i = 0; i < n_cache; i++) {
		struct candidate *c = find(v, n, cnirt_cache_entry_container_id(cache[i]));
		c->v = xreallocarray(c->v, c->n + 1, sizeof(*c->v));
		c->v[c->n++] = cache[i];
	}
	DIR *d = opendir(cfg->state_dir);
	if (d == NULL)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		cnirt_error *e = NULL;
		_cleanup_free_ char *name = xstrdup(de->d_name);
		size_t len = strlen(name);
		bool lock = len > 5 && strcmp(name + len - 5, ".lock") == 0;
		if (lock)
			name[len - 5] = '\0';
		if (name[0] == '.' || strcmp(name, "ports") == 0 || log_is_own_file(name) ||
		    cnirt_check_container_id(name, &e) < 0) {
			cnirt_error_free(e);
			continue;
		}
		struct stat st;
		struct candidate *c = find(v, n, name);
		if (!lock && fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISDIR(st.st_mode))
			c->own = true;
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

int gc_run(const struct hook_config *cfg, const struct gc_options *o)
{
	if (geteuid() != 0) {
		log_error("gc needs root (it reads the state directory and the cache, and runs "
			  "the plugins)");
		return 1;
	}
	bool dry_run = o->dry_run;
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
		_cleanup_free_ char *why = NULL;
		if (!container_gone(cfg, o, &v[i], &why)) {
			printf("gc: container \"%s\": kept: %s\n", v[i].id, why);
		} else if (dry_run) {
			strv_append(&gone, &n_gone, v[i].id);
			printf("gc: container \"%s\": gone: would detach %zu attachment(s) and "
			       "remove its state (%s)\n",
			       v[i].id, v[i].n, why);
		} else {
			int r = lifecycle_detach(cfg, v[i].id, "gc");
			detached = true;
			if (r == 1)
				printf("gc: container \"%s\": kept: busy (a stage holds its lock), "
				       "left for later\n",
				       v[i].id);
			else if (r < 0)
				failed = 1;
			else
				printf("gc: container \"%s\": gone: detached %zu attachment(s), "
				       "state removed (%s)\n",
				       v[i].id, v[i].n, why);
		}
		free(v[i].id);
		free(v[i].v);
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
