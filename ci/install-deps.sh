#!/usr/bin/env bash
# Install what the build, the tests (host and VM) and the demo need, from
# Debian's archive. Idempotent; run as root.
set -euo pipefail

packages=(
	# build: C++20 userland and the module (Kbuild against the headers)
	cmake g++ make pkg-config
	libgtest-dev libgmock-dev libnl-3-dev libnl-genl-3-dev liburing-dev
	libcli11-dev nlohmann-json3-dev libibverbs-dev librdmacm-dev libnvme-dev
	zlib1g-dev libssl-dev
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

# ensure_deb_src PKG=VERSION: make `apt-get source` find PKG: a deb-src
# entry for bookworm main when there is none: deb822
# (/etc/apt/sources.list.d/debian.sources) or one-line (sources.list),
# whichever style this machine uses.
ensure_deb_src() {
	local f has_src=0
	apt-get source --print-uris -q "$1" >/dev/null 2>&1 && return 0
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		if grep -Eq '^[[:space:]]*deb-src[[:space:]].*bookworm[[:space:]].*main' "$f" ||
			grep -Eq '^[[:space:]]*Types:.*deb-src' "$f"; then
			has_src=1
		fi
	done
	if [ "$has_src" -eq 0 ]; then
		if [ -f /etc/apt/sources.list.d/debian.sources ]; then
			cat >/etc/apt/sources.list.d/rblk-deb-src.sources <<-'SRC'
				Types: deb-src
				URIs: http://deb.debian.org/debian
				Suites: bookworm
				Components: main
				Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
			SRC
		else
			echo 'deb-src http://deb.debian.org/debian bookworm main' \
				>/etc/apt/sources.list.d/rblk-deb-src.list
		fi
	fi
	apt-get update -q
}

# fio's external ioengine (librblk_fio.so, userlib/initiator/fio/) is built against the
# source of the installed fio: its ABI (struct thread_data, ioengine_ops,
# FIO_IOOPS_VERSION) is that version's. Debian's source package, unpacked
# once into RBLK_FIO_SRC_CACHE (CMake looks there), keyed by the installed
# version.
fio_cache=${RBLK_FIO_SRC_CACHE:-/var/tmp/rblk-fio-src}
fio_ver=$(dpkg-query -W -f='${Version}' fio)
fio_upstream=${fio_ver%-*}
fio_upstream=${fio_upstream#*:}
if [ ! -f "$fio_cache/fio-$fio_upstream/ioengines.h" ]; then
	ensure_deb_src "fio=$fio_ver"
	mkdir -p "$fio_cache"
	(cd "$fio_cache" && apt-get source -q --download-only "fio=$fio_ver" &&
		dpkg-source --no-check -x fio_"$fio_upstream"*.dsc "fio-$fio_upstream")
fi
echo "install-deps: fio $fio_ver source in $fio_cache/fio-$fio_upstream"

# The instruction meter's QEMU plugin (tests/bench/meter/) is built against
# qemu-plugin.h of the installed qemu's source package; only that header
# is kept, in RBLK_QEMU_SRC_CACHE/<upstream version>/ (CMake looks there).
# The source of the installed version, or the archive's when a security
# update moved it: the plugin API of one upstream version does not change.
qemu_cache=${RBLK_QEMU_SRC_CACHE:-/var/tmp/rblk-qemu-src}
qemu_src_ver=$(dpkg-query -W -f='${source:Version}' qemu-system-x86)
qemu_upstream=${qemu_src_ver%-*}
qemu_upstream=${qemu_upstream#*:}
qemu_upstream=${qemu_upstream%+dfsg}
if [ ! -f "$qemu_cache/$qemu_upstream/qemu-plugin.h" ]; then
	ensure_deb_src "qemu=$qemu_src_ver"
	tmp=$(mktemp -d)
	chmod 755 "$tmp" # apt fetches as _apt
	if (cd "$tmp" && { apt-get source -q --download-only "qemu=$qemu_src_ver" ||
		apt-get source -q --download-only qemu; }) >/dev/null; then
		mkdir -p "$qemu_cache/$qemu_upstream"
		tar -xJf "$tmp"/qemu_*.orig.tar.xz -C "$tmp" --wildcards '*/include/qemu/qemu-plugin.h'
		cp "$tmp"/qemu-*/include/qemu/qemu-plugin.h "$qemu_cache/$qemu_upstream/"
	else
		echo "install-deps: no qemu source package: the instruction meter is not built" >&2
	fi
	rm -rf -- "$tmp"
fi
echo "install-deps: qemu $qemu_src_ver plugin header in $qemu_cache/$qemu_upstream"
