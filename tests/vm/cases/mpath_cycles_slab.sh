#!/bin/bash
# 20 two-path connect/disconnect cycles leave nothing behind: slab back to
# its baseline (drop_caches first; bound 2 MiB over the 20 cycles, as
# lifecycle_cycles_slab), no controller, no subsystem, no disk, and the
# module unloads.
# Newest kernel only, for the suite's time: lifecycle_cycles_slab covers
# 6.1's teardown of single-path subsystems and heads.
# vm-timeout: 600
# vm-kernels: newest
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
. "$RBLK_SRC_DIR/tests/vm/lib-mpath.sh"
vm_require "$RBLKCTL"

nqn=nqn.2024-01.io.rblk:mp-cycles
cycles=20 bound_kib=2048
mp_target "$nqn" 32 > /dev/null
vm_rblk_load

connect() {
	mp_connect "$nqn" 1 -i 2 -Q 128 > /dev/null
	mp_connect "$nqn" 2 -i 2 -Q 128 > /dev/null
}
disconnect() {
	"$RBLKCTL" disconnect --nqn "$nqn" > /dev/null || vm_fail "rblkctl disconnect --nqn failed (cycle $1)"
}

# Warm-up: slab caches, rxe pools and nvmet reach their steady state.
for i in 1 2; do
	connect
	disconnect "warm-up $i"
done
base=$(vm_slab_kib)
vm_slab_caches /tmp/slab.before
t0=$EPOCHSECONDS
for ((i = 1; i <= cycles; i++)); do
	connect
	vm_assert_exists /dev/rblk0n1
	vm_assert_exists /sys/block/rblk0c1n1
	disconnect "$i"
	[ ! -e /sys/class/rblk-subsystem/rblk-subsys0 ] || vm_fail "rblk-subsys0 left after cycle $i"
done
elapsed=$((EPOCHSECONDS - t0))
after=$(vm_slab_kib)
delta=$((after - base))
vm_slab_caches /tmp/slab.after
vm_slab_growth /tmp/slab.before /tmp/slab.after
echo "RESULT: $cycles two-path connect/disconnect cycles took ${elapsed}s; slab $base -> $after KiB, delta $delta KiB (bound $bound_kib KiB)"
[ "$delta" -le "$bound_kib" ] || vm_fail "slab grew by $delta KiB over $cycles cycles (bound $bound_kib KiB)"
vm_assert_eq "" "$(ls -A /sys/class/rblk)" "/sys/class/rblk after the cycles"
vm_assert_eq "" "$(find /sys/block -maxdepth 1 -name 'rblk*')" "rblk disks in /sys/block after the cycles"
vm_rblk_unload
vm_assert_not_exists /sys/class/rblk-subsystem
