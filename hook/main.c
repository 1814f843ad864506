/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cnihook: the OCI hook (createRuntime, prestart, poststop: the OCI state on
 * stdin), the operator CLI (add, check, del, validate, version, status), and
 * a chained CNI plugin (run with CNI_COMMAND set and no argument).
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/hookconf.h"
#include "base/log.h"
#include "cmd/cli.h"
#include "cmd/cni-plugin.h"
#include "cmd/gc.h"
#include "cmd/report.h"
#include "cmd/stage.h"

static int usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "cnihook: %s \"%s\" (see cnihook --help)\n", what, arg);
	return 2;
}

/* status, list and gc: their flags, then at most one operand. */
static int run_operator(struct hook_config *cfg, enum log_level level, int argc, char **argv)
{
	const char *verb = argv[0];
	bool is_gc = strcmp(verb, "gc") == 0;
	const char *operand = NULL;
	bool as_json = false, no_trunc = false;
	struct gc_options gc = {0};
	for (int k = 1; k < argc; k++) {
		if (strcmp(argv[k], "--json") == 0 && !is_gc)
			as_json = true;
		else if (strcmp(argv[k], "--no-trunc") == 0 && !is_gc)
			no_trunc = true;
		else if (strcmp(argv[k], "--dry-run") == 0 && is_gc)
			gc.dry_run = true;
		else if (strcmp(argv[k], "--netns-from-result") == 0 && is_gc)
			gc.netns_from_result = true;
		else if (argv[k][0] != '-' && !operand && strcmp(verb, "status") == 0)
			operand = argv[k];
		else
			return usage_error("unexpected argument", argv[k]);
	}
	log_init(level, is_gc && cfg->log_syslog, cfg->state_dir);
	if (strcmp(verb, "status") == 0)
		return report_status(cfg, operand, as_json, no_trunc);
	if (strcmp(verb, "list") == 0)
		return report_list(cfg, as_json, no_trunc);
	hookconf_enter_sandbox(cfg);
	return gc_run(cfg, &gc);
}

/* A hook stage: the verb, or none (the state says); nothing after it
 * (run_with_config checks that before the configuration is read). */
static int run_stage(struct hook_config *cfg, enum log_level level, int argc, char **argv)
{
	const char *verb = argc ? argv[0] : NULL;
	enum stage stage = STAGE_NONE;
	if (verb && stage_parse(verb, &stage) < 0)
		return usage_error("unknown command", verb);
	log_init(level, cfg->log_syslog, cfg->state_dir);
	hookconf_enter_sandbox(cfg);
	return stage_run(cfg, stage, verb, STDIN_FILENO);
}

/* The hook and the commands that read cnihook.json. */
static int run_with_config(const char *config, const char *level_arg, int argc, char **argv)
{
	struct hook_config *cfg = NULL;
	char *err = NULL;
	const char *path = config ? config : getenv("CNIHOOK_CONFIG");
	if (path && *path == '\0')
		path = NULL;
	const char *verb = argc ? argv[0] : NULL;
	bool inventory = verb && (strcmp(verb, "status") == 0 || strcmp(verb, "list") == 0);
	enum stage stage;
	/* What is wrong with the command line is told before the file is read. */
	if (argc > 1 && stage_parse(verb, &stage) == 0)
		return usage_error("unexpected argument after the stage", argv[1]);
	if (hookconf_load(path, &cfg, &err) < 0) {
		/* Logged where the stage's failures go (status and list
		 * answer on the terminal): the defaults of cnihook.json(5). */
		log_init(LOG_LEVEL_ERROR, !inventory, CNIHOOK_STATE_DIR);
		log_error("%s", err);
		free(err);
		return 1;
	}
	enum log_level level = cfg->log_level;
	if (level_arg)
		log_parse_level(level_arg, &level);
	int ret = inventory || (verb && strcmp(verb, "gc") == 0)
		      ? run_operator(cfg, level, argc, argv)
		      : run_stage(cfg, level, argc, argv);
	hookconf_free(cfg);
	return ret;
}

int main(int argc, char **argv)
{
	const char *level_arg = NULL, *config = NULL;
	enum log_level level = LOG_LEVEL_WARN;
	/* Run by a container runtime as the CNI plugin "cnihook". */
	const char *cni_command = getenv("CNI_COMMAND");
	if (argc == 1 && cni_command && *cni_command) {
		log_init(LOG_LEVEL_WARN, false, NULL);
		return cniplugin_run(cni_command, STDIN_FILENO);
	}
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			cli_usage(stdout);
			return 0;
		} else if (strcmp(argv[i], "--version") == 0) {
			if (i + 1 < argc)
				return usage_error("unexpected argument", argv[i + 1]);
			return cli_main(1, (char *[]){"version", NULL}, NULL);
		} else if (strncmp(argv[i], "--log-level=", 12) == 0) {
			level_arg = argv[i] + 12;
			if (log_parse_level(level_arg, &level) < 0)
				return usage_error(
				    "--log-level: expected error, warn, info or debug, not",
				    level_arg);
		} else if (strcmp(argv[i], "--config") == 0 ||
			   strncmp(argv[i], "--config=", 9) == 0) {
			config = argv[i][8] == '=' ? argv[i] + 9 : i + 1 < argc ? argv[++i] : "";
			if (*config == '\0')
				return usage_error("--config: expected a FILE", argv[i]);
		} else {
			return usage_error("unknown option", argv[i]);
		}
	}
	const char *verb = i < argc ? argv[i] : NULL;
	enum stage stage;
	if (verb == NULL) {
		/* Run by an engine without a stage argument: the state says. */
		if (isatty(STDIN_FILENO)) {
			cli_usage(stderr);
			return 2;
		}
		return run_with_config(config, level_arg, 0, argv + i);
	}
	if (stage_parse(verb, &stage) == 0 || strcmp(verb, "status") == 0 ||
	    strcmp(verb, "list") == 0 || strcmp(verb, "gc") == 0)
		return run_with_config(config, level_arg, argc - i, argv + i);
	log_init(level, false, NULL);
	return cli_main(argc - i, argv + i, config);
}
