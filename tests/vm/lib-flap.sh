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
#   flap_cm_works         succeeds if an rdma_cm connection over rxe0 (siw0) can
#                         be made now, by neither rblk nor nvme: perftest's
#                         ib_send_bw -R, server and client on 10.99.0.1
#                         (so both on rxe0, as every QP here)

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

flap_cm_works() {
	local srv ok=1 rc=0
	# -F: TCG's clock fails perftest's CPU frequency check, not the test.
	timeout 60 ib_send_bw -R -F -d "${VM_RDMA}0" -n 5 -p 18515 > /tmp/cm-srv.out 2>&1 &
	srv=$!
	vm_wait_for 30 flap__listening
	# A sound fabric connects within a second or two; a dead CM never.
	# Connected once the peer's QP came over rdma_cm.
	timeout 30 ib_send_bw -R -F -d "${VM_RDMA}0" -n 5 -p 18515 10.99.0.1 \
		> /tmp/cm-cli.out 2>&1 || rc=$?
	grep -q 'remote address:' /tmp/cm-cli.out && ok=0
	kill "$srv" 2> /dev/null || true
	wait "$srv" 2> /dev/null || true
	[ "$ok" = 0 ] ||
		{ echo "=== ib_send_bw -R client: exit $rc (124: no connection in 30 s)"; cat /tmp/cm-cli.out; }
	return "$ok"
}

flap__listening() {
	rdma resource show cm_id 2> /dev/null | grep 'LISTEN' | grep -q 'ib_send_bw'
}
