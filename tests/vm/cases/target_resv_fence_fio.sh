#!/bin/bash
# A fence in the style of Pacemaker's fence_scsi on rblk disks (issue 33),
# two hosts in one VM against rblk_test_target --reservations: both nodes
# register their keys with REGISTER AND IGNORE EXISTING KEY, A reserves
# Write Exclusive - Registrants Only, both write (fio); A preempts and
# aborts B's key while B's fio writes: B's fio ends with an I/O error and
# its next write fails, A's own fio with verify runs through clean, and the
# target's report holds A alone.
# vm-timeout: 600
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
# shellcheck source=SCRIPTDIR/../lib-target.sh
. "$RBLK_SRC_DIR/tests/vm/lib-target.sh"

command -v sg_persist > /dev/null || vm_fail "sg_persist (sg3-utils) missing"
A=/dev/rblk0n1 B=/dev/rblk1n1
tgt_start none --reservations
tgt_connect_hosts

sg() { sg_persist -n "$@" > /tmp/sg.out 2>&1 || vm_fail "sg_persist $*: $(cat /tmp/sg.out)"; }
sg --out --register-ignore --param-sark=0xa "$A"
sg --out --register-ignore --param-sark=0xb "$B"
sg --out --reserve --param-rk=0xa --prout-type=5 "$A"
sg -k "$B"
vm_assert_contains "$(cat /tmp/sg.out)" "2 registered reservation keys follow:" "both nodes registered"

# B writes its own 8 MiB until it is fenced (time_based: the fence ends it).
fio --name=fenced --filename="$B" --direct=1 --ioengine=libaio --rw=randwrite --bs=4k \
	--iodepth=8 --offset=0 --size=8m --time_based --runtime=120 \
	> /dev/null 2> /tmp/fenced.err &
fenced=$!
# It is writing: its disk's write count moves.
w0=$(awk '{ print $5 }' /sys/block/rblk1n1/stat)
vm_wait_for 30 bash -c "[ \$(awk '{ print \$5 }' /sys/block/rblk1n1/stat) -gt $((w0 + 100)) ]"

sg --out --preempt-abort --param-rk=0xa --param-sark=0xb --prout-type=5 "$A"
rc=0
timeout 60 tail --pid="$fenced" -f /dev/null || vm_fail "B's fio still runs 60 s after the fence"
wait "$fenced" || rc=$?
vm_assert_ne 0 "$rc" "exit code of B's fio after the fence"
# A conflict is EBADE ("Invalid exchange"), not a bare EIO: the block layer's
# BLK_STS_RESV_CONFLICT, which cluster software tells apart from a dead path.
vm_assert_contains "$(cat /tmp/fenced.err)" "Invalid exchange" "B's fio: its error"
head -c 4096 /dev/zero | dd of="$B" bs=4k seek=4096 oflag=direct conv=notrunc status=none 2> /dev/null &&
	vm_fail "B could write after the fence"
echo "RESULT: fenced: B's fio ended with a reservation conflict (exit $rc), B's writes fail"

# The survivor: its own region, written and verified.
vm_fio /tmp/survivor.json --name=survivor --filename="$A" --direct=1 --ioengine=libaio \
	--rw=randwrite --bs=4k --iodepth=8 --offset=16m --size=8m --verify=crc32c \
	--do_verify=1 --verify_fatal=1
sg -k "$A"
vm_assert_contains "$(cat /tmp/sg.out)" "1 registered reservation key follows:" "keys after the fence"
vm_assert_contains "$(cat /tmp/sg.out)" "0xa" "A's key after the fence"
echo "RESULT: survivor: A's fio with verify clean; A alone registered"

tgt_clean_slate reservations
