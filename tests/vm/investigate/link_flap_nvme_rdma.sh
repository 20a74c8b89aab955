#!/bin/bash
# Usage: tests/vm/run-in-vm.sh --build-dir build --timeout 600 tests/vm/investigate/link_flap_nvme_rdma.sh [FLAP_SECONDS]
# Reproduces the kernel nvme-rdma host under a soft-RoCE link flap: fio
# randwrite+verify, veth1 down FLAP_SECONDS (default 5), up; then prints
# where fio, the nvme kworkers and `nvme disconnect` sit (kernel stacks),
# the QPs, and dmesg. Not a test: it always exits 0 once it has looked.
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
. "$RBLK_SRC_DIR/tests/vm/lib-flap.sh"
set +e
flap=${1:-5}
nqn=nqn.2024-01.io.rblk:flap-ref

vm_rdma_target "$nqn" 64 > /dev/null
dev=$(vm_nvme_ref_connect "$nqn" 10.99.0.1 4420 --keep-alive-tmo=5 \
	--reconnect-delay=2 --ctrl-loss-tmo=60)
ctrl=$(basename "$(readlink -f "/sys/block/$(basename "$dev")/device")")
[ -d "/sys/class/nvme/$ctrl" ] || ctrl=nvme0
echo "device $dev controller $ctrl state $(cat "/sys/class/nvme/$ctrl/state")"
flap_qps
flap_rxe_debug

fio --name=flap --filename="$dev" --ioengine=libaio --direct=1 --rw=randwrite \
	--bs=4k --iodepth=8 --size=8M --loops=1000 --time_based --runtime=12 \
	--verify=crc32c --do_verify=1 --verify_fatal=1 --output=/tmp/fio.out &
fio_pid=$!
sleep 3
# watch WHAT PID SECS: wait up to SECS for PID; if it is still running then,
# show where it and the nvme workers sit.
watch() {
	local what=$1 pid=$2 end=$(( $(date +%s) + $3 )) t0 rc=0 next=0
	t0=$(date +%s)
	while kill -0 "$pid" 2> /dev/null && [ "$(date +%s)" -lt "$end" ]; do
		if [ "$(date +%s)" -ge "$next" ]; then
			echo "+$(( $(date +%s) - t0 ))s: $what running, controller $(cat "/sys/class/nvme/$ctrl/state" 2> /dev/null)"
			next=$(( $(date +%s) + 15 ))
		fi
		sleep 1
	done
	if kill -0 "$pid" 2> /dev/null; then
		echo "RESULT: nvme-rdma $what still running after $(( $(date +%s) - t0 ))s"
		flap_stacks "$what stuck"
		flap_qps
		echo w > /proc/sysrq-trigger
		return 0
	fi
	wait "$pid" || rc=$?
	echo "RESULT: nvme-rdma $what exited $rc after $(( $(date +%s) - t0 ))s"
}

flap_link "$flap"
# Enough for kato (5 s), the 30 s I/O timeout and a few reconnects.
watch "fio (from link up)" "$fio_pid" 120
tail -30 /tmp/fio.out
# nvme disconnect may sit in D state for good: it is left behind.
nvme disconnect -n "$nqn" &
watch "disconnect" $! 90
exit 0
