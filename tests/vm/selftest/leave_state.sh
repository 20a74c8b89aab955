#!/bin/bash
# Harness self-test of a shared boot: leave behind everything a failing
# case might (soft-RoCE, an nvmet port and subsystem on null_blk, rblk with
# a live controller, a mounted file system on its disk, nvme-rdma
# connected, a background process, files in /tmp). group.sh must put the
# VM back, so that the cases after this one (reference.sh builds the same
# port and subsystem from nothing) pass.
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
vm_require "$RBLKCTL"
nqn=nqn.2024-01.io.rblk:leave-state

vm_rdma_target "$nqn" 32 > /dev/null
vm_rblk_load
vm_rblk_connect "$nqn" -i 1 -Q 16 > /dev/null
vm_assert_exists /dev/rblk0n1
vm_nvme_ref_connect "$nqn" > /dev/null
mkfs.ext4 -q /dev/rblk0n1 || vm_fail "mkfs.ext4 /dev/rblk0n1 failed"
mkdir -p /tmp/leave-state
mount /dev/rblk0n1 /tmp/leave-state || vm_fail "mount failed"
echo left > /tmp/leave-state/file
sleep 3600 &
setsid sleep 3600 < /dev/null > /dev/null 2>&1 &
vm_log "leaving rblk, nvme-rdma, nvmet, null_blk, rxe, a mount and two sleeps behind"
exit 0
