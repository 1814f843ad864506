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

/* The interface of the default route in a routing table of /proc/net
 * (the reading task's namespace): `route` (IPv4: "IFACE 00000000 ..." with
 * mask 00000000) or `ipv6_route` ("000...0 00 ... IFACE"). */
static void write_default_route(int out)
{
	char line[512], dev[IF_NAMESIZE + 1] = "";
	FILE *f = fopen("/proc/self/net/route", "re");
	while (f && !*dev && fgets(line, sizeof(line), f)) {
		char name[64];
		unsigned long dst, gw, mask;
		unsigned flags;
		if (sscanf(line, "%63s %lx %lx %x %*d %*d %*d %lx", name, &dst, &gw, &flags,
			   &mask) == 5 &&
		    dst == 0 && mask == 0 && strlen(name) < sizeof(dev))
			strcpy(dev, name);
	}
	if (f)
		fclose(f);
	f = fopen("/proc/self/net/ipv6_route", "re");
	while (f && !*dev && fgets(line, sizeof(line), f)) {
		char dst[33], name[64];
		unsigned plen;
		if (sscanf(line, "%32s %x %*s %*s %*s %*s %*s %*s %*s %63s", dst, &plen, name) ==
			3 &&
		    plen == 0 && strspn(dst, "0") == 32 && strcmp(name, "lo") != 0 &&
		    strlen(name) < sizeof(dev))
			strcpy(dev, name);
	}
	if (f)
		fclose(f);
	if (*dev) {
		char buf[IF_NAMESIZE + 16];
		int len = snprintf(buf, sizeof(buf), "default %s\n", dev);
		if (write(out, buf, (size_t)len) != len)
			_exit(12);
	}
}

/* In the child: enter the namespace, write the names, one a line, then
 * "default IFACE". */
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
	write_default_route(out);
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
	for (char *p = strtok_r(buf, "\n", &save); p; p = strtok_r(NULL, "\n", &save)) {
		if (strncmp(p, "default ", 8) == 0)
			out->default_route = xstrdup(p + 8);
		else
			strv_append(&out->names, &out->n, p);
	}
	if (out->n > 1)
		qsort(out->names, out->n, sizeof(*out->names), compare_names);
}

int interfaces_read(const char *netns, struct interfaces *out, char **err)
{
	_cleanup_close_ int nsfd = open(netns, O_RDONLY | O_CLOEXEC);
	if (nsfd < 0)
		return error_set(err, "network namespace %s: %s", netns, strerror(errno));
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return error_set(err, "pipe: %s", strerror(errno));
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(p[0]);
		close(p[1]);
		return error_set(err, "fork: %s", strerror(e));
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
		return error_set(err, "the interfaces of %s: %s", netns, rerr);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return error_set(err, "the interfaces of %s could not be listed (%s)", netns,
				 WIFEXITED(status) && WEXITSTATUS(status) == 10
				     ? "cannot enter the namespace"
				     : "listing failed");
	parse_names(buf, out);
	return 0;
}

void interfaces_free(struct interfaces *ifs)
{
	strv_free(ifs->names, ifs->n);
	free(ifs->default_route);
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
