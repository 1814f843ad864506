/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of hook/host/port-forwarder.c: the plan from portMappings, the
 * listeners, and a forwarder that carries a connection both ways. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "host/port-forwarder.h"
#include "request/port-mappings.h"

/* forwarder_plan_add() of port mappings written as io.cnihook.ports. */
static int plan_add(struct forward_plan *p, size_t attachment, const char *ports, char **err)
{
	struct port_mappings m = {0};
	_cleanup_free_ char *problem = NULL;
	if (portmaps_from_annotation(ports, &m, &problem) < 0)
		fail_msg("port mappings %s: %s", ports, problem);
	int ret = forwarder_plan_add(p, attachment, &m, err);
	portmaps_free(&m);
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
	forwarder_set_target(&p, 0, "10.1.2.3");
	assert_string_equal(p.v[0].target, "10.1.2.3");
	assert_string_equal(p.v[1].target, "10.1.2.3");
	assert_null(p.v[2].target);
	forwarder_plan_free(&p);
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
	forwarder_plan_free(&p);
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
	assert_int_equal(forwarder_listen(p, &err), 0);
	struct forward_plan q = {0};
	assert_int_equal(plan_add(&q, 0, maps, &err), 0);
	assert_int_equal(forwarder_listen(&q, &err), -1);
	_cleanup_free_ char *want =
	    xasprintf("host port 127.0.0.1:%u/%s: Address already in use", host_port, proto);
	assert_string_equal(err, want);
	forwarder_plan_free(&q);
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
	assert_int_equal(forwarder_spawn(&p, &pid, &err), -1);
	forwarder_set_target(&p, 0, "127.0.0.1");
	assert_int_equal(forwarder_spawn(&p, &pid, &err), 0);
	forwarder_plan_free(&p);
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
	forwarder_set_target(&p, 0, "127.0.0.1");
	long pid = -1;
	assert_int_equal(forwarder_spawn(&p, &pid, &err), 0);
	forwarder_plan_free(&p);
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

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plan),
	    cmocka_unit_test(test_plan_refused),
	    cmocka_unit_test(test_forward),
	    cmocka_unit_test(test_forward_udp),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
