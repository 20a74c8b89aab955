#!/bin/bash
# io_uring submits a block device's reads with REQ_NOWAIT, and takes an
# EAGAIN back only in the submitting task (to retry from its worker); one
# that ends in another context reaches the application as an I/O error.
# The bios that a reconnect takes back from the target (the head's
# failover, a controller's queues that went away) are resubmitted later
# from a kworker: unless they lose REQ_NOWAIT, a queue still frozen by the
# reconnect or short of tags fails them with EAGAIN, as nvme's failover
# says (drivers/nvme/host/multipath.c, nvme_failover_req()). So: fio
# io_uring randread at QD128 (every tag of a queue) through the head while
# the port drops the subsystem and takes it back, three times, then the
# same through the per-controller disk (multipath=N); fio keeps going on
# errors and must count none.
# vm-timeout: 600
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
. "$RBLK_SRC_DIR/tests/vm/lib-recovery.sh"
vm_require "$RBLKCTL"

nqn=nqn.2024-01.io.rblk:recovery-nowait

# outages DEV: fio on DEV through three outages of the port; sets `err`
# (fio's error count) and `ios` (its reads).
outages() {
	local dev=$1 json=/tmp/nowait.json r0 rc=0
	timeout -k 5 $((300 * VM_SLOW)) fio --output-format=json --output="$json" --name=nowait \
		--filename="$dev" --ioengine=io_uring --direct=1 --rw=randread --bs=4k \
		--iodepth=128 --time_based --runtime=$((240 * VM_SLOW)) --cpus_allowed=0 \
		--continue_on_error=all 2> /tmp/nowait.err &
	fio_pid=$!
	for _ in 1 2 3; do
		r0=$(vm_rblk_attr rblk0 reads)
		vm_wait_for 60 reading $((r0 + 2000))
		rec_port_bounce "$nqn" 1
	done
	r0=$(vm_rblk_attr rblk0 reads)
	vm_wait_for 60 reading $((r0 + 2000))
	kill -INT "$fio_pid"
	wait "$fio_pid" || rc=$?
	# 128: its SIGINT above.
	[ "$rc" -eq 0 ] || [ "$rc" -eq 128 ] || vm_fail "fio on $dev exited $rc: $(head -c 1500 /tmp/nowait.err)"
	read -r err ios < <(python3 - "$json" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
job = json.loads(text[text.index('{'):])['jobs'][0]
print(job['total_err'], job['read']['total_ios'])
PY
	)
	# fio's count misses what ended it; its log names every failed read.
	err=$((err + $(grep -c 'io_u error' /tmp/nowait.err || true)))
}
# reading N: fio still runs and rblk0 has done N reads.
reading() {
	[ -e "/proc/$fio_pid" ] ||
		vm_fail "fio ended early: $(grep -m 3 'fio:' /tmp/nowait.err | tr '\n' ' ')($(grep -c 'io_u error' /tmp/nowait.err) failed reads)"
	[ "$(vm_rblk_attr rblk0 reads)" -ge "$1" ]
}

vm_rdma_target "$nqn" 64 > /dev/null
vm_rblk_load
vm_rblk_connect "$nqn" --reconnect-delay 1 --ctrl-loss-tmo 300 --fast-io-fail-tmo -1 > /dev/null
vm_assert_exists /sys/block/rblk0c0n1 "the hidden path under the head"
outages /dev/rblk0n1
rec_result "nowait through the head: $ios reads, $err errors over 3 reconnects"
vm_assert_eq 0 "$err" "reads that failed through the head across 3 reconnects"
"$RBLKCTL" disconnect rblk0 > /dev/null || vm_fail "disconnect failed"
vm_rblk_unload

vm_rblk_load multipath=N
vm_rblk_connect "$nqn" --reconnect-delay 1 --ctrl-loss-tmo 300 --fast-io-fail-tmo -1 > /dev/null
vm_assert_not_exists /sys/block/rblk0c0n1 "a head with multipath=N"
outages /dev/rblk0n1
rec_result "nowait through the controller's disk: $ios reads, $err errors over 3 reconnects"
vm_assert_eq 0 "$err" "reads that failed through the controller's disk across 3 reconnects"
