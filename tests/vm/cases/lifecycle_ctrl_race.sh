#!/bin/bash
# Connect, list/stats and disconnect from three threads at once
# (tests/tools/rblk_ctrl_race, librblk, one netlink socket each) for 20 s
# on two subsystems: only lost races (ENODEV) may fail, nothing crashes or
# hangs, every controller is gone at the end and the module unloads.
# At most 16 controllers are alive at once (--max-alive): a quiet host
# connects much faster than it deletes, and with no bound hundreds of
# controllers and their target-side queues ran the 2 GiB guest out of
# memory (the OOM killer in rxe_queue_init). 16 x (admin + 1 I/O queue)
# of 32 on both sides fits the guest many times over.
# A busy host stretches it to ~180 s (measured): the budget allows that.
# vm-timeout: 480
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
race=$RBLK_BUILD_DIR/tests/tools/rblk_ctrl_race
vm_require "$race"

a=nqn.2024-01.io.rblk:lc-race-a
b=nqn.2024-01.io.rblk:lc-race-b
vm_rdma_target "$a" 32 > /dev/null
vm_nvmet_subsys "$b" "$(vm_membacked_disk 1 32)"
vm_nvmet_link 1 "$b"
vm_rblk_load

rc=0
out=$(timeout 150 "$race" --traddr 10.99.0.1 --nqn "$a" --nqn "$b" --seconds 20 \
	--nr-io-queues 1 --queue-size 32 --max-alive 16) || rc=$?
printf '%s\n' "$out"
vm_assert_eq 0 "$rc" "rblk_ctrl_race exit code (124: hung)"
vm_assert_match 'connector: ok [1-9]' "$out" "connects that succeeded"
vm_assert_match 'controllers deleted [1-9]' "$out" "controllers the racing thread deleted"
most=$(printf '%s\n' "$out" | sed -n 's/.*connector: .*most alive \([0-9]*\).*/\1/p')
[ -n "$most" ] && [ "$most" -le 16 ] || vm_fail "controllers alive at once: '$most', bound 16"

vm_assert_eq "" "$(ls -A /sys/class/rblk)" "/sys/class/rblk after the race"
vm_assert_eq "" "$(vm_rblk_disks)" "rblk block devices after the race"
vm_rblk_unload
vm_dmesg_clean
