#!/bin/bash
# rblk against a target that breaks the protocol on purpose, the I/O side
# (tests/target/rblk_test_target --misbehave MODE), one mode at a time:
# a normal run first (connect, verified I/O, in-capsule and RDMA READ
# writes: the target is real), then completions with unknown or stale
# command ids and double completions (reset, reconnect, the I/O still
# succeeds), an error status with DNR (EIO at once, never retried), a
# storm of junk asynchronous events (throttled, the controller stays), and
# silence (keep-alive fails, reconnects time out, the controller is
# removed, the I/O fails). After each mode no controller or disk is left
# and the module unloads. The Identify and Connect misbehaviours are in
# target_misbehave_connect.sh.
# A busy host stretches it to ~350 s (measured): the budget allows that.
# vm-timeout: 900
# The checks of a target's responses are the module's own protocol code,
# the same on both kernels; the recovery_* cases cover 6.1's resets and
# reconnects: newest kernel only, for the suite's time.
# vm-kernels: newest
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
# shellcheck source=SCRIPTDIR/../lib-target.sh
. "$RBLK_SRC_DIR/tests/vm/lib-target.sh"
zero4k=$(head -c 4096 /dev/zero | sha256sum | cut -d" " -f1)

# --- positive control: the target is real -----------------------------------
tgt_start none
t0=$(vm_now_ms)
out=$(tgt_connect_ok none)
vm_assert_eq $'rblk0\n/dev/rblk0n1' "$out" "none: rblkctl connect output"
tc=$(tgt_s_since "$t0")
vm_assert_eq $((16 << 20)) "$(blockdev --getsize64 /dev/rblk0n1)" "none: disk size"
vm_assert_eq "rblk test target" "$(cat /sys/class/rblk/rblk0/model)" "none: model"
head -c 1M /dev/urandom > /tmp/big
head -c 4k /dev/urandom > /tmp/small
vm_put /tmp/big /dev/rblk0n1 $((1 << 20))     # RDMA READ by the target
vm_put /tmp/small /dev/rblk0n1 $((3 << 20))   # in-capsule
vm_assert_eq "$(sha256sum < /tmp/big | cut -d' ' -f1)" "$(vm_sum /dev/rblk0n1 $((1 << 20)) $((1 << 20)))" \
	"none: 1 MiB read back"
vm_assert_eq "$(sha256sum < /tmp/small | cut -d' ' -f1)" "$(vm_sum /dev/rblk0n1 $((3 << 20)) 4096)" \
	"none: 4 KiB read back"
vm_assert_eq "$zero4k" "$(tgt_read_trap /dev/rblk0n1)" "none: unwritten block reads zeros"
vm_assert_eq 0 "$(cat /sys/class/rblk/rblk0/errors)" "none: errors"
echo "RESULT: none: connect ${tc} s, 1 MiB + 4 KiB written and verified, errors 0"
tgt_clean_slate none

# --- bad completions: reset, reconnect, the I/O succeeds ---------------------
for mode in unknown-cid stale-cid double-completion; do
	tgt_start "$mode" --count 1
	out=$(tgt_connect_ok "$mode")
	vm_assert_eq $'rblk0\n/dev/rblk0n1' "$out" "$mode: rblkctl connect output"
	t0=$(vm_now_ms)
	sum=$(timeout 60 dd if=/dev/rblk0n1 bs=4k count=1 skip=$((TGT_TRAP_OFF / 4096)) iflag=direct status=none |
		sha256sum | cut -d' ' -f1)
	vm_assert_eq "$zero4k" "$sum" "$mode: the read's data"
	vm_wait_for 30 grep -q '^1$' /sys/class/rblk/rblk0/reconnects
	vm_wait_for 30 grep -q '^live$' /sys/class/rblk/rblk0/state
	t=$(tgt_s_since "$t0")
	vm_assert_eq 1 "$(tgt_hits "$mode")" "$mode: misbehaviours"
	vm_dmesg_has 'rblk0: qid [0-9]*: completion with invalid command id' ||
		vm_fail "$mode: no 'invalid command id' in the kernel log"
	vm_assert_eq "$zero4k" "$(tgt_read_trap /dev/rblk0n1)" "$mode: a read after recovery"
	echo "RESULT: $mode: reset and reconnected, read ok, live again in ${t} s, reconnects $(cat /sys/class/rblk/rblk0/reconnects)"
	tgt_clean_slate "$mode"
done

# --- DNR: the I/O fails at once, never retried --------------------------------
tgt_start dnr-status
tgt_connect_ok dnr-status > /dev/null
t0=$(vm_now_ms)
err=$(timeout 60 dd if=/dev/rblk0n1 of=/dev/null bs=4k count=1 skip=$((TGT_TRAP_OFF / 4096)) iflag=direct 2>&1) &&
	vm_fail "dnr-status: the read succeeded"
t=$(tgt_s_since "$t0")
vm_assert_contains "$err" "Input/output error" "dnr-status: dd's error"
vm_assert_eq 1 "$(tgt_hits dnr-status)" "dnr-status: commands answered with DNR (a retry would add one)"
vm_assert_eq live "$(cat /sys/class/rblk/rblk0/state)" "dnr-status: state"
vm_assert_eq 0 "$(cat /sys/class/rblk/rblk0/reconnects)" "dnr-status: reconnects"
vm_assert_eq "$zero4k" "$(vm_sum /dev/rblk0n1 0 4096)" "dnr-status: a read elsewhere"
echo "RESULT: dnr-status: EIO in ${t} s, 1 attempt, controller stays live, errors $(cat /sys/class/rblk/rblk0/errors)"
tgt_clean_slate dnr-status

# --- aen-storm: every AER answered at once, with junk ----------------------------
# rblk handles 8 events at full speed per 10 s, then one a second; events
# of unknown types or log pages are logged and ignored, junk changed
# namespace lists cost a rescan. The controller stays live, I/O works.
tgt_start aen-storm
tgt_connect_ok aen-storm > /dev/null
t0=$(vm_now_ms)
sleep 12
n=$(tgt_hits aen-storm)
t=$(tgt_s_since "$t0")
vm_assert_eq live "$(cat /sys/class/rblk/rblk0/state)" "aen-storm: state"
vm_assert_eq 0 "$(cat /sys/class/rblk/rblk0/reconnects)" "aen-storm: reconnects"
vm_assert_eq "$zero4k" "$(vm_sum /dev/rblk0n1 0 4096)" "aen-storm: a read"
vm_assert_eq /dev/rblk0n1 "$(vm_rblk_disks)" "aen-storm: disks"
vm_dmesg_has 'rblk0: async event storm' || vm_fail "aen-storm: no 'async event storm' in the kernel log"
# Unthrottled it would be thousands; throttled at most 8 per 10 s + 1/s.
if [ "$n" -lt 8 ] || [ "$n" -gt 45 ]; then
	vm_fail "aen-storm: $n events answered in $t s (want 8-45: 8 at once per 10 s, then about one a second)"
fi
echo "RESULT: aen-storm: $n events answered in ${t} s after connect, controller live, reconnects 0, read ok"
tgt_clean_slate aen-storm

# --- silence: keep-alive fails, reconnects time out, the controller goes ---
tgt_start silence
tgt_connect_ok silence > /dev/null
t0=$(vm_now_ms)
rc=0
timeout 120 dd if=/dev/rblk0n1 of=/dev/null bs=4k count=1 skip=$((TGT_TRAP_OFF / 4096)) iflag=direct \
	status=none 2> /tmp/dd.err || rc=$?
t=$(tgt_s_since "$t0")
vm_assert_ne 0 "$rc" "silence: the read's exit code"
vm_assert_ne 124 "$rc" "silence: the read hung"
vm_wait_for 30 vm_rblk_none
tr=$(tgt_s_since "$t0")
echo "RESULT: silence: read failed (rc $rc: $(head -c 80 /tmp/dd.err)) in ${t} s, controller removed after ${tr} s"
tgt_clean_slate silence

vm_rblk_unload
