#!/bin/bash
# Every boot runs with KFENCE sampling where the kernel has KFENCE (6.12;
# 6.1 is built without it), and with RBLK_VM_MEMCHECK=slub slub_debug's red
# zones, poisoning, sanity checks and owner tracking on every slab cache
# (run-in-vm.sh). A boot that lost them would let a use-after-free in
# rblk.ko pass silently, so check that they are on, and that a report of
# theirs in the kernel log fails a case (check-dmesg.sh).
# vm-timeout: 120
. "$RBLK_SRC_DIR/tests/vm/lib.sh"

vm_no_rdma_device
[ "${RBLK_VM_MEMCHECK:-1}" != 0 ] || vm_fail "RBLK_VM_MEMCHECK=0: this case checks the memory checks"

# rblk's own caches are created after boot and get the same flags; a
# kmalloc cache stands for every cache the boot parameter covers.
slab=/sys/kernel/slab/kmalloc-64
want=0
[ "${RBLK_VM_MEMCHECK:-1}" != slub ] || want=1
for f in red_zone poison sanity_checks store_user; do
	vm_assert_eq "$want" "$(cat "$slab/$f")" "$slab/$f (RBLK_VM_MEMCHECK=${RBLK_VM_MEMCHECK:-1})"
done
if grep -q '^CONFIG_KFENCE=y' "/boot/config-$(uname -r)"; then
	vm_assert_eq 10 "$(cat /sys/module/kfence/parameters/sample_interval)" "kfence.sample_interval"
fi

# The dmesg check must catch what these checkers print. The lines are
# theirs in form (mm/slub.c slab_bug(), mm/kfence/report.c); each one
# must be caught on its own.
patterns="$RBLK_SRC_DIR/tests/vm/dmesg-patterns"
for line in \
	"BUG kmalloc-64 (Not tainted): Redzone overwritten" \
	"BUG rblk_req (Tainted: G           O      ): Poison overwritten" \
	"BUG: KFENCE: use-after-free read in rblk_complete_rq+0x1c/0x40 [rblk]"; do
	printf '%s\n' "$line" | grep -Eq -f "$patterns" || vm_fail "dmesg-patterns misses: $line"
done
vm_log "memory checks on:$([ "$want" = 0 ] || echo " slub_debug FZPU")$(grep -q '^CONFIG_KFENCE=y' "/boot/config-$(uname -r)" && echo " KFENCE every 10 ms")"
