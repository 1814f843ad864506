/* SPDX-License-Identifier: Apache-2.0 */
/* Sockets bound on the host, and the port mappings that would take their
 * traffic. */
#include "config.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/util.h"
#include "host/host-sockets.h"
#include "request/port-mappings.h"

/* The /proc/net tables, and what each holds. */
struct table {
	const char *name;
	enum host_proto proto;
	int family;    /* 0: sctp/eps, whose addresses say their family */
	bool optional; /* absent without IPv6 or SCTP; IPv4's are always there */
};

static const struct table tables[] = {
    {"tcp", HOST_TCP, AF_INET, false}, {"tcp6", HOST_TCP, AF_INET6, true},
    {"udp", HOST_UDP, AF_INET, false}, {"udp6", HOST_UDP, AF_INET6, true},
    {"sctp/eps", HOST_SCTP, 0, true},
};

static const char *const proto_names[] = {
    [HOST_TCP] = "tcp", [HOST_UDP] = "udp", [HOST_SCTP] = "sctp"};

#define TCP_LISTEN 0x0a

static size_t addr_len(int family)
{
	return family == AF_INET ? 4 : 16;
}

static bool is_zero(const unsigned char *a, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (a[i])
			return false;
	return true;
}

/* ::ffff:a.b.c.d is the IPv4 address a.b.c.d. */
static void unmap_v4(int *family, unsigned char addr[16])
{
	static const unsigned char prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	if (*family == AF_INET6 && memcmp(addr, prefix, sizeof(prefix)) == 0) {
		memmove(addr, addr + 12, 4);
		memset(addr + 4, 0, 12);
		*family = AF_INET;
	}
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* n hex digits as a number, all of s[0..n) */
static int hex_number(const char *s, size_t n, uint32_t *out)
{
	uint32_t v = 0;
	for (size_t i = 0; i < n; i++) {
		int d = hex_digit(s[i]);
		if (d < 0)
			return -1;
		v = v << 4 | (uint32_t)d;
	}
	*out = v;
	return 0;
}

/* "0100007F:1F90": the kernel prints each 32-bit word of the address as
 * the number it is in memory (so in host byte order), the port as a
 * number. */
static int hex_endpoint(const char *s, int family, unsigned char addr[16], unsigned *port)
{
	size_t words = addr_len(family) / 4;
	uint32_t w, p;
	if (strlen(s) != words * 8 + 5 || s[words * 8] != ':')
		return -1;
	memset(addr, 0, 16);
	for (size_t i = 0; i < words; i++) {
		if (hex_number(s + i * 8, 8, &w) < 0)
			return -1;
		memcpy(addr + i * 4, &w, 4);
	}
	if (hex_number(s + words * 8 + 1, 4, &p) < 0)
		return -1;
	*port = p;
	return 0;
}

static int decimal(const char *s, unsigned long long max, unsigned long long *out)
{
	unsigned long long v = 0;
	if (*s == '\0')
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (max - (unsigned)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (unsigned)(*s - '0');
	}
	*out = v;
	return 0;
}

static void add(struct host_sockets *s, const struct host_socket *h)
{
	s->v = xreallocarray(s->v, s->n + 1, sizeof(*s->v));
	s->v[s->n++] = *h;
}

/* The whitespace separated fields of line (changed in place), at most max. */
static size_t fields(char *line, char **f, size_t max)
{
	size_t n = 0;
	char *save = NULL;
	for (char *t = strtok_r(line, " \t\n", &save); t && n < max;
	     t = strtok_r(NULL, " \t\n", &save))
		f[n++] = t;
	return n;
}

/* One line of tcp, tcp6, udp or udp6:
 * "sl: local rem st tx:rx tr:when retrnsmt uid timeout inode ..." */
static int parse_inet(const struct table *t, char *line, struct host_sockets *s)
{
	char *f[10];
	if (fields(line, f, ARRAY_SIZE(f)) < ARRAY_SIZE(f) || f[0][strlen(f[0]) - 1] != ':')
		return -1;
	struct host_socket h = {.proto = t->proto, .family = t->family};
	unsigned char rem[16];
	unsigned rem_port;
	uint32_t st;
	unsigned long long inode;
	if (hex_endpoint(f[1], t->family, h.addr, &h.port) < 0 ||
	    hex_endpoint(f[2], t->family, rem, &rem_port) < 0 || strlen(f[3]) != 2 ||
	    hex_number(f[3], 2, &st) < 0 || decimal(f[9], UINT64_MAX, &inode) < 0)
		return -1;
	h.inode = inode;
	/* Listeners; UDP sockets that take datagrams from anyone. */
	if (t->proto == HOST_TCP ? st != TCP_LISTEN
				 : !is_zero(rem, addr_len(t->family)) || rem_port != 0)
		return 0;
	unmap_v4(&h.family, h.addr);
	add(s, &h);
	return 0;
}

/* One line of sctp/eps: "ENDPT SOCK STY SST HBKT LPORT UID INODE LADDRS...",
 * the local addresses as text, separated by spaces. */
static int parse_sctp(char *line, struct host_sockets *s)
{
	char *f[64];
	size_t n = fields(line, f, ARRAY_SIZE(f));
	unsigned long long port, inode;
	if (n < 8 || decimal(f[5], 65535, &port) < 0 || decimal(f[7], UINT64_MAX, &inode) < 0)
		return -1;
	for (size_t i = 8; i < n; i++) {
		struct host_socket h = {.proto = HOST_SCTP, .port = (unsigned)port, .inode = inode};
		const char *a = f[i][0] == '*' ? f[i] + 1 : f[i]; /* the primary address */
		if (inet_pton(AF_INET, a, h.addr) == 1)
			h.family = AF_INET;
		else if (inet_pton(AF_INET6, a, h.addr) == 1)
			h.family = AF_INET6;
		else
			return -1;
		unmap_v4(&h.family, h.addr);
		add(s, &h);
	}
	return 0;
}

static const struct table *find_table(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(tables); i++)
		if (strcmp(tables[i].name, name) == 0)
			return &tables[i];
	return NULL;
}

/* Line `no` (1 is the header) of a table. */
static int parse_line(const struct table *t, const char *what, size_t no, char *line,
		      struct host_sockets *s, char **err)
{
	if (no == 1)
		return 0;
	_cleanup_free_ char *copy = xstrdup(line);
	if (line[strspn(line, " \t\n")] == '\0')
		return 0;
	if ((t->family ? parse_inet(t, line, s) : parse_sctp(line, s)) < 0) {
		copy[strcspn(copy, "\n")] = '\0';
		_cleanup_free_ char *text = error_shown(copy);
		return error_set(err, "%s: line %zu cannot be read: \"%s\"", what, no, text);
	}
	return 0;
}

int host_sockets_parse(const char *text, const char *table, struct host_sockets *s, char **err)
{
	const struct table *t = find_table(table);
	if (t == NULL)
		return error_set(err, "no /proc/net table \"%s\"", table);
	_cleanup_free_ char *what = xasprintf("/proc/net/%s", table);
	size_t no = 0;
	for (const char *p = text; *p;) {
		const char *end = strchrnul(p, '\n');
		_cleanup_free_ char *line = xstrndup(p, (size_t)(end - p));
		if (parse_line(t, what, ++no, line, s, err) < 0)
			return -1;
		p = *end ? end + 1 : end;
	}
	return 0;
}

static int read_table(const char *proc, const struct table *t, struct host_sockets *s, char **err)
{
	_cleanup_free_ char *path = xasprintf("%s/self/net/%s", proc, t->name);
	FILE *f = fopen(path, "re");
	if (f == NULL && errno == ENOENT && t->optional)
		return 0; /* a kernel without that protocol: nothing bound to it */
	if (f == NULL)
		return error_set(err, "%s: %s", path, strerror(errno));
	_cleanup_free_ char *line = NULL;
	size_t size = 0, no = 0;
	int ret = 0;
	errno = 0;
	while (ret == 0 && getline(&line, &size, f) >= 0)
		ret = parse_line(t, path, ++no, line, s, err);
	if (ret == 0 && ferror(f))
		ret = error_set(err, "%s: %s", path, strerror(errno ? errno : EIO));
	fclose(f);
	return ret;
}

int host_sockets_parse_diag(const void *buf, size_t len, struct host_sockets *s, bool *done,
			    char **err)
{
	for (const struct nlmsghdr *h = buf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
		if (h->nlmsg_type == NLMSG_DONE) {
			*done = true;
			return 0;
		}
		if (h->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *e = NLMSG_DATA(h);
			int errnum = h->nlmsg_len >= NLMSG_LENGTH(sizeof(*e)) ? -e->error : EBADMSG;
			return error_set(err, "sock_diag: %s", strerror(errnum ? errnum : EBADMSG));
		}
		const struct inet_diag_msg *m = NLMSG_DATA(h);
		if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
		    h->nlmsg_len < NLMSG_LENGTH(sizeof(*m)) ||
		    (m->idiag_family != AF_INET && m->idiag_family != AF_INET6))
			return error_set(err, "sock_diag: a message that is no TCP socket");
		if (m->idiag_state != TCP_LISTEN)
			continue;
		struct host_socket sock = {.proto = HOST_TCP,
					   .family = m->idiag_family,
					   .port = ntohs(m->id.idiag_sport),
					   .inode = m->idiag_inode};
		memcpy(sock.addr, m->id.idiag_src, addr_len(sock.family));
		unmap_v4(&sock.family, sock.addr);
		add(s, &sock);
	}
	*done = false;
	return 0;
}

/* The TCP listeners of one family by a sock_diag dump that asks for
 * listeners only (the kernel then skips its connection hash, which a
 * reading of /proc/net/tcp walks whole). false when sock_diag cannot be
 * used here or fails: the caller reads /proc instead, which tells the
 * same. */
static bool read_listeners(int family, struct host_sockets *s)
{
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return false;
	struct {
		struct nlmsghdr h;
		struct inet_diag_req_v2 r;
	} req = {
	    .h = {.nlmsg_len = sizeof(req),
		  .nlmsg_type = SOCK_DIAG_BY_FAMILY,
		  .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		  .nlmsg_seq = 1},
	    .r = {.sdiag_family = (unsigned char)family,
		  .sdiag_protocol = IPPROTO_TCP,
		  .idiag_states = 1u << TCP_LISTEN},
	};
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0) {
		close(fd);
		return false;
	}
	_cleanup_free_ char *err = NULL;
	struct host_sockets got = {0};
	_Alignas(struct nlmsghdr) char buf[32768];
	bool done = false;
	int ret = 0;
	while (!done && ret == 0) {
		ssize_t n = TEMP_FAILURE_RETRY(recv(fd, buf, sizeof(buf), 0));
		if (n <= 0)
			ret = error_set(&err, "sock_diag: %s",
					n < 0 ? strerror(errno) : "end of data");
		else
			ret = host_sockets_parse_diag(buf, (size_t)n, &got, &done, &err);
	}
	close(fd);
	if (ret < 0) {
		/* A kernel without tcp_diag answers the dump with an error. */
		host_sockets_free(&got);
		return false;
	}
	for (size_t i = 0; i < got.n; i++)
		add(s, &got.v[i]);
	host_sockets_free(&got);
	return true;
}

int host_sockets_read(const char *proc, struct host_sockets *s, char **err)
{
	struct host_sockets out = {.v6_takes_v4 = true};
	/* The real /proc is this namespace's: its TCP listeners by
	 * sock_diag when the kernel has it. */
	bool diag = strcmp(proc, "/proc") == 0;
	for (size_t i = 0; i < ARRAY_SIZE(tables); i++) {
		const struct table *t = &tables[i];
		if (diag && t->proto == HOST_TCP && read_listeners(t->family, &out))
			continue;
		if (read_table(proc, t, &out, err) < 0) {
			host_sockets_free(&out);
			return -1;
		}
	}
	_cleanup_free_ char *path = xasprintf("%s/sys/net/ipv6/bindv6only", proc);
	_cleanup_free_ char *v6only = NULL;
	size_t len;
	_cleanup_free_ char *e = NULL;
	if (read_file(path, 64, &v6only, &len, NULL, &e) == 0)
		out.v6_takes_v4 = v6only[0] == '0';
	*s = out;
	return 0;
}

void host_sockets_free(struct host_sockets *s)
{
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

/* The addresses a mapping's hostIP names. */
struct wanted {
	int family; /* 0: both */
	bool any;   /* every address of family (of both when 0) */
	unsigned char addr[16];
};

static int parse_host_ip(const char *ip, struct wanted *w, char **err)
{
	memset(w, 0, sizeof(*w));
	if (ip == NULL || *ip == '\0') {
		w->any = true;
		return 0;
	}
	if (inet_pton(AF_INET, ip, w->addr) == 1) {
		w->family = AF_INET;
	} else {
		/* A link-local address may carry its zone: fe80::1%eth0. */
		_cleanup_free_ char *a = xstrndup(ip, strcspn(ip, "%"));
		if (inet_pton(AF_INET6, a, w->addr) != 1) {
			_cleanup_free_ char *text = error_shown(ip);
			return error_set(err, "host IP \"%s\" cannot be read", text);
		}
		w->family = AF_INET6;
		unmap_v4(&w->family, w->addr);
	}
	w->any = is_zero(w->addr, addr_len(w->family));
	return 0;
}

/* Does socket h take traffic for an address w names? */
static bool overlaps(const struct host_sockets *s, const struct host_socket *h,
		     const struct wanted *w)
{
	static const int families[] = {AF_INET, AF_INET6};
	bool wildcard = is_zero(h->addr, addr_len(h->family));
	for (size_t i = 0; i < ARRAY_SIZE(families); i++) {
		int f = families[i];
		if (w->family && w->family != f)
			continue;
		/* An IPv6 wildcard socket takes IPv4 too (bindv6only=0). */
		bool takes = h->family == f ||
			     (f == AF_INET && h->family == AF_INET6 && wildcard && s->v6_takes_v4);
		if (!takes)
			continue;
		if (w->any || wildcard ||
		    (h->family == f && memcmp(h->addr, w->addr, addr_len(f)) == 0))
			return true;
	}
	return false;
}

int host_sockets_find(const struct host_sockets *s, const char *proto, const char *host_ip,
		      unsigned port, const struct host_socket **found, char **err)
{
	size_t p = 0;
	while (p < ARRAY_SIZE(proto_names) && strcmp(proto_names[p], proto) != 0)
		p++;
	if (p == ARRAY_SIZE(proto_names)) {
		_cleanup_free_ char *text = error_shown(proto);
		return error_set(err, "protocol \"%s\" is not tcp, udp or sctp", text);
	}
	struct wanted w;
	if (parse_host_ip(host_ip, &w, err) < 0)
		return -1;
	*found = NULL;
	for (size_t i = 0; i < s->n; i++) {
		const struct host_socket *h = &s->v[i];
		if (h->proto == (enum host_proto)p && h->port == port && overlaps(s, h, &w)) {
			*found = h;
			break;
		}
	}
	return 0;
}

/* Does process directory `pid` (under proc_fd) hold a descriptor whose
 * link reads `want`? */
static bool holds(int proc_fd, const char *pid, const char *want)
{
	_cleanup_free_ char *path = xasprintf("%s/fd", pid);
	int fd = openat(proc_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false;
	_cleanup_closedir_ DIR *d = fdopendir(fd);
	if (d == NULL) {
		close(fd);
		return false;
	}
	bool found = false;
	struct dirent *de;
	char link[64];
	size_t want_len = strlen(want);
	while (!found && (de = readdir(d))) {
		ssize_t n = readlinkat(fd, de->d_name, link, sizeof(link));
		found = n == (ssize_t)want_len && memcmp(link, want, want_len) == 0;
	}
	return found;
}

bool host_sockets_holder(const char *proc, unsigned long long inode, int *pid, char **comm)
{
	if (inode == 0)
		return false;
	char want[48];
	snprintf(want, sizeof(want), "socket:[%llu]", inode);
	_cleanup_closedir_ DIR *d = opendir(proc);
	if (d == NULL)
		return false;
	/* The lowest pid (a server's first process, its workers' parent). */
	unsigned long long n, lowest = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		if (decimal(de->d_name, INT32_MAX, &n) == 0 && n > 0 &&
		    (lowest == 0 || n < lowest) && holds(dirfd(d), de->d_name, want))
			lowest = n;
	if (lowest == 0)
		return false;
	_cleanup_free_ char *path = xasprintf("%s/%llu/comm", proc, lowest);
	_cleanup_free_ char *text = NULL;
	size_t len;
	_cleanup_free_ char *e = NULL;
	if (read_file(path, 256, &text, &len, NULL, &e) < 0)
		text = xstrdup("");
	text[strcspn(text, "\n")] = '\0';
	*pid = (int)lowest;
	*comm = TAKE_PTR(text);
	return true;
}

/* "127.0.0.1", "::1" */
static void address_text(const struct host_socket *h, char out[INET6_ADDRSTRLEN])
{
	if (inet_ntop(h->family, h->addr, out, INET6_ADDRSTRLEN) == NULL)
		strcpy(out, "?");
}

static int refuse(const char *proc, const char *key, unsigned port, const char *proto,
		  const struct host_socket *h, char **err)
{
	char addr[INET6_ADDRSTRLEN];
	address_text(h, addr);
	int pid;
	_cleanup_free_ char *comm = NULL;
	if (!host_sockets_holder(proc, h->inode, &pid, &comm))
		return error_set(err,
				 "annotation \"%s\": host port %u/%s on %s is in use on the host "
				 "(socket inode %llu; no process in %s shows it: another user's, "
				 "which root sees with ss -lntup 'sport = :%u')",
				 key, port, proto, addr, h->inode, proc, port);
	_cleanup_free_ char *text = error_shown(comm);
	/* The engine itself: podman binds the ports of its own -p/--publish
	 * for the container it is creating. */
	bool engine = strcmp(comm, "podman") == 0 || strcmp(comm, "conmon") == 0 ||
		      strcmp(comm, "rootlessport") == 0;
	return error_set(err,
			 "annotation \"%s\": host port %u/%s on %s is in use on the host by "
			 "pid %d (%s)%s",
			 key, port, proto, addr, pid, text,
			 engine ? ": the engine's own; if it publishes that port for this very "
				  "container (podman -p), give it to -p or to the annotation, not "
				  "both"
				: "");
}

int host_sockets_check(const struct host_sockets *s, const char *proc, const char *key,
		       const struct port_mappings *m, char **err)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct port_mapping *pm = &m->v[i];
		const struct host_socket *h = NULL;
		_cleanup_free_ char *perr = NULL;
		if (host_sockets_find(s, pm->proto, pm->host_ip, pm->host_port, &h, &perr) < 0)
			return error_set(err, "annotation \"%s\": %s", key, perr);
		if (h)
			return refuse(proc, key, pm->host_port, proto_names[h->proto], h, err);
	}
	return 0;
}
