#!/bin/bash
# Usage: tests/vm/run-in-vm.sh --build-dir build --timeout 900 tests/vm/investigate/rxe_loss.sh [LOSS%] [SECS]
# Soft-RoCE under packet loss: fio 4k randread QD32 through rblk.ko and
# through the kernel's nvme-rdma (each its own controller on one nvmet-rdma
# target) while netem drops LOSS% (default 1) of veth1's packets, so that
# rxe retransmits. Prints, per side, fio's outcome, the reconnects, and
# rxe's debug lines for a REG_MR refused ("not free"). Not a test: it
# always exits 0 once it has looked.
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
set +e
loss=${1:-1} secs=${2:-30}
nqn=nqn.2024-01.io.rblk:loss
vm_rdma_target "$nqn" 256 > /dev/null
vm_rblk_load
vm_rblk_connect "$nqn" > /dev/null
ref=$(vm_nvme_ref_connect "$nqn" 10.99.0.1 4420 --reconnect-delay=2 --ctrl-loss-tmo=60)
echo 'module rdma_rxe func rxe_reg_fast_mr +p' > /proc/dynamic_debug/control
echo 'module rdma_rxe func rxe_invalidate_mr +p' > /proc/dynamic_debug/control
echo 'module rdma_rxe func retransmit_timer +p' > /proc/dynamic_debug/control
modprobe sch_netem || echo "no netem"
tc qdisc add dev veth1 root netem loss "$loss%"
tc qdisc add dev veth0 root netem loss "$loss%"
for dev in /dev/rblk0n1 "$ref"; do
	echo "=== $dev, loss $loss% both ways, $secs s"
	dmesg -C
	fio --name=loss --filename="$dev" --ioengine=io_uring --direct=1 --rw=randread --bs=4k \
		--iodepth=32 --time_based --runtime="$secs" --size=128M --output=/tmp/fio.out
	echo "fio exit $?: $(grep -E 'err=|IOPS' /tmp/fio.out | tr -s ' ' | tr '\n' ' ')"
	echo "retransmit timer lines: $(dmesg | grep -c 'retransmit timer fired')"
	echo "not free: $(dmesg | grep -c 'not free')"
	dmesg | grep -v 'retransmit timer fired' | tail -25
done
tc qdisc del dev veth1 root
tc qdisc del dev veth0 root
"$RBLKCTL" stats rblk0 | grep -iE "reconnect|error"
exit 0
