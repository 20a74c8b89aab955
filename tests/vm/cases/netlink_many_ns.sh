#!/bin/bash
# One controller with many namespaces, 400 in the suite (the test target's
# --namespaces: each on the same memory, so that the target costs nothing
# to set up): every disk appears, and `rblkctl list --json` (the GET_CTRL
# dump), `rblkctl show` (the dump of one controller) and connect's own
# reply carry all of them. A dump's message is no larger than the reader's
# buffer (libnl's is 16 KiB) and an entry takes about 100 bytes, so one
# controller's namespaces did not fit in one message from about 150 on
# (list failed at 256); a doit reply is bounded at 32 KiB, about 390 such
# entries (connect failed at 512) (issue 31 §3). Connect time, slab growth
# and the disconnect's time are logged as RESULT lines, never asserted.
# By hand: arguments NR (the number of namespaces, at most 1024) and
# "ref", which measures nvme-rdma's too.
# On the newest kernel only: its version-dependent pieces (the dump's
# request attributes, compat.h; where a refusal's reason goes, checked by
# netlink_control on both) are not what grows; 6.1 passed with 1024 by hand.
# vm-kernels: newest
# vm-timeout: 900
. "$RBLK_SRC_DIR/tests/vm/lib.sh"
# shellcheck source=SCRIPTDIR/../lib-target.sh
. "$RBLK_SRC_DIR/tests/vm/lib-target.sh"

nqn=$TGT_NQN
nr=${1:-400}
tgt_start none --namespaces "$nr" --size-mib 2

all_disks() {
	local i
	for ((i = 1; i <= nr; i++)); do
		[ -b "/dev/$1$i" ] || return 1
	done
}

# measure WHO PREFIX CMD...: CMD connects; the time until it returns and
# until every disk PREFIX1..PREFIX<nr> is there, and the slab it added.
measure() {
	local who=$1 prefix=$2 base t0 ms all_ms live
	shift 2
	base=$(vm_slab_kib)
	t0=$(vm_now_ms)
	"$@"
	ms=$(vm_ms_since "$t0")
	vm_wait_for 300 all_disks "$prefix"
	all_ms=$(vm_ms_since "$t0")
	live=$(vm_slab_kib)
	echo "RESULT: $who, $nr namespaces: connect returned in $ms ms, all disks after $all_ms ms;" \
		"slab +$((live - base)) KiB ($(((live - base) / nr)) KiB a namespace)"
}

rblk_connect() { vm_rblk_connect "$nqn" > /tmp/connect.out; }
measure rblk rblk0n rblk_connect
vm_assert_eq "$nr" "$(grep -c '^/dev/rblk0n' /tmp/connect.out)" "disks that connect printed"

# Each query must list every namespace, each once, with its disk.
# A file, not the environment: 1024 namespaces are more JSON than one
# variable may pass to a program (128 KiB, E2BIG).
check() {
	local what=$1 json=/tmp/query.json rc=0
	"$RBLKCTL" "$@" --json > "$json" 2>&1 || rc=$?
	[ "$rc" = 0 ] || vm_fail "rblkctl $* --json failed ($rc): $(head -c 2000 "$json")"
	python3 - "$nr" "$what" "$json" <<'PY' || vm_fail "rblkctl $* --json: $(head -c 2000 "$json")"
import json, sys
nr, what = int(sys.argv[1]), sys.argv[2]
with open(sys.argv[3]) as f:
    doc = json.load(f)
ctrls = doc["controllers"] if what == "list" else [doc]
assert [c["name"] for c in ctrls] == ["rblk0"], [c["name"] for c in ctrls]
ns = ctrls[0]["namespaces"]
got = [(n["nsid"], n["device"]) for n in ns]
want = [(i, "/dev/rblk0n%d" % i) for i in range(1, nr + 1)]
assert got == want, "%d namespaces, first differences: %s" % (
    len(got), [(g, w) for g, w in zip(got, want) if g != w][:3] or (got[-3:], want[-3:]))
PY
}
check list
check show rblk0

t0=$(vm_now_ms)
"$RBLKCTL" disconnect rblk0 > /dev/null || vm_fail "rblkctl disconnect rblk0 failed"
echo "RESULT: rblk, $nr namespaces: disconnect took $(vm_ms_since "$t0") ms"
vm_assert_eq "" "$(vm_rblk_disks)" "rblk disks after the disconnect"

if [ "${2:-}" = ref ]; then
	vm_modprobe nvme-rdma
	# nvme-cli's topology scan (libnvme) holds a descriptor per namespace:
	# at 1024 its disconnect fails with "Too many open files" under the
	# default limit of 1024.
	ulimit -n 8192
	nvme_connect() { nvme connect -t rdma -a 10.99.0.1 -s 4420 -n "$nqn" > /dev/null || vm_fail "nvme connect failed"; }
	# With multipath heads or without, the first subsystem's disks are nvme0nN.
	measure nvme-rdma nvme0n nvme_connect
	t0=$(vm_now_ms)
	vm_nvme_ref_disconnect "$nqn"
	echo "RESULT: nvme-rdma, $nr namespaces: disconnect took $(vm_ms_since "$t0") ms"
fi
tgt_clean_slate "$nr namespaces"
