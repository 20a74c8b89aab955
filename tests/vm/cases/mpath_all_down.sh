#!/bin/bash
# No live path: I/O waits, and succeeds when a path returns. Both ports of a
# two-path subsystem go away (ctrl_loss_tmo 300 s): a read of the head
# blocks instead of failing, and completes, with the data, once port 2
# comes back. Then the bound: with ctrl_loss_tmo 10 s on both paths and
# both ports gone for good, a read fails with EIO when the last path's
# ctrl_loss_tmo ends it, and the head goes with the last path.
# vm-timeout: 400
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
. "$RBLK_SRC_DIR/tests/vm/lib-mpath.sh"
. "$RBLK_SRC_DIR/tests/vm/lib-recovery.sh"
vm_require "$RBLKCTL"

nqn=nqn.2024-01.io.rblk:mp-all-down
mp_target "$nqn" 32 > /dev/null
vm_rblk_load
for port in 1 2; do
	mp_connect "$nqn" "$port" --reconnect-delay 1 --ctrl-loss-tmo 300 > /dev/null
done
dev=/dev/rblk0n1
head -c 1M /dev/urandom > /tmp/a
vm_put /tmp/a "$dev" $((8 << 20))
want=$(sha256sum < /tmp/a | cut -d' ' -f1)

mp_port_down 1 "$nqn"
mp_port_down 2 "$nqn"
vm_rblk_wait_state 60 rblk0 connecting
vm_rblk_wait_state 60 rblk1 connecting
t0=$(vm_now_ms)
vm_sum "$dev" $((8 << 20)) $((1 << 20)) > /tmp/sum &
reader=$!
vm_sleep 8
[ -e "/proc/$reader" ] || vm_fail "the read ended with no live path: $(cat /tmp/sum)"
vm_log "the read waits after $(vm_ms_since "$t0") ms with no path"
mp_port_up 2 "$nqn"
wait "$reader" || vm_fail "the read failed once port 2 was back"
vm_assert_eq "$want" "$(cat /tmp/sum)" "the data read while no path was live"
echo "RESULT: mpath all paths down: the read waited, done $(vm_ms_since "$t0") ms after it started (port 2 back after 8 s)"
vm_rblk_wait_state 60 rblk1 live
vm_assert_eq connecting "$(vm_rblk_state rblk0)" "rblk0 while port 1 is away"

# The bound: a new subsystem's paths with ctrl_loss_tmo 10 s.
"$RBLKCTL" disconnect --all > /dev/null || vm_fail "disconnect --all failed"
vm_wait_for 30 vm_rblk_none
mp_port_up 1 "$nqn"
for port in 1 2; do
	mp_connect "$nqn" "$port" --reconnect-delay 1 --ctrl-loss-tmo 10 > /dev/null
done
vm_assert_exists "$dev"
mp_port_down 1 "$nqn"
# The last path's ctrl_loss_tmo runs from here: on a loaded host taking
# the port down took ~6 s once, and the read, timed from its own start,
# ended 4 s later.
t0=$(vm_now_ms)
mp_port_down 2 "$nqn"
read -r res ms <<< "$(rec_timed_read "$dev" $((8 << 20)))"
down=$(vm_ms_since "$t0")
echo "RESULT: mpath all paths down, ctrl_loss_tmo 10 s: the read ended $res after $ms ms ($down ms after the last port went)"
vm_assert_eq EIO "$res" "a read once ctrl_loss_tmo ended the last path"
[ "$down" -ge 5000 ] || vm_fail "the read failed $down ms after the last port went, before ctrl_loss_tmo (10 s)"
vm_rblk_wait_gone 60 rblk0
vm_rblk_wait_gone 60 rblk1
vm_wait_for 30 vm_rblk_none
vm_log "everything gone $(vm_ms_since "$t0") ms after the ports"
