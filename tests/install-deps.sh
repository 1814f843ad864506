#!/bin/bash
# Install what cnihook needs to build, test and run, on Debian 12 (as root).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends \
	build-essential autoconf automake libtool pkg-config \
	libyajl-dev libseccomp-dev libcap-dev libcmocka-dev \
	containernetworking-plugins iproute2 iptables iputils-ping jq \
	runc crun podman containerd busybox-static \
	golang-go golang-github-appc-cni-dev \
	clang clang-format libclang-rt-14-dev valgrind procps
