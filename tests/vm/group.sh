#!/bin/bash
# The job of a grouped VM run (run-in-vm.sh --group): several cases share
# one boot. Each case runs in a cgroup of its own, with a budget, output to
# <out>/<case>/output.log and RBLK_VM_OUT=<out>/<case>; afterwards the VM
# is put back as the boot left it (processes killed; mounts, rblk, nvme-rdma
# connections, nvmet and null_blk configuration, soft-RoCE devices and
# links removed, but for a veth/rxe pair left as vm_rxe_pair made it, which
# the next case reuses; the modules loaded since boot unloaded but the fabric's
# and the targets' (KEEP); /tmp emptied), and the case's kernel log (it
# starts with an empty ring) is checked and saved. Its exit code goes to <out>/<case>/exit_code:
#   the case's own, 124 on its timeout, 97 when it passed but its kernel
#   log (teardown included) has WARNING/BUG/... or (debug kernel) kmemleak
#   finds a leak after it, 98 when it passed but the
#   VM could not be put back; and when it is not 0, why, a line a cause,
#   to <out>/<case>/reason (run-in-vm.sh writes it for a case the VM did
#   not finish or run).
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
# shellcheck source=check-dmesg.sh
. "$here/check-dmesg.sh"
set +eu +o pipefail

log() { echo "group: $*"; }

# The state probes read sysfs and procfs through bash's own globs and
# reads: a process costs tens of milliseconds under TCG, and the reset
# runs them twice per case.
shopt -s nullglob
names() { local p; for p in "$@"; do echo "${p##*/}"; done; }
links() { names /sys/class/net/*; }
mounts() { local mnt rest; while read -r _ mnt rest; do echo "$mnt"; done < /proc/self/mounts; }

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
		read -r _ < "$CG/cgroup.procs" || break
		vm_sleep 0.1
	done
	rmdir "$CG" || { log "processes of the case survive cgroup.kill: $(cat "$CG/cgroup.procs")"; return 1; }
}

# Modules a case may leave loaded, with what they depend on: the fabric,
# the targets and the reference initiator, which nearly every case sets up
# again; loading and unloading them over 9p under TCG took longer than a
# boot. Their state goes through their own interfaces (links, configfs,
# disconnect) and is checked below. Everything else loaded since boot,
# rblk above all, is unloaded. The CRC implementations (crc64_rocksoft_
# generic, crct10dif_pclmul on 6.1) are loaded by the crypto API for
# t10-pi, which holds them without being listed as their user: kept too.
# So are the algorithms DH-HMAC-CHAP's nvme-auth pulls in where they are
# modules (the debug kernel; Debian builds them in): the crypto API's
# default RNG (drbg, its hmac and sha512, and jitterentropy_rng with its
# sha3) stays allocated once nvme-auth generated a DH key.
KEEP='^(rdma_rxe|siw|ib_uverbs|rdma_ucm|ib_umad|ib_core|ib_cm|iw_cm|rdma_cm|nvmet|nvmet_rdma|nvme_rdma|nvme_fabrics|nvme_core|null_blk|veth|crc[a-z0-9_]*|hmac|sha[0-9a-z_]*_generic|drbg|jitterentropy_rng)$'

# mod_state [KEEP_ERE]: the modules against the boot's, in one awk over
# /proc/modules: "gone M" for one of the boot's that is not loaded, "free
# M" / "busy M" for one loaded since then that nothing / something uses.
# The kept ones are left out: those KEEP_ERE names and what their users
# need, so a dependency of a kept module stays.
mod_state() {
	# FILENAME, not FNR == NR: on a kernel that loads no module to boot
	# (the debug kernel) the boot's list is empty, and FNR == NR would hold
	# for the whole of /proc/modules.
	awk -v keep="${1:-}" '
		FILENAME == ARGV[1] { base[$1] = 1; next }
		{ loaded[$1] = 1; refs[$1] = $3; users[$1] = $4 }
		END {
			if (keep != "")
				for (m in loaded)
					if (m ~ keep)
						kept[m] = 1
			do {
				grew = 0
				for (m in loaded) {
					if (m in kept)
						continue
					n = split(users[m], u, ",")
					for (i = 1; i <= n; i++)
						if (u[i] in kept) {
							kept[m] = 1
							grew = 1
							break
						}
				}
			} while (grew)
			for (m in base)
				if (!(m in loaded))
					print "gone", m
			for (m in loaded)
				if (!(m in base) && !(m in kept))
					print (refs[m] == 0 ? "free" : "busy"), m
		}' "$base/base/modules" /proc/modules
}

# unload_new [all]: the modules loaded since boot but the kept ones (all:
# those too), users first; each round removes what nothing uses any more.
unload_new() {
	local round kind m free left keep=$KEEP
	[ "${1:-}" = all ] && keep=
	for ((round = 0; round < 12; round++)); do
		free=() left=""
		while read -r kind m; do
			case $kind in
			free) free+=("$m"); left="$left $m" ;;
			busy) left="$left $m" ;;
			esac
		done < <(mod_state "$keep")
		[ -z "$left" ] && return 0
		[ ${#free[@]} -gt 0 ] && timeout 120 rmmod "${free[@]}" 2> /dev/null
	done
	log "modules that do not unload:$left"
	return 1
}

rdma_links() { names /sys/class/infiniband/*; }
# The links and devices of the fabric kept for the next case (reset_fabric).
declare -A kept=()
unkept() { local n; while read -r n; do [ -n "${kept[$n]:-}" ] || echo "$n"; done; }
configfs_items() { printf '%s\n' /sys/kernel/config/nvmet/subsystems/*/ /sys/kernel/config/nvmet/ports/*/ /sys/kernel/config/nullb/*/; }
nvme_ctrls() { names /sys/class/nvme/*; }
disks() { names /sys/block/*; }

# What the VM looks like before any case: the state to come back to.
snapshot() {
	{
		echo "links:"; links | unkept
		echo "mounts:"; mounts
		echo "rdma links:"; rdma_links | unkept
		echo "nvmet and null_blk items:"; configfs_items
		echo "nvme controllers:"; nvme_ctrls
		echo "disks:"; disks
	} > "$1/state"
	awk '{ print $1 }' /proc/modules > "$1/modules"
}

# back_to_base [all]: the state compared with the boot's; modules: every
# one of the boot's still there, rblk gone, nothing new but the kept ones
# (all: nothing new at all).
back_to_base() {
	local ok=0 kind m gone="" extra="" keep=$KEEP
	[ "${1:-}" = all ] && keep=
	snapshot "$base/now"
	if ! cmp -s "$base/base/state" "$base/now/state"; then
		log "differs from the boot's: $(diff "$base/base/state" "$base/now/state" | grep '^[<>]' | tr '\n' ' ')"
		ok=1
	fi
	while read -r kind m; do
		case $kind in
		gone) gone="$gone $m" ;;
		*) extra="$extra $m" ;;
		esac
	done < <(mod_state "$keep")
	[ -z "$gone" ] || { log "modules of the boot are gone:$gone"; ok=1; }
	[ -z "$extra" ] || { log "modules loaded since boot:$extra"; ok=1; }
	return "$ok"
}

# step NAME CMD...: one step of the reset, its time logged when it is
# long enough to be worth cutting (the reset has to stay cheaper than a
# boot for groups to pay).
step() {
	local name=$1 t0 rc ms
	shift
	t0=$(vm_now_ms)
	"$@"
	rc=$?
	ms=$(($(vm_now_ms) - t0))
	[ "$ms" -lt 300 ] || log "reset: $name took ${ms}ms"
	return "$rc"
}

reset_mounts() {
	local m new=()
	# Innermost first; a file system on an rblk or nvme disk pins its module.
	while read -r m; do
		[ -n "${base_mount[$m]:-}" ] || new=("$m" "${new[@]}")
	done < <(mounts)
	for m in "${new[@]}"; do
		timeout 60 umount "$m" || timeout 30 umount -l "$m" || log "cannot umount $m"
	done
}

reset_initiators() {
	# rblk deletes its controllers on unload; nvme-rdma's need a disconnect.
	if [ -d /sys/module/rblk ]; then
		timeout 120 rmmod rblk || log "rmmod rblk failed"
	fi
	if [ -n "$(nvme_ctrls)" ]; then
		timeout 120 nvme disconnect-all > /dev/null 2>&1 || log "nvme disconnect-all failed"
	fi
}

reset_targets() {
	local d
	(set -e; vm_nvmet_teardown) 2> /dev/null || log "nvmet teardown failed"
	for d in /sys/kernel/config/nullb/*; do
		[ -d "$d" ] || continue
		echo 0 > "$d/power" 2> /dev/null
		rmdir "$d" || log "cannot remove null_blk $d"
	done
}

# rdma_netdev DEV: the netdev under soft RDMA device DEV. rxe's is its
# RoCE GID's (a read); iWARP has no RoCE GID table, so siw's comes from
# rdma link.
rdma_netdev() {
	local dev
	if [ "$VM_RDMA" = rxe ]; then
		read -r dev < "/sys/class/infiniband/$1/ports/1/gid_attrs/ndevs/0" && echo "$dev"
	else
		rdma link show "$1/1" 2> /dev/null | sed -n 's/.* netdev \([^ ]*\).*/\1/p'
	fi
}

# fabric_pristine N: pair N of vm_rxe_pair (lib.sh) is as it was made:
# the same record (no carrier change, the same resource counts: nothing
# of the case's left on rxeN or rxeN+1), both ends up with MTU 1500 and
# only their IPv4 address, each rxe on its own veth and active.
fabric_pristine() {
	local t=$1 i=$(($1 + 1)) net rest e dev n want mtu st now
	read -r net rest < "$VM_FABRIC/pair$t" || return 1
	now=$(vm_fabric_state "$t" "$net")
	if [ "$now" != "$(< "$VM_FABRIC/pair$t")" ]; then
		log "reset: pair $VM_RDMA$t/$VM_RDMA$i changed, not kept: $(diff "$VM_FABRIC/pair$t" - <<< "$now" | grep '^[<>]' | tr '\n' ' ')"
		return 1
	fi
	for e in "$t:1" "$i:2"; do
		n=${e%:*} want=$net.${e#*:}/24
		read -r st < "/sys/class/net/veth$n/operstate" && [ "$st" = up ] &&
			read -r mtu < "/sys/class/net/veth$n/mtu" && [ "$mtu" = 1500 ] &&
			[ "$(ip -4 -o addr show dev "veth$n" | awk '{ print $4 }')" = "$want" ] &&
			[ "$(rdma_netdev "$VM_RDMA$n")" = "veth$n" ] && vm__rxe_active "$VM_RDMA$n" || {
			log "reset: veth$n or $VM_RDMA$n changed, pair $VM_RDMA$t/$VM_RDMA$i not kept"
			return 1
		}
	done
}

# reset_fabric [all]: delete the soft-RoCE devices and links made since
# boot but the pristine pairs (all: those too), whose names go to kept.
reset_fabric() {
	local l n rec t
	kept=()
	for rec in "$VM_FABRIC"/pair*; do
		t=${rec##*/pair}
		if [ "${1:-}" != all ] && fabric_pristine "$t"; then
			kept[veth$t]=1 kept[veth$((t + 1))]=1 kept[$VM_RDMA$t]=1 kept[$VM_RDMA$((t + 1))]=1
			log "reset: kept the pristine pair $VM_RDMA$t/$VM_RDMA$((t + 1)) for the next case"
		else
			rm -f "$rec"
		fi
	done
	for l in $(rdma_links); do
		[ -z "${kept[$l]:-}" ] || continue
		timeout 60 rdma link delete "$l" || log "cannot delete rdma link $l"
	done
	for n in $(links); do
		[ -z "${base_link[$n]:-}" ] && [ -z "${kept[$n]:-}" ] || continue
		# A veth's peer goes with it.
		[ -e "/sys/class/net/$n" ] || continue
		timeout 30 ip link delete "$n" || log "cannot delete link $n"
	done
}

# reset: back to the boot's state, each step bounded; 0 when it got there.
reset() {
	step kill kill_case || return 1
	step umount reset_mounts
	step initiators reset_initiators
	step targets reset_targets
	step fabric reset_fabric
	rm -rf /tmp/* /tmp/.[!.]* 2> /dev/null
	# A case's modprobe configuration (e.g. no auto-load of rblk), rules.
	rm -f /etc/modprobe.d/rblk-test-*.conf /etc/udev/rules.d/60-rblk.rules
	step unload unload_new && step check back_to_base && return 0
	# Something the kept modules hold (a device a case made some other way):
	# unload them too.
	log "unloading every module loaded since boot"
	step fabric reset_fabric all
	unload_new all && back_to_base all
}

# kmemleak (the debug kernel, ci/debug-kernel.sh): a scan once the VM is
# put back after a case finds what the case leaked; a leak fails it as a
# kernel log report does (97). What booting leaked is reported and
# cleared before the first case, and each case starts by clearing what
# was reported before it, so that only its own leaks count.
KMEMLEAK=/sys/kernel/debug/kmemleak
kmemleak_clear() {
	[ -e "$KMEMLEAK" ] || return 0
	[ "${1:-}" != scan ] || echo scan > "$KMEMLEAK"
	echo clear > "$KMEMLEAK"
}
# kmemleak_check DIR: no new leak; else the report is in DIR/kmemleak.log.
kmemleak_check() {
	[ -e "$KMEMLEAK" ] || return 0
	# kmemleak reports an object only once it is 5 s old: the case's last
	# allocations (its teardown's) need that long.
	sleep 5
	echo scan > "$KMEMLEAK"
	cat "$KMEMLEAK" > "$1/kmemleak.log"
	if [ -s "$1/kmemleak.log" ]; then
		log "kmemleak: leaks found after the case:"
		head -n 60 "$1/kmemleak.log"
		return 1
	fi
	rm -f "$1/kmemleak.log"
}

kmemleak_clear scan
snapshot "$base/base"
declare -A base_mount base_link
while read -r m; do base_mount[$m]=1; done < <(mounts)
while read -r m; do base_link[$m]=1; done < <(links)
for arg in "$@"; do
	budget=${arg%%:*} case=${arg#*:}
	name=$(basename "$case" .sh)
	dir=$OUT/$name
	mkdir -p "$dir"
	dmesg -C
	kmemleak_clear
	echo "RBLK-VM-CASE-START: $name $budget" > /dev/console
	: > "$dir/started"
	t0=$(vm_now_ms)
	mkdir "$CG"
	# Output straight to the share: it survives a panic.
	(
		echo "$BASHPID" > "$CG/cgroup.procs"
		export RBLK_VM_OUT=$dir RBLK_VM_NAME=$name
		cd "$RBLK_SRC_DIR" || exit 125
		# RBLK_VM_XTRACE=1: every command of the case, and of the bash
		# scripts it runs, with a timestamp, into xtrace.log: where a slow
		# case spends its time.
		if [ "${RBLK_VM_XTRACE:-0}" = 1 ]; then
			printf '%s\n' "exec 222>>${dir@Q}/xtrace.log" 'BASH_XTRACEFD=222' \
				'PS4='\''+${EPOCHREALTIME} ${BASH_SOURCE[0]##*/}:${LINENO} '\' 'set -x' \
				> "$dir/xtrace.env"
			export BASH_ENV=$dir/xtrace.env
		fi
		exec timeout -k 10 "$budget" /bin/bash "$case"
	) < /dev/null > "$dir/output.log" 2>&1
	rc=$?
	case_rc=$rc
	t_end=$(vm_now_ms)
	ms=$((t_end - t0))
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
	leaked=0
	kmemleak_check "$dir" >> "$dir/output.log" 2>&1 || leaked=1
	t_check=$(vm_now_ms)
	dmesg > "$dir/dmesg.log"
	if ! check_dmesg "$dir/dmesg.log" >> "$dir/output.log" 2>&1 && [ "$rc" -eq 0 ]; then
		rc=97
	fi
	[ "$leaked" -eq 0 ] || [ "$rc" -ne 0 ] || rc=97
	if [ "$clean" -ne 0 ]; then
		log "$name left the VM in a state that could not be undone; the cases after it get a fresh VM" >> "$dir/output.log"
		[ "$rc" -eq 0 ] && rc=98
	fi
	# Why it failed, a line a cause (ci/test.sh prints them at the end of
	# a run): the case's own last FAIL (vm_fail()) or exit code, then what
	# was found after it.
	if [ "$rc" -ne 0 ]; then
		{
			if [ "$case_rc" -eq 124 ] || [ "$case_rc" -eq 137 ]; then
				echo "timed out after ${budget}s inside the VM"
			elif [ "$case_rc" -ne 0 ]; then
				grep '^FAIL: ' "$dir/output.log" | tail -n 1 | grep . || echo "exit $case_rc"
			fi
			bad=$(grep -E -m 1 -f "$CHECK_DMESG_PATTERNS" "$dir/dmesg.log") &&
				echo "kernel log: $bad"
			[ "$leaked" -eq 0 ] || echo "kmemleak: leaks found (kmemleak.log)"
			[ "$clean" -eq 0 ] || echo "left the VM in a state that could not be undone"
		} | cut -c1-400 > "$dir/reason"
	fi
	echo "$ms" > "$dir/ms"
	echo "$rc" > "$dir/exit_code"
	# No sync: the out share has no cache (9p's default), what a case
	# wrote is on the host once written.
	# What a case costs beyond its own time: kept in view, since it is
	# paid once a case.
	log "after the case: $(($(vm_now_ms) - t_end))ms: reset and leak check $((t_check - t_end))ms, dmesg and its check $(($(vm_now_ms) - t_check))ms" >> "$dir/output.log"
	echo "RBLK-VM-CASE-END: $name $rc" > /dev/console
	[ "$clean" -eq 0 ] || exit 3
done
exit 0
