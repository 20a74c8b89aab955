#!/usr/bin/env bash
# Install what the build, the tests (host and VM) and the demo need, from
# Debian's archive. Idempotent; run as root.
set -euo pipefail

packages=(
	# build: C++20 userland and the module (Kbuild against the headers)
	cmake g++ make pkg-config
	libgtest-dev libgmock-dev libnl-3-dev libnl-genl-3-dev liburing-dev
	libcli11-dev nlohmann-json3-dev libibverbs-dev librdmacm-dev libnvme-dev
	bc flex bison
	# static checks: checkpatch comes from the kernel source tarball
	sparse linux-source-6.1 perl xz-utils shellcheck
	# packaging: DKMS rebuilds the module for later kernels; CPack's .debs
	# (dpkg-shlibdeps); the manual pages are rendered by the tests
	dkms dpkg-dev file man-db groff-base
	# the VM harness: qemu (TCG), the kernel it boots, the initramfs
	qemu-system-x86 busybox-static cpio gzip kmod
	# inside the VM: soft-RoCE, the reference target/initiator, workloads
	rdma-core ibverbs-utils perftest nvme-cli fio iproute2 e2fsprogs
	sg3-utils util-linux coreutils python3
	# tests/bench/vs_nvme_rdma.sh: perf (--profile) in the VM, the
	# latency plot of its report (tests/bench/report.py), on Debian's python3
	linux-perf python3-matplotlib
	# the CLI's completion tests source bash-completion's own helpers and
	# check the zsh script with zsh -n
	bash-completion zsh
)

# The two kernels the module is built for and the VM boots, pinned so that a
# security update in the archive does not move CI under us (bump both
# together, on purpose, and rerun the suite): Debian 12's default 6.1 and the
# 6.12 LTS that bookworm also carries (Debian 13's default; it has ublk).
kernels=(6.1.0-57-amd64 6.12.117+deb12-amd64)
for k in "${kernels[@]}"; do
	case $k in
	6.1.*) packages+=("linux-image-$k" "linux-headers-$k") ;;
	*) packages+=("linux-image-$k-unsigned" "linux-headers-$k") ;;
	esac
done

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: run as root" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${packages[@]}"
