#!/bin/bash
# 20 connect/disconnect cycles against nvmet-rdma leave nothing behind:
# slab back to its baseline (drop_caches first), no /sys/class/rblk entry,
# no rblk block device, and the module unloads. The leak bound is fixed at
# 2 MiB over the 20 cycles (100 KiB a cycle); the case also measures what
# one live controller costs and checks that leaking it once per cycle
# would be far above that bound.
# vm-timeout: 600
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
vm_require "$RBLKCTL"

nqn=nqn.2024-01.io.rblk:lc-cycles
cycles=20 bound_kib=2048
vm_rdma_target "$nqn" 32 > /dev/null
vm_rblk_load

connect() { vm_rblk_connect "$nqn" -i 2 -Q 128 > /dev/null; }
disconnect() { "$RBLKCTL" disconnect rblk0 > /dev/null || vm_fail "rblkctl disconnect rblk0 failed (cycle $1)"; }

# Warm-up: slab caches, rxe pools and nvmet's own allocations reach their
# steady state before the baseline.
for i in 1 2; do
	connect
	disconnect "warm-up $i"
done
base=$(vm_slab_kib)
connect
live=$(vm_slab_kib)
disconnect 0
per_ctrl=$((live - base))
echo "RESULT: slab of one live controller (2 I/O queues x 128, target side included): $per_ctrl KiB"
[ $((per_ctrl * cycles)) -gt $((4 * bound_kib)) ] ||
	vm_fail "one controller is only $per_ctrl KiB: leaking it every cycle would not clearly exceed the ${bound_kib} KiB bound"

# The caches that grew most, to tell a leak from noise in the log.
vm_slab_caches /tmp/slab.before

t0=$EPOCHSECONDS
for ((i = 1; i <= cycles; i++)); do
	connect
	vm_assert_exists /dev/rblk0n1
	disconnect "$i"
	[ ! -e /sys/class/rblk/rblk0 ] || vm_fail "/sys/class/rblk/rblk0 left after cycle $i"
done
elapsed=$(($EPOCHSECONDS - t0))
after=$(vm_slab_kib)
delta=$((after - base))
vm_slab_caches /tmp/slab.after
vm_slab_growth /tmp/slab.before /tmp/slab.after
echo "RESULT: $cycles connect/disconnect cycles took ${elapsed}s; slab $base -> $after KiB, delta $delta KiB (bound $bound_kib KiB)"
[ "$delta" -le "$bound_kib" ] || vm_fail "slab grew by $delta KiB over $cycles cycles (bound $bound_kib KiB)"

vm_assert_eq "" "$(ls -A /sys/class/rblk)" "/sys/class/rblk after the cycles"
vm_assert_eq "" "$(vm_rblk_disks)" "rblk block devices after the cycles"
vm_assert_eq "" "$(find /sys/block -maxdepth 1 -name 'rblk*')" "rblk disks in /sys/block after the cycles"
vm_rblk_unload
vm_dmesg_clean
