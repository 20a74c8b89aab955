#!/bin/bash
# Teardown under load never hangs. (1) `rblkctl disconnect` while fio runs
# randrw at QD32 on the disk returns within 30 s, fio ends (with errors)
# within 30 s more, and the disk and the controller are gone. (2) Deleting
# the controller under a mounted ext4 with a file held open completes, I/O
# on the mount then fails with EIO, umount works, and once it has the
# module can be removed: nothing holds a reference any more.
# A busy host stretches it to ~210 s (measured): the budget allows that.
# vm-timeout: 600
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
. "$RBLK_SRC_DIR/tests/vm/lib-lifecycle.sh"
vm_require "$RBLKCTL"

nqn=nqn.2024-01.io.rblk:lc-disconnect
bound=30	# seconds a disconnect (and fio after it) may take
vm_rdma_target "$nqn" 128 > /dev/null
# dyndbg: state changes with kernel timestamps, for the delete's own time.
vm_rblk_load dyndbg=+p

# The one controller's name (rblk0 unless an id is still held).
ctrl_name() {
	local d
	for d in /sys/class/rblk/*; do
		[ -e "$d" ] && basename "$d"
	done
}

ctrl_gone() { [ ! -e "/sys/class/rblk/$1" ] && [ ! -e "/dev/${1}n1" ]; }

# disconnect_timed NAME: rblkctl disconnect, bounded; prints milliseconds.
disconnect_timed() {
	local t0 rc=0
	t0=$(vm_now_ms)
	timeout "$bound" "$RBLKCTL" disconnect "$1" > /dev/null || rc=$?
	[ "$rc" -eq 0 ] || vm_fail "rblkctl disconnect $1 exited $rc (124: took over ${bound}s)"
	vm_ms_since "$t0"
}

# --- 1: disconnect during fio randrw QD32 ---------------------------------
vm_rblk_connect "$nqn" -i 2 -Q 64 > /dev/null
c=$(ctrl_name)
dev=/dev/${c}n1
vm_assert_exists "$dev"
lc_fio_qd32_start "$dev"
busy() { [ "$(cat "/sys/class/rblk/$c/reads")" -ge 2000 ]; }
vm_wait_for 60 busy
vm_log "in flight before the disconnect: $(cat "/sys/class/rblk/$c/inflight")"
ms=$(disconnect_timed "$c")
echo "RESULT: disconnect during fio randrw QD32: returned after $ms ms (the kernel's delete: $(lc_delete_ms "$c") ms)"
lc_fio_qd32_end "$bound" "disconnect during fio randrw QD32"
ctrl_gone "$c" || vm_fail "$c or $dev still exists after the disconnect"
vm_assert_eq "" "$(vm_rblk_disks)" "rblk disks after the disconnect"
vm_dmesg_clean

# --- 2: delete under a mounted file system with an open file --------------
vm_rblk_connect "$nqn" -i 2 > /dev/null
c=$(ctrl_name)
dev=/dev/${c}n1 mnt=/mnt/lc
mkdir -p "$mnt"
mkfs.ext4 -q -F "$dev" || vm_fail "mkfs.ext4 $dev failed"
mount "$dev" "$mnt" || vm_fail "mount $dev failed"
head -c 8M /dev/urandom > "$mnt/cold"
sync
exec 3<> "$mnt/held"
echo "dirty, not yet written back" >&3
ms=$(disconnect_timed "$c")
echo "RESULT: delete under a mounted ext4 with an open file: returned after $ms ms (the kernel's delete: $(lc_delete_ms "$c") ms)"
ctrl_gone "$c" || vm_fail "$c or $dev still exists after the disconnect"

# Nothing of the file is cached: this read must reach the vanished disk.
echo 3 > /proc/sys/vm/drop_caches
rc=0
err=$(timeout "$bound" dd if="$mnt/cold" of=/dev/null bs=64k iflag=direct 2>&1) || rc=$?
vm_assert_ne 124 "$rc" "direct read on the dead mount (124: hung)"
vm_assert_contains "$err" "Input/output error" "direct read on the dead mount"
rc=0
err=$(timeout "$bound" dd if=/dev/zero of="$mnt/cold" bs=64k count=4 oflag=direct \
	conv=notrunc,fsync 2>&1) || rc=$?
vm_assert_ne 124 "$rc" "direct write on the dead mount (124: hung)"
vm_assert_ne 0 "$rc" "direct write on the dead mount"
echo "RESULT: delete under a mounted ext4: direct read EIO; direct write: $(grep -m1 "^dd:" <<< "$err")"
exec 3>&-

t0=$(vm_now_ms)
timeout "$bound" umount "$mnt" || vm_fail "umount of the dead mount failed or hung"
echo "RESULT: delete under a mounted ext4: umount took $(vm_ms_since "$t0") ms"
# The controller id is freed by its last reference only (ida_alloc hands
# out the lowest free one): a new controller named rblk0 proves the dead
# disk let go of the old one.
vm_assert_eq rblk0 "$c" "controller name"
vm_rblk_connect "$nqn" -i 1 > /dev/null
vm_assert_eq rblk0 "$(ctrl_name)" "name of a new controller once the old one is released"
"$RBLKCTL" disconnect rblk0 > /dev/null || vm_fail "rblkctl disconnect rblk0 failed"
t0=$(vm_now_ms)
timeout "$bound" modprobe -r rblk || vm_fail "modprobe -r rblk failed after umount: $(cat /sys/module/rblk/refcnt 2> /dev/null)"
vm_assert_not_exists /sys/module/rblk
echo "RESULT: delete under a mounted ext4: modprobe -r rblk after umount took $(vm_ms_since "$t0") ms"
vm_dmesg_clean
