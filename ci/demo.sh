#!/usr/bin/env bash
# The end-to-end demo: install the dependencies, build rblk.ko and rblkctl,
# boot the test VM and, inside it, start soft-RoCE and an nvmet-rdma target
# on a memory-backed disk, `modprobe rblk`, `rblkctl connect`, put ext4 on
# the disk and check files on it, then compare rblk with the kernel's
# nvme-rdma on the same target (tests/bench/vs_nvme_rdma.sh) and disconnect.
#
# Usage: ci/demo.sh [--build-dir DIR] [--no-deps] [--kernel KVER]
#                   [--runtime S] [--rounds N]
#   --build-dir DIR  default: build (built incrementally, never wiped)
#   --kernel KVER    the kernel the VM boots: 6.1, 6.12 or a whole release
#                    (default: the newest installed, Debian's 6.12)
#   --no-deps        skip ci/install-deps.sh (also: RBLK_SKIP_DEPS=1)
#   --runtime S, --rounds N   of the fio comparison (default 3 s x 2 rounds)
# Needs root for the package install; prints the VM's output as it goes.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$here/.." && pwd)

# --- inside the VM (run-in-vm.sh runs this script again with --in-vm) -------
in_vm() {
	local runtime=$1 rounds=$2 nqn=nqn.2024-01.io.rblk:demo mnt=/mnt/demo before after
	# shellcheck source=tests/vm/lib.sh
	. "$src/tests/vm/lib.sh"
	step() { printf '\n== %s\n' "$*"; }

	step "soft-RoCE on a veth pair, nvmet-rdma target at 10.99.0.1:4420 on a 256 MiB memory-backed disk"
	vm_rdma_target "$nqn" 256
	step "modprobe rblk (kernel $(uname -r))"
	vm_rblk_load
	modinfo -n rblk
	# Warm the target's RDMA device up, so that the slab figures below
	# count one controller and not the target's first connect.
	vm_rblk_connect "$nqn" > /dev/null
	"$RBLKCTL" disconnect rblk0 > /dev/null

	step "rblkctl connect -t rdma -a 10.99.0.1 -s 4420 -n $nqn --nr-io-queues 2 --queue-size 128"
	before=$(vm_slab_kib)
	"$RBLKCTL" connect -t rdma -a 10.99.0.1 -s 4420 -n "$nqn" --nr-io-queues 2 --queue-size 128 ||
		vm_fail "rblkctl connect failed"
	after=$(vm_slab_kib)
	"$RBLKCTL" list

	step "mkfs.ext4 /dev/rblk0n1, mount, write 16 files, umount, remount, check"
	mkfs.ext4 -q -F /dev/rblk0n1
	mkdir -p "$mnt"
	mount /dev/rblk0n1 "$mnt"
	for ((i = 0; i < 16; i++)); do
		head -c $(( (RANDOM % 512 + 1) * 1024 )) /dev/urandom > "$mnt/file$i"
	done
	(cd "$mnt" && sha256sum file*) > /tmp/demo.sums
	df -h "$mnt" | tail -n 1
	umount "$mnt"
	echo 3 > /proc/sys/vm/drop_caches
	mount /dev/rblk0n1 "$mnt"
	(cd "$mnt" && sha256sum --quiet -c /tmp/demo.sums) || vm_fail "files differ after remount"
	echo "16 files, $(du -sk "$mnt" | cut -f1) KiB: checksums match after umount/mount"
	umount "$mnt"
	e2fsck -fn /dev/rblk0n1 > /dev/null || vm_fail "e2fsck -fn /dev/rblk0n1 found problems"
	echo "e2fsck -fn: clean"

	step "fio io_uring: rblk vs the kernel's nvme-rdma, same target, alternating"
	"$src/tests/bench/vs_nvme_rdma.sh" --nqn "$nqn" --rblk-slab "$before $after" \
		--runtime "$runtime" --rounds "$rounds" --mode interrupt --sides rblk,nvme-rdma \
		--jobs 4k-randread-qd1,4k-randread-qd32,128k-seqread-qd8

	step "rblkctl disconnect rblk0; rmmod rblk"
	"$RBLKCTL" disconnect rblk0
	vm_rblk_unload
	vm_dmesg_clean
	echo "demo done"
}

if [ "${1:-}" = --in-vm ]; then
	in_vm "$2" "$3"
	exit 0
fi

# --- on the host ------------------------------------------------------------------
build=build deps=${RBLK_SKIP_DEPS:-0} runtime=3 rounds=2 kernel=()
while [ $# -gt 0 ]; do
	case $1 in
	--build-dir) build=$2; shift 2 ;;
	--kernel) kernel=(--kernel "$2"); shift 2 ;;
	--no-deps) deps=1; shift ;;
	--runtime) runtime=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "demo: unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
done
cd "$src"
start=$(date +%s)
[ "$deps" = 1 ] || ci/install-deps.sh
cmake -S . -B "$build" > /dev/null
# Only what the VM runs: the module and the CLI.
cmake --build "$build" -j "$(nproc)" --target rblk_kmod rblkctl
echo "demo: dependencies and build took $(( $(date +%s) - start ))s"

# Stream the VM's output while it runs (run-in-vm.sh prints it at the end).
build=$(realpath "$build")
# The benchmark's plot: matplotlib's font cache, built here in a second
# (in the VM it takes minutes), where the benchmark looks for it.
MPLCONFIGDIR=$build/mpl /usr/bin/python3 -c 'import matplotlib.pyplot' 2> /dev/null || true
log=$build/vm-out/demo/output.log
rm -f "$log"
tail -n +1 -F "$log" 2> /dev/null &
tail_pid=$!
rc=0
tests/vm/run-in-vm.sh --build-dir "$build" "${kernel[@]}" --timeout 900 --name demo \
	ci/demo.sh --in-vm "$runtime" "$rounds" > /dev/null || rc=$?
sleep 1
kill "$tail_pid" 2> /dev/null || true
wait "$tail_pid" 2> /dev/null || true
echo "demo: exit $rc, total $(( $(date +%s) - start ))s"
exit "$rc"
