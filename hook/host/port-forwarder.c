/* SPDX-License-Identifier: Apache-2.0 */
/* The port forwarder of a rootless container (port-forwarder.h). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"
#include "common/json.h"
#include "base/proctitle.h"
#include "host/port-forwarder.h"
#include "request/port-mappings.h"

/* How long a forwarded connection may take to reach the container. */
#define CONNECT_TIMEOUT_MS 10000
/* The most listeners one forwarder serves (mappings of one container). */
#define MAX_RULES 256
/* UDP: the most clients served at once (the one idle longest makes room
 * for a new one), and how long a client's flow lives without a datagram
 * either way. */
#define UDP_FLOWS_MAX	 1024
#define UDP_FLOW_IDLE_MS 60000

static const char *proto_name(const struct forward_rule *r)
{
	return r->udp ? "udp" : "tcp";
}

static int rule_from_mapping(struct forward_rule *r, const struct port_mapping *m, char **err)
{
	if (strcmp(m->proto, "udp") == 0)
		r->udp = true;
	else if (strcmp(m->proto, "tcp") != 0)
		return set_error(err,
				 "protocol \"%s\": a rootless container's ports are forwarded "
				 "for tcp and udp only",
				 m->proto);
	r->host_port = m->host_port;
	r->container_port = m->container_port;
	if (m->host_ip)
		r->host_ip = xstrdup(m->host_ip);
	return 0;
}

int forwarder_plan_add(struct forward_plan *p, size_t attachment,
		       const struct port_mappings *mappings, char **err)
{
	for (size_t i = 0; i < mappings->n; i++) {
		if (p->n >= MAX_RULES)
			return set_error(err, "more than %d port mappings", MAX_RULES);
		struct forward_rule r = {.attachment = attachment, .fd = -1};
		if (rule_from_mapping(&r, &mappings->v[i], err) < 0)
			return -1;
		p->v = xreallocarray(p->v, p->n + 1, sizeof(*p->v));
		p->v[p->n++] = r;
	}
	return 0;
}

void forwarder_set_target(struct forward_plan *p, size_t attachment, const char *ip)
{
	for (size_t i = 0; i < p->n; i++) {
		if (p->v[i].attachment == attachment && !p->v[i].target)
			p->v[i].target = xstrdup(ip);
	}
}

void forwarder_plan_free(struct forward_plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].host_ip);
		free(p->v[i].target);
		if (p->v[i].fd >= 0)
			close(p->v[i].fd);
	}
	free(p->v);
	p->v = NULL;
	p->n = 0;
}

/* ip:port as a socket address; false when ip is no address. */
static bool sockaddr_of(const char *ip, unsigned port, struct sockaddr_storage *ss, socklen_t *len)
{
	memset(ss, 0, sizeof(*ss));
	if (ip && strchr(ip, ':')) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		*len = sizeof(*s6);
		return inet_pton(AF_INET6, ip, &s6->sin6_addr) == 1;
	}
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	s4->sin_family = AF_INET;
	s4->sin_port = htons(port);
	*len = sizeof(*s4);
	if (!ip)
		return true; /* INADDR_ANY */
	return inet_pton(AF_INET, ip, &s4->sin_addr) == 1;
}

int forwarder_listen(struct forward_plan *p, char **err)
{
	for (size_t i = 0; i < p->n; i++) {
		struct forward_rule *r = &p->v[i];
		struct sockaddr_storage ss;
		socklen_t len;
		const char *shown_ip = r->host_ip ? r->host_ip : "0.0.0.0";
		if (!sockaddr_of(r->host_ip, r->host_port, &ss, &len))
			return set_error(err, "host port %s:%u/%s: not an address", shown_ip,
					 r->host_port, proto_name(r));
		/* (UDP without SO_REUSEADDR: with it, a second bind of the
		 * port would succeed) */
		int fd =
		    socket(ss.ss_family, (r->udp ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC, 0);
		int one = 1;
		if (fd < 0 ||
		    (!r->udp && setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0) ||
		    bind(fd, (struct sockaddr *)&ss, len) < 0 || (!r->udp && listen(fd, 128) < 0)) {
			int e = errno;
			if (fd >= 0)
				close(fd);
			return set_error(err, "host port %s:%u/%s: %s", shown_ip, r->host_port,
					 proto_name(r), strerror(e));
		}
		r->fd = fd;
	}
	return 0;
}

/* Connect to the rule's target, waiting up to CONNECT_TIMEOUT_MS. */
static int connect_target(const struct forward_rule *r)
{
	struct sockaddr_storage ss;
	socklen_t len;
	if (!sockaddr_of(r->target, r->container_port, &ss, &len))
		return -1;
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&ss, len) < 0 && errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	struct pollfd w = {.fd = fd, .events = POLLOUT};
	int so = 0;
	socklen_t solen = sizeof(so);
	if (poll(&w, 1, CONNECT_TIMEOUT_MS) != 1 ||
	    getsockopt(fd, SOL_SOCKET, SO_ERROR, &so, &solen) < 0 || so != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Copy both ways between a and b until both have ended. */
static void relay(int a, int b)
{
	int fl = fcntl(b, F_GETFL);
	fcntl(b, F_SETFL, fl & ~O_NONBLOCK);
	bool open_ab = true, open_ba = true;
	char buf[65536];
	while (open_ab || open_ba) {
		struct pollfd p[2] = {{.fd = open_ab ? a : -1, .events = POLLIN},
				      {.fd = open_ba ? b : -1, .events = POLLIN}};
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		for (int k = 0; k < 2; k++) {
			if (!(p[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			int from = k == 0 ? a : b, to = k == 0 ? b : a;
			ssize_t n = read(from, buf, sizeof(buf));
			if (n <= 0) {
				shutdown(to, SHUT_WR);
				if (k == 0)
					open_ab = false;
				else
					open_ba = false;
				continue;
			}
			for (ssize_t off = 0; off < n;) {
				ssize_t w = write(to, buf + off, (size_t)(n - off));
				if (w <= 0)
					return;
				off += w;
			}
		}
	}
}

/* One connection, in a child of the forwarder's that dies with it (no
 * descriptor of the forwarder's but the connection). */
static void serve_connection(const struct forward_rule *r, int c)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (int fd = 3; fd < 1024; fd++)
		if (fd != c)
			close(fd);
	int t = connect_target(r);
	if (t >= 0) {
		relay(c, t);
		close(t);
	}
	close(c);
	_exit(0);
}

/* A UDP client of a rule: its datagrams go out on `fd`, a socket
 * connected to the rule's target, and what comes back on `fd` goes to it. */
struct udp_flow {
	size_t rule;
	struct sockaddr_storage client;
	socklen_t client_len;
	int fd;
	long long last; /* CLOCK_MONOTONIC ms of the last datagram */
};

struct udp_flows {
	struct udp_flow v[UDP_FLOWS_MAX];
	size_t n;
};

static void flow_drop(struct udp_flows *f, size_t k)
{
	close(f->v[k].fd);
	f->v[k] = f->v[--f->n];
}

/* The flow of client `from` on rule `rule`, made when new (the one idle
 * longest dropped when the table is full); NULL when the target cannot be
 * reached. */
static struct udp_flow *flow_of(struct udp_flows *f, const struct forward_plan *p, size_t rule,
				const struct sockaddr_storage *from, socklen_t len, long long now)
{
	for (size_t k = 0; k < f->n; k++)
		if (f->v[k].rule == rule && f->v[k].client_len == len &&
		    memcmp(&f->v[k].client, from, len) == 0)
			return &f->v[k];
	struct sockaddr_storage ss;
	socklen_t sl;
	if (!sockaddr_of(p->v[rule].target, p->v[rule].container_port, &ss, &sl))
		return NULL;
	int fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return NULL;
	if (connect(fd, (struct sockaddr *)&ss, sl) < 0) {
		close(fd);
		return NULL;
	}
	if (f->n == UDP_FLOWS_MAX) {
		size_t oldest = 0;
		for (size_t k = 1; k < f->n; k++)
			if (f->v[k].last < f->v[oldest].last)
				oldest = k;
		flow_drop(f, oldest);
	}
	struct udp_flow *n = &f->v[f->n++];
	*n = (struct udp_flow){.rule = rule, .client_len = len, .fd = fd, .last = now};
	memcpy(&n->client, from, len);
	return n;
}

/* A datagram on rule `rule`'s host socket: to its client's flow. */
static void udp_from_client(struct udp_flows *f, const struct forward_plan *p, size_t rule,
			    long long now)
{
	static char buf[65536];
	struct sockaddr_storage from;
	memset(&from, 0, sizeof(from));
	socklen_t len = sizeof(from);
	ssize_t n =
	    recvfrom(p->v[rule].fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &len);
	if (n < 0)
		return;
	struct udp_flow *fl = flow_of(f, p, rule, &from, len, now);
	if (!fl)
		return;
	fl->last = now;
	(void)send(fl->fd, buf, (size_t)n, MSG_DONTWAIT);
}

/* A datagram from the target on flow k: back to its client. */
static void udp_from_target(struct udp_flows *f, const struct forward_plan *p, size_t k,
			    long long now)
{
	static char buf[65536];
	struct udp_flow *fl = &f->v[k];
	ssize_t n = recv(fl->fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (n < 0)
		return;
	fl->last = now;
	(void)sendto(p->v[fl->rule].fd, buf, (size_t)n, MSG_DONTWAIT,
		     (struct sockaddr *)&fl->client, fl->client_len);
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The forwarder's loop: accept on every TCP listener, a child per
 * connection; relay every UDP client's datagrams through its flow. */
static void serve(const struct forward_plan *p)
{
	signal(SIGCHLD, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGTERM, SIG_DFL);
	static struct udp_flows flows;
	struct pollfd *fds = xreallocarray(NULL, p->n + UDP_FLOWS_MAX, sizeof(*fds));
	for (;;) {
		long long now = now_ms();
		for (size_t k = flows.n; k-- > 0;)
			if (now - flows.v[k].last >= UDP_FLOW_IDLE_MS)
				flow_drop(&flows, k);
		int timeout = -1;
		for (size_t k = 0; k < flows.n; k++) {
			long long left = flows.v[k].last + UDP_FLOW_IDLE_MS - now;
			if (timeout < 0 || left < timeout)
				timeout = (int)(left > 0 ? left : 0);
		}
		for (size_t i = 0; i < p->n; i++)
			fds[i] = (struct pollfd){.fd = p->v[i].fd, .events = POLLIN};
		size_t nflows = flows.n;
		for (size_t k = 0; k < nflows; k++)
			fds[p->n + k] = (struct pollfd){.fd = flows.v[k].fd, .events = POLLIN};
		if (poll(fds, p->n + nflows, timeout) < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		now = now_ms();
		/* Replies first: flows are only added (at the end) below. */
		for (size_t k = 0; k < nflows; k++)
			if (fds[p->n + k].revents & POLLIN)
				udp_from_target(&flows, p, k, now);
		for (size_t i = 0; i < p->n; i++) {
			if (!(fds[i].revents & POLLIN))
				continue;
			if (p->v[i].udp) {
				udp_from_client(&flows, p, i, now);
				continue;
			}
			int c = accept4(fds[i].fd, NULL, NULL, SOCK_CLOEXEC);
			if (c < 0)
				continue;
			pid_t pid = fork();
			if (pid == 0)
				serve_connection(&p->v[i], c);
			close(c);
		}
	}
}

/* What `ps` shows: "cnihook-fwd OWNER [HOSTIP:]HOSTPORT/PROTO->TARGET:PORT...". */
static void forwarder_title(const struct forward_plan *p)
{
	_cleanup_free_ char *t = xasprintf("cnihook-fwd %.12s", p->owner ? p->owner : "-");
	for (size_t i = 0; i < p->n; i++) {
		const char *ip = p->v[i].host_ip;
		char *n = xasprintf("%s %s%s%u/%s->%s:%u", t, ip ? ip : "", ip ? ":" : "",
				    p->v[i].host_port, proto_name(&p->v[i]), p->v[i].target,
				    p->v[i].container_port);
		free(t);
		t = n;
	}
	proctitle_set("%s", t);
}

/* The forwarder's process: stdio on /dev/null, no descriptor of the hook's
 * but the listeners (the user's lock above all). */
static void forwarder_main(const struct forward_plan *p)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
		_exit(127);
	for (int fd = 3; fd < 1024; fd++) {
		bool keep = false;
		for (size_t i = 0; i < p->n; i++)
			keep = keep || p->v[i].fd == fd;
		if (!keep)
			close(fd);
	}
	forwarder_title(p);
	serve(p);
}

int forwarder_spawn(const struct forward_plan *p, long *pid, char **err)
{
	for (size_t i = 0; i < p->n; i++)
		if (!p->v[i].target || p->v[i].fd < 0)
			return set_error(err,
					 "host port %u/%s: no address of the container to "
					 "forward it to",
					 p->v[i].host_port, proto_name(&p->v[i]));
	int pids[2];
	if (pipe2(pids, O_CLOEXEC) < 0)
		return set_error(err, "port forwarder: pipe: %m");
	pid_t child = fork();
	if (child == 0) {
		setsid();
		pid_t f = fork();
		if (f == 0) {
			close(pids[1]);
			forwarder_main(p);
		}
		long l = f;
		_exit(write(pids[1], &l, sizeof(l)) == (ssize_t)sizeof(l) && f > 0 ? 0 : 1);
	}
	close(pids[1]);
	int ret = 0;
	long l = -1;
	if (child < 0) {
		ret = set_error(err, "port forwarder: fork: %m");
	} else {
		TEMP_FAILURE_RETRY(waitpid(child, NULL, 0));
		if (read(pids[0], &l, sizeof(l)) != (ssize_t)sizeof(l) || l <= 0)
			ret = set_error(err, "port forwarder: could not be started");
	}
	close(pids[0]);
	if (ret == 0)
		*pid = l;
	return ret;
}
