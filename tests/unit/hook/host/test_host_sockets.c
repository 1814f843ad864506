/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of hook/host/host-sockets.c: the /proc/net tables as text, which mappings
 * overlap which sockets, the holder of a socket found in a /proc tree made
 * by the test, and one real listener of the test process read from /proc.
 */
#include "config.h"

#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>

#include "base/util.h"
#include "host/host-sockets.h"
#include "request/port-mappings.h"

static const char tcp_header[] =
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
    "timeout inode\n";
static const char udp_header[] = "   sl  local_address rem_address   st tx_queue rx_queue tr "
				 "tm->when retrnsmt   uid  timeout inode ref pointer drops\n";
static const char sctp_header[] = " ENDPT     SOCK   STY SST HBKT LPORT   UID INODE LADDRS\n";

/* An address as the kernel prints it in /proc/net/tcp{,6}: each 32-bit
 * word as the number it is in memory. */
static char *hex_addr(int family, const char *ip)
{
	unsigned char a[16] = {0};
	assert_int_equal(inet_pton(family, ip, a), 1);
	char *out = xstrdup("");
	for (size_t i = 0; i < (family == AF_INET ? 1u : 4u); i++) {
		uint32_t w;
		memcpy(&w, a + 4 * i, 4);
		char *n = xasprintf("%s%08X", out, w);
		free(out);
		out = n;
	}
	return out;
}

/* One line of tcp/udp(6): local ip:port, remote ip:port, state, inode. */
static char *inet_line(int family, const char *ip, unsigned port, const char *rip, unsigned rport,
		       unsigned st, unsigned long long inode)
{
	_cleanup_free_ char *l = hex_addr(family, ip);
	_cleanup_free_ char *r = hex_addr(family, rip);
	return xasprintf("   7: %s:%04X %s:%04X %02X 00000000:00000000 00:00000000 00000000     "
			 "0        0 %llu 1 0000000000000000 100 0 0 10 0\n",
			 l, port, r, rport, st, inode);
}

static void parse_ok(const char *text, const char *table, struct host_sockets *s)
{
	_cleanup_free_ char *err = NULL;
	if (host_sockets_parse(text, table, s, &err) < 0)
		fail_msg("%s: %s", table, err);
}

/* s holds the sockets of one table: header, then lines. */
static void table(struct host_sockets *s, const char *name, const char *header, char *l1, char *l2)
{
	_cleanup_free_ char *text = xasprintf("%s%s%s", header, l1 ? l1 : "", l2 ? l2 : "");
	free(l1);
	free(l2);
	parse_ok(text, name, s);
}

/* Does a mapping (proto, host_ip, port) hit a socket of s? */
static bool hits(const struct host_sockets *s, const char *proto, const char *ip, unsigned port)
{
	const struct host_socket *h = NULL;
	_cleanup_free_ char *err = NULL;
	if (host_sockets_find(s, proto, ip, port, &h, &err) < 0)
		fail_msg("find %s %s %u: %s", proto, ip ? ip : "(none)", port, err);
	return h != NULL;
}

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* Lines as an x86 kernel writes them. */
static void test_kernel_text(void **state)
{
	(void)state;
	struct host_sockets s = {.v6_takes_v4 = true};
	parse_ok("  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   "
		 "uid  timeout inode                                                     \n"
		 "   0: 0100007F:4769 00000000:0000 0A 00000000:00000000 00:00000000 00000000     "
		 "0        0 31337 1 0000000000000000 100 0 0 10 0                     \n"
		 "   1: 0100007F:4769 0100007F:C350 01 00000000:00000000 00:00000000 00000000     "
		 "0        0 4242 1 0000000000000000 20 4 30 10 -1                     \n",
		 "tcp", &s);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.v[0].family, AF_INET);
	assert_memory_equal(s.v[0].addr, "\x7f\0\0\x01", 4);
	assert_int_equal(s.v[0].port, 18281);
	assert_int_equal(s.v[0].inode, 31337);
	assert_int_equal(s.v[0].proto, HOST_TCP);
	parse_ok(
	    "  sl  local_address                         remote_address                        "
	    "st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	    "   0: 00000000000000000000000001000000:4769 00000000000000000000000000000000:0000 "
	    "0A 00000000:00000000 00:00000000 00000000     0        0 555 1 0000000000000000 "
	    "100 0 0 10 0\n"
	    "   1: 0000000000000000FFFF00000100007F:476A 00000000000000000000000000000000:0000 "
	    "0A 00000000:00000000 00:00000000 00000000     0        0 556 1 0000000000000000 "
	    "100 0 0 10 0\n",
	    "tcp6", &s);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.v[1].family, AF_INET6);
	assert_memory_equal(s.v[1].addr, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x01", 16);
	/* ::ffff:127.0.0.1 is IPv4 */
	assert_int_equal(s.v[2].family, AF_INET);
	assert_memory_equal(s.v[2].addr, "\x7f\0\0\x01", 4);
	assert_int_equal(s.v[2].port, 18282);
	host_sockets_free(&s);
}
#endif

/* TCP: listeners only. */
static void test_tcp_states(void **state)
{
	(void)state;
	struct host_sockets s = {.v6_takes_v4 = true};
	table(&s, "tcp", tcp_header, inet_line(AF_INET, "127.0.0.1", 18281, "0.0.0.0", 0, 0x0a, 10),
	      inet_line(AF_INET, "127.0.0.1", 18282, "127.0.0.1", 40000, 0x01, 11));
	assert_int_equal(s.n, 1);
	assert_true(hits(&s, "tcp", NULL, 18281));
	assert_false(hits(&s, "tcp", NULL, 18282)); /* an established connection */
	host_sockets_free(&s);
	/* TIME_WAIT (06) and the like: not listening */
	table(&s, "tcp", tcp_header, inet_line(AF_INET, "0.0.0.0", 18283, "10.0.0.1", 80, 0x06, 0),
	      NULL);
	assert_int_equal(s.n, 0);
	host_sockets_free(&s);
}

/* UDP: bound sockets that take datagrams from anyone, not connected ones. */
static void test_udp(void **state)
{
	(void)state;
	struct host_sockets s = {.v6_takes_v4 = true};
	table(&s, "udp", udp_header, inet_line(AF_INET, "0.0.0.0", 18281, "0.0.0.0", 0, 0x07, 20),
	      inet_line(AF_INET, "127.0.0.1", 18282, "127.0.0.53", 53, 0x01, 21));
	table(&s, "udp6", udp_header, inet_line(AF_INET6, "::1", 18283, "::", 0, 0x07, 22), NULL);
	assert_int_equal(s.n, 2);
	assert_true(hits(&s, "udp", NULL, 18281));
	assert_true(hits(&s, "udp", "10.1.2.3", 18281));
	assert_false(hits(&s, "tcp", NULL, 18281));
	assert_false(hits(&s, "udp", NULL, 18282));
	assert_true(hits(&s, "udp", "::1", 18283));
	assert_false(hits(&s, "udp", "127.0.0.1", 18283));
	host_sockets_free(&s);
}

/* A listener on one IPv4 address. */
static void test_ipv4_specific(void **state)
{
	(void)state;
	struct host_sockets s = {.v6_takes_v4 = true};
	table(&s, "tcp", tcp_header, inet_line(AF_INET, "127.0.0.1", 18281, "0.0.0.0", 0, 0x0a, 1),
	      NULL);
	assert_true(hits(&s, "tcp", NULL, 18281));		 /* every address */
	assert_true(hits(&s, "tcp", "", 18281));		 /* the same */
	assert_true(hits(&s, "tcp", "0.0.0.0", 18281));		 /* every IPv4 address */
	assert_true(hits(&s, "tcp", "127.0.0.1", 18281));	 /* the same address */
	assert_true(hits(&s, "tcp", "::ffff:127.0.0.1", 18281)); /* IPv4-mapped */
	assert_false(hits(&s, "tcp", "127.0.0.2", 18281));	 /* another address */
	assert_false(hits(&s, "tcp", "10.1.2.3", 18281));
	assert_false(hits(&s, "tcp", "::", 18281)); /* every IPv6 address */
	assert_false(hits(&s, "tcp", "::1", 18281));
	assert_false(hits(&s, "tcp", NULL, 18280)); /* another port */
	assert_false(hits(&s, "udp", NULL, 18281)); /* another protocol */
	assert_false(hits(&s, "sctp", NULL, 18281));
	host_sockets_free(&s);
}

/* A listener on every IPv4 address. */
static void test_ipv4_wildcard(void **state)
{
	(void)state;
	struct host_sockets s = {.v6_takes_v4 = true};
	table(&s, "tcp", tcp_header, inet_line(AF_INET, "0.0.0.0", 18281, "0.0.0.0", 0, 0x0a, 1),
	      NULL);
	assert_true(hits(&s, "tcp", NULL, 18281));
	assert_true(hits(&s, "tcp", "10.1.2.3", 18281));
	assert_true(hits(&s, "tcp", "127.0.0.2", 18281));
	assert_true(hits(&s, "tcp", "0.0.0.0", 18281));
	assert_false(hits(&s, "tcp", "::", 18281));
	assert_false(hits(&s, "tcp", "fd00::1", 18281));
	host_sockets_free(&s);
}

/* A listener on one IPv6 address. */
static void test_ipv6_specific(void **state)
{
	(void)state;
	struct host_sockets s = {.v6_takes_v4 = true};
	table(&s, "tcp6", tcp_header, inet_line(AF_INET6, "::1", 18281, "::", 0, 0x0a, 1), NULL);
	assert_true(hits(&s, "tcp", NULL, 18281));
	assert_true(hits(&s, "tcp", "::", 18281));
	assert_true(hits(&s, "tcp", "::1", 18281));
	assert_true(hits(&s, "tcp", "0:0::1", 18281)); /* spelt otherwise */
	assert_false(hits(&s, "tcp", "::2", 18281));
	assert_false(hits(&s, "tcp", "127.0.0.1", 18281));
	assert_false(hits(&s, "tcp", "0.0.0.0", 18281));
	host_sockets_free(&s);
	table(&s, "tcp6", tcp_header, inet_line(AF_INET6, "fe80::1", 18281, "::", 0, 0x0a, 1),
	      NULL);
	assert_true(hits(&s, "tcp", "fe80::1%eth0", 18281)); /* with its zone */
	host_sockets_free(&s);
}

/* A listener on every IPv6 address takes IPv4 too, unless bindv6only. */
static void test_ipv6_wildcard(void **state)
{
	(void)state;
	struct host_sockets s = {.v6_takes_v4 = true};
	table(&s, "tcp6", tcp_header, inet_line(AF_INET6, "::", 18281, "::", 0, 0x0a, 1), NULL);
	assert_true(hits(&s, "tcp", NULL, 18281));
	assert_true(hits(&s, "tcp", "fd00::1", 18281));
	assert_true(hits(&s, "tcp", "::", 18281));
	assert_true(hits(&s, "tcp", "127.0.0.1", 18281));
	assert_true(hits(&s, "tcp", "0.0.0.0", 18281));
	s.v6_takes_v4 = false;
	assert_true(hits(&s, "tcp", NULL, 18281));
	assert_true(hits(&s, "tcp", "fd00::1", 18281));
	assert_false(hits(&s, "tcp", "127.0.0.1", 18281));
	assert_false(hits(&s, "tcp", "0.0.0.0", 18281));
	host_sockets_free(&s);
}

/* An IPv6 socket bound to an IPv4-mapped address is an IPv4 one. */
static void test_ipv4_mapped(void **state)
{
	(void)state;
	struct host_sockets s = {.v6_takes_v4 = true};
	table(&s, "tcp6", tcp_header,
	      inet_line(AF_INET6, "::ffff:127.0.0.1", 18281, "::", 0, 0x0a, 1), NULL);
	assert_int_equal(s.v[0].family, AF_INET);
	assert_true(hits(&s, "tcp", NULL, 18281));
	assert_true(hits(&s, "tcp", "127.0.0.1", 18281));
	assert_true(hits(&s, "tcp", "0.0.0.0", 18281));
	assert_false(hits(&s, "tcp", "127.0.0.2", 18281));
	assert_false(hits(&s, "tcp", "::", 18281));
	assert_false(hits(&s, "tcp", "::1", 18281));
	host_sockets_free(&s);
}

/* SCTP endpoints: every local address of each, as text. */
static void test_sctp(void **state)
{
	(void)state;
	struct host_sockets s = {.v6_takes_v4 = true};
	parse_ok(" ENDPT     SOCK   STY SST HBKT LPORT   UID INODE LADDRS\n"
		 "ffff888003e6b000 ffff88800a5f8000 2   10  29   18281     0 8888 127.0.0.1 "
		 "10.1.2.3 \n"
		 "0000000000000000 0000000000000000 1   10  30   18282     0 8889 "
		 "0000:0000:0000:0000:0000:0000:0000:0000 \n"
		 "0000000000000000 0000000000000000 1   10  31   18283     0 8890 \n",
		 "sctp/eps", &s);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.v[0].inode, 8888);
	assert_true(hits(&s, "sctp", NULL, 18281));
	assert_true(hits(&s, "sctp", "10.1.2.3", 18281));
	assert_true(hits(&s, "sctp", "127.0.0.1", 18281));
	assert_false(hits(&s, "sctp", "10.1.2.4", 18281));
	assert_false(hits(&s, "tcp", NULL, 18281));
	assert_true(hits(&s, "sctp", "10.9.9.9", 18282)); /* the IPv6 wildcard */
	assert_false(hits(&s, "sctp", NULL, 18283));	  /* no address bound */
	host_sockets_free(&s);
}

/* A header alone, an empty text, blank lines: no socket, no error. */
static void test_empty(void **state)
{
	(void)state;
	struct host_sockets s = {0};
	parse_ok("", "tcp", &s);
	parse_ok(tcp_header, "tcp6", &s);
	parse_ok(sctp_header, "sctp/eps", &s);
	_cleanup_free_ char *blank = xasprintf("%s\n  \n", udp_header);
	parse_ok(blank, "udp", &s);
	assert_int_equal(s.n, 0);
	assert_false(hits(&s, "tcp", NULL, 80));
}

static void expect_parse_error(const char *text, const char *table, const char *want)
{
	struct host_sockets s = {0};
	_cleanup_free_ char *err = NULL;
	assert_int_equal(host_sockets_parse(text, table, &s, &err), -1);
	if (strstr(err, want) == NULL)
		fail_msg("\"%s\" does not say \"%s\"", err, want);
	host_sockets_free(&s);
}

static void test_bad_text(void **state)
{
	(void)state;
	_cleanup_free_ char *t1 =
	    xasprintf("%s   0: 0100007F:47 00000000:0000 0A x x x 0 0 1\n", tcp_header);
	expect_parse_error(t1, "tcp", "/proc/net/tcp: line 2 cannot be read");
	_cleanup_free_ char *t2 = xasprintf("%s   0: 0100007F:4769 00000000:0000 0A\n", tcp_header);
	expect_parse_error(t2, "tcp", "line 2 cannot be read: \"   0: 0100007F:4769");
	/* an IPv4 address in tcp6 */
	_cleanup_free_ char *t3 =
	    xasprintf("%s   0: 0100007F:4769 00000000:0000 0A 0:0 0:0 0 0 0 1\n", tcp_header);
	expect_parse_error(t3, "tcp6", "/proc/net/tcp6: line 2");
	_cleanup_free_ char *t4 = xasprintf("%s   0: 0100007F:4769 00000000:0000 0A 0:0 0:0 0 0 "
					    "0 12x\n",
					    tcp_header);
	expect_parse_error(t4, "tcp", "line 2");
	_cleanup_free_ char *t5 = xasprintf("%sa b 2 10 29 70000 0 1 127.0.0.1\n", sctp_header);
	expect_parse_error(t5, "sctp/eps", "/proc/net/sctp/eps: line 2");
	_cleanup_free_ char *t6 = xasprintf("%sa b 2 10 29 7000 0 1 localhost\n", sctp_header);
	expect_parse_error(t6, "sctp/eps", "localhost");
	expect_parse_error("", "raw", "no /proc/net table \"raw\"");
}

static void test_bad_mapping(void **state)
{
	(void)state;
	struct host_sockets s = {0};
	const struct host_socket *h = NULL;
	_cleanup_free_ char *err = NULL;
	assert_int_equal(host_sockets_find(&s, "icmp", NULL, 80, &h, &err), -1);
	assert_string_equal(err, "protocol \"icmp\" is not tcp, udp or sctp");
	free(TAKE_PTR(err));
	assert_int_equal(host_sockets_find(&s, "tcp", "10.1.2", 80, &h, &err), -1);
	assert_string_equal(err, "host IP \"10.1.2\" cannot be read");
}

/* A /proc tree of the test's own under a temporary directory. */
struct fake_proc {
	char dir[64];
};

static void put(const char *root, const char *rel, const char *text)
{
	_cleanup_free_ char *path = xasprintf("%s/%s", root, rel);
	_cleanup_free_ char *dir = xstrdup(path);
	*strrchr(dir, '/') = '\0';
	_cleanup_free_ char *err = NULL;
	assert_int_equal(dir_mkdir_p(dir, 0755, &err), 0);
	assert_int_equal(file_write_atomic(path, text, strlen(text), 0644, false), 0);
}

static void link_fd(const char *root, const char *pid, const char *fd, const char *target)
{
	_cleanup_free_ char *dir = xasprintf("%s/%s/fd", root, pid);
	_cleanup_free_ char *path = xasprintf("%s/%s", dir, fd);
	_cleanup_free_ char *err = NULL;
	assert_int_equal(dir_mkdir_p(dir, 0755, &err), 0);
	assert_int_equal(symlink(target, path), 0);
}

static int proc_setup(void **state)
{
	struct fake_proc *p = xzalloc(sizeof(*p));
	strcpy(p->dir, "/tmp/test_hostports.XXXXXX");
	if (mkdtemp(p->dir) == NULL)
		return -1;
	/* pid 17 holds no socket, 4242 holds 31337 on fd 5, 4243 too (a
	 * child: the first shown is named); "self" and "net" are not pids. */
	link_fd(p->dir, "17", "0", "/dev/null");
	link_fd(p->dir, "17", "1", "socket:[3133]");
	link_fd(p->dir, "4242", "0", "/dev/null");
	link_fd(p->dir, "4242", "5", "socket:[31337]");
	link_fd(p->dir, "4243", "5", "socket:[31337]");
	link_fd(p->dir, "self", "5", "socket:[999]");
	put(p->dir, "17/comm", "init\n");
	put(p->dir, "4242/comm", "python3\n");
	put(p->dir, "4243/comm", "python3\n");
	link_fd(p->dir, "4300", "3", "socket:[777]");
	put(p->dir, "4300/comm", "evil\"\x1b[2J\n");
	link_fd(p->dir, "4400", "7", "socket:[888]");
	put(p->dir, "4400/comm", "podman\n");
	*state = p;
	return 0;
}

static int proc_teardown(void **state)
{
	struct fake_proc *p = *state;
	_cleanup_free_ char *cmd = xasprintf("rm -rf '%s'", p->dir);
	int r = system(cmd);
	free(p);
	return r == 0 ? 0 : -1;
}

static void test_holder(void **state)
{
	struct fake_proc *p = *state;
	int pid = 0;
	_cleanup_free_ char *comm = NULL;
	assert_true(host_sockets_holder(p->dir, 31337, &pid, &comm));
	assert_int_equal(pid, 4242);
	assert_string_equal(comm, "python3");
	assert_false(host_sockets_holder(p->dir, 999, &pid, &comm));	/* only "self" */
	assert_false(host_sockets_holder(p->dir, 313370, &pid, &comm)); /* nobody */
	assert_false(host_sockets_holder(p->dir, 0, &pid, &comm));
	assert_false(host_sockets_holder("/nonexistent", 31337, &pid, &comm));
}

static void test_read(void **state)
{
	struct fake_proc *p = *state;
	_cleanup_free_ char *tcp =
	    inet_line(AF_INET, "127.0.0.1", 18281, "0.0.0.0", 0, 0x0a, 31337);
	_cleanup_free_ char *text = xasprintf("%s%s", tcp_header, tcp);
	put(p->dir, "self/net/tcp", text);
	put(p->dir, "self/net/udp6", udp_header);
	put(p->dir, "sys/net/ipv6/bindv6only", "1\n");
	struct host_sockets s = {0};
	_cleanup_free_ char *err = NULL;
	/* No udp: this is not the kernel's /proc, nothing can be checked. */
	assert_int_equal(host_sockets_read(p->dir, &s, &err), -1);
	if (strstr(err, "/self/net/udp: No such file or directory") == NULL)
		fail_msg("%s", err);
	free(TAKE_PTR(err));
	put(p->dir, "self/net/udp", udp_header);
	/* tcp6 and sctp/eps absent: no IPv6, no SCTP. */
	assert_int_equal(host_sockets_read(p->dir, &s, &err), 0);
	assert_int_equal(s.n, 1);
	assert_false(s.v6_takes_v4);
	host_sockets_free(&s);
	put(p->dir, "sys/net/ipv6/bindv6only", "0\n");
	assert_int_equal(host_sockets_read(p->dir, &s, &err), 0);
	assert_true(s.v6_takes_v4);
	host_sockets_free(&s);
	/* A table that cannot be read is an error naming it. */
	put(p->dir, "self/net/udp", "header\nnonsense\n");
	assert_int_equal(host_sockets_read(p->dir, &s, &err), -1);
	if (strstr(err, "/self/net/udp: line 2 cannot be read: \"nonsense\"") == NULL)
		fail_msg("%s", err);
}

/* host_sockets_check() of port mappings written as a JSON array. */
static int check_text(const struct host_sockets *s, const char *proc, const char *key,
		      const char *text, char **err)
{
	struct port_mappings m = {0};
	_cleanup_free_ char *problem = NULL;
	if (port_mappings_from_annotation(text, &m, &problem) < 0)
		fail_msg("port mappings %s: %s", text, problem);
	int ret = host_sockets_check(s, proc, key, &m, err);
	port_mappings_free(&m);
	return ret;
}

static void test_check(void **state)
{
	struct fake_proc *p = *state;
	struct host_sockets s = {.v6_takes_v4 = true};
	table(&s, "tcp", tcp_header,
	      inet_line(AF_INET, "127.0.0.1", 18281, "0.0.0.0", 0, 0x0a, 31337),
	      inet_line(AF_INET, "0.0.0.0", 18282, "0.0.0.0", 0, 0x0a, 4444));
	table(&s, "udp6", udp_header, inet_line(AF_INET6, "::1", 18283, "::", 0, 0x07, 777), NULL);
	_cleanup_free_ char *err = NULL;
	assert_int_equal(check_text(&s, p->dir, "io.cnihook.ports",
				    "[{\"hostPort\":18281,\"containerPort\":80,\"protocol\":"
				    "\"tcp\"}]",
				    &err),
			 -1);
	assert_string_equal(err, "annotation \"io.cnihook.ports\": host port 18281/tcp on "
				 "127.0.0.1 is in use on the host by pid 4242 (python3)");
	free(TAKE_PTR(err));
	/* The second mapping; no protocol is tcp; no process shows inode 4444. */
	assert_int_equal(check_text(&s, p->dir, "k8s.v1.cni.cncf.io/networks",
				    "[{\"hostPort\":18281,\"containerPort\":80,\"hostIP\":"
				    "\"127.0.0.2\"},{\"hostPort\":18282,\"containerPort\":80,"
				    "\"hostIP\":\"10.1.2.3\"}]",
				    &err),
			 -1);
	_cleanup_free_ char *want =
	    xasprintf("annotation \"k8s.v1.cni.cncf.io/networks\": host port 18282/tcp on "
		      "0.0.0.0 is in use on the host (socket inode 4444; no process in %s "
		      "shows it: another user's, which root sees with ss -lntup 'sport = "
		      ":18282')",
		      p->dir);
	assert_string_equal(err, want);
	free(TAKE_PTR(err));
	/* A command is shown as a message may show it. */
	assert_int_equal(check_text(&s, p->dir, "io.cnihook.ports",
				    "[{\"hostPort\":18283,\"containerPort\":53,\"protocol\":"
				    "\"udp\"}]",
				    &err),
			 -1);
	assert_string_equal(err, "annotation \"io.cnihook.ports\": host port 18283/udp on ::1 is "
				 "in use on the host by pid 4300 (evil\\x22\\x1b[2J)");
	free(TAKE_PTR(err));
	/* The engine itself holds it (podman binds its own -p). */
	table(&s, "tcp", tcp_header, inet_line(AF_INET, "0.0.0.0", 18284, "0.0.0.0", 0, 0x0a, 888),
	      NULL);
	assert_int_equal(check_text(&s, p->dir, "io.cnihook.ports",
				    "[{\"hostPort\":18284,\"containerPort\":80}]", &err),
			 -1);
	assert_string_equal(err, "annotation \"io.cnihook.ports\": host port 18284/tcp on 0.0.0.0 "
				 "is in use on the host by pid 4400 (podman): the engine's own; if "
				 "it publishes that port for this very container (podman -p), give "
				 "it to -p or to the annotation, not both");
	free(TAKE_PTR(err));
	/* Nothing overlaps. */
	assert_int_equal(check_text(&s, p->dir, "io.cnihook.ports",
				    "[{\"hostPort\":18281,\"containerPort\":80,\"hostIP\":"
				    "\"127.0.0.2\"},{\"hostPort\":18283,\"containerPort\":80},"
				    "{\"hostPort\":18282,\"containerPort\":80,\"hostIP\":\"::1\"}]",
				    &err),
			 0);
	assert_null(err);
	host_sockets_free(&s);
}

/* A listener of the test process itself, read from the real /proc. */
static void test_real_listener(void **state)
{
	(void)state;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(fd, 1), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	unsigned port = ntohs(a.sin_port);
	struct host_sockets s = {0};
	_cleanup_free_ char *err = NULL;
	assert_int_equal(host_sockets_read("/proc", &s, &err), 0);
	const struct host_socket *h = NULL;
	assert_int_equal(host_sockets_find(&s, "tcp", NULL, port, &h, &err), 0);
	assert_non_null(h);
	int pid = 0;
	_cleanup_free_ char *comm = NULL;
	assert_true(host_sockets_holder("/proc", h->inode, &pid, &comm));
	assert_int_equal(pid, getpid());
	assert_int_equal(host_sockets_find(&s, "tcp", "127.0.0.2", port, &h, &err), 0);
	assert_null(h);
	host_sockets_free(&s);
	close(fd);
}

/* One sock_diag message of a TCP socket, appended to buf at *off. */
static void diag_msg(char *buf, size_t *off, int family, const char *addr, unsigned port,
		     unsigned char st, unsigned inode)
{
	struct nlmsghdr *h = (struct nlmsghdr *)(buf + *off);
	struct inet_diag_msg *m = NLMSG_DATA(h);
	memset(h, 0, NLMSG_SPACE(sizeof(*m)));
	h->nlmsg_len = NLMSG_LENGTH(sizeof(*m));
	h->nlmsg_type = SOCK_DIAG_BY_FAMILY;
	h->nlmsg_flags = NLM_F_MULTI;
	m->idiag_family = (unsigned char)family;
	m->idiag_state = st;
	m->id.idiag_sport = htons((uint16_t)port);
	assert_int_equal(inet_pton(family, addr, m->id.idiag_src), 1);
	m->idiag_inode = inode;
	*off += NLMSG_SPACE(sizeof(*m));
}

static void diag_done(char *buf, size_t *off, int error)
{
	struct nlmsghdr *h = (struct nlmsghdr *)(buf + *off);
	memset(h, 0, NLMSG_SPACE(sizeof(struct nlmsgerr)));
	if (error) {
		h->nlmsg_type = NLMSG_ERROR;
		h->nlmsg_len = NLMSG_LENGTH(sizeof(struct nlmsgerr));
		((struct nlmsgerr *)NLMSG_DATA(h))->error = -error;
		*off += NLMSG_SPACE(sizeof(struct nlmsgerr));
	} else {
		h->nlmsg_type = NLMSG_DONE;
		h->nlmsg_len = NLMSG_LENGTH(sizeof(int));
		*off += NLMSG_SPACE(sizeof(int));
	}
}

/* A sock_diag dump: listeners kept (an IPv4-mapped address as IPv4), other
 * states skipped, NLMSG_DONE ends it; a dump in two parts; errors. */
static void test_diag(void **state)
{
	(void)state;
	_Alignas(struct nlmsghdr) char buf[4096];
	size_t off = 0;
	diag_msg(buf, &off, AF_INET, "127.0.0.1", 8080, 10, 42);
	diag_msg(buf, &off, AF_INET6, "::ffff:10.1.2.3", 9000, 10, 43);
	diag_msg(buf, &off, AF_INET, "10.0.0.1", 7000, 1, 44); /* established */
	size_t first = off;
	diag_msg(buf, &off, AF_INET6, "::", 443, 10, 45);
	diag_done(buf, &off, 0);
	struct host_sockets s = {0};
	_cleanup_free_ char *err = NULL;
	bool done = true;
	assert_int_equal(host_sockets_parse_diag(buf, first, &s, &done, &err), 0);
	assert_false(done);
	assert_int_equal(s.n, 2);
	assert_int_equal(host_sockets_parse_diag(buf + first, off - first, &s, &done, &err), 0);
	assert_true(done);
	assert_null(err);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.v[0].proto, HOST_TCP);
	assert_int_equal(s.v[0].family, AF_INET);
	assert_int_equal(s.v[0].port, 8080);
	assert_int_equal(s.v[0].inode, 42);
	assert_memory_equal(s.v[0].addr, "\x7f\0\0\x01", 4);
	assert_int_equal(s.v[1].family, AF_INET); /* ::ffff:10.1.2.3 */
	assert_memory_equal(s.v[1].addr, "\x0a\x01\x02\x03", 4);
	assert_int_equal(s.v[2].family, AF_INET6);
	assert_int_equal(s.v[2].port, 443);
	const struct host_socket *h = NULL;
	assert_int_equal(host_sockets_find(&s, "tcp", "10.1.2.3", 9000, &h, &err), 0);
	assert_non_null(h);
	assert_int_equal(h->inode, 43);
	assert_int_equal(host_sockets_find(&s, "tcp", "10.0.0.1", 7000, &h, &err), 0);
	assert_null(h);
	host_sockets_free(&s);

	off = 0;
	diag_done(buf, &off, ENOENT); /* a kernel without tcp_diag */
	assert_int_equal(host_sockets_parse_diag(buf, off, &s, &done, &err), -1);
	assert_non_null(strstr(err, "sock_diag"));
	assert_non_null(strstr(err, strerror(ENOENT)));
	free(TAKE_PTR(err));
	host_sockets_free(&s);

	off = 0;
	diag_msg(buf, &off, AF_INET, "127.0.0.1", 1, 10, 1);
	((struct inet_diag_msg *)NLMSG_DATA((struct nlmsghdr *)buf))->idiag_family = AF_UNIX;
	assert_int_equal(host_sockets_parse_diag(buf, off, &s, &done, &err), -1);
	assert_non_null(strstr(err, "no TCP socket"));
	host_sockets_free(&s);
}

/* The listeners read from the real /proc (by sock_diag) are those the
 * kernel's text table shows, with the same inodes. */
static void test_real_diag_matches_proc(void **state)
{
	(void)state;
	int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		skip();
	struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT};
	socklen_t len = sizeof(a);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		skip(); /* no IPv6 loopback */
	}
	assert_int_equal(listen(fd, 1), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	unsigned port = ntohs(a.sin6_port);
	struct host_sockets live = {0}, text = {0};
	_cleanup_free_ char *err = NULL;
	assert_int_equal(host_sockets_read("/proc", &live, &err), 0);
	const char *tables[] = {"tcp", "tcp6"};
	for (size_t i = 0; i < 2; i++) {
		_cleanup_free_ char *path = xasprintf("/proc/self/net/%s", tables[i]);
		_cleanup_free_ char *buf = NULL;
		size_t n;
		assert_int_equal(read_file(path, 16u << 20, &buf, &n, NULL, &err), 0);
		assert_int_equal(host_sockets_parse(buf, tables[i], &text, &err), 0);
	}
	const struct host_socket *h = NULL, *t = NULL;
	assert_int_equal(host_sockets_find(&live, "tcp", "::1", port, &h, &err), 0);
	assert_int_equal(host_sockets_find(&text, "tcp", "::1", port, &t, &err), 0);
	assert_non_null(h);
	assert_non_null(t);
	assert_int_equal(h->inode, t->inode);
	size_t live_tcp = 0;
	for (size_t i = 0; i < live.n; i++)
		live_tcp += live.v[i].proto == HOST_TCP;
	assert_int_equal(live_tcp, text.n);
	host_sockets_free(&live);
	host_sockets_free(&text);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		cmocka_unit_test(test_kernel_text),
#endif
		cmocka_unit_test(test_tcp_states),
		cmocka_unit_test(test_udp),
		cmocka_unit_test(test_ipv4_specific),
		cmocka_unit_test(test_ipv4_wildcard),
		cmocka_unit_test(test_ipv6_specific),
		cmocka_unit_test(test_ipv6_wildcard),
		cmocka_unit_test(test_ipv4_mapped),
		cmocka_unit_test(test_sctp),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_bad_text),
		cmocka_unit_test(test_bad_mapping),
		cmocka_unit_test_setup_teardown(test_holder, proc_setup, proc_teardown),
		cmocka_unit_test_setup_teardown(test_read, proc_setup, proc_teardown),
		cmocka_unit_test_setup_teardown(test_check, proc_setup, proc_teardown),
		cmocka_unit_test(test_real_listener),
		cmocka_unit_test(test_diag),
		cmocka_unit_test(test_real_diag_matches_proc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
