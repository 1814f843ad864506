/* SPDX-License-Identifier: Apache-2.0 */
/* The ADD journal (journal.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"
#include "state/journal.h"
#include "state/layout.h"

/* A running result is what a plugin may answer (libcnirt's default output
 * cap). */
#define JOURNAL_LIMIT (16u << 20)

int journal_write(const char *state_dir, const char *id, const char *network, const char *ifname,
		  const char *result, size_t len, char **err)
{
	_cleanup_free_ char *path = layout_journal(state_dir, id, network, ifname);
	int e = file_write_atomic(path, result, len, 0600, false);
	if (e == -ENOENT) {
		_cleanup_free_ char *dir = layout_journal_dir(state_dir, id);
		if (mkdir(dir, 0700) < 0 && errno != EEXIST)
			return error_set(err, "ADD journal %s: %s", dir, strerror(errno));
		e = file_write_atomic(path, result, len, 0600, false);
	}
	if (e < 0)
		return error_set(err, "ADD journal %s: %s", path, strerror(-e));
	return 0;
}

int journal_read(const char *state_dir, const char *id, const char *network, const char *ifname,
		 char **result, char **err)
{
	_cleanup_free_ char *path = layout_journal(state_dir, id, network, ifname);
	int errnum = 0;
	size_t len;
	*result = NULL;
	if (read_file(path, JOURNAL_LIMIT, result, &len, &errnum, err) == 0)
		return 0;
	if (errnum != ENOENT)
		return -1;
	free(TAKE_PTR(*err));
	return 0;
}

void journal_remove(const char *state_dir, const char *id, const char *network, const char *ifname)
{
	_cleanup_free_ char *path = layout_journal(state_dir, id, network, ifname);
	unlink(path);
}

void journal_clear(const char *state_dir, const char *id)
{
	_cleanup_free_ char *dir = layout_journal_dir(state_dir, id);
	if (rmdir(dir) == 0 || errno == ENOENT)
		return;
	/* Temp files too (a hook killed while it wrote one). */
	_cleanup_closedir_ DIR *d = opendir(dir);
	for (struct dirent *de; d && (de = readdir(d)) != NULL;)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			unlinkat(dirfd(d), de->d_name, 0);
	rmdir(dir);
}
