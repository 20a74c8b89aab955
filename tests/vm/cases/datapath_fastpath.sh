#!/bin/bash
# The fast path's send side, as rblk's debugfs counts it per I/O queue
# (rblk/rblk0/queues: commands posted, signaled work requests, doorbells
# rung, posts with bottom halves off):
# - 4k writes travel as in-capsule data, whose SEND stays signaled (its
#   pages are unmapped when the command ends): as many signaled as posted;
# - 4k reads post their SEND unsignaled, but for one every sig_every work
#   requests (32 on a 128-entry queue: 16 reads of a REG_MR and a SEND
#   each) that lets the send queue retire: at most 1/8 of them;
# - fio submitting and reaping 8 at a time (iodepth_batch_submit,
#   iodepth_batch_complete_min) hands blk-mq batches that go out as
#   chains: fewer doorbells than commands;
# - unsignaled SENDs and batches are the only way: nothing turns them off;
# - the module loaded with bh_posts=Y (N by default) posts with bottom
#   halves off when the controller is idle: at QD1, every post.
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
vm_assert_eq "qid map size posted signaled doorbells inline" "$(head -n1 "$queues")" "debugfs queues header"
counts() { awk 'NR == 2 { print $4, $5, $6, $7 }' "$queues"; }
job=(--filename="$dev" --ioengine=io_uring --direct=1 --bs=4k --size=4M
	--verify=crc32c --verify_fatal=1 --rw=randwrite --name=w)
# step TITLE FIO-ARGS...: runs fio (the job above plus FIO-ARGS) and sets
# posted, signaled, doorbells and inlined (posts with bottom halves off)
# to what the queue counted meanwhile.
step() {
	local title=$1
	local -a a b
	shift
	read -r -a a <<< "$(counts)"
	vm_fio /tmp/fastpath.json "${job[@]}" "$@"
	read -r -a b <<< "$(counts)"
	posted=$((b[0] - a[0])) signaled=$((b[1] - a[1])) doorbells=$((b[2] - a[2]))
	inlined=$((b[3] - a[3]))
	vm_log "$title: posted $posted signaled $signaled doorbells $doorbells inline $inlined"
	# Adjacent reads submitted together may merge (6.1 does): 512 at least.
	[ "$posted" -ge 512 ] || vm_fail "$title: 4 MiB in 4k I/Os posted only $posted commands"
}
# signaled_at_most N: between one and 1/N of the SENDs were signaled.
signaled_at_most() {
	if [ "$signaled" -lt 1 ] || [ $((signaled * $1)) -gt "$posted" ]; then
		vm_fail "$signaled of $posted SENDs signaled, not between 1 and 1/$1"
	fi
}

vm_assert_not_exists /sys/kernel/debug/rblk/tune
vm_assert_eq N "$(cat /sys/module/rblk/parameters/bh_posts)" "bh_posts by default"

step "4k writes" --iodepth=16 --do_verify=0
vm_assert_eq "$posted" "$signaled" "signaled SENDs of in-capsule writes"
vm_assert_eq 0 "$inlined" "posts with bottom halves off, by default"

step "4k verified reads" --iodepth=32 --verify_only=1
signaled_at_most 8

batch=(--iodepth=32 --iodepth_batch_submit=8 --iodepth_batch_complete_min=8)
step "batched verified reads" "${batch[@]}" --verify_only=1
[ "$doorbells" -lt "$posted" ] ||
	vm_fail "batches of 8: $doorbells doorbells for $posted commands, no chain at all"

# bh_posts: one read at a time leaves the controller idle before each,
# so every post runs with bottom halves off; the data still verifies.
"$RBLKCTL" disconnect rblk0 > /dev/null || vm_fail "rblkctl disconnect failed"
vm_rblk_unload
vm_rblk_load bh_posts=Y
vm_rblk_connect "$nqn" --nr-io-queues 1 --queue-size 128 > /dev/null
ctrl=$(vm_rblk_ctrls)
dev=/dev/${ctrl}n1
vm_assert_exists "$dev"
queues=/sys/kernel/debug/rblk/$ctrl/queues
job[0]=--filename="$dev"
step "bh_posts, QD1 verified reads" --iodepth=1 --verify_only=1
vm_assert_eq "$posted" "$inlined" "QD1 posts with bottom halves off"

"$RBLKCTL" disconnect "$ctrl" > /dev/null || vm_fail "rblkctl disconnect failed"
vm_dmesg_clean
vm_log "datapath_fastpath: ok"
