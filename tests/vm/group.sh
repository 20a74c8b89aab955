#!/bin/bash
# The job of a grouped VM run (run-in-vm.sh --group): several cases share
# one boot. Each case runs in a cgroup of its own, with a budget, output to
# <out>/<case>/output.log and RBLK_VM_OUT=<out>/<case>; afterwards the VM
# is put back as the boot left it (processes killed; mounts, rblk, nvme-rdma
# connections, nvmet and null_blk configuration, soft-RoCE devices and
# links removed; the modules loaded since boot unloaded but the fabric's
# and the targets' (KEEP); /tmp emptied), and the case's kernel log (it
# starts with an empty ring) is checked and saved. Its exit code goes to <out>/<case>/exit_code:
#   the case's own, 124 on its timeout, 97 when it passed but its kernel
#   log (teardown included) has WARNING/BUG/..., 98 when it passed but the
#   VM could not be put back.
# When the VM cannot be put back, the group stops (exit 3) and the host
# boots a fresh VM for the cases left; they never run on a dirty VM.
#
# Usage (inside the VM, from stage2.sh): group.sh BUDGET:CASE...
# Cases must write only under /tmp and RBLK_VM_OUT.
OUT=${RBLK_VM_GROUP_OUT:-/run/rblk-vm}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CG=/sys/fs/cgroup/rblk-case

# lib.sh gives vm_nvmet_teardown; its set -e does not suit a runner that
# must go on whatever a case did.
# shellcheck source=tests/vm/lib.sh
. "$here/lib.sh"
set +eu +o pipefail

log() { echo "group: $*"; }

modules() { awk '{ print $1 }' /proc/modules | sort; }
links() { ip -o link show | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }' | sort; }
mounts() { awk '{ print $2 }' /proc/self/mounts | sort; }

base=/run/rblk-group
mkdir -p "$base/base" "$base/now"
mountpoint -q /sys/fs/cgroup || mount -t cgroup2 cgroup2 /sys/fs/cgroup

# kill_case: every process the case left, through cgroup.kill (whole
# tree, also the daemons it forked), then the cgroup itself.
kill_case() {
	local i
	[ -d "$CG" ] || return 0
	echo 1 > "$CG/cgroup.kill"
	for ((i = 0; i < 100; i++)); do
		[ -z "$(cat "$CG/cgroup.procs")" ] && break
		sleep 0.1
	done
	rmdir "$CG" || { log "processes of the case survive cgroup.kill: $(cat "$CG/cgroup.procs")"; return 1; }
}

# Modules a case may leave loaded, with what they depend on: the fabric,
# the targets and the reference initiator, which nearly every case sets up
# again; loading and unloading them over 9p under TCG took longer than a
# boot. Their state goes through their own interfaces (links, configfs,
# disconnect) and is checked below. Everything else loaded since boot,
# rblk above all, is unloaded.
KEEP='^(rdma_rxe|ib_uverbs|rdma_ucm|ib_umad|ib_core|ib_cm|iw_cm|rdma_cm|nvmet|nvmet_rdma|nvme_rdma|nvme_fabrics|nvme_core|null_blk|veth)$'

# kept: the loaded modules KEEP names, and those their holders need.
kept() {
	local set m h grew=1
	set=$(modules | grep -E "$KEEP")
	while [ "$grew" = 1 ]; do
		grew=0
		for m in $(modules | grep -vxF -f <(printf '%s\n' $set) || true); do
			for h in /sys/module/"$m"/holders/*; do
				[ -e "$h" ] || continue
				if printf '%s\n' $set | grep -qxF "$(basename "$h")"; then
					set=$(printf '%s\n' $set "$m")
					grew=1
					break
				fi
			done
		done
	done
	printf '%s\n' $set | sort -u
}

# unload_new [all]: the modules loaded since boot but the kept ones (all:
# those too), users first; each round removes what nothing uses any more.
unload_new() {
	local round m left free keep=/dev/null
	[ "${1:-}" = all ] || { kept > "$base/kept"; keep=$base/kept; }
	for ((round = 0; round < 12; round++)); do
		left=$(comm -13 "$base/base/modules" <(modules) | grep -vxF -f "$keep")
		[ -z "$left" ] && return 0
		free=""
		for m in $left; do
			[ -z "$(ls "/sys/module/$m/holders" 2> /dev/null)" ] && free="$free $m"
		done
		# shellcheck disable=SC2086 # module names are words
		[ -n "$free" ] && timeout 120 rmmod $free 2> /dev/null
	done
	log "modules that do not unload: $(comm -13 "$base/base/modules" <(modules) | grep -vxF -f "$keep" | tr '\n' ' ')"
	return 1
}

rdma_links() { rdma link show 2> /dev/null | awk '/ netdev / { split($2, l, "/"); print l[1] }' | sort -u; }
configfs_items() { find /sys/kernel/config/nvmet/subsystems /sys/kernel/config/nvmet/ports /sys/kernel/config/nullb -mindepth 1 -maxdepth 1 -type d 2> /dev/null | sort; }
nvme_ctrls() { find /sys/class/nvme -mindepth 1 -maxdepth 1 2> /dev/null | sort; }
disks() { ls /sys/block | sort; }

# What the VM looks like before any case: the state to come back to.
snapshot() {
	links > "$1/links"
	mounts > "$1/mounts"
	rdma_links > "$1/rdma_links"
	configfs_items > "$1/configfs"
	nvme_ctrls > "$1/nvme"
	disks > "$1/disks"
	modules > "$1/modules"
}

# back_to_base [all]: the state compared with the boot's; modules: every
# one of the boot's still there, rblk gone, nothing new but the kept ones
# (all: nothing new at all).
back_to_base() {
	local f ok=0 extra
	snapshot "$base/now"
	for f in links mounts rdma_links configfs nvme disks; do
		if ! cmp -s "$base/base/$f" "$base/now/$f"; then
			log "$f differ from the boot's: $(diff "$base/base/$f" "$base/now/$f" | grep '^[<>]' | tr '\n' ' ')"
			ok=1
		fi
	done
	if [ -n "$(comm -23 "$base/base/modules" "$base/now/modules")" ]; then
		log "modules of the boot are gone: $(comm -23 "$base/base/modules" "$base/now/modules" | tr '\n' ' ')"
		ok=1
	fi
	extra=$(comm -13 "$base/base/modules" "$base/now/modules")
	[ "${1:-}" = all ] || extra=$(printf '%s\n' "$extra" | grep -vxF -f "$base/kept")
	if [ -n "$extra" ]; then
		log "modules loaded since boot: $(printf '%s\n' "$extra" | tr '\n' ' ')"
		ok=1
	fi
	return "$ok"
}

# reset: back to the boot's state, each step bounded; 0 when it got there.
reset() {
	local m l n d
	kill_case || return 1
	# Mounts first (a file system on an rblk or nvme disk pins its module).
	for m in $(comm -13 "$base/base/mounts" <(mounts) | sort -r); do
		timeout 60 umount "$m" || timeout 30 umount -l "$m" || log "cannot umount $m"
	done
	# rblk deletes its controllers on unload; nvme-rdma's need a disconnect.
	if [ -d /sys/module/rblk ]; then
		timeout 120 rmmod rblk || log "rmmod rblk failed"
	fi
	if [ -n "$(nvme_ctrls)" ]; then
		timeout 120 nvme disconnect-all > /dev/null 2>&1 || log "nvme disconnect-all failed"
	fi
	(set -e; vm_nvmet_teardown) 2> /dev/null || log "nvmet teardown failed"
	for d in /sys/kernel/config/nullb/*; do
		[ -d "$d" ] || continue
		echo 0 > "$d/power" 2> /dev/null
		rmdir "$d" || log "cannot remove null_blk $d"
	done
	for l in $(rdma_links); do
		timeout 60 rdma link delete "$l" || log "cannot delete rdma link $l"
	done
	for n in $(comm -13 "$base/base/links" <(links)); do
		# A veth's peer goes with it.
		[ -e "/sys/class/net/$n" ] || continue
		timeout 30 ip link delete "$n" || log "cannot delete link $n"
	done
	rm -rf /tmp/* /tmp/.[!.]* 2> /dev/null
	unload_new && back_to_base && return 0
	# Something the kept modules hold (a device a case made some other way):
	# unload them too.
	log "unloading every module loaded since boot"
	unload_new all && back_to_base all
}

snapshot "$base/base"
for arg in "$@"; do
	budget=${arg%%:*} case=${arg#*:}
	name=$(basename "$case" .sh)
	dir=$OUT/$name
	mkdir -p "$dir"
	dmesg -C
	echo "RBLK-VM-CASE-START: $name $budget" > /dev/console
	: > "$dir/started"
	t0=$(date +%s%N)
	mkdir "$CG"
	# Output straight to the share: it survives a panic.
	(
		echo "$BASHPID" > "$CG/cgroup.procs"
		export RBLK_VM_OUT=$dir RBLK_VM_NAME=$name
		cd "$RBLK_SRC_DIR" || exit 125
		exec timeout -k 10 "$budget" /bin/bash "$case"
	) < /dev/null > "$dir/output.log" 2>&1
	rc=$?
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		rc=124
		log "$name timed out after ${budget}s inside the VM" >> "$dir/output.log"
		echo w > /proc/sysrq-trigger
	fi
	clean=0
	# After the boot's last case the VM powers off: nothing to put back.
	if [ "$arg" != "${*: -1}" ]; then
		reset >> "$dir/output.log" 2>&1 || clean=1
	else
		kill_case >> "$dir/output.log" 2>&1
	fi
	dmesg > "$dir/dmesg.log"
	if ! "$here/check-dmesg.sh" "$dir/dmesg.log" >> "$dir/output.log" 2>&1 && [ "$rc" -eq 0 ]; then
		rc=97
	fi
	if [ "$clean" -ne 0 ]; then
		log "$name left the VM in a state that could not be undone; the cases after it get a fresh VM" >> "$dir/output.log"
		[ "$rc" -eq 0 ] && rc=98
	fi
	echo "$ms" > "$dir/ms"
	echo "$rc" > "$dir/exit_code"
	sync
	echo "RBLK-VM-CASE-END: $name $rc" > /dev/console
	[ "$clean" -eq 0 ] || exit 3
done
exit 0
