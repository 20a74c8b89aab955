#!/bin/bash
# The fast path's send side, as rblk's debugfs counts it per I/O queue
# (rblk/rblk0/queues: commands posted, signaled work requests, doorbells
# rung) and as rblk/tune/ switches it:
# - 4k writes travel as in-capsule data, whose SEND stays signaled (its
#   pages are unmapped when the command ends): as many signaled as posted;
# - 4k reads post their SEND unsignaled, but for one every sig_every work
#   requests (32 on a 128-entry queue: 16 reads of a REG_MR and a SEND
#   each) that lets the send queue retire: at most 1/8 of them;
# - fio submitting and reaping 8 at a time (iodepth_batch_submit,
#   iodepth_batch_complete_min) hands blk-mq batches that go out as
#   chains: fewer doorbells than commands;
# - each step turned off in rblk/tune/ gives what nvme-rdma does: a
#   signaled SEND and a doorbell per command;
# - with tune/read_pool on (for queues set up after), 4k reads land in a
#   pool registered once and are copied out: one WR each, so at most one
#   SEND in 16 is signaled, and the data verifies.
# Every block read back is verified against what was written.
# vm-timeout: 300
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
vm_require "$RBLKCTL"

nqn=nqn.2024-01.io.rblk:fastpath
vm_rdma_target "$nqn" 64 > /dev/null
vm_rblk_load
vm_rblk_connect "$nqn" --nr-io-queues 1 --queue-size 128 > /dev/null
dev=/dev/rblk0n1
vm_assert_exists "$dev"
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
queues=/sys/kernel/debug/rblk/rblk0/queues
tune=/sys/kernel/debug/rblk/tune
vm_assert_eq "qid map size posted signaled doorbells" "$(head -n1 "$queues")" "debugfs queues header"
counts() { awk 'NR == 2 { print $4, $5, $6 }' "$queues"; }
# delta BEFORE AFTER: posted signaled doorbells in between
delta() {
	local -a a b
	read -r -a a <<< "$1"
	read -r -a b <<< "$2"
	echo "$((b[0] - a[0])) $((b[1] - a[1])) $((b[2] - a[2]))"
}
job=(--filename="$dev" --ioengine=io_uring --direct=1 --bs=4k --size=4M
	--verify=crc32c --verify_fatal=1)

# Writes: in-capsule, every one signaled.
c0=$(counts)
vm_fio /tmp/fp-w.json --name=w "${job[@]}" --rw=randwrite --iodepth=16 --do_verify=0
c1=$(counts)
read -r posted signaled doorbells <<< "$(delta "$c0" "$c1")"
vm_log "4k writes: posted $posted signaled $signaled doorbells $doorbells"
[ "$posted" -ge 1024 ] || vm_fail "4 MiB of 4k writes posted only $posted commands"
vm_assert_eq "$posted" "$signaled" "signaled SENDs of in-capsule writes"

# Reads, one at a time from fio: unsignaled but for one in 16.
vm_fio /tmp/fp-r.json --name=w "${job[@]}" --rw=randwrite --iodepth=32 --verify_only=1
c2=$(counts)
read -r posted signaled doorbells <<< "$(delta "$c1" "$c2")"
vm_log "4k verified reads: posted $posted signaled $signaled doorbells $doorbells"
# Adjacent reads submitted together may merge (6.1 does): 512 at least.
[ "$posted" -ge 512 ] || vm_fail "4 MiB of 4k reads posted only $posted commands"
[ "$signaled" -ge 1 ] && [ $((signaled * 8)) -le "$posted" ] ||
	vm_fail "reads: $signaled of $posted SENDs signaled, not between 1 and 1/8"

# Batched submission: chains, fewer doorbells.
batch=(--iodepth=32 --iodepth_batch_submit=8 --iodepth_batch_complete_min=8)
vm_fio /tmp/fp-b.json --name=w "${job[@]}" --rw=randwrite "${batch[@]}" --verify_only=1
c3=$(counts)
read -r posted signaled doorbells <<< "$(delta "$c2" "$c3")"
vm_log "batched verified reads: posted $posted signaled $signaled doorbells $doorbells"
[ "$doorbells" -lt "$posted" ] ||
	vm_fail "batches of 8: $doorbells doorbells for $posted commands, no chain at all"

# Everything off: nvme-rdma's way, and the data still right.
for t in unsignaled_sends batch_posts bh_posts; do
	vm_assert_eq Y "$(cat "$tune/$t")" "tune/$t by default"
	echo N > "$tune/$t"
done
vm_fio /tmp/fp-off.json --name=w "${job[@]}" --rw=randwrite "${batch[@]}" --verify_only=1
c4=$(counts)
for t in unsignaled_sends batch_posts bh_posts; do echo Y > "$tune/$t"; done
read -r posted signaled doorbells <<< "$(delta "$c3" "$c4")"
vm_log "all steps off: posted $posted signaled $signaled doorbells $doorbells"
[ "$posted" -ge 512 ] || vm_fail "tune off: only $posted commands posted"
vm_assert_eq "$posted $posted" "$signaled $doorbells" "tune off: signaled and doorbells per command"

# The small-read pool, on a controller connected after turning it on.
vm_assert_eq N "$(cat "$tune/read_pool")" "tune/read_pool by default"
echo Y > "$tune/read_pool"
"$RBLKCTL" disconnect rblk0 > /dev/null || vm_fail "rblkctl disconnect failed"
vm_rblk_connect "$nqn" --nr-io-queues 1 --queue-size 128 > /dev/null
echo N > "$tune/read_pool"
ctrl=$(vm_rblk_ctrls)
dev=/dev/${ctrl}n1
vm_assert_exists "$dev"
queues=/sys/kernel/debug/rblk/$ctrl/queues
job[0]=--filename="$dev"
c5=$(counts)
vm_fio /tmp/fp-pool.json --name=w "${job[@]}" --rw=randwrite --iodepth=32 --verify_only=1
c6=$(counts)
read -r posted signaled doorbells <<< "$(delta "$c5" "$c6")"
vm_log "pooled verified reads: posted $posted signaled $signaled doorbells $doorbells"
[ "$posted" -ge 512 ] || vm_fail "pooled reads: only $posted commands posted"
[ "$signaled" -ge 1 ] && [ $((signaled * 16)) -le "$posted" ] ||
	vm_fail "pooled reads: $signaled of $posted SENDs signaled, not between 1 and 1/16"
# Writes on a pooled queue still register (and verify as they go).
vm_fio /tmp/fp-pool-w.json --name=w2 "${job[@]}" --rw=randwrite --bs=64k --iodepth=4 --do_verify=1

"$RBLKCTL" disconnect "$ctrl" > /dev/null || vm_fail "rblkctl disconnect failed"
vm_dmesg_clean
vm_log "datapath_fastpath: ok"
