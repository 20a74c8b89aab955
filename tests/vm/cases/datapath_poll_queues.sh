#!/bin/bash
# Poll and write queues (connect --nr-poll-queues / --nr-write-queues, as
# nvme-rdma's): one read, one write and one poll queue are granted and
# shown (sysfs, show --json, the kernel log); each kind of I/O lands on
# its own queue (rblk's debugfs counts the commands each queue posted; the
# disk's blk-mq contexts have the matching types): writes on the default one, reads on the read one, polled
# I/O (io_uring IOPOLL) on the poll one, which completes it with no
# interrupt at all. On the poll queue: fio with crc32c verify; the port
# removed under polled verified writes and brought back (recovery drains,
# cancels and reconnects a polled queue; zero errors, every block
# verified); rblkctl bench --hipri; a disconnect while polled I/O runs
# (bounded, fio ends by itself).
# vm-timeout: 600
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
. "$RBLK_SRC_DIR/tests/vm/lib-recovery.sh"
vm_require "$RBLKCTL"

nqn=nqn.2024-01.io.rblk:poll
vm_rdma_target "$nqn" 64 > /dev/null
vm_rblk_load
vm_rblk_connect "$nqn" --nr-io-queues 1 --nr-write-queues 1 --nr-poll-queues 1 \
	--reconnect-delay 1 --ctrl-loss-tmo 300 > /dev/null
dev=/dev/rblk0n1
vm_assert_exists "$dev"

vm_assert_eq 1 "$(vm_rblk_attr rblk0 nr_io_queues)" "sysfs nr_io_queues (reads)"
vm_assert_eq 1 "$(vm_rblk_attr rblk0 nr_write_queues)" "sysfs nr_write_queues"
vm_assert_eq 1 "$(vm_rblk_attr rblk0 nr_poll_queues)" "sysfs nr_poll_queues"
json=$("$RBLKCTL" show rblk0 --json) || vm_fail "rblkctl show --json failed"
vm_assert_eq "1 1 1" "$(python3 -c 'import json, sys
j = json.loads(sys.argv[1])
print(j["nr_io_queues"], j["nr_write_queues"], j["nr_poll_queues"])' "$json")" \
	"show --json: nr_io_queues nr_write_queues nr_poll_queues"
vm_dmesg_has -E 'connected to .*3 I/O queues of [0-9]+ \(1 default, 1 read, 1 poll\)'
vm_assert_eq 1 "$(cat /sys/block/rblk0n1/queue/io_poll)" "queue/io_poll"

# The commands each kind of queue was given (rblk's debugfs lists the
# I/O queues: qid, blk-mq map, size, commands posted), and the disk's
# hardware contexts of each type.
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
# The hardware contexts are the path's (below the head rblk0n1).
path=$(vm_rblk_path_disk rblk0)
vm_assert_eq "default read poll" "$(cat /sys/kernel/debug/block/"$path"/hctx*/type | tr '\n' ' ' | sed 's/ $//')" \
	"the disk's hardware contexts (blk-mq debugfs)"
posted() { awk -v m="$1" '$2 == m { n += $4 } END { print n + 0 }' /sys/kernel/debug/rblk/rblk0/queues; }
counts() { echo "$(posted default) $(posted read) $(posted poll)"; }
vm_log "queues: $(tr '\n' ';' < /sys/kernel/debug/rblk/rblk0/queues)"

# One kind of I/O at a time; only its own context's count may move.
c0=$(counts)
dd if=/dev/urandom of="$dev" bs=64k count=16 oflag=direct status=none
c1=$(counts)
dd if="$dev" of=/dev/null bs=64k count=16 iflag=direct status=none
c2=$(counts)
vm_fio /tmp/hipri.json --name=hipri --filename="$dev" --ioengine=io_uring --hipri=1 \
	--direct=1 --rw=randwrite --bs=4k --iodepth=8 --size=8M --verify=crc32c \
	--do_verify=1 --verify_fatal=1
c3=$(counts)
vm_log "posted (default read poll): start $c0, after writes $c1, reads $c2, polled fio $c3"
python3 - "$c0" "$c1" "$c2" "$c3" <<'PY' || vm_fail "I/O on the wrong hardware context"
import sys
c = [list(map(int, a.split())) for a in sys.argv[1:]]
d = [[b - a for a, b in zip(x, y)] for x, y in zip(c, c[1:])]
assert d[0][0] >= 16 and d[0][1] == 0 and d[0][2] == 0, "writes: %s" % d[0]
assert d[1][1] >= 16 and d[1][0] == 0 and d[1][2] == 0, "reads: %s" % d[1]
# 8 MiB written and read back, 4k each (4096 I/Os, adjacent ones may
# merge): all on the poll queue.
assert 2048 <= d[2][2] <= 4096 + 8 and d[2][0] == 0 and d[2][1] == 0, "polled: %s" % d[2]
PY
python3 - /tmp/hipri.json <<'PY' || vm_fail "fio --hipri report"
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
w, r = j["write"]["io_bytes"], j["read"]["io_bytes"]
assert j["error"] == 0 and w == 8 << 20 and r == w, (j["error"], w, r)
print("fio --hipri: %d KiB written, read back and verified" % (w >> 10))
PY

# The port goes away under polled, verified writes and comes back.
vm_fio /tmp/port.json --name=port --filename="$dev" --ioengine=io_uring --hipri=1 \
	--direct=1 --rw=randwrite --bs=4k --iodepth=8 --size=8M --rate_iops=300 \
	--verify=crc32c --do_verify=1 --verify_fatal=1 &
fio_pid=$!
w0=$(vm_rblk_attr rblk0 writes)
rec_wait_io 60 writes $((w0 + 200))
rec_port_bounce "$nqn" 2
wait "$fio_pid" || vm_fail "polled fio failed across the port loss"
python3 - /tmp/port.json <<'PY' || vm_fail "fio report across the port loss"
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
w, r = j["write"]["io_bytes"], j["read"]["io_bytes"]
assert j["error"] == 0 and w == 8 << 20 and r == w, (j["error"], w, r)
print("polled fio across the port loss: %d KiB written and verified" % (w >> 10))
PY
vm_assert_eq 0 "$(vm_rblk_attr rblk0 errors)" "controller I/O errors"
vm_assert_eq 1 "$(vm_rblk_attr rblk0 nr_poll_queues)" "poll queue after the reconnect"

# rblkctl bench's IOPOLL ring on the poll queue.
out=/tmp/bench.json
b0=$(counts)
timeout -k 5 60 "$RBLKCTL" bench --filename "$dev" --rw randread --bs 4k --iodepth 4 \
	--runtime 2s --hipri --json > "$out" || vm_fail "rblkctl bench --hipri failed: $(cat "$out")"
ios=$(python3 -c 'import json, sys
a = json.load(open(sys.argv[1]))["aggregate"]
assert a["error"] == 0, a
print(a["read"]["total_ios"])' "$out") || vm_fail "bench --hipri report: $(cat "$out")"
[ "$ios" -gt 0 ] || vm_fail "bench --hipri completed no reads"
b1=$(counts)
# Every read on the poll queue; adjacent ones may merge into one command.
python3 - "$b0" "$b1" "$ios" <<'PY' || vm_fail "bench --hipri: reads not on the poll queue"
import sys
d = [b - a for a, b in zip(map(int, sys.argv[1].split()), map(int, sys.argv[2].split()))]
ios = int(sys.argv[3])
print("bench --hipri: %d reads; commands posted (default read poll): %s" % (ios, d), file=sys.stderr)
assert d[0] == 0 and d[1] == 0 and ios // 2 <= d[2] <= ios, d
PY

# Disconnect while polled I/O runs: fio ends (with errors), nothing hangs.
timeout 90 fio --name=busy --filename="$dev" --ioengine=io_uring --hipri=1 --direct=1 \
	--rw=randread --bs=4k --iodepth=8 --time_based --runtime=20 > /tmp/busy.log 2>&1 &
busy=$!
r0=$(vm_rblk_attr rblk0 reads)
rec_wait_io 60 reads $((r0 + 100))
td=$(vm_now_ms)
"$RBLKCTL" disconnect rblk0 > /dev/null || vm_fail "rblkctl disconnect under polled I/O failed"
vm_log "rblkctl disconnect returned after $(vm_ms_since "$td") ms"
vm_wait_for 30 test -z "$(vm_rblk_disks)"
t0=$(vm_now_ms)
rc=0
wait "$busy" || rc=$?
ms=$(vm_ms_since "$t0")
vm_log "polled fio ended with $rc, $ms ms after the disk went: $(grep -E 'err=|read:|issued' /tmp/busy.log | tr '\n' ' ')"
# fio ends on its own, neither hung nor killed: with EIO, or, when its
# reads find the deleted disk's capacity already 0 (del_gendisk() sets it
# first), with reads at end of file (0 bytes) until its runtime is over;
# which one is a matter of timing, on either kernel.
[ "$rc" -ne 124 ] && [ "$rc" -lt 128 ] || vm_fail "polled fio hung after the disconnect ($rc)"
if [ "$rc" -eq 0 ]; then
	grep -q 'err= 0' /tmp/busy.log || vm_fail "polled fio: no result line"
else
	grep -q 'error=Input/output error' /tmp/busy.log || vm_fail "polled fio failed, not with EIO"
fi
vm_rblk_unload
vm_dmesg_clean
