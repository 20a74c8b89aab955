#!/bin/bash
# The multipath switch off (modprobe rblk multipath=N): two paths to one
# subsystem give per-controller disks as before multipath, /dev/rblk0n1
# and /dev/rblk1n1, with one wwid (for dm-multipath to group) and no
# hidden path disks; both controllers are still paths of one subsystem
# in `list --json`, without multipath.
# vm-timeout: 300
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
. "$RBLK_SRC_DIR/tests/vm/lib-mpath.sh"
vm_require "$RBLKCTL"

nqn=nqn.2024-01.io.rblk:mp-off
mp_target "$nqn" 32 > /dev/null
vm_rblk_load multipath=N
vm_assert_eq N "$(cat /sys/module/rblk/parameters/multipath)" "multipath parameter"
vm_assert_eq $'rblk0\n/dev/rblk0n1' "$(mp_connect "$nqn" 1)" "first controller's connect output"
vm_assert_eq $'rblk1\n/dev/rblk1n1' "$(mp_connect "$nqn" 2)" "second controller's connect output"
vm_assert_eq $'/dev/rblk0n1\n/dev/rblk1n1' "$(vm_rblk_disks)" "per-controller disks"
vm_assert_eq "" "$(find /sys/block -maxdepth 1 -name 'rblk*c*n*')" "hidden path disks"
vm_assert_eq "$(cat /sys/block/rblk0n1/wwid)" "$(cat /sys/block/rblk1n1/wwid)" "the two disks' wwid"
head -c 1M /dev/urandom > /tmp/a
vm_put /tmp/a /dev/rblk0n1 0
vm_assert_eq "$(sha256sum < /tmp/a | cut -d' ' -f1)" "$(vm_sum /dev/rblk1n1 0 $((1 << 20)))" \
	"written through rblk0n1, read through rblk1n1"
"$RBLKCTL" list --json > /tmp/list.json || vm_fail "rblkctl list --json failed"
python3 - /tmp/list.json <<'PY' || vm_fail "list --json with multipath=N: $(cat /tmp/list.json)"
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["controllers"]:
    assert (c["multipath"], c["subsys_id"]) == (False, 0), c
    (ns,) = c["namespaces"]
    assert (ns["device"], ns["path_disk"]) == ("/dev/%sn1" % c["name"], ""), ns
(s,) = d["subsystems"]
assert [n["device"] for n in s["namespaces"]] == ["/dev/rblk0n1", "/dev/rblk1n1"], s
PY
"$RBLKCTL" disconnect --nqn "$nqn" > /dev/null || vm_fail "disconnect --nqn failed"
vm_wait_for 30 vm_rblk_none
