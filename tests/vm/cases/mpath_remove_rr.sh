#!/bin/bash
# A path removed while a submitter still has it cached as its round-robin
# path (issue 35, 3.1). Three paths, iopolicy round-robin: port 1
# optimized, ports 2 and 3 (10.99.0.1:4421) non-optimized, so every I/O
# goes down port 1's path rblk0, the cached current path. A passthrough
# read through the head holds the head's SRCU for the whole command, 8 s
# (the namespace is a dm-delay device); while it runs, rblk0 is
# disconnected, and once the delete waits in rblk_mpath_detach() (for that
# reader) one read goes through the head from the same NUMA node. It must
# go down rblk1 or rblk2, and the delete finish once the passthrough read
# is done. Before the fix the delete unlinked the path before clearing it
# from current_path: the read, finding rblk0 still cached, walked the two
# other paths forever looking for rblk0 or an optimized one, in
# submit_bio with the SRCU held, and the delete never returned (an RCU
# stall in rblk_find_round_robin()). The window is held open by the slow
# reader, not by timing: the read is sent only once the delete is seen
# waiting in rblk_mpath_detach(), and must be sent while the passthrough
# read is still outstanding.
# vm-timeout: 300
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
. "$RBLK_SRC_DIR/tests/vm/lib-mpath.sh"
vm_require "$RBLKCTL"
for tool in dmsetup nvme; do
	command -v "$tool" > /dev/null || vm_fail "no $tool in the VM"
done

nqn=nqn.2024-01.io.rblk:mp-remove-rr
dm=rblk-mp-slow
delay_ms=8000
mp_setup_fabric
nullb=$(vm_membacked_disk 1 32)
sectors=$(blockdev --getsz "$nullb")
vm_modprobe dm-delay
# slow MS: every I/O of the namespace takes MS.
slow() {
	if ! dmsetup reload "$dm" --table "0 $sectors delay $nullb 0 $1" ||
		! dmsetup resume "$dm"; then
		vm_fail "cannot set the dm-delay of $dm to $1 ms"
	fi
}
dmsetup create "$dm" --table "0 $sectors delay $nullb 0 0" || vm_fail "dmsetup create $dm failed"
# No udev in the VM: the device is devtmpfs's /dev/dm-N, found by name.
dmdev=
for d in /sys/block/dm-*; do
	[ "$(cat "$d/dm/name")" = "$dm" ] && dmdev=${d##*/}
done
[ -b "/dev/$dmdev" ] || vm_fail "no block device of $dm"
vm_nvmet_subsys "$nqn" "/dev/$dmdev"
for port in 1 2; do
	vm_nvmet_port "$port" "${MP_ADDR[$port]}" 4420
	vm_nvmet_link "$port" "$nqn"
done
MP_ADDR[3]=${MP_ADDR[1]}
vm_nvmet_port 3 "${MP_ADDR[3]}" 4421
vm_nvmet_link 3 "$nqn"
mp_ana_set 2 non-optimized
mp_ana_set 3 non-optimized

vm_rblk_load
mp_connect "$nqn" 1 > /dev/null
mp_connect "$nqn" 2 > /dev/null
mp_connect "$nqn" 3 -s 4421 > /dev/null
"$RBLKCTL" set-iopolicy "$nqn" round-robin || vm_fail "set-iopolicy round-robin failed"
vm_assert_eq optimized "$(mp_path_ana rblk0c0n1)" "port 1's path"
vm_assert_eq non-optimized "$(mp_path_ana rblk0c1n1)" "port 2's path"
vm_assert_eq non-optimized "$(mp_path_ana rblk0c2n1)" "port 3's path"
dev=/dev/rblk0n1
vm_wait_for 30 test -b "$dev"

# Every CPU's current path is rblk0, the only optimized one.
others=$(($(mp_ctrl_io rblk1) + $(mp_ctrl_io rblk2)))
for cpu in 0 1; do
	taskset -c "$cpu" dd if="$dev" of=/dev/null bs=4k count=1 iflag=direct status=none ||
		vm_fail "a read on CPU $cpu failed"
done
vm_assert_eq "$others" $(($(mp_ctrl_io rblk1) + $(mp_ctrl_io rblk2))) "reads through rblk1 and rblk2 while rblk0 is optimized"

slow "$delay_ms"
# reading: the passthrough read waits in the head's ioctl, in its SRCU
# read section (no I/O counter counts a passthrough command).
reading() { grep -qs rblk_head_ioctl "/proc/$pt/stack"; }
# pt_reading: the passthrough read is in flight.
pt_reading() {
	[ -e "/proc/$pt" ] || vm_fail "the passthrough read ended at once: $(cat /tmp/pt.log); table: $(dmsetup table "$dm")"
	reading
}
# in_detach: some task waits in rblk_mpath_detach().
in_detach() { grep -qs rblk_mpath_detach /proc/[0-9]*/stack; }

taskset -c 0 nvme read "$dev" --start-block=0 --block-count=7 --data-size=4096 \
	--data=/tmp/pt > /tmp/pt.log 2>&1 &
pt=$!
vm_wait_for 30 pt_reading
t0=$(vm_now_ms)
"$RBLKCTL" disconnect rblk0 > /tmp/dc.log 2>&1 &
dc=$!
vm_wait_for 30 in_detach
taskset -c 0 dd if="$dev" of=/dev/null bs=4k count=1 skip=1 iflag=direct status=none \
	> /tmp/rd.log 2>&1 &
rd=$!
# The read was sent while the slow one held the head's SRCU.
reading || vm_fail "the passthrough read ended before the read was sent ($(vm_ms_since "$t0") ms): the window was missed"
waited=$(vm_ms_since "$t0")
vm_log "the read sent $waited ms after the disconnect began, the delete waiting in rblk_mpath_detach()"

# deleted: rblk0 is gone.
deleted() { [ ! -e /sys/class/rblk/rblk0 ]; }
if ! (vm_wait_for 90 deleted); then
	vm_log "stacks of the tasks in rblk: $(grep -l rblk_ /proc/[0-9]*/stack 2> /dev/null | tr '\n' ' ')"
	vm_fail "the disconnect of rblk0 has not returned 90 s after the read was sent (a submitter spinning in rblk_find_round_robin()?)"
fi
wait "$dc" || vm_fail "rblkctl disconnect rblk0 failed: $(cat /tmp/dc.log)"
wait "$rd" || vm_fail "the read sent during the delete failed: $(cat /tmp/rd.log)"
wait "$pt" || vm_fail "the passthrough read failed: $(cat /tmp/pt.log)"
got=$(($(mp_ctrl_io rblk1) + $(mp_ctrl_io rblk2) - others))
vm_assert_eq 1 "$got" "reads through rblk1 and rblk2"
echo "RESULT: mpath remove under round-robin: the delete of rblk0 done $(vm_ms_since "$t0") ms after it began; the read sent during it went down another path"

slow 0
taskset -c 1 dd if="$dev" of=/dev/null bs=4k count=1 iflag=direct status=none ||
	vm_fail "a read on CPU 1 after the delete failed"
"$RBLKCTL" disconnect --all > /dev/null || vm_fail "disconnect --all failed"
vm_wait_for 30 vm_rblk_none
# The group's reset removes nvmet's configuration and the null_blk disks,
# not a device mapper device: the namespace lets go of it, then it goes.
echo 0 > "$VM_NVMET/subsystems/$nqn/namespaces/1/enable"
dmsetup remove "$dm" || vm_fail "dmsetup remove $dm failed"
