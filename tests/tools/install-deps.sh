#!/bin/bash
# Install what cnihook needs to build, test and run, on Debian 12 (as root).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# dnsname and dnsmasq-base: tests/e2e/dnsname.sh. With dnsname installed,
# podman's CNI backend adds it to the networks it creates: the suites that
# create podman networks pass --disable-dns.
apt-get install -y -q --no-install-recommends \
	build-essential autoconf automake libtool pkg-config \
	libyajl-dev libseccomp-dev libcap-dev libcmocka-dev \
	containernetworking-plugins iproute2 iptables iputils-ping jq \
	runc crun podman containerd busybox-static \
	slirp4netns uidmap acl \
	netavark aardvark-dns catatonit \
	golang-github-containernetworking-plugin-dnsname dnsmasq-base \
	golang-go golang-github-appc-cni-dev \
	clang clang-format libclang-rt-14-dev valgrind procps strace
# The Kubernetes path (tests/e2e/k8s.sh): containerd's CRI, and gRPC for the
# test's own CRI client (Debian's /usr/bin/python3).
apt-get install -y -q --no-install-recommends containerd python3-grpcio python3-grpc-tools
# A systemd user manager (tests/e2e/rootless-scope.sh starts one for its
# user: the helpers' scopes), without systemd as PID 1.
apt-get install -y -q --no-install-recommends systemd util-linux
# The documentation's checks (tests/suites/docs.sh: python3 extracts the
# hook's messages, groff renders the man pages) and the README's quick
# starts (tests/e2e/installed.sh runs their curl).
apt-get install -y -q --no-install-recommends python3 groff-base curl
# Docker (tests/e2e/docker.sh, the README's Docker quick start): the tests
# start a dockerd of their own, without the host's firewall. The system's
# dockerd is not started by the installation (it would add its bridge and
# its iptables rules): a policy-rc.d(8) that denies every start, for that
# installation only, unless the machine has one of its own.
if [ -e /usr/sbin/policy-rc.d ]; then
	apt-get install -y -q --no-install-recommends docker.io
else
	printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
	chmod 755 /usr/sbin/policy-rc.d
	trap 'rm -f /usr/sbin/policy-rc.d' EXIT
	apt-get install -y -q --no-install-recommends docker.io
fi
