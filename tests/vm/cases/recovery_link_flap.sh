#!/bin/bash
# 5 s link flaps under I/O, one after the other: rblk connected
# (reconnect_delay 2, ctrl_loss_tmo 40, keep-alive 30), fio randwrite with
# crc32c verify running, veth0 down for 5 s (tests/vm/lib-flap.sh: every
# RC QP of this VM sits on rxe0). Each flap ends one of two ways, and the
# case says which, with the cause the kernel log and rblk's counters show:
#  - recovered: rblk reconnected, fio finished with zero errors and every
#    block verified. The policy: a flap shorter than ctrl_loss_tmo (no
#    fast_io_fail_tmo here) fails no I/O.
#  - the soft-RoCE trap (kmod/README.md, "The link-flap trap"): the
#    target was sending a response when the link went down, nvmet failed
#    the controller and sent its DREQ into the down port, which leaves
#    rxe0's CM QP (QP1) unable to receive, so no connection over rxe0 can
#    be made again, by anyone. Allowed only as such: rblk failed nothing
#    while reconnecting (its error counter 0 until it removed the
#    controller), no I/O failed before ctrl_loss_tmo expired, and a
#    connection that involves neither rblk nor nvme (perftest's
#    ib_send_bw over rdma_cm) cannot be made over rxe0 either. The fabric
#    is then made anew for the next flap.
# Anything else fails the case, with its cause: I/O failed while rblk
# could still reconnect, or before ctrl_loss_tmo expired.
# It flaps at least min_flaps times (3, or its first argument) and until
# one flap recovered, at most 4 times more.
# Then a disconnect with the link down (and I/O queued) must return and
# end the I/O.
#
# Why keep-alive is 30 s here, not 5: rblk holds its own DREQs back until
# the port is up again (rblk_rdma_wait_port_active() in kmod/rdma.c), but
# the target sends one when its keep-alive timer expires, and in this TCG
# VM a "5 s" flap takes up to ~10 s of guest time: with kato 5 the
# target's DREQ would land inside every flap. The link loss itself is
# still seen at once: the next command's SEND fails with LOC_QP_OP_ERR
# (rxe finds no route), which starts recovery.
# vm-timeout: 900
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
. "$RBLK_SRC_DIR/tests/vm/lib-flap.sh"
vm_require "$RBLKCTL"

# By hand, more: run-in-vm.sh ... recovery_link_flap.sh MIN_FLAPS.
min_flaps=${1:-3}
max_flaps=$((min_flaps + 4))

# fio_wait PID SECS WHEN: wait for fio, its exit code in fio_rc; fail (with
# the stacks of where it sits) unless it ends within SECS.
fio_wait() {
	local end=$(( EPOCHSECONDS + $2 ))
	while kill -0 "$1" 2> /dev/null && [ "$EPOCHSECONDS" -lt "$end" ]; do
		vm_sleep 0.5
	done
	if kill -0 "$1" 2> /dev/null; then
		flap_stacks "fio still running"
		flap_qps
		kill -9 "$1" 2> /dev/null || true
		vm_fail "fio did not finish within $2 s $3"
	fi
	fio_rc=0
	wait "$1" || fio_rc=$?
}

nqn=nqn.2024-01.io.rblk:link-flap

# fio_writing N: fio's writes are under way (the counter moved by N), so
# the link goes down under I/O however long fio took to start.
fio_writing() {
	local w0
	w0=$(cat "$sys/writes")
	vm_wait_for 60 fio__wrote "$((w0 + $1))"
}
fio__wrote() { [ "$(cat "$sys/writes")" -ge "$1" ]; }

# connect_rblk: rblk connected to the target; sets ctrl, sys and dev.
connect_rblk() {
	vm_rblk_connect "$nqn" -i 2 -k 30 -c 2 -l 40 > /dev/null
	ctrl=$(vm_rblk_ctrls)
	sys=/sys/class/rblk/$ctrl
	dev=$(vm_rblk_disks)
	vm_assert_eq live "$(cat "$sys/state")" "state after connect"
	[ -b "$dev" ] || vm_fail "no disk after connect: '$dev'"
}

# flap_once N: one flap under fio. Prints its RESULT lines and sets
# flap_verdict: recovered, trapped or failed (see the header).
flap_once() {
	local n=$1 mark="rblk-test: flap $1" rc0 t_down t_up deadline log
	local live="" errs="" cur fio_err writes reads cause
	echo "$mark" > /dev/kmsg
	rc0=$(cat "$sys/reconnects")
	# Rate-limited so the writes (512 x 4 KiB) outlast the flap and
	# recovery; the verify pass then reads every block back.
	fio --name=flap --filename="$dev" --ioengine=libaio --direct=1 \
		--rw=randwrite --bs=4k --iodepth=4 --size=2M --rate_iops=40 \
		--verify=crc32c --do_verify=1 --verify_fatal=1 \
		--output-format=json --output="/tmp/fio$n.json" \
		2> "/tmp/fio$n.err" &
	fio_pid=$!
	fio_writing 40
	t_down=$EPOCHREALTIME
	flap_link 5
	t_up=$EPOCHREALTIME
	echo "RESULT: flap $n: link down for $(echo "$t_up - $t_down" | bc) s (guest clock)"

	# Link-up until the controller is live after a reconnect, or gone;
	# its error counter as last seen while it existed.
	# Over soft-iWARP (RBLK_VM_RDMA=siw) both ends' TCP runs over lo in
	# this VM (lib.sh): the flap does not break it, siw only reports the
	# port down, and the controller must stay live with no reconnect.
	deadline=$(( EPOCHSECONDS + 120 ))
	[ "$VM_RDMA" != siw ] || deadline=0
	while [ "$EPOCHSECONDS" -lt "$deadline" ]; do
		cur=$(cat "$sys/errors" 2> /dev/null) || break
		errs=$cur
		if [ "$(cat "$sys/reconnects" 2> /dev/null)" != "$rc0" ] &&
			[ "$(cat "$sys/state" 2> /dev/null)" = live ]; then
			live=$(echo "$EPOCHREALTIME - $t_up" | bc)
			break
		fi
		vm_sleep 0.2
	done
	fio_wait "$fio_pid" 120 "of the controller's recovery"
	read -r fio_err writes reads < <(python3 -c '
import json, sys
t = open(sys.argv[1]).read()
j = json.loads(t[t.index("{"):])["jobs"][0]
print(j["error"], j["write"]["total_ios"], j["read"]["total_ios"])' "/tmp/fio$n.json") ||
		vm_fail "no fio report: $(cat "/tmp/fio$n.json")"
	echo "RESULT: flap $n: live again ${live:-never} s after link up, fio exit $fio_rc, error $fio_err, $writes writes, $reads blocks verified, controller errors ${errs:-?}$([ -d "$sys" ] || echo ' (then removed)')"
	log=$(dmesg | sed -n "/$mark/,\$p")

	if [ "$VM_RDMA" = siw ]; then
		vm_assert_eq 0 "$fio_rc" "fio exit code over siw"
		vm_assert_eq 0 "$fio_err" "fio error over siw"
		vm_assert_eq 512 "$reads" "blocks verified over siw"
		vm_assert_eq "$rc0" "$(cat "$sys/reconnects")" "reconnects over siw (its TCP over lo never broke)"
		vm_assert_eq live "$(cat "$sys/state")" "state over siw after the flap"
		flap_verdict=recovered
		return 0
	fi
	if [ -n "$live" ] && [ "$fio_rc" = 0 ] && [ "$fio_err" = 0 ] &&
		[ "$reads" = 512 ]; then
		flap_verdict=recovered
		echo "RESULT: flap $n: recovered, no I/O error"
		return 0
	fi
	echo "=== flap $n: fio's errors"
	cat "/tmp/fio$n.err"
	echo "=== flap $n: kernel log"
	grep -E 'rblk|nvmet|infiniband|qp#1 |I/O error' <<< "$log"
	flap_qps
	cause=$(flap_cause "$log")
	if [ -n "$live" ]; then
		flap_verdict=failed
		echo "RESULT: flap $n: FAILED: I/O failed although rblk reconnected: $cause"
	elif [ -d "$sys" ]; then
		flap_verdict=failed
		echo "RESULT: flap $n: FAILED: I/O failed, the controller neither reconnected nor was removed: $cause"
	elif [ "${errs:-x}" != 0 ]; then
		flap_verdict=failed
		echo "RESULT: flap $n: FAILED: rblk failed ${errs:-?} request(s) while reconnecting, before ctrl_loss_tmo: $cause"
	elif ! grep -q 'ctrl_loss_tmo expired' <<< "$log"; then
		flap_verdict=failed
		echo "RESULT: flap $n: FAILED: the controller went away without ctrl_loss_tmo expiring: $cause"
	elif ! flap_failed_after_loss "$log"; then
		flap_verdict=failed
		echo "RESULT: flap $n: FAILED: the head or the block layer failed I/O before ctrl_loss_tmo expired: $cause"
	elif flap_cm_works; then
		flap_verdict=failed
		echo "RESULT: flap $n: FAILED: rblk gave up at ctrl_loss_tmo, but a new rdma_cm connection over rxe0 works: it could have reconnected: $cause"
	else
		flap_verdict=trapped
		echo "RESULT: flap $n: the soft-RoCE trap: I/O failed when ctrl_loss_tmo expired, none before; no rdma_cm connection over rxe0 can be made now, by anyone (perftest's ib_send_bw fails too): $cause"
	fi
}

# flap_failed_after_loss LOG: no I/O failed (the head's "no path left",
# the block layer's "I/O error") before ctrl_loss_tmo expired.
flap_failed_after_loss() {
	local loss fail
	loss=$(grep -n 'ctrl_loss_tmo expired' <<< "$1" | head -n 1)
	fail=$(grep -n 'no path left\|error, dev rblk' <<< "$1" | head -n 1)
	[ -z "$fail" ] || [ "${fail%%:*}" -gt "${loss%%:*}" ]
}

# flap_cause LOG: the chain of events one flap's kernel log shows.
flap_cause() {
	local log=$1 c="" n
	grep -q 'nvmet: ctrl [0-9]* fatal error' <<< "$log" &&
		c+="the target's response SEND failed and nvmet failed its controller (so it had executed that command; it disconnects, a DREQ into the down port); "
	grep -q 'qp#1 ' <<< "$log" && c+="rxe0's CM QP (QP1) failed a send; "
	grep -q 'keep-alive failed\|keep-alive timed out' <<< "$log" && c+="a keep-alive failed; "
	n=$(grep -c 'reconnect failed' <<< "$log" || true)
	[ "$n" = 0 ] || c+="$n reconnect(s) failed ($(sed -n 's/.*reconnect failed: //p' <<< "$log" | sort | uniq -c | tr -s ' \n' ' ')); "
	grep -q 'reconnected:' <<< "$log" && c+="rblk reconnected; "
	grep -q 'fast_io_fail_tmo expired' <<< "$log" && c+="fast_io_fail_tmo expired; "
	grep -q 'ctrl_loss_tmo expired' <<< "$log" && c+="ctrl_loss_tmo expired, controller removed; "
	grep -q 'timed out\|closed the connection during' <<< "$log" && c+="commands timed out; "
	grep -q 'no path left' <<< "$log" && c+="the head failed the waiting I/O (no path left); "
	n=$(grep -o '[a-z /]* error, dev rblk[^,]*' <<< "$log" | sed 's/, dev.*//' | sort | uniq -c | tr -s ' \n' ' ')
	[ -z "$n" ] || c+="block layer: $n"
	echo "${c:-nothing in the kernel log}"
}

# What proves a trap must work on a sound fabric.
vm_rdma_target "$nqn" 64 > /dev/null
flap_cm_works || vm_fail "perftest's rdma_cm connection over ${VM_RDMA}0 fails on a sound fabric"
flap_rxe_debug
vm_rblk_load
connect_rblk

recovered=0
traps=0
failed=0
n=0
while [ "$n" -lt "$max_flaps" ] &&
	{ [ "$n" -lt "$min_flaps" ] || [ "$recovered" = 0 ]; }; do
	n=$((n + 1))
	flap_once "$n"
	case $flap_verdict in
	recovered) recovered=$((recovered + 1)) ;;
	trapped)
		traps=$((traps + 1))
		# A new fabric: rxe0's QP1 stays broken.
		vm_nvmet_teardown
		vm_no_rdma_device
		vm_rdma_target "$nqn" 64 > /dev/null
		connect_rblk
		;;
	*) failed=$((failed + 1)) ;;
	esac
	[ "$failed" = 0 ] || break
done
echo "RESULT: $n flaps: $recovered recovered with no I/O error, $traps ended in the soft-RoCE trap (I/O failed at ctrl_loss_tmo), $failed failed otherwise"
vm_assert_eq 0 "$failed" "flaps that failed I/O rblk could have retried"
[ "$recovered" -gt 0 ] || vm_fail "no flap of $n recovered: every one met the trap"

t0=$EPOCHREALTIME
timeout 60 "$RBLKCTL" disconnect "$ctrl" > /dev/null || vm_fail "rblkctl disconnect $ctrl failed or hung"
echo "RESULT: disconnect took $(echo "$EPOCHREALTIME - $t0" | bc) s"

# Disconnect while the link is down, under I/O: rblk holds its DREQs back
# for one kato (5 s here), then tears down anyway; nothing may hang and
# the I/O must end (with errors: the controller is gone).
vm_rblk_connect "$nqn" -i 2 -k 5 -c 2 -l 60 > /dev/null
ctrl=$(vm_rblk_ctrls)
sys=/sys/class/rblk/$ctrl
fio --name=down --filename="$dev" --ioengine=libaio --direct=1 --rw=randwrite \
	--bs=4k --iodepth=4 --size=2M --time_based --runtime=600 \
	--output=/tmp/fio-down.out &
fio_pid=$!
fio_writing 40
ip link set veth0 down
t0=$EPOCHREALTIME
timeout 60 "$RBLKCTL" disconnect "$ctrl" > /dev/null ||
	vm_fail "rblkctl disconnect $ctrl with the link down failed or hung"
echo "RESULT: disconnect with the link down took $(echo "$EPOCHREALTIME - $t0" | bc) s"
fio_wait "$fio_pid" 30 "of the disconnect"
rc=$fio_rc
vm_assert_ne 0 "$rc" "fio exit code once its disk is gone"
ip link set veth0 up
vm_rblk_unload
vm_dmesg_clean
