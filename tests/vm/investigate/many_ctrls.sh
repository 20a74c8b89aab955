#!/bin/bash
# Usage: tests/vm/run-in-vm.sh --build-dir build --kernel 6.12 \
#            tests/vm/investigate/many_ctrls.sh [N...]
# How connect time, slab and disconnect time grow with the number of
# controllers (issue 31 §3): N controllers (default 1, 16 and 64) to the
# test target, one per host (its own host NQN and Host ID, so that neither
# initiator merges them), for rblk and then for nvme-rdma, in this one
# boot. Prints RESULT lines. Not a test: it reports and exits 0 unless a
# connect fails.
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
[ $# -gt 0 ] || set -- 1 16 64
TGT_NQN=nqn.2024-01.io.rblk:many-ctrls
vm_rdma_target "$TGT_NQN" 64 > /dev/null
vm_rblk_load
vm_modprobe nvme-rdma

host_id() { printf '%08x-0000-4000-8000-%012x' "$1" "$1"; }
host_nqn() { echo "nqn.2014-08.org.nvmexpress:uuid:$(host_id "$1")"; }

connect_rblk() {
	"$RBLKCTL" connect -a 10.99.0.1 -n "$TGT_NQN" -q "$(host_nqn "$1")" -I "$(host_id "$1")" > /dev/null ||
		vm_fail "rblk connect $1 failed"
}
# The fabrics device itself: nvme-cli 2.4 says "already connected" to a
# second host on one subsystem and address, even with -D.
connect_nvme() {
	echo "transport=rdma,traddr=10.99.0.1,trsvcid=4420,nqn=$TGT_NQN,hostnqn=$(host_nqn "$1"),hostid=$(host_id "$1")" \
		> /dev/nvme-fabrics || vm_fail "nvme connect $1 failed"
}
disconnect_rblk() { "$RBLKCTL" disconnect -A > /dev/null || vm_fail "rblk disconnect failed"; }
disconnect_nvme() { nvme disconnect -n "$TGT_NQN" > /dev/null || vm_fail "nvme disconnect failed"; }

for n in "$@"; do
	for who in rblk nvme; do
		base=$(vm_slab_kib)
		t0=$(vm_now_ms)
		for ((i = 1; i <= n; i++)); do
			"connect_$who" "$i"
		done
		ms=$(vm_ms_since "$t0")
		live=$(vm_slab_kib)
		t0=$(vm_now_ms)
		"disconnect_$who"
		dms=$(vm_ms_since "$t0")
		echo "RESULT: $who, $n controllers: connect ${ms} ms ($((ms / n)) ms each), slab +$((live - base)) KiB" \
			"($(((live - base) / n)) KiB each), disconnect ${dms} ms"
		sleep 2
	done
done
vm_nvmet_teardown
