/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The hook's stages for rootless podman (rootless.h; cnihook(8),
 * ROOTLESS; docs/architecture.md, "Rootless podman"). The user's lock is
 * held from the first step to the last, so that a start and the last stop
 * of one user never cross: the namespace is made or removed under it.
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
#include "cmd/gc.h"
#include "cmd/rootless.h"
#include "common/json.h"
#include "host/host-sockets.h"
#include "host/port-forwarder.h"
#include "host/rootless-watch.h"
#include "state/layout.h"
#include "state/netns-pin.h"
#include "state/network-status.h"
#include "state/record.h"

/* The user's directories in cfg. */
static void user_dirs(struct hook_config *cfg, struct rootless_user *u)
{
	free(cfg->state_dir);
	free(cfg->cache_dir);
	cfg->state_dir = rootless_netns_path(u, "state");
	cfg->cache_dir = rootless_netns_path(u, "cache");
	free(cfg->plugin_runtime_dir);
	cfg->plugin_runtime_dir = rootless_netns_path(u, "run");
}

int rootless_configure(struct hook_config *cfg, struct rootless_user *u, char **why)
{
	if (rootless_netns_user(u, why) < 0)
		return -1;
	user_dirs(cfg, u);
	return 0;
}

int rootless_configure_host_user(struct hook_config *cfg, struct rootless_user *u, char **why)
{
	unsigned long uid = geteuid();
	if (rootless_netns_user_of(u, uid, uid, why) < 0)
		return -1;
	user_dirs(cfg, u);
	return 0;
}

void rootless_print_helpers(const struct rootless_user *u)
{
	static const char *const names[] = {"slirp4netns", "watch"};
	static const char *const files[] = {"slirp4netns.pid", "watch.pid"};
	if (access(u->dir, F_OK) < 0)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		_cleanup_free_ char *pidfile = rootless_netns_path(u, files[i]);
		long pid = 0;
		if (rootless_netns_pidfile_alive(pidfile, &pid))
			printf("%s: running (pid %ld)\n", names[i], pid);
		else
			printf("%s: MISSING (pid %ld): the next stage of a container of the "
			       "user's, or podman unshare cnihook reload, starts it again\n",
			       names[i], pid);
	}
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
	_cleanup_free_ char *slirp = rootless_netns_path(c->user, "slirp4netns.pid");
	_cleanup_free_ char *watch = rootless_netns_path(c->user, "watch.pid");
	long pid = 0;
	bool start_slirp = made || !rootless_netns_pidfile_alive(slirp, &pid);
	bool start_watch = !rootless_netns_pidfile_alive(watch, NULL);
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
static int prepare(const struct rootless_call *c)
{
	_cleanup_free_ char *err = NULL;
	int made = rootless_netns_ensure(c->user, &err);
	if (made < 0) {
		log_error("%s %s: %s", c->id, c->stage, err);
		return -1;
	}
	heal_helpers(c, made > 0);
	if (mkdir_p(c->cfg->state_dir, 0700, &err) < 0 ||
	    mkdir_p(c->cfg->cache_dir, 0700, &err) < 0 ||
	    netns_share_dir(c->cfg->state_dir, &err) < 0) {
		log_error("%s %s: %s", c->id, c->stage, err);
		return -1;
	}
	return 0;
}

/* Wait for the child; 0 when it exited 0. */
static int wait_child(const struct rootless_call *c, pid_t pid)
{
	int status;
	if (pid < 0) {
		log_error("%s %s: fork: %m", c->id, c->stage);
		return -1;
	}
	if (TEMP_FAILURE_RETRY(waitpid(pid, &status, 0)) < 0) {
		log_error("%s %s: wait: %m", c->id, c->stage);
		return -1;
	}
	if (WIFSIGNALED(status))
		log_error("%s %s: the rootless child was killed by signal %d", c->id, c->stage,
			  WTERMSIG(status));
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* In a child: inside the namespace (with the plugins' mounts when
 * `mounts`), fn; never returns. */
static void run_child(const struct rootless_call *c, bool mounts, rootless_fn fn, void *data)
{
	_cleanup_free_ char *err = NULL;
	int r = mounts ? rootless_netns_enter(c->user, &err) : rootless_netns_join(c->user, &err);
	if (r < 0)
		log_error("%s %s: %s", c->id, c->stage, err);
	else
		r = fn(data);
	fflush(NULL);
	_exit(r < 0 ? 1 : 0);
}

/* fn run in a child inside the namespace; 0 when it succeeded. */
static int in_child(const struct rootless_call *c, bool mounts, rootless_fn fn, void *data)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0)
		run_child(c, mounts, fn, data);
	return wait_child(c, pid);
}

struct forwarder_start {
	const struct rootless_call *c;
	const struct forward_plan *plan;
};

/* In the forwarder's child: started, its pid file written. */
static int spawn_forwarder(void *data)
{
	const struct forwarder_start *f = data;
	_cleanup_free_ char *err = NULL;
	_cleanup_free_ char *dir = rootless_netns_path(f->c->user, "forwarders");
	_cleanup_free_ char *pidfile = xasprintf("%s/%s", dir, f->c->attachment);
	_cleanup_free_ char *warn = NULL;
	long pid = -1;
	int r = mkdir_p(dir, 0700, &err);
	if (r == 0 && (r = forwarder_spawn(f->plan, &pid, &warn)) < 0)
		err = TAKE_PTR(warn);
	if (r >= 0 && rootless_netns_write_pidfile(pidfile, pid, &err) == 0) {
		if (r > 0)
			log_warn("%s %s: %s", f->c->id, f->c->stage, warn);
		return 0;
	}
	log_error("%s %s: port forwarder: %s", f->c->id, f->c->stage, err);
	return -1;
}

/* The forwarder of attachment c->attachment, its ports taken: the targets
 * it lacks from the network status (one entry per attachment, in the
 * selection's order), then started by a child that joins the namespace
 * (in podman's mount namespace, not the plugins'). */
static int start_forwarder(const struct rootless_call *c, struct forward_plan *plan)
{
	for (size_t i = 0; i < plan->n; i++) {
		if (plan->v[i].target)
			continue;
		_cleanup_free_ char *err = NULL;
		_cleanup_free_ char *ip =
		    netstatus_first_ip(c->status_path, plan->v[i].attachment, &err);
		if (!ip) {
			log_error("%s %s: port forwarder: %s", c->id, c->stage, err);
			return -1;
		}
		forwarder_set_target(plan, plan->v[i].attachment, ip);
	}
	plan->owner = c->attachment;
	struct forwarder_start f = {.c = c, .plan = plan};
	return in_child(c, false, spawn_forwarder, &f);
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
	int ret = rec ? 0 : set_error(err, "%s: missing", path);
	for (size_t i = 0; ret == 0 && rec && i < rec->n; i++) {
		const char *args = rec->v[i].cap_args;
		_cleanup_json_ json *j = NULL;
		_cleanup_free_ char *e = NULL;
		if (!args)
			continue;
		if (json_parse_with(args, strlen(args), "capability arguments", &hook_json, &j,
				    &e) < 0) {
			ret = set_error(err, "%s: %s", path, e);
			break;
		}
		json *m = json_obj_get(j, "portMappings");
		if (!json_is_array(m))
			continue;
		struct port_mappings pm = {0};
		if (portmaps_from_json(m, &pm, &e) < 0)
			ret = set_error(err, "%s: portMappings: %s", path, e);
		else
			ret = forwarder_plan_add(plan, i, &pm, err);
		portmaps_free(&pm);
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
	struct forward_plan plan = {0};
	int r = plan_from_record(c, id, &plan, &err);
	if (r == 0 && plan.n == 0)
		r = set_error(&err, "its record gives the plugins no port mappings");
	if (r == 0)
		r = forwarder_listen(&plan, &err);
	if (r == 0)
		r = start_forwarder(&h, &plan);
	if (r == 0)
		log_warn("%s %s: the port forwarder of \"%s\" (pid %ld) was not running "
			 "(killed?): started again",
			 c->id, c->stage, id, pid);
	else
		log_warn("%s %s: the port forwarder of \"%s\" (pid %ld) is not running and "
			 "cannot be started again: %s",
			 c->id, c->stage, id, pid, err ? err : "the log says why");
	forwarder_plan_free(&plan);
}

/* The forwarders of the user's attachments, each stopped when its
 * attachment is gone (gc tore it down) and started again when it is not
 * running while its attachment lives. */
static void check_forwarders(const struct rootless_call *c)
{
	_cleanup_free_ char *dir = rootless_netns_path(c->user, "forwarders");
	_cleanup_closedir_ DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (layout_entry(de->d_name, NULL) != LAYOUT_CONTAINER)
			continue;
		_cleanup_free_ char *state = layout_container_dir(c->cfg->state_dir, de->d_name);
		_cleanup_free_ char *pidfile = xasprintf("%s/%s", dir, de->d_name);
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

static int collect_in_netns(void *data)
{
	const struct rootless_call *c = data;
	gc_collect_gone(c->cfg, c->attachment, c->stage);
	return 0;
}

/* Before a stage, under the user's lock: the attachments gc would find
 * gone collected (a poststop missed: a runtime or podman killed), their
 * forwarders stopped, the helpers that are not running (killed) started
 * again. (No child to collect when the stage's own attachment is the
 * only one.) */
static void heal(const struct rootless_call *c)
{
	if (!any_container(c->cfg) || prepare(c) < 0)
		return;
	if (any_container_but(c->cfg, c->attachment))
		in_child(c, true, collect_in_netns, (void *)c);
	check_forwarders(c);
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
static int take_ports(const struct rootless_call *c, const struct selection *sel,
		      struct forward_plan *plan)
{
	_cleanup_free_ char *err = NULL;
	for (size_t i = 0; i < sel->n; i++) {
		const struct attach_req *a = &sel->v[i];
		if (a->ports.n && forwarder_plan_add(plan, i, &a->ports, &err) < 0) {
			log_error("%s %s: annotation \"%s\": %s", c->id, c->stage,
				  a->ports_key ? a->ports_key : "io.cnihook.networks", err);
			return -1;
		}
	}
	if (forwarder_listen(plan, &err) < 0) {
		_cleanup_free_ char *held = port_holder(sel);
		log_error("%s %s: %s", c->id, c->stage, held ? held : err);
		return -1;
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
		    rootless_fn detach, void *data)
{
	_cleanup_free_ char *err = NULL;
	struct forward_plan plan = {0};
	if (rootless_netns_lock(c->user, &err) < 0) {
		log_error("%s %s: %s", c->id, c->stage, err);
		return -1;
	}
	heal(c);
	/* A pod's later member joins the pod's attachment and its forwarder. */
	bool joins = strcmp(c->attachment, c->id) != 0 && attachment_exists(c);
	int ret = joins ? 0 : take_ports(c, sel, &plan);
	if (ret == 0)
		ret = prepare(c);
	if (ret == 0)
		ret = in_child(c, true, attach, data);
	/* The engine's child wrote the status: one entry per attachment, in
	 * the selection's order. */
	if (ret == 0 && plan.n > 0 && start_forwarder(c, &plan) < 0) {
		in_child(c, true, detach, data);
		ret = -1;
	}
	forwarder_plan_free(&plan);
	helpers_wait();
	if (ret < 0)
		teardown_if_last(c);
	rootless_netns_unlock(c->user);
	return ret;
}

int rootless_detach(const struct rootless_call *c, rootless_fn detach, void *data)
{
	_cleanup_free_ char *err = NULL;
	if (rootless_netns_lock(c->user, &err) < 0) {
		log_error("%s %s: %s", c->id, c->stage, err);
		return -1;
	}
	heal(c);
	int ret = prepare(c);
	if (ret == 0)
		ret = in_child(c, true, detach, data);
	if (!attachment_exists(c)) {
		_cleanup_free_ char *dir = rootless_netns_path(c->user, "forwarders");
		_cleanup_free_ char *pidfile = xasprintf("%s/%s", dir, c->attachment);
		if (rootless_netns_stop_pidfile(pidfile, &err) < 0) {
			log_warn("%s %s: port forwarder: %s", c->id, c->stage, err);
			free(TAKE_PTR(err));
		}
	}
	teardown_if_last(c);
	rootless_netns_unlock(c->user);
	return ret;
}

int rootless_gc(const struct rootless_call *c, rootless_fn gc, void *data)
{
	_cleanup_free_ char *err = NULL;
	struct stat st;
	bool had = stat(c->user->dir, &st) == 0;
	if (rootless_netns_lock(c->user, &err) < 0) {
		log_error("gc: %s", err);
		return 1;
	}
	int strays = rootless_watch_stop_strays(c->user);
	if (strays > 0)
		printf("gc: stopped %d helper(s) of the user's (forwarders, dnsmasq, slirp4netns, "
		       "watch) that served a namespace that is gone\n",
		       strays);
	if (!had) {
		if (strays == 0)
			printf("gc: nothing to collect: the user has no %s\n", c->user->dir);
		rmdir(c->user->dir); /* the lock made it */
		rootless_netns_unlock(c->user);
		return 0;
	}
	int ret = 0;
	if (any_container(c->cfg)) {
		ret = prepare(c) < 0;
		if (ret == 0)
			ret = in_child(c, true, gc, data) < 0;
	}
	check_forwarders(c);
	teardown_if_last(c);
	rootless_netns_unlock(c->user);
	return ret;
}

int rootless_reload(const struct rootless_call *c)
{
	_cleanup_free_ char *err = NULL;
	struct stat st;
	if (stat(c->user->dir, &st) < 0)
		return 0; /* nothing of the user's */
	if (rootless_netns_lock(c->user, &err) < 0) {
		log_error("reload: %s", err);
		return 1;
	}
	heal(c);
	helpers_wait();
	rootless_netns_unlock(c->user);
	return 0;
}
