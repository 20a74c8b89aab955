#!/bin/bash
# Real block devices through ublk: `rblkctl connect --path bypass` starts a
# detached server (rblkctl itself the NVMe-oF/RDMA initiator) that serves
# each active namespace (nsid 1, and nsid 3 with 4 KiB blocks) as
# /dev/ublkb0 and /dev/ublkb1 through the kernel's ublk driver, over the
# same I/O queues, each device as deep as its I/O queue. On 6.12: the user's errors (ublk not loaded, no RDMA
# device, wrong NQN, no listener) each one line and a non-zero exit; ext4
# made, mounted, files written, remounted, checksummed, e2fsck clean; fio's
# crc32c verify on both raw devices at once; data through ublk reads back
# identical through nvme-rdma and the other way round, and /dev/ublkb1's
# through nsid 3's own disk; list --json and show; the target's port removed and
# restored within fast_io_fail_tmo: the I/O held meanwhile completes;
# disconnect stops the server (the devices gone, the server exited, its
# state file removed); `--nsid 1` serves that namespace alone; its server
# SIGKILLed under fio verify on a mounted ext4: the driver holds the I/O,
# list says dead, the same connect takes /dev/ublkb0 back and fio ends
# clean, e2fsck clean; killed again and not restarted: a read waits, and
# disconnect fails it and deletes the device.
# On 6.1 (built without ublk): connect --path bypass refuses in one line.
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
vm_require "$RBLKCTL"

nqn=nqn.2024-01.io.rblk:ublk
t=10.99.0.1
run=/run/rblk/bypass

# refused MESSAGE ARGS...: rblkctl ARGS fails with exactly that line, and
# leaves no server or device behind.
refused() {
	local msg=$1 out rc=0 f left=""
	shift
	out=$(timeout 120 "$RBLKCTL" "$@" 2>&1 > /dev/null) || rc=$?
	vm_assert_ne 0 "$rc" "exit code of rblkctl $*"
	vm_assert_eq "rblkctl: $msg" "$out" "rblkctl $*"
	for f in "$run"/*; do
		if [ -e "$f" ] && [ "${f%.log}" = "$f" ]; then left+=" ${f##*/}"; fi
	done
	vm_assert_eq "" "$left" "state files after a refused connect"
	vm_assert_not_exists /dev/ublkb0
	vm_log "refused as expected: $out"
}

case $(uname -r) in
6.1.*)
	refused "this kernel has no ublk driver (CONFIG_BLK_DEV_UBLK): the bypass server needs it" \
		connect --path bypass -a "$t" -n "$nqn"
	exit 0
	;;
esac

start=$(vm_now_ms)
refused "the ublk driver is not loaded (modprobe ublk_drv): the bypass server needs it" \
	connect --path bypass -a "$t" -n "$nqn"
vm_modprobe ublk_drv
# A pair an earlier case of the boot left is removed first.
vm_no_rdma_device
refused "no RDMA device (load an RDMA driver and rdma_ucm, e.g. modprobe rdma_rxe rdma_ucm)" \
	connect --path bypass -a "$t" -n "$nqn"
vm_rdma_target "$nqn" 128 > /dev/null
# A second namespace, not numbered next, with another block size.
disk3=$(vm_membacked_disk 1 32 4096)
vm_nvmet_subsys "$nqn" "$disk3" 3
refused "Connect refused: subsystem NQN not found on the target" \
	connect --path bypass -a "$t" -n nqn.2024-01.io.rblk:no-such-subsystem
refused "connection rejected (no NVMe-oF listener at this address?)" \
	connect --path bypass -a "$t" -s 4421 -n "$nqn"


# --- connect: the server detached, the device ready ------------------------------
conn=(connect --path bypass -a "$t" -n "$nqn" -k 5 -c 1 -F 20 -l 60)
t0=$(vm_now_ms)
out=$("$RBLKCTL" "${conn[@]}" 2>&1) || vm_fail "rblkctl ${conn[*]} failed: $out"
vm_assert_eq $'bypass0\n/dev/ublkb0\n/dev/ublkb1' "$out" "rblkctl connect --path bypass"
vm_log "connect --path bypass: $(vm_ms_since "$t0") ms"
vm_assert_exists /dev/ublkb0
vm_assert_eq 134217728 "$(blockdev --getsize64 /dev/ublkb0)" "size of /dev/ublkb0"
vm_assert_eq 33554432 "$(blockdev --getsize64 /dev/ublkb1)" "size of /dev/ublkb1 (nsid 3)"
vm_assert_eq 4096 "$(blockdev --getss /dev/ublkb1)" "logical block size of /dev/ublkb1"
pid=$(vm_bypass_json pid)
[ -d "/proc/$pid" ] || vm_fail "the server (pid '$pid') is not running after connect"
vm_assert_eq live "$(vm_bypass_json state)" "state in list --json"
vm_assert_eq /dev/ublkb0 "$(vm_bypass_json namespaces.0.device)" "device in list --json"
vm_assert_eq 3 "$(vm_bypass_json namespaces.1.nsid)" "second namespace in list --json"
vm_assert_eq /dev/ublkb1 "$(vm_bypass_json namespaces.1.device)" "second device in list --json"
vm_assert_eq "$nqn" "$(vm_bypass_json subnqn)" "subnqn in list --json"
vm_assert_eq bypass "$(vm_bypass_json path)" "path in list --json"
# Each device as deep as its I/O queue: the server's own registered
# buffers hold its tags (the queue's 4 MiB pool capped them at 32).
qsize=$(vm_bypass_json queue_size)
for dev in ublkb0 ublkb1; do
	vm_assert_eq "$qsize" "$(cat "/sys/block/$dev/mq/0/nr_tags")" "tags of /dev/$dev's first queue (the I/O queue's size)"
done
vm_log "ublk devices' depth: $qsize (the I/O queue size)"
vm_assert_match "^bypass0 +live +- +rdma +$t +4420 .*$nqn +/dev/ublkb0,/dev/ublkb1 " "$("$RBLKCTL" list)" \
	"rblkctl list"
vm_assert_match '^state: +live$' "$("$RBLKCTL" show bypass0)" "rblkctl show bypass0"
vm_assert_match '^3 +/dev/ublkb1 +33554432 +4096$' "$("$RBLKCTL" show ublkb1)" "rblkctl show ublkb1"

# --- a file system ------------------------------------------------------------
mkfs.ext4 -q -F /dev/ublkb0 || vm_fail "mkfs.ext4 /dev/ublkb0 failed"
mkdir -p /tmp/mnt
mount /dev/ublkb0 /tmp/mnt || vm_fail "mount /dev/ublkb0 failed"
for i in 1 2 3; do
	head -c $((i << 20)) /dev/urandom > "/tmp/f$i"
	cp "/tmp/f$i" "/tmp/mnt/f$i"
done
mkdir /tmp/mnt/dir && echo hello > /tmp/mnt/dir/small
umount /tmp/mnt || vm_fail "umount failed"
mount /dev/ublkb0 /tmp/mnt || vm_fail "remount failed"
for i in 1 2 3; do
	vm_assert_eq "$(sha256sum < "/tmp/f$i")" "$(sha256sum < "/tmp/mnt/f$i")" "f$i after the remount"
done
vm_assert_eq hello "$(cat /tmp/mnt/dir/small)" "dir/small after the remount"
umount /tmp/mnt || vm_fail "umount failed"
out=$(e2fsck -fn /dev/ublkb0 2>&1) || vm_fail "e2fsck -fn /dev/ublkb0: $out"
vm_log "e2fsck: $(tail -1 <<< "$out")"

# --- fio verify on both raw devices at once (after the file system's blocks) ----------
vm_fio /tmp/fio.json --ioengine=io_uring --direct=1 --rw=randwrite --bs=4k --iodepth=16 --size=4M \
	--verify=crc32c --verify_fatal=1 --name=ns1 --filename=/dev/ublkb0 --offset=100M \
	--name=ns3 --filename=/dev/ublkb1 --offset=16M
vm_log "fio verify: $(python3 -c 'import json,sys
for j in json.load(open(sys.argv[1]))["jobs"]:
    print("%s %d writes, %d verify reads" % (j["jobname"], j["write"]["total_ios"], j["read"]["total_ios"]))' /tmp/fio.json)"

# --- nsid 3's data where nsid 3 keeps it, and not in nsid 1 ------------------------------
head -c $((1 << 20)) /dev/urandom > /tmp/n3
vm_put /tmp/n3 /dev/ublkb1 $((8 << 20))
vm_assert_eq "$(sha256sum < /tmp/n3 | cut -d' ' -f1)" "$(vm_sum "$disk3" $((8 << 20)) $((1 << 20)))" \
	"ublkb1 write, read from nsid 3's disk"
vm_assert_ne "$(sha256sum < /tmp/n3 | cut -d' ' -f1)" "$(vm_sum /dev/ublkb0 $((8 << 20)) $((1 << 20)))" \
	"ublkb1's write in nsid 1"
vm_put /tmp/n3 "$disk3" $((12 << 20))
vm_assert_eq "$(sha256sum < /tmp/n3 | cut -d' ' -f1)" "$(vm_sum /dev/ublkb1 $((12 << 20)) $((1 << 20)))" \
	"nsid 3's disk written, read by ublkb1"

# --- the same namespace through nvme-rdma ---------------------------------------------
head -c $((1 << 20)) /dev/urandom > /tmp/u1
head -c $((1 << 20)) /dev/urandom > /tmp/k1
vm_put /tmp/u1 /dev/ublkb0 $((110 << 20))
ref=$(vm_nvme_ref_connect "$nqn")
vm_assert_eq "$(sha256sum < /tmp/u1 | cut -d' ' -f1)" "$(vm_sum "$ref" $((110 << 20)) $((1 << 20)))" \
	"ublk write, read by nvme-rdma"
vm_put /tmp/k1 "$ref" $((112 << 20))
vm_assert_eq "$(sha256sum < /tmp/k1 | cut -d' ' -f1)" "$(vm_sum /dev/ublkb0 $((112 << 20)) $((1 << 20)))" \
	"nvme-rdma write, read by ublk"
vm_nvme_ref_disconnect "$nqn"

# --- the port removed and restored: the I/O held, then done ----------------------------
head -c $((1 << 20)) /dev/urandom > /tmp/u2
vm_nvmet_unlink 1 "$nqn"
t0=$(vm_now_ms)
timeout 60 dd if=/tmp/u2 of=/dev/ublkb0 bs=256k oflag=direct,seek_bytes seek=$((116 << 20)) \
	conv=notrunc,fsync status=none &
dd_pid=$!
vm_wait_for 30 vm_bypass_state_is reconnecting
vm_log "reconnecting after $(vm_ms_since "$t0") ms: $(vm_bypass_json reason)"
vm_sleep 3
[ -d "/proc/$dd_pid" ] || vm_fail "the write finished while the target was away"
vm_nvmet_link 1 "$nqn"
rc=0
wait "$dd_pid" || rc=$?
vm_assert_eq 0 "$rc" "the write held across the reconnect"
vm_log "write done $(vm_ms_since "$t0") ms after the port went"
vm_wait_for 30 vm_bypass_state_is live
vm_assert_eq "$(sha256sum < /tmp/u2 | cut -d' ' -f1)" "$(vm_sum /dev/ublkb0 $((116 << 20)) $((1 << 20)))" \
	"the write held across the reconnect, read back"

# --- disconnect: the device gone, the server exited --------------------------------------
t0=$(vm_now_ms)
out=$("$RBLKCTL" disconnect bypass0 2>&1) || vm_fail "rblkctl disconnect bypass0 failed: $out"
vm_assert_eq bypass0 "$out" "rblkctl disconnect bypass0"
vm_log "disconnect: $(vm_ms_since "$t0") ms"
vm_assert_not_exists /dev/ublkb0
vm_assert_not_exists /dev/ublkb1
vm_assert_not_exists "$run/bypass0.json"
# Gone, or a zombie that init has yet to reap (and may reap meanwhile).
st=$(awk '{print $3}' "/proc/$pid/stat" 2> /dev/null || true)
[ -z "$st" ] || [ "$st" = Z ] || vm_fail "the server (pid $pid) still runs after disconnect ($st)"
vm_assert_eq "" "$(vm_bypass_json name)" "list --json after disconnect"
vm_assert_contains "$(cat "$run/bypass0.log")" "bypass0: stopped" "the server's log"

# --- one namespace asked for; the server killed under fio verify on ext4 -------------------
# The driver holds the I/O (user recovery); the same connect takes the
# device back, the I/O goes on, verify and fsck are clean.
out=$("$RBLKCTL" "${conn[@]}" --nsid 1 2>&1) || vm_fail "rblkctl ${conn[*]} --nsid 1 failed: $out"
vm_assert_eq $'bypass0\n/dev/ublkb0' "$out" "rblkctl connect --path bypass --nsid 1"
vm_assert_not_exists /dev/ublkb1
vm_assert_eq 134217728 "$(blockdev --getsize64 /dev/ublkb0)" "size of /dev/ublkb0 (--nsid 1)"
pid=$(vm_bypass_json pid)
mkfs.ext4 -q -F /dev/ublkb0 || vm_fail "mkfs.ext4 /dev/ublkb0 (--nsid 1) failed"
mount /dev/ublkb0 /tmp/mnt || vm_fail "mount /dev/ublkb0 (--nsid 1) failed"
timeout 300 fio --name=killed --filename=/tmp/mnt/f --size=24M --ioengine=io_uring --direct=1 \
	--rw=randwrite --bs=4k --iodepth=16 --verify=crc32c --verify_fatal=1 --output-format=json \
	--output=/tmp/fio-kill.json > /tmp/fio-kill.err 2>&1 &
fio_pid=$!
written() { [ "$(awk '{print $7}' /sys/block/ublkb0/stat)" -ge "$1" ]; }  # sectors written
vm_wait_for 60 written 8192
t0=$(vm_now_ms)
kill -KILL "$pid"
vm_wait_for 10 vm_bypass_state_is dead
vm_sleep 2
kill -0 "$fio_pid" 2> /dev/null || vm_fail "fio ended while the server was dead: $(cat /tmp/fio-kill.err)"
out=$("$RBLKCTL" "${conn[@]}" --nsid 1 2>&1) || vm_fail "the server's restart failed: $out"
vm_assert_eq $'bypass0\n/dev/ublkb0' "$out" "the restarted server's devices"
vm_log "device taken back $(vm_ms_since "$t0") ms after the kill"
vm_assert_contains "$(cat "$run/bypass0.log")" "taking back /dev/ublkb0 from its server (pid $pid), which died" \
	"the restarted server's log"
vm_assert_eq live "$(vm_bypass_json state)" "state after the restart"
rc=0
wait "$fio_pid" || rc=$?
vm_assert_eq 0 "$rc" "fio's exit code across the kill and restart ($(tail -3 /tmp/fio-kill.err))"
vm_log "fio across the restart: $(python3 -c 'import json,sys
j = json.load(open(sys.argv[1]))["jobs"][0]
print("%d writes, %d verify reads, error %d" % (j["write"]["total_ios"], j["read"]["total_ios"], j["error"]))' /tmp/fio-kill.json)"
umount /tmp/mnt || vm_fail "umount after the restart failed"
e2fsck -fn /dev/ublkb0 > /tmp/fsck.out 2>&1 || vm_fail "e2fsck after the restart: $(tail -5 /tmp/fsck.out)"

# --- killed again, not restarted: the I/O waits; disconnect fails it, no hang ---------
pid=$(vm_bypass_json pid)
kill -KILL "$pid"
vm_wait_for 10 vm_bypass_state_is dead
timeout 60 dd if=/dev/ublkb0 of=/dev/null bs=4k count=1 iflag=direct status=none 2> /tmp/dd.err &
dd_pid=$!
vm_sleep 3
kill -0 "$dd_pid" 2> /dev/null || vm_fail "a read with the server dead did not wait: $(cat /tmp/dd.err)"
t0=$(vm_now_ms)
out=$("$RBLKCTL" disconnect bypass0 2>&1) || vm_fail "rblkctl disconnect bypass0 (dead) failed: $out"
vm_assert_eq bypass0 "$out" "rblkctl disconnect of the dead server"
rc=0
wait "$dd_pid" || rc=$?
[ "$rc" -ne 124 ] || vm_fail "the held read hung after disconnect (timeout)"
vm_assert_ne 0 "$rc" "the held read's exit code after disconnect"
vm_log "the held read failed $(vm_ms_since "$t0") ms after disconnect: $(head -1 /tmp/dd.err)"
vm_assert_not_exists /dev/ublkb0
vm_assert_not_exists /dev/ublkc0
vm_assert_eq "" "$(vm_bypass_json name)" "list --json after the dead server's disconnect"
vm_log "bypass_ublk: $(vm_ms_since "$start") ms"
vm_dmesg_clean
