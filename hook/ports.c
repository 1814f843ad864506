/* SPDX-License-Identifier: Apache-2.0 */
/* Host port reservations. */
#include "config.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lock.h"
#include "ports.h"

#define PORTS_FILE_MAX (1u << 20)

struct port {
	char proto[8];
	unsigned port;
	char ip[64]; /* "*" for any address */
};

/* "", 0.0.0.0 and :: are any address; others in canonical form. */
static void canonical_ip(const char *ip, char out[64])
{
	unsigned char a[16];
	if (ip == NULL || *ip == '\0') {
		strcpy(out, "*");
	} else if (inet_pton(AF_INET, ip, a) == 1) {
		if (memcmp(a, "\0\0\0\0", 4) == 0)
			strcpy(out, "*");
		else
			inet_ntop(AF_INET, a, out, 64);
	} else if (inet_pton(AF_INET6, ip, a) == 1) {
		static const unsigned char zero[16];
		if (memcmp(a, zero, 16) == 0)
			strcpy(out, "*");
		else
			inet_ntop(AF_INET6, a, out, 64);
	} else {
		snprintf(out, 64, "%s", ip);
	}
}

static bool overlap(const char *a, const char *b)
{
	return strcmp(a, "*") == 0 || strcmp(b, "*") == 0 || strcmp(a, b) == 0;
}

/* The port mappings of a portMappings JSON array (text). */
static void parse_mappings(const char *text, struct port **v, size_t *n)
{
	json *arr = NULL;
	_cleanup_free_ char *err = NULL;
	if (text == NULL ||
	    json_parse_with(text, strlen(text), "portMappings", &hook_json, &arr, &err) < 0)
		return;
	for (size_t i = 0; json_is_array(arr) && i < arr->u.array.n; i++) {
		json *m = arr->u.array.v[i];
		json *hp = json_obj_get(m, "hostPort");
		if (!json_is_int(hp) || json_int_value(hp) < 1 || json_int_value(hp) > 65535)
			continue;
		struct port p = {.port = (unsigned)json_int_value(hp)};
		const char *proto = json_str(json_obj_get(m, "protocol"));
		snprintf(p.proto, sizeof(p.proto), "%s", proto && *proto ? proto : "tcp");
		for (char *c = p.proto; *c; c++)
			*c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
		canonical_ip(json_str(json_obj_get(m, "hostIP")), p.ip);
		*v = xreallocarray(*v, *n + 1, sizeof(**v));
		(*v)[(*n)++] = p;
	}
	json_free(arr);
}

static bool has_state(const char *state_dir, const char *id)
{
	_cleanup_free_ char *dir = xasprintf("%s/%s", state_dir, id);
	struct stat st;
	return stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Is `holder` still attached: a state directory or a cache entry. */
static bool holder_alive(const char *state_dir, cnirt_cache_entry **cache, size_t n_cache,
			 const char *holder)
{
	if (has_state(state_dir, holder))
		return true;
	for (size_t i = 0; i < n_cache; i++)
		if (strcmp(cnirt_cache_entry_container_id(cache[i]), holder) == 0)
			return true;
	return false;
}

/* Rewrite the reservation file under its lock: drop the lines of `drop`
 * (and, with prune, of holders no longer attached: cache[0..n_cache) is
 * what the cache holds), then, when p is given, refuse if a live holder
 * overlaps, else add our line. */
static int update_file(const char *state_dir, const char *path, const char *drop, bool prune,
		       cnirt_cache_entry **cache, size_t n_cache, const struct port *p,
		       const char *id, char **err)
{
	int fd = -1;
	if (lock_path(path, &fd, err) < 0)
		return -1;
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	int r = read_all_fd(fd, PORTS_FILE_MAX, &buf, &len);
	if (r < 0) {
		close(fd);
		return set_error(err, "port reservations %s: %s", path, strerror(-r));
	}
	char *out = xmalloc(len + 512);
	size_t o = 0;
	int ret = 0;
	char *save = NULL;
	for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char holder[256], ip[64];
		if (sscanf(line, "%255s %63s", holder, ip) != 2)
			continue;
		if ((drop && strcmp(holder, drop) == 0) ||
		    (prune && !holder_alive(state_dir, cache, n_cache, holder)))
			continue;
		if (p && ret == 0 && overlap(ip, p->ip)) {
			ret = set_error(err,
					"host port %u/%s%s%s is held by container \"%s\": refusing "
					"the port mapping",
					p->port, p->proto, strcmp(p->ip, "*") ? " on " : "",
					strcmp(p->ip, "*") ? p->ip : "", holder);
		}
		o += (size_t)sprintf(out + o, "%s %s\n", holder, ip);
	}
	if (p && ret == 0)
		o += (size_t)snprintf(out + o, 512, "%s %s\n", id, p->ip);
	if (o == 0) {
		unlink(path);
	} else if (ftruncate(fd, 0) < 0 || pwrite(fd, out, o, 0) != (ssize_t)o) {
		ret = set_error(err, "port reservations %s: %s", path, strerror(errno));
	}
	free(out);
	close(fd);
	return ret;
}

static char *ports_dir(const char *state_dir)
{
	return xasprintf("%s/ports", state_dir);
}

void ports_release(const char *state_dir, const char *id)
{
	_cleanup_free_ char *dir = ports_dir(state_dir);
	DIR *d = opendir(dir);
	if (d == NULL)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		_cleanup_free_ char *path = xasprintf("%s/%s", dir, de->d_name);
		_cleanup_free_ char *err = NULL;
		update_file(state_dir, path, id, false, NULL, 0, NULL, id, &err);
	}
	closedir(d);
}

/* Port mappings of other runtimes' attachments (cache entries without a
 * cnihook state directory) that overlap p. */
static int check_cache(const char *state_dir, cnirt_cache_entry **cache, size_t n, const char *id,
		       const struct port *p, char **err)
{
	for (size_t i = 0; i < n; i++) {
		const char *holder = cnirt_cache_entry_container_id(cache[i]);
		if (strcmp(holder, id) == 0 || has_state(state_dir, holder))
			continue;
		const char *caps = cnirt_cache_entry_capability_args(cache[i]);
		json *v = NULL;
		_cleanup_free_ char *e = NULL;
		if (caps == NULL ||
		    json_parse_with(caps, strlen(caps), "capabilityArgs", &hook_json, &v, &e) < 0)
			continue;
		_cleanup_free_ char *text = NULL;
		if (json_obj_get(v, "portMappings"))
			text = json_gen(json_obj_get(v, "portMappings"), false, NULL);
		json_free(v);
		struct port *held = NULL;
		size_t n_held = 0;
		parse_mappings(text, &held, &n_held);
		for (size_t k = 0; k < n_held; k++) {
			if (held[k].port == p->port && strcmp(held[k].proto, p->proto) == 0 &&
			    overlap(held[k].ip, p->ip)) {
				free(held);
				return set_error(err,
						 "host port %u/%s is held by container \"%s\" "
						 "(network \"%s\"): refusing the port mapping",
						 p->port, p->proto, holder,
						 cnirt_cache_entry_network(cache[i]));
			}
		}
		free(held);
	}
	return 0;
}

int ports_reserve(const char *state_dir, cnirt_ctx *ctx, const char *id,
		  const struct selection *sel, char **err)
{
	struct port *want = NULL;
	size_t n = 0;
	for (size_t i = 0; i < sel->n; i++)
		parse_mappings(sel->v[i].port_mappings, &want, &n);
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < i; k++)
			if (want[i].port == want[k].port &&
			    strcmp(want[i].proto, want[k].proto) == 0 &&
			    overlap(want[i].ip, want[k].ip)) {
				set_error(err, "host port %u/%s is asked for twice", want[i].port,
					  want[i].proto);
				free(want);
				return -1;
			}

	cnirt_cache_entry **cache = NULL;
	size_t n_cache = 0;
	cnirt_error *e = NULL;
	if (cnirt_cache_list(ctx, &cache, &n_cache, &e) < 0) {
		cnirt_error_free(e);
		cache = NULL;
		n_cache = 0;
	}
	_cleanup_free_ char *dir = ports_dir(state_dir);
	int r = mkdir_p(dir, 0700);
	if (r < 0)
		set_error(err, "port reservations %s: %s", dir, strerror(-r));
	for (size_t i = 0; i < n && r == 0; i++) {
		_cleanup_free_ char *path = xasprintf("%s/%s-%u", dir, want[i].proto, want[i].port);
		r = check_cache(state_dir, cache, n_cache, id, &want[i], err);
		if (r == 0)
			r = update_file(state_dir, path, NULL, true, cache, n_cache, &want[i], id,
					err);
	}
	if (r < 0)
		ports_release(state_dir, id);
	cnirt_cache_entries_free(cache, n_cache);
	free(want);
	return r;
}
