#!/bin/bash
# The target restarts changed: fewer I/O queues (attr_qid_max 1 instead of
# one per CPU), namespace 2 removed and namespace 3 added, while fio
# randwrite + crc32c verify runs on namespace 1 from every CPU (so the
# vanished hardware queue had I/O). The controller must reconnect with
# one I/O queue (sysfs, rblkctl show --json), fio finish with zero errors,
# namespace 1 keep its name, size and data, namespace 2's disk go (a
# descriptor still open on it gets EIO, no hang) and namespace 3 appear.
# With multipath=N: the requests of the vanished queue are the per-controller
# disk's to resubmit (a multipath head holds them itself: mpath_failover,
# mpath_all_down). A busy host stretches it to ~260 s (measured): the
# budget allows that.
# vm-timeout: 600
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
. "$RBLK_SRC_DIR/tests/vm/lib-recovery.sh"
vm_require "$RBLKCTL"

nqn=nqn.2024-01.io.rblk:recovery-restart
subsys=/sys/kernel/config/nvmet/subsystems/$nqn
mib=$((1 << 20))
vm_rdma_target "$nqn" 64 > /dev/null
vm_nvmet_subsys "$nqn" "$(vm_membacked_disk 1 32)" 2
vm_rblk_load multipath=N
# ctrl_loss_tmo far beyond the outage, which a busy TCG guest stretches to
# ~30 s (measured).
vm_rblk_connect "$nqn" --reconnect-delay 1 --ctrl-loss-tmo 300 --fast-io-fail-tmo -1 > /dev/null
vm_wait_for 20 test -b /dev/rblk0n2
nq0=$(vm_rblk_attr rblk0 nr_io_queues)
vm_assert_eq "$(nproc)" "$nq0" "I/O queues before the restart"
[ "$nq0" -ge 2 ] || vm_fail "needs 2 CPUs at least to lose a queue"
size1=$(blockdev --getsize64 /dev/rblk0n1)

head -c 4M /dev/urandom > /tmp/before
vm_put /tmp/before /dev/rblk0n1 0
sum_before=$(sha256sum < /tmp/before | cut -d' ' -f1)
exec 3< /dev/rblk0n2

# One job per CPU, so every hardware queue carries writes when it goes.
vm_fio /tmp/restart.json --name=restart --filename=/dev/rblk0n1 --ioengine=io_uring \
	--direct=1 --rw=randwrite --bs=4k --iodepth=16 --size=8M --offset=16M \
	--offset_increment=8M --numjobs="$nq0" --cpus_allowed="0-$((nq0 - 1))" \
	--cpus_allowed_policy=split --rate_iops=200 \
	--verify=crc32c --do_verify=1 --verify_fatal=1 &
fio_pid=$!
rec_wait_io 60 writes 300

# The "restart": controllers dropped, configuration changed, port back.
t_down=$(vm_now_ms)
vm_nvmet_unlink 1 "$nqn"
vm_rblk_wait_state 30 rblk0 connecting
# A read of namespace 2 that waits out the outage: it must fail, not hang.
dd if=/dev/rblk0n2 of=/dev/null bs=4k count=1 skip=1000 iflag=direct status=none 2> /tmp/dd2.err &
dd_pid=$!
# Only a read already waiting in the block layer tests that; one started
# late would find namespace 2 gone and fail at open instead.
dd_waiting() { grep -Eq 'blkdev_direct_IO|submit_bio_wait|blk_io_schedule' "/proc/$dd_pid/stack" 2> /dev/null; }
vm_wait_for 30 dd_waiting
echo 1 > "$subsys/attr_qid_max"
echo 0 > "$subsys/namespaces/2/enable"
rmdir "$subsys/namespaces/2"
vm_nvmet_subsys "$nqn" "$(vm_membacked_disk 1 16)" 3
t_up=$(vm_now_ms)
vm_nvmet_link 1 "$nqn"
vm_rblk_wait_state 60 rblk0 live
t_live=$(vm_now_ms)

vm_assert_eq 1 "$(vm_rblk_attr rblk0 nr_io_queues)" "I/O queues after the restart (sysfs)"
vm_assert_eq 1 "$(rec_show_json rblk0 | rec_json nr_io_queues)" "I/O queues after the restart (show --json)"
# The rescan after the reconnect took 14 s in a busy guest (measured).
vm_wait_for 60 test -b /dev/rblk0n3
vm_wait_for 60 test ! -e /dev/rblk0n2
t_ns=$(vm_now_ms)
vm_assert_eq $((16 * mib)) "$(blockdev --getsize64 /dev/rblk0n3)" "size of the new namespace 3"
vm_assert_eq "$size1" "$(blockdev --getsize64 /dev/rblk0n1)" "size of namespace 1"
nsids=$(rec_show_json rblk0 | python3 -c 'import json, sys; print(" ".join(str(n["nsid"]) for n in json.load(sys.stdin)["namespaces"]))')
vm_assert_eq "1 3" "$nsids" "namespaces in rblkctl show --json"

wait "$fio_pid" || vm_fail "fio failed across the restart (see above)"
python3 - /tmp/restart.json <<'PY' || vm_fail "fio report"
import json, sys
for j in json.load(open(sys.argv[1]))["jobs"]:
    w, r = j["write"]["io_bytes"], j["read"]["io_bytes"]
    assert j["error"] == 0 and w == 8 << 20 and r == w, (j["jobname"], j["error"], w, r)
    print("fio %s: %d KiB written, read back and verified" % (j["jobname"], w >> 10))
PY
vm_assert_eq "$sum_before" "$(vm_sum /dev/rblk0n1 0 $((4 * mib)))" "namespace 1 data from before the restart"
# fio's requests on the vanished hardware queue went back as bios.
moved=$(dmesg | sed -n 's/.*rblk0: \([0-9]*\) bios of vanished I\/O queues resubmitted/\1/p' | awk '{ n += $1 } END { print n + 0 }')
[ "$moved" -gt 0 ] || vm_fail "no bios of the vanished I/O queue were resubmitted"

rc=0
timeout 30 tail --pid="$dd_pid" -f /dev/null || vm_fail "the read of the removed namespace hangs"
wait "$dd_pid" || rc=$?
dd_err=$(cat /tmp/dd2.err)
[ "$rc" -ne 0 ] || vm_fail "a read of the removed namespace succeeded"
vm_assert_match 'Input/output error|Operation not supported' "$dd_err" "error of the waiting read of namespace 2"

# The removed namespace's disk: the open descriptor reads no data.
t0=$(vm_now_ms)
read_res=$(rec_pread 3)
read_ms=$(vm_ms_since "$t0")
vm_assert_match '^(eof|EIO|ENXIO|ENODEV)$' "$read_res" "read through the descriptor of the deleted disk"
exec 3<&-

head -c 1M /dev/urandom > /tmp/new
vm_put /tmp/new /dev/rblk0n3 0
vm_assert_eq "$(sha256sum < /tmp/new | cut -d' ' -f1)" "$(vm_sum /dev/rblk0n3 0 "$mib")" \
	"data on the new namespace 3"
rec_result recovery_target_restart "io_queues=$nq0->$(vm_rblk_attr rblk0 nr_io_queues)" \
	"restore_to_live_ms=$((t_live - t_up)) restore_to_namespaces_ms=$((t_ns - t_up))" \
	"outage_ms=$((t_up - t_down)) fio_errors=0 verified_kib=$((8 * 1024 * nq0))" \
	"waiting_ns2_read=\"${dd_err##*: }\" bios_resubmitted=$moved removed_ns_fd_read=$read_res/${read_ms}ms reconnects=$(vm_rblk_attr rblk0 reconnects)"

"$RBLKCTL" disconnect rblk0 > /dev/null || vm_fail "rblkctl disconnect rblk0 failed"
vm_rblk_unload
vm_dmesg_clean
