#!/bin/bash
# A rescan whose Identify Namespace is answered with success and no data
# must not make rblk act on what its buffer held before: the test target
# serves two namespaces (nsid 2: 8 MiB) and, after the connect's, answers
# every Identify Namespace of nsid 2 without data (--misbehave
# ns-id-no-data). Two rescans (nvme ns-rescan); the second one's Identify
# of nsid 2 arrives only once the first scan is over. nsid 2's disk must
# be the same disk (diskseq) with the same size: a buffer left as nsid 1's
# Identify data would give it nsid 1's 16 MiB. (issue 35 §3.5 g)
# The scan is the module's own code, the same on both kernels: newest only.
# vm-kernels: newest
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
# shellcheck source=SCRIPTDIR/../lib-target.sh
. "$RBLK_SRC_DIR/tests/vm/lib-target.sh"

tgt_start ns-id-no-data --namespaces 2 --after 1
out=$(tgt_connect_ok ns-id-no-data)
vm_assert_eq $'rblk0\n/dev/rblk0n1\n/dev/rblk0n2' "$out" "rblkctl connect output"
vm_assert_eq $((8 << 20)) "$(blockdev --getsize64 /dev/rblk0n2)" "nsid 2's size"
seq=$(cat /sys/block/rblk0n2/diskseq)
nvme ns-rescan /dev/rblk0 || vm_fail "nvme ns-rescan failed"
vm_wait_for 30 grep -q 'misbehave: ns-id-no-data: nsid 2 answered without data (#1)' "$TGT_LOG"
nvme ns-rescan /dev/rblk0 || vm_fail "the second nvme ns-rescan failed"
vm_wait_for 30 grep -q 'misbehave: ns-id-no-data: nsid 2 answered without data (#2)' "$TGT_LOG"
vm_assert_eq $'/dev/rblk0n1\n/dev/rblk0n2' "$(vm_rblk_disks)" "disks after the rescans"
vm_assert_eq "$seq" "$(cat /sys/block/rblk0n2/diskseq)" "nsid 2's disk (diskseq) after the rescans"
vm_assert_eq $((8 << 20)) "$(blockdev --getsize64 /dev/rblk0n2)" "nsid 2's size after the rescans"
vm_assert_eq $((16 << 20)) "$(blockdev --getsize64 /dev/rblk0n1)" "nsid 1's size after the rescans"
echo "RESULT: Identify Namespace of nsid 2 without data at 2 rescans: same disk, 8 MiB"
tgt_clean_slate ns-id-no-data
vm_rblk_unload
