/* SPDX-License-Identifier: Apache-2.0 */
/* The names of a container's cache entries, beside the cache (attachment-list.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cnirt.h>

#include "base/util.h"
#include "state/attachment-list.h"
#include "state/layout.h"
#include "state/record.h"

#define CACHELIST_MAX (1u << 20)

int attachment_list_write(const char *cache_dir, const char *id, const struct record *rec,
			  char **err)
{
	_cleanup_free_ char *dir = layout_attachment_list_dir(cache_dir);
	size_t len = 0, cap = 1;
	for (size_t i = 0; i < rec->n; i++)
		cap += strlen(rec->v[i].network) + strlen(rec->v[i].ifname) + 2;
	_cleanup_free_ char *buf = xmalloc(cap);
	for (size_t i = 0; i < rec->n; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%s\t%s\n", rec->v[i].network,
					rec->v[i].ifname);
	_cleanup_free_ char *path = layout_attachment_list(cache_dir, id);
	/* Another container's attachment_list_remove() may take the directory away
	 * (when it was empty) between the two calls: made again. */
	int r = -ENOENT;
	for (int i = 0; i < 8 && r == -ENOENT; i++) {
		_cleanup_free_ char *e = NULL;
		if (dir_mkdir_p(dir, 0700, &e) < 0)
			return error_set(err, "attachment list %s", e);
		r = file_write_atomic(path, buf, len, 0600, false);
	}
	if (r < 0)
		return error_set(err, "attachment list %s: %s", path,
				 r == -ENOENT ? "the directory keeps disappearing" : strerror(-r));
	return 0;
}

int attachment_list_read(const char *cache_dir, const char *id, struct attachment_list *out,
			 char **err)
{
	*out = (struct attachment_list){0};
	_cleanup_free_ char *path = layout_attachment_list(cache_dir, id);
	_cleanup_free_ char *e = NULL;
	size_t len;
	int errnum = 0;
	if (read_file(path, CACHELIST_MAX, &out->buf, &len, &errnum, &e) < 0) {
		if (errnum == ENOENT)
			return 0;
		return error_set(err, "attachment list %s", e);
	}
	char *save = NULL;
	for (char *line = strtok_r(out->buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *tab = strchr(line, '\t');
		cnirt_error *ce = NULL;
		if (tab == NULL || tab == line || tab[1] == '\0') {
			attachment_list_free(out);
			return error_set(
			    err, "attachment list %s: a line is not network TAB ifname", path);
		}
		*tab = '\0';
		if (cnirt_check_network_name(line, &ce) < 0 ||
		    cnirt_check_ifname(tab + 1, &ce) < 0) {
			error_set(err, "attachment list %s: %s", path, cnirt_error_msg(ce));
			cnirt_error_free(ce);
			attachment_list_free(out);
			return -1;
		}
		out->v = xreallocarray(out->v, out->n + 1, sizeof(*out->v));
		out->v[out->n++] = (struct attachment_list_entry){line, tab + 1};
	}
	return 1;
}

void attachment_list_free(struct attachment_list *l)
{
	free(l->buf);
	free(l->v);
	*l = (struct attachment_list){0};
}

void attachment_list_remove(const char *cache_dir, const char *id)
{
	_cleanup_free_ char *path = layout_attachment_list(cache_dir, id);
	_cleanup_free_ char *dir = layout_attachment_list_dir(cache_dir);
	unlink(path);
	rmdir(dir); /* when empty */
}

void attachment_list_sweep(const char *cache_dir, bool (*alive)(void *data, const char *id),
			   void *data)
{
	_cleanup_free_ char *dir = layout_attachment_list_dir(cache_dir);
	_cleanup_closedir_ DIR *d = opendir(dir);
	if (d == NULL)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *name = de->d_name;
		/* The list of a container gone. Temp files (dot names) are
		 * gc's file_temps_sweep(), which proves their writer gone. */
		if (name[0] == '.' || alive(data, name))
			continue;
		_cleanup_free_ char *path = layout_attachment_list(cache_dir, name);
		unlink(path);
	}
	rmdir(dir);
}
