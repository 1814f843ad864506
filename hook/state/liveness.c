/* SPDX-License-Identifier: Apache-2.0 */
/* Whether a container is provably gone: gc's verdict and its evidence. */
#include "config.h"

#include <dirent.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/proc-stat.h"
#include "base/util.h"
#include "state/layout.h"
#include "state/liveness.h"
#include "state/netns-pin.h"

/* Where runtimes keep a container's state while it exists: the directory
 * <prefix><id> (glob patterns for the prefix; read once per gc). containerd's
 * runc keeps a namespace's containers in <root>/<namespace>/<id>, which the
 * hook knows as "<namespace>-<id>" (oci-state.c) and other programs (the CRI's
 * own CNI calls) as "<id>": `by_namespace` keys each such directory by both. */
static const struct {
	const char *glob;
	bool by_namespace;
} runtime_state[] = {
    {"/run/runc/", false},
    {"/run/crun/", false},
    {"/run/containerd/runc/*/", true},
};

/* Add "<key>\0<path>" to the set of runtime states. */
static void runtime_state_add(struct strset *out, const char *key, const char *path)
{
	out->v = xreallocarray(out->v, out->n + 1, sizeof(*out->v));
	out->v[out->n++] = xasprintf("%s%c%s", key, 0, path);
}

/* The containers of one runtime state directory `dir`; with `by_namespace`,
 * dir is <root>/<namespace> and each is also keyed "<namespace>-<id>". */
static void runtime_states_in(struct strset *out, const char *dir, bool by_namespace)
{
	_cleanup_free_ char *base = xstrdup(dir);
	for (size_t len = strlen(base); len > 1 && base[len - 1] == '/'; len--)
		base[len - 1] = '\0';
	_cleanup_closedir_ DIR *d = opendir(base);
	if (d == NULL)
		return;
	const char *ns = by_namespace ? strrchr(base, '/') + 1 : NULL;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		_cleanup_free_ char *path = xasprintf("%s/%s", base, de->d_name);
		runtime_state_add(out, de->d_name, path);
		if (ns && *ns) {
			_cleanup_free_ char *key = xasprintf("%s-%s", ns, de->d_name);
			runtime_state_add(out, key, path);
		}
	}
}

/* Every runtime state directory under root, as "<id>\0<path>" strings
 * (sorted by id): one reading of each runtime's directory for all
 * candidates. */
static void runtime_states(const char *root, struct strset *out)
{
	*out = (struct strset){0};
	for (size_t i = 0; i < ARRAY_SIZE(runtime_state); i++) {
		glob_t g;
		_cleanup_free_ char *pattern = xasprintf("%s%s", root, runtime_state[i].glob);
		if (glob(pattern, GLOB_NOSORT | GLOB_ONLYDIR, NULL, &g) != 0)
			continue;
		for (size_t k = 0; k < g.gl_pathc; k++)
			runtime_states_in(out, g.gl_pathv[k], runtime_state[i].by_namespace);
		globfree(&g);
	}
	strset_sort(out);
}

/* The state directory a runtime keeps for the container, or NULL. */
static const char *runtime_state_of(const struct strset *rt, const char *id)
{
	const char *hit = strset_find(rt, id);
	return hit ? hit + strlen(hit) + 1 : NULL;
}

/* The network namespaces of every process, as (dev, ino, pid) sorted: one
 * walk of /proc for all candidates. */
struct nsproc {
	dev_t dev;
	ino_t ino;
	long pid;
};

struct nsprocs {
	struct nsproc *v;
	size_t n;
	bool read, failed;
	const char *proc; /* the /proc to walk */
};

static int nsproc_cmp(const void *a, const void *b)
{
	const struct nsproc *x = a, *y = b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return 0;
}

static void nsprocs_read(struct nsprocs *p)
{
	p->read = true;
	_cleanup_closedir_ DIR *d = opendir(p->proc);
	if (d == NULL) {
		p->failed = true;
		return;
	}
	struct dirent *de;
	char path[64];
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "%.20s/ns/net", de->d_name);
		struct stat st;
		if (fstatat(dirfd(d), path, &st, 0) < 0)
			continue;
		p->v = xreallocarray(p->v, p->n + 1, sizeof(*p->v));
		p->v[p->n++] = (struct nsproc){st.st_dev, st.st_ino, strtol(de->d_name, NULL, 10)};
	}
	if (p->n > 1)
		qsort(p->v, p->n, sizeof(*p->v), nsproc_cmp);
}

/* A process that lives in the network namespace at `path` (its pid), or 0. */
static long netns_process(struct nsprocs *p, const char *path)
{
	struct stat ns;
	if (stat(path, &ns) < 0)
		return 0;
	if (!p->read)
		nsprocs_read(p);
	if (p->failed)
		return 1; /* cannot tell: keep it (pid 1 stands for "some") */
	struct nsproc key = {ns.st_dev, ns.st_ino, 0};
	struct nsproc *hit = p->n ? bsearch(&key, p->v, p->n, sizeof(*p->v), nsproc_cmp) : NULL;
	return hit ? hit->pid : 0;
}

/* What gc reads once and every verdict uses. */
struct liveness_world {
	struct strset runtimes;
	struct nsprocs procs;
	char *proc; /* <root>/proc */
};

struct liveness_world *liveness_world_read_at(const char *root)
{
	struct liveness_world *w = xmalloc(sizeof(*w));
	*w = (struct liveness_world){.proc = xasprintf("%s/proc", root)};
	w->procs.proc = w->proc;
	runtime_states(root, &w->runtimes);
	return w;
}

struct liveness_world *liveness_world_read(void)
{
	return liveness_world_read_at("");
}

void liveness_world_free(struct liveness_world *w)
{
	if (w == NULL)
		return;
	strv_free(w->runtimes.v, w->runtimes.n);
	free(w->procs.v);
	free(w->proc);
	free(w);
}

/*
 * The runtime's state directory `dir` for a container: is the container
 * stopped, the runtime's init process it names gone (runc's and
 * containerd's runc's state.json: init_process_pid, init_process_start;
 * crun's status: pid, process-start-time)? runc and crun call such a
 * container "stopped" and never start it again; only its delete, which
 * runs poststop, is left. Else (running, created, paused, or a state that
 * cannot be read) false, with *evidence saying so.
 */
static bool runtime_stopped(const char *proc, const char *dir, char **evidence)
{
	static const struct {
		const char *file, *pid, *start;
	} layouts[] = {
	    {"state.json", "init_process_pid", "init_process_start"},
	    {"status", "pid", "process-start-time"},
	};
	_cleanup_free_ char *dir_shown = error_shown_whole(dir);
	for (size_t i = 0; i < ARRAY_SIZE(layouts); i++) {
		_cleanup_free_ char *path = xasprintf("%s/%s", dir, layouts[i].file);
		_cleanup_free_ char *buf = NULL;
		_cleanup_free_ char *err = NULL;
		_cleanup_json_ json *v = NULL;
		size_t len = 0;
		if (read_file(path, 16u << 20, &buf, &len, NULL, &err) < 0 ||
		    json_parse_with(buf, len, path, &util_json, &v, &err) < 0)
			continue;
		json *pid = json_obj_get(v, layouts[i].pid);
		json *start = json_obj_get(v, layouts[i].start);
		if (!json_is_int(pid) || json_int_value(pid) <= 0 || !json_is_int(start))
			continue;
		unsigned long long now = 0;
		long p = (long)json_int_value(pid);
		if (proc_stat_start_time_in(proc, p, &now) == 0 &&
		    now == (unsigned long long)json_int_value(start)) {
			*evidence = xasprintf("its runtime has state for it (%s), and its init "
					      "process %ld lives",
					      dir_shown, p);
			return false;
		}
		*evidence = xasprintf("its runtime's state (%s) is stopped: its init process %ld "
				      "is gone",
				      dir_shown, p);
		return true;
	}
	*evidence = xasprintf("its runtime has state for it (%s)", dir_shown);
	return false;
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
	    json_parse_with(conv, strlen(conv), "result", &util_json, &v, &err) < 0) {
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
static bool foreign_gone(bool netns_from_result, const struct liveness_candidate *c,
			 char **evidence)
{
	for (size_t i = 0; i < c->n; i++) {
		const cnirt_cache_entry *e = c->v[i];
		const char *netns = cnirt_cache_entry_netns(e);
		_cleanup_free_ char *net = error_shown(cnirt_cache_entry_network(e));
		_cleanup_free_ char *ifname = error_shown(cnirt_cache_entry_ifname(e));
		char **paths = NULL;
		size_t n_paths = 0;
		const char *from = "its cache entry";
		if (netns && *netns) {
			strv_append(&paths, &n_paths, netns);
		} else if (netns_from_result) {
			result_sandboxes(e, &paths, &n_paths);
			from = "the sandbox of its cached result";
		}
		if (n_paths == 0) {
			free(*evidence);
			*evidence = xasprintf(
			    "the cache entry of network \"%s\", interface \"%s\" names no network "
			    "namespace%s and cnihook has no record of it: nothing proves it gone",
			    net, ifname, netns_from_result ? " (nor does its cached result)" : "");
			strv_free(paths, n_paths);
			return false;
		}
		for (size_t k = 0; k < n_paths; k++) {
			_cleanup_free_ char *seen = NULL;
			int r = netns_pin_probe(paths[k], &seen);
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
static bool own_gone(const char *state_dir, struct liveness_world *w,
		     const struct liveness_candidate *c, char **evidence)
{
	_cleanup_free_ char *pin = layout_pin(state_dir, c->id);
	_cleanup_free_ char *pin_shown = error_shown_whole(pin);
	if (netns_pin_is_netns(pin)) {
		long pid = netns_process(&w->procs, pin);
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
		if (netns_pin_probe(p, &seen) != 0) {
			free(*evidence);
			*evidence = TAKE_PTR(seen);
			return false;
		}
		add_evidence(evidence, "%s", seen);
	}
	return true;
}

bool liveness_gone(const char *state_dir, bool netns_from_result, struct liveness_world *w,
		   const struct liveness_candidate *c, char **evidence)
{
	*evidence = NULL;
	const char *rt = runtime_state_of(&w->runtimes, c->id);
	if (rt && !runtime_stopped(w->proc, rt, evidence))
		return false;
	if (rt == NULL)
		add_evidence(evidence, "no state of runc, crun or containerd");
	if (c->own)
		return own_gone(state_dir, w, c, evidence);
	if (c->n == 0) {
		add_evidence(evidence, "nothing of it but its lock file or name link");
		return true;
	}
	return foreign_gone(netns_from_result, c, evidence);
}
