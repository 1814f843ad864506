/* SPDX-License-Identifier: Apache-2.0 */
/* The port forwarder of a rootless container (port-forwarder.h). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"
#include "common/json.h"
#include "base/proctitle.h"
#include "host/port-forwarder.h"
#include "host/rootless-netns.h"
#include "request/port-mappings.h"

/* How long a forwarded connection may take to reach the container. */
#define CONNECT_TIMEOUT_MS 10000
/* The most listeners one forwarder serves (mappings of one container). */
#define MAX_RULES 256
/* TCP: the most connections relayed at once (the one idle longest makes
 * room for a new one), and how long one lives without a byte either way. */
#define CONNS_MAX   1024
#define TCP_IDLE_MS (3600 * 1000LL)
/* What one splice(2) moves at most: a pipe's default capacity. */
#define PIPE_BYTES 65536
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
		return error_set(err,
				 "protocol \"%s\": a rootless container's ports are forwarded "
				 "for tcp and udp only",
				 m->proto);
	r->host_port = m->host_port;
	r->container_port = m->container_port;
	if (m->host_ip)
		r->host_ip = xstrdup(m->host_ip);
	return 0;
}

int port_forwarder_plan_add(struct forward_plan *p, size_t attachment,
			    const struct port_mappings *mappings, char **err)
{
	for (size_t i = 0; i < mappings->n; i++) {
		if (p->n >= MAX_RULES)
			return error_set(err, "more than %d port mappings", MAX_RULES);
		struct forward_rule r = {.attachment = attachment, .fd = -1};
		if (rule_from_mapping(&r, &mappings->v[i], err) < 0)
			return -1;
		p->v = xreallocarray(p->v, p->n + 1, sizeof(*p->v));
		p->v[p->n++] = r;
	}
	return 0;
}

void port_forwarder_set_target(struct forward_plan *p, size_t attachment, const char *ip)
{
	for (size_t i = 0; i < p->n; i++) {
		if (p->v[i].attachment == attachment && !p->v[i].target)
			p->v[i].target = xstrdup(ip);
	}
}

void port_forwarder_plan_free(struct forward_plan *p)
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

int port_forwarder_listen(struct forward_plan *p, char **err)
{
	for (size_t i = 0; i < p->n; i++) {
		struct forward_rule *r = &p->v[i];
		struct sockaddr_storage ss;
		socklen_t len;
		const char *shown_ip = r->host_ip ? r->host_ip : "0.0.0.0";
		if (!sockaddr_of(r->host_ip, r->host_port, &ss, &len))
			return error_set(err, "host port %s:%u/%s: not an address", shown_ip,
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
			return error_set(err, "host port %s:%u/%s: %s", shown_ip, r->host_port,
					 proto_name(r), strerror(e));
		}
		r->fd = fd;
	}
	return 0;
}

/*
 * The forwarder's state: one epoll loop over the listeners, the two
 * sockets of every TCP connection and the socket of every UDP flow; all
 * non-blocking. Each direction of a connection moves through a pipe of its
 * own with splice(2): what the pipe holds is written out before more is
 * read in, so a slow reader stops its writer (TCP's own back-pressure) and
 * nothing is copied through user memory.
 */
struct list {
	struct list *prev, *next;
};

struct conn {
	struct list link; /* in fwd.connecting or fwd.conns, idlest first */
	int fd[2];	  /* 0: the client, 1: the container */
	int pipe[2][2];	  /* pipe[d]: fd[d] to fd[!d] */
	size_t inpipe[2];
	bool eof[2];	 /* fd[d] has no more to read */
	bool shut[2];	 /* fd[!d] told so (SHUT_WR) */
	uint32_t ev[2];	 /* what fd[k] waits for in epoll; 0: not in it */
	bool connecting; /* fd[1] not connected yet */
	bool dead;	 /* freed once the events at hand are dispatched */
	long long last;	 /* CLOCK_MONOTONIC ms of the last progress */
};

/* A UDP client of a rule: its datagrams go out on `fd`, a socket
 * connected to the rule's target, and what comes back on `fd` goes to it. */
struct flow {
	struct list link;   /* in fwd.flows, idlest first */
	struct flow *hnext; /* in its hash bucket */
	size_t rule;
	struct sockaddr_storage client;
	socklen_t client_len;
	int fd;
	long long last;
	bool dead;
};

#define FLOW_BUCKETS 1024

struct fwd {
	const struct forward_plan *p;
	int ep;
	long long *paused; /* per rule: a listener out of descriptors waits
			    * until then (ms); 0: listening */
	struct list connecting, conns, flows;
	struct list dead_conns, dead_flows; /* freed after each epoll_wait */
	size_t nconns, nflows, conns_max, flows_max;
	long long tcp_idle_ms, udp_idle_ms;
	struct flow *bucket[FLOW_BUCKETS];
};

/* What an epoll event is about: the low two bits of its data. */
enum { EV_LISTENER, EV_CLIENT, EV_TARGET, EV_FLOW };

static void list_init(struct list *l)
{
	l->prev = l->next = l;
}

static void list_del(struct list *e)
{
	e->prev->next = e->next;
	e->next->prev = e->prev;
	list_init(e);
}

static void list_add_tail(struct list *l, struct list *e)
{
	e->prev = l->prev;
	e->next = l;
	l->prev->next = e;
	l->prev = e;
}

static bool list_empty(const struct list *l)
{
	return l->next == l;
}

#define CONTAINER_OF(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Is errno the lack of a descriptor or of memory for one? */
static bool out_of_descriptors(void)
{
	return errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM;
}

/* A connection ended: its descriptors closed (out of epoll with them), its
 * memory kept until the events at hand, which may name it, are done. */
static void conn_free(struct fwd *f, struct conn *c)
{
	list_del(&c->link);
	for (int k = 0; k < 2; k++) {
		close_fd(&c->fd[k]);
		close_fd(&c->pipe[k][0]);
		close_fd(&c->pipe[k][1]);
	}
	f->nconns--;
	c->dead = true;
	list_add_tail(&f->dead_conns, &c->link);
}

/* Wait in epoll for what fd[k] of c is needed for next. */
static int conn_watch(struct fwd *f, struct conn *c, int k)
{
	uint32_t want = 0;
	if (k == 1 && c->connecting)
		want = EPOLLOUT;
	else if (!c->connecting && !c->eof[k] && c->inpipe[k] == 0)
		want = EPOLLIN;
	if (!c->connecting && c->inpipe[!k] > 0)
		want |= EPOLLOUT;
	if (want == c->ev[k])
		return 0;
	struct epoll_event e = {.events = want,
				.data.u64 = (uintptr_t)c | (k == 0 ? EV_CLIENT : EV_TARGET)};
	int op = c->ev[k] == 0 ? EPOLL_CTL_ADD : want == 0 ? EPOLL_CTL_DEL : EPOLL_CTL_MOD;
	if (epoll_ctl(f->ep, op, c->fd[k], &e) < 0)
		return -1;
	c->ev[k] = want;
	return 0;
}

/* Move what can be moved from fd[d] to fd[!d] now, and pass the end on
 * once all is out; -1 when the connection is broken. A bounded number of
 * rounds, for fairness: level-triggered epoll reports what is left. */
static int conn_pump(struct conn *c, int d, bool *moved)
{
	for (int round = 0; round < 16 && !c->eof[d]; round++) {
		if (c->inpipe[d] > 0) {
			ssize_t n = splice(c->pipe[d][0], NULL, c->fd[!d], NULL, c->inpipe[d],
					   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n < 0)
				return errno == EAGAIN ? 0 : -1;
			c->inpipe[d] -= (size_t)n;
			*moved = true;
			if (c->inpipe[d] > 0)
				continue;
		}
		ssize_t n = splice(c->fd[d], NULL, c->pipe[d][1], NULL, PIPE_BYTES,
				   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n < 0)
			return errno == EAGAIN ? 0 : -1;
		if (n == 0)
			c->eof[d] = true; /* (only read with the pipe empty) */
		c->inpipe[d] += (size_t)n;
		*moved = true;
	}
	if (c->eof[d] && !c->shut[d]) {
		if (shutdown(c->fd[!d], SHUT_WR) < 0 && errno != ENOTCONN)
			return -1;
		c->shut[d] = true;
	}
	return 0;
}

/* The target's connect finished: on with the relay, or the end of it. */
static int conn_connected(struct fwd *f, struct conn *c, long long now)
{
	int so = 0;
	socklen_t len = sizeof(so);
	if (getsockopt(c->fd[1], SOL_SOCKET, SO_ERROR, &so, &len) < 0 || so != 0)
		return -1;
	c->connecting = false;
	c->last = now;
	list_del(&c->link);
	list_add_tail(&f->conns, &c->link);
	return 0;
}

/* An event on fd[k] of c (errors and hang-ups show in splice's answers). */
static void conn_event(struct fwd *f, struct conn *c, int k, long long now)
{
	if (k == 1 && c->connecting && conn_connected(f, c, now) < 0) {
		conn_free(f, c);
		return;
	}
	bool moved = false;
	if (conn_pump(c, 0, &moved) < 0 || conn_pump(c, 1, &moved) < 0) {
		conn_free(f, c);
		return;
	}
	if (c->shut[0] && c->shut[1]) {
		conn_free(f, c);
		return;
	}
	if (moved) {
		c->last = now;
		list_del(&c->link);
		list_add_tail(&f->conns, &c->link);
	}
	if (conn_watch(f, c, 0) < 0 || conn_watch(f, c, 1) < 0)
		conn_free(f, c);
}

static size_t flow_hash(size_t rule, const struct sockaddr_storage *a, socklen_t len)
{
	uint32_t h = 2166136261u ^ (uint32_t)rule;
	const unsigned char *b = (const unsigned char *)a;
	for (socklen_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 16777619u;
	return h % FLOW_BUCKETS;
}

static void flow_free(struct fwd *f, struct flow *fl)
{
	struct flow **pp = &f->bucket[flow_hash(fl->rule, &fl->client, fl->client_len)];
	while (*pp != fl)
		pp = &(*pp)->hnext;
	*pp = fl->hnext;
	list_del(&fl->link);
	close(fl->fd);
	f->nflows--;
	fl->dead = true;
	list_add_tail(&f->dead_flows, &fl->link);
}

static void reap(struct fwd *f)
{
	while (!list_empty(&f->dead_conns)) {
		struct list *e = f->dead_conns.next;
		list_del(e);
		free(CONTAINER_OF(e, struct conn, link));
	}
	while (!list_empty(&f->dead_flows)) {
		struct list *e = f->dead_flows.next;
		list_del(e);
		free(CONTAINER_OF(e, struct flow, link));
	}
}

/* Make room: the flow idle longest, else the connection idle longest,
 * dropped; false when there is none. */
static bool evict_idlest(struct fwd *f, bool tcp_first)
{
	struct list *lists[3] = {&f->flows, &f->conns, &f->connecting};
	if (tcp_first) {
		lists[0] = &f->conns;
		lists[1] = &f->connecting;
		lists[2] = &f->flows;
	}
	for (size_t i = 0; i < 3; i++) {
		if (list_empty(lists[i]))
			continue;
		if (lists[i] == &f->flows) {
			struct flow *fl = CONTAINER_OF(f->flows.next, struct flow, link);
			flow_free(f, fl);
		} else {
			conn_free(f, CONTAINER_OF(lists[i]->next, struct conn, link));
		}
		return true;
	}
	return false;
}

/* The connection of client socket `fd` to rule r's target, started. */
static void conn_new(struct fwd *f, const struct forward_rule *r, int fd, long long now)
{
	if (f->nconns >= f->conns_max)
		evict_idlest(f, true);
	struct conn *c = xzalloc(sizeof(*c));
	*c = (struct conn){
	    .fd = {fd, -1}, .pipe = {{-1, -1}, {-1, -1}}, .connecting = true, .last = now};
	list_init(&c->link);
	list_add_tail(&f->connecting, &c->link);
	f->nconns++;
	struct sockaddr_storage ss;
	socklen_t len;
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	if (!sockaddr_of(r->target, r->container_port, &ss, &len)) {
		conn_free(f, c);
		return;
	}
	for (int tries = 0; tries < 2; tries++) {
		if ((c->pipe[0][0] >= 0 || pipe2(c->pipe[0], O_CLOEXEC | O_NONBLOCK) == 0) &&
		    (c->pipe[1][0] >= 0 || pipe2(c->pipe[1], O_CLOEXEC | O_NONBLOCK) == 0) &&
		    (c->fd[1] =
			 socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) >= 0)
			break;
		if (!out_of_descriptors() || !evict_idlest(f, false))
			break;
	}
	if (c->fd[1] < 0 ||
	    (connect(c->fd[1], (struct sockaddr *)&ss, len) < 0 && errno != EINPROGRESS) ||
	    conn_watch(f, c, 1) < 0)
		conn_free(f, c);
}

/* Connections waiting on rule i's listener: accepted. Out of descriptors
 * with nothing to evict, the listener rests a second (no busy loop: what
 * waits stays in its backlog). */
static void tcp_accept(struct fwd *f, size_t i, long long now)
{
	const struct forward_rule *r = &f->p->v[i];
	for (int n = 0; n < 16; n++) {
		int c = accept4(r->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (c >= 0) {
			conn_new(f, r, c, now);
			continue;
		}
		if (errno == EAGAIN)
			return;
		if (!out_of_descriptors())
			continue; /* ECONNABORTED and the like: the next one */
		if (evict_idlest(f, true))
			continue;
		epoll_ctl(f->ep, EPOLL_CTL_DEL, r->fd, NULL);
		f->paused[i] = now + 1000;
		return;
	}
}

/* The flow of client `from` on rule `rule`, made when new (the one idle
 * longest dropped to make room); NULL when none can be made. */
static struct flow *flow_of(struct fwd *f, size_t rule, const struct sockaddr_storage *from,
			    socklen_t len, long long now)
{
	size_t h = flow_hash(rule, from, len);
	for (struct flow *fl = f->bucket[h]; fl; fl = fl->hnext)
		if (fl->rule == rule && fl->client_len == len &&
		    memcmp(&fl->client, from, len) == 0)
			return fl;
	const struct forward_rule *r = &f->p->v[rule];
	struct sockaddr_storage ss;
	socklen_t sl;
	if (!sockaddr_of(r->target, r->container_port, &ss, &sl))
		return NULL;
	if (f->nflows >= f->flows_max)
		evict_idlest(f, false);
	int fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 && out_of_descriptors() && evict_idlest(f, false))
		fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return NULL;
	struct flow *fl = xzalloc(sizeof(*fl));
	*fl = (struct flow){.rule = rule, .client_len = len, .fd = fd, .last = now};
	memcpy(&fl->client, from, len);
	struct epoll_event e = {.events = EPOLLIN, .data.u64 = (uintptr_t)fl | EV_FLOW};
	if (connect(fd, (struct sockaddr *)&ss, sl) < 0 ||
	    epoll_ctl(f->ep, EPOLL_CTL_ADD, fd, &e) < 0) {
		close(fd);
		free(fl);
		return NULL;
	}
	fl->hnext = f->bucket[h];
	f->bucket[h] = fl;
	list_init(&fl->link);
	list_add_tail(&f->flows, &fl->link);
	f->nflows++;
	return fl;
}

static void flow_touch(struct fwd *f, struct flow *fl, long long now)
{
	fl->last = now;
	list_del(&fl->link);
	list_add_tail(&f->flows, &fl->link);
}

/* Datagrams on rule i's host socket: to their clients' flows. */
static void udp_from_clients(struct fwd *f, size_t i, long long now)
{
	static char buf[65536];
	for (int n = 0; n < 64; n++) {
		struct sockaddr_storage from;
		memset(&from, 0, sizeof(from));
		socklen_t len = sizeof(from);
		ssize_t got = recvfrom(f->p->v[i].fd, buf, sizeof(buf), MSG_DONTWAIT,
				       (struct sockaddr *)&from, &len);
		if (got < 0) {
			if (errno == EAGAIN)
				return;
			continue;
		}
		struct flow *fl = flow_of(f, i, &from, len, now);
		if (!fl)
			continue;
		flow_touch(f, fl, now);
		(void)send(fl->fd, buf, (size_t)got, MSG_DONTWAIT);
	}
}

/* Datagrams from the target on flow fl: back to its client. An error
 * queued on the socket (the container's port closed: ICMP port
 * unreachable) is read, and so cleared, by the same recv(). */
static void udp_from_target(struct fwd *f, struct flow *fl, long long now)
{
	static char buf[65536];
	for (int n = 0; n < 64; n++) {
		ssize_t got = recv(fl->fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (got < 0) {
			if (errno == EAGAIN)
				return;
			continue;
		}
		flow_touch(f, fl, now);
		(void)sendto(f->p->v[fl->rule].fd, buf, (size_t)got, MSG_DONTWAIT,
			     (struct sockaddr *)&fl->client, fl->client_len);
	}
}

/* Listen again on the rules that rested; drop what has been idle too long;
 * the ms until the next of these is due (-1: none). */
static int expire(struct fwd *f, long long now)
{
	long long next = -1;
	for (size_t i = 0; i < f->p->n; i++) {
		if (!f->paused[i])
			continue;
		if (f->paused[i] <= now) {
			struct epoll_event e = {.events = EPOLLIN,
						.data.u64 = i << 2 | EV_LISTENER};
			if (epoll_ctl(f->ep, EPOLL_CTL_ADD, f->p->v[i].fd, &e) == 0)
				f->paused[i] = 0;
		}
		if (f->paused[i] && (next < 0 || f->paused[i] < next))
			next = f->paused[i];
	}
	const struct {
		struct list *l;
		long long ms;
		bool flows;
	} lists[] = {{&f->connecting, CONNECT_TIMEOUT_MS, false},
		     {&f->conns, f->tcp_idle_ms, false},
		     {&f->flows, f->udp_idle_ms, true}};
	for (size_t i = 0; i < ARRAY_SIZE(lists); i++) {
		while (!list_empty(lists[i].l)) {
			struct list *e = lists[i].l->next;
			long long last = lists[i].flows ? CONTAINER_OF(e, struct flow, link)->last
							: CONTAINER_OF(e, struct conn, link)->last;
			if (last + lists[i].ms > now) {
				if (next < 0 || last + lists[i].ms < next)
					next = last + lists[i].ms;
				break;
			}
			if (lists[i].flows)
				flow_free(f, CONTAINER_OF(e, struct flow, link));
			else
				conn_free(f, CONTAINER_OF(e, struct conn, link));
		}
	}
	return next < 0 ? -1 : (int)(next - now);
}

static void dispatch(struct fwd *f, const struct epoll_event *e, long long now)
{
	uint64_t d = e->data.u64;
	switch (d & 3) {
	case EV_LISTENER:
		if (f->p->v[d >> 2].udp)
			udp_from_clients(f, d >> 2, now);
		else
			tcp_accept(f, d >> 2, now);
		break;
	case EV_CLIENT:
	case EV_TARGET: {
		struct conn *c = (struct conn *)(uintptr_t)(d & ~(uint64_t)3);
		if (!c->dead)
			conn_event(f, c, (d & 3) == EV_TARGET, now);
		break;
	}
	default: {
		struct flow *fl = (struct flow *)(uintptr_t)(d & ~(uint64_t)3);
		if (!fl->dead)
			udp_from_target(f, fl, now);
		break;
	}
	}
}

/* The descriptors the forwarder may have: the soft limit raised to the
 * hard one; shared out between connections (six each: two sockets, two
 * pipes) and flows (one each), a few kept for the listeners and epoll. */
static void set_limits(struct fwd *f)
{
	struct rlimit rl;
	size_t lim = 1024;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		if (rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max > (1 << 20) ? (1 << 20) : rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
			getrlimit(RLIMIT_NOFILE, &rl);
		}
		lim = rl.rlim_cur > (1 << 20) ? (1 << 20) : (size_t)rl.rlim_cur;
	}
	bool tcp = false, udp = false;
	for (size_t i = 0; i < f->p->n; i++) {
		tcp = tcp || !f->p->v[i].udp;
		udp = udp || f->p->v[i].udp;
	}
	size_t avail = lim > f->p->n + 16 ? lim - f->p->n - 16 : 6;
	size_t share = tcp && udp ? avail / 2 : avail;
	f->conns_max = share / 6 > CONNS_MAX ? CONNS_MAX : share / 6 ? share / 6 : 1;
	f->flows_max = share > UDP_FLOWS_MAX ? UDP_FLOWS_MAX : share ? share : 1;
}

/* The forwarder's loop: never returns. */
static void serve(const struct forward_plan *p)
{
	static struct fwd f;
	f = (struct fwd){.p = p,
			 .tcp_idle_ms = p->tcp_idle_ms ? p->tcp_idle_ms : TCP_IDLE_MS,
			 .udp_idle_ms = p->udp_idle_ms ? p->udp_idle_ms : UDP_FLOW_IDLE_MS};
	list_init(&f.connecting);
	list_init(&f.conns);
	list_init(&f.flows);
	list_init(&f.dead_conns);
	list_init(&f.dead_flows);
	set_limits(&f);
	f.paused = xcalloc(p->n, sizeof(*f.paused));
	f.ep = epoll_create1(EPOLL_CLOEXEC);
	if (f.ep < 0)
		_exit(1);
	for (size_t i = 0; i < p->n; i++) {
		struct epoll_event e = {.events = EPOLLIN, .data.u64 = i << 2 | EV_LISTENER};
		int fl = fcntl(p->v[i].fd, F_GETFL);
		if (fl < 0 || fcntl(p->v[i].fd, F_SETFL, fl | O_NONBLOCK) < 0 ||
		    epoll_ctl(f.ep, EPOLL_CTL_ADD, p->v[i].fd, &e) < 0)
			_exit(1);
	}
	struct epoll_event ev[64];
	for (;;) {
		int timeout = expire(&f, now_ms());
		int n = epoll_wait(f.ep, ev, ARRAY_SIZE(ev), timeout);
		if (n < 0 && errno != EINTR)
			_exit(1);
		long long now = now_ms();
		for (int k = 0; k < n; k++)
			dispatch(&f, &ev[k], now);
		reap(&f);
	}
}

/* Close every descriptor but the listeners (the hook's, the user's lock
 * above all, whatever their number). */
static void close_all_but(const struct forward_plan *p)
{
	int *keep = xcalloc(p->n, sizeof(*keep));
	for (size_t i = 0; i < p->n; i++)
		keep[i] = p->v[i].fd;
	for (size_t i = 1; i < p->n; i++) /* (a few: insertion sort) */
		for (size_t j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
			int t = keep[j];
			keep[j] = keep[j - 1];
			keep[j - 1] = t;
		}
	unsigned from = 3;
	for (size_t i = 0; i <= p->n; i++) {
		unsigned to = i < p->n ? (unsigned)keep[i] : ~0U;
		if (to > from && syscall(SYS_close_range, from, to - 1, 0U) < 0) {
			struct rlimit rl;
			unsigned last = to - 1;
			if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < last)
				last = (unsigned)rl.rlim_cur;
			for (unsigned fd = from; fd <= last && fd < (1u << 20); fd++)
				close((int)fd);
		}
		from = to + 1;
	}
	free(keep);
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

/* The forwarder's process (rootless_netns_spawn(): in /, stdio on
 * /dev/null): no descriptor of the hook's but the listeners. */
static void forwarder_main(void *data)
{
	const struct forward_plan *p = data;
	close_all_but(p);
	forwarder_title(p);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGTERM, SIG_DFL);
	serve(p);
}

int port_forwarder_spawn(const struct forward_plan *p, long *pid, char **err)
{
	for (size_t i = 0; i < p->n; i++)
		if (!p->v[i].target || p->v[i].fd < 0)
			return error_set(err,
					 "host port %u/%s: no address of the container to "
					 "forward it to",
					 p->v[i].host_port, proto_name(&p->v[i]));
	_cleanup_free_ char *e = NULL;
	int r = rootless_netns_spawn(forwarder_main, (void *)p, ROOTLESS_NETNS_SPAWN_KEEP_ALL,
				     p->run_dir, pid, &e);
	if (r != 0)
		error_set(err, "port forwarder: %s", e);
	return r;
}
