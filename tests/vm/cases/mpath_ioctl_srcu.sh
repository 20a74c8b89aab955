#!/bin/bash
# A controller's command through a head must not hold the head's SRCU for
# its whole life (issue 35, 3.5 d): a path's removal waits for every
# reader of it (synchronize_srcu), a Format NVM or a namespace management
# command may take as long as its timeout says, and the synchronous scan
# after one may itself remove a path of that head. One namespace, two
# paths: nvmet's (rblk0, made non-optimized) and the test target's (rblk1,
# --formats --misbehave hold-format: it leaves a Format NVM unanswered).
# A Format NVM with a 100 s timeout goes through the head, so down the
# test target's path, and stays there; then nvmet's path is disconnected.
# That must return within 30 s (it takes a few without the held format).
# Before the fix it waited for the held format. A namespace's own command
# (a read) still holds the SRCU, as nvme's do: mpath_remove_rr counts on
# it.
# vm-timeout: 400
# The head's ioctl and its SRCU are the module's own code, the same on
# both kernels (run on 6.1 when it landed): newest kernel only, for the
# suite's time.
# vm-kernels: newest
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
. "$RBLK_SRC_DIR/tests/vm/lib-mpath.sh"
vm_require "$RBLKCTL"

nqn=nqn.2024-01.io.rblk:mp-ioctl
mp_mixed "$nqn" --formats --misbehave hold-format
tgt=$MP_TGT_PID

vm_rblk_load
mp_connect "$nqn" 1 --reconnect-delay 1 --ctrl-loss-tmo 4 > /dev/null
mp_connect "$nqn" 2 --reconnect-delay 1 --ctrl-loss-tmo 4 > /dev/null
vm_wait_for 30 test -e /sys/block/rblk0c1n1
# The head's commands go down the test target's path (optimized).
"$RBLKCTL" set-iopolicy "$nqn" numa || vm_fail "set-iopolicy numa failed"
mp_ana_set 1 non-optimized
mp_wait_ana 30 rblk0c0n1 non-optimized

# Format NVM (80h) of namespace 1, LBA format 0, through the head's
# NVME_IOCTL_ADMIN_CMD with a 100 s timeout; as `nvme format` sends it.
cat > /tmp/held.py << 'EOF'
import fcntl, os, struct, sys

NVME_IOCTL_ADMIN_CMD = 0xC0484E41  # _IOWR('N', 0x41, struct nvme_passthru_cmd)
fd = os.open(sys.argv[1], os.O_RDWR)
cmd = bytearray(struct.pack('<BBHIIIQQII6III', 0x80, 0, 0, 1, 0, 0, 0, 0, 0, 0,
                            0, 0, 0, 0, 0, 0, 100000, 0))
try:
    print('format ended: %d' % fcntl.ioctl(fd, NVME_IOCTL_ADMIN_CMD, cmd, True))
except OSError as e:
    print('format ended: -%d' % e.errno)
EOF
python3 /tmp/held.py /dev/rblk0n1 > /tmp/held.out 2>&1 &
py=$!
vm_wait_for 30 grep -q 'misbehave: hold-format: holding' /tmp/target.log
kill -0 "$py" 2> /dev/null || vm_fail "the format through the head ended: $(cat /tmp/held.out)"

t0=$(vm_now_ms)
"$RBLKCTL" disconnect rblk0 > /tmp/disconnect.out 2>&1 &
dc=$!
deadline=$((EPOCHSECONDS + 30))
while kill -0 "$dc" 2> /dev/null && [ "$EPOCHSECONDS" -lt "$deadline" ]; do
	vm_sleep 0.2
done
if kill -0 "$dc" 2> /dev/null; then
	echo "RESULT: the other path's disconnect still waits after 30 s; the format through the head is held"
	vm_fail "disconnecting nvmet's path waited for a command held on the other path"
fi
wait "$dc" || vm_fail "rblkctl disconnect rblk0 failed: $(cat /tmp/disconnect.out)"
kill -0 "$py" 2> /dev/null || vm_fail "the held format ended with the other path: $(cat /tmp/held.out)"
echo "RESULT: the other path's disconnect returned in $(awk -v ms="$(vm_ms_since "$t0")" 'BEGIN { printf "%.1f", ms / 1000 }') s while a format through the head was held"

# The target goes: its path's recovery ends the format, ctrl_loss_tmo the
# controller, and the head with it.
kill "$tgt"
wait "$tgt" || vm_fail "the target did not exit cleanly: $(tail -n 20 /tmp/target.log)"
vm_wait_for 60 sh -c "! kill -0 $py 2> /dev/null"
vm_log "$(cat /tmp/held.out)"
# An NVMe status (881: host aborted, as the recovery ends it) or an errno.
grep -q '^format ended: 0$' /tmp/held.out && vm_fail "the held format succeeded without its target"
grep -q '^format ended: ' /tmp/held.out || vm_fail "the held format did not end: $(cat /tmp/held.out)"
vm_wait_for 60 vm_rblk_none
vm_rblk_unload
vm_dmesg_clean
