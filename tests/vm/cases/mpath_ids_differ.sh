#!/bin/bash
# A namespace whose identifiers differ between two paths of one subsystem
# is refused a merge. Path 1 sees namespace 1 with one UUID and NGUID;
# while it is away (port 1 unlinked, reconnecting), the target gives the
# namespace new ones; path 2 then connects and sees the new ones: the
# kernel logs "nsid 1: ... identifiers differ", path 2 gets no disk of
# namespace 1, and the head keeps path 1's identity.
# vm-timeout: 300
# The identity checks are the module's own code, the same on both
# kernels (mpath_paths covers 6.1's heads): newest kernel only, for the
# suite's time.
# vm-kernels: newest
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
. "$RBLK_SRC_DIR/tests/vm/lib-mpath.sh"
vm_require "$RBLKCTL"

nqn=nqn.2024-01.io.rblk:mp-ids
mp_target "$nqn" 32 > /dev/null
ns=$VM_NVMET/subsystems/$nqn/namespaces/1
# ids UUID [NGUID]: nvmet takes new identifiers on a disabled namespace only.
ids() {
	echo 0 > "$ns/enable"
	echo "$1" > "$ns/device_uuid"
	[ -z "${2:-}" ] || echo "$2" > "$ns/device_nguid"
	echo 1 > "$ns/enable"
}
ids 11111111-2222-3333-4444-555555555555
vm_rblk_load
mp_connect "$nqn" 1 --reconnect-delay 1 --ctrl-loss-tmo 300 > /dev/null
wwid=$(cat /sys/block/rblk0n1/wwid)
vm_assert_eq uuid.11111111-2222-3333-4444-555555555555 "$wwid" "head wwid from path 1"

mp_port_down 1 "$nqn"
vm_rblk_wait_state 60 rblk0 connecting
ids 66666666-7777-8888-9999-aaaaaaaaaaaa 01234567-89ab-cdef-0123-456789abcdef

out=$(mp_connect "$nqn" 2)
vm_log "connect through port 2: $out"
vm_assert_eq rblk1 "$(head -n 1 <<< "$out")" "the second path's controller"
vm_wait_for 30 vm_dmesg_has -E 'nsid 1: .*identifiers differ'
dmesg | grep -E 'identifiers differ' >&2
vm_assert_not_exists /sys/block/rblk0c1n1
vm_assert_eq "$wwid" "$(cat /sys/block/rblk0n1/wwid)" "head wwid after the refused merge"
"$RBLKCTL" list --json > /tmp/list.json || vm_fail "rblkctl list --json failed"
python3 - /tmp/list.json <<'PY' || vm_fail "list --json after the refused merge: $(cat /tmp/list.json)"
import json, sys
cs = {c["name"]: c for c in json.load(open(sys.argv[1]))["controllers"]}
assert cs["rblk1"]["state"] == "live", cs["rblk1"]
assert cs["rblk1"]["namespaces"] == [], cs["rblk1"]["namespaces"]
assert [n["path_disk"] for n in cs["rblk0"]["namespaces"]] == ["rblk0c0n1"], cs["rblk0"]
PY
"$RBLKCTL" disconnect --all > /dev/null || vm_fail "disconnect --all failed"
vm_wait_for 30 vm_rblk_none
