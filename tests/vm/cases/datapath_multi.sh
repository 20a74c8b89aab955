#!/bin/bash
# Several disks at once: two namespaces on one controller (512-byte and
# 4 KiB blocks, each disk on its own backing store), two controllers of two
# subsystems doing I/O together; a disconnect during QD32 I/O fails that
# I/O promptly and leaves the other controller alone; rmmod with live
# controllers removes them all, and the module comes back.
# vm-timeout: 600
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
vm_require "$RBLKCTL"

nqn_a=nqn.2024-01.io.rblk:multi-a nqn_b=nqn.2024-01.io.rblk:multi-b
mib=$((1 << 20))
vm_setup_rxe
d1=$(vm_membacked_disk 1 64 512)
d5=$(vm_membacked_disk 1 96 4096)
vm_nvmet_subsys "$nqn_a" "$d1" 1
vm_nvmet_subsys "$nqn_a" "$d5" 5
vm_nvmet_port 1 10.99.0.1 4420
vm_nvmet_link 1 "$nqn_a"
db=$(vm_rdma_target "$nqn_b" 48)
vm_rblk_load

# --- two namespaces on one controller --------------------------------------
out=$(vm_rblk_connect "$nqn_a")
vm_assert_eq $'rblk0\n/dev/rblk0n1\n/dev/rblk0n5' "$out" "connect to $nqn_a"
vm_assert_eq $((64 * mib)) "$(blockdev --getsize64 /dev/rblk0n1)" "size of rblk0n1"
vm_assert_eq $((96 * mib)) "$(blockdev --getsize64 /dev/rblk0n5)" "size of rblk0n5"
vm_assert_eq 512 "$(blockdev --getss /dev/rblk0n1)" "logical block size of rblk0n1"
vm_assert_eq 4096 "$(blockdev --getss /dev/rblk0n5)" "logical block size of rblk0n5"
vm_assert_eq 5 "$(cat /sys/block/rblk0n5/nsid)" "nsid of rblk0n5"
vm_assert_ne "$(cat /sys/block/rblk0n1/wwid)" "$(cat /sys/block/rblk0n5/wwid)" "wwids of the two namespaces"

# Each disk's data lands on its own backing store, nowhere else.
for f in a1 a5 b1; do head -c 4M /dev/urandom > "/tmp/$f"; done
sum() { sha256sum < "$1" | cut -d' ' -f1; }
vm_put /tmp/a1 /dev/rblk0n1 0
vm_put /tmp/a5 /dev/rblk0n5 0
vm_assert_eq "$(sum /tmp/a1)" "$(vm_sum /dev/rblk0n1 0 $((4 * mib)))" "rblk0n1 reads back"
vm_assert_eq "$(sum /tmp/a5)" "$(vm_sum /dev/rblk0n5 0 $((4 * mib)))" "rblk0n5 reads back"
vm_assert_eq "$(sum /tmp/a1)" "$(vm_sum "$d1" 0 $((4 * mib)))" "rblk0n1's data on $d1"
vm_assert_eq "$(sum /tmp/a5)" "$(vm_sum "$d5" 0 $((4 * mib)))" "rblk0n5's data on $d5"
# A 4 KiB-block namespace refuses what is not a multiple of 4 KiB.
vm_assert_fails dd if=/tmp/a5 of=/dev/rblk0n5 bs=512 count=1 oflag=direct status=none

# --- two controllers at once ---------------------------------------------------
out=$(vm_rblk_connect "$nqn_b")
vm_assert_eq $'rblk1\n/dev/rblk1n1' "$out" "connect to $nqn_b"
vm_put /tmp/b1 /dev/rblk1n1 0
vm_assert_eq "$(sum /tmp/b1)" "$(vm_sum "$db" 0 $((4 * mib)))" "rblk1n1's data on $db"
vm_assert_eq "$(sum /tmp/a1)" "$(vm_sum /dev/rblk0n1 0 $((4 * mib)))" "rblk0n1 after writing rblk1n1"
# One fio, a job per disk of both controllers, verifying.
vm_fio /tmp/both.json --ioengine=io_uring --direct=1 --rw=randwrite --bs=4k --iodepth=16 \
	--size=4M --offset=8M --verify=crc32c --do_verify=1 --verify_fatal=1 \
	--name=a1 --filename=/dev/rblk0n1 --name=a5 --filename=/dev/rblk0n5 \
	--name=b1 --filename=/dev/rblk1n1
json=$("$RBLKCTL" list --json)
JSON=$json python3 - "$nqn_a" "$nqn_b" <<'PY' || vm_fail "rblkctl list --json: $json"
import json, os, sys
c = {x["name"]: x for x in json.loads(os.environ["JSON"])["controllers"]}
assert sorted(c) == ["rblk0", "rblk1"], sorted(c)
assert c["rblk0"]["subnqn"] == sys.argv[1] and c["rblk1"]["subnqn"] == sys.argv[2]
assert [(n["nsid"], n["device"], n["lba_size"]) for n in c["rblk0"]["namespaces"]] == \
    [(1, "/dev/rblk0n1", 512), (5, "/dev/rblk0n5", 4096)], c["rblk0"]["namespaces"]
assert all(x["state"] == "live" for x in c.values())
PY

# --- disconnect during QD32 I/O ---------------------------------------------------
reads() { cat /sys/class/rblk/rblk1/reads; }
reads_over() { [ "$(reads)" -gt "$1" ]; }
r0=$(reads)
timeout -k 5 120 fio --name=bg --filename=/dev/rblk1n1 --ioengine=io_uring --direct=1 \
	--rw=randrw --bs=4k --iodepth=32 --runtime=100 --time_based \
	--output-format=json --output=/tmp/bg.json 2> /tmp/bg.err &
fio_pid=$!
# Under way: fio itself has done some reads.
vm_wait_for 30 reads_over $((r0 + 200))
t0=$EPOCHSECONDS
out=$(timeout 30 "$RBLKCTL" disconnect rblk1 2>&1) || vm_fail "disconnect rblk1 under I/O failed or hung: $out"
t1=$EPOCHSECONDS
rc=0
wait "$fio_pid" || rc=$?
t2=$EPOCHSECONDS
vm_log "disconnect under QD32 took $((t1 - t0))s, fio ended $((t2 - t1))s later (exit $rc)," \
	"its errors:"$'\n'"$(sed -n 's/.*error on file [^:]*: \([^:]*\):.*/\1/p' /tmp/bg.err | sort | uniq -c)"
case $rc in
0) vm_fail "fio succeeded although its disk was removed under it" ;;
124 | 137) vm_fail "fio hung after the disconnect" ;;
esac
[ $((t2 - t0)) -le 30 ] || vm_fail "fio took $((t2 - t0))s to see the disconnect"
vm_assert_not_exists /dev/rblk1n1
vm_assert_not_exists /sys/class/rblk/rblk1
# The other controller did not notice.
vm_assert_eq live "$(cat /sys/class/rblk/rblk0/state)" "rblk0 after rblk1's disconnect"
vm_assert_eq "$(sum /tmp/a1)" "$(vm_sum /dev/rblk0n1 0 $((4 * mib)))" "rblk0n1 after rblk1's disconnect"
vm_assert_eq 0 "$(cat /sys/class/rblk/rblk0/errors)" "rblk0's errors"

# --- rmmod with live controllers ---------------------------------------------------
vm_rblk_connect "$nqn_b" > /dev/null
vm_assert_eq 3 "$(vm_rblk_disks | wc -l)" "disks before rmmod"
t0=$EPOCHSECONDS
timeout 60 rmmod rblk || vm_fail "rmmod rblk with two live controllers failed or hung"
vm_log "rmmod with 2 live controllers took $(( $EPOCHSECONDS - t0 ))s"
vm_assert_not_exists /sys/module/rblk
vm_assert_eq "" "$(vm_rblk_disks)" "disks after rmmod"
vm_assert_not_exists /sys/class/rblk
vm_assert_eq "" "$(find /sys/block -name 'rblk*')" "block devices after rmmod"

# And back: the data outlived the module.
vm_modprobe rblk
vm_rblk_connect "$nqn_a" > /dev/null
vm_assert_eq "$(sum /tmp/a5)" "$(vm_sum /dev/rblk0n5 0 $((4 * mib)))" "rblk0n5 after rmmod and modprobe"
"$RBLKCTL" disconnect --all > /dev/null || vm_fail "rblkctl disconnect --all failed"
vm_rblk_unload
vm_dmesg_clean
