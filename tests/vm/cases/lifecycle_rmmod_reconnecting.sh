#!/bin/bash
# Module removal while a controller is reconnecting: the target port goes
# away, the controller (ctrl_loss_tmo 600 s, reconnect every second) sits in
# CONNECTING, and `modprobe -r rblk` (its disk not open) must still finish
# within 30 s, with no hung task. Afterwards a fresh modprobe and connect
# work and the disk reads.
# vm-timeout: 300
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
. "$RBLK_SRC_DIR/tests/vm/lib-lifecycle.sh"
vm_require "$RBLKCTL"

nqn=nqn.2024-01.io.rblk:lc-rmmod
bound=30
vm_rdma_target "$nqn" 32 > /dev/null
# dyndbg: the state changes, with their kernel timestamps, reach dmesg.
vm_rblk_load dyndbg=+p
vm_rblk_connect "$nqn" -i 2 -k 5 -c 1 -l 600 > /dev/null
vm_assert_exists /dev/rblk0n1
vm_assert_eq live "$(vm_rblk_state rblk0)" "state after connect"

# Unlinking makes nvmet drop the association; without the port nothing
# listens, so every reconnect fails at the RDMA CM.
vm_nvmet_unlink 1 "$nqn"
rmdir "$VM_NVMET/ports/1"
vm_rblk_wait_state 60 rblk0 connecting
# At least one reconnect attempt has failed by now.
failed_reconnects() { dmesg | grep -c 'rblk0: reconnect failed' || true; }
reconnect_failed() { [ "$(failed_reconnects)" -ge 1 ]; }
vm_wait_for 30 reconnect_failed
echo "RESULT: modprobe -r while reconnecting: state $(vm_rblk_state rblk0), $(failed_reconnects) reconnects failed before it"

t0=$(vm_now_ms)
up0=$(cut -d' ' -f1 /proc/uptime)
rc=0
timeout "$bound" modprobe -r rblk || rc=$?
ms=$(vm_ms_since "$t0")
echo "RESULT: modprobe -r rblk with a controller in CONNECTING: exit $rc after $ms ms"
vm_assert_eq 0 "$rc" "modprobe -r rblk (124: took over ${bound}s)"
# How much of it was modprobe itself (reading the module index over 9p)
# before the module's exit began deleting the controller.
deleting=$(lc_last_at 'rblk0: state connecting -> deleting')
[ -n "$deleting" ] || vm_fail "no rblk0: state connecting -> deleting in dmesg"
echo "RESULT: modprobe -r: delete began $(lc_ms_between "$up0" "$deleting") ms after modprobe started; the kernel's delete (deleting -> dead) took $(lc_delete_ms rblk0) ms"
vm_assert_not_exists /sys/module/rblk
vm_assert_eq "" "$(vm_rblk_disks)" "rblk disks after modprobe -r"
vm_dmesg_clean

# A fresh start works.
vm_nvmet_port 1 10.99.0.1 4420
vm_nvmet_link 1 "$nqn"
vm_modprobe rblk
vm_rblk_connect "$nqn" -i 2 > /dev/null
vm_assert_eq live "$(vm_rblk_state rblk0)" "state after the fresh connect"
dd if=/dev/rblk0n1 of=/dev/null bs=1M count=8 iflag=direct status=none ||
	vm_fail "reading the disk after the fresh connect failed"
"$RBLKCTL" disconnect rblk0 > /dev/null || vm_fail "rblkctl disconnect rblk0 failed"
vm_rblk_unload
vm_dmesg_clean
