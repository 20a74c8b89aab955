#!/bin/bash
# Format NVM through the passthrough ioctl changes the namespace's LBA
# format under its disk (issue 35, 3.5 e). As nvme_passthru_start() and
# _end(), rblk holds the namespaces' I/O off while the command runs and
# scans them before the ioctl returns, so the caller finds the disk as
# the target has it: the test target (--formats: 512 B and 4 KiB) is
# formatted to 4 KiB blocks, and the disk's logical block size must say
# 4096 as soon as the ioctl has returned. Before the fix the scan ran
# later, from a work item, and the disk still took 512-byte blocks,
# which the target now reads as 4 KiB ones. The data stays where it was
# in bytes: what was written before reads back through the new disk;
# then back to 512 B.
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
# shellcheck source=SCRIPTDIR/../lib-target.sh
. "$RBLK_SRC_DIR/tests/vm/lib-target.sh"

tgt_start none --formats
out=$(tgt_connect_ok format)
vm_assert_eq $'rblk0\n/dev/rblk0n1' "$out" "rblkctl connect output"
lbs=/sys/block/rblk0n1/queue/logical_block_size
vm_assert_eq 512 "$(cat "$lbs")" "logical block size before the format"
head -c 64K /dev/urandom > /tmp/pattern
want=$(sha256sum < /tmp/pattern | cut -d' ' -f1)
dd if=/tmp/pattern of=/dev/rblk0n1 bs=64K seek=16 oflag=direct status=none ||
	vm_fail "writing the pattern failed"

cat > /tmp/format.py << 'EOF'
import fcntl, os, struct, sys

ctrl, lbaf, lbs = sys.argv[1], int(sys.argv[2]), sys.argv[3]
NVME_IOCTL_ADMIN_CMD = 0xC0484E41  # _IOWR('N', 0x41, struct nvme_passthru_cmd)
fd = os.open(ctrl, os.O_RDWR)
# opcode, flags, rsvd1, nsid, cdw2, cdw3, metadata, addr, metadata_len,
# data_len, cdw10..15, timeout_ms, result
cmd = bytearray(struct.pack('<BBHIIIQQII6III', 0x80, 0, 0, 1, 0, 0, 0, 0, 0, 0,
                            lbaf, 0, 0, 0, 0, 0, 0, 0))
ret = fcntl.ioctl(fd, NVME_IOCTL_ADMIN_CMD, cmd, True)
# At once: what the disk says when the ioctl has returned.
try:
    now = open(lbs).read().strip()
except OSError as e:
    now = 'unreadable (%s)' % e.strerror
print('format status %d, logical block size %s' % (ret, now))
EOF

for f in 1:4096 0:512; do
	lbaf=${f%:*} size=${f#*:}
	res=$(python3 /tmp/format.py /dev/rblk0 "$lbaf" "$lbs" 2>&1) ||
		vm_fail "Format NVM to LBA format $lbaf failed: $res"
	echo "RESULT: format to $size-byte blocks: $res"
	vm_assert_eq "format status 0, logical block size $size" "$res" \
		"the disk as the Format NVM ioctl returns"
	vm_wait_for 30 test -b /dev/rblk0n1
	got=$(dd if=/dev/rblk0n1 bs=64K skip=16 count=1 iflag=direct status=none | sha256sum | cut -d' ' -f1)
	vm_assert_eq "$want" "$got" "the pattern read back with $size-byte blocks"
done
grep '^format:' "$TGT_LOG"
vm_assert_eq 2 "$(grep -c '^format:' "$TGT_LOG")" "Format NVM commands the target saw"
tgt_clean_slate format
vm_rblk_unload
