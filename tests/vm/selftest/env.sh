#!/bin/bash
# Harness self-test: what run-in-vm.sh promises a script inside the VM.
. "$RBLK_SRC_DIR/tests/vm/lib.sh"

vm_assert_eq 0 "$(id -u)" "uid"
vm_assert_eq "$RBLK_KVER" "$(uname -r)" "running kernel"
vm_assert_exists "$RBLK_SRC_DIR/tests/vm/lib.sh"
for m in / /tmp /run /sys/kernel/config /proc /sys /dev; do
	mountpoint -q "$m" || vm_fail "$m is not mounted"
done
vm_assert_eq overlayfs "$(stat -f -c %T /)" "root filesystem"
vm_assert_eq "proc substitution" "$(cat <(echo "proc substitution"))"
touch /usr/rblk-writable || vm_fail "root is not writable"
rm /usr/rblk-writable
echo artifact > "$RBLK_VM_OUT/artifact.txt"
# Module auto-loading must work (switch_root, not chroot).
ip link add rblkdummy0 type dummy || vm_fail "ip link add (module auto-load) failed"
vm_assert_exists /sys/module/dummy
vm_assert_fails false
vm_assert_match '^[0-9]+$' "$(nproc)" "nproc"
vm_assert_eq 2 "$(nproc)" "vCPUs"
vm_log "environment ok"
