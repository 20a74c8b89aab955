#!/bin/bash
# fast_io_fail_tmo: the target goes away under fio randread; the I/O waits
# for fast_io_fail_tmo, then fails (not before, not much after) while the
# controller keeps reconnecting; new I/O fails at once. The target comes
# back: the controller goes LIVE again on its own, the data written
# before the outage reads back intact and new writes work.
# Times run from the port removal to the first failed request (kernel log),
# split at rblk's "starting recovery", where its timers start.
# A busy host stretches it to ~210 s (measured): the budget allows that.
# vm-timeout: 480
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
. "$RBLK_SRC_DIR/tests/vm/lib-recovery.sh"
vm_require "$RBLKCTL"

nqn=nqn.2024-01.io.rblk:recovery-fastfail
delay=1
ff=3
slack=5
# The timers start at the state change, in jiffies (4 ms); the "starting
# recovery" line is printed a little after it (later still if a busy guest
# preempts the worker in between): the lower bounds allow that much.
clock_ms=250
mib=$((1 << 20))
rec_setup "$nqn" 32 "$delay" 120 "$ff"
dev=/dev/rblk0n1
head -c 4M /dev/urandom > /tmp/before
vm_put /tmp/before "$dev" 0
sum_before=$(sha256sum < /tmp/before | cut -d' ' -f1)

# fast_io_fail_tmo runs from the loss rblk saw (kernel log times, both).
ms=$(rec_ms_to_eio "$nqn" randread reads)
read -r seen_ms tmo_ms <<< "$ms"
fail_ms=$((seen_ms + tmo_ms))
[ "$seen_ms" -le $((slack * 1000)) ] ||
	vm_fail "the loss was seen $seen_ms ms after the target went away (bound ${slack} s)"
[ "$tmo_ms" -ge $((ff * 1000 - clock_ms)) ] ||
	vm_fail "I/O failed $tmo_ms ms after the loss: before fast_io_fail_tmo (${ff} s)"
[ "$tmo_ms" -le $(((ff + slack) * 1000)) ] ||
	vm_fail "I/O failed $tmo_ms ms after the loss: later than fast_io_fail_tmo + ${slack} s"
vm_assert_eq connecting "$(vm_rblk_state rblk0)" "state after the fail-fast"

# New I/O while still reconnecting fails at once (timed in the process).
read -r res new_io_ms <<< "$(rec_timed_read "$dev" 409600)"
vm_assert_eq EIO "$res" "new I/O while fast-failing"
[ "$new_io_ms" -le 1000 ] || vm_fail "new I/O took $new_io_ms ms to fail while fast-failing"
vm_assert_eq connecting "$(vm_rblk_state rblk0)" "state after the new I/O failed"

t_up=$(vm_now_ms)
vm_nvmet_link 1 "$nqn"
vm_rblk_wait_state 30 rblk0 live
t_live=$(vm_now_ms)
vm_assert_eq "$sum_before" "$(vm_sum "$dev" 0 $((4 * mib)))" "data written before the outage"
head -c 1M /dev/urandom > /tmp/after
vm_put /tmp/after "$dev" $((4 * mib))
vm_assert_eq "$(sha256sum < /tmp/after | cut -d' ' -f1)" "$(vm_sum "$dev" $((4 * mib)) "$mib")" \
	"data written after the reconnect"
[ "$(vm_rblk_attr rblk0 reconnects)" -ge 1 ] || vm_fail "reconnect counter did not move"
# fio's failed reads and the new one failed on the head (rblk0n1, nvmet's
# subsystem is multipath), for want of a path: the path handed its
# commands back rather than fail them, so the controller counts none.
vm_assert_eq 0 "$(vm_rblk_attr rblk0 errors)" "commands failed on the path (handed back to the head)"
rec_result recovery_fast_fail "fast_io_fail_tmo_s=$ff link_loss_to_eio_ms=$fail_ms" \
	"loss_seen_ms=$seen_ms loss_seen_to_eio_ms=$tmo_ms" \
	"new_io_fail_ms=$new_io_ms restore_to_live_ms=$((t_live - t_up))" \
	"fio_error=5 io_errors=$(vm_rblk_attr rblk0 errors) reconnects=$(vm_rblk_attr rblk0 reconnects) data_verified=yes"

"$RBLKCTL" disconnect rblk0 > /dev/null || vm_fail "rblkctl disconnect rblk0 failed"
vm_rblk_unload
vm_dmesg_clean
