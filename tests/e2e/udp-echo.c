/* SPDX-License-Identifier: Apache-2.0 */
/*
 * udp-echo PORT: answers every datagram on UDP port PORT (all addresses)
 * with "echo " and the datagram, to its sender. The image of
 * tests/e2e/rootless.sh has no UDP server of busybox's; this one is built
 * static by the test.
 */
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: udp-echo PORT\n");
		return 2;
	}
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_port = htons((unsigned short)atoi(argv[1]))};
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		perror("udp-echo");
		return 1;
	}
	for (;;) {
		char in[2048], out[2053] = "echo ";
		struct sockaddr_storage from;
		socklen_t len = sizeof(from);
		ssize_t n = recvfrom(fd, in, sizeof(in), 0, (struct sockaddr *)&from, &len);
		if (n < 0)
			continue;
		memcpy(out + 5, in, (size_t)n);
		sendto(fd, out, (size_t)n + 5, 0, (struct sockaddr *)&from, len);
	}
}
