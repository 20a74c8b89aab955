#!/bin/bash
# Many controllers on one poll group: one fio thread of the bypass engine
# with 8 files, each a controller of its own subsystem, whose 8 I/O queues
# share one CQ (the thread's poll group, userlib/initiator's
# poll_group.hpp). randwrite with crc32c verify at QD32, sleeping on the
# group's completion channel, then again busy polling: every controller's
# commands go through, every block reads back as written.
# Then one of 4 subsystems leaves the port under writes of 4 threads, each
# with the 4 files (a queue on each of the 4 controllers the threads
# share, in the thread's group), and comes back: its controller alone
# reconnects, once (each thread's queue on it leaves the thread's group
# and a new one joins while the others' I/O carries on), and every
# thread's verify passes.
# It checks the userspace initiator (the kernel's side is every datapath
# case's): newest kernel only, for the suite's time.
# vm-kernels: newest
# vm-timeout: 600
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
ENGINE=$RBLK_BUILD_DIR/userlib/initiator/fio/librblk_fio.so
vm_require "$ENGINE"

# spec NQN: the engine's filename for NQN's namespace 1, its ':' escaped.
spec() { echo "trtype=rdma adrfam=IPv4 traddr=10.99.0.1 trsvcid=4420 subnqn=${1//:/\\:} ns=1${2:+ $2}"; }

files=""
for i in 0 1 2 3 4 5 6 7; do
	nqn=nqn.2024-01.io.rblk:pg$i
	vm_rdma_target "$nqn" 16 > /dev/null
	files+="${files:+:}$(spec "$nqn")"
done

eng=(--ioengine=external:"$ENGINE" --thread=1 --rblk_stats=1)
common=(--verify=crc32c --verify_fatal=1 --rw=randwrite --bs=4k --iodepth=32 --iodepth_batch_submit=8
	--filesize=1M --file_service_type=random)

for mode in event poll; do
	extra=()
	[ "$mode" = event ] && extra=(--rblk_event=1)
	vm_fio_log "/tmp/fio-$mode.log" "${eng[@]}" --name="$mode" --filename="$files" "${extra[@]}" "${common[@]}"
	# Each file's controller: its 1 MiB written (256 commands) and read
	# back (256 more), the writes in the capsule, the reads through the
	# registered buffers.
	n=$(grep -cE "^rblk: $mode: trtype=rdma .*pg[0-7] ns=1: 512 command\\(s\\): 256 in-capsule, 0 through the pool, 256 through the registered buffer, 0 without data, [0-9]+ doorbell\\(s\\); cntlid [0-9]+, 0 reconnect\\(s\\)$" \
		"/tmp/fio-$mode.log" || true)
	vm_assert_eq 8 "$n" "$mode: all 8 controllers wrote and read back their files"
done

# --- one subsystem leaves and comes back under writes --------------------------------------
# Its namespace completes each I/O after 2 s, so its writes are in flight
# when nvmet takes it off the port.
rnqn=nqn.2024-01.io.rblk:pg-restart
rdisk=$(vm_membacked_disk 1 16 512 0 2000000000)
vm_nvmet_subsys "$rnqn" "$rdisk"
vm_nvmet_link 1 "$rnqn"
rfiles="$(spec "$rnqn" "reconnect_delay=1 ctrl_loss_tmo=60")"
for i in 0 1 2; do
	rfiles+=":$(spec nqn.2024-01.io.rblk:pg$i)"
done
vm_fio_log_across_bounce "$rnqn" "$rdisk" /tmp/fio-restart.log "${eng[@]}" --name=restart --filename="$rfiles" \
	--verify=crc32c --verify_fatal=1 --rw=randwrite --bs=64k --iodepth=8 --size=2M \
	--file_service_type=roundrobin --numjobs=4 --offset_increment=512k
vm_assert_eq 4 "$(grep -cE "^rblk: restart: .*pg-restart .*; cntlid [0-9]+, 1 reconnect\\(s\\)$" /tmp/fio-restart.log || true)" \
	"the restarted subsystem's controller reconnected once, as each of the 4 threads saw it"
vm_assert_eq 12 "$(grep -cE "^rblk: restart: .*pg[0-2] .*; cntlid [0-9]+, 0 reconnect\\(s\\)$" /tmp/fio-restart.log || true)" \
	"the other controllers did not reconnect"
# One controller per file, whichever thread reports it.
for f in pg-restart pg0 pg1 pg2; do
	ids=$(sed -nE "s/^rblk: restart: .*$f ns=1[ :].*; cntlid ([0-9]+), .*/\\1/p" /tmp/fio-restart.log | sort -u)
	vm_assert_eq 1 "$(grep -c . <<< "$ids")" "$f: the 4 threads' controllers (cntlids: ${ids//$'\n'/ })"
done

vm_dmesg_clean
