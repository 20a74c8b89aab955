#!/usr/bin/env bash
# Install what the build, the tests (host and VM) and the demo need, from
# Debian's archive. Idempotent; run as root.
set -euo pipefail

packages=(
	# build: C++20 userland and the module (Kbuild against the headers)
	cmake g++ make pkg-config
	libgtest-dev libgmock-dev libnl-3-dev libnl-genl-3-dev liburing-dev
	libcli11-dev nlohmann-json3-dev libibverbs-dev librdmacm-dev libnvme-dev
	linux-headers-amd64 bc flex bison
	# static checks: checkpatch comes from the kernel source tarball
	sparse linux-source-6.1 perl xz-utils shellcheck
	# the VM harness: qemu (TCG), the kernel it boots, the initramfs
	qemu-system-x86 linux-image-amd64 busybox-static cpio gzip kmod
	# inside the VM: soft-RoCE, the reference target/initiator, workloads
	rdma-core ibverbs-utils perftest nvme-cli fio iproute2 e2fsprogs
	sg3-utils util-linux coreutils python3
)

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: run as root" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${packages[@]}"
