/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The engine run for rootless podman (rootless.h; cnihook(8), ROOTLESS;
 * docs/architecture.md, "Rootless podman"). The user's lock is held from
 * the first step to the last, so that a start and the last stop of one
 * user never cross: the namespace is made or removed under it. Each step
 * returns its failure; a child's comes back on a pipe.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/log.h"
#include "common/json.h"
#include "engine/rootless.h"
#include "host/host-sockets.h"
#include "host/port-forwarder.h"
#include "host/rootless-watch.h"
#include "state/layout.h"
#include "state/netns-pin.h"
#include "state/network-status.h"
#include "state/record.h"

/* The user of host uid `uid`, whose runtime directory `owner` owns (as
 * the process sees it), with the paths of the user's directory; its
 * directories in cfg. */
static int user_of(struct hook_config *cfg, struct rootless_user *u, unsigned long uid,
		   unsigned long owner, char **why)
{
	_cleanup_free_ char *run_dir = layout_rootless_run_dir(uid);
	if (rootless_netns_check_run_dir(run_dir, uid, owner, why) < 0)
		return -1;
	char *dir = layout_rootless_dir(run_dir);
	/* Each path made before the directory's is handed over: the order of
	 * an initializer's expressions is unspecified. */
	*u = (struct rootless_user){
	    .uid = uid,
	    .netns = layout_rootless_netns(dir),
	    .slirp_pid = layout_rootless_slirp_pid(dir),
	    .watch_pid = layout_rootless_watch_pid(dir),
	    .state = layout_rootless_state(dir),
	    .cache = layout_rootless_cache(dir),
	    .run = layout_rootless_run(dir),
	    .cni = layout_rootless_cni(dir),
	    .forwarders = layout_rootless_forwarders(dir),
	    .lock_fd = -1,
	};
	u->run_dir = TAKE_PTR(run_dir);
	u->dir = dir;
	free(cfg->state_dir);
	free(cfg->cache_dir);
	free(cfg->plugin_runtime_dir);
	cfg->state_dir = xstrdup(u->state);
	cfg->cache_dir = xstrdup(u->cache);
	cfg->plugin_runtime_dir = xstrdup(u->run);
	return 0;
}

int rootless_configure(struct hook_config *cfg, struct rootless_user *u, char **why)
{
	unsigned long uid;
	if (rootless_netns_own_uid(&uid, why) < 0)
		return -1;
	return user_of(cfg, u, uid, 0, why);
}

int rootless_configure_host_user(struct hook_config *cfg, struct rootless_user *u, char **why)
{
	unsigned long uid = geteuid();
	return user_of(cfg, u, uid, uid, why);
}

/* Does the user's state directory still hold a container other than
 * `but` (NULL: any)? */
static bool any_container_but(const struct hook_config *cfg, const char *but)
{
	DIR *d = opendir(cfg->state_dir);
	if (!d)
		return false;
	bool any = false;
	struct dirent *de;
	while (!any && (de = readdir(d))) {
		struct stat st;
		any = layout_entry(de->d_name, NULL) == LAYOUT_CONTAINER &&
		      (!but || strcmp(de->d_name, but) != 0) &&
		      fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		      S_ISDIR(st.st_mode);
	}
	closedir(d);
	return any;
}

static bool any_container(const struct hook_config *cfg)
{
	return any_container_but(cfg, NULL);
}

/* The child that starts slirp4netns and the user's watch for a namespace
 * made by this stage, while the plugins run in another (0: none). It
 * holds the user's lock as well (the descriptor is inherited), so that
 * no other stage of the user's starts before it is done, even when the
 * hook is killed. */
static pid_t helpers_child;

/* The helpers' child, if any, has finished (it logged what failed). */
static void helpers_wait(void)
{
	if (helpers_child > 0)
		TEMP_FAILURE_RETRY(waitpid(helpers_child, NULL, 0));
	helpers_child = 0;
}

/* After a stop, or a start that failed: the namespace goes with the user's
 * last container. */
static void teardown_if_last(const struct rootless_call *c)
{
	helpers_wait();
	if (any_container(c->cfg))
		return;
	_cleanup_free_ char *err = NULL;
	if (rootless_netns_teardown(c->user, &err) < 0)
		log_error("%s %s: the user's last container is gone, but its rootless network "
			  "namespace could not be removed: %s (remove it with `podman unshare "
			  "cnihook gc`)",
			  c->id, c->stage, err);
}

/* slirp4netns started when `slirp`, then the user's watch when `watch`. */
static void start_helpers(const struct rootless_call *c, bool slirp, bool watch)
{
	_cleanup_free_ char *err = NULL;
	int r = slirp ? rootless_netns_start_slirp(c->user, &err) : 0;
	if (r < 0)
		log_warn("%s %s: rootless network namespace: no outbound traffic: %s", c->id,
			 c->stage, err);
	else if (r > 0)
		log_warn("%s %s: %s", c->id, c->stage, err);
	free(TAKE_PTR(err));
	r = watch ? rootless_watch_start(c->user, &err) : 0;
	if (r < 0)
		log_warn("%s %s: the user's watch could not be started: %s", c->id, c->stage, err);
	else if (r > 0)
		log_warn("%s %s: the user's watch: %s", c->id, c->stage, err);
}

/* slirp4netns started, when the namespace was made now or when the one
 * started with it is gone (killed: every container of the user's lost
 * its outbound traffic); the user's watch started when it is not there.
 * For a namespace made now, in a child (helpers_child) while the stage
 * goes on: the plugins need neither. */
static void heal_helpers(const struct rootless_call *c, bool made)
{
	helpers_wait();
	long pid = 0;
	bool start_slirp = made || !rootless_netns_pidfile_alive(c->user->slirp_pid, &pid);
	bool start_watch = !rootless_netns_pidfile_alive(c->user->watch_pid, NULL);
	if (start_slirp && !made)
		log_warn("%s %s: the user's slirp4netns (pid %ld) is not running (killed?): "
			 "started again",
			 c->id, c->stage, pid);
	if (made) {
		fflush(NULL);
		pid_t child = fork();
		if (child == 0) {
			start_helpers(c, start_slirp, start_watch);
			fflush(NULL);
			_exit(0);
		}
		if (child > 0) {
			helpers_child = child;
			return;
		}
	}
	start_helpers(c, start_slirp, start_watch);
}

/* The namespace, made if needed, with slirp4netns for outbound traffic and
 * the user's watch; the state and cache directories. */
static int prepare(const struct rootless_call *c, char **err)
{
	int made = rootless_netns_ensure(c->user, err);
	if (made < 0)
		return -1;
	heal_helpers(c, made > 0);
	if (dir_mkdir_p(c->cfg->state_dir, 0700, err) < 0 ||
	    dir_mkdir_p(c->cfg->cache_dir, 0700, err) < 0 ||
	    netns_pin_share_dir(c->cfg->state_dir, err) < 0)
		return -1;
	return 0;
}

/* What the child wrote on `fd` before it exited (the write end may live
 * on a moment in a forwarder it spawned: read without waiting), or NULL. */
static char *child_message(int fd)
{
	char buf[4096];
	size_t len = 0;
	ssize_t n;
	if (fcntl(fd, F_SETFL, O_NONBLOCK) < 0)
		return NULL;
	while (len < sizeof(buf) - 1 &&
	       (n = TEMP_FAILURE_RETRY(read(fd, buf + len, sizeof(buf) - 1 - len))) > 0)
		len += (size_t)n;
	return len ? xstrndup(buf, len) : NULL;
}

/* Wait for the child: 0 when it exited 0; else -1 and its message (NULL
 * when it had none: its engine call reported). */
static int wait_child(pid_t pid, int msg, char **err)
{
	int status;
	if (pid < 0)
		return error_set(err, "fork: %m");
	if (TEMP_FAILURE_RETRY(waitpid(pid, &status, 0)) < 0)
		return error_set(err, "wait: %m");
	if (WIFSIGNALED(status))
		return error_set(err, "the rootless child was killed by signal %d",
				 WTERMSIG(status));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	*err = child_message(msg);
	return -1;
}

/* In a child: inside the namespace (with the plugins' mounts when
 * `mounts`), fn; its failure's message written on `msg`; never returns. */
static void run_child(const struct rootless_call *c, bool mounts, rootless_fn fn, void *data,
		      int msg)
{
	_cleanup_free_ char *err = NULL;
	int r = mounts ? rootless_netns_enter(c->user, &err) : rootless_netns_join(c->user, &err);
	if (r == 0)
		r = fn(data, &err);
	/* Unwritten, it is a failure without a message all the same. */
	if (r < 0 && err && write(msg, err, strlen(err)) < 0)
		r = -1;
	fflush(NULL);
	_exit(r < 0 ? 1 : 0);
}

/* fn run in a child inside the namespace: 0 when it succeeded, else -1
 * and its message (NULL: its engine call reported). */
static int in_child(const struct rootless_call *c, bool mounts, rootless_fn fn, void *data,
		    char **err)
{
	int msg[2];
	if (pipe2(msg, O_CLOEXEC) < 0)
		return error_set(err, "pipe: %m");
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		close(msg[0]);
		run_child(c, mounts, fn, data, msg[1]);
	}
	close(msg[1]);
	int ret = wait_child(pid, msg[0], err);
	close(msg[0]);
	return ret;
}

struct forwarder_start {
	const struct rootless_call *c;
	const struct forward_plan *plan;
};

/* In the forwarder's child: started, its pid file written. */
static int spawn_forwarder(void *data, char **err)
{
	const struct forwarder_start *f = data;
	_cleanup_free_ char *e = NULL;
	_cleanup_free_ char *warn = NULL;
	_cleanup_free_ char *pidfile = layout_rootless_forwarder(f->c->user->dir, f->c->attachment);
	long pid = -1;
	int r = dir_mkdir_p(f->c->user->forwarders, 0700, &e);
	if (r == 0 && (r = port_forwarder_spawn(f->plan, &pid, &warn)) < 0)
		e = TAKE_PTR(warn);
	if (r >= 0 && rootless_netns_write_pidfile(pidfile, pid, &e) == 0) {
		/* It runs: the warning is an event of the engine's, logged here. */
		if (r > 0)
			log_warn("%s %s: %s", f->c->id, f->c->stage, warn);
		return 0;
	}
	return error_set(err, "port forwarder: %s", e);
}

/* The forwarder of attachment c->attachment, its ports taken: the targets
 * it lacks from the network status (one entry per attachment, in the
 * selection's order), then started by a child that joins the namespace
 * (in podman's mount namespace, not the plugins'). */
static int start_forwarder(const struct rootless_call *c, struct forward_plan *plan, char **err)
{
	for (size_t i = 0; i < plan->n; i++) {
		if (plan->v[i].target)
			continue;
		_cleanup_free_ char *e = NULL;
		_cleanup_free_ char *ip =
		    network_status_first_ip(c->status_path, plan->v[i].attachment, &e);
		if (!ip)
			return error_set(err, "port forwarder: %s", e);
		port_forwarder_set_target(plan, plan->v[i].attachment, ip);
	}
	plan->owner = c->attachment;
	struct forwarder_start f = {.c = c, .plan = plan};
	return in_child(c, false, spawn_forwarder, &f, err);
}

/* The forward plan of attachment `id`, from the port mappings its record
 * gave the plugins. */
static int plan_from_record(const struct rootless_call *c, const char *id,
			    struct forward_plan *plan, char **err)
{
	_cleanup_free_ char *path = layout_record(c->cfg->state_dir, id);
	struct record *rec = NULL;
	if (record_read(path, &rec, err) < 0)
		return -1;
	int ret = rec ? 0 : error_set(err, "%s: missing", path);
	for (size_t i = 0; ret == 0 && rec && i < rec->n; i++) {
		const char *args = rec->v[i].cap_args;
		_cleanup_json_ json *j = NULL;
		_cleanup_free_ char *e = NULL;
		if (!args)
			continue;
		if (json_parse_with(args, strlen(args), "capability arguments", &util_json, &j,
				    &e) < 0) {
			ret = error_set(err, "%s: %s", path, e);
			break;
		}
		json *m = json_obj_get(j, "portMappings");
		if (!json_is_array(m))
			continue;
		struct port_mappings pm = {0};
		if (port_mappings_from_json(m, &pm, &e) < 0)
			ret = error_set(err, "%s: portMappings: %s", path, e);
		else
			ret = port_forwarder_plan_add(plan, i, &pm, err);
		port_mappings_free(&pm);
	}
	record_free(rec);
	return ret;
}

/* A forwarder listed in forwarders/ that is not running (killed) while its
 * attachment lives: its ports taken again and the forwarder started. */
static void heal_forwarder(const struct rootless_call *c, const char *id, long pid)
{
	_cleanup_free_ char *err = NULL;
	_cleanup_free_ char *status = layout_status(c->cfg->state_dir, id);
	struct rootless_call h = *c;
	h.attachment = id;
	h.status_path = status;
	struct forward_plan plan = {.run_dir = c->user->run_dir};
	int r = plan_from_record(c, id, &plan, &err);
	if (r == 0 && plan.n == 0)
		r = error_set(&err, "its record gives the plugins no port mappings");
	if (r == 0)
		r = port_forwarder_listen(&plan, &err);
	if (r == 0)
		r = start_forwarder(&h, &plan, &err);
	if (r == 0)
		log_warn("%s %s: the port forwarder of \"%s\" (pid %ld) was not running "
			 "(killed?): started again",
			 c->id, c->stage, id, pid);
	else
		log_warn("%s %s: the port forwarder of \"%s\" (pid %ld) is not running and "
			 "cannot be started again: %s",
			 c->id, c->stage, id, pid, err ? err : "the log says why");
	port_forwarder_plan_free(&plan);
}

/* The forwarders of the user's attachments, each stopped when its
 * attachment is gone (gc tore it down) and started again when it is not
 * running while its attachment lives. */
static void check_forwarders(const struct rootless_call *c)
{
	_cleanup_closedir_ DIR *d = opendir(c->user->forwarders);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (layout_entry(de->d_name, NULL) != LAYOUT_CONTAINER)
			continue;
		_cleanup_free_ char *state = layout_container_dir(c->cfg->state_dir, de->d_name);
		_cleanup_free_ char *pidfile = layout_rootless_forwarder(c->user->dir, de->d_name);
		_cleanup_free_ char *err = NULL;
		long pid = 0;
		if (access(state, F_OK) == 0) {
			if (!rootless_netns_pidfile_alive(pidfile, &pid))
				heal_forwarder(c, de->d_name, pid);
		} else if (rootless_netns_stop_pidfile(pidfile, &err) < 0) {
			log_warn("%s %s: %s: port forwarder: %s", c->id, c->stage, de->d_name, err);
		} else {
			log_info("%s %s: %s: port forwarder stopped", c->id, c->stage, de->d_name);
		}
	}
}

static int collect_in_netns(void *data, char **err)
{
	const struct rootless_call *c = data;
	c->collect_gone(c->cfg, c->attachment, c->stage);
	return 0;
}

/* Before a stage, under the user's lock: the attachments gc would find
 * gone collected (a poststop missed: a runtime or podman killed), their
 * forwarders stopped, the helpers that are not running (killed) started
 * again (no child to collect when the stage's own attachment is the
 * only one). 1 when it prepared the namespace (prepare()), 0 when the
 * user has no container (nothing to heal), -1 when the namespace cannot
 * be prepared (*err). */
static int heal(const struct rootless_call *c, char **err)
{
	if (!any_container(c->cfg))
		return 0;
	if (prepare(c, err) < 0)
		return -1;
	_cleanup_free_ char *e = NULL;
	if (c->collect_gone && any_container_but(c->cfg, c->attachment) &&
	    in_child(c, true, collect_in_netns, (void *)c, &e) < 0 && e)
		log_error("%s %s: %s", c->id, c->stage, e);
	check_forwarders(c);
	return 1;
}

/* A port of the selection cannot be taken: the socket that holds it and
 * its process, as a root attach names them (host/host-sockets.h), or NULL
 * when none is found. */
static char *port_holder(const struct selection *sel)
{
	struct host_sockets hs = {0};
	char *held = NULL;
	_cleanup_free_ char *err = NULL;
	if (host_sockets_read("/proc", &hs, &err) < 0)
		return NULL;
	for (size_t i = 0; i < sel->n && !held; i++) {
		const struct attach_req *a = &sel->v[i];
		if (a->ports.n &&
		    host_sockets_check(&hs, "/proc", a->ports_key ? a->ports_key : ANN_PORTS,
				       &a->ports, &held) == 0)
			free(TAKE_PTR(held));
	}
	host_sockets_free(&hs);
	return held;
}

/* The forward plan of the selection, its ports taken on the host. */
static int take_ports(const struct selection *sel, struct forward_plan *plan, char **err)
{
	_cleanup_free_ char *e = NULL;
	for (size_t i = 0; i < sel->n; i++) {
		const struct attach_req *a = &sel->v[i];
		if (a->ports.n && port_forwarder_plan_add(plan, i, &a->ports, &e) < 0)
			return error_set(err, "annotation \"%s\": %s",
					 a->ports_key ? a->ports_key : "io.cnihook.networks", e);
	}
	if (port_forwarder_listen(plan, &e) < 0) {
		_cleanup_free_ char *held = port_holder(sel);
		return error_set(err, "%s", held ? held : e);
	}
	return 0;
}

/* Is the attachment there already (a pod that an earlier member
 * attached)? */
static bool attachment_exists(const struct rootless_call *c)
{
	_cleanup_free_ char *dir = layout_container_dir(c->cfg->state_dir, c->attachment);
	return access(dir, F_OK) == 0;
}

int rootless_attach(const struct rootless_call *c, struct selection *sel, rootless_fn attach,
		    rootless_fn detach, void *data, char **err)
{
	struct forward_plan plan = {.run_dir = c->user->run_dir};
	if (rootless_netns_lock(c->user, err) < 0)
		return -1;
	/* What heal() cannot prepare, prepare() below fails on and reports;
	 * what it prepared is not prepared twice. */
	_cleanup_free_ char *unhealed = NULL;
	bool prepared = heal(c, &unhealed) > 0;
	/* A pod's later member joins the pod's attachment and its forwarder. */
	bool joins = strcmp(c->attachment, c->id) != 0 && attachment_exists(c);
	int ret = joins ? 0 : take_ports(sel, &plan, err);
	if (ret == 0 && !prepared)
		ret = prepare(c, err);
	if (ret == 0)
		ret = in_child(c, true, attach, data, err);
	/* The engine's child wrote the status: one entry per attachment, in
	 * the selection's order. */
	if (ret == 0 && plan.n > 0 && start_forwarder(c, &plan, err) < 0) {
		/* The forwarder's failure is the caller's to report; one of
		 * the detach that undoes the attach, its own line. */
		_cleanup_free_ char *e = NULL;
		if (in_child(c, true, detach, data, &e) < 0 && e)
			log_error("%s %s: %s", c->id, c->stage, e);
		ret = -1;
	}
	port_forwarder_plan_free(&plan);
	helpers_wait();
	if (ret < 0)
		teardown_if_last(c);
	rootless_netns_unlock(c->user);
	return ret;
}

int rootless_detach(const struct rootless_call *c, rootless_fn detach, void *data, char **err)
{
	if (rootless_netns_lock(c->user, err) < 0)
		return -1;
	_cleanup_free_ char *unhealed = NULL;
	int ret = heal(c, &unhealed) > 0 ? 0 : prepare(c, err);
	if (ret == 0)
		ret = in_child(c, true, detach, data, err);
	if (!attachment_exists(c)) {
		_cleanup_free_ char *pidfile =
		    layout_rootless_forwarder(c->user->dir, c->attachment);
		_cleanup_free_ char *e = NULL;
		if (rootless_netns_stop_pidfile(pidfile, &e) < 0)
			log_warn("%s %s: port forwarder: %s", c->id, c->stage, e);
	}
	teardown_if_last(c);
	rootless_netns_unlock(c->user);
	return ret;
}

int rootless_gc(const struct rootless_call *c, rootless_fn gc, void *data,
		struct rootless_gc_outcome *out, char **err)
{
	struct stat st;
	bool had = stat(c->user->dir, &st) == 0;
	*out = (struct rootless_gc_outcome){0};
	if (rootless_netns_lock(c->user, err) < 0)
		return -1;
	out->strays = rootless_watch_stop_strays(c->user);
	if (!had) {
		out->had_none = true;
		rmdir(c->user->dir); /* the lock made it */
		rootless_netns_unlock(c->user);
		return 0;
	}
	int ret = 0;
	if (any_container(c->cfg)) {
		ret = prepare(c, err);
		out->gc_ran = ret == 0;
		/* gc prints and logs its own failure, and exits 1. */
		if (ret == 0 && in_child(c, true, gc, data, err) < 0)
			ret = *err ? -1 : 1;
	}
	check_forwarders(c);
	teardown_if_last(c);
	rootless_netns_unlock(c->user);
	return ret;
}

int rootless_reload(const struct rootless_call *c, char **err)
{
	struct stat st;
	if (stat(c->user->dir, &st) < 0)
		return 0; /* nothing of the user's */
	if (rootless_netns_lock(c->user, err) < 0)
		return -1;
	_cleanup_free_ char *e = NULL;
	if (heal(c, &e) < 0)
		log_error("%s %s: %s", c->id, c->stage, e);
	helpers_wait();
	rootless_netns_unlock(c->user);
	return 0;
}
