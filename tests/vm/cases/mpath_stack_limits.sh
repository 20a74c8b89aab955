#!/bin/bash
# The head disk's limits are the strictest of its paths' (issue 35, 3.2).
# One namespace, two targets: nvmet on port 1 (MDTS 1 MiB; rblk caps it
# at 255 pages of a fast-registration MR) and the test target on
# 10.98.0.1:4420 (MDTS 128 KiB), with the same subsystem NQN, NGUID and
# UUID, so rblk merges them as two paths of one head. The nvmet path
# comes first and made the head; once the test target's joins, the
# head's max_hw_sectors_kb and max_segments must be the smaller of the
# two paths'. Before the fix the head kept its first path's (1020 KiB).
# Its max_sectors_kb (what bios are split to) must be a path's too: with
# nvmet's path alone nvmet's, then the small path's; 6.12's stacking into
# limits that did not start as a stacking driver's left the head at one
# page (4 KiB), and every larger I/O went down in 4 KiB commands.
# Then 1 MiB direct writes and reads through the head down the small
# path (nvmet's made non-optimized), and failover under 1 MiB reads:
# the test target is killed, its requests go to the nvmet path, its
# controller is disconnected and its disk goes; every read returns the
# data. The two targets hold separate data: the same pattern is written
# through each path first.
# vm-timeout: 400
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
. "$RBLK_SRC_DIR/tests/vm/lib-mpath.sh"
vm_require "$RBLKCTL"

nqn=nqn.2024-01.io.rblk:mp-stack
# 20 ms a reply: requests are in flight on the test target when it dies.
mp_mixed "$nqn" --reply-delay-ms 20
tgt=$MP_TGT_PID

vm_rblk_load
mp_connect "$nqn" 1 --reconnect-delay 1 --ctrl-loss-tmo 60 > /dev/null
dev=/dev/rblk0n1
vm_wait_for 30 test -b "$dev"
q=/sys/block/rblk0n1/queue
lim() { cat "/sys/block/$1/queue/$2"; }
first_kb=$(lim rblk0c0n1 max_hw_sectors_kb)
vm_assert_eq "$first_kb" "$(cat "$q/max_hw_sectors_kb")" "the head's max_hw_sectors_kb with the nvmet path alone"
vm_assert_eq "$(lim rblk0c0n1 max_sectors_kb)" "$(cat "$q/max_sectors_kb")" \
	"the head's max_sectors_kb with the nvmet path alone"

mp_connect "$nqn" 2 --reconnect-delay 1 --ctrl-loss-tmo 60 > /dev/null
vm_wait_for 30 test -e /sys/block/rblk0c1n1
small_kb=$(lim rblk0c1n1 max_hw_sectors_kb)
[ "$small_kb" -lt "$first_kb" ] ||
	vm_fail "the test target's path allows $small_kb KiB, not less than nvmet's $first_kb KiB: nothing to stack"
segs=$(lim rblk0c0n1 max_segments)
[ "$(lim rblk0c1n1 max_segments)" -ge "$segs" ] || segs=$(lim rblk0c1n1 max_segments)
echo "RESULT: mpath stacked limits: paths $first_kb and $small_kb KiB, head $(cat "$q/max_hw_sectors_kb") KiB, max_segments $(cat "$q/max_segments")"
vm_assert_eq "$small_kb" "$(cat "$q/max_hw_sectors_kb")" "the head's max_hw_sectors_kb with both paths"
vm_assert_eq "$segs" "$(cat "$q/max_segments")" "the head's max_segments with both paths"
vm_assert_eq "$(lim rblk0c1n1 max_sectors_kb)" "$(cat "$q/max_sectors_kb")" \
	"the head's max_sectors_kb with both paths"

# The same 4 MiB on both targets, 1 MiB at a time: through nvmet's path
# (numa: the first path), then through the test target's alone.
head -c 4M /dev/urandom > /tmp/a
want=$(sha256sum < /tmp/a | cut -d' ' -f1)
"$RBLKCTL" set-iopolicy "$nqn" numa || vm_fail "set-iopolicy numa failed"
w0=$(mp_ctrl_io rblk0)
dd if=/tmp/a of="$dev" bs=1M oflag=direct status=none || vm_fail "1 MiB writes through nvmet's path failed"
[ "$(mp_ctrl_io rblk0)" -gt "$w0" ] || vm_fail "the writes did not go down nvmet's path"
mp_ana_set 1 non-optimized
mp_wait_ana 30 rblk0c0n1 non-optimized
w1=$(mp_ctrl_io rblk1) w0=$(mp_ctrl_io rblk0)
dd if=/tmp/a of="$dev" bs=1M oflag=direct status=none || vm_fail "1 MiB writes through the small path failed"
got=$(dd if="$dev" bs=1M count=4 iflag=direct status=none | sha256sum | cut -d' ' -f1)
vm_assert_eq "$want" "$got" "4 MiB read back in 1 MiB reads through the small path"
vm_assert_eq "$w0" "$(mp_ctrl_io rblk0)" "I/O down nvmet's path while it is non-optimized"
cmds=$(($(mp_ctrl_io rblk1) - w1))
vm_log "the small path carried $cmds commands for 8 MiB"
# 8 MiB in commands of the small path's max_sectors_kb.
[ "$cmds" -le $((8192 / $(lim rblk0c1n1 max_sectors_kb))) ] ||
	vm_fail "the small path carried $cmds commands for 8 MiB, more than $((8192 / $(lim rblk0c1n1 max_sectors_kb))) of $(lim rblk0c1n1 max_sectors_kb) KiB"

# Failover under 1 MiB reads: every read of the 4 MiB returns the data.
reader() {
	local i s
	for ((i = 0; i < 40; i++)); do
		s=$(dd if="$dev" bs=1M count=4 iflag=direct status=none | sha256sum | cut -d' ' -f1)
		[ "$s" = "$want" ] || { echo "read $i: $s"; return 1; }
	done
}
reader > /tmp/reader.log 2>&1 &
rd=$!
b1=$(mp_ctrl_io rblk1)
loaded() { [ "$(mp_ctrl_io rblk1)" -gt $((b1 + 64)) ]; }
vm_wait_for 60 loaded
r0=$(mp_ctrl_io rblk0)
kill -9 "$tgt"
wait "$tgt" || true
vm_rblk_wait_state 60 rblk1 connecting
"$RBLKCTL" disconnect rblk1 > /dev/null || vm_fail "rblkctl disconnect rblk1 failed"
vm_assert_not_exists /sys/block/rblk0c1n1
wait "$rd" || vm_fail "reads during the failover: $(cat /tmp/reader.log)"
[ "$(mp_ctrl_io rblk0)" -gt "$r0" ] || vm_fail "no read went down nvmet's path after the failover"
vm_assert_eq "$small_kb" "$(cat "$q/max_hw_sectors_kb")" "the head's max_hw_sectors_kb after the small path left"
echo "RESULT: mpath stacked limits: 40 reads of 4 MiB in 1 MiB I/Os through a failover, all with the data"
"$RBLKCTL" disconnect --all > /dev/null || vm_fail "disconnect --all failed"
vm_wait_for 30 vm_rblk_none
