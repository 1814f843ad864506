/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cnihook's entry. One program, three ways to run it:
 *
 * - the OCI hook: createRuntime, prestart, poststop, or no stage (the
 *   state says), with the OCI state on stdin;
 * - the operator commands: status, list, gc and reload, which read cnihook.json,
 *   and add, check, del, validate and version, with cnitool's environment;
 * - plugin mode: a chained CNI plugin, run with CNI_COMMAND set and no
 *   argument;
 * - cnihook-runtime (a link to cnihook, or `cnihook runtime`): an OCI
 *   runtime that adds the hooks, then runs the real one.
 *
 * One table of verbs says how each is run, and the usage text is made from
 * it: each verb's line and help beside it.
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "conf/hookconf.h"
#include "base/log.h"
#include "cmd/cli.h"
#include "cmd/cni-plugin.h"
#include "cmd/gc.h"
#include "cmd/reload.h"
#include "cmd/list.h"
#include "cmd/status.h"
#include "base/proctitle.h"
#include "cmd/runtime.h"
#include "cmd/stage.h"
#include "engine/rootless.h"
#include "host/userns.h"

/* What one run of cnihook was given. */
struct call {
	int argc; /* the verb and its arguments (0: no verb) */
	char **argv;
	const char *config;	 /* --config FILE, or NULL */
	const char *level_arg;	 /* --log-level=LEVEL, or NULL */
	enum log_level level;	 /* --log-level's, else warn; then cnihook.json's */
	struct hook_config *cfg; /* cnihook.json: VERB_STAGE and VERB_REPORT */
};

enum verb_kind {
	VERB_STAGE,  /* an OCI hook stage: cnihook.json read, then the state on stdin */
	VERB_REPORT, /* status, list, gc, reload: cnihook.json read, then their flags */
	VERB_CLI,    /* the operator verbs of cnitool: logging on stderr only */
	VERB_OPTION, /* --help, --version: taken among the options */
	VERB_PLUGIN, /* no name: CNI_COMMAND set and no argument */
};

/* What a VERB_REPORT takes after its name, and where a verb logs. */
enum {
	TAKES_JSON = 1 << 0,		  /* --json */
	TAKES_NO_TRUNC = 1 << 1,	  /* --no-trunc */
	TAKES_DRY_RUN = 1 << 2,		  /* --dry-run */
	TAKES_NETNS_FROM_RESULT = 1 << 3, /* --netns-from-result */
	TAKES_ID = 1 << 4,		  /* one operand, not starting with '-' */
	LOGS_TO_SYSLOG = 1 << 5,	  /* as cnihook.json says (else on stderr only) */
	TAKES_IDS = 1 << 6,		  /* any number of operands, not starting with '-' */
};

struct verb {
	const char *name;
	enum verb_kind kind;
	int (*run)(const struct verb *v, struct call *c); /* returns the exit status */
	unsigned flags;					  /* TAKES_*, LOGS_TO_SYSLOG */
	enum stage stage;				  /* VERB_STAGE: which */
	/* Its line in the usage text (NULL: the line of a verb above says it),
	 * and what it does, beside it ('\n': a line more). */
	const char *usage;
	const char *help;
};

static int run_stage(const struct verb *v, struct call *c);
static int run_status(const struct verb *v, struct call *c);
static int run_list(const struct verb *v, struct call *c);
static int run_gc(const struct verb *v, struct call *c);
static int run_reload(const struct verb *v, struct call *c);
static int run_attachment(const struct verb *v, struct call *c);
static int run_validate(const struct verb *v, struct call *c);
static int run_version(const struct verb *v, struct call *c);
static int run_version_option(const struct verb *v, struct call *c);
static int run_help(const struct verb *v, struct call *c);
static int run_plugin(const struct verb *v, struct call *c);
static int run_runtime(const struct verb *v, struct call *c);

static const struct verb verbs[] = {
    {.name = "createRuntime",
     .kind = VERB_STAGE,
     .run = run_stage,
     .flags = LOGS_TO_SYSLOG,
     .stage = STAGE_ATTACH,
     .usage = "cnihook [--config FILE] createRuntime|prestart|poststop < STATE",
     .help = "the OCI hook (stage inferred when absent)"},
    {.name = "prestart",
     .kind = VERB_STAGE,
     .run = run_stage,
     .flags = LOGS_TO_SYSLOG,
     .stage = STAGE_ATTACH},
    {.name = "poststop",
     .kind = VERB_STAGE,
     .run = run_stage,
     .flags = LOGS_TO_SYSLOG,
     .stage = STAGE_DETACH},
    {.name = "status",
     .kind = VERB_REPORT,
     .run = run_status,
     .flags = TAKES_JSON | TAKES_NO_TRUNC | TAKES_ID,
     .usage = "cnihook [--config FILE] status [--json] [--no-trunc] [ID]",
     .help = "network status of one or all containers\n"
	     "(ID: a full id or a unique prefix)"},
    {.name = "list",
     .kind = VERB_REPORT,
     .run = run_list,
     .flags = TAKES_JSON | TAKES_NO_TRUNC,
     .usage = "cnihook [--config FILE] list [--json] [--no-trunc]",
     .help = "every cache entry, of any runtime"},
    {.name = "gc",
     .kind = VERB_REPORT,
     .run = run_gc,
     .flags = TAKES_DRY_RUN | TAKES_NETNS_FROM_RESULT | LOGS_TO_SYSLOG,
     .usage = "cnihook [--config FILE] gc [--dry-run] [--netns-from-result]",
     .help = "tear down what provably gone containers\n"
	     "left, saying why each is kept or gone"},
    {.name = "reload",
     .kind = VERB_REPORT,
     .run = run_reload,
     .flags = TAKES_IDS | LOGS_TO_SYSLOG,
     .usage = "cnihook [--config FILE] reload [ID...]",
     .help = "CHECK attachments; re-apply those that\n"
	     "fail, keeping their IPs and MAC\n"
	     "(after a firewall reload)"},
    {.name = "add",
     .kind = VERB_CLI,
     .run = run_attachment,
     .usage = "cnihook add|check|del NETWORK NETNS",
     .help = "run a network's plugins on a netns"},
    {.name = "check", .kind = VERB_CLI, .run = run_attachment},
    {.name = "del", .kind = VERB_CLI, .run = run_attachment},
    {.name = "validate",
     .kind = VERB_CLI,
     .run = run_validate,
     .usage = "cnihook validate [NETWORK]",
     .help = "check networks against their plugins"},
    {.name = "version",
     .kind = VERB_CLI,
     .run = run_version,
     .usage = "cnihook version, cnihook --version",
     .help = "print versions"},
    {.name = "runtime",
     .kind = VERB_CLI,
     .run = run_runtime,
     .usage = RUNTIME_NAME " [RUNC OPTIONS] COMMAND ...",
     .help = "an OCI runtime for Docker and\n"
	     "containerd: adds the hooks, runs runc"},
    {.name = "--version", .kind = VERB_OPTION, .run = run_version_option},
    {.name = "--help",
     .kind = VERB_OPTION,
     .run = run_help,
     .usage = "cnihook --help",
     .help = "this text"},
    {.name = "-h", .kind = VERB_OPTION, .run = run_help},
    {.name = NULL,
     .kind = VERB_PLUGIN,
     .run = run_plugin,
     .usage = "CNI_COMMAND=... cnihook < CONFIG",
     .help = "a chained CNI plugin (Kubernetes pods)"},
};

/* The usage text after the verbs' lines. */
static const char usage_notes[] =
    "Options: --config FILE (default $CNIHOOK_CONFIG, else " SYSCONFDIR "/cnihook/cnihook.json;\n"
    "  for add, check, del and validate: the plugins' sandbox, and confDir, binDirs,\n"
    "  cacheDir and pluginTimeout where the environment sets none),\n"
    "  --log-level=error|warn|info|debug; --no-trunc: full container ids in tables\n"
    "  (else their first 12 characters). add, check, del, validate, gc and reload\n"
    "  need root.\n"
    "\n"
    "Environment: NETCONFPATH (default: cnihook.json's confDir, built-in\n"
    "  " CNIHOOK_CONF_DIR "), CNI_PATH (default: its binDirs), CNI_CACHE_DIR\n"
    "  (default: its cacheDir, built-in /var/lib/cni), CNIHOOK_PLUGIN_TIMEOUT (seconds;\n"
    "  default: its pluginTimeout), CNI_IFNAME (eth0), CNI_ARGS (K=V;K=V),\n"
    "  CAP_ARGS (JSON object), CNI_CONTAINERID.\n"
    "See cnihook(8).\n";

/* The column of the verbs' help in the usage text. */
#define HELP_COLUMN 40

static void usage(FILE *f)
{
	fputs("Usage:\n", f);
	for (size_t i = 0; i < ARRAY_SIZE(verbs); i++) {
		if (verbs[i].usage == NULL)
			continue;
		int col = fprintf(f, "  %s", verbs[i].usage);
		for (const char *h = verbs[i].help;; h++) {
			/* At least two spaces between the line and its help. */
			if (col + 2 > HELP_COLUMN) {
				fputc('\n', f);
				col = 0;
			}
			int len = (int)strcspn(h, "\n");
			fprintf(f, "%*s%.*s\n", HELP_COLUMN - col, "", len, h);
			col = 0;
			h += len;
			if (*h == '\0')
				break;
		}
	}
	fputs(usage_notes, f);
}

/* The verb called name: an option (--help) or not; name NULL: plugin mode. */
static const struct verb *find_verb(const char *name, bool option)
{
	for (size_t i = 0; i < ARRAY_SIZE(verbs); i++) {
		const struct verb *v = &verbs[i];
		if ((v->kind == VERB_OPTION) != option)
			continue;
		if (name && v->name ? strcmp(name, v->name) == 0 : name == v->name)
			return v;
	}
	return NULL;
}

static int usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "cnihook: %s \"%s\" (see cnihook --help)\n", what, arg);
	return 2;
}

/* A hook stage: v, or none (v NULL: the state says). */
static int run_stage(const struct verb *v, struct call *c)
{
	/* Rootless podman: the user's directories (cnihook(8), ROOTLESS). */
	struct rootless_user rl = {.lock_fd = -1};
	_cleanup_free_ char *why = NULL;
	bool rootless = !userns_is_host() && rootless_configure(c->cfg, &rl, &why) == 0;
	/* The user's log file is in the user's runtime directory, beside the
	 * user's cnihook directory, so that it outlives the last container's
	 * teardown (cnihook(8), ROOTLESS). */
	log_init(c->level, c->cfg->log_syslog, rootless ? rl.run_dir : c->cfg->state_dir);
	sandbox_enter(c->cfg->sb);
	int ret = stage_run(c->cfg, rootless ? &rl : NULL, why, v ? v->stage : STAGE_NONE,
			    v ? v->name : NULL, STDIN_FILENO);
	rootless_netns_user_free(&rl);
	return ret;
}

/* What status, list, gc and reload take after their name. */
struct report_args {
	const char *id;
	char **ids; /* TAKES_IDS: the operands (n_ids), to free */
	size_t n_ids;
	bool as_json, no_trunc;
	struct gc_options gc;
};

/* The flags v takes, then at most one operand; then the log opened.
 * Returns 0, or the exit status of a usage error. */
static int report_args(const struct verb *v, const struct call *c, struct report_args *a)
{
	*a = (struct report_args){0};
	for (int k = 1; k < c->argc; k++) {
		const char *arg = c->argv[k];
		if (strcmp(arg, "--json") == 0 && (v->flags & TAKES_JSON))
			a->as_json = true;
		else if (strcmp(arg, "--no-trunc") == 0 && (v->flags & TAKES_NO_TRUNC))
			a->no_trunc = true;
		else if (strcmp(arg, "--dry-run") == 0 && (v->flags & TAKES_DRY_RUN))
			a->gc.dry_run = true;
		else if (strcmp(arg, "--netns-from-result") == 0 &&
			 (v->flags & TAKES_NETNS_FROM_RESULT))
			a->gc.netns_from_result = true;
		else if (arg[0] != '-' && !a->id && (v->flags & TAKES_ID))
			a->id = arg;
		else if (arg[0] != '-' && (v->flags & TAKES_IDS))
			strv_append(&a->ids, &a->n_ids, arg);
		else {
			strv_free(a->ids, a->n_ids);
			return usage_error("unexpected argument", arg);
		}
	}
	log_init(c->level, (v->flags & LOGS_TO_SYSLOG) && c->cfg->log_syslog, c->cfg->state_dir);
	return 0;
}

/* status and list of a rootless user (cnihook(8), ROOTLESS): under podman
 * unshare (root of the user's namespace) or as the user on the host, the
 * user's directories instead of root's. true when they were taken. */
static bool user_dirs(struct call *c, struct rootless_user *rl)
{
	_cleanup_free_ char *why = NULL;
	if (!userns_is_host())
		return geteuid() == 0 && rootless_configure(c->cfg, rl, &why) == 0;
	return geteuid() != 0 && rootless_configure_host_user(c->cfg, rl, &why) == 0;
}

static int run_status(const struct verb *v, struct call *c)
{
	struct rootless_user rl = {.lock_fd = -1};
	bool rootless = user_dirs(c, &rl);
	struct report_args a;
	int ret = report_args(v, c, &a);
	if (ret == 0)
		ret = status_run(c->cfg, a.id, a.as_json, a.no_trunc, rootless ? &rl : NULL);
	rootless_netns_user_free(&rl);
	return ret;
}

static int run_list(const struct verb *v, struct call *c)
{
	struct rootless_user rl = {.lock_fd = -1};
	user_dirs(c, &rl);
	struct report_args a;
	int ret = report_args(v, c, &a);
	if (ret == 0)
		ret = list_run(c->cfg, a.as_json, a.no_trunc);
	rootless_netns_user_free(&rl);
	return ret;
}

/* gc of a rootless user's attachments, inside the user's namespace. */
struct gc_call {
	const struct hook_config *cfg;
	const struct gc_options *o;
	const struct rootless_gc_outcome *out;
};

/* The helpers gc stopped first, before its verdicts. */
static void print_strays(const struct rootless_gc_outcome *out)
{
	if (out->strays > 0)
		printf("gc: stopped %d helper(s) of the user's (forwarders, dnsmasq, slirp4netns, "
		       "watch) that served a namespace that is gone\n",
		       out->strays);
}

/* gc prints and logs its own failure: none to hand back. */
static int gc_in_netns(void *data, char **err)
{
	const struct gc_call *g = data;
	print_strays(g->out);
	return gc_run(g->cfg, g->o) == 0 ? 0 : -1;
}

static int run_gc(const struct verb *v, struct call *c)
{
	struct report_args a;
	int ret = report_args(v, c, &a);
	if (ret)
		return ret;
	sandbox_enter(c->cfg->sb);
	/* `podman unshare cnihook gc`: the user's rootless attachments
	 * (cnihook(8), ROOTLESS). */
	struct rootless_user rl = {.lock_fd = -1};
	_cleanup_free_ char *why = NULL;
	if (userns_is_host() || geteuid() != 0 || rootless_configure(c->cfg, &rl, &why) < 0)
		return gc_run(c->cfg, &a.gc);
	a.gc.rootless = true;
	log_init(c->level, (v->flags & LOGS_TO_SYSLOG) && c->cfg->log_syslog, rl.run_dir);
	struct rootless_call rc = {
	    .cfg = c->cfg, .user = &rl, .id = "-", .attachment = "-", .stage = "gc"};
	struct rootless_gc_outcome out;
	struct gc_call g = {.cfg = c->cfg, .o = &a.gc, .out = &out};
	_cleanup_free_ char *err = NULL;
	ret = rootless_gc(&rc, gc_in_netns, &g, &out, &err);
	if (!out.gc_ran)
		print_strays(&out);
	if (out.had_none && out.strays == 0)
		printf("gc: nothing to collect: the user has no %s\n", rl.dir);
	if (ret < 0)
		log_error("gc: %s", err);
	rootless_netns_user_free(&rl);
	return ret != 0;
}

static int run_reload(const struct verb *v, struct call *c)
{
	struct report_args a;
	int ret = report_args(v, c, &a);
	if (ret)
		return ret;
	sandbox_enter(c->cfg->sb);
	/* `podman unshare cnihook reload`: the user's helpers (cnihook(8),
	 * ROOTLESS). */
	struct rootless_user rl = {.lock_fd = -1};
	_cleanup_free_ char *why = NULL;
	if (!userns_is_host() && geteuid() == 0 && rootless_configure(c->cfg, &rl, &why) == 0) {
		log_init(c->level, (v->flags & LOGS_TO_SYSLOG) && c->cfg->log_syslog, rl.run_dir);
		struct rootless_call rc = {.cfg = c->cfg,
					   .user = &rl,
					   .id = "-",
					   .attachment = "-",
					   .stage = "reload",
					   .collect_gone = gc_collect_gone};
		_cleanup_free_ char *err = NULL;
		ret = rootless_reload(&rc, &err) < 0;
		if (ret)
			log_error("reload: %s", err);
		rootless_netns_user_free(&rl);
		strv_free(a.ids, a.n_ids);
		return ret;
	}
	ret = reload_run(c->cfg, a.ids, a.n_ids);
	strv_free(a.ids, a.n_ids);
	return ret;
}

static int run_attachment(const struct verb *v, struct call *c)
{
	return cli_attachment(c->argc, c->argv, c->config);
}

static int run_validate(const struct verb *v, struct call *c)
{
	return cli_validate(c->argc, c->argv, c->config);
}

static int run_version(const struct verb *v, struct call *c)
{
	return cli_version(c->argc, c->argv);
}

/* --version: nothing after it. */
static int run_version_option(const struct verb *v, struct call *c)
{
	if (c->argc > 1)
		return usage_error("unexpected argument", c->argv[1]);
	return cli_version(1, (char *[]){"version", NULL});
}

static int run_help(const struct verb *v, struct call *c)
{
	usage(stdout);
	return 0;
}

/* Run by a container runtime as the CNI plugin "cnihook". */
static int run_plugin(const struct verb *v, struct call *c)
{
	log_init(LOG_LEVEL_WARN, false, NULL);
	return cni_plugin_run(getenv("CNI_COMMAND"), STDIN_FILENO);
}

/* `cnihook runtime ARGS`: cnihook-runtime ARGS. */
static int run_runtime(const struct verb *v, struct call *c)
{
	return runtime_main(c->argc, c->argv);
}

/* The hook and the commands that read cnihook.json: v a VERB_STAGE or a
 * VERB_REPORT, or NULL (a stage the state says). */
static int run_with_config(const struct verb *v, struct call *c)
{
	char *err = NULL;
	const char *path = c->config ? c->config : getenv("CNIHOOK_CONFIG");
	if (path && *path == '\0')
		path = NULL;
	/* What is wrong with the command line is told before the file is read. */
	if (v && v->kind == VERB_STAGE && c->argc > 1)
		return usage_error("unexpected argument after the stage", c->argv[1]);
	if (hookconf_load(path, &c->cfg, &err) < 0) {
		/* Logged where the stage's failures go (status and list
		 * answer on the terminal): the defaults of cnihook.json(5). */
		log_init(LOG_LEVEL_ERROR, !v || (v->flags & LOGS_TO_SYSLOG), CNIHOOK_STATE_DIR);
		log_error("%s", err);
		free(err);
		return 1;
	}
	c->level = c->cfg->log_level;
	if (c->level_arg)
		log_parse_level(c->level_arg, &c->level);
	int ret = v ? v->run(v, c) : run_stage(NULL, c);
	hookconf_free(c->cfg);
	return ret;
}

int main(int argc, char **argv)
{
	struct call c = {.level = LOG_LEVEL_WARN};
	if (argc > 0 && runtime_called_as(argv[0]))
		return runtime_main(argc, argv);
	proctitle_init(argc, argv);
	const char *cni_command = getenv("CNI_COMMAND");
	if (argc == 1 && cni_command && *cni_command) {
		const struct verb *plugin = find_verb(NULL, false);
		return plugin->run(plugin, &c);
	}
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		const struct verb *option = find_verb(argv[i], true);
		if (option) {
			c.argc = argc - i;
			c.argv = argv + i;
			return option->run(option, &c);
		} else if (strncmp(argv[i], "--log-level=", 12) == 0) {
			c.level_arg = argv[i] + 12;
			if (log_parse_level(c.level_arg, &c.level) < 0)
				return usage_error(
				    "--log-level: expected error, warn, info or debug, not",
				    c.level_arg);
		} else if (strcmp(argv[i], "--config") == 0 ||
			   strncmp(argv[i], "--config=", 9) == 0) {
			c.config = argv[i][8] == '=' ? argv[i] + 9 : i + 1 < argc ? argv[++i] : "";
			if (*c.config == '\0')
				return usage_error("--config: expected a FILE", argv[i]);
		} else {
			return usage_error("unknown option", argv[i]);
		}
	}
	c.argc = argc - i;
	c.argv = argv + i;
	if (c.argc == 0) {
		/* Run by an engine without a stage argument: the state says. */
		if (isatty(STDIN_FILENO)) {
			usage(stderr);
			return 2;
		}
		return run_with_config(NULL, &c);
	}
	const struct verb *v = find_verb(c.argv[0], false);
	if (v && (v->kind == VERB_STAGE || v->kind == VERB_REPORT))
		return run_with_config(v, &c);
	log_init(c.level, false, NULL);
	if (v == NULL) {
		log_error("unknown command \"%s\" (see cnihook --help)", c.argv[0]);
		return 2;
	}
	return v->run(v, &c);
}
