#!/bin/bash
# PID 1 inside the test VM, in the overlay root: set up what udev and an
# init system would have, run the job written by run-in-vm.sh into the out
# share, save its output, exit code and dmesg there, then power off.
# No `set -e`: whatever happens, the exit code and dmesg must get out.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=dumb
OUT=/run/rblk-vm
BB=/.rblk-vm/busybox

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620 devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs -o mode=0755 tmpfs /run
modprobe configfs
mount -t configfs configfs /sys/kernel/config
mount -t debugfs debugfs /sys/kernel/debug
# No udev: the links bash process substitution and friends rely on.
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mkdir -p "$OUT"
if ! mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 rblkout "$OUT"; then
	echo "RBLK-VM-EXIT: 125 (cannot mount the out share)" > /dev/console
	"$BB" poweroff -f
fi
hostname rblk-vm
ip link set lo up

# job.env (written by the host): exports RBLK_* and `set --` of the command.
# shellcheck source=/dev/null
. "$OUT/job.env"
read -r up _ < /proc/uptime
echo "$up" > "$OUT/boot_seconds"

echo "RBLK-VM-START: $*" > /dev/console
cd "$RBLK_SRC_DIR" || cd /
# The script's budget is shorter than the host's, so that a hang still
# leaves dmesg (with the blocked tasks) and a clear message behind.
# Output goes straight to the share (it survives a panic) and is echoed to
# the console by tail; not through a pipe, which a background process left
# running by the script would keep open.
: > "$OUT/output.log"
tail -s 0.5 -n +1 -f "$OUT/output.log" > /dev/console &
tail_pid=$!
timeout -k 10 "$RBLK_VM_SCRIPT_TIMEOUT" "$@" < /dev/null > "$OUT/output.log" 2>&1
rc=$?
sleep 0.6
kill "$tail_pid"
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
	echo "run-in-vm: script timed out after ${RBLK_VM_SCRIPT_TIMEOUT}s inside the VM" |
		tee -a "$OUT/output.log" > /dev/console
	echo w > /proc/sysrq-trigger
fi
read -r up _ < /proc/uptime
echo "$up" > "$OUT/end_seconds"
dmesg > "$OUT/dmesg.log"
echo "$rc" > "$OUT/exit_code"
sync
umount "$OUT"
echo "RBLK-VM-EXIT: $rc" > /dev/console
"$BB" poweroff -f
