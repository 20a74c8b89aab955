#!/bin/bash
# ctrl_loss_tmo: the target goes away for good under fio randwrite. With
# fast_io_fail_tmo off the I/O waits while rblk reconnects every
# reconnect_delay, then fails with EIO once ctrl_loss_tmo expires: not
# before (loss - delay, the last attempt that still fits), not after
# loss + delay + slack. The controller and its disk are then gone, a file
# descriptor still open on the disk gets EIO (no hang), and the module
# unloads once it is closed.
# Times run from the port removal to the first failed request (kernel log),
# split at rblk's "starting recovery", where its timers start.
# A busy host stretches it to ~160 s (measured): the budget allows that.
# vm-timeout: 480
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
. "$RBLK_SRC_DIR/tests/vm/lib-recovery.sh"
vm_require "$RBLKCTL"

nqn=nqn.2024-01.io.rblk:recovery-loss
delay=1
loss=6
slack=5
# The timers start at the state change, in jiffies (4 ms); the "starting
# recovery" line is printed a little after it (later still if a busy guest
# preempts the worker in between): the lower bounds allow that much.
clock_ms=250
rec_setup "$nqn" 32 "$delay" "$loss" -1
dev=/dev/rblk0n1
exec 3< "$dev"

# ctrl_loss_tmo runs from the loss rblk saw (kernel log times, both).
ms=$(rec_ms_to_eio "$nqn" randwrite writes)
t_eio=$(vm_now_ms)
read -r seen_ms tmo_ms <<< "$ms"
fail_ms=$((seen_ms + tmo_ms))
[ "$seen_ms" -le $((slack * 1000)) ] ||
	vm_fail "the loss was seen $seen_ms ms after the target went away (bound ${slack} s)"
[ "$tmo_ms" -ge $(((loss - delay) * 1000 - clock_ms)) ] ||
	vm_fail "I/O failed $tmo_ms ms after the loss: before ctrl_loss_tmo (${loss} s) was due"
[ "$tmo_ms" -le $(((loss + delay + slack) * 1000)) ] ||
	vm_fail "I/O failed $tmo_ms ms after the loss: later than ctrl_loss_tmo + reconnect_delay + ${slack} s"

vm_rblk_wait_gone 30 rblk0
t_gone=$(vm_now_ms)
vm_wait_for 10 test ! -e "$dev"
list=$("$RBLKCTL" list --json) || vm_fail "rblkctl list --json failed"
vm_assert_eq "[]" "$(rec_json controllers <<< "$list")" "controllers after ctrl_loss_tmo"

# The open descriptor outlives the disk: reads fail, nothing hangs.
t0=$(vm_now_ms)
read_res=$(rec_pread 3)
read_ms=$(vm_ms_since "$t0")
vm_assert_match '^(eof|EIO|ENXIO|ENODEV)$' "$read_res" "read through the descriptor of the deleted disk"
exec 3<&-
rec_result recovery_loss_tmo "ctrl_loss_tmo_s=$loss reconnect_delay_s=$delay" \
	"link_loss_to_eio_ms=$fail_ms loss_seen_ms=$seen_ms loss_seen_to_eio_ms=$tmo_ms" \
	"link_loss_to_ctrl_gone_ms=$((fail_ms + t_gone - t_eio))" \
	"fio_error=5 read_on_deleted_disk=$read_res/${read_ms}ms"

vm_nvmet_link 1 "$nqn"
vm_rblk_unload
vm_dmesg_clean
