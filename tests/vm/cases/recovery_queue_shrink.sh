#!/bin/bash
# A reconnect granted a smaller I/O queue than the tag set's depth: the
# test target grants 128 entries (CAP.MQES 127), restarts granting 32
# (CAP.MQES 31, larger Connects refused as nvmet does). rblk must come back
# with queue_size 32, keep its disk name (the namespace ids are derived
# from the NQN, so the restarted namespace is the same one), and never
# have more than SQSIZE (31) commands in flight on the queue, though fio
# asks for 64: the target counts received-but-unanswered commands per
# queue and reports OVERFLOW lines and max_inflight at exit. The first
# phase must exceed 31, proving that the limit is what held the second;
# the target holds each I/O response 10 ms so that commands pile up (it
# would otherwise answer each one before the next arrives).
# A busy host stretches it to ~160 s (measured): the budget allows that.
# vm-timeout: 480
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
# shellcheck source=SCRIPTDIR/../lib-target.sh
. "$RBLK_SRC_DIR/tests/vm/lib-target.sh"
# shellcheck source=SCRIPTDIR/../lib-recovery.sh
. "$RBLK_SRC_DIR/tests/vm/lib-recovery.sh"

delay_ms=10

# max_inflight of the I/O queue (qid 1) in the target's exit report.
io_max_inflight() { sed -n 's/^max_inflight qid=1 value=\([0-9]*\) sqsize=.*/\1/p' "$1"; }
overflows() { sed -n 's/^overflows \([0-9]*\)$/\1/p' "$1"; }

# fio with crc32c verify of what it writes, QD 64 on the one I/O queue.
fio_verify() {
	local json=$1 rw=$2
	vm_fio "$json" --name="$rw" --filename=/dev/rblk0n1 --ioengine=io_uring --direct=1 \
		--rw="$rw" --bs=4k --iodepth=64 --size=8M --verify=crc32c --do_verify=1 --verify_fatal=1
	python3 - "$json" <<'PY' || vm_fail "$rw: fio report"
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
assert j["error"] == 0 and j["write"]["io_bytes"] > 0, (j["error"], j["write"]["io_bytes"])
print("fio %s: errors 0, %d KiB written, %d KiB read" % (j["jobname"], j["write"]["io_bytes"] >> 10,
                                                      j["read"]["io_bytes"] >> 10))
PY
}

# Stops the target; its log, with the exit report, is kept in $1.
stop_and_keep() {
	tgt_stop
	cp "$TGT_LOG" "$1"
	grep '^max_inflight\|^overflows\|^OVERFLOW' "$1" | head -n 20
}

# --- phase 1: 128 entries granted -----------------------------------------
tgt_start none --max-queue-size 128 --reply-delay-ms "$delay_ms"
# ctrl_loss_tmo far beyond the restart, which a busy host stretches (an
# outage took 54 s in recovery_port).
out=$(timeout 120 "$RBLKCTL" connect -a 10.99.0.1 -n "$TGT_NQN" -Q 128 -i 1 -k 5 -c 1 -l 300 2>&1) ||
	vm_fail "rblkctl connect failed: $out"
vm_assert_eq $'rblk0\n/dev/rblk0n1' "$out" "rblkctl connect output"
vm_assert_eq 128 "$(rec_show_json rblk0 | rec_json queue_size)" "queue_size before the restart"
vm_assert_eq 1 "$(rec_show_json rblk0 | rec_json nr_io_queues)" "I/O queues"
nguid=$(cat /sys/block/rblk0n1/nguid) || vm_fail "no nguid attribute"
vm_assert_ne "" "$nguid" "nguid"
fio_verify /tmp/shrink1.json randwrite
stop_and_keep /tmp/target1.log
vm_rblk_wait_state 30 rblk0 connecting

# --- phase 2: the same target back, 32 entries granted ----------------------
t_up=$(vm_now_ms)
tgt_start none --max-queue-size 32 --reply-delay-ms "$delay_ms"
vm_rblk_wait_state 60 rblk0 live
t_live=$(vm_now_ms)
vm_assert_eq 32 "$(rec_show_json rblk0 | rec_json queue_size)" "queue_size after the restart"
vm_assert_eq /dev/rblk0n1 "$(vm_rblk_disks)" "disks after the restart"
vm_assert_eq "$nguid" "$(cat /sys/block/rblk0n1/nguid)" "nguid after the restart"
fio_verify /tmp/shrink2.json randrw
vm_assert_eq 0 "$(cat /sys/class/rblk/rblk0/errors)" "errors"
stop_and_keep /tmp/target2.log

max1=$(io_max_inflight /tmp/target1.log)
max2=$(io_max_inflight /tmp/target2.log)
sq2=$(sed -n 's/^max_inflight qid=1 value=[0-9]* sqsize=\([0-9]*\)$/\1/p' /tmp/target2.log)
ovf=$(($(overflows /tmp/target1.log) + $(overflows /tmp/target2.log)))
vm_assert_eq 0 "$ovf" "commands in flight beyond SQSIZE (OVERFLOW lines)"
vm_assert_eq 31 "$sq2" "SQSIZE of the I/O queue after the restart"
[ -n "$max1" ] && [ "$max1" -gt 31 ] ||
	vm_fail "phase 1 never had more than 31 commands in flight ($max1): the test proves nothing"
[ -n "$max2" ] && [ "$max2" -le 31 ] || vm_fail "phase 2: $max2 commands in flight on a queue of 32"
rec_result recovery_queue_shrink "queue_size=128->32 max_inflight_before=$max1 max_inflight_after=$max2" \
	"overflows=$ovf restart_to_live_ms=$((t_live - t_up)) fio_errors=0 reconnects=$(vm_rblk_attr rblk0 reconnects)" \
	"disk=$(vm_rblk_disks) nguid=$nguid"

"$RBLKCTL" disconnect rblk0 > /dev/null || vm_fail "rblkctl disconnect rblk0 failed"
vm_wait_for 20 vm_rblk_none
vm_rblk_unload
vm_dmesg_clean
