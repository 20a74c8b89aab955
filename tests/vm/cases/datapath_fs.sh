#!/bin/bash
# A file system on rblk: mkfs.ext4, mount, random files, umount, e2fsck -fn
# clean, remount and the checksums match; fstrim after deleting some; then
# the same file system checked and read through the kernel's nvme-rdma.
# rblk's udev rules give it by-id (wwid, model_serial_nsid), by-uuid,
# by-label and by-diskseq links.
# A busy host stretches it to ~290 s (measured): the budget allows that.
# vm-timeout: 900
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
vm_require "$RBLKCTL"

nqn=nqn.2024-01.io.rblk:fs
vm_rdma_target "$nqn" 128 > /dev/null
vm_rblk_load
vm_rblk_connect "$nqn" > /dev/null
dev=/dev/rblk0n1 mnt=/mnt/rblk sums=/tmp/sums
mkdir -p "$mnt"

fsck_clean() {
	local out rc=0
	out=$(e2fsck -fn "$1" 2>&1) || rc=$?
	[ "$rc" -eq 0 ] || vm_fail "e2fsck -fn $1 exited $rc:"$'\n'"$out"
}

# Buffered I/O through the page cache, as a file system does it.
mkfs.ext4 -q -F -L rblkfs "$dev" || vm_fail "mkfs.ext4 $dev failed"

# The persistent names udev gives it with rblk's rules (tool/dist/):
# `udevadm test` runs the rules without a daemon and shows the links.
cp "$RBLK_SRC_DIR/tool/dist/60-rblk.rules" /etc/udev/rules.d/
trap 'rm -f /etc/udev/rules.d/60-rblk.rules' EXIT
links=$(udevadm test --action=add /sys/block/rblk0n1 2> /dev/null | sed -n 's/^DEVLINKS=//p')
rm /etc/udev/rules.d/60-rblk.rules
c=/sys/class/rblk/rblk0
model=$(cat "$c/model") serial=$(cat "$c/serial")
for l in "by-id/rblk-$(cat /sys/block/rblk0n1/wwid)" "by-id/rblk-${model// /_}_${serial// /_}_1" \
	"by-uuid/$(blkid -s UUID -o value "$dev")" by-label/rblkfs \
	"by-diskseq/$(cat /sys/block/rblk0n1/diskseq)"; do
	vm_assert_contains " $links " " /dev/disk/$l " "udev links of $dev"
done
vm_log "udev links: $links"
mount "$dev" "$mnt" || vm_fail "mount $dev failed"
mkdir -p "$mnt/a/b"
head -c 4M /dev/urandom > "$mnt/big"
for ((i = 0; i < 24; i++)); do
	head -c $(( (RANDOM % 256 + 1) * 1024 + RANDOM % 1024 )) /dev/urandom > "$mnt/a/f$i"
	head -c $(( RANDOM % 64 * 512 + 1 )) /dev/urandom > "$mnt/a/b/g$i"
done
(cd "$mnt" && find . -type f -print0 | sort -z | xargs -0 sha256sum) > "$sums"
vm_log "wrote $(wc -l < "$sums") files, $(du -sk "$mnt" | cut -f1) KiB"
umount "$mnt" || vm_fail "umount failed"
fsck_clean "$dev"

# Remount with cold caches: everything comes back from the target.
echo 3 > /proc/sys/vm/drop_caches
mount "$dev" "$mnt" || vm_fail "remount $dev failed"
(cd "$mnt" && sha256sum --quiet -c "$sums") || vm_fail "checksums differ after remount"

# Free half of it and trim: DSM from the file system, the rest intact.
rm "$mnt"/a/f1* "$mnt/big"
grep -v -e ' \./a/f1' -e ' \./big$' "$sums" > "$sums.kept"
trimmed=$(fstrim -v "$mnt" | grep -Eo '[0-9]+ bytes' | cut -d' ' -f1) || vm_fail "fstrim failed"
[ "$trimmed" -gt 0 ] || vm_fail "fstrim trimmed nothing"
vm_log "fstrim: $trimmed bytes"
umount "$mnt" || vm_fail "umount after fstrim failed"
fsck_clean "$dev"
echo 3 > /proc/sys/vm/drop_caches
mount "$dev" "$mnt" || vm_fail "mount after fstrim failed"
(cd "$mnt" && sha256sum --quiet -c "$sums.kept") || vm_fail "checksums differ after fstrim"
umount "$mnt"

# What rblk wrote is a sound file system for the kernel's own initiator.
ref=$(vm_nvme_ref_connect "$nqn")
fsck_clean "$ref"
mount -o ro,noload "$ref" "$mnt" || vm_fail "mount $ref (nvme-rdma) failed"
(cd "$mnt" && sha256sum --quiet -c "$sums.kept") || vm_fail "checksums differ through nvme-rdma"
umount "$mnt"
vm_nvme_ref_disconnect "$nqn"

vm_assert_eq 0 "$(cat /sys/class/rblk/rblk0/errors)" "controller errors"
"$RBLKCTL" disconnect rblk0 > /dev/null || vm_fail "rblkctl disconnect rblk0 failed"
vm_rblk_unload
vm_dmesg_clean
