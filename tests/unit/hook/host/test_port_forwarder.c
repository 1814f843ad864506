/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/host/port-forwarder.c: the plan from portMappings, the
 * listeners, and a forwarder started as the hook starts it: it carries
 * connections and datagrams both ways, and stays correct and bounded
 * whatever clients do (heavy traffic both ways, a closed container port,
 * idle connections, a low descriptor limit). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"
#include "host/port-forwarder.h"
#include "request/port-mappings.h"

/* port_forwarder_plan_add() of port mappings written as io.cnihook.ports, or as
 * the portMappings JSON array. */
static int plan_add(struct forward_plan *p, size_t attachment, const char *ports, char **err)
{
	struct port_mappings m = {0};
	_cleanup_free_ char *problem = NULL;
	_cleanup_json_ json *a = NULL;
	int r = ports[0] == '['
		    ? json_parse_with(ports, strlen(ports), "t", &util_json, &a, &problem) < 0
			  ? -1
			  : port_mappings_from_json(a, &m, &problem)
		    : port_mappings_from_annotation(ports, &m, &problem);
	if (r < 0)
		fail_msg("port mappings %s: %s", ports, problem);
	int ret = port_forwarder_plan_add(p, attachment, &m, err);
	port_mappings_free(&m);
	return ret;
}

/* The plan: tcp and udp mappings in order, with their attachment and host
 * IP; the protocol's case ignored. */
static void test_plan(void **state)
{
	(void)state;
	struct forward_plan p = {0};
	_cleanup_free_ char *err = NULL;
	assert_int_equal(plan_add(&p, 0,
				  "[{\"hostPort\":8080,\"containerPort\":80,\"protocol\":\"tcp\"},"
				  "{\"hostPort\":8443,\"containerPort\":443,\"protocol\":\"TCP\","
				  "\"hostIP\":\"127.0.0.1\"}]",
				  &err),
			 0);
	assert_int_equal(
	    plan_add(&p, 2, "[{\"hostPort\":9000,\"containerPort\":9,\"hostIP\":\"::1\"}]", &err),
	    0);
	assert_int_equal(
	    plan_add(&p, 2, "[{\"hostPort\":53,\"containerPort\":53,\"protocol\":\"UDP\"}]", &err),
	    0);
	assert_int_equal(p.n, 4);
	assert_false(p.v[0].udp);
	assert_false(p.v[2].udp);
	assert_true(p.v[3].udp);
	assert_int_equal(p.v[0].host_port, 8080);
	assert_int_equal(p.v[0].container_port, 80);
	assert_null(p.v[0].host_ip);
	assert_string_equal(p.v[1].host_ip, "127.0.0.1");
	assert_int_equal(p.v[2].attachment, 2);
	assert_string_equal(p.v[2].host_ip, "::1");
	port_forwarder_set_target(&p, 0, "10.1.2.3");
	assert_string_equal(p.v[0].target, "10.1.2.3");
	assert_string_equal(p.v[1].target, "10.1.2.3");
	assert_null(p.v[2].target);
	port_forwarder_plan_free(&p);
}

/* What cannot be forwarded is refused, named (what is no port mapping
 * never reaches the plan: request/port-mappings.c refuses it). */
static void test_plan_refused(void **state)
{
	(void)state;
	struct forward_plan p = {0};
	_cleanup_free_ char *err = NULL;
	assert_int_equal(plan_add(&p, 0, "9:9/sctp", &err), -1);
	assert_string_equal(
	    err,
	    "protocol \"sctp\": a rootless container's ports are forwarded for tcp and udp only");
	port_forwarder_plan_free(&p);
}

/* A free port of `type` (SOCK_STREAM, SOCK_DGRAM) on 127.0.0.1, and
 * optionally the socket bound to it (listening, for TCP). */
static unsigned free_port(int type, int *bound)
{
	int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, len), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	if (bound) {
		if (type == SOCK_STREAM)
			assert_int_equal(listen(fd, 4), 0);
		*bound = fd;
	} else {
		close(fd);
	}
	return ntohs(a.sin_port);
}

/* A socket of `type` connected to 127.0.0.1:port, with a receive timeout. */
static int connect_to(int type, unsigned port)
{
	int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_port = htons(port),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct timeval tv = {.tv_sec = 5};
	assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	return fd;
}

/* A descriptor above 1023 (the soft limit raised for it); -1 when the
 * hard limit does not allow one. */
static int high_fd(void)
{
	struct rlimit rl;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_max <= 1100)
		return -1;
	if (rl.rlim_cur <= 1100) {
		rl.rlim_cur = 1100;
		assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	}
	int fd = fcntl(0, F_DUPFD_CLOEXEC, 1050);
	assert_true(fd >= 1050);
	return fd;
}

/* The CPU time process pid has used, in clock ticks. */
static long cpu_ticks(long pid)
{
	_cleanup_free_ char *path = xasprintf("/proc/%ld/stat", pid);
	FILE *f = fopen(path, "re");
	assert_non_null(f);
	char buf[1024];
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	const char *p = strrchr(buf, ')');
	assert_non_null(p);
	unsigned long ut = 0, st = 0;
	assert_int_equal(
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st), 2);
	return (long)(ut + st);
}

/* The CPU pid uses over a second, in clock ticks (100 a second when it
 * spins). */
static long cpu_over_a_second(long pid)
{
	long before = cpu_ticks(pid);
	sleep(1);
	return cpu_ticks(pid) - before;
}

/* The forwarder's children ("" when none). */
static char *children_of(long pid)
{
	_cleanup_free_ char *path = xasprintf("/proc/%ld/task/%ld/children", pid, pid);
	FILE *f = fopen(path, "re");
	assert_non_null(f);
	char buf[4096] = {0};
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	return xstrdup(buf);
}

/* A plan of one mapping of `proto` from 127.0.0.1:host_port to
 * target_port, listening; a second plan of the same mapping cannot listen,
 * and says which port is taken. */
static void listening_plan(struct forward_plan *p, const char *proto, unsigned host_port,
			   unsigned target_port)
{
	_cleanup_free_ char *err = NULL;
	_cleanup_free_ char *maps = xasprintf("[{\"hostPort\":%u,\"containerPort\":%u,\"hostIP\":"
					      "\"127.0.0.1\",\"protocol\":\"%s\"}]",
					      host_port, target_port, proto);
	assert_int_equal(plan_add(p, 0, maps, &err), 0);
	assert_int_equal(port_forwarder_listen(p, &err), 0);
	struct forward_plan q = {0};
	assert_int_equal(plan_add(&q, 0, maps, &err), 0);
	assert_int_equal(port_forwarder_listen(&q, &err), -1);
	_cleanup_free_ char *want =
	    xasprintf("host port 127.0.0.1:%u/%s: Address already in use", host_port, proto);
	assert_string_equal(err, want);
	port_forwarder_plan_free(&q);
}

/* A port taken is refused with its address; a forwarder carries bytes
 * both ways and the end of each direction. */
static void test_forward(void **state)
{
	(void)state;
	int server = -1;
	unsigned target_port = free_port(SOCK_STREAM, &server);
	unsigned host_port = free_port(SOCK_STREAM, NULL);
	struct forward_plan p = {0};
	_cleanup_free_ char *err = NULL;
	listening_plan(&p, "tcp", host_port, target_port);
	/* no target: refused */
	long pid = -1;
	assert_int_equal(port_forwarder_spawn(&p, &pid, &err), -1);
	port_forwarder_set_target(&p, 0, "127.0.0.1");
	/* a descriptor of the hook's above 1023 is not inherited */
	int high = high_fd();
	assert_int_equal(port_forwarder_spawn(&p, &pid, &err), 0);
	port_forwarder_plan_free(&p);
	int c = connect_to(SOCK_STREAM, host_port);
	int s = accept(server, NULL, NULL);
	assert_true(s >= 0);
	char buf[16] = {0};
	assert_int_equal(write(c, "ping", 4), 4);
	assert_int_equal(read(s, buf, sizeof(buf)), 4);
	assert_memory_equal(buf, "ping", 4);
	assert_int_equal(write(s, "pong", 4), 4);
	shutdown(s, SHUT_WR);
	assert_int_equal(read(c, buf, sizeof(buf)), 4);
	assert_memory_equal(buf, "pong", 4);
	assert_int_equal(read(c, buf, sizeof(buf)), 0);
	close(c);
	close(s);
	close(server);
	/* (it serves: its set-up is done) in /, the descriptor left */
	_cleanup_free_ char *cwd = xasprintf("/proc/%ld/cwd", pid);
	char where[PATH_MAX] = {0};
	assert_true(readlink(cwd, where, sizeof(where) - 1) > 0);
	assert_string_equal(where, "/");
	if (high >= 0) {
		_cleanup_free_ char *fd = xasprintf("/proc/%ld/fd/%d", pid, high);
		assert_int_equal(access(fd, F_OK), -1);
		close(high);
	}
	assert_int_equal(kill((pid_t)pid, SIGTERM), 0);
}

/* UDP: a port taken is refused with its address; each client's datagrams
 * reach the target from a source of their own, and the target's replies
 * reach that client alone. */
static void test_forward_udp(void **state)
{
	(void)state;
	int server = -1;
	unsigned target_port = free_port(SOCK_DGRAM, &server);
	struct timeval tv = {.tv_sec = 5};
	assert_int_equal(setsockopt(server, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0);
	unsigned host_port = free_port(SOCK_DGRAM, NULL);
	struct forward_plan p = {0};
	_cleanup_free_ char *err = NULL;
	listening_plan(&p, "udp", host_port, target_port);
	port_forwarder_set_target(&p, 0, "127.0.0.1");
	long pid = -1;
	assert_int_equal(port_forwarder_spawn(&p, &pid, &err), 0);
	port_forwarder_plan_free(&p);
	int c1 = connect_to(SOCK_DGRAM, host_port), c2 = connect_to(SOCK_DGRAM, host_port);
	struct sockaddr_in from[2];
	char buf[16];
	for (int k = 0; k < 2; k++) {
		assert_int_equal(send(k == 0 ? c1 : c2, k == 0 ? "one" : "two", 3, 0), 3);
		socklen_t len = sizeof(from[k]);
		memset(buf, 0, sizeof(buf));
		assert_int_equal(
		    recvfrom(server, buf, sizeof(buf), 0, (struct sockaddr *)&from[k], &len), 3);
		assert_memory_equal(buf, k == 0 ? "one" : "two", 3);
	}
	assert_int_not_equal(from[0].sin_port, from[1].sin_port);
	/* the replies, the second client's first */
	assert_int_equal(sendto(server, "TWO", 3, 0, (struct sockaddr *)&from[1], sizeof(from[1])),
			 3);
	assert_int_equal(sendto(server, "ONE", 3, 0, (struct sockaddr *)&from[0], sizeof(from[0])),
			 3);
	memset(buf, 0, sizeof(buf));
	assert_int_equal(recv(c2, buf, sizeof(buf), 0), 3);
	assert_memory_equal(buf, "TWO", 3);
	assert_int_equal(recv(c1, buf, sizeof(buf), 0), 3);
	assert_memory_equal(buf, "ONE", 3);
	/* a client's next datagram takes its flow again */
	assert_int_equal(send(c1, "again", 5, 0), 5);
	struct sockaddr_in again;
	socklen_t len = sizeof(again);
	assert_int_equal(recvfrom(server, buf, sizeof(buf), 0, (struct sockaddr *)&again, &len), 5);
	assert_int_equal(again.sin_port, from[0].sin_port);
	close(c1);
	close(c2);
	close(server);
	assert_int_equal(kill((pid_t)pid, SIGTERM), 0);
}

/* A forwarder of `maps` (portMappings JSON) to 127.0.0.1, started as the
 * hook starts it; with nofile > 0, under that descriptor limit (soft and
 * hard, as a user's limit would be). */
static long start_forwarder(const char *maps, long long tcp_idle_ms, unsigned nofile)
{
	struct forward_plan p = {.tcp_idle_ms = tcp_idle_ms};
	_cleanup_free_ char *err = NULL;
	assert_int_equal(plan_add(&p, 0, maps, &err), 0);
	assert_int_equal(port_forwarder_listen(&p, &err), 0);
	port_forwarder_set_target(&p, 0, "127.0.0.1");
	long pid = -1;
	int fds[2];
	assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
	pid_t c = fork();
	if (c == 0) {
		struct rlimit rl = {nofile, nofile};
		long l = -1;
		if ((nofile > 0 && setrlimit(RLIMIT_NOFILE, &rl) < 0) ||
		    port_forwarder_spawn(&p, &l, &err) < 0)
			l = -1;
		_exit(write(fds[1], &l, sizeof(l)) == (ssize_t)sizeof(l) ? 0 : 1);
	}
	assert_int_equal(waitpid(c, NULL, 0), c);
	assert_int_equal(read(fds[0], &pid, sizeof(pid)), sizeof(pid));
	close(fds[0]);
	close(fds[1]);
	assert_true(pid > 0);
	port_forwarder_plan_free(&p);
	return pid;
}

static char *mapping(const char *proto, unsigned host_port, unsigned target_port)
{
	return xasprintf("{\"hostPort\":%u,\"containerPort\":%u,\"hostIP\":\"127.0.0.1\","
			 "\"protocol\":\"%s\"}",
			 host_port, target_port, proto);
}

/* A UDP client whose container port is closed: the ICMP error on its flow
 * is read, not spun on, and the forwarder serves the port once it opens. */
static void test_udp_closed_port(void **state)
{
	(void)state;
	int server = -1;
	unsigned target_port = free_port(SOCK_DGRAM, &server);
	close(server);
	unsigned host_port = free_port(SOCK_DGRAM, NULL);
	_cleanup_free_ char *m = mapping("udp", host_port, target_port);
	_cleanup_free_ char *maps = xasprintf("[%s]", m);
	long pid = start_forwarder(maps, 0, 0);
	int c = connect_to(SOCK_DGRAM, host_port);
	assert_int_equal(send(c, "x", 1, 0), 1);
	usleep(100000);
	assert_true(cpu_over_a_second(pid) < 20);
	/* the container's port opens: the next datagram gets there */
	server = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_port = htons(target_port),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	assert_int_equal(bind(server, (struct sockaddr *)&a, sizeof(a)), 0);
	struct timeval tv = {.tv_sec = 5};
	assert_int_equal(setsockopt(server, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0);
	assert_int_equal(send(c, "y", 1, 0), 1);
	char buf[4];
	assert_int_equal(recv(server, buf, sizeof(buf), 0), 1);
	assert_int_equal(buf[0], 'y');
	close(c);
	close(server);
	assert_int_equal(kill((pid_t)pid, SIGTERM), 0);
}

/* Bytes 0.. of the stream: offset % 251 (a prime: no chunk lines up). */
#define PATTERN 251

/* Write `total` bytes of the pattern on fd, blocking. */
static bool write_pattern(int fd, size_t total)
{
	static char out[PATTERN * 256];
	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = (char)(i % PATTERN);
	for (size_t sent = 0; sent < total;) {
		size_t at = sent % sizeof(out), len = sizeof(out) - at;
		ssize_t n = write(fd, out + at, len < total - sent ? len : total - sent);
		if (n <= 0)
			return false;
		sent += (size_t)n;
	}
	return true;
}

/* Read the pattern on fd to its end; how much of it came, in order. */
static size_t read_pattern(int fd)
{
	static char in[65536];
	size_t got = 0;
	ssize_t n;
	while ((n = read(fd, in, sizeof(in))) > 0)
		for (ssize_t i = 0; i < n; i++, got++)
			if ((unsigned char)in[i] != got % PATTERN)
				return got;
	return got;
}

/* Heavy traffic both ways at once: the container writes its 32 MiB before
 * it reads what the client sends meanwhile (as a server may answer before
 * the request's end). Every byte arrives each way, in order, in seconds. */
static void test_tcp_both_ways(void **state)
{
	(void)state;
	const size_t total = 32u << 20;
	int server = -1;
	unsigned target_port = free_port(SOCK_STREAM, &server);
	unsigned host_port = free_port(SOCK_STREAM, NULL);
	_cleanup_free_ char *m = mapping("tcp", host_port, target_port);
	_cleanup_free_ char *maps = xasprintf("[%s]", m);
	long pid = start_forwarder(maps, 0, 0);
	pid_t peer = fork();
	if (peer == 0) {
		int s = accept(server, NULL, NULL);
		_exit(s >= 0 && write_pattern(s, total) && read_pattern(s) == total ? 0 : 1);
	}
	close(server);
	int c = connect_to(SOCK_STREAM, host_port);
	pid_t sender = fork();
	if (sender == 0)
		_exit(write_pattern(c, total) && shutdown(c, SHUT_WR) == 0 ? 0 : 1);
	struct timeval tv = {.tv_sec = 10};
	assert_int_equal(setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0);
	size_t got = read_pattern(c);
	int st = -1;
	for (int i = 0; i < 100 && waitpid(peer, &st, WNOHANG) == 0; i++)
		usleep(100000);
	kill(sender, SIGKILL);
	kill(peer, SIGKILL);
	assert_int_equal(waitpid(sender, NULL, 0), sender);
	waitpid(peer, st == -1 ? &st : NULL, 0);
	close(c);
	assert_int_equal(kill((pid_t)pid, SIGTERM), 0);
	assert_int_equal(got, total);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* Many connections: no process for any of them; one without traffic for
 * the idle time is closed by the forwarder. */
static void test_tcp_idle(void **state)
{
	(void)state;
	int server = -1;
	unsigned target_port = free_port(SOCK_STREAM, &server);
	assert_int_equal(listen(server, 64), 0);
	struct timeval tv = {.tv_sec = 5};
	assert_int_equal(setsockopt(server, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0);
	unsigned host_port = free_port(SOCK_STREAM, NULL);
	_cleanup_free_ char *m = mapping("tcp", host_port, target_port);
	_cleanup_free_ char *maps = xasprintf("[%s]", m);
	long pid = start_forwarder(maps, 500, 0);
	int c[20], s[20];
	for (size_t k = 0; k < ARRAY_SIZE(c); k++) {
		c[k] = connect_to(SOCK_STREAM, host_port);
		s[k] = accept(server, NULL, NULL);
		assert_true(s[k] >= 0);
	}
	_cleanup_free_ char *children = children_of(pid);
	assert_string_equal(children, "");
	time_t start = time(NULL);
	char b;
	for (size_t k = 0; k < ARRAY_SIZE(c); k++) {
		assert_int_equal(read(c[k], &b, 1), 0);
		assert_int_equal(read(s[k], &b, 1), 0);
		close(c[k]);
		close(s[k]);
	}
	assert_true(time(NULL) - start <= 3);
	close(server);
	assert_int_equal(kill((pid_t)pid, SIGTERM), 0);
}

/* At a low descriptor limit: every new UDP client is served (the flow
 * idle longest makes room), a new TCP connection is too (the connection
 * idle longest makes room), and nothing spins. */
static void test_low_nofile(void **state)
{
	(void)state;
	int tserver = -1, userver = -1;
	unsigned ttarget = free_port(SOCK_STREAM, &tserver);
	unsigned utarget = free_port(SOCK_DGRAM, &userver);
	struct timeval tv = {.tv_sec = 3};
	assert_int_equal(setsockopt(tserver, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0);
	assert_int_equal(setsockopt(userver, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0);
	unsigned thost = free_port(SOCK_STREAM, NULL), uhost = free_port(SOCK_DGRAM, NULL);
	_cleanup_free_ char *tm = mapping("tcp", thost, ttarget);
	_cleanup_free_ char *um = mapping("udp", uhost, utarget);
	_cleanup_free_ char *maps = xasprintf("[%s,%s]", tm, um);
	long pid = start_forwarder(maps, 0, 32);
	for (int k = 0; k < 40; k++) {
		int c = connect_to(SOCK_DGRAM, uhost);
		char want[8], buf[8] = {0};
		snprintf(want, sizeof(want), "%d", k);
		assert_int_equal(send(c, want, strlen(want), 0), (ssize_t)strlen(want));
		assert_int_equal(recv(userver, buf, sizeof(buf) - 1, 0), (ssize_t)strlen(want));
		assert_string_equal(buf, want);
		close(c);
	}
	int c[2], s[2];
	char b = 0;
	for (int k = 0; k < 2; k++) {
		c[k] = connect_to(SOCK_STREAM, thost);
		assert_int_equal(write(c[k], "ab" + k, 1), 1);
		s[k] = accept(tserver, NULL, NULL);
		assert_true(s[k] >= 0);
		assert_int_equal(read(s[k], &b, 1), 1);
		assert_int_equal(b, "ab"[k]);
	}
	/* the first made room for the second */
	assert_int_equal(read(c[0], &b, 1), 0);
	assert_int_equal(write(s[1], "B", 1), 1);
	assert_int_equal(read(c[1], &b, 1), 1);
	assert_int_equal(b, 'B');
	assert_true(cpu_over_a_second(pid) < 20);
	for (int k = 0; k < 2; k++) {
		close(c[k]);
		close(s[k]);
	}
	close(tserver);
	close(userver);
	assert_int_equal(kill((pid_t)pid, SIGTERM), 0);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plan),
	    cmocka_unit_test(test_plan_refused),
	    cmocka_unit_test(test_forward),
	    cmocka_unit_test(test_forward_udp),
	    cmocka_unit_test(test_udp_closed_port),
	    cmocka_unit_test(test_tcp_both_ways),
	    cmocka_unit_test(test_tcp_idle),
	    cmocka_unit_test(test_low_nofile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
