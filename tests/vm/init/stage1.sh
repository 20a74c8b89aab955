#!/bin/busybox sh
# shellcheck shell=dash
# /init of the test initramfs: load the 9p/overlay modules, build a writable
# root (host / over 9p, read-only, under a tmpfs overlay) and switch_root
# into it. switch_root, not chroot: the kernel's module auto-loading runs
# /sbin/modprobe in init's root, which must be the host's tree.
/bin/busybox --install -s /bin
export PATH=/bin

die() {
	echo "RBLK-VM-STAGE1-FAILED: $*" > /dev/console
	poweroff -f
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

# modules.list holds the dependency-ordered module files (see mkinitramfs.sh).
while read -r ko; do
	insmod "/lib/modules/$ko" || die "insmod $ko"
done < /modules.list

mkdir -p /lower /rw /newroot
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose \
	hostroot /lower || die "mount 9p hostroot"
mount -t tmpfs -o mode=0755 tmpfs /rw || die "mount tmpfs"
mkdir -p /rw/upper /rw/work
mount -t overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work \
	overlay /newroot || die "mount overlay"

# Stage 2 and a private busybox (for poweroff -f) live in the new root.
mkdir -p /newroot/.rblk-vm
cp /stage2.sh /newroot/.rblk-vm/stage2.sh
cp /bin/busybox /newroot/.rblk-vm/busybox

umount /proc /sys /dev
exec switch_root /newroot /bin/bash /.rblk-vm/stage2.sh
