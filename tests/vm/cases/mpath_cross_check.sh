#!/bin/bash
# rblk's multipath head and nvme-rdma's on the same two-port subsystem are
# one namespace: the same wwid, and data written through one reads back
# through the other, both ways.
# vm-timeout: 300
# mpath_failover, mpath_paths and mpath_all_down cover 6.1's multipath
# data path: newest kernel only, for the suite's time.
# vm-kernels: newest
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
. "$RBLK_SRC_DIR/tests/vm/lib-mpath.sh"
vm_require "$RBLKCTL"

nqn=nqn.2024-01.io.rblk:mp-cross
mib=$((1 << 20))
mp_target "$nqn" 64 > /dev/null
vm_rblk_load
mp_connect "$nqn" 1 > /dev/null
mp_connect "$nqn" 2 > /dev/null
dev=/dev/rblk0n1
ref=$(mp_nvme_connect "$nqn" 1)
vm_assert_eq "$ref" "$(mp_nvme_connect "$nqn" 2)" "nvme-rdma's head through port 2"
vm_assert_eq 2 "$(mp_nvme_paths "$nqn" | wc -l)" "nvme-rdma's paths"
vm_assert_eq "$(cat "/sys/block/${ref#/dev/}/wwid")" "$(cat /sys/block/rblk0n1/wwid)" "wwid of the two heads"

head -c 8M /dev/urandom > /tmp/a
vm_put /tmp/a "$dev" $((8 * mib))
vm_assert_eq "$(sha256sum < /tmp/a | cut -d' ' -f1)" "$(vm_sum "$ref" $((8 * mib)) $((8 * mib)))" \
	"written through rblk's head, read through nvme-rdma's"
head -c 8M /dev/urandom > /tmp/b
vm_put /tmp/b "$ref" $((24 * mib + 3 * 512))
vm_assert_eq "$(sha256sum < /tmp/b | cut -d' ' -f1)" "$(vm_sum "$dev" $((24 * mib + 3 * 512)) $((8 * mib)))" \
	"written through nvme-rdma's head, read through rblk's"
vm_nvme_ref_disconnect "$nqn"
"$RBLKCTL" disconnect --nqn "$nqn" > /dev/null || vm_fail "disconnect --nqn failed"
vm_wait_for 30 vm_rblk_none
