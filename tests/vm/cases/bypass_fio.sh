#!/bin/bash
# fio's external ioengine over the kernel-bypass path (librblk_fio.so):
# randwrite with crc32c verify, 2 jobs (2 threads sharing one controller,
# each with its own I/O queue), at QD1 busy polling and at QD32 sleeping on the
# completion channel (rblk_event=1) with a flush every 64 writes, 8
# commands submitted at a time and chained behind one doorbell; every
# command's data in the capsule or through fio's buffers registered once
# (rblk_stats=1 says how it went). Then rblk.ko
# reads the same regions back and fio's verify_only checks them on the
# kernel path. Trims deallocate (zeroes read back through rblk.ko). The
# target restarted under a verify job of 4 threads on one controller:
# each thread holds its I/O, the controller reconnects once, each thread's
# queue joins the new association and sends its I/O again, and the
# verify passes; taken away for good, each of the 4 threads fails its
# writes with EIO once fast_io_fail_tmo has passed, and none hangs. A
# filename without subnqn= and a process-mode job each fail with one line.
# It checks the userspace initiator and the engine (rblk.ko's side is every
# datapath case's, on both kernels): newest kernel only, for the suite's
# time.
# vm-kernels: newest
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
ENGINE=$RBLK_BUILD_DIR/userlib/initiator/fio/librblk_fio.so
vm_require "$ENGINE" "$RBLKCTL"

nqn=nqn.2024-01.io.rblk:fio
vm_rdma_target "$nqn" 32 > /dev/null
# fio splits filenames on ':': the NQN's are escaped.
spec="trtype=rdma adrfam=IPv4 traddr=10.99.0.1 trsvcid=4420 subnqn=${nqn//:/\\:} ns=1"

# The two workloads: QD1 4k over [0, 2M), QD32 16k over [4M, 12M); each of
# the 2 jobs its own half (offset_increment). The same options replay the
# same offsets and seeds for verify_only. 4k writes go in the capsule, 16k
# ones and all reads by keyed SGL from fio's registered buffers.
job_args() {
	case $1 in
	qd1) args=(--name=qd1 --rw=randwrite --bs=4k --iodepth=1 --numjobs=2 --size=1M --offset=0
		--offset_increment=1M) ;;
	qd32) args=(--name=qd32 --rw=randwrite --bs=16k --iodepth=32 --iodepth_batch_submit=8
		--iodepth_batch_complete_min=8 --numjobs=2 --size=4M --offset=4M --offset_increment=4M) ;;
	esac
}
common=(--verify=crc32c --verify_fatal=1 --group_reporting=0)

eng=(--ioengine=external:"$ENGINE" --thread=1 --rblk_stats=1)
for w in qd1 qd32; do
	job_args "$w"
	extra=()
	caps='[1-9][0-9]*' flushes=0
	# QD32 also flushes every 64 writes (fsync=: NVMe Flush).
	[ "$w" = qd32 ] && extra=(--rblk_event=1 --fsync=64) && caps=0 && flushes='[1-9][0-9]*'
	vm_fio_log "/tmp/fio-$w.log" "${eng[@]}" --filename="$spec" "${extra[@]}" "${args[@]}" "${common[@]}"
	# Each thread: its data in the capsule or through the registered
	# buffers, never staged through the pool.
	n=$(grep -cE "^rblk: $w: [0-9]+ command\\(s\\): $caps in-capsule, 0 through the pool, [1-9][0-9]* through the registered buffer, $flushes without data" "/tmp/fio-$w.log" || true)
	vm_assert_eq 2 "$n" "$w: both threads' commands went through the registered buffers"
	# One controller for the file: both threads name the same cntlid.
	ids=$(sed -nE "s/^rblk: $w: .*; cntlid ([0-9]+), .*/\1/p" "/tmp/fio-$w.log" | sort -u)
	vm_assert_eq 1 "$(grep -c . <<< "$ids")" "$w: the threads' controllers (cntlids: ${ids//$'\n'/ })"
	# Doorbells: QD1 rings one a command; QD32 submits and reaps 8 at a
	# time, and the engine posts each batch as one chain (commit()).
	counts=$(sed -nE "s/^rblk: $w: ([0-9]+) command\(s\): .* without data, ([0-9]+) doorbell\(s\);.*/\1 \2/p" \
		"/tmp/fio-$w.log")
	vm_assert_eq 2 "$(wc -l <<< "$counts")" "$w: both threads' doorbell counts"
	while read -r cmds bells; do
		vm_log "$w: $cmds command(s), $bells doorbell(s)"
		if [ "$w" = qd1 ]; then
			vm_assert_eq "$cmds" "$bells" "qd1: doorbells, one a command"
		elif [ $((bells * 4)) -gt "$cmds" ]; then
			vm_fail "qd32: $bells doorbell(s) for $cmds command(s): the batches were not chained"
		fi
	done <<< "$counts"
done

# --- rblk.ko reads back what the engine wrote ------------------------------------------
vm_rblk_load
vm_assert_eq $'rblk0\n/dev/rblk0n1' "$(vm_rblk_connect "$nqn" -i 1)" "rblkctl connect"
for w in qd1 qd32; do
	job_args "$w"
	vm_fio_log "/tmp/fio-$w-kernel.log" --ioengine=libaio --direct=1 --filename=/dev/rblk0n1 \
		--verify_only=1 "${args[@]}" "${common[@]}"
done
# The check has teeth: one block of the QD1 region overwritten, verify_only fails.
head -c 4096 /dev/urandom > /tmp/junk
vm_put /tmp/junk /dev/rblk0n1 $((512 << 10))
job_args qd1
rc=0
timeout -k 5 240 fio --ioengine=libaio --direct=1 --filename=/dev/rblk0n1 --verify_only=1 \
	"${args[@]}" "${common[@]}" > /tmp/fio-corrupt.log 2>&1 || rc=$?
vm_assert_ne 0 "$rc" "fio verify_only over a corrupted block"
bad=$(grep -m1 -E 'verify: bad magic header|verify failed at file' /tmp/fio-corrupt.log || true)
vm_assert_match 'offset 524288|bad magic header' "$bad" "fio's report of the corrupted block"
vm_log "corrupted block caught: $bad"

# --- trims: Dataset Management deallocates, the range in the capsule ------------------------
# The namespace (null_blk, memory-backed, discard on) reads deallocated
# blocks as zeroes: after the engine trims [0, 256K) of the QD1 region,
# rblk.ko reads zeroes there and fio's data after it.
vm_fio_log /tmp/fio-trim.log "${eng[@]}" --filename="$spec" --name=trim --rw=trim --bs=64k \
	--size=256k --offset=0 --iodepth=4
n=$(grep -cE '^rblk: trim: 4 command\(s\): 4 in-capsule' /tmp/fio-trim.log || true)
vm_assert_eq 1 "$n" "trim: 4 commands, each range in the capsule"
dd if=/dev/rblk0n1 of=/tmp/trimmed bs=64k count=5 iflag=direct status=none
cmp -n $((256 << 10)) /tmp/trimmed /dev/zero > /dev/null ||
	vm_fail "the trimmed range [0, 256K) does not read back as zeroes through rblk.ko"
! cmp -s -i $((256 << 10)):0 -n $((64 << 10)) /tmp/trimmed /dev/zero ||
	vm_fail "the block after the trimmed range reads as zeroes: more was trimmed than asked"
vm_log "trim: [0, 256K) reads zeroes, the 64K after it fio's data"

# --- the target restarted under a verify job of 4 threads on one controller ----------------
# nvmet takes the subsystem off its port while the writes are in flight
# and puts it back 2 s later:
# each thread holds what came back; the first to recover reconnects the
# controller (reconnect_delay=1), every thread its own queue on the new
# association, and each sends its I/O again; fio's verify reads then find
# every block of every thread's region.
# slow_subsystem NQN: a subsystem on the port whose namespace completes
# each I/O after 2 s (so writes are in flight when it leaves); prints its disk.
slow_subsystem() {
	local disk
	disk=$(vm_membacked_disk 1 32 512 0 2000000000)
	vm_nvmet_subsys "$1" "$disk"
	vm_nvmet_link 1 "$1"
	echo "$disk"
}
# slow_spec NQN OPTIONS: the engine's filename for NQN's namespace 1.
slow_spec() { echo "trtype=rdma traddr=10.99.0.1 trsvcid=4420 subnqn=${1//:/\\:} ns=1 $2"; }

rnqn=nqn.2024-01.io.rblk:fio-restart
rdisk=$(slow_subsystem "$rnqn")
rspec=$(slow_spec "$rnqn" "reconnect_delay=1 ctrl_loss_tmo=60")
vm_fio_log_across_bounce "$rnqn" "$rdisk" /tmp/fio-restart.log "${eng[@]}" --filename="$rspec" --name=restart \
	--rw=randwrite --bs=64k --iodepth=8 --size=1M --numjobs=4 --offset_increment=1M "${common[@]}"
lines=$(grep -E '^rblk: restart: ' /tmp/fio-restart.log || true)
vm_assert_eq 4 "$(grep -c . <<< "$lines")" "the restart job's threads that reported"
vm_assert_eq 4 "$(grep -cE '; cntlid [0-9]+, 1 reconnect\(s\)$' <<< "$lines")" \
	"each thread saw its controller reconnect once: $lines"
ids=$(sed -nE 's/.*; cntlid ([0-9]+), .*/\1/p' <<< "$lines" | sort -u)
vm_assert_eq 1 "$(grep -c . <<< "$ids")" "the 4 threads' controller after the restart (cntlids: ${ids//$'\n'/ })"
vm_log "restart: 4 threads on controller $ids, one reconnect"

# --- the target gone for good under 4 threads on one controller ---------------------------
# The subsystem leaves the port under their writes and stays away: the
# first thread to recover tries to reconnect until fast_io_fail_tmo (2 s)
# has passed, each other thread's turn then finds it past too, and every
# thread's held writes fail with EIO: each job ends with fio's error, none
# hangs (fio stops a job at its first error).
gnqn=nqn.2024-01.io.rblk:fio-gone
gdisk=$(slow_subsystem "$gnqn")
gspec=$(slow_spec "$gnqn" "reconnect_delay=1 fast_io_fail_tmo=2 ctrl_loss_tmo=60")
timeout -k 5 180 fio "${eng[@]}" --filename="$gspec" --name=gone --rw=randwrite --bs=64k --iodepth=8 \
	--size=1M --numjobs=4 --offset_increment=1M > /tmp/fio-gone.log 2>&1 &
fio_pid=$!
vm_wait_for 60 vm__writing "$gdisk"
vm_nvmet_unlink 1 "$gnqn"
rc=0
wait "$fio_pid" || rc=$?
vm_assert_ne 124 "$rc" "fio with its target gone for good ended (timeout 180 s)"
vm_assert_ne 0 "$rc" "fio's exit code with its target gone for good"
failed=$(grep -cE '^gone: \(groupid=0, jobs=1\): err= ?5 ' /tmp/fio-gone.log || true)
vm_assert_eq 4 "$failed" "threads whose job ended with EIO: $(grep -E '^gone: |rblk: ' /tmp/fio-gone.log | head -n 12)"
# Each thread says why, once.
why=$(grep -E '^rblk: .*fio-gone ns=1 .*: I/O failed after fast_io_fail_tmo: ' /tmp/fio-gone.log || true)
vm_assert_eq 4 "$(grep -c . <<< "$why")" "the threads' reasons: $why"
vm_log "gone for good: 4 threads failed with EIO: ${why%%$'\n'*}"

# --- user errors: one line each ------------------------------------------------------------
rc=0
out=$(fio --name=bad "${eng[@]}" --filename='trtype=rdma traddr=10.99.0.1 ns=1' --rw=read --size=4k 2>&1) || rc=$?
vm_assert_ne 0 "$rc" "fio exit code without subnqn="
vm_assert_contains "$out" "rblk: trtype=rdma traddr=10.99.0.1 ns=1: no subnqn= in the filename"
rc=0
out=$(fio --name=bad --ioengine=external:"$ENGINE" --filename="$spec" --rw=read --size=4k 2>&1) || rc=$?
vm_assert_ne 0 "$rc" "fio exit code in process mode"
vm_assert_contains "$out" "rblk: the engine runs in threads only: set thread=1"

"$RBLKCTL" disconnect rblk0 > /dev/null || vm_fail "rblkctl disconnect rblk0 failed"
vm_rblk_unload
vm_dmesg_clean
