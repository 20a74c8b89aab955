#!/bin/bash
# A command the host ends without the target's answer gives its buffer
# back while the key that maps it may still be valid on the controller's
# protection domain: the target must not be able to reach that buffer any
# more through another queue of the same association. The test target
# (--misbehave stale-key-write) holds two passthrough reads of the trap
# block unanswered; a delete starts (its del_gendisk waits for them); the
# first one's timeout (8 s) ends it in DELETING; the reader refills its
# buffer, then the target RDMA-WRITEs 0xee with that read's key through the
# admin queue. The buffer must be unchanged. The second read (25 s
# timeout) keeps the delete waiting if nothing else ends it. Today the
# first read's timeout stops its queue, the drain's flushed receives call
# rblk_ctrl_error(), and in DELETING that queues abort_work, which stops
# every queue (the admin one first) and ends the second read: the target
# finds no admin queue left. Were that abort late or gone, the write would
# land. (issue 35 §3.5 a)
# vm-timeout: 300
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
# shellcheck source=SCRIPTDIR/../lib-target.sh
. "$RBLK_SRC_DIR/tests/vm/lib-target.sh"

go=/tmp/stale.go
ready=/tmp/stale.ready
rm -f "$go" "$ready"
tgt_start stale-key-write --trigger-file "$go"
out=$(tgt_connect_ok stale-key-write)
vm_assert_eq $'rblk0\n/dev/rblk0n1' "$out" "rblkctl connect output"

cat > /tmp/stale.py << 'EOF'
import ctypes, fcntl, mmap, os, struct, sys, threading, time

dev, tlog, go, ready, slba = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
NVME_IOCTL_IO_CMD = 0xC0484E43  # _IOWR('N', 0x43, struct nvme_passthru_cmd)
fd = os.open(dev, os.O_RDONLY)
bufs = [mmap.mmap(-1, 4096) for _ in range(2)]
rets = [None, None]

def read(i, timeout_ms):
    b = bufs[i]
    b[:] = b'A' * 4096
    addr = ctypes.addressof(ctypes.c_char.from_buffer(b))
    # opcode, flags, rsvd1, nsid, cdw2, cdw3, metadata, addr, metadata_len,
    # data_len, cdw10..15, timeout_ms, result
    cmd = bytearray(struct.pack('<BBHIIIQQII6III', 0x02, 0, 0, 1, 0, 0, 0, addr, 0, 4096,
                                slba & 0xffffffff, slba >> 32, 7, 0, 0, 0, timeout_ms, 0))
    try:
        rets[i] = fcntl.ioctl(fd, NVME_IOCTL_IO_CMD, cmd, True)
    except OSError as e:
        rets[i] = -e.errno

def held(n):
    with open(tlog) as f:
        return f.read().count('misbehave: stale-key-write: holding') >= n

def wait(what, cond, secs):
    end = time.monotonic() + secs
    while not cond():
        if time.monotonic() > end:
            print('FAIL: timed out waiting for ' + what)
            sys.exit(1)
        time.sleep(0.1)

t1 = threading.Thread(target=read, args=(0, 8000))
t1.start()
wait('the target to hold the first read', lambda: held(1), 30)
t2 = threading.Thread(target=read, args=(1, 25000))
t2.start()
wait('the target to hold the second read', lambda: held(2), 30)
open(ready, 'w').close()
t1.join()
try:
    state = open('/sys/class/rblk/rblk0/state').read().strip()
except OSError:
    state = 'gone'
print('first read ended: %s, controller %s' % (rets[0], state))
if state != 'deleting':
    print('FAIL: the first read ended with the controller %s, not deleting: the scenario did not happen' % state)
    sys.exit(1)
# The buffer is ours again: new contents, then the target tries its key.
bufs[0][:] = b'C' * 4096
open(go, 'w').close()
outcome = ('stale-key-write: landed', 'stale-key-write: refused', 'stale-key-write: no admin queue',
           'stale-key-write: ibv_reg_mr')
wait('the target\'s stale write', lambda: any(o in open(tlog).read() for o in outcome), 60)
data = bufs[0][:]
t2.join()
print('second read ended: %s' % rets[1])
if data != b'C' * 4096:
    n = sum(1 for x in data if x == 0xee)
    print('FAIL: the target wrote %d bytes of 0xee into a buffer the host had given back' % n)
    sys.exit(1)
print('buffer intact')
EOF

python3 /tmp/stale.py /dev/rblk0n1 "$TGT_LOG" "$go" "$ready" $((TGT_TRAP_OFF / 512)) > /tmp/stale.out 2>&1 &
py=$!
vm_wait_for 60 test -e "$ready"
"$RBLKCTL" disconnect rblk0 > /tmp/disconnect.out 2>&1 &
dc=$!
rc=0
wait "$py" || rc=$?
cat /tmp/stale.out
grep '^stale-key-write' "$TGT_LOG"
vm_assert_eq 0 "$rc" "the reader's exit code"
wait "$dc" || vm_fail "rblkctl disconnect failed: $(cat /tmp/disconnect.out)"
vm_wait_for 30 vm_rblk_none
echo "RESULT: a read ended in deleting; the target's write with its key: $(grep -o 'stale-key-write: [a-z0-9 ]*' "$TGT_LOG" | tail -n 1)"
tgt_clean_slate stale-key-write
vm_rblk_unload
