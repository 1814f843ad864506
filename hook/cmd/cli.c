/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The operator verbs that drive libcnirt directly, with the environment of
 * the reference CLI (cnitool): add, check, del, validate, version.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cnirt.h>

#include "conf/hookconf.h"
#include "base/log.h"
#include "base/sha512.h"
#include "base/util.h"
#include "cmd/cli.h"
#include "host/interfaces.h"
#include "host/userns.h"

static const char *env_or(const char *name, const char *fallback)
{
	const char *v = getenv(name);
	return v && *v ? v : fallback;
}

/* One line on stderr that names the operation, network, plugin, CNI code and message. */
void cli_report(const char *op, const char *network, const cnirt_error *e)
{
	_cleanup_free_ char *msg = error_cni_text(network, e);
	log_error("%s %s", op, msg);
}

static const char *config_path;

/* The sandbox of cnihook.json (absent: the default one) for the plugins
 * the CLI runs too; loaded once. */
static struct hook_config *cli_config(void)
{
	static struct hook_config *cfg;
	if (cfg == NULL) {
		char *err = NULL;
		const char *path = config_path ? config_path : getenv("CNIHOOK_CONFIG");
		if (hookconf_load(path && *path ? path : NULL, &cfg, &err) < 0) {
			log_error("%s", err);
			free(err);
			exit(1);
		}
		/* The CLI mounts nothing: it takes the plugins' sandbox on
		 * itself, once (on failure each plugin applies it). */
		if (sandbox_confine(cfg->sb, &err) < 0) {
			log_debug(
			    "sandbox: confining cnihook itself: %s; applied per plugin instead",
			    err);
			free(err);
		}
	}
	return cfg;
}

/* Where the CLI finds networks: $NETCONFPATH, else cnihook.json's confDir
 * (cnihook's own directory by default), where the hook finds them. */
static const char *netconfpath(void)
{
	return env_or("NETCONFPATH", cli_config()->conf_dir);
}

/* cnitool's environment where it is set, else what the hook uses:
 * cnihook.json's binDirs, cacheDir and pluginTimeout (hookconf_ctx()), so
 * that `cnihook check` finds the entries the hook cached. */
static cnirt_ctx *ctx_from_env(void)
{
	struct hook_config *cfg = cli_config();
	cnirt_ctx *ctx = hookconf_ctx(cfg);
	const char *bin_path = env_or("CNI_PATH", NULL);
	if (bin_path)
		cnirt_ctx_set_bin_path(ctx, bin_path);
	const char *cache_dir = env_or("CNI_CACHE_DIR", NULL);
	if (cache_dir)
		cnirt_ctx_set_cache_dir(ctx, cache_dir);
	const char *t = getenv("CNIHOOK_PLUGIN_TIMEOUT");
	if (t && *t) {
		char *end;
		errno = 0;
		unsigned long s = strtoul(t, &end, 10);
		/* strtoul takes white space, a sign and wraps a negative value */
		if (*t >= '0' && *t <= '9' && *end == '\0' && errno == 0 && s < 86400)
			cnirt_ctx_set_timeout_ms(ctx, (unsigned)s * 1000);
		else
			log_warn("CNIHOOK_PLUGIN_TIMEOUT=\"%s\" is not a number of seconds; "
				 "using the default",
				 t);
	}
	return ctx;
}

/* CNI_ARGS "K=V;K=V" split in place into pairs. As cnitool: every pair is
 * one non-empty key, one "=" and a non-empty value. */
static int parse_cni_args(char *s, cnirt_kv **out, size_t *n, char **err)
{
	size_t cap = 1;
	for (const char *p = s; *p; p++)
		cap += *p == ';';
	cnirt_kv *kv = xreallocarray(NULL, cap, sizeof(*kv));
	size_t k = 0;
	for (char *tok = *s ? s : NULL, *next; tok; tok = next) {
		next = strchr(tok, ';');
		if (next)
			*next++ = '\0';
		char *eq = strchr(tok, '=');
		if (eq == NULL || eq == tok || eq[1] == '\0' || strchr(eq + 1, '=')) {
			_cleanup_free_ char *v = error_shown(tok);
			free(kv);
			return error_set(err,
					 "CNI_ARGS: \"%s\" is not a KEY=VALUE pair (one \"=\", "
					 "neither side empty)",
					 v);
		}
		*eq = '\0';
		kv[k++] = (cnirt_kv){tok, eq + 1};
	}
	*out = kv;
	*n = k;
	return 0;
}

/* The container id the reference CLI derives from the netns path. */
static char *container_id_for(const char *netns)
{
	uint8_t d[64];
	sha512(netns, strlen(netns), d);
	char hex[21];
	for (int i = 0; i < 10; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	return xasprintf("cnitool-%s", hex);
}

/* The netns path made absolute, as cnitool does; an empty one stays empty
 * (DEL may run without a namespace). */
static char *absolute(const char *path)
{
	if (path[0] == '\0' || path[0] == '/')
		return xstrdup(path);
	_cleanup_free_ char *cwd = getcwd(NULL, 0);
	if (cwd == NULL)
		return xstrdup(path);
	return xasprintf("%s/%s", cwd, path);
}

static int load_network(const char *name, cnirt_netlist **l)
{
	cnirt_error *e = NULL;
	if (cnirt_confdir_find(netconfpath(), name, l, &e) < 0) {
		cli_report("load", name, e);
		cnirt_error_free(e);
		return -1;
	}
	return 0;
}

/* ADD never into an interface name the namespace has already: the
 * rollback of a failed ADD would delete another program's interface
 * (interfaces.h). 0, or -1 (logged). A namespace that cannot be entered is
 * left to the plugins, which say so as cnitool's do. */
static int check_ifname(const char *netns, const char *ifname)
{
	struct interfaces ifs = {0};
	_cleanup_free_ char *err = NULL;
	if (interfaces_read(netns, &ifs, &err) < 0)
		return 0;
	int ret = 0;
	if (interfaces_has(&ifs, ifname)) {
		unsigned k = 1;
		char free_name[16];
		do
			snprintf(free_name, sizeof(free_name), "net%u", k++);
		while (interfaces_has(&ifs, free_name));
		_cleanup_free_ char *ns = error_shown_whole(netns);
		log_error("add: interface \"%s\" exists in %s already, another program's: refusing "
			  "before any plugin runs; set CNI_IFNAME to a free name (%s)",
			  ifname, ns, free_name);
		ret = -1;
	}
	interfaces_free(&ifs);
	return ret;
}

static int do_attachment(const char *op, const char *network, const char *netns_arg)
{
	cnirt_netlist *l = NULL;
	if (load_network(network, &l) < 0)
		return 1;

	_cleanup_free_ char *netns = absolute(netns_arg);
	_cleanup_free_ char *id = getenv("CNI_CONTAINERID") && *getenv("CNI_CONTAINERID")
				      ? xstrdup(getenv("CNI_CONTAINERID"))
				      : container_id_for(netns);
	_cleanup_free_ char *args_buf = xstrdup(env_or("CNI_ARGS", ""));
	_cleanup_free_ cnirt_kv *args = NULL;
	size_t n_args = 0;
	_cleanup_free_ char *err = NULL;
	if (parse_cni_args(args_buf, &args, &n_args, &err) < 0) {
		log_error("%s", err);
		cnirt_netlist_free(l);
		return 1;
	}
	cnirt_attachment a = {
	    .container_id = id,
	    .netns = netns,
	    .ifname = env_or("CNI_IFNAME", "eth0"),
	    .args = args,
	    .n_args = n_args,
	    .capability_args = getenv("CAP_ARGS"),
	};
	if (strcmp(op, "add") == 0 && check_ifname(netns, a.ifname) < 0) {
		cnirt_netlist_free(l);
		return 1;
	}
	cnirt_ctx *ctx = ctx_from_env();
	cnirt_error *e = NULL;
	_cleanup_free_ char *result = NULL;
	int r;
	if (strcmp(op, "add") == 0)
		r = cnirt_add(ctx, l, &a, &result, &e);
	else if (strcmp(op, "check") == 0)
		r = cnirt_check(ctx, l, &a, &e);
	else
		r = cnirt_del(ctx, l, &a, &e);
	for (size_t i = 0; r < 0 && i < cnirt_error_rollback_count(e); i++) {
		_cleanup_free_ char *m = error_cni_text(network, cnirt_error_rollback(e, i));
		log_warn("%s: the rollback DEL after the failed ADD failed too: %s; what that "
			 "plugin made may be left (del it, or by hand)",
			 op, m);
	}
	if (r < 0)
		cli_report(op, network, e);
	else if (result)
		printf("%s\n", result);
	cnirt_error_free(e);
	cnirt_ctx_free(ctx);
	cnirt_netlist_free(l);
	return r < 0 ? 1 : 0;
}

static int validate_one(cnirt_ctx *ctx, const cnirt_netlist *l)
{
	cnirt_error *e = NULL;
	if (cnirt_validate(ctx, l, &e) < 0) {
		cli_report("validate", cnirt_netlist_name(l), e);
		cnirt_error_free(e);
		return -1;
	}
	printf("%s: network \"%s\" (version %s, %zu plugins): ok\n", cnirt_netlist_path(l),
	       cnirt_netlist_name(l), cnirt_netlist_version(l), cnirt_netlist_plugin_count(l));
	return 0;
}

static int do_validate(const char *network)
{
	cnirt_ctx *ctx = ctx_from_env();
	int failed = 0;
	if (network) {
		cnirt_netlist *l = NULL;
		failed = load_network(network, &l) < 0 || validate_one(ctx, l) < 0;
		cnirt_netlist_free(l);
	} else {
		const char *dir = netconfpath();
		cnirt_confdir *d = NULL;
		cnirt_error *e = NULL;
		if (cnirt_confdir_scan(dir, &d, &e) < 0) {
			cli_report("validate", NULL, e);
			cnirt_error_free(e);
			failed = 1;
		}
		for (size_t i = 0; d && i < cnirt_confdir_count(d); i++) {
			const cnirt_netlist *l = cnirt_confdir_list(d, i);
			if (l == NULL) {
				cli_report("validate", NULL, cnirt_confdir_error(d, i));
				failed = 1;
			} else if (validate_one(ctx, l) < 0) {
				failed = 1;
			}
		}
		cnirt_confdir_free(d);
	}
	cnirt_ctx_free(ctx);
	return failed ? 1 : 0;
}

/* The plugins need root: they enter network namespaces and change links,
 * addresses and firewall rules, in the sandbox only root can set up. */
static bool refused_without_root(const char *verb)
{
	_cleanup_free_ char *why = userns_not_host_root();
	if (why == NULL)
		return false;
	log_error("%s needs root in the host's user namespace (its plugins enter network "
		  "namespaces and change links, addresses and firewall rules); %s",
		  verb, why);
	return true;
}

int cli_attachment(int argc, char **argv, const char *config)
{
	const char *verb = argv[0];
	config_path = config;
	if (argc != 3) {
		if (argc > 3)
			log_error(
			    "%s: expected NETWORK NETNS, then nothing: unexpected argument \"%s\"",
			    verb, argv[3]);
		else
			log_error("%s: expected NETWORK NETNS", verb);
		return 2;
	}
	if (refused_without_root(verb))
		return 1;
	return do_attachment(verb, argv[1], argv[2]);
}

int cli_validate(int argc, char **argv, const char *config)
{
	config_path = config;
	if (argc > 2) {
		log_error("validate: expected at most one NETWORK: unexpected argument \"%s\"",
			  argv[2]);
		return 2;
	}
	if (refused_without_root(argv[0]))
		return 1;
	return do_validate(argc == 2 ? argv[1] : NULL);
}

int cli_version(int argc, char **argv)
{
	if (argc > 1) {
		log_error("version: unexpected argument \"%s\"", argv[1]);
		return 2;
	}
	printf("cnihook %s\nCNI spec versions:", PACKAGE_VERSION);
	for (const char *const *v = cnirt_supported_versions(); *v; v++)
		printf(" %s", *v);
	printf("\n");
	return 0;
}
