#!/bin/bash
# Discard (DSM deallocate) and Write Zeroes, which nvmet advertises (ONCS):
# the ranges read back as zeros through rblk and through nvme-rdma, and
# the data around them is untouched; a multi-range DSM through SG_IO
# UNMAP; flush (fio --fsync=1 counts a flush per write) and FUA writes
# (dd oflag=direct,sync) succeed and land.
# The backing null_blk frees discarded blocks, so they read as zeros: the
# target's DLFEAT promises nothing, the memory-backed disk does.
# A busy host stretches it to ~350 s (measured): the budget allows that.
# vm-timeout: 900
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
vm_require "$RBLKCTL"

nqn=nqn.2024-01.io.rblk:discard
mib=$((1 << 20))
disk=$(vm_rdma_target "$nqn" 64)
vm_assert_ne 0 "$(cat "/sys/block/$(basename "$disk")/queue/discard_max_bytes")" \
	"discard on the backing null_blk"
vm_rblk_load
vm_rblk_connect "$nqn" > /dev/null
dev=/dev/rblk0n1 q=/sys/block/rblk0n1/queue
ref=$(vm_nvme_ref_connect "$nqn")

# What the target advertises, as nvme-cli reads it through nvme-rdma.
id=$(nvme id-ctrl "$ref")
oncs=$(awk '$1 == "oncs" { print $3 }' <<< "$id")
vwc=$(awk '$1 == "vwc" { print $3 }' <<< "$id")
(( oncs & 0x4 )) || vm_fail "nvmet does not advertise DSM (ONCS $oncs)"
(( oncs & 0x8 )) || vm_fail "nvmet does not advertise Write Zeroes (ONCS $oncs)"
(( vwc & 0x1 )) || vm_fail "nvmet does not advertise a volatile write cache (VWC $vwc)"
# ... and what rblk made of it.
[ "$(cat "$q/discard_max_bytes")" -gt 0 ] || vm_fail "rblk: discard_max_bytes is 0"
[ "$(cat "$q/max_discard_segments")" -gt 1 ] || vm_fail "rblk: a DSM carries one range only"
[ "$(cat "$q/write_zeroes_max_bytes")" -gt 0 ] || vm_fail "rblk: write_zeroes_max_bytes is 0"
vm_assert_eq "write back" "$(cat "$q/write_cache")" "rblk: write_cache"
vm_assert_eq 1 "$(cat "$q/fua")" "rblk: fua"

# expect PATTERN OUT OFF:LEN...: PATTERN with those byte ranges zeroed.
expect() {
	python3 - "$@" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
for r in sys.argv[3:]:
    off, n = map(int, r.split(":"))
    data[off:off + n] = bytes(n)
open(sys.argv[2], "wb").write(data)
PY
}

# check WHAT BASE LEN FILE: the device region reads as FILE on both paths.
check() {
	local want
	want=$(sha256sum < "$4" | cut -d' ' -f1)
	vm_assert_eq "$want" "$(vm_sum "$dev" "$2" "$3")" "$1, read through rblk"
	vm_assert_eq "$want" "$(vm_sum "$ref" "$2" "$3")" "$1, read through nvme-rdma"
	vm_log "$1: ok"
}

len=$((8 * mib))
head -c "$len" /dev/urandom > /tmp/p

# Discard 2-6 MiB of 0-8 MiB.
vm_put /tmp/p "$dev" 0
blkdiscard -o $((2 * mib)) -l $((4 * mib)) "$dev" || vm_fail "blkdiscard on $dev failed"
expect /tmp/p /tmp/e "$((2 * mib)):$((4 * mib))"
check "discard" 0 "$len" /tmp/e

# Write Zeroes: 1 MiB at 9 MiB (blkdiscard -z), and 3.5 KiB at an offset
# 512-byte but not 4k aligned (fallocate --punch-hole: on a block device
# that is Write Zeroes or EOPNOTSUPP, never the fallback of writing zeros).
base=$((8 * mib))
vm_put /tmp/p "$dev" "$base"
blkdiscard -z -o $((base + mib)) -l "$mib" "$dev" || vm_fail "blkdiscard -z on $dev failed"
fallocate --punch-hole --keep-size -o $((base + 3 * mib + 1536)) -l 3584 "$dev" ||
	vm_fail "fallocate --punch-hole (Write Zeroes, 3.5 KiB) on $dev failed"
expect /tmp/p /tmp/e "$mib:$mib" "$((3 * mib + 1536)):3584"
check "write zeroes" "$base" "$len" /tmp/e

# Several ranges in one DSM: one SCSI UNMAP through SG_IO with five
# descriptors, which rblk turns into one Dataset Management command.
base=$((16 * mib))
vm_put /tmp/p "$dev" "$base"
lbas=() nums=() zeroed=()
for i in 0 3 5 9 12; do
	lbas+=($(( (base + i * 512 * 1024) / 512 )))
	nums+=($(( (i + 1) * 64 )))
	zeroed+=("$((i * 512 * 1024)):$(( (i + 1) * 64 * 512 ))")
done
sg_unmap --force --lba="$(IFS=,; echo "${lbas[*]}")" --num="$(IFS=,; echo "${nums[*]}")" "$dev" ||
	vm_fail "sg_unmap (SG_IO UNMAP, ${#lbas[@]} descriptors) on $dev failed"
expect /tmp/p /tmp/e "${zeroed[@]}"
check "UNMAP with ${#lbas[@]} ranges" "$base" "$len" /tmp/e

# Flush: fsync after each write; the disk's stat counts the flushes.
flushes() { awk '{ print $16 }' /sys/block/rblk0n1/stat; }
f0=$(flushes)
base=$((24 * mib))
vm_fio /tmp/fsync.json --name=fsync --filename="$dev" --ioengine=io_uring --direct=1 \
	--rw=write --bs=4k --size=512k --offset="$base" --fsync=1 --iodepth=1 \
	--verify=crc32c --do_verify=1
f1=$(flushes)
syncs=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["jobs"][0]["sync"]["total_ios"])' \
	/tmp/fsync.json)
[ "$syncs" -ge 127 ] || vm_fail "fio --fsync=1 made $syncs fsyncs for 128 writes"
[ $((f1 - f0)) -ge "$syncs" ] || vm_fail "$syncs fsyncs sent $((f1 - f0)) flushes"
vm_log "fio --fsync=1: 128 writes, $syncs fsyncs, $((f1 - f0)) flushes"
vm_assert_eq "$(vm_sum "$dev" "$base" $((512 * 1024)))" "$(vm_sum "$ref" "$base" $((512 * 1024)))" \
	"the fsync'ed writes, through rblk and through nvme-rdma"

# FUA: O_DIRECT|O_SYNC writes go out with FUA set (no flush after them).
base=$((32 * mib))
dd if=/tmp/p of="$dev" bs=64k count=32 seek=$((base / 65536)) oflag=direct,sync status=none ||
	vm_fail "dd oflag=direct,sync to $dev failed"
head -c $((2 * mib)) /tmp/p > /tmp/e
check "dd oflag=direct,sync" "$base" $((2 * mib)) /tmp/e

vm_assert_eq 0 "$(cat /sys/class/rblk/rblk0/errors)" "controller errors"
vm_nvme_ref_disconnect "$nqn"
"$RBLKCTL" disconnect rblk0 > /dev/null || vm_fail "rblkctl disconnect rblk0 failed"
vm_rblk_unload
vm_dmesg_clean
