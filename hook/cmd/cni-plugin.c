/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cnihook as a CNI plugin: chained at the end of a Kubernetes cluster
 * network's list, with the capability "io.kubernetes.cri.pod-annotations",
 * it attaches the networks a pod's annotations select (the same parsing,
 * policy and messages as the hook) to the pod's namespace as net1, net2, ...
 * when the runtime ADDs the cluster network, and detaches them at its DEL.
 * The cluster network's result (prevResult) passes through unchanged.
 *
 * The runtime runs the binary with CNI_COMMAND set and no argument (main.c).
 * Errors go to stdout as a CNI error result, exit status 1; the log goes to
 * stderr (and syslog) through log.c.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cnirt.h>

#include "base/log.h"
#include "cmd/cni-plugin.h"
#include "engine/engine.h"
#include "request/request.h"
#include "state/layout.h"
#include "state/netns-pin.h"
#include "state/record.h"

#define CAP_POD_ANNOTATIONS "io.kubernetes.cri.pod-annotations"
#define STDIN_MAX_SIZE	    (16u << 20)

/* One call of the plugin: the environment, stdin, and what is answered. */
struct plugin_call {
	const char *command; /* CNI_COMMAND */
	const char *id;	     /* CNI_CONTAINERID */
	const char *netns;   /* CNI_NETNS, or "" */
	const char *ifname;  /* CNI_IFNAME: the cluster interface */
	json *conf;	     /* stdin */
	const char *version; /* its cniVersion */
	const char *name;    /* its name: the cluster network */
	struct kvlist ann;   /* the pod's annotations */
	struct hook_config *cfg;
};

static const char *env(const char *key)
{
	const char *v = getenv(key);
	return v ? v : "";
}

/* The CNI error result on stdout; returns the exit status 1. */
static int answer_error(const struct plugin_call *c, int code, const char *msg)
{
	_cleanup_json_ json *o = json_new(JSON_OBJECT);
	json_obj_set(o, "cniVersion", json_new_string(c->version ? c->version : "1.1.0"));
	json_obj_set(o, "code", json_new_int(code));
	json_obj_set(o, "msg", json_new_string(msg));
	_cleanup_free_ char *details =
	    xasprintf("cnihook %s of container \"%s\"", c->command, c->id ? c->id : "");
	json_obj_set(o, "details", json_new_string(details));
	_cleanup_free_ char *text = json_gen(o, false, NULL);
	printf("%s\n", text);
	fflush(stdout);
	return 1;
}

/* An error of the call's input, logged and answered. */
static int refuse(const struct plugin_call *c, int code, const char *msg)
{
	log_error("%s %s: %s", c->id && *c->id ? c->id : "-", c->command, msg);
	return answer_error(c, code, msg);
}

static int answer_version(const struct plugin_call *c)
{
	_cleanup_json_ json *o = json_new(JSON_OBJECT);
	json_obj_set(o, "cniVersion", json_new_string(c->version ? c->version : "1.1.0"));
	json *versions = json_new(JSON_ARRAY);
	for (const char *const *v = cnirt_supported_versions(); *v; v++)
		if (cnirt_version_compare(*v, "0.3.0") >= 0) /* chained: a prevResult */
			json_arr_append(versions, json_new_string(*v));
	json_obj_set(o, "supportedVersions", versions);
	_cleanup_free_ char *text = json_gen(o, false, NULL);
	printf("%s\n", text);
	return 0;
}

/* ADD's answer: the prevResult, in the list's version; NULL after a
 * refusal, whose exit status is in *ret. */
static char *prev_result_text(const struct plugin_call *c, int *ret)
{
	json *prev = json_obj_get(c->conf, "prevResult");
	if (!json_is_object(prev)) {
		*ret = refuse(c, CNIRT_ERR_INVALID_CONFIG,
			      "network configuration: field \"prevResult\": missing: cnihook is "
			      "chained after the plugins that make the pod's interface");
		return NULL;
	}
	char *text = json_gen(prev, false, NULL);
	const char *from = json_str(json_obj_get(prev, "cniVersion"));
	if (from && strcmp(from, c->version) == 0)
		return text; /* as it came */
	char *conv = NULL;
	cnirt_error *e = NULL;
	int r = cnirt_result_convert(text, strlen(text), c->version, &conv, &e);
	free(text);
	if (r < 0) {
		_cleanup_free_ char *msg = xasprintf(
		    "network configuration: field \"prevResult\": %s", cnirt_error_msg(e));
		int code = cnirt_error_code(e) ? cnirt_error_code(e) : CNIRT_ERR_DECODE;
		cnirt_error_free(e);
		*ret = refuse(c, code, msg);
		return NULL;
	}
	return conv;
}

static int answer_prev_result(const struct plugin_call *c)
{
	int ret = 0;
	_cleanup_free_ char *text = prev_result_text(c, &ret);
	if (text)
		printf("%s\n", text);
	return ret;
}

/* runtimeConfig["io.kubernetes.cri.pod-annotations"]: string values only. */
static int read_annotations(struct plugin_call *c, char **err)
{
	json *rc = json_obj_get(c->conf, "runtimeConfig");
	json *ann = json_obj_get(rc, CAP_POD_ANNOTATIONS);
	if (ann == NULL || json_is_null(ann))
		return 0;
	if (!json_is_object(ann))
		return error_set(err,
				 "network configuration: field \"runtimeConfig." CAP_POD_ANNOTATIONS
				 "\": an object of strings expected, not %s",
				 json_type_name(ann));
	for (size_t i = 0; i < ann->u.object.n; i++) {
		const char *v = json_str(ann->u.object.v[i]);
		if (v == NULL) {
			_cleanup_free_ char *k = error_shown(ann->u.object.k[i]);
			return error_set(err, "pod annotation \"%s\": a string expected, not %s", k,
					 json_type_name(ann->u.object.v[i]));
		}
		kvlist_append(&c->ann, ann->u.object.k[i], v);
	}
	return 0;
}

/* The K8S_POD_* pairs of the runtime's CNI_ARGS, passed on. */
static void pod_args(struct kvlist *out)
{
	_cleanup_free_ char *args = xstrdup(env("CNI_ARGS"));
	char *save = NULL;
	for (char *p = strtok_r(args, ";", &save); p; p = strtok_r(NULL, ";", &save)) {
		char *eq = strchr(p, '=');
		if (eq == NULL || strncmp(p, "K8S_POD_", 8) != 0)
			continue;
		*eq = '\0';
		kvlist_append(out, p, eq + 1);
	}
}

/* The cluster attachment, as the chain made it. */
static struct network_status_entry cluster(const struct plugin_call *c, const char *result)
{
	return (struct network_status_entry){
	    .network = c->name, .ifname = c->ifname, .is_default = true, .result = result};
}

/* The pod's request, checked as the hook checks a container's, and its
 * interfaces checked against the cluster's. */
static int build_request(const struct plugin_call *c, struct request *req, char **err)
{
	struct kvlist pod = {0};
	pod_args(&pod);
	int ret = request_build_pod(&c->cfg->policy, &c->ann, &pod, req, err);
	kvlist_free(&pod);
	if (ret < 0)
		return -1;
	if (req->sel.netns) {
		request_free(req);
		return error_set(err, "annotation \"" ANN_NETNS "\": not for a pod (its namespace "
				      "is the one its runtime made)");
	}
	for (size_t i = 0; i < req->sel.n; i++)
		if (strcmp(req->sel.v[i].ifname, c->ifname) == 0) {
			const char *by = req->by;
			request_free(req);
			return error_set(err,
					 "annotation \"%s\": interface \"%s\" is the cluster "
					 "network's (CNI_IFNAME)",
					 by ? by : ANN_NETWORKS, c->ifname);
		}
	return 0;
}

static int cmd_add(struct plugin_call *c)
{
	if (!request_asked(&c->ann))
		return answer_prev_result(c);
	_cleanup_free_ char *err = NULL;
	struct request req = {0};
	if (build_request(c, &req, &err) < 0)
		return refuse(c, CNIRT_ERR_INVALID_CONFIG, err);
	if (req.sel.n == 0) {
		request_free(&req);
		return answer_prev_result(c);
	}
	if (!*c->netns || netns_pin_refuse_host(c->netns, &err) < 0) {
		request_free(&req);
		return refuse(c, CNIRT_ERR_INVALID_ENV,
			      err ? err : "CNI_NETNS: empty: no namespace to attach to");
	}
	/* The answer is made before anything is attached: a prevResult that
	 * cannot be answered refuses the ADD with nothing to undo. */
	int ret = 0;
	_cleanup_free_ char *answer = prev_result_text(c, &ret);
	if (answer == NULL) {
		request_free(&req);
		return ret;
	}
	_cleanup_free_ char *prev = json_gen(json_obj_get(c->conf, "prevResult"), false, NULL);
	struct network_status_entry primary = cluster(c, prev);
	struct engine_failure why = {0};
	struct engine_target t = {
	    .id = c->id,
	    .stage = c->command,
	    .selected_by = req.by,
	    .netns = c->netns,
	    .primary = &primary,
	    .why = &why,
	};
	ret = engine_attach(c->cfg, &t, &req.sel);
	request_free(&req);
	if (ret < 0) {
		ret = answer_error(c, why.code, why.msg ? why.msg : "attach failed");
		free(why.msg);
		return ret;
	}
	printf("%s\n", answer);
	return 0;
}

static int cmd_del(struct plugin_call *c)
{
	struct network_status_entry primary = cluster(c, NULL);
	struct engine_failure why = {0};
	struct engine_target t = {
	    .id = c->id, .stage = c->command, .netns = c->netns, .primary = &primary, .why = &why};
	if (engine_detach_target(c->cfg, &t) < 0) {
		int ret = answer_error(c, why.code, why.msg ? why.msg : "detach failed");
		free(why.msg);
		return ret;
	}
	return 0;
}

/* CHECK every recorded secondary; a selection without a record fails. */
static int cmd_check(struct plugin_call *c)
{
	_cleanup_free_ char *path = layout_record(c->cfg->state_dir, c->id);
	_cleanup_free_ char *err = NULL;
	struct record *rec = NULL;
	if (record_read(path, &rec, &err) < 0)
		return refuse(c, CNIRT_ERR_IO, err);
	if (rec == NULL) {
		struct request req = {0};
		if (!request_asked(&c->ann))
			return 0;
		if (build_request(c, &req, &err) < 0)
			return refuse(c, CNIRT_ERR_INVALID_CONFIG, err);
		size_t n = req.sel.n;
		request_free(&req);
		if (n == 0)
			return 0;
		return refuse(c, ENGINE_OWN_ERROR,
			      "the networks the pod's annotations select are not attached (no "
			      "attachment record)");
	}
	cnirt_ctx *ctx = hookconf_ctx(c->cfg);
	int ret = 0;
	for (size_t i = 0; i < rec->n && ret == 0; i++) {
		const struct record_att *a = &rec->v[i];
		cnirt_error *e = NULL;
		cnirt_netlist *l = NULL;
		cnirt_kv *kv = kvlist_to_cnirt(&a->args);
		cnirt_attachment att = {
		    .container_id = c->id,
		    .netns = *c->netns ? c->netns : rec->netns,
		    .ifname = a->ifname,
		    .args = kv,
		    .n_args = a->args.n,
		    .capability_args = a->cap_args,
		};
		if (cnirt_netlist_parse(a->config, strlen(a->config), "attachment record", &l, &e) <
			0 ||
		    cnirt_check(ctx, l, &att, &e) < 0) {
			_cleanup_free_ char *msg = error_cni_text(a->network, e);
			int code = cnirt_error_code(e) ? cnirt_error_code(e) : ENGINE_OWN_ERROR;
			cnirt_error_free(e);
			ret = refuse(c, code, msg);
		}
		cnirt_netlist_free(l);
		free(kv);
	}
	cnirt_ctx_free(ctx);
	record_free(rec);
	return ret;
}

/* Is id among cni.dev/valid-attachments? */
static bool is_valid(json *valid, const char *id)
{
	for (size_t i = 0; json_is_array(valid) && i < valid->u.array.n; i++) {
		const char *v = json_str(json_obj_get(valid->u.array.v[i], "containerID"));
		if (v && strcmp(v, id) == 0)
			return true;
	}
	return false;
}

/* GC: detach the secondaries recorded for this cluster network whose
 * sandbox is not among the valid attachments. */
static int cmd_gc(struct plugin_call *c)
{
	/* cni.dev/attachments: the name spec 1.1.0 first gave the field (the
	 * spec's own change log), which a runtime may still send alone. */
	const char *key = "cni.dev/valid-attachments";
	json *valid = json_obj_get(c->conf, key);
	if (valid == NULL && json_obj_get(c->conf, "cni.dev/attachments")) {
		key = "cni.dev/attachments";
		valid = json_obj_get(c->conf, key);
	}
	if (valid && !json_is_array(valid)) {
		_cleanup_free_ char *msg =
		    xasprintf("network configuration: field \"%s\": an array expected", key);
		return refuse(c, CNIRT_ERR_INVALID_CONFIG, msg);
	}
	/* Without the list nothing says which pods are gone: none is taken
	 * for gone (libcni sends none when its caller gave none, after it
	 * deleted every cached attachment, and with it cnihook's). */
	if (valid == NULL) {
		log_warn("%s GC: network \"%s\": no cni.dev/valid-attachments: nothing detached",
			 c->id && *c->id ? c->id : "-", c->name);
		return 0;
	}
	_cleanup_closedir_ DIR *d = opendir(c->cfg->state_dir);
	if (d == NULL)
		return 0;
	struct network_status_entry primary = {.network = c->name};
	struct engine_failure why = {0};
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!layout_is_container_name(de->d_name) || is_valid(valid, de->d_name))
			continue;
		_cleanup_free_ char *path = layout_record(c->cfg->state_dir, de->d_name);
		_cleanup_free_ char *err = NULL;
		struct record *rec = NULL;
		if (record_read(path, &rec, &err) < 0 || rec == NULL) {
			record_free(rec);
			continue;
		}
		bool mine = rec->cluster && strcmp(rec->cluster, c->name) == 0 &&
			    strcmp(rec->id, de->d_name) == 0;
		if (mine) {
			log_info("%s GC: not among the valid attachments of network \"%s\": "
				 "detaching its %zu network(s)",
				 rec->id, c->name, rec->n);
			struct engine_target t = {.id = rec->id,
						  .stage = "GC",
						  .netns = "",
						  .primary = &primary,
						  .why = &why};
			engine_detach_target(c->cfg, &t);
		}
		record_free(rec);
	}
	if (why.msg) {
		int ret = answer_error(c, why.code, why.msg);
		free(why.msg);
		return ret;
	}
	return 0;
}

/* The environment and stdin of the call; 0, or the exit status of a
 * refusal already answered. */
static int read_call(struct plugin_call *c, int fd)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_free_ char *err = NULL;
	size_t len = 0;
	_cleanup_free_ char *e = NULL;
	if (read_all_fd(fd, STDIN_MAX_SIZE, &buf, &len, &e) < 0) {
		err = xasprintf("network configuration on stdin: %s", e);
		return refuse(c, CNIRT_ERR_IO, err);
	}
	if (strcmp(c->command, "STATUS") == 0 || (strcmp(c->command, "VERSION") == 0 && len == 0))
		return 0;
	if (json_parse_with(buf, len, "network configuration on stdin", &util_json, &c->conf,
			    &err) < 0)
		return refuse(c, CNIRT_ERR_DECODE, err);
	c->version = json_str(json_obj_get(c->conf, "cniVersion"));
	c->name = json_str(json_obj_get(c->conf, "name"));
	if (strcmp(c->command, "VERSION") == 0 || strcmp(c->command, "STATUS") == 0)
		return 0;
	if (c->version == NULL || c->name == NULL)
		return refuse(c, CNIRT_ERR_INVALID_CONFIG,
			      c->version ? "network configuration: field \"name\": missing"
					 : "network configuration: field \"cniVersion\": missing");
	if (read_annotations(c, &err) < 0)
		return refuse(c, CNIRT_ERR_INVALID_CONFIG, err);
	return 0;
}

/* The names that become paths, checked before anything else. */
static int check_env(const struct plugin_call *c)
{
	cnirt_error *e = NULL;
	if (cnirt_check_container_id(c->id, &e) < 0 ||
	    (strcmp(c->command, "GC") != 0 && cnirt_check_ifname(c->ifname, &e) < 0)) {
		_cleanup_free_ char *msg = xstrdup(cnirt_error_msg(e));
		cnirt_error_free(e);
		return refuse(c, CNIRT_ERR_INVALID_ENV, msg);
	}
	return 0;
}

/* cnihook.json: the one named by the list's "config", else $CNIHOOK_CONFIG,
 * else the installed one. */
static int load_config(struct plugin_call *c)
{
	json *v = json_obj_get(c->conf, "config");
	const char *path = json_str(v);
	if (v && (path == NULL || *path != '/'))
		return refuse(c, CNIRT_ERR_INVALID_CONFIG,
			      "network configuration: field \"config\": the absolute path of a "
			      "cnihook.json expected");
	if (path == NULL && getenv("CNIHOOK_CONFIG") && *getenv("CNIHOOK_CONFIG"))
		path = getenv("CNIHOOK_CONFIG");
	_cleanup_free_ char *err = NULL;
	if (hookconf_load(path, &c->cfg, &err) < 0)
		return refuse(c, CNIRT_ERR_INVALID_CONFIG, err);
	log_init(c->cfg->log_level, c->cfg->log_syslog, c->cfg->state_dir);
	sandbox_enter(c->cfg->sb);
	return 0;
}

/* A call whose stdin was read: its command carried out. */
static int dispatch(struct plugin_call *c)
{
	const char *command = c->command;
	if (strcmp(command, "VERSION") == 0)
		return answer_version(c);
	if (strcmp(command, "STATUS") == 0)
		return 0;
	if (strcmp(command, "ADD") == 0 && !request_asked(&c->ann))
		return answer_prev_result(c); /* the fast path: no configuration read */
	int ret;
	if ((strcmp(command, "GC") != 0 && (ret = check_env(c)) != 0) ||
	    (ret = load_config(c)) != 0)
		return ret;
	if (strcmp(command, "ADD") == 0)
		return cmd_add(c);
	if (strcmp(command, "DEL") == 0)
		return cmd_del(c);
	if (strcmp(command, "CHECK") == 0)
		return cmd_check(c);
	return cmd_gc(c);
}

int cni_plugin_run(const char *command, int fd)
{
	struct plugin_call c = {
	    .command = command,
	    .id = env("CNI_CONTAINERID"),
	    .netns = env("CNI_NETNS"),
	    .ifname = env("CNI_IFNAME"),
	};
	static const char *const known[] = {"ADD", "DEL", "CHECK", "GC", "STATUS", "VERSION"};
	bool is_known = false;
	for (size_t i = 0; i < ARRAY_SIZE(known) && !is_known; i++)
		is_known = strcmp(command, known[i]) == 0;
	int ret;
	if (!is_known) { /* refused before stdin is read: the command is what is wrong */
		_cleanup_free_ char *msg =
		    xasprintf("CNI_COMMAND: unknown command \"%s\"", command);
		ret = refuse(&c, CNIRT_ERR_INVALID_ENV, msg);
	} else if ((ret = read_call(&c, fd)) == 0) {
		ret = dispatch(&c);
	}
	fflush(stdout);
	kvlist_free(&c.ann);
	json_free(c.conf);
	hookconf_free(c.cfg);
	return ret;
}
