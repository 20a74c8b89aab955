#!/bin/bash
# Harness self-test of lib.sh's target side: soft-RoCE, memory-backed disks,
# an nvmet RDMA target and the kernel's nvme-rdma initiator moving data.
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
nqn=nqn.2024-01.io.rblk:selftest

vm_setup_rxe
devs=$(vm_membacked_disk 2 64)
mapfile -t disks <<< "$devs"
d0=${disks[0]} d1=${disks[1]:-}
vm_assert_match '^/dev/(memdisk|nullb)[0-9]+$' "$d0" "first disk"
vm_assert_match '^/dev/(memdisk|nullb)[0-9]+$' "$d1" "second disk"
vm_assert_eq $((64 << 20)) "$(blockdev --getsize64 "$d1")" "disk size"

vm_nvmet_subsys "$nqn" "$d0"
vm_nvmet_port 1 10.99.0.1 4420
vm_nvmet_link 1 "$nqn"
dev=$(vm_nvme_ref_connect "$nqn")
vm_log "reference initiator: $dev"

# Data written through nvme-rdma lands on the memory-backed disk.
head -c 1M /dev/urandom > /tmp/pattern
dd if=/tmp/pattern of="$dev" bs=64k oflag=direct status=none
vm_assert_eq "$(sha256sum < /tmp/pattern)" \
	"$(head -c 1M "$d0" | sha256sum)" "data on the backing disk"

vm_nvme_ref_disconnect "$nqn"
vm_wait_for 10 test ! -e "$dev"
vm_nvmet_teardown
vm_assert_eq "" "$(ls /sys/kernel/config/nvmet/subsystems)" "subsystems left"
vm_dmesg_clean
vm_log "reference path ok"
