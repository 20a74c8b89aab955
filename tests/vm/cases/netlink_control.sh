#!/bin/bash
# The control plane without a target: rblkctl talks to the module, and every
# malformed or unprivileged connect request is refused with the right errno
# and (when the module itself refuses it) an extack message.
# vm-timeout: 600
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
vm_require "$RBLKCTL" "$RBLK_NLPROBE"

nqn=nqn.2024-01.io.rblk:netlink-control
list_is_empty() {
	local json
	json=$("$RBLKCTL" list --json) || vm_fail "rblkctl list --json failed"
	python3 -c 'import json, sys
d = json.load(sys.stdin)
assert d == {"controllers": [], "subsystems": []}, d' <<< "$json" || vm_fail "rblkctl list --json: expected no controllers, got: $json"
}

# probe ERRNO ATTR_ERE MSG_ERE -- PROBE_ARGS...: one connect request must be
# refused with ERRNO, a bad attribute matching ATTR_ERE and a message
# matching MSG_ERE (".+" = any non-empty message).
probe() {
	local errno=$1 attr=$2 msg=$3 out rc=0
	shift 4
	out=$("$RBLK_NLPROBE" connect "$@" 2>&1) || rc=$?
	[ "$rc" -ne 2 ] || vm_fail "rblk_nlprobe failed locally: $out"
	[ "$rc" -eq 1 ] || vm_fail "connect $* was accepted (exit $rc): $out"
	vm_assert_match "^error $errno attr=($attr) msg=($msg)\$" "$out" "connect $*"
	vm_log "refused as expected: connect $* -> $out"
}

# Without the module: a clear hint, non-zero exit. (A module installed by
# an earlier case of the boot would load by the family's alias: that is
# off here, as a blacklist does it; module_load checks the auto-load.)
"$RBLKCTL" --version | grep -q . || vm_fail "rblkctl --version printed nothing"
echo "blacklist rblk" > /etc/modprobe.d/rblk-test-noauto.conf
trap 'rm -f /etc/modprobe.d/rblk-test-noauto.conf' EXIT
rc=0
out=$("$RBLKCTL" list 2>&1) || rc=$?
rm /etc/modprobe.d/rblk-test-noauto.conf
vm_assert_eq 3 "$rc" "exit code of rblkctl list without the module (README.md: 3)"
vm_assert_contains "$out" "rblk kernel module is not loaded; run: modprobe rblk" "rblkctl list without the module"

vm_rblk_load
list_is_empty
"$RBLKCTL" list > /dev/null || vm_fail "rblkctl list (table) failed"

# A dump asked for one controller refuses a bad selector with a reason, as
# the doit does (6.1 drops what a dump's start callback says in extack).
for how in "" --dump; do
	for sel in "--subnqn $nqn --id 0|EINVAL|subnqn selects controllers only for disconnect" \
		"--name rblk0 --id 0|EINVAL|give either ctrl_name or ctrl_id, not both" \
		"--name rblk0|ENODEV|no controller with that name"; do
		IFS='|' read -r args errno msg <<< "$sel"
		rc=0
		# shellcheck disable=SC2086 # args holds several words
		out=$("$RBLK_NLPROBE" get $how $args 2>&1) || rc=$?
		vm_assert_eq 1 "$rc" "exit code of get $how $args ($out)"
		vm_assert_match "^error $errno attr=.* msg=$msg\$" "$out" "get $how $args"
	done
done

ok=(--transport rdma --traddr 10.99.0.1 --trsvcid 4420 --subnqn "$nqn")
long=$(printf 'a%.0s' {1..300})
probe EINVAL '.*' '.*traddr.*' -- --transport rdma --subnqn "$nqn"
probe EINVAL '.*' '.+' -- --transport rdma --traddr 10.99.0.1
probe EINVAL '.*' '.+' -- --traddr 10.99.0.1 --subnqn "$nqn"
probe EINVAL traddr '.+' -- --transport rdma --traddr "$long" --subnqn "$nqn"
probe EPROTONOSUPPORT '.*' '.+' -- --transport tcp --traddr 10.99.0.1 --subnqn "$nqn"
probe EINVAL '.*' '.+' -- --transport rdma --traddr not-an-ip --subnqn "$nqn"
probe ERANGE queue_size '.+' -- "${ok[@]}" --queue-size 0
probe ERANGE queue_size '.+' -- "${ok[@]}" --queue-size 2000
probe ERANGE '.*' '.+' -- "${ok[@]}" --nr-io-queues 0
# NQNs are free-form (as in nvme-fabrics): only empty or too long is refused.
probe EINVAL subnqn 'subnqn is empty' -- --transport rdma --traddr 10.99.0.1 --subnqn ""
probe EINVAL hostnqn 'hostnqn is empty' -- "${ok[@]}" --hostnqn ""
probe EINVAL subnqn '.+' -- --transport rdma --traddr 10.99.0.1 --subnqn "$(printf 'n%.0s' {1..224})"

# Unprivileged: genetlink's admin check refuses before the module sees it,
# so there is no extack message to ask for.
rc=0
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	--bounding-set=-all "$RBLK_NLPROBE" connect "${ok[@]}" 2>&1) || rc=$?
vm_assert_eq 1 "$rc" "exit code of an unprivileged connect ($out)"
vm_assert_match '^error EPERM ' "$out" "unprivileged connect"

# A well-formed connect with nobody listening fails, with a reason, and
# leaves no controller behind.
vm_setup_rxe
probe '[A-Z0-9]+' '.*' '.+' -- "${ok[@]}"
list_is_empty

# CAP_NET_ADMIN alone may neither connect nor disconnect (as nbd's netlink
# family, and nvme-fabrics' root-only /dev/nvme-fabrics): a connect makes
# block devices from whatever a target serves and presents this host's NQN;
# a disconnect pulls disks from under their users. Root with every other
# capability dropped: the module refuses it, with its reason.
netadm=(setpriv --inh-caps=-all --ambient-caps=-all '--bounding-set=-all,+net_admin')
vm_rdma_target "$nqn" 64 > /dev/null
rc=0
out=$("${netadm[@]}" "$RBLK_NLPROBE" connect --transport rdma --traddr 10.99.0.1 --subnqn "$nqn" 2>&1) || rc=$?
vm_assert_eq 1 "$rc" "exit code of a connect with CAP_NET_ADMIN only ($out)"
vm_assert_match '^error EPERM attr=- msg=needs CAP_SYS_ADMIN$' "$out" "connect with CAP_NET_ADMIN only"
list_is_empty
rc=0
out=$("${netadm[@]}" "$RBLKCTL" connect -a 10.99.0.1 -n "$nqn" 2>&1) || rc=$?
vm_assert_ne 0 "$rc" "exit code of rblkctl connect with CAP_NET_ADMIN only ($out)"
vm_assert_contains "$out" "needs CAP_SYS_ADMIN" "rblkctl connect with CAP_NET_ADMIN only"
echo "RESULT: CAP_NET_ADMIN only: connect refused: $out"
list_is_empty
out=$("$RBLKCTL" connect -a 10.99.0.1 -n "$nqn" 2>&1) || vm_fail "rblkctl connect as root failed: $out"
rc=0
out=$("${netadm[@]}" "$RBLKCTL" disconnect -A 2>&1) || rc=$?
vm_assert_ne 0 "$rc" "exit code of rblkctl disconnect with CAP_NET_ADMIN only ($out)"
vm_assert_contains "$out" "needs CAP_SYS_ADMIN" "rblkctl disconnect with CAP_NET_ADMIN only"
vm_assert_ne "" "$(vm_rblk_ctrls)" "controllers after a refused disconnect"
"$RBLKCTL" disconnect -A > /dev/null || vm_fail "rblkctl disconnect -A as root failed"
vm_wait_for 20 vm_rblk_none

vm_rblk_unload
vm_dmesg_clean
