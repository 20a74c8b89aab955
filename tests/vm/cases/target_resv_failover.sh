#!/bin/bash
# A reservation held across a failover (issue 33): host A reaches the test
# target's reservation-capable namespace (rblk_test_target --reservations
# --nguid, a port on 10.99.0.1 and one on 10.98.0.1) over two paths, rblk0
# through the first port and rblk1 through the second, one multipath
# head; host B through the second port only, a disk of its own. A
# registers and reserves Write Exclusive - Registrants Only through its
# head (sg_persist: SG_IO down a path). Under fio randrw with crc32c
# verify on A's head, the target removes the first port (as nvmet does
# when its subsystem link goes: the listener closed, the path's queues
# disconnected): the I/O moves to the other path without an error, and
# the reservation holds, because both of A's controllers carry A's Host
# ID: READ RESERVATION through the head names A's key, B's writes still
# conflict, the target saw one acquire. rblk0 keeps trying; once the port
# is restored it reconnects (a new association with A's Host ID), carries
# A's writes as the holder's (round-robin), and it all still holds.
# On the newest kernel only: the head's SG_IO and PR path runs on both in
# target_resv_fencing; this adds a failover under it.
# vm-kernels: newest
# vm-timeout: 480
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
# shellcheck source=SCRIPTDIR/../lib-target.sh
. "$RBLK_SRC_DIR/tests/vm/lib-target.sh"
# shellcheck source=SCRIPTDIR/../lib-mpath.sh
. "$RBLK_SRC_DIR/tests/vm/lib-mpath.sh"

command -v sg_persist > /dev/null || vm_fail "sg_persist (sg3-utils) missing"
mp_setup_fabric
down=/tmp/ports-down
TGT_ADDR="${MP_ADDR[1]} ${MP_ADDR[2]}" tgt_start none --reservations --size-mib 64 \
	--nguid 0123456789abcdef0123456789abcdef --uuid 01234567-89ab-cdef-0123-456789abcdef \
	--ports-down-file "$down"

# connect PORT HOSTNQN HOSTID: tgt_connect_as through that port, reconnecting
# every second for 5 minutes.
connect() { tgt_connect_as "${MP_ADDR[$1]}" "$2" "$3" --reconnect-delay 1 --ctrl-loss-tmo 300; }
vm_assert_eq "rblk0 /dev/rblk0n1" "$(connect 1 "$TGT_HOST_A" "$TGT_ID_A")" "A over path 1"
vm_assert_eq "rblk1 /dev/rblk0n1" "$(connect 2 "$TGT_HOST_A" "$TGT_ID_A")" "A over path 2"
read -r _ B < <(connect 2 "$TGT_HOST_B" "$TGT_ID_B")
A=/dev/rblk0n1
vm_assert_ne "$A" "$B" "B's disk"
# Round-robin: a path that comes back carries I/O at once.
"$RBLKCTL" set-iopolicy "$TGT_NQN" round-robin || vm_fail "set-iopolicy round-robin failed"
vm_assert_exists /sys/block/rblk0c0n1
vm_assert_exists /sys/block/rblk0c1n1

tgt_sg --out --register-ignore --param-sark=0xa "$A"
tgt_sg --out --reserve --param-rk=0xa --prout-type=5 "$A"
# held: A's head reports A's WE-RO reservation, B's writes conflict.
held() {
	tgt_sg -r "$A"
	vm_assert_contains "$(cat /tmp/sg.out)" "Key=0xa" "$1: READ RESERVATION through A's head"
	vm_assert_contains "$(cat /tmp/sg.out)" "Write Exclusive, registrants only" "$1: the type"
	local err
	err=$(head -c 4096 /dev/zero | dd of="$B" bs=4k seek=8192 oflag=direct conv=notrunc status=none 2>&1) &&
		vm_fail "$1: B could write"
	vm_assert_contains "$err" "Invalid exchange" "$1: B's write"
}
held "before the failover"

# A bound, not what the steps need (mp_fio_finish stops fio when they
# end): 40 s times VM_SLOW still ran out on the debug kernel.
runtime=$((150 * VM_SLOW))
mp_fio_start /tmp/failover.json "$A" "$runtime"
moved() { [ "$(mp_ctrl_io "$1")" -ge "$2" ]; }
vm_wait_for 60 moved rblk0 $(($(mp_ctrl_io rblk0) + 200))
t0=$(vm_now_ms)
echo "${MP_ADDR[1]}" > "$down"
vm_wait_for 60 moved rblk1 $(($(mp_ctrl_io rblk1) + 500))
echo "RESULT: port 1 removed under fio: A's I/O on path 2 after $(vm_ms_since "$t0") ms"
vm_assert_match "^port ${MP_ADDR[1]}:4420 removed: [1-9][0-9]* queues disconnected$" \
	"$(grep '^port .* removed' "$TGT_LOG")" "the target's port removal"
vm_assert_ne live "$(cat /sys/class/rblk/rblk0/state)" "rblk0 with its port removed"
held "port 1 removed"
# rblk0 reconnects once the port is back: a new association with A's Host
# ID, which the target must take for the same registrant.
admins=$(grep -c '^connect: qid 0 cntlid' "$TGT_LOG")
t1=$(vm_now_ms)
rm "$down"
live() { [ "$(cat /sys/class/rblk/rblk0/state)" = live ]; }
vm_wait_for 60 live
echo "RESULT: port 1 restored: rblk0 live again after $(vm_ms_since "$t1") ms"
vm_assert_eq $((admins + 1)) "$(grep -c '^connect: qid 0 cntlid' "$TGT_LOG")" "admin Connects after the port's return"
c1=rblk0
read -r w0 < "/sys/class/rblk/$c1/writes"
head -c 256K /dev/urandom > /tmp/blk
dd if=/tmp/blk of="$A" bs=4k seek=4096 oflag=direct conv=notrunc status=none ||
	vm_fail "A's writes with port 1 restored failed"
read -r w1 < "/sys/class/rblk/$c1/writes"
[ $((w1 - w0)) -ge 16 ] || vm_fail "$c1 carried $((w1 - w0)) of 64 writes"
cmp /tmp/blk <(dd if="$A" bs=4k skip=4096 count=64 iflag=direct status=none) ||
	vm_fail "A read back other data than it wrote"
held "port 1 restored"
mp_fio_finish /tmp/failover.json
held "after fio"
vm_assert_eq 1 "$(grep -c '^resv: cntlid [0-9]* acquire .* status 0 ' "$TGT_LOG" || true)" "acquires the target saw"
echo "RESULT: the reservation held across the port's removal and return; A's fio verify clean"

# Nothing left: A releases, both unregister.
tgt_sg --out --release --param-rk=0xa --prout-type=5 "$A"
tgt_sg --out --register --param-rk=0xa --param-sark=0 "$A"
tgt_clean_slate reservations
