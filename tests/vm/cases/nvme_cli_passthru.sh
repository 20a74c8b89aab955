#!/bin/bash
# nvme-cli on rblk devices: the controller's character device /dev/rblk0
# and the disk /dev/rblk0n1 answer the Linux NVMe ioctls. id-ctrl, id-ns,
# smart-log and error-log show what they show on the kernel's nvme-rdma
# controller for the same nvmet subsystem; get-log and admin-passthru
# return the same bytes; io-passthru reads back what the block device
# wrote, and nvme write (SUBMIT_IO) writes what the block device reads.
# fio's io_uring_cmd engine writes and verifies through the character
# device (NVME_URING_CMD_IO), and the block device reads what it wrote.
# An unprivileged user gets EACCES; bad lengths and buffers get errors
# (rblk_ioctl_fuzz, root and unprivileged); nvme reset brings the
# controller back live with I/O working.
# vm-timeout: 600
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
FUZZ=$RBLK_BUILD_DIR/tests/tools/rblk_ioctl_fuzz
vm_require "$RBLKCTL" "$FUZZ"

nqn=nqn.2024-01.io.rblk:passthru
vm_rdma_target "$nqn" 64 > /dev/null
vm_rblk_load
out=$(vm_rblk_connect "$nqn" -i 1 -Q 32)
vm_assert_eq $'rblk0\n/dev/rblk0n1' "$out" "rblkctl connect"
ctrl=/dev/rblk0 ns=/dev/rblk0n1
[ -c "$ctrl" ] || vm_fail "$ctrl is not a character device"
vm_assert_eq "$(cat /sys/class/rblk/rblk0/dev)" "$(stat -c '%Hr:%Lr' "$ctrl")" "dev_t of $ctrl"

# The kernel's controller for the same subsystem.
ref_ns=$(vm_nvme_ref_connect "$nqn")
ref=
for c in /sys/class/nvme/nvme*; do
	[ "$(cat "$c/subsysnqn")" = "$nqn" ] && ref=/dev/$(basename "$c")
done
[ -c "$ref" ] || vm_fail "no nvme-rdma controller device for $nqn"
vm_log "reference: $ref, $ref_ns"

# same_fields WHAT KEYS CMD...: the JSON of `nvme CMD -o json` on rblk and on
# the reference (@R is replaced by the device) agree on KEYS ("*": the same
# keys, whatever their values).
same_fields() {
	local what=$1 keys=$2 a b
	shift 2
	a=$(nvme "${@//@R/$R_RBLK}" -o json) || vm_fail "nvme $* on rblk failed"
	b=$(nvme "${@//@R/$R_REF}" -o json) || vm_fail "nvme $* on nvme-rdma failed"
	A=$a B=$b python3 - "$keys" "$what" <<'PY' || vm_fail "$what differs: rblk $a, nvme-rdma $b"
import json, os, sys
keys, what = sys.argv[1].split(), sys.argv[2]
a, b = json.loads(os.environ["A"]), json.loads(os.environ["B"])
if "errors" in a:
    a, b = a["errors"], b["errors"]
    assert len(a) == len(b), (len(a), len(b))
    a, b = (a[0] if a else {}), (b[0] if b else {})
if keys == ["*"]:
    # Each controller logs its own errors: the same fields, not values.
    assert set(a) == set(b), (sorted(a), sorted(b))
    keys = []
bad = [(k, a.get(k), b.get(k)) for k in keys if a.get(k) != b.get(k)]
assert not bad, bad
print(what, "agrees on", " ".join(keys), file=sys.stderr)
PY
}
R_RBLK=$ctrl R_REF=$ref same_fields id-ctrl "sn mn fr nn subnqn ver mdts oncs sgls" id-ctrl @R
R_RBLK=$ns R_REF=$ref_ns same_fields id-ns "nsze ncap nuse flbas nlbaf nguid eui64" id-ns @R
R_RBLK=$ctrl R_REF=$ref same_fields smart-log "critical_warning avail_spare spare_thresh percent_used" smart-log @R
R_RBLK=$ctrl R_REF=$ref same_fields "error-log keys" "*" error-log @R
R_RBLK=$ns R_REF=$ref_ns same_fields "id-ctrl on the disk" "sn mn subnqn" id-ctrl @R
vm_assert_eq 1 "$(nvme get-ns-id "$ns" | awk -F: '{ print $NF }' | tr -d ' ')" "nvme get-ns-id $ns"

# Same bytes: the Commands Supported and Effects log, Identify's serial and subnqn.
nvme get-log "$ctrl" --log-id=5 --log-len=4096 -b > /tmp/effects.rblk || vm_fail "get-log 5 on rblk"
nvme get-log "$ref" --log-id=5 --log-len=4096 -b > /tmp/effects.ref || vm_fail "get-log 5 on nvme-rdma"
vm_assert_eq 4096 "$(stat -c %s /tmp/effects.rblk)" "get-log 5 size"
cmp /tmp/effects.rblk /tmp/effects.ref || vm_fail "Commands Supported and Effects log differs"
idpart() { nvme admin-passthru "$1" --opcode=0x06 --cdw10=1 --data-len=4096 -r -b |
	python3 -c 'import sys; d = sys.stdin.buffer.read(); assert len(d) == 4096, len(d); print(d[4:24].hex(), d[768:1024].rstrip(b"\0").decode())'; }
vm_assert_eq "$(idpart "$ref")" "$(idpart "$ctrl")" "admin-passthru Identify: serial and subnqn"
# A large log through the admin queue: the error log is 8 KiB on nvmet.
nvme get-log "$ctrl" --log-id=1 --log-len=8192 -b > /tmp/errlog || vm_fail "get-log 1 (8 KiB) on rblk"
vm_assert_eq 8192 "$(stat -c %s /tmp/errlog)" "error log size"
vm_nvme_ref_disconnect "$nqn"

# io-passthru reads what the block device wrote; nvme write (SUBMIT_IO)
# writes what the block device reads.
head -c 8192 /dev/urandom > /tmp/blk
vm_put /tmp/blk "$ns" $((100 * 512))
nvme io-passthru "$ns" --opcode=0x02 --namespace-id=1 --cdw10=100 --cdw12=15 \
	--data-len=8192 -r -b > /tmp/pt || vm_fail "nvme io-passthru read failed"
cmp /tmp/blk /tmp/pt || vm_fail "io-passthru read back other data than the block device wrote"
nvme read "$ns" --start-block=100 --block-count=15 --data-size=8192 --data=/tmp/rd > /dev/null ||
	vm_fail "nvme read failed"
cmp /tmp/blk /tmp/rd || vm_fail "nvme read (SUBMIT_IO) read back other data"
head -c 4096 /dev/urandom > /tmp/wr
nvme write "$ns" --start-block=300 --block-count=7 --data-size=4096 --data=/tmp/wr > /dev/null ||
	vm_fail "nvme write failed"
vm_assert_eq "$(sha256sum < /tmp/wr | cut -d' ' -f1)" "$(vm_sum "$ns" $((300 * 512)) 4096)" \
	"nvme write (SUBMIT_IO) read back through the block device"

# io_uring passthrough on the character device (fio's io_uring_cmd
# engine): written and verified through NVME_URING_CMD_IO, plain and
# vectored, then verified again through the block device. IOPOLL rings
# are refused.
for nv in 1 0; do
	vm_fio /tmp/uring.json --name=uring --ioengine=io_uring_cmd --cmd_type=nvme \
		--filename="$ctrl" --nonvectored=$nv --rw=randwrite --bs=4k --offset=$((8 << 20)) \
		--size=1M --iodepth=8 --verify=crc32c --do_verify=1 --verify_fatal=1
done
vm_fio /tmp/uring.json --name=uring --ioengine=io_uring --direct=1 --filename="$ns" \
	--rw=randwrite --bs=4k --offset=$((8 << 20)) --size=1M --iodepth=8 --verify=crc32c \
	--verify_only=1 --verify_fatal=1
rc=0
out=$(fio --name=iopoll --ioengine=io_uring_cmd --cmd_type=nvme --filename="$ctrl" --hipri=1 \
	--rw=randread --bs=4k --size=64k 2>&1) || rc=$?
vm_assert_ne 0 "$rc" "fio io_uring_cmd on an IOPOLL ring"
vm_assert_contains "$out" "Operation not supported" "fio io_uring_cmd on an IOPOLL ring"

# Errors before the target: a length beyond the limit, metadata, a foreign nsid.
rc=0
out=$(nvme admin-passthru "$ctrl" --opcode=0x02 --cdw10=0x7fff0001 --data-len=$((64 << 20)) -r 2>&1) || rc=$?
vm_assert_ne 0 "$rc" "admin-passthru of 64 MiB"
vm_assert_contains "$out" "Invalid argument" "admin-passthru of 64 MiB"
rc=0
out=$(nvme io-passthru "$ns" --opcode=0x02 --namespace-id=2 --data-len=512 -r 2>&1) || rc=$?
vm_assert_ne 0 "$rc" "io-passthru with another namespace's nsid"
vm_assert_contains "$out" "Invalid argument" "io-passthru with another namespace's nsid"

# Unprivileged: EACCES for every command, with the node open to all.
chmod 0666 "$ctrl" "$ns"
for args in "id-ctrl $ctrl" "id-ns $ns" "smart-log $ctrl" "reset $ctrl" "ns-rescan $ctrl"; do
	rc=0
	# shellcheck disable=SC2086 # word splitting intended
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups nvme $args 2>&1) || rc=$?
	vm_assert_ne 0 "$rc" "unprivileged nvme $args"
	# nvme-cli 2.3 names no errno for a failed ns-rescan.
	[[ $args == ns-rescan* ]] ||
		vm_assert_match 'Permission denied|Operation not permitted' "$out" "unprivileged nvme $args"
done

kb=$(cat /sys/block/rblk0n1/queue/max_hw_sectors_kb)
"$FUZZ" --ctrl "$ctrl" --ns "$ns" --nsid 1 --max-bytes $((kb << 10)) --seed 13 --count 1500 ||
	vm_fail "ioctl fuzz as root"
"$FUZZ" --ctrl "$ctrl" --ns "$ns" --nsid 1 --max-bytes $((kb << 10)) --seed 14 --count 500 --unprivileged ||
	vm_fail "ioctl fuzz unprivileged"
vm_wait_for 30 test "$(cat /sys/class/rblk/rblk0/state)" = live

# NVME_IOCTL_RESET: a new association, live again, I/O works.
before=$(cat /sys/class/rblk/rblk0/reconnects)
start=$(vm_now_ms)
nvme reset "$ctrl" || vm_fail "nvme reset $ctrl failed"
vm_log "nvme reset returned after $(vm_ms_since "$start") ms"
vm_assert_eq live "$(cat /sys/class/rblk/rblk0/state)" "state after nvme reset"
vm_assert_eq $((before + 1)) "$(cat /sys/class/rblk/rblk0/reconnects)" "reconnects after nvme reset"
vm_put /tmp/blk "$ns" $((200 * 512))
vm_assert_eq "$(sha256sum < /tmp/blk | cut -d' ' -f1)" "$(vm_sum "$ns" $((200 * 512)) 8192)" \
	"I/O after nvme reset"
nvme ns-rescan "$ctrl" || vm_fail "nvme ns-rescan failed"
nvme id-ctrl "$ctrl" > /dev/null || vm_fail "nvme id-ctrl after the reset"

# An fd kept open across the delete: ENODEV, and the last close frees it.
exec 9< "$ctrl"
"$RBLKCTL" disconnect rblk0 > /dev/null || vm_fail "rblkctl disconnect rblk0 failed"
vm_assert_not_exists "$ctrl"
rc=0
out=$(nvme id-ctrl /dev/fd/9 2>&1) || rc=$?
vm_assert_ne 0 "$rc" "nvme id-ctrl on an fd of a deleted controller"
exec 9<&-
vm_rblk_unload
vm_dmesg_clean
