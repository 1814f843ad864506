/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pieces of tests/bench/forwarder.sh (docs/benchmarks.md, "The rootless
 * port forwarder"):
 *
 *   fwdbench serve PORT          a server on 127.0.0.1:PORT: a connection
 *                                that sends 'B' and a size (8 bytes, host
 *                                order) gets that many bytes; one that
 *                                sends 'G' gets 1 KiB; then it is closed
 *   fwdbench forward HOSTPORT NETNS TARGETPORT
 *                                cnihook's forwarder as the hook starts it:
 *                                127.0.0.1:HOSTPORT taken here, forwarded
 *                                from the network namespace NETNS (a path)
 *                                to 127.0.0.1:TARGETPORT there; prints its pid
 *   fwdbench bulk PORT MIB       MIB MiB from the server through PORT:
 *                                prints MiB/s
 *   fwdbench gets PORT N         N connections one after the other, each a
 *                                'G' and its answer: prints the median
 *                                microseconds of one
 */
#include "config.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"
#include "host/port-forwarder.h"
#include "request/port-mappings.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct sockaddr_in loopback(unsigned port)
{
	return (struct sockaddr_in){.sin_family = AF_INET,
				    .sin_port = htons((uint16_t)port),
				    .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
}

static bool write_all(int fd, const char *b, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, b, n);
		if (w <= 0)
			return false;
		b += w;
		n -= (size_t)w;
	}
	return true;
}

static void serve_one(int c)
{
	static char buf[1 << 20];
	char cmd = 0;
	uint64_t size = 1024;
	if (read(c, &cmd, 1) != 1 || (cmd == 'B' && read(c, &size, 8) != 8))
		_exit(1);
	while (size > 0) {
		size_t n = size < sizeof(buf) ? (size_t)size : sizeof(buf);
		if (!write_all(c, buf, n))
			_exit(1);
		size -= n;
	}
	_exit(0);
}

static int serve(unsigned port)
{
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int one = 1;
	struct sockaddr_in a = loopback(port);
	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(s, 512) < 0) {
		perror("fwdbench serve");
		return 1;
	}
	signal(SIGCHLD, SIG_IGN);
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		int c = accept4(s, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			continue;
		if (fork() == 0)
			serve_one(c);
		close(c);
	}
}

static int forward(unsigned host_port, const char *netns, unsigned target_port)
{
	struct forward_plan p = {0};
	_cleanup_free_ char *err = NULL;
	_cleanup_free_ char *maps = xasprintf("127.0.0.1:%u:%u", host_port, target_port);
	struct port_mappings m = {0};
	if (port_mappings_from_annotation(maps, &m, &err) < 0 ||
	    port_forwarder_plan_add(&p, 0, &m, &err) < 0 || port_forwarder_listen(&p, &err) < 0) {
		fprintf(stderr, "fwdbench forward: %s\n", err);
		return 1;
	}
	int ns = open(netns, O_RDONLY | O_CLOEXEC);
	if (ns < 0 || setns(ns, CLONE_NEWNET) < 0) {
		perror("fwdbench forward: setns");
		return 1;
	}
	port_forwarder_set_target(&p, 0, "127.0.0.1");
	long pid = -1;
	if (port_forwarder_spawn(&p, &pid, &err) < 0) {
		fprintf(stderr, "fwdbench forward: %s\n", err);
		return 1;
	}
	port_forwarder_plan_free(&p);
	printf("%ld\n", pid);
	return 0;
}

static int dial(unsigned port)
{
	struct sockaddr_in a = loopback(port);
	int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof(a)) < 0) {
		perror("fwdbench: connect");
		exit(1);
	}
	return c;
}

static int bulk(unsigned port, unsigned mib)
{
	static char buf[1 << 20];
	uint64_t size = (uint64_t)mib << 20, got = 0;
	double t0 = now_s();
	int c = dial(port);
	char cmd[9] = {'B'};
	memcpy(cmd + 1, &size, 8);
	if (!write_all(c, cmd, sizeof(cmd)))
		return 1;
	ssize_t n;
	while ((n = read(c, buf, sizeof(buf))) > 0)
		got += (uint64_t)n;
	double t = now_s() - t0;
	close(c);
	if (got != size) {
		fprintf(stderr, "fwdbench bulk: %llu of %llu bytes\n", (unsigned long long)got,
			(unsigned long long)size);
		return 1;
	}
	printf("%.0f\n", (double)mib / t);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int small_gets(unsigned port, unsigned n)
{
	double *us = xcalloc(n, sizeof(*us));
	char buf[2048];
	for (unsigned i = 0; i < n; i++) {
		double t0 = now_s();
		int c = dial(port);
		int one = 1;
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		size_t got = 0;
		ssize_t r;
		if (write(c, "G", 1) != 1)
			return 1;
		while ((r = read(c, buf, sizeof(buf))) > 0)
			got += (size_t)r;
		close(c);
		if (got != 1024) {
			fprintf(stderr, "fwdbench gets: %zu of 1024 bytes\n", got);
			return 1;
		}
		us[i] = (now_s() - t0) * 1e6;
	}
	qsort(us, n, sizeof(*us), cmp_double);
	printf("%.0f\n", us[n / 2]);
	free(us);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "serve") == 0)
		return serve((unsigned)atoi(argv[2]));
	if (argc == 5 && strcmp(argv[1], "forward") == 0)
		return forward((unsigned)atoi(argv[2]), argv[3], (unsigned)atoi(argv[4]));
	if (argc == 4 && strcmp(argv[1], "bulk") == 0)
		return bulk((unsigned)atoi(argv[2]), (unsigned)atoi(argv[3]));
	if (argc == 4 && strcmp(argv[1], "gets") == 0)
		return small_gets((unsigned)atoi(argv[2]), (unsigned)atoi(argv[3]));
	fprintf(stderr, "usage: fwdbench serve PORT | forward HOSTPORT NETNS TARGETPORT | "
			"bulk PORT MIB | gets PORT N\n");
	return 2;
}
