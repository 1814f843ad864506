/* SPDX-License-Identifier: Apache-2.0 */
/* The network interfaces a namespace holds (interfaces.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "host/interfaces.h"

/* Enough for the names of 4096 interfaces. */
#define LIST_MAX (4096 * IF_NAMESIZE)

/* In the child: enter the namespace, write the names, one a line. */
_Noreturn static void list_in_child(int nsfd, int out)
{
	if (setns(nsfd, CLONE_NEWNET) < 0)
		_exit(10);
	struct if_nameindex *ix = if_nameindex();
	if (ix == NULL)
		_exit(11);
	for (struct if_nameindex *p = ix; p->if_index != 0; p++) {
		size_t len = strlen(p->if_name);
		char line[IF_NAMESIZE + 1];
		if (len >= IF_NAMESIZE)
			continue;
		memcpy(line, p->if_name, len);
		line[len] = '\n';
		if (write(out, line, len + 1) != (ssize_t)(len + 1))
			_exit(12);
	}
	_exit(0);
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void parse_names(char *buf, struct interfaces *out)
{
	*out = (struct interfaces){0};
	char *save = NULL;
	for (char *p = strtok_r(buf, "\n", &save); p; p = strtok_r(NULL, "\n", &save))
		strv_append(&out->names, &out->n, p);
	if (out->n > 1)
		qsort(out->names, out->n, sizeof(*out->names), compare_names);
}

int interfaces_read(const char *netns, struct interfaces *out, char **err)
{
	_cleanup_close_ int nsfd = open(netns, O_RDONLY | O_CLOEXEC);
	if (nsfd < 0)
		return set_error(err, "network namespace %s: %s", netns, strerror(errno));
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return set_error(err, "pipe: %s", strerror(errno));
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(p[0]);
		close(p[1]);
		return set_error(err, "fork: %s", strerror(e));
	}
	if (pid == 0) {
		close(p[0]);
		list_in_child(nsfd, p[1]);
	}
	close(p[1]);
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	_cleanup_free_ char *rerr = NULL;
	int ret = read_all_fd(p[0], LIST_MAX, &buf, &len, &rerr);
	close(p[0]);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (ret < 0)
		return set_error(err, "the interfaces of %s: %s", netns, rerr);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return set_error(err, "the interfaces of %s could not be listed (%s)", netns,
				 WIFEXITED(status) && WEXITSTATUS(status) == 10
				     ? "cannot enter the namespace"
				     : "listing failed");
	parse_names(buf, out);
	return 0;
}

void interfaces_free(struct interfaces *ifs)
{
	strv_free(ifs->names, ifs->n);
	*ifs = (struct interfaces){0};
}

bool interfaces_has(const struct interfaces *ifs, const char *name)
{
	return bsearch(&name, ifs->names, ifs->n, sizeof(*ifs->names), compare_names) != NULL;
}

bool interfaces_any_other(const struct interfaces *ifs)
{
	for (size_t i = 0; i < ifs->n; i++)
		if (strcmp(ifs->names[i], "lo") != 0)
			return true;
	return false;
}
