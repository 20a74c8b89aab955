# shellcheck shell=bash
# Link-flap helpers shared by tests/vm/cases/recovery_link_flap.sh and
# tests/vm/investigate/link_flap_nvme_rdma.sh. Source after lib.sh.
#
#   flap_link SECONDS     veth0 down, SECONDS, up again. Both addresses
#                         are local to the one VM, so rdma_cm resolves the
#                         initiator's 10.99.0.1 to rxe0 too and every RC QP
#                         (host and target end) lives on rxe0, its packets
#                         looped back inside rxe: flapping veth1 changes
#                         nothing (measured). veth1 loses carrier with veth0,
#                         so rxe0 and rxe1 both report PORT_ERR, PORT_ACTIVE
#   flap_stacks WHAT      kernel stacks of every D-state task, of fio and
#                         of any task sleeping in nvme/rblk/RDMA code,
#                         labelled WHAT, on stdout
#   flap_rxe_debug        turn on the rxe debug lines that show a packet
#                         failing its route and a QP changing state
#   flap_qps              soft-RoCE QPs (rdma resource show qp)

flap_link() {
	vm_log "link down: veth0 for $1 s"
	ip link set veth0 down
	sleep "$1"
	ip link set veth0 up
	vm_log "link up"
}

flap_stacks() {
	local p st stack
	echo "=== stacks: $1"
	for p in /proc/[0-9]*; do
		st=$(awk '/^State:/ { print $2 }' "$p/status" 2> /dev/null) || continue
		stack=$(cat "$p/stack" 2> /dev/null) || continue
		[ "$st" = D ] || [ "$(cat "$p/comm" 2> /dev/null)" = fio ] ||
			grep -qE 'nvme|rblk|rdma|ib_|cm_' <<< "$stack" || continue
		echo "--- pid ${p#/proc/} ($(cat "$p/comm" 2> /dev/null)) state $st"
		echo "$stack"
	done
}

flap_rxe_debug() {
	local f=/sys/kernel/debug/dynamic_debug/control
	[ -e "$f" ] || mount -t debugfs none /sys/kernel/debug
	# siw (RBLK_VM_RDMA=siw) has no such lines; its TCP over lo never drops.
	[ "$VM_RDMA" = rxe ] || return 0
	echo 'module rdma_rxe func prepare4 +p' > "$f"
	echo 'module rdma_rxe func rxe_qp_from_attr +p' > "$f"
	echo 'module rdma_rxe func rxe_requester +p' > "$f"
}

flap_qps() {
	echo "=== rdma resource show qp"
	rdma resource show qp 2>&1 || true
	rdma link 2>&1 || true
}
