/* SPDX-License-Identifier: Apache-2.0 */
/* The names and paths of the state directory, beside the cache and of a
 * rootless user (layout.h). */
#include "config.h"

#include <string.h>

#include <cnirt.h>

#include "base/log.h"
#include "base/util.h"
#include "state/layout.h"

/* `rel` (taken) in the directory `dir`, or rel itself when dir is NULL. */
static char *in(const char *dir, char *rel)
{
	if (dir == NULL)
		return rel;
	char *path = xasprintf("%s/%s", dir, rel);
	free(rel);
	return path;
}

char *layout_container_dir(const char *state_dir, const char *id)
{
	return in(state_dir, xstrdup(id));
}

char *layout_record(const char *state_dir, const char *id)
{
	return in(state_dir, xasprintf("%s/" LAYOUT_RECORD, id));
}

char *layout_status(const char *state_dir, const char *id)
{
	return in(state_dir, xasprintf("%s/" LAYOUT_STATUS, id));
}

char *layout_names_file(const char *state_dir, const char *id, const char *file)
{
	return in(state_dir, xasprintf("%s/%s", id, file));
}

char *layout_pin(const char *state_dir, const char *id)
{
	return in(state_dir, xasprintf("%s/" LAYOUT_PIN, id));
}

char *layout_own_ports(const char *state_dir, const char *id)
{
	return in(state_dir, xasprintf("%s/" LAYOUT_OWN_PORTS, id));
}

char *layout_name_old(const char *state_dir, const char *id)
{
	return in(state_dir, xasprintf("%s/" LAYOUT_NAME_OLD, id));
}

char *layout_pod_members(const char *state_dir, const char *id)
{
	return in(state_dir, xasprintf("%s/" LAYOUT_POD_MEMBERS, id));
}

char *layout_journal_dir(const char *state_dir, const char *id)
{
	return in(state_dir, xasprintf("%s/" LAYOUT_JOURNAL_DIR, id));
}

char *layout_journal(const char *state_dir, const char *id, const char *network, const char *ifname)
{
	return in(state_dir, xasprintf("%s/" LAYOUT_JOURNAL_DIR "/%s:%s", id, network, ifname));
}

char *layout_lock(const char *state_dir, const char *id)
{
	return in(state_dir, xasprintf("%s" LAYOUT_LOCK_SUFFIX, id));
}

char *layout_name_link(const char *state_dir, const char *id)
{
	return in(state_dir, xasprintf("%s" LAYOUT_NAME_SUFFIX, id));
}

char *layout_ports_dir(const char *state_dir)
{
	return in(state_dir, xstrdup(LAYOUT_PORTS_DIR));
}

char *layout_port_name(const char *proto, unsigned port)
{
	return xasprintf("%s-%u", proto, port);
}

char *layout_port_file(const char *state_dir, const char *name)
{
	return in(state_dir, xasprintf(LAYOUT_PORTS_DIR "/%s", name));
}

char *layout_pins_dir(const char *state_dir)
{
	return in(state_dir, xstrdup(LAYOUT_PINS_DIR));
}

char *layout_pin_entry(const char *state_dir, dev_t dev, ino_t ino)
{
	return in(state_dir, xasprintf(LAYOUT_PINS_DIR "/%llx:%llx", (unsigned long long)dev,
				       (unsigned long long)ino));
}

char *layout_pin_entry_named(const char *state_dir, const char *name)
{
	return in(state_dir, xasprintf(LAYOUT_PINS_DIR "/%s", name));
}

bool layout_is_container_name(const char *name)
{
	if (name[0] == '.' || strcmp(name, LAYOUT_PORTS_DIR) == 0 ||
	    strcmp(name, LAYOUT_PINS_DIR) == 0 || log_is_own_file(name))
		return false;
	cnirt_error *e = NULL;
	bool ok = cnirt_check_container_id(name, &e) == 0;
	cnirt_error_free(e);
	return ok;
}

/* Does `name` end in `suffix` after at least one byte? */
static bool has_suffix(const char *name, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);
	return len > n && strcmp(name + len - n, suffix) == 0;
}

enum layout_entry layout_entry(const char *name, size_t *id_len)
{
	size_t len = strlen(name);
	enum layout_entry kind = LAYOUT_CONTAINER;
	if (has_suffix(name, len, LAYOUT_LOCK_SUFFIX)) {
		kind = LAYOUT_LOCK;
		len -= strlen(LAYOUT_LOCK_SUFFIX);
	} else if (has_suffix(name, len, LAYOUT_NAME_SUFFIX)) {
		kind = LAYOUT_NAME_LINK;
		len -= strlen(LAYOUT_NAME_SUFFIX);
	}
	_cleanup_free_ char *id = xstrndup(name, len);
	if (!layout_is_container_name(id))
		return LAYOUT_OTHER;
	if (id_len)
		*id_len = len;
	return kind;
}

char *layout_results_dir(const char *cache_dir)
{
	return in(cache_dir, xstrdup(LAYOUT_RESULTS_DIR));
}

char *layout_result(const char *cache_dir, const char *name)
{
	return in(cache_dir, xasprintf(LAYOUT_RESULTS_DIR "/%s", name));
}

char *layout_result_shown(const char *cache_dir, const char *name)
{
	_cleanup_free_ char *path = layout_result(cache_dir, name);
	return error_shown_whole(path);
}

char *layout_result_name(const char *network, const char *id, const char *ifname)
{
	return xasprintf("%s-%s-%s", network, id, ifname);
}

char *layout_attachment_list_dir(const char *cache_dir)
{
	return in(cache_dir, xstrdup(LAYOUT_ATTLIST_DIR));
}

char *layout_attachment_list(const char *cache_dir, const char *id)
{
	return in(cache_dir, xasprintf(LAYOUT_ATTLIST_DIR "/%s", id));
}

char *layout_ports_index(const char *cache_dir)
{
	return in(cache_dir, xstrdup(LAYOUT_PORTS_INDEX));
}

char *layout_ports_held(const char *cache_dir)
{
	return in(cache_dir, xstrdup(LAYOUT_PORTS_HELD));
}

char *layout_rootless_run_dir(unsigned long uid)
{
	return xasprintf(LAYOUT_ROOTLESS_RUN_DIR "/%lu", uid);
}

char *layout_rootless_dir(const char *run_dir)
{
	return in(run_dir, xstrdup(LAYOUT_ROOTLESS_DIR));
}

char *layout_rootless_netns(const char *dir)
{
	return in(dir, xstrdup(LAYOUT_ROOTLESS_NETNS));
}

char *layout_rootless_slirp_pid(const char *dir)
{
	return in(dir, xstrdup(LAYOUT_ROOTLESS_SLIRP_PID));
}

char *layout_rootless_watch_pid(const char *dir)
{
	return in(dir, xstrdup(LAYOUT_ROOTLESS_WATCH_PID));
}

char *layout_rootless_state(const char *dir)
{
	return in(dir, xstrdup(LAYOUT_ROOTLESS_STATE));
}

char *layout_rootless_cache(const char *dir)
{
	return in(dir, xstrdup(LAYOUT_ROOTLESS_CACHE));
}

char *layout_rootless_run(const char *dir)
{
	return in(dir, xstrdup(LAYOUT_ROOTLESS_RUN));
}

char *layout_rootless_cni(const char *dir)
{
	return in(dir, xstrdup(LAYOUT_ROOTLESS_CNI));
}

char *layout_rootless_forwarders(const char *dir)
{
	return in(dir, xstrdup(LAYOUT_ROOTLESS_FORWARDERS));
}

char *layout_rootless_forwarder(const char *dir, const char *id)
{
	return in(dir, xasprintf(LAYOUT_ROOTLESS_FORWARDERS "/%s", id));
}
